"""A bounded load grounds once: the child that proves the load fits sends back its relaxed
superset and its network as plain data, and the load in the parent (the server) takes
them instead of grounding again without a bound."""

from __future__ import annotations

import os
import random

import clingo
import pytest

from reasoner import Game
from reasoner.asp import superset as superset_module
from reasoner.asp.superset import compute_superset
from reasoner.asp.symbols import symbol_from_tree, symbol_tree
from reasoner.asp.translate import translate
from reasoner.engine import backend
from reasoner.engine.limits import Limits
from reasoner.gdl.parser import parse_gdl
from tests.conftest import GAMES

LIMITS = Limits(seconds=120, memory_mb=4096)


def bundled(name: str) -> str:
    """The text of a bundled game."""
    return (GAMES / f"{name}.kif").read_text()


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Record the process id of every call of ``module.name`` made in this process (a
    forked child appends to its own copy of the list)."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(os.getpid())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_bounded_load_grounds_nothing_in_the_parent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the child built a network, the parent neither grounds the relaxed program
    nor builds a network: both come from the child."""
    from reasoner.engine import game as game_module

    supersets = _counting(monkeypatch, game_module, "compute_superset")
    networks = _counting(monkeypatch, backend, "build_network")
    game = Game.from_gdl(bundled("breakthrough"), limits=LIMITS)
    assert game.backend == "native"
    assert supersets == [] and networks == []


def test_a_bounded_load_translates_in_the_parent_only_when_asked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the child sent its network, the parent makes no ASP programs while loading;
    the game makes them on first use, the same as an unbounded load's, and the statistics
    count the child's rules."""
    from reasoner.engine import game as game_module

    translations = _counting(monkeypatch, game_module, "translate")
    text = bundled("breakthrough")
    game = Game.from_gdl(text, limits=LIMITS)
    assert game.backend == "native" and translations == []
    plain = Game.from_gdl(text)
    assert game.translation.game_program == plain.translation.game_program
    assert translations == [os.getpid()] * 2  # the plain load's, and the first use's
    assert game.statistics.rules == plain.statistics.rules > 0


def test_a_bounded_load_plays_as_an_unbounded_one() -> None:
    """The game loaded from the child's superset and network has the same tables and
    answers the same states as one loaded here from scratch, along a seeded walk."""
    text = bundled("breakthrough")
    probed, plain = Game.from_gdl(text, limits=LIMITS), Game.from_gdl(text)
    assert probed.fluents == plain.fluents and probed.all_moves == plain.all_moves
    choose = random.Random(7)
    state, same = probed.initial_state, plain.initial_state
    for _ in range(40):
        if probed.is_terminal(state):
            break
        assert probed.legal_joint_moves(state) == plain.legal_joint_moves(same)
        joint = {role: choose.choice(probed.legal_moves(state, role)).text
                 for role in probed.roles}
        state, same = probed.next_state(state, joint), plain.next_state(same, joint)
        assert state.bits == same.bits
    assert probed.goals(state) == plain.goals(same)


def test_an_explicit_backend_takes_the_child_s_superset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend asked for by name (here clingo) still takes the child's superset rather
    than grounding the relaxed program again."""
    from reasoner.engine import game as game_module

    supersets = _counting(monkeypatch, game_module, "compute_superset")
    game = Game.from_gdl(bundled("tictactoe"), limits=LIMITS, backend="clingo")
    assert game.backend == "clingo"
    assert supersets == []
    assert len(game.legal_moves(game.initial_state, "xplayer")) == 9


@pytest.mark.parametrize("symbol", [
    clingo.Number(-42), clingo.String('quote " and \\ back'), clingo.Function("a"),
    clingo.Function("", [clingo.Number(1), clingo.Function("b")]),
    clingo.Function("", []),
    clingo.Function("f", [clingo.Function("g", [clingo.String("")], False)]),
])
def test_a_symbol_survives_its_plain_form(symbol: clingo.Symbol) -> None:
    """Numbers, strings, tuples (the empty one too) and classically negated functions come
    back from their plain form as the same symbol, with no text parsed."""
    assert symbol_from_tree(symbol_tree(symbol)) == symbol


def test_a_portable_superset_comes_back_in_its_order() -> None:
    """A superset's plain form gives back the same fluents and moves in the same order
    (the order is the id tables of every backend)."""
    found = compute_superset(translate(parse_gdl(bundled("connectfour"))))
    again = found.portable().superset()
    assert again == found
    assert isinstance(again, superset_module.Superset)
