"""Naming what grew when grounding overruns a bound, and keeping rewriting itself bounded."""

from __future__ import annotations

from pathlib import Path

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


# Small to load, but every program that grounds goal grows: goal reads far/5 (60^5 tuples)
# with free arguments, through near. The relaxed reachability of a load (fluents and moves)
# never grounds it; an instantiation and the relaxed layers must, in full and by demand
# alike, so that each overruns whatever its budgets and however fast the machine.
HIDDEN_GROWTH = ("(role a) " + " ".join(f"(n {i})" for i in range(60))
                 + " (init s) (legal a go) (<= (next s) (true s)) "
                 "(<= (far ?a ?b ?c ?d ?e) (true s) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e)) "
                 "(<= near (far ?a ?b ?c ?d ?e)) (<= (goal a 100) near) "
                 "(<= terminal (not (far 1 2 3 4 5)))")


def test_growth_of_the_game_program_counts_its_own_rules() -> None:
    """A look at the game program (what ``ground`` instantiates) counts the instances of its
    rules over the superset's fluents and moves; on tic-tac-toe it ends by itself, with 20
    legal/2 instances (9 marks and a noop for each of 2 roles), and says which program it
    ground."""
    growth = measure_growth(parse_gdl((GAMES / "tictactoe.kif").read_text()), seconds=30,
                            program="game")
    assert growth.finished and growth.program == "game"
    assert dict(growth.instances)["legal/2"] == 20
    assert "game grounding ends" in growth.describe()


@pytest.mark.slow  # grounds the game program to its time bound: about 4 s
def test_ground_command_names_what_grew_in_the_game_program(tmp_path: Path) -> None:
    """``ground`` on a game that loads at once but whose game program explodes ends at its
    time bound with the relation of the game program that grew (far/5), not a relation of
    the relaxed program that loading grounds."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    game = tmp_path / "hidden.kif"
    game.write_text(HIDDEN_GROWTH)
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", str(game), "--timeout", "2"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode != 0
    assert "exceeded the time bound of 2 s; the rules of the game program of far/5 grew " \
           "most (" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.corpus
def test_instantiation_overrun_whose_superset_outlasts_the_look_names_the_relaxed_relation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """small_dominion's relaxed superset (1.4 million dealt hands) takes a minute: a look at
    the game program, ground over that superset, gets nowhere within its bound. The error
    then names what grows in the relaxed program instead of saying nothing more (the look at
    the game program is cut to half a second here)."""
    import reasoner.engine.overrun as overrun

    monkeypatch.setattr(overrun, "_SUPERSET_SECONDS", -overrun._LOOK_MARGIN + 0.5)
    text = (CORPUS / "uwa-gamecontroller-gdl2" / "small_dominion.kif").read_text()
    error = explain_overrun(ResourceLimitError("exceeded the time bound of 1 s", bound="time"),
                            text, Limits(seconds=1, memory_mb=4096), program="game")
    assert str(error).startswith("exceeded the time bound of 1 s; its relaxed superset "
                                 "alone outgrew the look: the rules of ")
    assert error.relation in {"next/1", "legal/2"}


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


@pytest.mark.slow  # instantiates to a 3 s bound, then looks for 3 s more
def test_instantiate_rpc_names_what_grew_in_the_game_program() -> None:
    """The Instantiate rpc on a game that loads at once (compiled rules answer the one
    negated call) but whose game program explodes: RESOURCE_EXHAUSTED naming the server's
    bound and far/5, the game program's relation that grew."""
    import grpc

    from reasoner.v1 import reasoner_pb2 as pb
    from tests.service_support import expect_detail, running_server

    # A forkserver child, as in production: the server holds gRPC's threads.
    limits = Limits(seconds=3, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=HIDDEN_GROWTH, options=pb.LoadOptions(backend="compiled")), timeout=60).game
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Instantiate,
                               pb.InstantiateRequest(game_id=game.game_id))
    assert detail.message.startswith(
        "exceeded the time bound of 3 s; the rules of the game program of far/5 grew most (")


@pytest.mark.slow  # computes the layers to a 3 s bound, then looks for 3 s more
def test_relaxed_layers_rpc_names_what_grew_in_the_relaxed_program() -> None:
    """The RelaxedLayers rpc on a game that loads at once but whose relaxed program explodes,
    in full and by demand (goal asks far/5 with free arguments): RESOURCE_EXHAUSTED naming
    the server's bound and far/5, the relation whose relaxed rules grew, not the bare
    bound."""
    import grpc

    from reasoner.v1 import reasoner_pb2 as pb
    from tests.service_support import expect_detail, running_server

    limits = Limits(seconds=3, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=HIDDEN_GROWTH, options=pb.LoadOptions(backend="compiled")), timeout=60).game
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.RelaxedLayers,
                               pb.RelaxedLayersRequest(game_id=game.game_id,
                                                       from_initial=True))
    assert detail.message.startswith(
        "exceeded the time bound of 3 s; the rules of far/5 grew most (")
