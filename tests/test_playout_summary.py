"""Playout summaries: the totals of Simulate's playouts, in process, over the service and on
the GPU path (the GPU build's logic run thread by thread on the CPU), always the totals of
the very playouts that Simulate answers in columns for the same arguments."""

from __future__ import annotations

import logging

import grpc
import pytest

from client import ReasonerClient
from reasoner.core.playout_summary import NO_GOAL, PlayoutSummary
from reasoner.core.walk import Simulation
from reasoner.engine.game import Game
from reasoner.propnet.gpu import EmulatedGpuKernel
from reasoner.propnet.native import NativeMachine
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import GAMES, expect_detail, game_text, running_server


def _totals(game: Game, run: Simulation) -> PlayoutSummary:
    """The summary that the columns of ``run`` add up to."""
    return PlayoutSummary.from_columns(run.lengths, run.terminal, run.flat_goals(),
                                       len(game.roles), run.updates)


@pytest.mark.parametrize("backend", ["native", "propnet",
                                     pytest.param("clingo", marks=pytest.mark.slow)])  # 3.8 s
def test_a_summary_adds_up_the_playouts_simulate_plays(backend: str) -> None:
    """On every backend, summarize's totals are those of simulate's columns for the same
    state, seed and bound."""
    game = Game.from_file(GAMES / "connectfour.kif", backend=backend)
    playouts = 300 if backend == "clingo" else 3000
    summary = game.summarize(game.initial_state, playouts, 12, 1000)
    assert summary == _totals(game, game.simulate(game.initial_state, playouts, 12, 1000))
    assert summary.playouts == summary.terminal == playouts
    assert sum(summary.goal_counts[0].values()) == playouts


def test_a_summary_counts_the_playouts_cut_off_without_goals() -> None:
    """Playouts cut off by the step bound count as not terminal, and a role without a goal
    value in the last state counts under NO_GOAL."""
    game = Game.from_file(GAMES / "connectfour.kif", backend="native")
    summary = game.summarize(game.initial_state, 500, 1, 3)
    assert (summary.terminal, summary.total_length, summary.updates) == (0, 1500, 1500)
    assert summary.goal_counts == ({NO_GOAL: 500}, {NO_GOAL: 500})
    assert summary.mean_goal(0) is None and summary.mean_length == 3.0


def test_the_gpu_path_summarizes_its_own_playouts() -> None:
    """On the GPU path the totals are those of the GPU's own playouts (the same seed gives
    the same playouts in columns and in totals)."""
    game = Game.from_file(GAMES / "connectfour.kif", backend="native")
    native = game.machine
    assert isinstance(native, NativeMachine)
    native.attach_gpu(EmulatedGpuKernel(native.image, native.roles))
    on_gpu = native.summarize(native.init_bits, 5000, seed=4, max_steps=1000, gpu=True)
    columns = native.simulate(native.init_bits, 5000, seed=4, max_steps=1000, gpu=True)
    on_cpu = native.summarize(native.init_bits, 5000, seed=4, max_steps=1000, gpu=False)
    assert on_gpu == _totals(game, columns)
    assert on_gpu != on_cpu  # the GPU's playouts are its own


def test_a_failing_gpu_leaves_the_summary_to_the_cpu(caplog: pytest.LogCaptureFixture) -> None:
    """A GPU kernel that fails (the emulated one launched with no threads) costs a log line:
    the CPU's summary comes back, the same as without a GPU."""
    game = Game.from_file(GAMES / "tictactoe.kif", backend="native")
    native = game.machine
    assert isinstance(native, NativeMachine)
    native.attach_gpu(EmulatedGpuKernel(native.image, native.roles, threads=0))
    with caplog.at_level(logging.WARNING):
        tried = native.summarize(native.init_bits, 5000, seed=8, max_steps=100, gpu=True)
    assert tried == native.summarize(native.init_bits, 5000, seed=8, max_steps=100, gpu=False)
    assert "GPU playouts failed" in caplog.text


def test_summaries_join_into_the_totals_of_their_parts() -> None:
    """Joined summaries add their playouts, lengths, terminal counts and goal counts."""
    one = PlayoutSummary(2, 1, 9, ({100: 1, NO_GOAL: 1},), 9)
    two = PlayoutSummary(3, 3, 12, ({100: 2, 0: 1},), 12)
    joined = PlayoutSummary.joined([one, two], roles=1)
    assert joined == PlayoutSummary(5, 4, 21, ({NO_GOAL: 1, 0: 1, 100: 3},), 21)
    assert joined.share(0, 100) == 0.6 and joined.mean_goal(0) == 75.0


def test_the_service_summarizes_the_playouts_in_process() -> None:
    """RemoteGame.summarize answers the in-process type with the totals that Game.summarize
    gives for the same seed, and summarize_many one summary per start, start i with the
    seed + i."""
    local = Game.from_file(GAMES / "connectfour.kif")
    with running_server() as srv, ReasonerClient(srv.target) as client:
        remote = client.load_game(game_text("connectfour"))
        summary = remote.summarize(playouts=4000, seed=21)
        assert summary == local.summarize(local.initial_state, 4000, 21, 1000)
        state, _ = remote.initial()
        many = remote.summarize_many([(state, 100), (state, 200)], seed=5)
    assert many == [local.summarize(local.initial_state, 100, 5, 1000),
                    local.summarize(local.initial_state, 200, 6, 1000)]


def test_a_summary_with_trajectories_is_an_invalid_argument() -> None:
    """A summary holds no trajectories: asking for both is INVALID_ARGUMENT (a request
    error of reason "conflicting-fields"), before any playout."""
    with running_server() as srv:
        game = srv.load("tictactoe")
        detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, srv.stub.Simulate,
                               pb.SimulateRequest(game_id=game.game_id, from_initial=True,
                                                  playouts=10, summary=True,
                                                  record_trajectories=True))
        assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "conflicting-fields")
