"""GDL-II percepts in Simulate's recorded playouts (SimulateRequest.record_percepts), on a
real server (port 0) and through the Python client. Monty Hall (games/montyhall.kif): the
candidate perceives its own move each turn and, after the second, the door nature
(``random``) opened."""

from __future__ import annotations

import re
from collections.abc import Iterator

import grpc
import pytest

from client import ReasonerClient
from client.reasoner_client import RemoteGame
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import CALL_TIMEOUT, Server, expect_detail, game_text, running_server


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    """One server for the module."""
    with running_server() as server:
        yield server


@pytest.fixture(scope="module")
def monty(srv: Server) -> pb.GameInfo:
    """Monty Hall's tables on the module's server."""
    return srv.load("montyhall")


@pytest.fixture(scope="module")
def client(srv: Server) -> Iterator[ReasonerClient]:
    """The Python client, connected to the module's server."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as connected:
        yield connected


@pytest.fixture(scope="module")
def remote(client: ReasonerClient) -> RemoteGame:
    """Monty Hall as the Python client holds it."""
    return client.load_game(game_text("montyhall"))


def _simulate(srv: Server, game_id: str, **fields: object) -> pb.SimulateResponse:
    request = pb.SimulateRequest(game_id=game_id, from_initial=True, **fields)  # type: ignore[arg-type]
    response: pb.SimulateResponse = srv.stub.Simulate(request, timeout=CALL_TIMEOUT)
    return response


def _door(text: str) -> str:
    found = re.search(r"(\d)\)+$", text)
    assert found is not None, text
    return found.group(1)


def test_client_percepts_follow_the_recorded_moves(remote: RemoteGame) -> None:
    """The client's recorded montyhall playouts carry, after step 1, the candidate's
    (did candidate (choose N)) for the door it chose, and after step 2 the door that
    random's recorded move opened, for every playout."""
    run = remote.simulate(playouts=12, seed=5, record=True, record_percepts=True)
    candidate = remote.roles.index("candidate")
    random_index = remote.roles.index("random")
    assert len(run.percepts) == 12
    for playout in run.playouts:
        assert playout.length == 3 and len(playout.percepts) == 3
        texts = [sorted(remote.percept_table[i][1] for i in step[candidate])
                 for step in playout.percepts]
        assert all(remote.percept_table[i][0] == remote.roles[r]
                   for step in playout.percepts for r, ids in enumerate(step) for i in ids)
        chosen = remote.move_texts[playout.trajectory[0][candidate]]
        assert texts[0] == [f"(did candidate {chosen})"]
        opened = remote.move_texts[playout.trajectory[1][random_index]]
        assert opened.startswith("(open_door ")
        assert texts[1] == ["(did candidate noop)", opened]
        assert _door(opened) != _door(chosen)


def test_messages_and_columns_agree(srv: Server, monty: pb.GameInfo) -> None:
    """The same request answered per playout (Playout.percepts) and in columns
    (percept_counts, percept_ids) gives the same percepts, one count per recorded move."""
    fields = {"playouts": 6, "seed": 3, "record_trajectories": True, "record_percepts": True}
    messages = _simulate(srv, monty.game_id, **fields)
    columns = _simulate(srv, monty.game_id, columns=True, **fields).columns
    flat = [list(role.percept_ids) for playout in messages.playouts
            for step in playout.percepts for role in step.roles]
    assert len(columns.percept_counts) == len(columns.trajectory_moves) == len(flat)
    assert list(columns.percept_counts) == [len(ids) for ids in flat]
    assert list(columns.percept_ids) == [i for ids in flat for i in ids]
    assert all(len(p.percepts) == len(p.trajectory) for p in messages.playouts)


def test_percepts_leave_the_playouts_unchanged(remote: RemoteGame) -> None:
    """Asking for percepts plays the same playouts (lengths, goals, joint moves) as the
    same seed without them."""
    plain = remote.simulate(playouts=20, seed=9, record=True)
    seen = remote.simulate(playouts=20, seed=9, record=True, record_percepts=True)
    assert plain.trajectories == seen.trajectories and plain.goals == seen.goals
    assert plain.percepts == [] and len(seen.percepts) == 20


def test_without_the_flag_no_percepts_come_back(srv: Server, monty: pb.GameInfo) -> None:
    """A recorded Simulate of montyhall without record_percepts answers no percepts, per
    playout or in columns."""
    messages = _simulate(srv, monty.game_id, playouts=4, seed=1, record_trajectories=True)
    columns = _simulate(srv, monty.game_id, playouts=4, seed=1, record_trajectories=True,
                        columns=True).columns
    assert all(len(p.trajectory) == 3 and not p.percepts for p in messages.playouts)
    assert (list(columns.percept_counts), list(columns.percept_ids)) == ([], [])


def test_a_plain_game_answers_empty_percepts(srv: Server, client: ReasonerClient) -> None:
    """record_percepts on tic-tac-toe is no error: the service sends no percepts, and the
    client gives every role of every recorded step an empty tuple."""
    info = srv.load("tictactoe")
    response = _simulate(srv, info.game_id, playouts=3, seed=2, record_trajectories=True,
                         record_percepts=True, columns=True)
    assert (list(response.columns.percept_counts), list(response.columns.percept_ids)) == (
        [], [])
    run = client.load_game(game_text("tictactoe")).simulate(
        playouts=3, seed=2, record=True, record_percepts=True)
    assert [len(steps) for steps in run.percepts] == run.lengths
    assert all(seen == ((), ()) for steps in run.percepts for seen in steps)


def test_percepts_without_trajectories_are_refused(srv: Server, monty: pb.GameInfo) -> None:
    """record_percepts without record_trajectories is INVALID_ARGUMENT, reason
    "conflicting-fields"."""
    detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, srv.stub.Simulate,
                           pb.SimulateRequest(game_id=monty.game_id, from_initial=True,
                                              playouts=1, record_percepts=True))
    assert detail.reason == "conflicting-fields"


def test_the_client_refuses_percepts_without_record(remote: RemoteGame) -> None:
    """RemoteGame.simulate with record_percepts but not record is a ValueError before any
    call."""
    with pytest.raises(ValueError, match="record_percepts"):
        remote.simulate(playouts=1, record_percepts=True)
