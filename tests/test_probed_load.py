"""A bounded load grounds once: the child that proves the load fits sends back its relaxed
superset and its network as plain data, and the load in the parent (the server) takes
them instead of grounding again without a bound."""

from __future__ import annotations

import os
import random
from typing import Any

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


def test_a_bounded_load_validates_once_in_the_parent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The parent validates the rules once (while its child loads them), not again when
    it builds the game; the warnings are an unbounded load's."""
    from reasoner.engine import game as game_module

    validations = _counting(monkeypatch, game_module, "validate")
    text = (bundled("breakthrough") + "\n(<= (twice ?x) (true (cellholder ?x ?x ?x)))"
            "\n(<= (twice ?x ?y) (true (cellholder ?x ?y ?y)))\n")  # two arities: a warning
    game = Game.from_gdl(text, limits=LIMITS)
    assert validations == [os.getpid()]
    assert len(game.warnings) == 1 and game.warnings == Game.from_gdl(text).warnings


def test_a_bounded_load_of_invalid_rules_names_the_rule() -> None:
    """Invalid rules loaded with bounds are refused as an unbounded load refuses them
    (the parent finds it while the child works), naming the rule's line."""
    from reasoner.errors import GdlValidationError

    text = bundled("tictactoe") + "\n(<= (bad ?x) (true (cell ?y 1 b)))\n"
    with pytest.raises(GdlValidationError) as unbounded:
        Game.from_gdl(text)
    with pytest.raises(GdlValidationError) as bounded:
        Game.from_gdl(text, limits=LIMITS)
    assert str(bounded.value) == str(unbounded.value)
    line = text.splitlines().index("(<= (bad ?x) (true (cell ?y 1 b)))") + 1
    assert str(bounded.value).startswith(f"line {line}, column 1: unsafe rule")


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


def _long(text: str) -> str:
    """``text`` after a comment that makes it longer than the registry reads before it
    starts the bounded load (see READ_BESIDE_THE_CHILD)."""
    from reasoner.server.registry import READ_BESIDE_THE_CHILD

    return ";" + "x" * READ_BESIDE_THE_CHILD + "\n" + text


def test_a_long_text_loads_in_the_registry_as_its_short_form() -> None:
    """A text long enough to be read while its bounded child loads it gives the game its
    short form gives: the same id, found loaded afterwards, and the same moves."""
    from reasoner.server.registry import GameRegistry

    registry = GameRegistry(limits=LIMITS)
    loaded, already = registry.load(_long(bundled("tictactoe")))
    assert not already
    short, found = registry.load(bundled("tictactoe"))
    assert found and short.id == loaded.id
    game = loaded.game
    assert len(game.legal_moves(game.initial_state, "xplayer")) == 9


def test_a_long_text_of_a_loaded_game_is_found_loaded() -> None:
    """A long text whose game is loaded already under another spelling is found loaded
    (the child started beside its reading is stopped), and the registry holds one game."""
    from reasoner.server.registry import GameRegistry

    registry = GameRegistry(limits=LIMITS)
    first, _ = registry.load(bundled("connectfour"))
    again, found = registry.load(_long(bundled("connectfour")))
    assert found and again.id == first.id
    assert registry.ids() == [first.id]


def test_a_long_malformed_text_names_its_line_and_column() -> None:
    """A long malformed text is refused by the registry with the GdlSyntaxError that names
    its line and column, and leaves nothing loaded."""
    from reasoner.errors import GdlSyntaxError
    from reasoner.server.registry import GameRegistry

    registry = GameRegistry(limits=LIMITS)
    with pytest.raises(GdlSyntaxError, match=r"^line 3, column 1: '\(' is never closed"):
        registry.load(_long("(role x)\n(init (p)\n"))
    assert registry.ids() == []


@pytest.mark.parametrize(("long", "order"), [(True, ["child", "read"]),
                                             (False, ["read", "child"])])
def test_the_registry_starts_a_long_text_s_load_before_reading_it(
        monkeypatch: pytest.MonkeyPatch, long: bool, order: list[str]) -> None:
    """The registry starts a long text's bounded load before it reads the text itself, so
    that both run at once; a short text it reads first, and starts the load after."""
    from reasoner.server import registry as registry_module

    events: list[str] = []
    from reasoner.engine.limits import BoundedWork as real_work

    real_parse = parse_gdl

    def work(*args: Any, **kwargs: Any) -> Any:
        events.append("child")
        return real_work(*args, **kwargs)

    def parse(*args: Any, **kwargs: Any) -> Any:
        events.append("read")
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(registry_module, "BoundedWork", work)
    monkeypatch.setattr(registry_module, "parse_gdl", parse)
    text = bundled("tictactoe")
    registry_module.GameRegistry(limits=LIMITS).load(_long(text) if long else text)
    assert events == order
