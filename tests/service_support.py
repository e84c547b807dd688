"""Helpers shared by the service test modules (``test_service*.py``): real servers on port 0,
raw stubs, and what the in-process engine answers for comparison. No mocks anywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from reasoner.core.values import StateInfo
from reasoner.core.walk import random_playout
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits
from reasoner.heuristics.relaxed import DEFAULT_VIEW_BOUNDS, ViewBounds
from reasoner.server.app import create_server
from reasoner.server.registry import GameRegistry
from reasoner.v1 import reasoner_pb2 as pb
from reasoner.v1 import reasoner_pb2_grpc as pb_grpc
from tests.conftest import GAMES, bundled

__all__ = [
    "CALL_TIMEOUT",
    "GAMES",
    "Server",
    "bundled",
    "expect_detail",
    "expect_error",
    "failed_call",
    "game_text",
    "local_info",
    "local_playouts",
    "move_of",
    "remote_info",
    "remote_playouts",
    "running_server",
    "state_of",
]

# Generous enough for a loaded 2-core machine, short enough that a hang fails fast.
CALL_TIMEOUT = 30.0


def game_text(name: str) -> str:
    """The text of a bundled game, read as the server's preloading reads it."""
    return (GAMES / f"{name}.kif").read_text(encoding="utf-8", errors="replace")


@dataclass
class Server:
    """A running server and a channel to it."""

    server: grpc.Server
    port: int
    registry: GameRegistry
    channel: grpc.Channel
    stub: pb_grpc.ReasonerStub

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def load(self, name: str) -> pb.GameInfo:
        """Load a bundled game by file stem and return its tables."""
        response = self.stub.LoadGame(pb.LoadGameRequest(gdl=game_text(name)),
                                      timeout=CALL_TIMEOUT)
        game: pb.GameInfo = response.game
        return game

    def raw(self, method: str) -> grpc.UnaryUnaryMultiCallable:
        """A method of the service that sends and returns bytes as they are."""
        return self.channel.unary_unary(f"/reasoner.v1.Reasoner/{method}",
                                        request_serializer=None, response_deserializer=None)


@contextmanager
def running_server(*, games: Path | None = None, max_games: int = 64, workers: int = 8,
                   max_message_mb: int = 16, max_concurrent_rpcs: int = 256,
                   limits: Limits | None = None,
                   address: str = "127.0.0.1:0",
                   heuristic_bounds: ViewBounds = DEFAULT_VIEW_BOUNDS,
                   cache_mb: int = 4096, max_heavy: int = 2, max_costly: int = 2,
                   max_call_seconds: float = 600.0, max_sessions: int = 16,
                   session_idle_seconds: float = 300.0) -> Iterator[Server]:
    """A real server on a free port (``limits=None`` unless a test is about the limits, which
    keeps loads fast), with a channel that can send large requests; stopped on exit."""
    server, port, registry = create_server(address, games=games, max_games=max_games,
                                           workers=workers, max_message_mb=max_message_mb,
                                           max_concurrent_rpcs=max_concurrent_rpcs,
                                           limits=limits, heuristic_bounds=heuristic_bounds,
                                           cache_mb=cache_mb, max_heavy=max_heavy,
                                           max_costly=max_costly,
                                           max_call_seconds=max_call_seconds,
                                           max_sessions=max_sessions,
                                           session_idle_seconds=session_idle_seconds)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=[
        ("grpc.max_send_message_length", 64 * 1024 * 1024),
        ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ])
    try:
        stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
        yield Server(server, port, registry, channel, stub)
    finally:
        channel.close()
        server.stop(None)


def expect_error(code: grpc.StatusCode, call: Callable[..., Any], request: Any,
                 timeout: float = CALL_TIMEOUT) -> str:
    """Make a call that must fail with ``code``; returns the status message (for the tests
    whose point is its wording, and for gRPC's own statuses, which have no ErrorDetail;
    which error it was is read with :func:`expect_detail`)."""
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=timeout)
    error: Any = caught.value
    assert error.code() == code, error.details()
    details: str = error.details()
    return details


def failed_call(call: Callable[..., Any], request: Any, timeout: float = CALL_TIMEOUT
                ) -> tuple[grpc.StatusCode, str, pb.ErrorDetail]:
    """Make a call that must fail; returns its status code, its status message and the
    ErrorDetail that its google.rpc.Status details hold (exactly one)."""
    with pytest.raises(grpc.RpcError) as caught:
        call(request, timeout=timeout)
    error: Any = caught.value
    status = rpc_status.from_call(error)
    assert status is not None, error.details()
    assert len(status.details) == 1
    detail = pb.ErrorDetail()
    assert status.details[0].Unpack(detail)
    return error.code(), error.details(), detail


def expect_detail(code: grpc.StatusCode, call: Callable[..., Any], request: Any,
                  timeout: float = CALL_TIMEOUT) -> pb.ErrorDetail:
    """Make a call that must fail with ``code``; returns the ErrorDetail of its status (the
    fields a program reads to tell which error it was: kind, reason, line, bound...)."""
    found, message, detail = failed_call(call, request, timeout)
    assert found == code, message
    return detail


def state_of(info: pb.GameInfo, *fluents: str) -> pb.State:
    """A state message from fluents written as the fluent table prints them."""
    table = list(info.fluents)
    return pb.State(fluents=[table.index(text) for text in fluents])


def move_of(info: pb.GameInfo, role: str, text: str) -> int:
    """The move id of a role's move written as the move table prints it."""
    role_index = list(info.roles).index(role)
    (found,) = [i for i, m in enumerate(info.moves) if m.role == role_index and m.text == text]
    return found


def local_playouts(game: Game, seed: int, playouts: int, max_steps: int = 1000,
                   state: Any = None) -> list[tuple[Any, ...]]:
    """What the in-process engine plays for Simulate's arguments: per playout (goals per
    role, length, terminal, trajectory). On the clingo backend these are consecutive
    ``random_playout`` calls with one ``random.Random(seed)``; on the network backend one
    bit-parallel batch."""
    start = game.initial_state if state is None else state
    if game.network is not None:
        run = game.simulate(start, playouts, seed, max_steps, record=True)
        return [([list(values) for values in goals], length, terminal,
                 [list(joint) for joint in path])
                for goals, length, terminal, path in zip(
                    run.goals, run.lengths, run.terminal, run.trajectories, strict=True)]
    rng = random.Random(seed)
    results = []
    for _ in range(playouts):
        result = random_playout(game, start, rng, max_steps, record=True)
        results.append((
            [list(values) for values in result.info.goals], result.length, result.terminal,
            [list(joint) for joint in result.trajectory],
        ))
    return results


def remote_playouts(response: pb.SimulateResponse) -> list[tuple[Any, ...]]:
    """A Simulate response in the shape of :func:`local_playouts`."""
    return [([list(g.values) for g in p.goals], p.length, p.terminal,
             [list(j.moves) for j in p.trajectory]) for p in response.playouts]


def local_info(info: StateInfo) -> tuple[Any, ...]:
    """An in-process StateInfo as comparable lists: (legal, terminal, goals)."""
    return ([list(ids) for ids in info.legal], info.terminal,
            [list(values) for values in info.goals])


def remote_info(message: pb.StateInfo) -> tuple[Any, ...]:
    """A StateInfo message in the shape of :func:`local_info`."""
    return ([list(m.ids) for m in message.legal], message.terminal,
            [list(g.values) for g in message.goals])
