"""Bad input to the gRPC service: every status code, with a message a person can act on.

Which error a call met is read from its status's ErrorDetail (kind, reason, line, column,
bound, role, move id...) or from the client library's errors rebuilt from it, never from
the message. Where a test's point is also what the message tells a person (what grpcurl and
the Node client show: the field, the count, the allowed range), its docstring says that the
message is the output under test, and it checks that wording besides the fields.

After each bad input the module's server must still answer a good request and must still
hold every game it had (checked after every test that uses it). Servers with special settings
(message size, grounding limits, one worker) are started by the tests that need them.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from client import ReasonerClient, RemoteError, State
from client.errors import error_from_rpc
from reasoner import errors
from reasoner.engine.limits import Limits
from reasoner.engine.overrun import explain_overrun
from reasoner.error_codes import ERROR_CODES, RequestError, error_code
from reasoner.errors import (
    GdlError,
    GdlSyntaxError,
    GdlValidationError,
    IllegalMoveError,
    InvalidStateError,
    NoLegalMoveError,
    ReasonerError,
    ResourceLimitError,
    UnknownGameError,
)
from reasoner.server.service import MAX_NEXT_JOINT_MOVES
from reasoner.server.status import abort
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import (
    CALL_TIMEOUT,
    Server,
    expect_detail,
    expect_error,
    failed_call,
    game_text,
    move_of,
    remote_info,
    running_server,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
GAMES_HELD = ("tictactoe", "nim", "rps")
METHODS = ("LoadGame", "GetGame", "InitialState", "Query", "Next", "Expand", "Simulate",
           "Translate")

MALFORMED = "(role robot)\n(init (cell 1)\n(legal robot go)\n"
UNSAFE = "(role robot)\n(q a)\n  (<= (p ?x) (q a))\n"
# Every combination of five numbers 0..59 is a fluent: 60**5 ground atoms.
EXPLODING = ("(role a) " + " ".join(f"(n {i})" for i in range(60))
             + " (init s) (legal a go) terminal (goal a 0)"
             + " (<= (next (big ?a ?b ?c ?d ?e)) (true s) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e))")
# Three roles with 50 moves each: 125,000 joint moves, more than Expand returns.
WIDE = ("(role a) (role b) (role c) " + " ".join(f"(n {i})" for i in range(50))
        + " (<= (legal ?r (m ?x)) (role ?r) (n ?x)) (init s) (<= (next s) (true s))"
        + " (<= terminal (true t)) (<= (goal ?r 0) (role ?r))")
# GDL-II with a percept for a role the game does not declare.
SEES_GHOST = "(role a) (<= (sees b x) (true y)) (init y)"
# Not terminal, and the only role never has a legal move.
STUCK = "(role a) (init s) (<= (legal a go) (true t)) (<= terminal (true t)) (goal a 0)"


@pytest.fixture(scope="module")
def module_server() -> Iterator[tuple[Server, dict[str, pb.InitialStateResponse]]]:
    """The module's server with three games loaded, and their initial states as answered
    before any bad input."""
    with running_server() as server:
        held = {}
        for name in GAMES_HELD:
            game_id = server.load(name).game_id
            held[game_id] = server.stub.InitialState(
                pb.InitialStateRequest(game_id=game_id), timeout=CALL_TIMEOUT)
        yield server, held


@pytest.fixture
def srv(module_server: tuple[Server, dict[str, pb.InitialStateResponse]]) -> Iterator[Server]:
    """The module's server; after the test, it must still answer good requests and hold
    every game it held before."""
    server, held = module_server
    yield server
    assert set(held) <= set(server.registry.ids())
    for game_id, expected in held.items():
        answer = server.stub.InitialState(pb.InitialStateRequest(game_id=game_id),
                                          timeout=CALL_TIMEOUT)
        assert answer == expected


@pytest.fixture
def ttt(srv: Server) -> pb.GameInfo:
    """Tic-tac-toe's tables on the module's server."""
    return srv.load("tictactoe")


def initial_state(srv: Server, game: pb.GameInfo) -> pb.State:
    response = srv.stub.InitialState(pb.InitialStateRequest(game_id=game.game_id),
                                     timeout=CALL_TIMEOUT)
    state: pb.State = response.state
    return state


def assert_answers(server: Server, game: pb.GameInfo) -> None:
    """The server answers a good Query about a game it holds."""
    response = server.stub.Query(pb.QueryRequest(
        game_id=game.game_id, state=initial_state(server, game)), timeout=CALL_TIMEOUT)
    assert response.info.terminal is False
    assert len(response.info.legal) == len(game.roles)


# -- malformed messages --------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_garbage_bytes_are_invalid_argument(srv: Server, method: str) -> None:
    """Bytes that are no protobuf message get INVALID_ARGUMENT, a request error of reason
    "malformed-message"; the message, the output under test too, names the request type
    and the size."""
    detail = expect_detail(INVALID, srv.raw(method), b"\xff\xff\xff\xff garbage")
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "malformed-message")
    assert detail.message.startswith(
        f"malformed reasoner.v1.{method}Request message (12 bytes)")


@pytest.mark.parametrize("cut", [1, 10, 40])
def test_truncated_message_is_invalid_argument(srv: Server, ttt: pb.GameInfo,
                                               cut: int) -> None:
    """A Query message cut short gets INVALID_ARGUMENT of reason "malformed-message"; the
    message, the output under test too, names the type and the size and passes on
    protobuf's word for the defect."""
    whole = pb.QueryRequest(game_id=ttt.game_id,
                            state=initial_state(srv, ttt)).SerializeToString()
    assert len(whole) == 80
    detail = expect_detail(INVALID, srv.raw("Query"), whole[:-cut])
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "malformed-message")
    assert detail.message.startswith(
        f"malformed reasoner.v1.QueryRequest message ({80 - cut} bytes)")
    assert "corrupt" in detail.message


def test_string_field_with_bad_utf8_is_invalid_argument(srv: Server) -> None:
    """A LoadGame whose gdl field is not UTF-8 gets INVALID_ARGUMENT of reason
    "malformed-message"; the message, the output under test too, says that the defect is
    the UTF-8 (protobuf's word)."""
    detail = expect_detail(INVALID, srv.raw("LoadGame"), b"\x0a\x02\xff\xfe")
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "malformed-message")
    assert detail.message.startswith("malformed reasoner.v1.LoadGameRequest message (4 bytes)")
    assert "bad UTF-8" in detail.message


def test_whole_raw_message_is_answered(srv: Server, ttt: pb.GameInfo) -> None:
    """The same raw channel sending the whole message gets a proper answer (the control
    case of the two tests above)."""
    whole = pb.QueryRequest(game_id=ttt.game_id, state=initial_state(srv, ttt))
    raw = srv.raw("Query")(whole.SerializeToString(), timeout=CALL_TIMEOUT)
    legal, terminal, _ = remote_info(pb.QueryResponse.FromString(raw).info)
    assert (len(legal[0]), legal[1], terminal) == (9, [move_of(ttt, "oplayer", "noop")], False)


