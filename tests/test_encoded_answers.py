"""Answers the service encodes itself (reasoner.server.encoded): the same bytes' meaning as
the message protobuf would build, without a message object per playout."""

from __future__ import annotations

import pytest

from reasoner import Game
from reasoner.core.walk import Simulation
from reasoner.server.encoded import playouts_answer, varint
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import GAMES


def _as_messages(run: Simulation, elapsed_ms: float) -> pb.SimulateResponse:
    """The answer built the plain way: a Playout message per playout."""
    paths = run.trajectories or [()] * len(run.lengths)
    return pb.SimulateResponse(
        playouts=[pb.Playout(goals=[pb.GoalValues(values=v) for v in goals], length=length,
                             terminal=terminal, trajectory=[pb.JointMove(moves=j) for j in path])
                  for goals, length, terminal, path in zip(run.goals, run.lengths,
                                                           run.terminal, paths, strict=True)],
        updates=run.updates, elapsed_ms=elapsed_ms)


@pytest.mark.parametrize("record", [False, True])
def test_encoded_playouts_read_back_as_the_message_would(record: bool) -> None:
    """200 seeded tic-tac-toe playouts, with and without their moves: the encoded answer
    parses to exactly the message built a Playout at a time."""
    game = Game.from_gdl((GAMES / "tictactoe.kif").read_text())
    run = game.simulate(game.initial_state, 200, seed=3, max_steps=100, record=record)
    encoded = pb.SimulateResponse.FromString(playouts_answer(run, 12.5))
    assert encoded == _as_messages(run, 12.5)
    assert len(encoded.playouts) == 200


def test_a_playout_that_stopped_early_keeps_its_missing_goals() -> None:
    """A playout cut off by max_steps (no goal values, not terminal) and a role without a goal
    value are encoded as the message would hold them."""
    run = Simulation([3, 9], [False, True], [((), ()), ((100,), (0,))], [], 12, False)
    encoded = pb.SimulateResponse.FromString(playouts_answer(run, 0.0))
    assert encoded == _as_messages(run, 0.0)
    assert [list(g.values) for g in encoded.playouts[0].goals] == [[], []]


@pytest.mark.parametrize("number", [0, 1, 127, 128, 300, 2**32 + 5, 2**63])
def test_varints_are_what_protobuf_writes(number: int) -> None:
    """A varint of any size reads back as the number (a uint64 field of one)."""
    key = varint(2 << 3 | 0)  # SimulateResponse.updates, a uint64
    assert pb.SimulateResponse.FromString(key + varint(number)).updates == number
