"""The engine's fluent and move tables: a sound superset of what can hold, kept tight
where the relaxation would blow it up (issue 14: urmAdd and mummymaze1p went past every
bound before).

The tables come from demand-driven relaxed programs that, unlike the relaxed program of
the supersets (docs/semantics/instantiation.md: every negative literal dropped), keep the negation
of static relations, and read fluents that never change from ``init``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoner import Game
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.crosscheck.run import crosscheck_game
from reasoner.gdl.parser import parse_gdl
from reasoner.instantiate.supersets import supersets

# A counter that stops at its maximum only through (not (top ?n)), a static relation, and
# whose values are lines of a program: without the negation, line numbers run to 30, and
# the program fluents to 30 x 30.
COUNTER = """
(role p)
(top 3)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13) (succ 13 14) (succ 14 15)
(succ 15 16) (succ 16 17) (succ 17 18) (succ 18 19) (succ 19 20) (succ 20 21) (succ 21 22)
(succ 22 23) (succ 23 24) (succ 24 25) (succ 25 26) (succ 26 27) (succ 27 28) (succ 28 29)
(succ 29 30)
(num 1)
(<= (num ?m) (succ ?n ?m) (not (top ?n)) (num ?n))
(init (at 1))
(<= (legal p (write ?n ?v)) (true (at ?n)) (num ?v))
(<= (next (line ?n ?v)) (does p (write ?n ?v)))
(<= (next (line ?n ?v)) (true (line ?n ?v)))
(<= (next (at ?m)) (true (at ?n)) (succ ?n ?m) (num ?m))
(<= terminal (true (at 3)))
(goal p 100)
"""

# A corridor of cells 1..3 walled at both ends by init facts the frame rule keeps: a step
# is blocked only by (not (true (wall ?x ?d))), which the relaxation would drop, letting the
# position run along succ from 0 to 20.
CORRIDOR = """
(role p)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
(succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12) (succ 12 13) (succ 13 14) (succ 14 15)
(succ 15 16) (succ 16 17) (succ 17 18) (succ 18 19) (succ 19 20)
(init (pos 2))
(init (wall 1 left))
(init (wall 3 right))
(init (step 0))
(<= (next (wall ?x ?d)) (true (wall ?x ?d)))
(<= (legal p (go ?d)) (side ?d))
(side left) (side right)
(<= (next (pos ?y)) (does p (go right)) (true (pos ?x)) (succ ?x ?y)
    (not (true (wall ?x right))))
(<= (next (pos ?y)) (does p (go left)) (true (pos ?x)) (succ ?y ?x)
    (not (true (wall ?x left))))
(<= (next (pos ?x)) (does p (go ?d)) (true (pos ?x)) (true (wall ?x ?d)))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(<= terminal (true (step 6)))
(goal p 100)
"""


def _fluents(text: str) -> list[str]:
    return sorted(str(f) for f in compute_superset(translate(parse_gdl(text))).fluents)


def test_negation_of_a_static_relation_bounds_the_tables() -> None:
    """The counter's table holds lines 1 to 3 only (3 x 3 program fluents), as the game can
    reach, not the 30 x 30 that dropping (not (top ?n)) would give."""
    fluents = _fluents(COUNTER)
    assert len([f for f in fluents if f.startswith("line(")]) == 9
    assert len(Game.from_gdl(COUNTER).fluents) == 9 + 3


def test_a_fluent_that_never_changes_is_read_from_init() -> None:
    """The walls keep the corridor's positions to its three cells in the table."""
    assert [f for f in _fluents(CORRIDOR) if f.startswith("pos(")] == [
        "pos(1)", "pos(2)", "pos(3)"]


def test_the_supersets_keep_the_relaxation_of_the_spec() -> None:
    """The supersets (Supersets, `supersets`, compared with the reference) still drop every
    negative literal, as docs/semantics/instantiation.md defines them: the counter's lines run to 30
    there."""
    found = supersets(COUNTER)
    assert len(found.atoms[("num", 1)]) == 30


@pytest.mark.needs_tools  # the Prolog reference
def test_a_conditional_carry_over_is_no_constant_fluent() -> None:
    """A wall that can fall (its frame rule has a condition) may vanish, so its negation is
    not read from init: the position runs past it in the table, soundly."""
    falling = CORRIDOR.replace("(<= (next (wall ?x ?d)) (true (wall ?x ?d)))",
                               "(<= (next (wall ?x ?d)) (true (wall ?x ?d)) (true (step 0)))")
    assert "pos(4)" in _fluents(falling)
    assert crosscheck_game(falling, playouts=4, seed=1, supersets=False).fate == "agree"


def test_a_fluent_made_by_another_rule_is_no_constant_fluent() -> None:
    """A wall that a move can build is not constant: the table treats it as dynamic."""
    built = CORRIDOR + "(<= (next (wall ?x right)) (does p (go left)) (true (pos ?x)))"
    assert "pos(4)" in _fluents(built)


@pytest.mark.needs_tools
@pytest.mark.parametrize("text", [COUNTER, CORRIDOR], ids=["counter", "corridor"])
def test_tight_tables_agree_with_the_reference(text: str) -> None:
    """Both games play alike in the engine and the Prolog reference, state by state."""
    outcome = crosscheck_game(text, playouts=4, seed=2, supersets=False)
    assert outcome.fate == "agree", outcome.reason


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["urmAdd.kif", "mummymaze1p.kif"])
def test_games_whose_relaxation_exploded_load_and_agree(corpus: Path, name: str) -> None:
    """urmAdd (a register machine whose program lines the relaxation multiplied to millions)
    and mummymaze1p (whose explorer the relaxation let walk through the outer walls) load
    with small tables and agree with the reference."""
    text = (corpus / "ggp-repository" / name).read_text()
    game = Game.from_gdl(text)
    assert len(game.fluents) < 5_000
    outcome = crosscheck_game(text, playouts=2, seed=1, max_steps=40, supersets=False)
    assert outcome.fate == "agree", outcome.reason