# -- states and joint moves ------------------------------------------------------------------


def _bad_state_requests(game_id: str) -> dict[str, tuple[str, object]]:
    bad = pb.State(fluents=[2, 29, 1000])
    return {
        "Query": ("Query", pb.QueryRequest(game_id=game_id, state=bad)),
        "Next": ("Next", pb.NextRequest(game_id=game_id, state=bad,
                                        joint_moves=[pb.JointMove(moves=[11, 0])])),
        "Expand": ("Expand", pb.ExpandRequest(game_id=game_id, state=bad)),
        "Simulate": ("Simulate", pb.SimulateRequest(game_id=game_id, state=bad, playouts=1)),
    }


@pytest.mark.parametrize("method", ["Query", "Next", "Expand", "Simulate"])
def test_state_with_unknown_fluent_id_is_invalid_argument(srv: Server, ttt: pb.GameInfo,
                                                          method: str) -> None:
    """A state naming a fluent id outside the 29-entry table gets INVALID_ARGUMENT, an
    invalid state of reason "unknown-fluent"; the message, the output under test too, names
    the field and the id."""
    name, request = _bad_state_requests(ttt.game_id)[method]
    code, message, detail = failed_call(getattr(srv.stub, name), request)
    assert code == INVALID
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "unknown-fluent")
    assert message == (f"InvalidStateError: malformed state in {method}Request.state: fluent "
                       "id 29 is not in the fluent table")


@pytest.mark.parametrize(("method", "request_"), [
    ("Query", pb.QueryRequest()),
    ("Next", pb.NextRequest(joint_moves=[pb.JointMove(moves=[0, 9])])),
    ("Expand", pb.ExpandRequest()),
])
def test_a_request_without_its_state_is_invalid_argument(srv: Server, ttt: pb.GameInfo,
                                                         method: str, request_: Any) -> None:
    """Query, Next and Expand without a state (a misspelt field, which proto loaders drop
    silently) get INVALID_ARGUMENT of reason "missing-state", never the answer of an empty
    state; the message, the output under test too, names the missing field."""
    request_.game_id = ttt.game_id
    detail = expect_detail(INVALID, getattr(srv.stub, method), request_)
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "missing-state")
    alternative = " (or states)" if method == "Query" else ""
    assert detail.message == (f"{method}Request.state is missing{alternative}: "
                              "a state is required")


def test_query_over_many_states_answers_each_in_order(srv: Server, ttt: pb.GameInfo) -> None:
    """Query with `states` answers each state in `infos`, in order, as one Query each
    would; a malformed one is refused ("unknown-fluent", the message naming its index), and
    both fields at once are refused ("conflicting-fields")."""
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                    timeout=CALL_TIMEOUT)
    after = srv.stub.Next(pb.NextRequest(game_id=ttt.game_id, state=initial.state,
                                         joint_moves=[pb.JointMove(moves=[
                                             move_of(ttt, "xplayer", "(mark 1 1)"),
                                             move_of(ttt, "oplayer", "noop")])]),
                          timeout=CALL_TIMEOUT).successors[0].state
    states = [initial.state, after, initial.state]
    batch = srv.stub.Query(pb.QueryRequest(game_id=ttt.game_id, states=states),
                           timeout=CALL_TIMEOUT)
    one_by_one = [srv.stub.Query(pb.QueryRequest(game_id=ttt.game_id, state=s),
                                 timeout=CALL_TIMEOUT).info for s in states]
    assert list(batch.infos) == one_by_one and not batch.HasField("info")
    detail = expect_detail(INVALID, srv.stub.Query, pb.QueryRequest(
        game_id=ttt.game_id, states=[initial.state, pb.State(fluents=[29])]))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "unknown-fluent")
    assert detail.message.startswith("malformed state in QueryRequest.states[1]")
    detail = expect_detail(INVALID, srv.stub.Query, pb.QueryRequest(
        game_id=ttt.game_id, state=initial.state, states=[initial.state]))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "conflicting-fields")


@pytest.mark.parametrize(("method", "request_"), [
    ("Simulate", pb.SimulateRequest(playouts=1)),
    ("RelaxedLayers", pb.RelaxedLayersRequest()),
])
def test_a_start_must_be_named_where_the_initial_state_may_be_asked(
        srv: Server, ttt: pb.GameInfo, method: str, request_: Any) -> None:
    """Simulate and RelaxedLayers need a state or from_initial: neither is INVALID_ARGUMENT
    of reason "missing-state" (the message, the output under test too, naming both fields),
    and both at once is refused too ("conflicting-fields")."""
    request_.game_id = ttt.game_id
    detail = expect_detail(INVALID, getattr(srv.stub, method), request_)
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "missing-state")
    assert detail.message == (f"{method}Request.state is missing (or from_initial): a state "
                              "is required")
    request_.from_initial = True
    request_.state.SetInParent()
    detail = expect_detail(INVALID, getattr(srv.stub, method), request_)
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "conflicting-fields")


def test_evaluate_without_states_is_invalid_argument(srv: Server, ttt: pb.GameInfo) -> None:
    """Evaluate with an empty list of states gets INVALID_ARGUMENT, an invalid state of
    reason "missing-state"."""
    detail = expect_detail(INVALID, srv.stub.Evaluate, pb.EvaluateRequest(
        game_id=ttt.game_id, role="xplayer", heuristic="hff"))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "missing-state")


def test_list_games_names_what_the_server_holds(srv: Server, ttt: pb.GameInfo) -> None:
    """ListGames lists every loaded game with its roles, sizes and backend, and listing
    changes nothing."""
    before = srv.registry.ids()
    listed = srv.stub.ListGames(pb.ListGamesRequest(), timeout=CALL_TIMEOUT).games
    assert [g.game_id for g in listed] == before == srv.registry.ids()
    (summary,) = [g for g in listed if g.game_id == ttt.game_id]
    assert (list(summary.roles), summary.fluents, summary.moves, summary.backend) == (
        ["xplayer", "oplayer"], 29, 20, "native")


def test_lookup_moves_reads_texts_in_any_layout(srv: Server, ttt: pb.GameInfo) -> None:
    """LookupMoves gives the id of each text, read as a GDL term (spacing and case are
    free), in order, matching the game's move table."""
    found = srv.stub.LookupMoves(pb.LookupMovesRequest(
        game_id=ttt.game_id, role="xplayer", texts=["( MARK 1   1 )", "noop", "(mark 3 3)"]),
        timeout=CALL_TIMEOUT).move_ids
    table = {(ttt.roles[m.role], m.text): i for i, m in enumerate(ttt.moves)}
    assert list(found) == [table["xplayer", "(mark 1 1)"], table["xplayer", "noop"],
                           table["xplayer", "(mark 3 3)"]]


