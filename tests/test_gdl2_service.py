"""GDL-II on the gRPC service: the percept table in GameInfo, each role's percepts with the
successors of Next, and SampleInformationSet, on a real server (port 0) and through the
Python client. Monty Hall (games/montyhall.kif) is the GDL-II game: the candidate chooses a
door, nature (``random``) has hidden the car and opens another door without it, and the
candidate sees its own moves and the opened door."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from client import ReasonerClient, State
from client.reasoner_client import RemoteGame
from reasoner.errors import InvalidStateError
from reasoner.server.service import MAX_SAMPLE_COUNT, MAX_SAMPLE_NODES
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import (
    CALL_TIMEOUT,
    Server,
    expect_detail,
    game_text,
    move_of,
    running_server,
)

INVALID = grpc.StatusCode.INVALID_ARGUMENT
# The candidate chose door 1, nature then opened door 2: the car is behind 1 or 3.
HISTORY = [("(choose 1)", ["(did candidate (choose 1))"]),
           ("noop", ["(did candidate noop)", "(open_door 2)"])]
# Nature never opens the door the candidate chose.
INCONSISTENT = [("(choose 1)", ["(did candidate (choose 1))"]),
                ("noop", ["(did candidate noop)", "(open_door 1)"])]


def _history(turns: list[tuple[str, list[str]]]) -> list[pb.HistoryTurn]:
    return [pb.HistoryTurn(move=move, percepts=percepts) for move, percepts in turns]


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    """One server for the module, with Monty Hall and tic-tac-toe loaded."""
    with running_server() as server:
        server.load("montyhall")
        server.load("tictactoe")
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


def _car_doors(game: RemoteGame, states: list[State]) -> set[str]:
    return {text for state in states for text in game.describe_state(state)
            if text.startswith("(car ")}


def test_game_info_describes_a_gdl2_game(monty: pb.GameInfo) -> None:
    """GetGame of Monty Hall says GDL-II, names the nature role "random", and lists the
    candidate's percepts in the percept table, by role index and GDL text."""
    assert monty.gdl2
    assert monty.random_role == "random"
    candidate = list(monty.roles).index("candidate")
    table = {(p.role, p.text) for p in monty.percepts}
    assert {(candidate, "(did candidate (choose 1))"), (candidate, "(open_door 2)"),
            (candidate, "(car 3)")} <= table


def test_next_returns_the_percepts_of_each_role(srv: Server, monty: pb.GameInfo) -> None:
    """Next after the candidate chooses door 1 gives, per role, the ids of its percepts:
    the candidate perceives (did candidate (choose 1)) and nothing else."""
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=monty.game_id),
                                    timeout=CALL_TIMEOUT)
    joint = [move_of(monty, "candidate", "(choose 1)"), move_of(monty, "random", "(hide_car 2)")]
    response = srv.stub.Next(pb.NextRequest(game_id=monty.game_id, state=initial.state,
                                            joint_moves=[pb.JointMove(moves=joint)]),
                             timeout=CALL_TIMEOUT)
    (successor,) = response.successors
    assert len(successor.percepts) == len(monty.roles)
    candidate = list(monty.roles).index("candidate")
    seen = [monty.percepts[i].text for i in successor.percepts[candidate].percept_ids]
    assert seen == ["(did candidate (choose 1))"]


def test_a_plain_game_has_no_percepts(srv: Server) -> None:
    """Tic-tac-toe is no GDL-II game: gdl2 false, no random role, an empty percept table,
    and successors of Next without percepts."""
    info = srv.load("tictactoe")
    assert (info.gdl2, info.random_role, list(info.percepts)) == (False, "", [])
    initial = srv.stub.InitialState(pb.InitialStateRequest(game_id=info.game_id),
                                    timeout=CALL_TIMEOUT)
    joint = [legal.ids[0] for legal in initial.info.legal]
    response = srv.stub.Next(pb.NextRequest(game_id=info.game_id, state=initial.state,
                                            joint_moves=[pb.JointMove(moves=joint)]),
                             timeout=CALL_TIMEOUT)
    assert list(response.successors[0].percepts) == []


def test_sampled_states_agree_with_the_percepts(srv: Server, monty: pb.GameInfo) -> None:
    """SampleInformationSet after choosing door 1 and seeing door 2 opened gives the asked
    number of states, each with the car behind door 1 or 3, never behind door 2."""
    response = srv.stub.SampleInformationSet(pb.SampleInformationSetRequest(
        game_id=monty.game_id, role="candidate", history=_history(HISTORY), count=20,
        seed=1), timeout=CALL_TIMEOUT)
    assert len(response.states) == 20 and not response.exhausted and response.nodes > 0
    cars = {monty.fluents[i] for state in response.states for i in state.fluents
            if monty.fluents[i].startswith("(car ")}
    assert cars == {"(car 1)", "(car 3)"}


def test_an_inconsistent_history_names_the_turn(srv: Server, monty: pb.GameInfo) -> None:
    """A history no state explains (door 1 opened after the candidate chose it) gets
    INVALID_ARGUMENT, an invalid state of reason "inconsistent-history" whose message names
    turn 1."""
    detail = expect_detail(INVALID, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(
                               game_id=monty.game_id, role="candidate",
                               history=_history(INCONSISTENT), count=1))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE,
                                            "inconsistent-history")
    assert "turn 1" in detail.message


