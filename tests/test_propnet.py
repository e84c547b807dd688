"""The propositional network backend: it plays every game exactly like the clingo backend,
one state at a time and in bit-parallel batches, and refuses what it cannot build."""

from __future__ import annotations

import functools
import random
from collections import Counter
from pathlib import Path

import grpc
import pytest

from reasoner.arguments import ArgumentError
from reasoner.asp.superset import compute_superset
from reasoner.crosscheck import EngineSide, compare_sides
from reasoner.crosscheck.run import Outcome, crosscheck_folder, format_summary
from reasoner.engine.backend import build_machine
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits
from reasoner.errors import GdlValidationError, NoLegalMoveError, ResourceLimitError
from reasoner.propnet.codegen import compile_batch, compile_single
from reasoner.propnet.machine import PropnetMachine
from reasoner.propnet.network import NetworkBounds, build_network
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import CORPUS, GAMES, bundled, corpus_params
from tests.service_support import expect_detail, running_server

BUNDLED = sorted(p.stem for p in GAMES.glob("*.kif"))


def _on(backend: str, name: str) -> Game:
    return Game.from_file(GAMES / f"{name}.kif", backend=backend)


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_game_plays_alike_on_both_backends(name: str) -> None:
    """Along seeded random playouts, the network and clingo give the same legal moves,
    successors, terminal flags and goals in every state."""
    network, clingo = _on("propnet", name), _on("clingo", name)
    assert (network.backend, clingo.backend) == ("propnet", "clingo")
    assert network.fluents == clingo.fluents
    assert network.all_moves == clingo.all_moves
    assert network.initial_state == clingo.initial_state
    result = compare_sides(EngineSide(network), EngineSide(clingo), playouts=6, seed=11,
                           max_steps=150)
    assert result.disagreement is None, result.disagreement.describe("propnet", "clingo")
    assert result.states > 20


def _visited(machine: PropnetMachine, count: int, seed: int) -> list[tuple[int, tuple[int, ...]]]:
    """``count`` (state bits, random joint move) pairs from seeded random playouts."""
    rng = random.Random(seed)
    pairs: list[tuple[int, tuple[int, ...]]] = []
    while len(pairs) < count:
        bits, info = machine.init_bits, machine.info(machine.init_bits)
        while not info.terminal and len(pairs) < count:
            joint = tuple(rng.choice(legal) for legal in info.legal)
            pairs.append((bits, joint))
            _, bits, info = machine.transition(bits, joint, current=False)
    return pairs


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "minichess"])
def test_batch_evaluation_matches_the_single_state_evaluation(name: str) -> None:
    """300 states from random playouts packed one per lane: the bit-parallel functions give
    every lane the legal moves, terminal flag, goals and successor of the one-state code."""
    game = _on("propnet", name)
    assert isinstance(game.machine, PropnetMachine)
    machine, network = game.machine, game.machine.network
    pairs = _visited(machine, 300, seed=3)
    full = (1 << len(pairs)) - 1
    fluents, moves = len(network.fluent_texts), len(network.move_texts)
    lanes = [sum(1 << k for k, (bits, _) in enumerate(pairs) if bits >> i & 1)
             for i in range(fluents)]
    played = [sum(1 << k for k, (_, joint) in enumerate(pairs) if m in joint)
              for m in range(moves)]
    legal, terminal = machine.batch.info(lanes, full)
    successor = machine.batch.next(lanes, played, full)
    goals = machine.batch.goals(lanes, full)
    for k, (bits, joint) in enumerate(pairs):
        info = machine.info(bits)
        assert tuple(tuple(m for m in range(moves) if legal[m] >> k & 1
                           and network.move_role[m] == r)
                     for r in range(len(network.roles))) == info.legal
        assert bool(terminal >> k & 1) == info.terminal
        assert tuple(tuple(v for (v, _), held in zip(values, row, strict=True) if held >> k & 1)
                     for values, row in zip(network.goals, goals, strict=True)) == info.goals
        assert sum(1 << i for i in range(fluents)
                   if successor[i] >> k & 1) == machine.transition(bits, joint, current=False)[1]


def test_batch_move_choice_is_uniform_and_independent_between_lanes() -> None:
    """9,000 tic-tac-toe playouts in 1,024-lane batches: xplayer's first move is each of
    the nine marks about 1,000 times (5 standard deviations allowed), oplayer's is noop."""
    game = bundled("tictactoe")
    run = game.simulate(game.initial_state, 9000, seed=5, max_steps=1, record=True)
    first = Counter(game.all_moves[path[0][0]].text for path in run.trajectories)
    assert set(first) == {f"(mark {x} {y})" for x in (1, 2, 3) for y in (1, 2, 3)}
    assert all(850 <= count <= 1150 for count in first.values()), first
    assert {game.all_moves[path[0][1]].text for path in run.trajectories} == {"noop"}