@pytest.mark.parametrize(("role", "text", "expected"), [
    ("xplayer", "(mark 4 4)", pb.ErrorDetail(kind=pb.ERROR_KIND_ILLEGAL_MOVE, role="xplayer",
                                             reason="never-legal")),
    ("nobody", "noop", pb.ErrorDetail(kind=pb.ERROR_KIND_ILLEGAL_MOVE, role="nobody",
                                      reason="unknown-role")),
    ("xplayer", "(mark 1", pb.ErrorDetail(kind=pb.ERROR_KIND_ILLEGAL_MOVE, role="xplayer",
                                          reason="malformed")),
])
def test_lookup_moves_names_what_is_no_move(srv: Server, ttt: pb.GameInfo, role: str,
                                            text: str, expected: pb.ErrorDetail) -> None:
    """A text that is no move of the role, an unknown role and a malformed text get
    INVALID_ARGUMENT whose ErrorDetail says which (kind, reason, role or position)."""
    detail = expect_detail(INVALID, srv.stub.LookupMoves, pb.LookupMovesRequest(
        game_id=ttt.game_id, role=role, texts=["noop", text]))
    detail.ClearField("message")
    assert detail == expected


@pytest.mark.parametrize("joint", [["(mark 1 1)"], ["(mark 1 1)", "noop", "noop"], []])
def test_joint_move_of_wrong_length_is_invalid_argument(srv: Server, ttt: pb.GameInfo,
                                                        joint: list[str]) -> None:
    """A joint move with a role missing or doubled gets INVALID_ARGUMENT, an illegal move
    of reason "joint-move" naming no role or move; the message, the output under test too,
    gives the count."""
    roles = ["xplayer", "oplayer", "oplayer"]
    ids = [move_of(ttt, role, text) for role, text in zip(roles, joint, strict=False)]
    detail = expect_detail(INVALID, srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt),
        joint_moves=[pb.JointMove(moves=ids)]))
    assert detail == pb.ErrorDetail(
        kind=pb.ERROR_KIND_ILLEGAL_MOVE, reason="joint-move",
        message=f"a joint move needs one move per role (2), got {len(joint)}")


def test_move_of_another_role_is_invalid_argument(srv: Server, ttt: pb.GameInfo) -> None:
    """Joint moves in the wrong role order (oplayer's move first) get INVALID_ARGUMENT, an
    illegal move of reason "unknown-move" naming the first role and the move id."""
    x_mark = move_of(ttt, "xplayer", "(mark 1 1)")
    o_noop = move_of(ttt, "oplayer", "noop")
    detail = expect_detail(INVALID, srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt),
        joint_moves=[pb.JointMove(moves=[o_noop, x_mark])]))
    assert (detail.kind, detail.reason, detail.role, detail.move_id) == (
        pb.ERROR_KIND_ILLEGAL_MOVE, "unknown-move", "xplayer", o_noop)


def test_move_id_outside_the_table_is_invalid_argument(srv: Server, ttt: pb.GameInfo) -> None:
    """A move id beyond the 20-entry move table gets INVALID_ARGUMENT, an illegal move of
    reason "unknown-move" naming the role and the id."""
    x_mark = move_of(ttt, "xplayer", "(mark 1 1)")
    detail = expect_detail(INVALID, srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt),
        joint_moves=[pb.JointMove(moves=[x_mark, 20])]))
    assert (detail.kind, detail.reason, detail.role, detail.move_id) == (
        pb.ERROR_KIND_ILLEGAL_MOVE, "unknown-move", "oplayer", 20)


def test_illegal_move_is_invalid_argument_by_default(srv: Server, ttt: pb.GameInfo) -> None:
    """An illegal move gets INVALID_ARGUMENT ("not-legal", with role and move id) when
    check_legal is not set (it defaults to true), also when it is the second joint move of
    a batch."""
    noop_x = move_of(ttt, "xplayer", "noop")
    noop_o = move_of(ttt, "oplayer", "noop")
    legal = [move_of(ttt, "xplayer", "(mark 1 1)"), noop_o]
    request = pb.NextRequest(game_id=ttt.game_id, state=initial_state(srv, ttt),
                             joint_moves=[pb.JointMove(moves=legal),
                                          pb.JointMove(moves=[noop_x, noop_o])])
    assert not request.HasField("check_legal")
    detail = expect_detail(INVALID, srv.stub.Next, request)
    assert (detail.kind, detail.reason, detail.role, detail.move_id) == (
        pb.ERROR_KIND_ILLEGAL_MOVE, "not-legal", "xplayer", noop_x)


def test_move_of_the_role_not_on_turn_is_invalid_argument(srv: Server,
                                                          ttt: pb.GameInfo) -> None:
    """oplayer marking a cell on xplayer's turn gets INVALID_ARGUMENT ("not-legal") naming
    oplayer and its move."""
    o_mark = move_of(ttt, "oplayer", "(mark 2 2)")
    detail = expect_detail(INVALID, srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt),
        joint_moves=[pb.JointMove(moves=[move_of(ttt, "xplayer", "(mark 1 1)"), o_mark])]))
    assert (detail.kind, detail.reason, detail.role, detail.move_id) == (
        pb.ERROR_KIND_ILLEGAL_MOVE, "not-legal", "oplayer", o_mark)


# -- unknown games ---------------------------------------------------------------------------


UNKNOWN_ID = "0" * 64


@pytest.mark.parametrize(("method", "request_"), [
    ("GetGame", pb.GetGameRequest(game_id=UNKNOWN_ID)),
    ("InitialState", pb.InitialStateRequest(game_id=UNKNOWN_ID)),
    ("Query", pb.QueryRequest(game_id=UNKNOWN_ID)),
    ("Next", pb.NextRequest(game_id=UNKNOWN_ID, joint_moves=[pb.JointMove(moves=[0, 1])])),
    ("Expand", pb.ExpandRequest(game_id=UNKNOWN_ID)),
    ("Simulate", pb.SimulateRequest(from_initial=True, game_id=UNKNOWN_ID, playouts=1)),
])
def test_unknown_game_id_is_not_found(srv: Server, method: str, request_: object) -> None:
    """A game id that is not loaded gets NOT_FOUND, an unknown game of reason "unknown-id";
    the message, the output under test too, tells to load it with LoadGame."""
    detail = expect_detail(grpc.StatusCode.NOT_FOUND, getattr(srv.stub, method), request_)
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_UNKNOWN_GAME, "unknown-id")
    assert detail.message == ("game 0000000000000000... is not loaded on this server; load "
                              "it with LoadGame (games are evicted when the cache is full)")