def test_sampling_an_unknown_game_is_not_found(srv: Server) -> None:
    """SampleInformationSet of a game id that is not loaded gets NOT_FOUND (unknown game)."""
    detail = expect_detail(grpc.StatusCode.NOT_FOUND, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(game_id="0" * 64, role="candidate",
                                                          count=1))
    assert detail.kind == pb.ERROR_KIND_UNKNOWN_GAME


def test_count_past_the_cap_is_invalid_argument(srv: Server, monty: pb.GameInfo) -> None:
    """A count above MAX_SAMPLE_COUNT gets INVALID_ARGUMENT before any search."""
    detail = expect_detail(INVALID, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(
                               game_id=monty.game_id, role="candidate",
                               history=_history(HISTORY), count=MAX_SAMPLE_COUNT + 1))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "too-many-states")


def test_max_nodes_past_the_cap_is_invalid_argument(srv: Server, monty: pb.GameInfo) -> None:
    """A max_nodes above MAX_SAMPLE_NODES gets INVALID_ARGUMENT before any search."""
    detail = expect_detail(INVALID, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(
                               game_id=monty.game_id, role="candidate",
                               history=_history(HISTORY), count=1,
                               max_nodes=MAX_SAMPLE_NODES + 1))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "max-nodes")


def test_an_unknown_role_is_invalid_argument(srv: Server, monty: pb.GameInfo) -> None:
    """Sampling the information set of a role the game does not have gets INVALID_ARGUMENT,
    an illegal move naming the role."""
    detail = expect_detail(INVALID, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(game_id=monty.game_id,
                                                          role="host", count=1))
    assert (detail.kind, detail.role) == (pb.ERROR_KIND_ILLEGAL_MOVE, "host")


def test_a_tiny_budget_is_resource_exhausted(srv: Server, monty: pb.GameInfo) -> None:
    """A budget of one joint move, too few to find any state, gets RESOURCE_EXHAUSTED of
    reason "information-set"."""
    detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, srv.stub.SampleInformationSet,
                           pb.SampleInformationSetRequest(
                               game_id=monty.game_id, role="candidate",
                               history=_history(HISTORY), count=1, max_nodes=1))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_RESOURCE_LIMIT, "information-set")


def test_client_reads_the_gdl2_tables(remote: RemoteGame) -> None:
    """The client's game says GDL-II, names the random role, and holds the percept table as
    (role, text) pairs."""
    assert remote.is_gdl2 and remote.random_role == "random"
    assert ("candidate", "(open_door 2)") in remote.percept_table


def test_client_percepts_of_a_joint_move(remote: RemoteGame) -> None:
    """RemoteGame.percepts gives per role the percept ids of a joint move: the candidate
    perceives its choice of door 1."""
    joint = (remote.move_id("candidate", "(choose 1)"),
             remote.move_id("random", "(hide_car 3)"))
    percepts = remote.percepts(remote.initial_state(), joint)
    candidate = remote.role_index("candidate")
    assert len(percepts) == len(remote.roles)
    assert [remote.percept_table[i] for i in percepts[candidate]] == [
        ("candidate", "(did candidate (choose 1))")]


def test_client_percepts_of_a_plain_game_are_empty(client: ReasonerClient) -> None:
    """RemoteGame.percepts of tic-tac-toe gives an empty tuple for each role."""
    game = client.load_game(game_text("tictactoe"))
    state, info = game.initial()
    assert not game.is_gdl2 and game.random_role is None and game.percept_table == ()
    assert game.percepts(state, (info.legal[0][0], info.legal[1][0])) == ((), ())


def test_client_samples_the_information_set(remote: RemoteGame) -> None:
    """RemoteGame.sample_information_set gives the states (car behind door 1 or 3), the
    joint moves tried, and whether the budget ran out; the same seed, the same states."""
    states, nodes, exhausted = remote.sample_information_set("candidate", HISTORY, 10, seed=7)
    assert len(states) == 10 and nodes > 0 and not exhausted
    assert _car_doors(remote, states) <= {"(car 1)", "(car 3)"}
    again, _, _ = remote.sample_information_set("candidate", HISTORY, 10, seed=7)
    assert again == states


def test_client_inconsistent_history_raises_invalid_state(remote: RemoteGame) -> None:
    """An inconsistent history raises InvalidStateError in the client, naming turn 1."""
    with pytest.raises(InvalidStateError) as caught:
        remote.sample_information_set("candidate", INCONSISTENT)
    assert caught.value.reason == "inconsistent-history"
    assert "turn 1" in str(caught.value)


def test_session_samples_the_information_set(remote: RemoteGame) -> None:
    """SampleInformationSet is answered on a Session stream too, as by its own call."""
    with remote.session() as session:
        found = session.sample_information_set("candidate", HISTORY, 5, seed=2).result(
            timeout=CALL_TIMEOUT)
    assert found == remote.sample_information_set("candidate", HISTORY, 5, seed=2)
