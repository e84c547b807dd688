"""GDL-II on the gRPC service: the percept table in GameInfo, each role's percepts with the
successors of Next, SampleInformationSet, and the percepts of Simulate's recorded playouts
(SimulateRequest.record_percepts), on a real server (port 0) and through the Python
client. Monty Hall (games/montyhall.kif) is the GDL-II game: the candidate chooses a
door, nature (``random``) has hidden the car and opens another door without it, and the
candidate sees its own moves and the opened door."""

from __future__ import annotations

import re
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


# -- Simulate's recorded percepts --------------------------------------------------------


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