def test_empty_game_id_is_not_found(srv: Server) -> None:
    """An empty game id gets NOT_FOUND ("unknown-id"); the message, the output under test
    too, says that the id is empty."""
    detail = expect_detail(grpc.StatusCode.NOT_FOUND, srv.stub.GetGame, pb.GetGameRequest())
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_UNKNOWN_GAME, "unknown-id")
    assert detail.message.startswith("game (empty id)")


# -- GDL -------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["LoadGame", "Translate"])
def test_gdl_that_does_not_parse_gives_line_and_column(srv: Server, method: str) -> None:
    """GDL with an unclosed parenthesis gets INVALID_ARGUMENT, a syntax error of reason
    "unclosed" at line 2, column 1."""
    request_class = getattr(pb, f"{method}Request")
    detail = expect_detail(INVALID, getattr(srv.stub, method), request_class(gdl=MALFORMED))
    assert (detail.kind, detail.reason, detail.line, detail.column) == (
        pb.ERROR_KIND_GDL_SYNTAX, "unclosed", 2, 1)


def test_invalid_gdl_names_the_rule(srv: Server) -> None:
    """An unsafe rule gets INVALID_ARGUMENT ("unsafe-head") with its line and column; the
    message, the output under test too, quotes the rule."""
    code, message, detail = failed_call(srv.stub.LoadGame, pb.LoadGameRequest(gdl=UNSAFE))
    assert code == INVALID
    assert (detail.kind, detail.reason, detail.line, detail.column) == (
        pb.ERROR_KIND_GDL_VALIDATION, "unsafe-head", 3, 3)
    assert message.startswith("GdlValidationError: line 3, column 3: unsafe rule: ")
    assert message.endswith("(<= (p ?x) (q a))")


def test_sees_for_an_undeclared_role_is_invalid_argument(srv: Server) -> None:
    """A GDL-II percept for a role the game does not declare gets INVALID_ARGUMENT, a
    validation error of reason "sees-role", with the rule's position."""
    detail = expect_detail(INVALID, srv.stub.LoadGame, pb.LoadGameRequest(gdl=SEES_GHOST))
    assert (detail.kind, detail.reason, detail.line, detail.column) == (
        pb.ERROR_KIND_GDL_VALIDATION, "sees-role", 1, 10)


def test_control_character_is_invalid_argument(srv: Server) -> None:
    """A NUL character in the text gets INVALID_ARGUMENT ("control-character") with its line
    and column."""
    detail = expect_detail(INVALID, srv.stub.LoadGame,
                           pb.LoadGameRequest(gdl="(role a)\x00 (init s)"))
    assert (detail.kind, detail.reason, detail.line, detail.column) == (
        pb.ERROR_KIND_GDL_SYNTAX, "control-character", 1, 9)


def test_game_without_roles_is_invalid_argument(srv: Server) -> None:
    """An empty text is no game: INVALID_ARGUMENT, a validation error of reason "no-role"."""
    detail = expect_detail(INVALID, srv.stub.LoadGame, pb.LoadGameRequest(gdl=""))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_GDL_VALIDATION, "no-role")


# -- Simulate and Expand arguments -----------------------------------------------------------


@pytest.mark.parametrize("playouts", [0, 1_000_001])
def test_playouts_out_of_range_is_invalid_argument(srv: Server, ttt: pb.GameInfo,
                                                   playouts: int) -> None:
    """playouts=0 (or over the maximum) gets INVALID_ARGUMENT, a request error of reason
    "playout-count"; the message, the output under test too, gives the allowed range."""
    detail = expect_detail(INVALID, srv.stub.Simulate,
                           pb.SimulateRequest(
                               from_initial=True, game_id=ttt.game_id, playouts=playouts))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "playout-count")
    assert detail.message == f"playouts must be between 1 and 1000000, got {playouts}"


def test_max_steps_past_the_server_s_cap_is_resource_exhausted(srv: Server,
                                                               ttt: pb.GameInfo) -> None:
    """max_steps over 100,000 is refused before any playout, a size bound of reason
    "max-steps": a game that never ends would otherwise play for as long as the client
    waits."""
    detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, srv.stub.Simulate,
                           pb.SimulateRequest(from_initial=True, game_id=ttt.game_id, playouts=1,
                                              max_steps=4_000_000_000))
    assert (detail.kind, detail.bound, detail.reason) == (
        pb.ERROR_KIND_RESOURCE_LIMIT, "size", "max-steps")


def test_trajectories_that_could_not_be_sent_are_refused_before_the_work(
        srv: Server, ttt: pb.GameInfo) -> None:
    """A million recorded playouts of up to 1,000 steps could not fit an answer: refused at
    once with RESOURCE_EXHAUSTED (a size bound, "answer-size"), not after a minute of play;
    the message, the output under test too, says what to ask instead."""
    started = time.monotonic()
    detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, srv.stub.Simulate,
                           pb.SimulateRequest(
                               from_initial=True, game_id=ttt.game_id, playouts=1_000_000,
                                              record_trajectories=True))
    assert time.monotonic() - started < 2
    assert (detail.kind, detail.bound, detail.reason) == (
        pb.ERROR_KIND_RESOURCE_LIMIT, "size", "answer-size")
    assert detail.message.startswith("trajectories of 1,000,000 playouts of up "
                                     "to 1,000 steps could take 3,815 MiB, more than the 16 MiB")
    assert detail.message.endswith("ask fewer playouts or steps, or no trajectories")


def test_simulate_without_legal_move_is_failed_precondition(srv: Server) -> None:
    """A playout reaching a non-terminal state where a role has no legal move gets
    FAILED_PRECONDITION naming the role; the message, the output under test too, says after
    how many steps."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=STUCK), timeout=CALL_TIMEOUT).game
    detail = expect_detail(grpc.StatusCode.FAILED_PRECONDITION, srv.stub.Simulate,
                           pb.SimulateRequest(from_initial=True, game_id=game.game_id, playouts=1))
    assert (detail.kind, detail.role) == (pb.ERROR_KIND_NO_LEGAL_MOVE, "a")
    assert detail.message == "role a has no legal move in a non-terminal state after 0 steps"


def test_expand_with_too_many_children_is_resource_exhausted(srv: Server) -> None:
    """Expand of a state with 125,000 joint moves gets RESOURCE_EXHAUSTED, a size bound of
    reason "children"; the message, the output under test too, names the count, the
    maximum and the alternative."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=WIDE), timeout=CALL_TIMEOUT).game
    detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, srv.stub.Expand,
                           pb.ExpandRequest(game_id=game.game_id,
                                            state=initial_state(srv, game)))
    assert (detail.kind, detail.bound, detail.reason) == (
        pb.ERROR_KIND_RESOURCE_LIMIT, "size", "children")
    assert detail.message == ("the state has 125,000 joint moves; Expand returns at most "
                              "100,000 (use Query and Next)")


