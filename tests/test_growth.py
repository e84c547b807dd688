"""Naming what grew when grounding overruns a bound, and keeping rewriting itself bounded."""

from __future__ import annotations

import pytest

from reasoner.asp.growth import measure_growth
from reasoner.asp.translate import translate
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits
from reasoner.engine.overrun import explain_overrun
from reasoner.errors import ResourceLimitError
from reasoner.gdl.parser import parse_gdl
from tests.conftest import CORPUS, GAMES
from tests.test_engine import EXPLODING

# A chain of auxiliary relations, each called with a constant and each with two rules:
# unfolding every call would double the rules at every level (2^24 of them).
CHAIN = "(role r) (init s) (legal r go) (<= terminal (true done)) (goal r 0) (v 0) (v 1) " + (
    " ".join(
        f"(<= (p{i} ?x) (v ?x) (p{i + 1} 0)) (<= (p{i} ?x) (v ?x) (p{i + 1} 1))"
        for i in range(24)) + " (<= (p24 ?x) (v ?x) (true s)) (<= (next done) (p0 1))")


@pytest.mark.slow  # about 1 s
def test_growth_of_an_exploding_game_names_the_relation() -> None:
    """A look at an exploding grounding stops at its time and names the relation whose
    rules have the most ground instances by then."""
    growth = measure_growth(parse_gdl(EXPLODING), seconds=1.0)
    assert not growth.finished
    assert growth.instances[0][0] == "next/1"
    assert growth.instances[0][1] > 1000
    assert growth.describe().startswith("the rules of next/1 grew most (")


def test_growth_of_a_small_game_finishes_and_counts_every_instance() -> None:
    """On tic-tac-toe the look ends by itself; the counts are those of the whole relaxed
    grounding: 9 marks for each of 2 roles, plus the noops, are 20 legal/2 instances."""
    growth = measure_growth(parse_gdl((GAMES / "tictactoe.kif").read_text()), seconds=30)
    assert growth.finished
    assert dict(growth.instances)["legal/2"] == 20
    assert "relaxed grounding ends" in growth.describe()


@pytest.mark.corpus
def test_overrun_names_the_corpus_relation_that_grew() -> None:
    """Amazons (ggp-base-legacy) overruns a 3 s load; the error names the bound and one of
    its move-generating relations, which is what grows (and its message, the output under
    test, keeps the first error's words before the explanation)."""
    text = (CORPUS / "ggp-base-legacy" / "amazons.kif").read_text()
    error = explain_overrun(ResourceLimitError("exceeded the time bound of 3 s", bound="time"),
                            text, Limits(seconds=3, memory_mb=4096))
    assert error.bound == "time"
    assert error.relation is not None and "move" in error.relation
    assert str(error).startswith("exceeded the time bound of 3 s; the rules of ")


def test_unfolding_refuses_a_rule_chain_that_would_multiply() -> None:
    """Unfolding leaves a chain alone whose unfolding would double the rules at every level:
    the translation stays small and quick, and the game still loads and plays."""
    translation = translate(parse_gdl(CHAIN))
    assert translation.flat_rule_count < 200
    game = Game.from_gdl(CHAIN)
    assert [str(m) for m in game.legal_moves(game.initial_state, "r")] == ["go"]
    assert not game.info(game.initial_state).terminal
    _, after = game.step(game.initial_state, (0,))
    assert after.terminal  # (p0 1) holds through the whole chain