def test_batch_trajectories_replay_to_the_same_ends() -> None:
    """Every recorded batch playout of connect four, replayed one state at a time, is legal
    at every step and ends after the same number of steps with the same goals."""
    game = bundled("connectfour")
    run = game.simulate(game.initial_state, 200, seed=8, max_steps=1000, record=True)
    assert run.batched and len(run.trajectories) == 200
    for path, length, terminal, goals in zip(run.trajectories, run.lengths, run.terminal,
                                             run.goals, strict=True):
        state, info = game.initial_state, game.info(game.initial_state)
        for joint in path:
            assert all(move in legal for move, legal in zip(joint, info.legal, strict=True))
            state, info = game.step(state, joint)
        assert (len(path), info.terminal, info.goals) == (length, terminal, goals)
    assert run.updates == sum(run.lengths)


def test_batch_step_bound_stops_playouts_unfinished() -> None:
    """max_steps=3 stops every connect-four playout after 3 joint moves, not terminal, with
    the goal values of the state it stopped in."""
    game = bundled("connectfour")
    run = game.simulate(game.initial_state, 70, seed=1, max_steps=3, record=True)
    assert run.lengths == [3] * 70 and not any(run.terminal)
    for path, goals in zip(run.trajectories, run.goals, strict=True):
        state = game.initial_state
        for joint in path:
            state, _ = game.step(state, joint)
        assert game.info(state).goals == goals


def test_same_seed_same_batch_and_recording_changes_nothing() -> None:
    """A seed fixes the batch's playouts, whether or not the trajectories are recorded."""
    game = bundled("breakthrough")
    first = game.simulate(game.initial_state, 50, seed=4, max_steps=500)
    recorded = game.simulate(game.initial_state, 50, seed=4, max_steps=500, record=True)
    other = game.simulate(game.initial_state, 50, seed=5, max_steps=500)
    assert (first.lengths, first.goals) == (recorded.lengths, recorded.goals)
    assert first.lengths != other.lengths


def test_a_role_without_legal_moves_stops_the_batch_with_an_error() -> None:
    """A non-terminal state where a role has no legal move is NoLegalMoveError, as on the
    one-state path."""
    game = Game.from_gdl("(role r) (init (s 0)) (<= (legal r go) (true (s 0))) "
                         "(<= (next (s 1)) (does r go)) (<= terminal (true (s 2))) (goal r 0)",
                         backend="propnet")
    with pytest.raises(NoLegalMoveError) as caught:
        game.simulate(game.initial_state, 10, seed=0, max_steps=10)
    assert caught.value.role == "r"


# Reachability over edges the player adds: recursive on the ground level.
REACHABILITY = """
    (role r) (node a) (node b) (node c) (node d)
    (init (edge a b))
    (<= (path ?x ?y) (true (edge ?x ?y)))
    (<= (path ?x ?z) (true (edge ?x ?y)) (path ?y ?z))
    (<= (legal r (add ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y)
        (not (true (edge ?x ?y))) (not (path ?y ?x)))
    (<= (legal r stop) (path a d))
    (<= (next (edge ?x ?y)) (true (edge ?x ?y)))
    (<= (next (edge ?x ?y)) (does r (add ?x ?y)))
    (<= (next done) (does r stop))
    (<= terminal (true done))
    (<= (goal r 100) (path a d)) (<= (goal r 0) (not (path a d)))"""


def test_recursive_relations_reach_their_fixpoint_within_a_step() -> None:
    """Reachability over edges the players add is recursive on the ground level: the network
    iterates it to its least fixpoint, and the game plays as on clingo."""
    network = Game.from_gdl(REACHABILITY, backend="propnet")
    clingo = Game.from_gdl(REACHABILITY, backend="clingo")
    assert network.network is not None and network.network.size.recursive_components > 0
    result = compare_sides(EngineSide(network), EngineSide(clingo), playouts=20, seed=2,
                           max_steps=20)
    assert result.disagreement is None and result.states > 40