# -- limits of servers with special settings -------------------------------------------------


def test_request_over_the_size_limit_is_resource_exhausted() -> None:
    """A 2 MB LoadGame to a server with max_message_mb=1 gets RESOURCE_EXHAUSTED giving both
    sizes, and the server goes on serving. The status is gRPC's own, with no ErrorDetail:
    its message is all there is to read, and is the output under test."""
    with running_server(max_message_mb=1) as server:
        game = server.load("tictactoe")
        text = game_text("nim") + "\n" + "; padding\n" * 200_000
        assert len(text.encode()) > 2_000_000
        details = expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.LoadGame,
                               pb.LoadGameRequest(gdl=text))
        assert "larger than max" in details
        assert "vs. 1048576" in details
        assert server.registry.ids() == [game.game_id]
        assert_answers(server, game)


# 90,000 ground rules of pairs: an instantiated game of about 2.5 MB of GDL.
PAIRS = ("(role a) (init s) (legal a go) (<= (next s) (true s)) (goal a 0) "
         + " ".join(f"(n {i})" for i in range(300))
         + " (<= (pair ?x ?y) (true s) (n ?x) (n ?y)) (<= terminal (pair 7 ?y) (not (pair ?y 7)))")


def test_instantiated_game_over_the_answer_size_is_resource_exhausted() -> None:
    """Instantiate of a game whose ground text is larger than a message may be (2.5 MB to a
    server with max_message_mb=1) gets RESOURCE_EXHAUSTED of reason "answer-size", naming
    the rules, the bound and the command that writes the game to a file; the server goes
    on answering the game."""
    limits = Limits(seconds=60, memory_mb=4096, start_method="forkserver")
    with running_server(max_message_mb=1, limits=limits) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(gdl=PAIRS), timeout=60).game
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Instantiate,
                               pb.InstantiateRequest(game_id=game.game_id))
        assert (detail.bound, detail.reason) == ("size", "answer-size")
        assert detail.message == (
            "the instantiated game (90,301 rules) takes more than an answer may (1 MiB, "
            "serve --max-message-mb); gdl-reasoner ground writes it to a file")
        assert server.registry.ids() == [game.game_id]
        assert server.stub.GetGame(pb.GetGameRequest(game_id=game.game_id)).game.roles == ["a"]


@pytest.mark.slow  # grounds to the time bound: about 4 s
def test_exploding_grounding_is_resource_exhausted() -> None:
    """A game whose grounding explodes gets RESOURCE_EXHAUSTED, the bounded work's ("work")
    time bound, naming the relation that grew; the server then loads and answers other
    games, and keeps the one it had."""
    limits = Limits(seconds=2, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits) as server:
        held = server.load("nim")
        started = time.monotonic()
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.LoadGame,
                               pb.LoadGameRequest(gdl=EXPLODING))
        assert time.monotonic() - started < 15
        assert (detail.kind, detail.bound, detail.reason, detail.relation) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "time", "work", "next/1")
        assert server.registry.ids() == [held.game_id]
        assert_answers(server, held)
        assert_answers(server, server.load("tictactoe"))


@pytest.mark.slow  # grounds to the time bound: about 4 s
def test_server_answers_while_a_grounding_explodes() -> None:
    """While one LoadGame grounds a game that explodes, the server answers other requests
    at once (the grounding runs in a bounded child process)."""
    limits = Limits(seconds=2, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits) as server:
        held = server.load("nim")
        exploding = server.stub.LoadGame.future(pb.LoadGameRequest(gdl=EXPLODING),
                                                timeout=CALL_TIMEOUT)
        time.sleep(0.5)
        assert not exploding.done()
        started = time.monotonic()
        assert_answers(server, held)
        assert time.monotonic() - started < 1
        with pytest.raises(grpc.RpcError) as caught:
            exploding.result()
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.slow  # about 1 s
def test_load_past_its_deadline_stops_grounding() -> None:
    """A LoadGame whose deadline is shorter than the grounding bound ends at the deadline:
    the client gets DEADLINE_EXCEEDED and the server's only worker is free again at once."""
    limits = Limits(seconds=60, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits, workers=1) as server:
        held = server.load("nim")
        expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, server.stub.LoadGame,
                     pb.LoadGameRequest(gdl=EXPLODING), timeout=1.0)  # gRPC's own status
        started = time.monotonic()
        assert_answers(server, held)
        assert time.monotonic() - started < 5


@pytest.mark.slow  # about 3 s
def test_a_call_past_the_concurrency_cap_is_refused_at_once() -> None:
    """With one call allowed at a time, a second call while a long Simulate runs is refused
    at once with RESOURCE_EXHAUSTED instead of queueing behind it; the first still ends (at
    its deadline: connect four on clingo plays far fewer than a million playouts in 3 s)."""
    with running_server(workers=1, max_concurrent_rpcs=1) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=game_text("connectfour"), options=pb.LoadOptions(backend="clingo")),
            timeout=CALL_TIMEOUT).game
        long = server.stub.Simulate.future(
            pb.SimulateRequest(
                from_initial=True, game_id=game.game_id, playouts=1_000_000, seed=1), timeout=3.0)
        time.sleep(0.5)
        started = time.monotonic()
        expect_error(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.GetGame,
                     pb.GetGameRequest(game_id=game.game_id))
        assert time.monotonic() - started < 1
        with pytest.raises(grpc.RpcError) as caught:
            long.result()
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


@pytest.mark.slow  # about 1.6 s
def test_a_cancelled_load_stops_its_grounding_at_once() -> None:
    """A client that cancels the LoadGame of an exploding game frees the server's only
    thread at once: the grounding child is killed when the cancellation is seen, not at
    the 60 s load bound."""
    limits = Limits(seconds=60, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits, workers=1) as server:
        held = server.load("nim")
        call = server.stub.LoadGame.future(pb.LoadGameRequest(gdl=EXPLODING), timeout=120)
        time.sleep(1.0)
        call.cancel()
        started = time.monotonic()
        assert_answers(server, held)
        assert time.monotonic() - started < 3


