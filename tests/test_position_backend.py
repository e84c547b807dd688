"""The position-by-position backend (:mod:`reasoner.asp.position`): every query grounds the
game's demand-driven programs with the state as facts. It must play every game exactly as
the ground-once backends do, and carry games too large to ground once (where ``auto`` falls
back to it when SWI-Prolog is missing), checked there against the Prolog reference."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from reasoner import Game
from reasoner.asp.position import PositionMachine
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.crosscheck import EngineSide, compare_sides
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.engine.backend import build_machine
from reasoner.engine.limits import Limits, run_bounded
from reasoner.errors import GdlValidationError
from reasoner.gdl.parser import parse_gdl
from reasoner.propnet.network import NetworkBounds
from reasoner.reference import ReferenceSolver
from tests.conftest import GAMES

BUNDLED = sorted(p.stem for p in GAMES.glob("*.kif"))

# A helper relation over five arguments, each one of 40 numbers (a domain padding: 40^5,
# about 10^8 instances when ground in full), only ever called with every argument bound by
# the state: under negation from legal (so that reachability never grounds it) and from goal.
_NUMBERS = " ".join(f"(num {i})" for i in range(1, 41))
_SUCC = " ".join(f"(succ {i} {i + 1})" for i in range(1, 40))
EXPLODING = f"""
(role r) {_NUMBERS} {_SUCC}
(init (pos 5 2 3 4 5)) (init (step 1))
(<= (link ?a ?b ?c ?d ?e) (num ?a) (num ?b) (num ?c) (num ?d) (num ?e) (distinct ?a ?e))
(<= (legal r stay) (true (step ?s)))
(<= (legal r (shift ?x)) (true (pos ?a ?b ?c ?d ?e)) (succ ?a ?x) (not (link ?a ?b ?c ?d ?e)))
(<= (next (pos ?x ?b ?c ?d ?e)) (does r (shift ?x)) (true (pos ?a ?b ?c ?d ?e)))
(<= (next (pos ?a ?b ?c ?d ?e)) (does r stay) (true (pos ?a ?b ?c ?d ?e)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 10)))
(<= (goal r 100) (true (pos ?a ?b ?c ?d ?e)) (link ?a ?b ?c ?d ?e))
(<= (goal r 0) (true (pos ?a ?b ?c ?d ?e)) (not (link ?a ?b ?c ?d ?e)))
"""
# Bounds small enough that the network gives up on EXPLODING at once (the real ones,
# reasoner.engine.backend.AUTO_BOUNDS, take seconds to reach).
SMALL_BOUNDS = NetworkBounds(seconds=10.0, rules=20_000, gates=200_000)


def _on(backend: str, name: str) -> Game:
    return Game.from_file(GAMES / f"{name}.kif", backend=backend)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_game_plays_alike_on_position_clingo_and_propnet(name: str) -> None:
    """Along seeded random playouts, the position backend gives the legal moves, successors,
    terminal flags and goals (in every state) that clingo and the network give."""
    position = _on("position", name)
    assert position.backend == "position" and isinstance(position.machine, PositionMachine)
    for other in ("clingo", "propnet"):
        found = first_disagreement(position, _on(other, name), seed=7, playouts=3,
                                   max_steps=100)
        assert found is None, f"position against {other}: {found}"


@pytest.mark.parametrize("name", BUNDLED)
def test_position_load_has_the_tables_of_clingo(name: str) -> None:
    """Loaded on position, a game has the roles, fluent table, move table and initial
    state of its clingo load (ids mean the same on every backend), and no network."""
    position, clingo = _on("position", name), _on("clingo", name)
    assert position.roles == clingo.roles
    assert position.fluents == clingo.fluents
    assert position.all_moves == clingo.all_moves
    assert position.initial_state == clingo.initial_state
    assert position.info(position.initial_state) == clingo.info(clingo.initial_state)
    statistics = position.statistics
    assert (statistics.backend, statistics.backend_note, statistics.network) == (
        "position", "", None)
    assert position.network is None


def test_position_simulates_the_playouts_of_clingo() -> None:
    """Simulate on position plays, one step after another, the very playouts clingo plays
    for the same seed (the same walk over the same ids), to the same ends."""
    position, clingo = _on("position", "connectfour"), _on("clingo", "connectfour")
    ours = position.simulate(position.initial_state, 4, seed=3, max_steps=200, record=True)
    theirs = clingo.simulate(clingo.initial_state, 4, seed=3, max_steps=200, record=True)
    assert not ours.batched
    assert ours.trajectories == theirs.trajectories
    assert (ours.lengths, ours.terminal, ours.goals, ours.updates) == (
        theirs.lengths, theirs.terminal, theirs.goals, theirs.updates)
    assert all(ours.terminal)


def test_a_game_too_large_to_ground_once_grounds_a_handful_of_instances_per_position() -> None:
    """A helper relation of 10^8 instances that each position needs only one of: the
    network's grounding stops at its bound, and position answers the initial state at once,
    grounding a handful of the helper's instances."""
    description = parse_gdl(EXPLODING)
    translation = translate(description)
    superset = compute_superset(translation)
    start = time.perf_counter()
    built = build_machine(translation, superset, description.roles, "position", False,
                          SMALL_BOUNDS)
    assert time.perf_counter() - start < 5
    assert built.backend == "position" and built.network is None
    machine = built.machine
    info = machine.info(machine.init_bits)
    assert not info.terminal and info.goals == ((0,),)
    assert sorted(machine.move_texts[m] for m in info.legal[0]) == ["(shift 6)", "stay"]
    # One position grounds a handful of link's instances, not 10^8.
    assert machine.ground_atom_count < 1000


