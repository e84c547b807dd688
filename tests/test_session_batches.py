"""Several Session requests in one message (``SessionRequest.more``): each is answered on its
own tag, in order, as if it had come alone, in one message of answers or in several where
they would not fit one; the Python client sends the requests waiting in its queue together."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from client import ReasonerClient
from client.session import END, outgoing
from reasoner.core.walk import sample_states
from reasoner.engine.game import Game
from reasoner.errors import UnknownGameError
from reasoner.session_batches import joined
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import CALL_TIMEOUT, Server, game_text, move_of, running_server


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    with running_server(max_sessions=2) as server:
        yield server


def _message(requests: list[pb.SessionRequest]) -> pb.SessionRequest:
    """The first request with the others in its ``more``."""
    return pb.SessionRequest.FromString(joined([r.SerializeToString() for r in requests]))


def _answers(messages: list[pb.SessionResponse]) -> list[pb.SessionResponse]:
    """Every answer of a stream's messages, in order."""
    return [answer for message in messages for answer in (message, *message.more)]


def test_requests_of_one_message_are_answered_in_one_message_in_order(srv: Server) -> None:
    """InitialState, Query, a Query of an unknown game, Next and Expand sent in one message
    come back in one message: each on its tag, in order, the failed one with its own error
    and the others with what their unary calls answer."""
    ttt = srv.load("tictactoe")
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                    timeout=CALL_TIMEOUT).state
    joint = pb.JointMove(moves=[move_of(ttt, "xplayer", "(mark 1 3)"),
                                move_of(ttt, "oplayer", "noop")])
    requests = [
        pb.SessionRequest(tag=10, initial_state=pb.InitialStateRequest(game_id=ttt.game_id)),
        pb.SessionRequest(tag=11, query=pb.QueryRequest(game_id=ttt.game_id, state=initial)),
        pb.SessionRequest(tag=12, query=pb.QueryRequest(game_id="e" * 64, state=initial)),
        pb.SessionRequest(tag=13, next=pb.NextRequest(game_id=ttt.game_id, state=initial,
                                                      joint_moves=[joint])),
        pb.SessionRequest(tag=14, expand=pb.ExpandRequest(game_id=ttt.game_id,
                                                          state=initial)),
    ]
    messages = list(srv.stub.Session(iter([_message(requests)]), timeout=CALL_TIMEOUT))
    assert len(messages) == 1
    answers = _answers(messages)
    assert [a.tag for a in answers] == [10, 11, 12, 13, 14]
    assert [a.WhichOneof("response") for a in answers] == [
        "initial_state", "query", "error", "next", "expand"]
    assert answers[2].error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert answers[1].query == srv.stub.Query(requests[1].query, timeout=CALL_TIMEOUT)
    assert answers[3].next == srv.stub.Next(requests[3].next, timeout=CALL_TIMEOUT)
    assert answers[4].expand == srv.stub.Expand(requests[4].expand, timeout=CALL_TIMEOUT)


def test_a_request_in_more_with_more_of_its_own_is_refused_on_its_tag(srv: Server) -> None:
    """A request inside ``more`` that carries ``more`` itself answers its own tag with
    INVALID_ARGUMENT saying so (what it nests is not run); the requests around it are
    answered."""
    ttt = srv.load("tictactoe")
    ask = pb.InitialStateRequest(game_id=ttt.game_id)
    nested = _message([pb.SessionRequest(tag=2, initial_state=ask),
                       pb.SessionRequest(tag=3, initial_state=ask)])
    message = _message([pb.SessionRequest(tag=1, initial_state=ask), nested,
                        pb.SessionRequest(tag=4, initial_state=ask)])
    answers = _answers(list(srv.stub.Session(iter([message]), timeout=CALL_TIMEOUT)))
    assert [a.tag for a in answers] == [1, 2, 4]
    assert answers[1].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "is in `more` and has `more` of its own" in answers[1].error.message
    assert answers[0].initial_state == answers[2].initial_state