def test_unstratified_ground_rules_are_refused_by_the_network_too() -> None:
    """Negation through recursion between ground atoms is a validation error on the network
    backend, as on clingo."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl("(role a) (legal a go) (<= p (not q)) (<= q (not p)) "
                      "(<= terminal p) (goal a 0)", backend="propnet")
    assert caught.value.reason == "unstratified"


def test_a_network_over_its_bounds_is_refused_and_auto_keeps_clingo() -> None:
    """Beyond its gate bound the network is refused with the reason ("propnet"), and
    "auto" answers on clingo and keeps that reason."""
    game = bundled("connectfour")
    superset = compute_superset(game.translation)
    tight = NetworkBounds(gates=100)
    with pytest.raises(ResourceLimitError) as caught:
        build_network(game.translation, superset, game.roles, tight)
    assert (caught.value.bound, caught.value.reason, caught.value.limit) == ("size", "gates", 100)
    built = build_machine(game.translation, superset, game.roles, "auto", False, tight)
    assert built.backend == "clingo"
    assert [(step.backend, step.bound) for step in built.note.steps] == [("network", "size")]
    assert built.machine.info(built.machine.init_bits) == game.info(game.initial_state)


def test_unknown_backend_is_refused() -> None:
    """A backend name that does not exist is a ValueError naming the choices."""
    with pytest.raises(ArgumentError) as caught:
        Game.from_file(GAMES / "nim.kif", backend="fast")
    assert (caught.value.argument, caught.value.value) == ("backend", "fast")
    assert caught.value.allowed == ("clingo", "native", "propnet", "position", "compiled",
                                    "topdown", "auto")


def test_service_loads_on_the_backend_asked_for() -> None:
    """LoadOptions.backend picks the backend (reported in the statistics, part of the game
    id); an unknown one is INVALID_ARGUMENT with the choices."""
    text = (GAMES / "tictactoe.kif").read_text()
    with running_server() as srv:
        infos = {backend: srv.stub.LoadGame(pb.LoadGameRequest(
            gdl=text, options=pb.LoadOptions(backend=backend))).game
            for backend in ("", "auto", "clingo", "propnet")}
        assert [infos[b].statistics.backend for b in ("", "auto", "clingo", "propnet")] == [
            "native", "native", "clingo", "propnet"]
        assert infos[""].game_id == infos["auto"].game_id != infos["clingo"].game_id
        assert infos["clingo"].statistics.network_gates == 0
        assert infos["propnet"].statistics.network_gates > 0
        detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, srv.stub.LoadGame,
                               pb.LoadGameRequest(gdl=text,
                                                  options=pb.LoadOptions(backend="gpu")))
        assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "unknown-backend")
        assert "clingo, native, propnet, position, compiled, topdown, auto" in detail.message
        for backend in ("clingo", "propnet"):
            response = srv.stub.Simulate(pb.SimulateRequest(
                from_initial=True, game_id=infos[backend].game_id, playouts=100, seed=1))
            assert len(response.playouts) == 100
            assert all(p.terminal for p in response.playouts)
            assert response.updates == sum(p.length for p in response.playouts)


# Corpus files whose network (and position-by-position play) the CI sample checks against
# clingo: rule files up to 12 kB drawn with a fixed seed, every other one of 60 (the 60 took
# half of make test's time; the whole corpus: `gdl-reasoner crosscheck --corpus --backends`).
def _backend_sample(corpus: Path) -> list[Path]:
    from tests.test_crosscheck import _pool

    drawn = random.Random(606).sample(_pool(corpus), 62)
    return sorted(p for p in drawn if str(p.relative_to(corpus)) not in BACKENDS_SLOW)[:60:2]


# Small files whose comparison takes minutes: pacman2p's network has one node with 254,016
# bodies (15 s to compile), factoringImpossibleTurtleBrain needs seconds per state on clingo.
BACKENDS_SLOW = {"ggp-base-legacy/pacman2p.kif",
                 "ggp-repository/factoringImpossibleTurtleBrain.kif"}


def _backend_sample_names() -> list[str]:
    """The sample's paths in the corpus, computed at collection (none without the corpus)."""
    if not CORPUS.is_dir():
        return []
    return [str(p.relative_to(CORPUS)) for p in _backend_sample(CORPUS)]


BACKEND_SAMPLE = _backend_sample_names()


@functools.cache
def _backends_outcome(name: str) -> Outcome:
    """One sample file played on the network, position by position and on clingo (once;
    shared with the count)."""
    (outcome,) = crosscheck_folder([CORPUS / name], limits=Limits(90, 4096), playouts=2,
                                   max_steps=60, backends=True)
    return outcome