@pytest.mark.needs_tools
def test_a_game_too_large_to_ground_once_agrees_with_the_reference() -> None:
    """On position, the exploding game plays as the Prolog reference plays it, state by
    state along seeded playouts."""
    game = Game.from_gdl(EXPLODING, backend="position")
    with ReferenceSolver.from_gdl(EXPLODING) as reference:
        result = compare_sides(EngineSide(game), reference, playouts=3, seed=2, max_steps=20,
                               goals_everywhere=True)
    assert result.disagreement is None, result.disagreement.describe("position")
    assert result.states >= 27


# Negation through recursion between ground atoms: two answer sets, {p} and {q}.
UNSTRATIFIED = ("(role a) (legal a go) (<= p (not q)) (<= q (not p)) (<= terminal p) "
                "(goal a 0)")


def test_rules_with_two_answer_sets_are_refused_on_position_as_on_clingo() -> None:
    """Rules that are not stratified on the ground level (two answer sets here) are refused
    at load on position, as clingo and the network refuse them, instead of answering from
    whichever answer set clingo finds first."""
    for backend in ("clingo", "position"):
        with pytest.raises(GdlValidationError) as caught:
            Game.from_gdl(UNSTRATIFIED, backend=backend)
        assert caught.value.reason == "unstratified"


# -- chess (corpus) --------------------------------------------------------------------------


def _chess_against_the_reference(text: str) -> tuple[str, str, float, int, str, str]:
    """Load chess under auto; then 2 seeded random playouts of 30 steps of position against
    the reference, and 1 of 20 steps of auto's load against position: (auto's backend, its
    note, load seconds, states compared with the reference, disagreement with it or "",
    disagreement between the backends or "")."""
    start = time.perf_counter()
    game = Game.from_gdl(text)
    seconds = time.perf_counter() - start
    position = Game.from_gdl(text, backend="position")
    with ReferenceSolver.from_gdl(text, timeout=30) as reference:
        result = compare_sides(EngineSide(position), reference, playouts=2, seed=0,
                               max_steps=30)
    found = result.disagreement
    between = first_disagreement(game, position, seed=1, playouts=1, max_steps=20)
    return (str(game.backend), game.statistics.backend_note, seconds, result.states,
            found.describe("position") if found is not None else "", between or "")


@pytest.mark.needs_tools  # the reference and top-down run SWI-Prolog
def test_chess_loads_compiled_and_agrees_with_the_reference(corpus: Path) -> None:
    """chess.kif is too large to ground once: auto settles for its compiled rules within
    60 s; clingo's positions agree with the Prolog reference along 2 seeded random playouts
    of 30 steps, and the compiled rules with clingo along one of 20 (the whole run bounded,
    in a child process)."""
    text = (corpus / "ggp-repository" / "chess.kif").read_text()
    backend, note, seconds, states, found, between = run_bounded(
        _chess_against_the_reference, (text,), Limits(150, 4096))
    assert backend == "compiled", note
    assert "each position is evaluated as it is asked" in note
    assert seconds < 60
    assert found == "", found
    assert states >= 60
    assert between == "", between
