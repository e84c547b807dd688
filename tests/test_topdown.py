"""The top-down backend (:mod:`reasoner.topdown`): SWI-Prolog answers each position by
resolution, in the engine's ids. It must play every game exactly as clingo does, carry the
games too large to ground once (where ``auto`` settles for it), and keep bounded and
serving when one position is too slow."""

from __future__ import annotations

import time

import pytest

from reasoner import Game
from reasoner.asp.position import id_tables
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.core.backend_reason import ReasonStep
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.engine import backend
from reasoner.engine.backend import build_machine
from reasoner.errors import GdlValidationError, ResourceLimitError
from reasoner.gdl.parser import parse_gdl
from reasoner.topdown import TopdownMachine
from tests.conftest import GAMES
from tests.test_position_backend import EXPLODING, SMALL_BOUNDS, UNSTRATIFIED

BUNDLED = sorted(p.stem for p in GAMES.glob("*.kif"))

# A join of 40^5 candidates that no state completes, read under negation (so that relaxed
# reachability never grounds it) once the state holds a depth: a step there runs for
# minutes top-down, tabled or not. The initial state is quick.
_NUMBERS = " ".join(f"(num {i})" for i in range(1, 41))
SLOW = f"""
(role r) {_NUMBERS} (init (at 0))
(<= (nolink ?x) (num ?a) (num ?b) (num ?c) (num ?d) (num ?e) (true (mark ?x ?e)))
(legal r dive) (legal r stay)
(<= (next (depth 1)) (does r dive))
(<= (next (at 1)) (does r stay))
(<= terminal (true (depth ?x)) (not (nolink ?x)))
(<= terminal (true (at 1)))
(goal r 0)
"""
# A chain of 32 relations, each defined twice over the one below: a call of the top one
# that fails makes resolution without tabling try 2^32 derivations, with tabling 64. The
# state after the one legal first move asks for it.
_CHAIN = "\n".join(f"(<= (d{k + 1} ?x) (d{k} ?x) (num ?x)) (<= (d{k + 1} ?x) (num ?x) (d{k} ?x))"
                   for k in range(32))
CHAIN = f"""
(role r) (num a) (num b) (init (at 0))
(<= (d0 ?x) (true (mark ?x)))
{_CHAIN}
(<= (legal r dive) (true (at 0))) (<= (legal r stay) (true deep))
(<= (next deep) (does r dive))
(<= (next (at 1)) (does r stay))
(<= terminal (true deep) (d32 a))
(<= terminal (true (at 1)))
(goal r 0)
"""


def _topdown_machine(text: str, seconds: float) -> TopdownMachine:
    description = parse_gdl(text)
    superset = compute_superset(translate(description))
    tables = id_tables(superset, description.roles)
    return TopdownMachine(description, description.roles, tables.fluent_texts,
                          tables.move_texts, tables.move_role, seconds=seconds)


@pytest.mark.needs_tools
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_game_plays_alike_on_topdown_and_clingo(name: str) -> None:
    """Along seeded random playouts, top-down gives the legal moves, successors, terminal
    flags and goals (in every state) that clingo gives, over the same tables."""
    topdown = Game.from_file(GAMES / f"{name}.kif", backend="topdown")
    clingo = Game.from_file(GAMES / f"{name}.kif", backend="clingo")
    assert topdown.backend == "topdown" and topdown.network is None
    assert (topdown.fluents, topdown.all_moves, topdown.initial_state) == (
        clingo.fluents, clingo.all_moves, clingo.initial_state)
    found = first_disagreement(topdown, clingo, seed=7, playouts=3, max_steps=100)
    assert found is None, found


# Names holding Unicode white space that GDL's tokenizer keeps inside a name (U+2028, U+00A0,
# U+0085): in roles, fluents and moves, with more than one argument to a function.
UNICODE_SPACES = """
(role r\u2028x) (role b\u00a0y)
(init (cell a\u2028b 1)) (init (turn r\u2028x))
(<= (legal ?r (go\u00a0z ?r)) (true (turn ?r)))
(<= (legal ?r (wait\u0085w)) (role ?r) (not (true (turn ?r))))
(<= (next (cell c\u2028d 2)) (does ?r (go\u00a0z ?r)))
(<= (next (turn b\u00a0y)) (true (turn r\u2028x)))
(<= (next (turn r\u2028x)) (true (turn b\u00a0y)))
(<= terminal (true (cell c\u2028d 2)) (true (turn r\u2028x)))
(<= (goal ?r 100) (role ?r))
"""


@pytest.mark.needs_tools
def test_names_with_unicode_white_space_play_alike_on_topdown_and_clingo() -> None:
    """A game whose names hold U+2028, U+00A0 or U+0085 (which GDL reads as part of a name)
    loads top-down and gives clingo's legal moves, successors and goals: the names reach
    SWI-Prolog whole (they were cut at that white space, and the load failed)."""
    topdown = Game.from_gdl(UNICODE_SPACES, backend="topdown")
    clingo = Game.from_gdl(UNICODE_SPACES, backend="clingo")
    assert topdown.backend == "topdown" and topdown.roles == ("r\u2028x", "b\u00a0y")
    assert (topdown.fluents, topdown.all_moves, topdown.initial_state) == (
        clingo.fluents, clingo.all_moves, clingo.initial_state)
    assert topdown.info(topdown.initial_state) == clingo.info(clingo.initial_state)
    found = first_disagreement(topdown, clingo, seed=7, playouts=3, max_steps=20)
    assert found is None, found