def test_simulate_past_its_deadline_is_deadline_exceeded() -> None:
    """1,000,000 connect-four playouts with a 0.5 s deadline end in DEADLINE_EXCEEDED after
    about 0.5 s, and the server (one worker thread) answers the next request at once: it
    gave up the playouts."""
    with running_server(workers=1) as server:
        game = server.load("connectfour")
        started = time.monotonic()
        expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, server.stub.Simulate,
                     pb.SimulateRequest(
                         from_initial=True, game_id=game.game_id, playouts=1_000_000, seed=1),
                     timeout=0.5)
        assert time.monotonic() - started < 2
        started = time.monotonic()
        assert_answers(server, game)
        assert time.monotonic() - started < 2
        response = server.stub.Simulate(pb.SimulateRequest(
                                            from_initial=True, game_id=game.game_id, playouts=2,
                                                           seed=1), timeout=CALL_TIMEOUT)
        assert [p.terminal for p in response.playouts] == [True, True]


# -- errors through the client library -------------------------------------------------------


@pytest.fixture
def client(srv: Server) -> Iterator[ReasonerClient]:
    """A ReasonerClient to the module's server."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as reasoner:
        yield reasoner


def test_client_unknown_game_error(client: ReasonerClient) -> None:
    """An unknown game id arrives as UnknownGameError (a LookupError) of reason
    "unknown-id"."""
    with pytest.raises(UnknownGameError) as caught:
        client.call("GetGame", pb.GetGameRequest(game_id=UNKNOWN_ID))
    assert isinstance(caught.value, LookupError)
    assert caught.value.reason == "unknown-id"


def test_client_illegal_move_error(client: ReasonerClient) -> None:
    """An illegal move arrives as IllegalMoveError naming the move and the role."""
    game = client.load_game(game_text("tictactoe"))
    state = game.initial_state()
    noop = (game.move_id("xplayer", "noop"), game.move_id("oplayer", "noop"))
    with pytest.raises(IllegalMoveError) as caught:
        game.step(state, noop)
    assert (caught.value.role, caught.value.move_id) == ("xplayer", noop[0])


def test_client_wrong_length_joint_move_is_illegal_move_error(client: ReasonerClient) -> None:
    """A joint move with a role missing arrives as IllegalMoveError of reason "joint-move",
    naming no role or move."""
    game = client.load_game(game_text("rps"))
    with pytest.raises(IllegalMoveError) as caught:
        game.step(game.initial_state(), (game.move_id("p1", "rock"),))
    assert (caught.value.role, caught.value.move_id) == (None, None)
    assert caught.value.reason == "joint-move"


def test_client_invalid_state_error(client: ReasonerClient) -> None:
    """A state with a fluent id outside the table arrives as InvalidStateError (of that
    class exactly) of reason "unknown-fluent"."""
    game = client.load_game(game_text("tictactoe"))
    with pytest.raises(InvalidStateError) as caught:
        game.info(State(1 | 1 << 999, game.fluents))
    assert type(caught.value) is InvalidStateError
    assert caught.value.reason == "unknown-fluent"


def test_client_gdl_error(client: ReasonerClient) -> None:
    """GDL that does not parse arrives as GdlError (GdlSyntaxError) with line and column."""
    with pytest.raises(GdlError) as caught:
        client.load_game(MALFORMED)
    assert type(caught.value) is GdlSyntaxError
    assert (caught.value.line, caught.value.column) == (2, 1)


def test_client_invalid_gdl_ii_is_gdl_error(client: ReasonerClient) -> None:
    """An invalid GDL-II game arrives as the GdlError of a validation error, at the rule's
    position."""
    with pytest.raises(GdlError) as caught:
        client.load_game(SEES_GHOST)
    assert type(caught.value) is GdlValidationError
    assert (caught.value.line, caught.value.column) == (1, 10)


def test_client_gdl_error_keeps_position(client: ReasonerClient) -> None:
    """The GdlError a client raises has the line and column attributes of the server's."""
    with pytest.raises(GdlError) as caught:
        client.load_game(MALFORMED)
    assert (caught.value.line, caught.value.column) == (2, 1)


def test_client_resource_limit_error(client: ReasonerClient) -> None:
    """An Expand over the children limit arrives as ResourceLimitError, a size bound of
    reason "children"."""
    game = client.load_game(WIDE)
    with pytest.raises(ResourceLimitError) as caught:
        game.expand(game.initial_state())
    assert (caught.value.bound, caught.value.relation) == ("size", None)
    assert caught.value.reason == "children"


def test_client_message_too_large_is_resource_limit_error() -> None:
    """A request over the server's size limit arrives as ResourceLimitError (gRPC's own
    status, which has no ErrorDetail: no bound is known)."""
    with running_server(max_message_mb=1) as server, \
            ReasonerClient(server.target, timeout=CALL_TIMEOUT) as reasoner:
        with pytest.raises(ResourceLimitError) as caught:
            reasoner.load_game(game_text("nim") + "; padding\n" * 200_000)
        assert (caught.value.bound, caught.value.relation) == (None, None)
        assert reasoner.load_game(game_text("nim")).roles == ("p1", "p2")


def test_client_errors_are_reasoner_errors(client: ReasonerClient) -> None:
    """Every error the client raises for bad input is a ReasonerError (one except clause)."""
    game = client.load_game(game_text("tictactoe"))
    failures: list[Callable[[], object]] = [
        lambda: client.call("GetGame", pb.GetGameRequest(game_id=UNKNOWN_ID)),
        lambda: game.info(State(1 << 999, game.fluents)),
        lambda: client.load_game(MALFORMED),
        lambda: game.simulate(playouts=0),
    ]
    caught = []
    for failure in failures:
        with pytest.raises(ReasonerError) as error:
            failure()
        caught.append(type(error.value).__name__)
    assert caught == ["UnknownGameError", "InvalidStateError", "GdlSyntaxError", "RemoteError"]


# -- the error contract: ErrorDetail in the status details -----------------------------------


def test_malformed_gdl_detail_has_kind_line_and_column(srv: Server) -> None:
    """A LoadGame of GDL that does not parse gets INVALID_ARGUMENT whose ErrorDetail says
    GDL_SYNTAX at line 2, column 1, with the message without the position and the reason
    in a word."""
    code, message, detail = failed_call(srv.stub.LoadGame, pb.LoadGameRequest(gdl=MALFORMED))
    assert code == INVALID
    assert message == "GdlSyntaxError: line 2, column 1: '(' is never closed"
    assert detail == pb.ErrorDetail(kind=pb.ERROR_KIND_GDL_SYNTAX, line=2, column=1,
                                    message="'(' is never closed", reason="unclosed")


def test_client_gdl_syntax_error_has_the_detail_fields(client: ReasonerClient) -> None:
    """The client raises GdlSyntaxError with the line, column and message of the server's
    ErrorDetail, its reason, and the same text as the engine's own error."""
    with pytest.raises(GdlSyntaxError) as caught:
        client.load_game(MALFORMED)
    error = caught.value
    assert type(error) is GdlSyntaxError
    assert (error.line, error.column, error.message) == (2, 1, "'(' is never closed")
    assert error.reason == "unclosed"
    assert str(error) == "line 2, column 1: '(' is never closed"