def test_answers_that_do_not_fit_one_message_come_in_several() -> None:
    """On a server whose messages are at most 1 MiB, 3,000 GetGame requests in one message
    (about 2.7 MiB of answers) are answered in three messages, each within the bound, every
    tag in order."""
    with running_server(max_message_mb=1) as server:
        ttt = server.load("tictactoe")
        requests = [pb.SessionRequest(tag=t, get_game=pb.GetGameRequest(game_id=ttt.game_id))
                    for t in range(3000)]
        messages = list(server.stub.Session(iter([_message(requests)]),
                                            timeout=CALL_TIMEOUT))
    assert len(messages) == 3
    assert all(m.ByteSize() <= 2**20 for m in messages)
    answers = _answers(messages)
    assert [a.tag for a in answers] == list(range(3000))
    assert all(a.get_game == answers[0].get_game for a in answers)


def test_a_client_that_cancels_a_long_message_gives_its_session_back(srv: Server) -> None:
    """Two sessions (the cap) each sent one message of 500 Simulate requests of 100,000
    playouts (minutes of work) and cancelled after a second stop working at the next request:
    a third session is answered within seconds."""
    ttt = srv.load("tictactoe")
    heavy = _message([pb.SessionRequest(tag=t, simulate=pb.SimulateRequest(
        game_id=ttt.game_id, from_initial=True, playouts=100_000, seed=t))
        for t in range(500)])
    release = threading.Event()

    def requests() -> Iterator[pb.SessionRequest]:
        yield heavy
        release.wait(CALL_TIMEOUT)

    calls = [srv.stub.Session(requests(), timeout=CALL_TIMEOUT) for _ in range(2)]
    time.sleep(1.0)
    for call in calls:
        call.cancel()
    release.set()
    ask = pb.SessionRequest(tag=1, initial_state=pb.InitialStateRequest(game_id=ttt.game_id))
    started = time.monotonic()
    while True:
        try:
            (answer,) = list(srv.stub.Session(iter([ask]), timeout=CALL_TIMEOUT))
            break
        except grpc.RpcError as error:  # the cancelled sessions finish their request first
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert time.monotonic() - started < 15
            time.sleep(0.1)
    assert answer.WhichOneof("response") == "initial_state"


def test_the_client_sends_the_requests_waiting_in_its_queue_together() -> None:
    """Ten requests queued before the stream reads any, with a batch of four, leave as three
    messages of 4, 4 and 2 requests, in order; the end of the queue ends the stream."""
    requests: queue.SimpleQueue[object] = queue.SimpleQueue()
    for tag in range(10):
        requests.put(pb.SessionRequest(tag=tag).SerializeToString())
    requests.put(END)
    messages = [pb.SessionRequest.FromString(m) for m in outgoing(requests, batch=4)]
    assert [[m.tag, *(r.tag for r in m.more)] for m in messages] == [
        [0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_a_request_alone_in_the_queue_leaves_at_once() -> None:
    """A request that finds the queue empty is sent alone, without waiting for others (a
    search loop that asks one question at a time is not held back)."""
    requests: queue.SimpleQueue[object] = queue.SimpleQueue()
    messages = outgoing(requests, batch=256)
    requests.put(pb.SessionRequest(tag=5).SerializeToString())
    first = pb.SessionRequest.FromString(next(messages))
    assert (first.tag, len(first.more)) == (5, 0)


def test_a_session_answers_the_same_with_and_without_batches(srv: Server) -> None:
    """300 pipelined Query and Next requests along a random walk get the same answers on a
    session that sends one request per message as on one that sends up to 256, unknown-game
    errors included."""
    ttt = srv.load("tictactoe")
    local = Game.from_gdl(game_text("tictactoe"))
    pairs = sample_states(local, local.initial_state, 150, seed=3)
    requests: list[tuple[str, Any]] = []
    for i, (state, joint) in enumerate(pairs):
        message = pb.State(fluents=list(state.fluent_ids()))
        game_id = ttt.game_id if i % 50 else "d" * 64
        requests.append(("query", pb.QueryRequest(game_id=game_id, state=message)))
        requests.append(("next", pb.NextRequest(game_id=ttt.game_id, state=message,
                                                joint_moves=[pb.JointMove(moves=joint)])))

    def answers(batch: int) -> list[Any]:
        with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client, \
                client.session(batch=batch) as session:
            found = []
            for kind, request in requests:
                session.send(kind, request)
            for _ in requests:
                tag, answer = session.receive()
                found.append((tag, str(answer) if isinstance(answer, UnknownGameError)
                              else answer))
            return found

    alone, together = answers(1), answers(256)
    assert [tag for tag, _ in together] == list(range(300))
    assert together == alone
    assert sum(isinstance(a, str) for _, a in together) == 3