@pytest.mark.needs_tools
@pytest.mark.usefixtures("without_c_compiler")
def test_auto_evaluates_a_game_too_large_to_ground_once_top_down() -> None:
    """Where the program does not ground once within the bounds and no C compiler compiles
    the rules, auto answers each position top-down, and its note says why and how soon the
    first step came."""
    description = parse_gdl(EXPLODING)
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", False, SMALL_BOUNDS, description=description)
    assert built.backend == "topdown" and built.network is None
    assert [(s.backend, s.bound) for s in built.note.steps] == [
        ("network", "size"), ("clingo", "size"), ("compiled", ""), ("topdown", "")]
    assert "answered the first step in" in built.note.steps[-1].reason
    machine = built.machine
    info = machine.info(machine.init_bits)
    assert not info.terminal and info.goals == ((0,),)
    assert sorted(machine.move_texts[m] for m in info.legal[0]) == ["(shift 6)", "stay"]


@pytest.mark.usefixtures("without_c_compiler")
def test_without_swi_prolog_auto_grounds_each_position_in_clingo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where neither SWI-Prolog nor a C compiler can be run, auto's last resort is clingo
    position by position, and the note says so."""
    monkeypatch.setattr(backend, "topdown_available", lambda: False)
    description = parse_gdl(EXPLODING)
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", False, SMALL_BOUNDS, description=description)
    assert built.backend == "position"
    assert built.note.steps[-1] == ReasonStep("topdown", "SWI-Prolog is not installed",
                                              "clingo grounds them")
    assert built.machine.ground_atom_count < 1000


@pytest.mark.needs_tools
def test_a_position_over_the_time_bound_is_refused_and_the_game_keeps_answering() -> None:
    """A step whose evaluation runs past the bound is refused with RESOURCE_EXHAUSTED's
    error (a time bound) soon after it, and the next query is answered."""
    machine = _topdown_machine(SLOW, seconds=1.0)
    dive, stay = (machine.move_texts.index(move) for move in ("dive", "stay"))
    start = time.perf_counter()
    with pytest.raises(ResourceLimitError) as caught:
        machine.transition(machine.init_bits, (dive,))
    assert time.perf_counter() - start < 10
    assert (caught.value.bound, caught.value.limit) == ("time", 1)
    _, following, info = machine.transition(machine.init_bits, (stay,))
    assert info.terminal and machine.fluent_texts[following.bit_length() - 1] == "(at 1)"
    machine.close()


@pytest.mark.needs_tools
def test_a_relation_derived_exponentially_often_is_answered_tabled() -> None:
    """Where resolution without tabling derives one atom exponentially often (a chain of
    relations each defined twice), the load's trial walk keeps the copy of the rules with
    every relation tabled, which answers that state at once."""
    machine = _topdown_machine(CHAIN, seconds=20.0)
    assert machine.tabled
    start = time.perf_counter()
    dive = machine.move_texts.index("dive")
    _, _, info = machine.transition(machine.init_bits, (dive,))
    assert time.perf_counter() - start < 1
    assert not info.terminal and [machine.move_texts[m] for m in info.legal[0]] == ["stay"]
    machine.close()


@pytest.mark.needs_tools
def test_rules_with_two_answer_sets_are_refused_on_topdown() -> None:
    """Rules that are not stratified on the ground level are refused at load on topdown
    too (an answer the well-founded semantics leaves undefined), not answered."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(UNSTRATIFIED, backend="topdown")
    assert caught.value.reason == "unstratified"


@pytest.mark.needs_tools
def test_a_bounded_load_takes_the_child_s_choice_without_trying_the_network_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A load bounded by limits runs first in a child; where auto settled there for
    top-down, the load here takes top-down straight away (no network is tried twice: that
    cost chess 20 s more) and keeps the child's reason."""
    from reasoner.engine.limits import Limits
    from reasoner.propnet import network

    monkeypatch.setattr(backend, "AUTO_BOUNDS", SMALL_BOUNDS)
    tries: list[int] = []
    real = network.build_network

    def counted(*args: object, **kwargs: object) -> object:
        tries.append(1)  # in the forked child, this list is the child's own copy
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(backend, "build_network", counted)
    game = Game.from_gdl(EXPLODING, limits=Limits(seconds=120, memory_mb=4096))
    assert game.backend in ("compiled", "topdown")
    assert tries == []
    first = game.statistics.backend_reason.steps[0]
    assert (first.backend, first.bound) == ("network", "size")
    assert game.statistics.backend_reason.steps[-1].backend == game.backend
    assert game.statistics.network_ms > 0