def test_invalid_gdl_detail_has_the_rule_position(srv: Server) -> None:
    """An unsafe rule's ErrorDetail is GDL_VALIDATION with the rule's line and column."""
    _, _, detail = failed_call(srv.stub.LoadGame, pb.LoadGameRequest(gdl=UNSAFE))
    assert (detail.kind, detail.line, detail.column) == (pb.ERROR_KIND_GDL_VALIDATION, 3, 3)


def test_illegal_move_detail_has_role_and_move_id(srv: Server, ttt: pb.GameInfo) -> None:
    """An illegal move's ErrorDetail is ILLEGAL_MOVE with the role, the move id and the
    reason ("not-legal")."""
    noop_x = move_of(ttt, "xplayer", "noop")
    code, _, detail = failed_call(srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt),
        joint_moves=[pb.JointMove(moves=[noop_x, move_of(ttt, "oplayer", "noop")])]))
    assert code == INVALID
    assert detail == pb.ErrorDetail(kind=pb.ERROR_KIND_ILLEGAL_MOVE, role="xplayer",
                                    move_id=noop_x, reason="not-legal",
                                    message="noop is not legal for xplayer in this state")


def test_client_illegal_move_error_carries_role_and_move_id(client: ReasonerClient) -> None:
    """The client's IllegalMoveError for a move of another role carries that role and the
    move id."""
    game = client.load_game(game_text("tictactoe"))
    o_noop = game.move_id("oplayer", "noop")
    with pytest.raises(IllegalMoveError) as caught:
        game.step(game.initial_state(), (o_noop, o_noop))
    assert (caught.value.role, caught.value.move_id) == ("xplayer", o_noop)


@pytest.mark.slow  # grounds to the time bound: about 4 s
def test_client_resource_limit_error_has_bound_and_relation() -> None:
    """A grounding that explodes arrives as ResourceLimitError with bound "time", reason
    "work" (the bounded child's) and the relation that grew, as the ErrorDetail says."""
    limits = Limits(seconds=2, memory_mb=4096, start_method="forkserver")
    with running_server(limits=limits) as server, \
            ReasonerClient(server.target, timeout=CALL_TIMEOUT) as reasoner, \
            pytest.raises(ResourceLimitError) as caught:
        reasoner.load_game(EXPLODING)
    error = caught.value
    assert (error.bound, error.relation, error.network, error.reason) == (
        "time", "next/1", False, "work")


def test_expand_over_its_cap_detail_is_a_size_bound(srv: Server) -> None:
    """Expand's cap on joint moves is a RESOURCE_LIMIT with bound "size" and no relation."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=WIDE), timeout=CALL_TIMEOUT).game
    _, _, detail = failed_call(srv.stub.Expand, pb.ExpandRequest(
        game_id=game.game_id, state=initial_state(srv, game)))
    assert (detail.kind, detail.bound, detail.relation) == (
        pb.ERROR_KIND_RESOURCE_LIMIT, "size", "")


def test_simulate_without_legal_move_detail_has_no_legal_move_kind(srv: Server) -> None:
    """A role without a legal move in a playout gives ErrorDetail NO_LEGAL_MOVE, and the
    client raises NoLegalMoveError."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=STUCK), timeout=CALL_TIMEOUT).game
    _, _, detail = failed_call(srv.stub.Simulate,
                                pb.SimulateRequest(
                                    from_initial=True, game_id=game.game_id, playouts=1))
    assert detail.kind == pb.ERROR_KIND_NO_LEGAL_MOVE
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as reasoner, \
            pytest.raises(NoLegalMoveError) as caught:
        reasoner.load_game(STUCK).simulate(playouts=1)
    assert caught.value.role == "a"


def test_malformed_message_detail_is_a_request_error(srv: Server) -> None:
    """Bytes that are no protobuf message get ErrorDetail kind REQUEST; the client raises
    RemoteError (a RequestError) with the status code and the reason."""
    with pytest.raises(grpc.RpcError) as caught:
        srv.raw("Query")(b"\xff\xff\xff\xff garbage", timeout=CALL_TIMEOUT)
    status = rpc_status.from_call(caught.value)
    assert status is not None
    detail = pb.ErrorDetail()
    assert status.details[0].Unpack(detail)
    assert detail.kind == pb.ERROR_KIND_REQUEST
    error = error_from_rpc(caught.value)
    assert isinstance(error, RemoteError) and isinstance(error, RequestError)
    assert (error.code, error.reason) == (INVALID, "malformed-message")


def test_every_error_class_is_in_the_table() -> None:
    """Every error class of reasoner.errors has an entry of its own in ERROR_CODES, and no
    two entries share a kind."""
    exported = [getattr(errors, name) for name in errors.__all__]
    classes = {c for c in exported if isinstance(c, type) and issubclass(c, Exception)}
    assert classes <= set(ERROR_CODES)
    kinds = [code.kind for code in ERROR_CODES.values()]
    assert len(set(kinds)) == len(kinds)
    assert pb.ERROR_KIND_UNSPECIFIED not in kinds


# An instance of every class in the table, with every field it has set.
FIELD_VALUES: dict[str, Any] = {"line": 3, "column": 14, "bound": "memory",
                                "relation": "cell/3", "network": True, "role": "white",
                                "move_id": 17}


def sample_error(cls: type[ReasonerError]) -> ReasonerError:
    if cls is RequestError:
        return RequestError(grpc.StatusCode.FAILED_PRECONDITION, "the message of a request",
                            reason="a-reason")
    return cls(f"the message of a {cls.__name__}", reason="a-reason",
               **{name: FIELD_VALUES[name] for name in cls.fields})


