"""The supporting rules (``reasoner.asp.support``): the ground instance of a game's rule
whose body holds in a position, found by clingo over the game's own translation."""

from __future__ import annotations

import pytest

from reasoner.asp.support import supporting_rules
from reasoner.errors import GdlError
from reasoner.gdl.parser import parse_gdl
from tests.conftest import GAMES

TICTACTOE = parse_gdl((GAMES / "tictactoe.kif").read_text())
START = [f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)] + ["(control xplayer)"]
JOINT = [("xplayer", "(mark 1 1)"), ("oplayer", "noop")]


def test_a_next_fluent_is_supported_by_the_rule_that_reads_the_move() -> None:
    """(cell 1 1 x) follows from xplayer's (mark 1 1) on a blank square: the instance
    names the move, the blank and the role's symbol; the rule as written keeps its
    variables and its line."""
    found = supporting_rules(TICTACTOE, "(next (cell 1 1 x))", START, JOINT)
    assert [s.instance for s in found] == [
        "(<= (next (cell 1 1 x)) (does xplayer (mark 1 1)) (true (cell 1 1 b)) "
        "(symbol xplayer x))"]
    assert "?" in found[0].rule and found[0].line > 0


def test_a_fluent_that_does_not_follow_has_no_support() -> None:
    """(cell 1 1 o) does not follow from xplayer's move: no rule holds."""
    assert supporting_rules(TICTACTOE, "(next (cell 1 1 o))", START, JOINT) == []


def test_a_legal_move_is_supported_without_a_joint_move() -> None:
    """xplayer's (mark 2 2) is legal because it has control and the square is blank."""
    found = supporting_rules(TICTACTOE, "(legal xplayer (mark 2 2))", START)
    assert [s.instance for s in found] == [
        "(<= (legal xplayer (mark 2 2)) (true (control xplayer)) (true (cell 2 2 b)))"]


def test_an_initial_fluent_is_supported_by_its_fact() -> None:
    """An ``init`` fact supports itself."""
    found = supporting_rules(TICTACTOE, "(init (cell 1 1 b))", [])
    assert [s.instance for s in found] == ["(init (cell 1 1 b))"]


def test_a_target_that_is_not_an_atom_is_refused() -> None:
    """A variable is no atom to explain."""
    with pytest.raises(GdlError):
        supporting_rules(TICTACTOE, "?x", START)


def test_names_of_the_game_cannot_collide_with_the_helper_relations() -> None:
    """A game that already has a relation named like the helpers still gets its
    answer (the helpers take another name)."""
    text = ("(role r) (init (p)) (<= (gdl_reasoner_why_0 a) (true (p))) "
            "(<= (legal r go) (gdl_reasoner_why_0 a)) (<= (next (p)) (does r go)) "
            "(<= terminal (true (q))) (goal r 100)")
    found = supporting_rules(parse_gdl(text), "(legal r go)", ["(p)"])
    assert [s.instance for s in found] == ["(<= (legal r go) (gdl_reasoner_why_0 a))"]