@pytest.mark.xdist_group("backends-sample")
@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_params(BACKEND_SAMPLE))
def test_seeded_corpus_sample_plays_alike_on_both_backends(name: str) -> None:
    """A corpus file drawn with a fixed seed: if the engine accepts it, it plays alike on
    the network, position by position and on clingo along 2 seeded playouts."""
    outcome = _backends_outcome(name)
    assert outcome.fate in ("agree", "engine failed"), (
        outcome.path, outcome.fate, outcome.reason.splitlines()[:3])


@pytest.mark.xdist_group("backends-sample")
@pytest.mark.corpus
def test_seeded_corpus_sample_mostly_plays_alike_on_both_backends() -> None:
    """Of the 30 files drawn with a fixed seed, at least 25 play alike (the outcomes of the
    test above, run in the same process: one xdist group; a file whose test did not run is
    compared here)."""
    if not CORPUS.is_dir():
        pytest.skip(f"the public GDL corpus is not at {CORPUS}")
    outcomes = [_backends_outcome(name) for name in BACKEND_SAMPLE]
    assert len(outcomes) == 30
    assert sum(o.fate == "agree" for o in outcomes) >= 25, format_summary(outcomes, CORPUS)


@pytest.mark.slow  # about 2 s
def test_a_state_of_fifteen_thousand_fluents_compiles() -> None:
    """Masks over 14,400 fluents are wider than Python writes integers in decimal (4,300
    digits): the generated code writes them in hexadecimal, and the game plays."""
    text = ("(role r) " + " ".join(f"(n {i})" for i in range(120)) +
            " (<= (init (f ?x ?y)) (n ?x) (n ?y)) (legal r go)"
            " (<= (next (f ?x ?y)) (true (f ?x ?y)) (true (f ?y ?x)))"
            " (<= terminal (not (true (f 0 0)))) (goal r 100)")
    game = Game.from_gdl(text, backend="propnet")
    assert len(game.fluents) == 14_400 and game.backend == "propnet"
    state = game.next_state(game.initial_state, {"r": "go"})
    assert state == game.initial_state and not game.is_terminal(state)


@pytest.mark.slow  # about 3 s
def test_generated_code_grows_with_the_network_not_with_its_masks() -> None:
    """A mask is as wide as its highest fluent: the 14,400-fluent game above would write
    3,600 hex digits for each of its high fluents. Wide masks are named once, so the code
    of both flavours stays within a few hundred characters per edge."""
    text = ("(role r) " + " ".join(f"(n {i})" for i in range(120)) +
            " (<= (init (f ?x ?y)) (n ?x) (n ?y)) (legal r go)"
            " (<= (next (f ?x ?y)) (true (f ?x ?y)) (true (f ?y ?x)))"
            " (<= terminal (not (true (f 0 0)))) (goal r 100)")
    game = Game.from_gdl(text, backend="propnet")
    network = game.network
    assert network is not None
    single, batch = compile_single(network), compile_batch(network)
    assert single.source_chars < 100 * network.size.edges
    assert batch.source_chars < 100 * network.size.edges


@pytest.mark.slow  # about 3 s
def test_wide_states_and_moves_play_alike_on_the_network_and_clingo() -> None:
    """A game of 1,600 fluents and 1,600 moves, past the width where the one-state code reads
    the state and the joint move as bytes: fluents, legal moves (every free cell, and a pass
    read from a high fluent), successors and goals agree with clingo along playouts."""
    text = ("(role r) " + " ".join(f"(n {i})" for i in range(40)) +
            " (init (free 0 0))"
            " (<= (legal r (mark ?x ?y)) (n ?x) (n ?y) (not (true (taken ?x ?y))))"
            " (<= (legal r pass) (true (taken 39 39)))"
            " (<= (next (taken ?x ?y)) (does r (mark ?x ?y)))"
            " (<= (next (taken ?x ?y)) (true (taken ?x ?y)))"
            " (<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))"
            " (<= (next (count 1)) (not (true (count ?n))) (n ?n) (does r (mark ?n ?n)))"
            + " ".join(f"(succ {i} {i + 1})" for i in range(39)) +
            " (<= terminal (true (count 30)))"
            " (<= (goal r 100) (true (taken 39 39))) (<= (goal r 0) (not (true (taken 39 39))))")
    network, clingo = (Game.from_gdl(text, backend=b) for b in ("propnet", "clingo"))
    assert len(network.fluents) > 1024 and len(network.all_moves) > 1024
    assert network.fluents == clingo.fluents and network.all_moves == clingo.all_moves
    result = compare_sides(EngineSide(network), EngineSide(clingo), playouts=4, seed=5,
                           max_steps=60)
    assert result.disagreement is None, result.disagreement.describe("propnet", "clingo")
    assert result.states > 20