@pytest.fixture(scope="module")
def raising_server() -> Iterator[str]:
    """A real gRPC server on port 0 whose GetGame fails with the server's status for the
    error class named by the game id (sample_error's instance): the status path of the
    service (reasoner.server.status.abort) without a game to provoke each error with."""
    samples = {cls.__name__: sample_error(cls) for cls in ERROR_CODES}

    def get_game(request: pb.GetGameRequest, context: grpc.ServicerContext) -> None:
        abort(context, samples[request.game_id])

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "reasoner.v1.Reasoner", {"GetGame": grpc.unary_unary_rpc_method_handler(
            get_game, request_deserializer=pb.GetGameRequest.FromString)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


@pytest.mark.parametrize("cls", list(ERROR_CODES), ids=lambda cls: cls.__name__)
def test_every_error_class_round_trips_to_the_client(raising_server: str,
                                                     cls: type[ReasonerError]) -> None:
    """An error the server reports arrives at the client as the same class (RemoteError, a
    RequestError, for RequestError) with the same fields, reason and text (an INTERNAL
    one's text and reason stay on the server), under the table's status code."""
    sent = sample_error(cls)
    with ReasonerClient(raising_server, timeout=CALL_TIMEOUT) as reasoner, \
            pytest.raises(ReasonerError) as caught:
        reasoner.call("GetGame", pb.GetGameRequest(game_id=cls.__name__))
    received = caught.value
    code = error_code(sent)
    if cls is RequestError:
        assert type(received) is RemoteError
        assert isinstance(received, RequestError) and isinstance(sent, RequestError)
        assert received.code == sent.code
        assert (received.text, received.reason) == (sent.text, sent.reason)
        return
    assert type(received) is cls
    assert {name: getattr(received, name) for name in cls.fields} == {
        name: getattr(sent, name) for name in cls.fields}
    if code.internal:
        assert str(received) == f"internal error: {cls.__name__}"
        assert received.reason is None
    else:
        assert str(received) == str(sent)
        assert received.reason == sent.reason


@pytest.mark.parametrize("cls", list(ERROR_CODES), ids=lambda cls: cls.__name__)
def test_every_error_class_pickles_with_its_fields(cls: type[ReasonerError]) -> None:
    """Errors cross process boundaries (bounded children): each class pickles to the same
    class, text, fields and reason."""
    sent = sample_error(cls)
    received = pickle.loads(pickle.dumps(sent))
    assert type(received) is cls and str(received) == str(sent)
    assert received.reason == sent.reason
    assert {name: getattr(received, name) for name in cls.fields} == {
        name: getattr(sent, name) for name in cls.fields}


def test_network_refusal_is_not_explained_by_a_growth_look() -> None:
    """A ResourceLimitError that is a network's refusal (network=True) comes back from
    explain_overrun as it is: no second look at the grounding."""
    refusal = ResourceLimitError("no network: more than 10 gates", bound="size", network=True)
    limits = Limits(seconds=2, memory_mb=4096, start_method="forkserver")
    assert explain_overrun(refusal, EXPLODING, limits) is refusal


# -- Next's cap and deadline -----------------------------------------------------------------


def test_next_with_too_many_joint_moves_is_invalid_argument(srv: Server,
                                                            ttt: pb.GameInfo) -> None:
    """A Next with more joint moves than its cap gets INVALID_ARGUMENT, a request error of
    reason "too-many-joint-moves"; the message, the output under test too, names the cap
    and the count."""
    joint = pb.JointMove(moves=[move_of(ttt, "xplayer", "(mark 1 1)"),
                                move_of(ttt, "oplayer", "noop")])
    count = MAX_NEXT_JOINT_MOVES + 1
    detail = expect_detail(INVALID, srv.stub.Next, pb.NextRequest(
        game_id=ttt.game_id, state=initial_state(srv, ttt), joint_moves=[joint] * count))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "too-many-joint-moves")
    assert detail.message == (f"at most {MAX_NEXT_JOINT_MOVES:,} joint moves per request, "
                              f"got {count:,}")


def test_next_past_its_deadline_gives_up() -> None:
    """A Next of 100,000 connect-four joint moves (seconds of work) with a 0.5 s deadline
    ends in DEADLINE_EXCEEDED (gRPC's own status: the client's deadline), and the server
    (one worker thread) answers the next request at once: it gave up the batch."""
    with running_server(workers=1) as server:
        game = server.load("connectfour")
        start = initial_state(server, game)
        joint = pb.JointMove(moves=[move_of(game, "red", "(drop 1)"),
                                    move_of(game, "black", "noop")])
        expect_error(grpc.StatusCode.DEADLINE_EXCEEDED, server.stub.Next, pb.NextRequest(
            game_id=game.game_id, state=start, joint_moves=[joint] * MAX_NEXT_JOINT_MOVES),
            timeout=0.5)
        started = time.monotonic()
        assert_answers(server, game)
        assert time.monotonic() - started < 2


TWO_ARITIES = ("(role r) (init p) (legal r a) (<= (next q) (true p)) (<= terminal (true q)) "
               "(goal r 100) (foo bar) (foo bar bar)")


def test_a_strict_load_refuses_what_the_default_reading_accepts(srv: Server) -> None:
    """LoadOptions.strict refuses a name used with two arities with INVALID_ARGUMENT
    ("relation-arity", at the second use); the same text loads by default, with the
    reading among its warnings."""
    strict = pb.LoadGameRequest(gdl=TWO_ARITIES, options=pb.LoadOptions(strict=True))
    detail = expect_detail(INVALID, srv.stub.LoadGame, strict)
    assert (detail.kind, detail.reason, detail.line, detail.column) == (
        pb.ERROR_KIND_GDL_VALIDATION, "relation-arity", 1, 100)
    loaded = srv.stub.LoadGame(pb.LoadGameRequest(gdl=TWO_ARITIES), timeout=30)
    assert any("relation 'foo' is used with" in warning for warning in loaded.game.warnings)


REQUEST, STATE = pb.ERROR_KIND_REQUEST, pb.ERROR_KIND_INVALID_STATE


@pytest.mark.parametrize(("fields", "kind", "reason", "expected"), [
    ({"from_initial": True}, REQUEST, "conflicting-fields",
     "SimulateRequest sets starts and state, from_initial or playouts"),
    ({"playouts": 3}, REQUEST, "conflicting-fields",
     "SimulateRequest sets starts and state, from_initial or playouts"),
    ({"starts": [pb.SimulateStart(playouts=1)]}, STATE, "missing-state",
     "SimulateRequest.starts[1].state is missing: a state is required"),
    ({"starts": [pb.SimulateStart(state=pb.State(), playouts=0)]}, REQUEST, "playout-count",
     "SimulateRequest.starts[1].playouts must be at least 1, got 0"),
    ({"starts": [pb.SimulateStart(state=pb.State(), playouts=1_000_000)]}, REQUEST,
     "playout-count", "at most 1,000,000 playouts in all, got 1,000,001 in 2 starts"),
])
def test_simulate_starts_that_cannot_be_played_are_invalid_argument(
        srv: Server, ttt: pb.GameInfo, fields: dict[str, Any], kind: int, reason: str,
        expected: str) -> None:
    """Starts beside a state, from_initial or a count, a start without a state or
    playouts, and more than a million playouts in all are INVALID_ARGUMENT whose kind and
    reason say which; the message, the output under test too, names the start."""
    request = pb.SimulateRequest(game_id=ttt.game_id,
                                 starts=[pb.SimulateStart(state=pb.State(), playouts=1)])
    extra = fields.pop("starts", [])
    request.starts.extend(extra)
    for name, value in fields.items():
        setattr(request, name, value)
    detail = expect_detail(INVALID, srv.stub.Simulate, request)
    assert (detail.kind, detail.reason) == (kind, reason)
    assert detail.message.startswith(expected)
