"""The Session stream: many requests in flight on one call, each answered with its tag, in
order, exactly as its own unary call would answer it; a failed request answers its own
status and the stream goes on; a message that cannot be read ends the stream, and sessions
past the server's cap are refused."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from client import ReasonerClient
from client.errors import detail_in, error_detail_of
from reasoner.errors import IllegalMoveError, UnknownGameError
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import CALL_TIMEOUT, Server, move_of, running_server


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    with running_server(max_sessions=2) as server:
        yield server


def test_a_session_answers_each_request_as_its_call_would(srv: Server) -> None:
    """Query, Next, Expand and InitialState sent on one stream with all of them in flight
    come back in order, each with its tag and the response its unary call gives."""
    ttt = srv.load("tictactoe")
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                    timeout=CALL_TIMEOUT)
    joint = pb.JointMove(moves=[move_of(ttt, "xplayer", "(mark 2 2)"),
                                move_of(ttt, "oplayer", "noop")])
    requests: list[tuple[str, Any, str]] = [
        ("initial_state", pb.InitialStateRequest(game_id=ttt.game_id), "InitialState"),
        ("query", pb.QueryRequest(game_id=ttt.game_id, state=initial.state), "Query"),
        ("next", pb.NextRequest(game_id=ttt.game_id, state=initial.state,
                                joint_moves=[joint]), "Next"),
        ("expand", pb.ExpandRequest(game_id=ttt.game_id, state=initial.state), "Expand"),
    ]
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client, client.session() as s:
        tags = [s.send(kind, request) for kind, request, _ in requests]
        answers = [s.receive() for _ in requests]
    assert [tag for tag, _ in answers] == tags
    for (_, request, method), (_, answer) in zip(requests, answers, strict=True):
        assert answer == getattr(srv.stub, method)(request, timeout=CALL_TIMEOUT)


def test_a_failed_request_answers_its_own_error_and_the_stream_goes_on(srv: Server) -> None:
    """An unknown game id and an illegal move each answer their own tag with the error
    their call would raise (with its fields); the requests around them are answered."""
    ttt = srv.load("tictactoe")
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                    timeout=CALL_TIMEOUT).state
    illegal = pb.JointMove(moves=[move_of(ttt, "xplayer", "noop"),
                                  move_of(ttt, "oplayer", "noop")])
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client, client.session() as s:
        answers = list(s.pipeline("query", [
            pb.QueryRequest(game_id=ttt.game_id, state=initial),
            pb.QueryRequest(game_id="f" * 64, state=initial),
            pb.QueryRequest(game_id=ttt.game_id, state=initial)]))
        s.send("next", pb.NextRequest(game_id=ttt.game_id, state=initial,
                                      joint_moves=[illegal]))
        _, error = s.receive()
    assert isinstance(answers[0], pb.QueryResponse) and answers[0] == answers[2]
    assert isinstance(answers[1], UnknownGameError)
    assert isinstance(error, IllegalMoveError) and error.role == "xplayer"


def test_a_request_without_a_kind_answers_invalid_argument(srv: Server) -> None:
    """A SessionRequest that holds no request answers its tag with INVALID_ARGUMENT, a
    request error of reason "empty-request"."""
    channel_stream = srv.stub.Session(iter([pb.SessionRequest(tag=7)]), timeout=CALL_TIMEOUT)
    (answer,) = list(channel_stream)
    assert answer.tag == 7
    assert answer.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    detail = detail_in(answer.error.details)
    assert detail is not None
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "empty-request")


def test_garbage_on_the_stream_ends_it_with_invalid_argument(srv: Server) -> None:
    """Bytes that are no SessionRequest end the stream with INVALID_ARGUMENT of reason
    "malformed-message"; the server goes on serving. The message, the output under test
    too, names the message type and the size."""
    raw = srv.channel.stream_stream("/reasoner.v1.Reasoner/Session",
                                    request_serializer=None, response_deserializer=None)
    with pytest.raises(grpc.RpcError) as caught:
        list(raw(iter([b"\xff\xff\xff"]), timeout=CALL_TIMEOUT))
    error: Any = caught.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    detail = error_detail_of(error)
    assert detail is not None
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "malformed-message")
    assert detail.message.startswith("malformed reasoner.v1.SessionRequest message (3 bytes)")
    assert srv.stub.ListGames(pb.ListGamesRequest(), timeout=CALL_TIMEOUT) is not None


def test_sessions_past_the_cap_are_refused(srv: Server) -> None:
    """With two sessions open (the cap), a third is refused with RESOURCE_EXHAUSTED, bound
    "concurrency" and reason "too-many-sessions"; the message, the output under test too,
    names the flag that raises the cap. Once one closes, a new one opens."""
    ttt = srv.load("tictactoe")
    request = pb.SessionRequest(tag=1, initial_state=pb.InitialStateRequest(
        game_id=ttt.game_id))
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        first, second = client.session(), client.session()
        for stream in (first, second):  # each holds its thread once it has answered
            stream.send("initial_state", request.initial_state)
            stream.receive()
        release = threading.Event()

        def requests() -> Iterator[pb.SessionRequest]:
            yield request
            release.wait(CALL_TIMEOUT)

        with pytest.raises(grpc.RpcError) as caught:
            list(srv.stub.Session(requests(), timeout=CALL_TIMEOUT))
        release.set()
        error: Any = caught.value
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        detail = error_detail_of(error)
        assert detail is not None
        assert (detail.kind, detail.bound, detail.reason) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "concurrency", "too-many-sessions")
        assert "(serve --max-sessions)" in error.details()
        first.close()
        second.close()
        with client.session() as third:
            third.send("initial_state", request.initial_state)
            assert isinstance(third.receive()[1], pb.InitialStateResponse)


@pytest.mark.slow
def test_bench_service_reports_each_pattern_as_one_json_row() -> None:
    """`gdl-reasoner bench-service --json` starts a server in its own processes and prints
    one row per pattern with the game, the pattern, clients, processes, steps per second,
    median and p99 latency."""
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "bench-service", "games/tictactoe.kif",
         "--seconds", "0.5", "--clients", "1", "--patterns",
         "unary-query,session-next,simulate", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["pattern"] for row in rows] == ["unary-query", "session-next", "simulate"]
    for row in rows:
        assert (row["game"], row["clients"], row["processes"]) == ("tictactoe", 1, 1)
        assert row["steps_per_sec"] > 0 and 0 < row["median_ms"] <= row["p99_ms"]


@pytest.mark.slow
def test_a_stream_that_never_reads_its_answers_is_held_by_flow_control(srv: Server) -> None:
    """A client that sends a million queries on a stream and never reads an answer is
    stopped by HTTP/2 flow control: the server answers no further than the windows allow
    (the requests sent stop growing, far short of the million), and other clients are
    answered meanwhile."""
    ttt = srv.load("tictactoe")
    state = srv.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                  timeout=CALL_TIMEOUT).state
    sent = [0]

    def requests() -> Iterator[pb.SessionRequest]:
        for tag in range(1_000_000):
            sent[0] += 1
            yield pb.SessionRequest(tag=tag, query=pb.QueryRequest(game_id=ttt.game_id,
                                                                   state=state))

    call = srv.stub.Session(requests(), timeout=120)
    try:
        counts = [-1]
        deadline = time.monotonic() + 90
        while counts[-1] != sent[0] and time.monotonic() < deadline:
            counts.append(sent[0])
            time.sleep(3)
            other = srv.stub.Query(pb.QueryRequest(game_id=ttt.game_id, state=state),
                                   timeout=CALL_TIMEOUT)
            assert len(other.info.legal) == 2
        assert counts[-1] == sent[0] < 1_000_000, counts
    finally:
        call.cancel()


def test_a_client_that_disappears_gives_its_session_back(srv: Server) -> None:
    """Sessions whose clients cancel them in the middle (their requests still open) give
    their places back: with the cap of two taken and then cancelled, a new session is
    answered."""
    ttt = srv.load("tictactoe")
    request = pb.SessionRequest(tag=1, initial_state=pb.InitialStateRequest(
        game_id=ttt.game_id))
    release = threading.Event()

    def requests() -> Iterator[pb.SessionRequest]:
        yield request
        release.wait(CALL_TIMEOUT)  # the client never ends its stream of requests

    calls = [srv.stub.Session(requests(), timeout=CALL_TIMEOUT) for _ in range(2)]
    for call in calls:
        assert next(call).tag == 1  # both hold their place
    for call in calls:
        call.cancel()
    release.set()
    deadline = time.monotonic() + 10
    while True:
        try:
            (answer,) = list(srv.stub.Session(iter([request]), timeout=CALL_TIMEOUT))
            break
        except grpc.RpcError as error:  # the server may not have seen the cancels yet
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert answer.WhichOneof("response") == "initial_state"


def test_an_idle_session_expires_and_gives_its_place_back() -> None:
    """A Session stream that sends nothing after its answer ends, once the server's idle
    time has passed (here 0.5 s), with DEADLINE_EXCEEDED of reason "session-idle" whose
    message, the output under test too, says how long and names the flag; its place is
    then free: with a cap of one, a new session is answered."""
    with running_server(max_sessions=1, session_idle_seconds=0.5) as server:
        ttt = server.load("tictactoe")
        request = pb.SessionRequest(tag=1, initial_state=pb.InitialStateRequest(
            game_id=ttt.game_id))
        release = threading.Event()

        def requests() -> Iterator[pb.SessionRequest]:
            yield request
            release.wait(CALL_TIMEOUT)  # the client keeps the stream open, and idle

        idle = server.stub.Session(requests(), timeout=CALL_TIMEOUT)
        try:
            assert next(idle).tag == 1
            with pytest.raises(grpc.RpcError) as caught:
                next(idle)
            error: Any = caught.value
            assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, error.details()
            detail = error_detail_of(error)
            assert detail is not None and detail.reason == "session-idle"
            assert "idle for 0.5 s (serve --session-idle-seconds)" in error.details()
            (answer,) = list(server.stub.Session(iter([request]), timeout=CALL_TIMEOUT))
            assert answer.WhichOneof("response") == "initial_state"
        finally:
            release.set()
            idle.cancel()
