"""One protocol, two games: an in-process ``Game`` and a ``RemoteGame`` on a real server
(port 0) both satisfy ``reasoner.core.game_view.GameView`` with the same values: the same
states, the same answers, and ``simulate`` with the same arguments, the same result type
and the same value for a playout that ends without goals."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from client import ReasonerClient, RemoteGame
from client.players.evaluator import SimulateEvaluator
from client.players.heuristic_values import HeuristicEvaluator
from reasoner.core.game_view import GameView
from reasoner.core.values import State
from reasoner.core.walk import Playout, Simulation
from reasoner.engine.game import Game
from tests.service_support import CALL_TIMEOUT, Server, bundled, game_text, running_server


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    with running_server() as server:
        yield server


def _both(srv: Server, name: str) -> Iterator[tuple[Game, RemoteGame]]:
    """The bundled game in process and loaded on the server (on the same backend)."""
    local = bundled(name)
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        remote = client.load_game(game_text(name), backend=str(local.backend))
        assert remote.backend == local.backend
        yield local, remote


@pytest.fixture
def tictactoe(srv: Server) -> Iterator[tuple[Game, RemoteGame]]:
    yield from _both(srv, "tictactoe")


@pytest.fixture
def connectfour(srv: Server) -> Iterator[tuple[Game, RemoteGame]]:
    yield from _both(srv, "connectfour")


def test_both_games_are_game_views(tictactoe: tuple[Game, RemoteGame]) -> None:
    """Game and RemoteGame are GameViews over the engine's State (mypy checks the
    assignments), with the same roles and move table."""
    local, remote = tictactoe
    views: list[GameView[State]] = [local, remote]
    assert views[0].roles == views[1].roles
    assert views[0].move_texts == views[1].move_texts


def test_the_initial_state_is_one_value(tictactoe: tuple[Game, RemoteGame]) -> None:
    """The initial state and its answers are equal values in process and on the service."""
    local, remote = tictactoe
    assert remote.initial() == local.initial()
    assert type(remote.initial_state()) is State


def test_a_remote_state_steps_in_process_and_back(tictactoe: tuple[Game, RemoteGame]) -> None:
    """A state the service answered is a state of the in-process game, and the other way
    round: steps from either agree."""
    local, remote = tictactoe
    state, _ = remote.initial()
    joint = (remote.move_id("xplayer", "(mark 2 2)"), remote.move_id("oplayer", "noop"))
    assert local.step(state, joint) == remote.step(local.initial_state, joint)


def test_simulate_gives_the_same_playouts_for_the_same_arguments(
        connectfour: tuple[Game, RemoteGame]) -> None:
    """The same call, simulate(state, playouts, seed, max_steps, record=True), gives one
    Simulation with the same playouts, lengths, goals, trajectories and updates on both."""
    local, remote = connectfour
    ours = local.simulate(local.initial_state, 5, 7, 1000, record=True)
    theirs = remote.simulate(local.initial_state, 5, 7, 1000, record=True)
    assert type(ours) is type(theirs) is Simulation
    assert ours.playouts == theirs.playouts
    assert (ours.lengths, ours.terminal, ours.goals, ours.trajectories, ours.updates) == (
        theirs.lengths, theirs.terminal, theirs.goals, theirs.trajectories, theirs.updates)


def test_simulate_has_the_same_defaults(connectfour: tuple[Game, RemoteGame]) -> None:
    """simulate(state) alone is one playout with seed 0 and at most 1,000 steps on both."""
    local, remote = connectfour
    ours, theirs = local.simulate(local.initial_state), remote.simulate(local.initial_state)
    assert len(ours.playouts) == 1 and ours.playouts == theirs.playouts


def test_a_playout_without_goals_is_none_on_both(connectfour: tuple[Game, RemoteGame]) -> None:
    """Playouts cut off after 3 steps end where no role has a goal: None per role in
    playouts, () per role in the goal columns, -1 in the flat goals, in process and on
    the service alike."""
    local, remote = connectfour
    ours = local.simulate(local.initial_state, 2, 3, 3)
    theirs = remote.simulate(local.initial_state, 2, 3, 3)
    for run in (ours, theirs):
        assert run.playouts == (Playout((None, None), 3, False, ()),) * 2
        assert run.goals == [((), ())] * 2
        assert run.flat_goals() == [-1] * 4


def test_the_playout_evaluator_values_a_state_alike_on_both(
        connectfour: tuple[Game, RemoteGame]) -> None:
    """SimulateEvaluator asks the game it has to simulate, whichever it is: the same rng
    gives the same values in process and on the service."""
    local, remote = connectfour
    evaluator = SimulateEvaluator(rollouts=4)
    state, info = local.initial()
    assert evaluator(local, state, info, random.Random(5)) == evaluator(
        remote, state, info, random.Random(5))


def test_evaluate_gives_the_same_values_and_plans_on_both(
        tictactoe: tuple[Game, RemoteGame]) -> None:
    """evaluate(states, role, heuristic, plan=True) answers equal Evaluation values, relaxed
    plans included (a move's step with its text and id), in process and on the service."""
    local, remote = tictactoe
    state, _ = local.initial()
    ours = local.evaluate([state], "xplayer", "hff", plan=True)
    theirs = remote.evaluate([state], "xplayer", "hff", plan=True)
    assert ours == theirs
    assert any(step.move_id is not None and step.move for step in ours[0].plan)


def test_the_heuristic_evaluator_values_a_state_alike_on_both(
        tictactoe: tuple[Game, RemoteGame]) -> None:
    """HeuristicEvaluator asks the game it has to evaluate, whichever it is: fuzzy values
    of the initial state are the same in process and on the service."""
    local, remote = tictactoe
    evaluator = HeuristicEvaluator("fuzzy")
    state, info = local.initial()
    ours = evaluator(local, state, info, random.Random(0))
    assert ours == evaluator(remote, state, info, random.Random(0))
    assert all(0.0 <= value <= 1.0 for value in ours)


def test_summarize_gives_the_same_totals_for_the_same_arguments(
        connectfour: tuple[Game, RemoteGame]) -> None:
    """summarize(state, playouts, seed, max_steps) totals the same playouts on both, and
    those of simulate with the same arguments."""
    local, remote = connectfour
    ours = local.summarize(local.initial_state, 50, 3, 1000)
    assert ours == remote.summarize(local.initial_state, 50, 3, 1000)
    run = local.simulate(local.initial_state, 50, 3, 1000)
    assert (ours.playouts, ours.terminal, ours.total_length) == (
        50, sum(run.terminal), sum(run.lengths))
