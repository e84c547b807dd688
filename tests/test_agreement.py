"""Comparing two state machines of one game by seeded playouts."""

from __future__ import annotations

from reasoner import Game
from reasoner.crosscheck.agreement import first_disagreement
from tests.conftest import ROOT


def test_a_game_agrees_with_itself() -> None:
    """Two loads of the same game agree on every state of the playouts."""
    text = (ROOT / "games" / "connectfour.kif").read_text()
    assert first_disagreement(Game.from_gdl(text), Game.from_gdl(text), playouts=5) is None


def test_a_doctored_game_is_caught_with_the_moves_that_lead_there() -> None:
    """Flipping one distinct into equality in tic-tac-toe's frame rule is found, and the
    report names the joint moves that reproduce it."""
    text = (ROOT / "games" / "tictactoe.kif").read_text()
    doctored = text.replace("(distinct ?x ?u))", "(not (distinct ?x ?u)))", 1)
    assert doctored != text
    found = first_disagreement(Game.from_gdl(text), Game.from_gdl(doctored), playouts=3)
    assert found is not None
    assert found.startswith("playout 0 after [") and "states differ" in found
    assert "(mark" in found


def test_a_percept_that_differs_is_caught() -> None:
    """On a GDL-II game the percepts count too: Monty Hall with the door that is opened
    no longer shown to the candidate plays the same states, and is found to differ in what
    the candidate sees."""
    text = (ROOT / "games" / "montyhall.kif").read_text()
    doctored = text.replace("(sees candidate (open_door ?d))", "(sees candidate (opened ?d))", 1)
    assert doctored != text
    found = first_disagreement(Game.from_gdl(text), Game.from_gdl(doctored), playouts=3)
    assert found is not None
    assert "percepts of candidate" in found
