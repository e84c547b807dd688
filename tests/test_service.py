"""The gRPC service ``reasoner.v1.Reasoner`` and its client library, against real servers.

Every server here is a real one on port 0 (``create_server``), stopped with
``server.stop(None)``; answers are compared with the in-process engine. The error codes of bad
input are in ``test_service_errors.py``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from client import Analysis, ReasonerClient
from client.values import Board
from reasoner import Game
from reasoner.arguments import ArgumentError
from reasoner.asp.translate import translate
from reasoner.core.walk import random_playout, random_walk
from reasoner.errors import IllegalMoveError
from reasoner.gdl.parser import parse_gdl
from reasoner.server.app import DEFAULT_LIMITS
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import (
    CALL_TIMEOUT,
    GAMES,
    Server,
    bundled,
    game_text,
    local_info,
    local_playouts,
    move_of,
    remote_info,
    remote_playouts,
    running_server,
    state_of,
)

PROJECT = Path(__file__).resolve().parents[1]
SERVICE = "reasoner.v1.Reasoner"
PLAYED = ("tictactoe", "connectfour", "nim", "rps", "threeplayer")

# Roles declared out of alphabetical order, to see that the tables keep the file's order.
UNSORTED_ROLES = ("(role zed) (role alpha) (role mid) (legal zed a) (legal alpha a) "
                  "(legal mid a) (goal zed 0) (goal alpha 0) (goal mid 0) terminal")
# A role named random is played as an ordinary player, with a warning.
RANDOM_ROLE = ("(role random) (init s) (legal random go) (<= (next s) (true s)) "
               "(<= terminal (true t)) (goal random 0)")
KEYWORD_IN_TERM = ("(role a) (init (s (true x))) (legal a go) "
                   "(<= (next (s (true x))) (true (s (true x)))) (<= terminal (true t)) (goal a 0)")
X_WINS = ("(cell 1 1 x)", "(cell 1 2 x)", "(cell 1 3 x)", "(cell 2 1 o)", "(cell 2 2 o)",
          "(cell 2 3 b)", "(cell 3 1 b)", "(cell 3 2 b)", "(cell 3 3 b)", "(control oplayer)")


@pytest.fixture(scope="module")
def srv() -> Iterator[Server]:
    """One server for the module, with the production limits (bounded loading in a
    forkserver child), holding the games most tests play."""
    with running_server(limits=DEFAULT_LIMITS) as server:
        for name in PLAYED:
            server.load(name)
        yield server


@pytest.fixture(scope="module")
def ttt(srv: Server) -> pb.GameInfo:
    """Tic-tac-toe's tables on the module's server."""
    return srv.load("tictactoe")


def ids_of(srv: Server, name: str) -> str:
    return srv.load(name).game_id


def initial(srv: Server, name: str) -> tuple[pb.GameInfo, pb.InitialStateResponse]:
    info = srv.load(name)
    response = srv.stub.InitialState(pb.InitialStateRequest(game_id=info.game_id),
                                     timeout=CALL_TIMEOUT)
    return info, response


def engine_state(name: str, message: pb.State) -> Any:
    return bundled(name).state_from_ids(message.fluents)


# -- LoadGame and GetGame ------------------------------------------------------------------


def test_load_game_roles_in_file_order(srv: Server) -> None:
    """LoadGame lists the roles in the order of the role facts, not sorted."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=UNSORTED_ROLES), timeout=CALL_TIMEOUT).game
    assert list(game.roles) == ["zed", "alpha", "mid"]
    assert [r.role for r in game.role_moves] == ["zed", "alpha", "mid"]


def test_load_game_fluent_table(ttt: pb.GameInfo) -> None:
    """The fluent table holds tic-tac-toe's 29 fluents, in the engine's order."""
    cells = {f"(cell {x} {y} {c})" for x in (1, 2, 3) for y in (1, 2, 3) for c in "bxo"}
    assert set(ttt.fluents) == cells | {"(control xplayer)", "(control oplayer)"}
    assert len(ttt.fluents) == 29
    assert list(ttt.fluents) == list(bundled("tictactoe").fluents)


def test_load_game_move_table(ttt: pb.GameInfo) -> None:
    """The move table gives each of the 20 moves its role index and GDL text, as the engine."""
    engine = bundled("tictactoe")
    assert [(m.role, m.text) for m in ttt.moves] == [
        (engine.roles.index(m.role), m.text) for m in engine.all_moves]
    marks = {f"(mark {x} {y})" for x in (1, 2, 3) for y in (1, 2, 3)}
    for role_index in (0, 1):
        assert {m.text for m in ttt.moves if m.role == role_index} == marks | {"noop"}


def test_load_game_role_moves(ttt: pb.GameInfo) -> None:
    """role_moves gives per role, in role order, the ascending ids of exactly its moves."""
    assert [r.role for r in ttt.role_moves] == ["xplayer", "oplayer"]
    for role_index, entry in enumerate(ttt.role_moves):
        ids = list(entry.move_ids)
        assert ids == sorted(ids)
        assert len(ids) == 10
        assert ids == [i for i, m in enumerate(ttt.moves) if m.role == role_index]
    assert sorted(itertools.chain(*(r.move_ids for r in ttt.role_moves))) == list(range(20))


def test_load_game_statistics_sizes(ttt: pb.GameInfo) -> None:
    """The statistics give tic-tac-toe's sizes (as the engine's), its network's size on the
    default backend, and positive stage timings."""
    s = ttt.statistics
    local = bundled("tictactoe").statistics
    assert (s.fluents, s.moves, s.rules, s.ground_atoms) == (29, 20, 46, 174)
    assert (s.fluents, s.moves, s.rules, s.ground_atoms) == (
        local.fluents, local.moves, local.rules, local.ground_atoms)
    assert (s.backend, s.backend_note) == ("native", "")
    assert local.network is not None
    assert (s.network_propositions, s.network_gates, s.network_edges) == (
        local.network.propositions, local.network.gates, local.network.edges)
    assert 0 < s.network_ms <= s.ground_ms
    assert min(s.validate_ms, s.translate_ms, s.superset_ms, s.ground_ms) > 0
    assert s.total_ms == pytest.approx(
        s.parse_ms + s.validate_ms + s.translate_ms + s.superset_ms + s.ground_ms)
    assert list(ttt.warnings) == []


def test_load_game_statistics_time_parsing(ttt: pb.GameInfo) -> None:
    """parse_ms reports the time spent parsing (it is part of every load)."""
    assert ttt.statistics.parse_ms > 0


def test_load_game_twice_is_already_loaded() -> None:
    """Loading a game a second time gives the same id and tables with already_loaded=True."""
    with running_server() as server:
        request = pb.LoadGameRequest(gdl=game_text("nim"))
        first = server.stub.LoadGame(request, timeout=CALL_TIMEOUT)
        second = server.stub.LoadGame(request, timeout=CALL_TIMEOUT)
        assert (first.already_loaded, second.already_loaded) == (False, True)
        assert second.game.game_id == first.game.game_id
        assert second.game == first.game
        assert server.registry.ids() == [first.game.game_id]


def _without_comments(text: str) -> str:
    return "\n".join(line.split(";", 1)[0] for line in text.splitlines())


@pytest.mark.parametrize("variant", ["comments", "whitespace", "letter case"])
def test_game_id_ignores_layout_and_case(srv: Server, ttt: pb.GameInfo, variant: str) -> None:
    """The game id does not change with comments, whitespace or letter case of the text."""
    text = _without_comments(game_text("tictactoe"))
    if variant != "comments":
        text = " ".join(text.split())
    if variant == "letter case":
        text = text.upper()
    assert text != game_text("tictactoe")
    response = srv.stub.LoadGame(pb.LoadGameRequest(gdl=text), timeout=CALL_TIMEOUT)
    assert response.already_loaded is True
    assert response.game.game_id == ttt.game_id
    assert list(response.game.roles) == ["xplayer", "oplayer"]


def test_game_id_depends_on_options_and_rules(srv: Server, ttt: pb.GameInfo) -> None:
    """Another reading (case_sensitive) or another rule gives another id."""
    text = game_text("tictactoe")
    sensitive = srv.stub.LoadGame(pb.LoadGameRequest(
        gdl=text, options=pb.LoadOptions(case_sensitive=True)), timeout=CALL_TIMEOUT)
    changed = srv.stub.LoadGame(pb.LoadGameRequest(gdl=text + "\n(extra fact)"),
                                timeout=CALL_TIMEOUT)
    ids = {ttt.game_id, sensitive.game.game_id, changed.game.game_id}
    assert len(ids) == 3
    assert all(re.fullmatch(r"[0-9a-f]{64}", i) for i in ids)


def test_game_id_is_the_same_on_every_server(ttt: pb.GameInfo) -> None:
    """Another server gives the same game the same id (a content hash)."""
    with running_server() as other:
        assert other.load("tictactoe").game_id == ttt.game_id


def test_get_game_returns_the_loaded_tables(srv: Server, ttt: pb.GameInfo) -> None:
    """GetGame answers exactly the GameInfo that LoadGame gave."""
    response = srv.stub.GetGame(pb.GetGameRequest(game_id=ttt.game_id), timeout=CALL_TIMEOUT)
    assert response.game == ttt
    assert response.game.roles == ["xplayer", "oplayer"]


# -- InitialState and Query ------------------------------------------------------------------


def test_initial_state_of_tictactoe(srv: Server, ttt: pb.GameInfo) -> None:
    """InitialState gives the ten init fluents (sorted), xplayer's 9 marks, oplayer's noop."""
    _, response = initial(srv, "tictactoe")
    expected = [f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)]
    expected.append("(control xplayer)")
    assert list(response.state.fluents) == sorted(state_of(ttt, *expected).fluents)
    legal, terminal, goals = remote_info(response.info)
    assert [sorted(ttt.moves[i].text for i in ids) for ids in legal] == [
        sorted(f"(mark {x} {y})" for x in (1, 2, 3) for y in (1, 2, 3)), ["noop"]]
    assert (terminal, goals) == (False, [[], []])


@pytest.mark.parametrize("name", PLAYED)
def test_initial_state_matches_engine(srv: Server, name: str) -> None:
    """InitialState equals the in-process engine's initial state and its info."""
    _, response = initial(srv, name)
    engine = bundled(name)
    assert list(response.state.fluents) == list(engine.initial_state.fluent_ids())
    assert remote_info(response.info) == local_info(engine.info(engine.initial_state))


def test_query_terminal_state(srv: Server, ttt: pb.GameInfo) -> None:
    """Query of a state with a line of x answers terminal with goals 100 and 0."""
    response = srv.stub.Query(pb.QueryRequest(game_id=ttt.game_id, state=state_of(ttt, *X_WINS)),
                              timeout=CALL_TIMEOUT)
    legal, terminal, goals = remote_info(response.info)
    assert (terminal, goals) == (True, [[100], [0]])
    assert [[ttt.moves[i].text for i in ids] for ids in legal] == [
        ["noop"], ["(mark 2 3)", "(mark 3 1)", "(mark 3 2)", "(mark 3 3)"]]


def test_query_accepts_fluents_in_any_order(srv: Server, ttt: pb.GameInfo) -> None:
    """A state's fluent ids may come unsorted and repeated: the answer is the same."""
    ids = list(state_of(ttt, *X_WINS).fluents)
    shuffled = list(reversed(ids)) + ids[:3]
    answers = [srv.stub.Query(pb.QueryRequest(game_id=ttt.game_id,
                                              state=pb.State(fluents=f)),
                              timeout=CALL_TIMEOUT).info for f in (ids, shuffled)]
    assert answers[0] == answers[1]
    assert answers[0].terminal is True


# -- Next ------------------------------------------------------------------------------------


def test_next_batched_successors_in_order(srv: Server, ttt: pb.GameInfo) -> None:
    """Next with three joint moves gives three successors, in the order of the joint moves,
    each equal to the engine's."""
    _, start = initial(srv, "tictactoe")
    noop = move_of(ttt, "oplayer", "noop")
    cells = ("(mark 1 1)", "(mark 2 2)", "(mark 3 1)")
    joints = [(move_of(ttt, "xplayer", c), noop) for c in cells]
    response = srv.stub.Next(pb.NextRequest(
        game_id=ttt.game_id, state=start.state,
        joint_moves=[pb.JointMove(moves=j) for j in joints]), timeout=CALL_TIMEOUT)
    assert len(response.successors) == 3
    engine = bundled("tictactoe")
    for cell, joint, successor in zip(cells, joints, response.successors, strict=True):
        marked = cell.replace("(mark", "(cell").replace(")", " x)")
        assert marked in [ttt.fluents[i] for i in successor.state.fluents]
        following, info = engine.step(engine_state("tictactoe", start.state), joint)
        assert list(successor.state.fluents) == list(following.fluent_ids())
        assert remote_info(successor.info) == local_info(info)


def test_next_batched_equals_single_calls(srv: Server) -> None:
    """One batched Next answers what separate Next calls answer (rps: all 9 joint moves)."""
    info, start = initial(srv, "rps")
    joints = list(itertools.product(*(m.ids for m in start.info.legal)))
    assert len(joints) == 9
    batched = srv.stub.Next(pb.NextRequest(
        game_id=info.game_id, state=start.state,
        joint_moves=[pb.JointMove(moves=j) for j in joints]), timeout=CALL_TIMEOUT)
    singles = [srv.stub.Next(pb.NextRequest(
        game_id=info.game_id, state=start.state, joint_moves=[pb.JointMove(moves=j)]),
        timeout=CALL_TIMEOUT).successors[0] for j in joints]
    assert list(batched.successors) == singles


def test_next_reaches_terminal_state(srv: Server, ttt: pb.GameInfo) -> None:
    """Next into a line of x gives a terminal successor with goals 100 and 0."""
    replaced = {"(cell 1 3 x)": "(cell 1 3 b)", "(control oplayer)": "(control xplayer)"}
    before = [replaced.get(fluent, fluent) for fluent in X_WINS]
    joint = (move_of(ttt, "xplayer", "(mark 1 3)"), move_of(ttt, "oplayer", "noop"))
    response = srv.stub.Next(pb.NextRequest(
        game_id=ttt.game_id, state=state_of(ttt, *before),
        joint_moves=[pb.JointMove(moves=joint)]), timeout=CALL_TIMEOUT)
    (successor,) = response.successors
    assert sorted(ttt.fluents[i] for i in successor.state.fluents) == sorted(X_WINS)
    assert successor.info.terminal is True
    assert [list(g.values) for g in successor.info.goals] == [[100], [0]]


def test_next_without_legality_check_plays_illegal_move(srv: Server,
                                                        ttt: pb.GameInfo) -> None:
    """check_legal=false applies a move that is not legal (noop for the player on turn),
    giving the engine's unchecked successor."""
    _, start = initial(srv, "tictactoe")
    joint = (move_of(ttt, "xplayer", "noop"), move_of(ttt, "oplayer", "noop"))
    response = srv.stub.Next(pb.NextRequest(
        game_id=ttt.game_id, state=start.state, joint_moves=[pb.JointMove(moves=joint)],
        check_legal=False), timeout=CALL_TIMEOUT)
    engine = bundled("tictactoe")
    following, info = engine.step(engine.initial_state, joint, check_legal=False)
    (successor,) = response.successors
    assert [ttt.fluents[i] for i in successor.state.fluents] == ["(control oplayer)"]
    assert list(successor.state.fluents) == list(following.fluent_ids())
    assert remote_info(successor.info) == local_info(info)


def test_next_with_no_joint_moves_is_empty(srv: Server, ttt: pb.GameInfo) -> None:
    """Next with no joint moves answers no successors."""
    _, start = initial(srv, "tictactoe")
    response = srv.stub.Next(pb.NextRequest(game_id=ttt.game_id, state=start.state),
                             timeout=CALL_TIMEOUT)
    assert list(response.successors) == []


# -- Expand ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "children"), [
    ("tictactoe", 9), ("connectfour", 7), ("nim", 12), ("rps", 9), ("threeplayer", 3)])
def test_expand_children_are_the_product_of_legal_moves(srv: Server, name: str,
                                                        children: int) -> None:
    """Expand of the initial state has one child per combination of legal moves, in the
    cartesian-product order, and the state's own info."""
    info, start = initial(srv, name)
    response = srv.stub.Expand(pb.ExpandRequest(game_id=info.game_id, state=start.state),
                               timeout=CALL_TIMEOUT)
    legal = [list(m.ids) for m in start.info.legal]
    assert len(response.children) == math.prod(len(ids) for ids in legal) == children
    assert [tuple(c.joint_move.moves) for c in response.children] == list(
        itertools.product(*legal))
    assert response.info == start.info


@pytest.mark.parametrize("name", PLAYED)
def test_expand_successors_equal_next(srv: Server, name: str) -> None:
    """Each child of Expand has exactly the successor (state and info) that Next gives."""
    info, start = initial(srv, name)
    expand = srv.stub.Expand(pb.ExpandRequest(game_id=info.game_id, state=start.state),
                             timeout=CALL_TIMEOUT)
    following = srv.stub.Next(pb.NextRequest(
        game_id=info.game_id, state=start.state,
        joint_moves=[c.joint_move for c in expand.children]), timeout=CALL_TIMEOUT)
    assert [c.successor for c in expand.children] == list(following.successors)


# -- Simulate --------------------------------------------------------------------------------


def _simulate(srv: Server, name: str, **fields: Any) -> pb.SimulateResponse:
    if "state" not in fields:
        fields["from_initial"] = True
    request = pb.SimulateRequest(game_id=ids_of(srv, name), **fields)
    response: pb.SimulateResponse = srv.stub.Simulate(request, timeout=CALL_TIMEOUT)
    return response


def test_simulate_same_seed_same_playouts(srv: Server) -> None:
    """Two Simulate calls with the same seed give the same playouts; another seed differs."""
    first = _simulate(srv, "connectfour", playouts=6, seed=7, record_trajectories=True)
    again = _simulate(srv, "connectfour", playouts=6, seed=7, record_trajectories=True)
    other = _simulate(srv, "connectfour", playouts=6, seed=8, record_trajectories=True)
    assert list(first.playouts) == list(again.playouts)
    assert first.updates == again.updates == sum(p.length for p in first.playouts)
    assert remote_playouts(other) != remote_playouts(first)


@pytest.mark.parametrize("name", PLAYED)
def test_simulate_matches_engine_random_playout(srv: Server, name: str) -> None:
    """Simulate's playouts are those the in-process engine plays for the same seed (on the
    network backend: one bit-parallel batch)."""
    response = _simulate(srv, name, playouts=5, seed=2024, record_trajectories=True)
    expected = local_playouts(bundled(name), seed=2024, playouts=5)
    assert remote_playouts(response) == expected
    assert all(terminal for _, _, terminal, _ in expected)
    assert response.updates == sum(length for _, length, _, _ in expected)


def test_simulate_records_trajectories_only_when_asked(srv: Server) -> None:
    """Without record_trajectories the trajectories are empty and the playouts the same."""
    recorded = _simulate(srv, "nim", playouts=4, seed=11, record_trajectories=True)
    bare = _simulate(srv, "nim", playouts=4, seed=11)
    assert [len(p.trajectory) for p in bare.playouts] == [0, 0, 0, 0]
    assert [len(p.trajectory) for p in recorded.playouts] == [p.length for p in bare.playouts]
    assert [(list(p.goals), p.length) for p in bare.playouts] == [
        (list(p.goals), p.length) for p in recorded.playouts]


def test_simulate_trajectory_replays_to_the_goals(srv: Server, ttt: pb.GameInfo) -> None:
    """A recorded trajectory, replayed with Next, ends terminal with the playout's goals."""
    (playout,) = _simulate(srv, "tictactoe", playouts=1, seed=5,
                           record_trajectories=True).playouts
    _, start = initial(srv, "tictactoe")
    state, info = start.state, start.info
    for joint in playout.trajectory:
        (successor,) = srv.stub.Next(pb.NextRequest(game_id=ttt.game_id, state=state,
                                                    joint_moves=[joint]),
                                     timeout=CALL_TIMEOUT).successors
        state, info = successor.state, successor.info
    assert len(playout.trajectory) == playout.length >= 5
    assert info.terminal is True
    assert list(info.goals) == list(playout.goals)
    assert sorted(v for g in playout.goals for v in g.values) in ([0, 100], [50, 50])


def test_simulate_max_steps_cuts_off(srv: Server) -> None:
    """max_steps=3 stops every connect-four playout after 3 joint moves with terminal=false
    and no goals, as the engine does."""
    response = _simulate(srv, "connectfour", playouts=4, seed=3, max_steps=3,
                         record_trajectories=True)
    assert [(p.length, p.terminal) for p in response.playouts] == [(3, False)] * 4
    assert [[list(g.values) for g in p.goals] for p in response.playouts] == [[[], []]] * 4
    assert remote_playouts(response) == local_playouts(bundled("connectfour"), seed=3,
                                                       playouts=4, max_steps=3)
    assert response.updates == 12


def test_simulate_max_steps_zero_means_1000(srv: Server) -> None:
    """max_steps=0 stops a game that never ends after 1000 joint moves."""
    game = srv.stub.LoadGame(pb.LoadGameRequest(gdl=RANDOM_ROLE), timeout=CALL_TIMEOUT).game
    response = srv.stub.Simulate(pb.SimulateRequest(
                                     from_initial=True, game_id=game.game_id, playouts=2),
                                 timeout=CALL_TIMEOUT)
    assert [(p.length, p.terminal, [list(g.values) for g in p.goals])
            for p in response.playouts] == [(1000, False, [[0]])] * 2
    assert response.updates == 2000


def test_simulate_from_a_given_state(srv: Server, ttt: pb.GameInfo) -> None:
    """Simulate from a state plays from that state, as the engine does from it."""
    start = ["(cell 2 2 x)", "(control oplayer)"] + [
        f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3) if (x, y) != (2, 2)]
    message = state_of(ttt, *start)
    response = _simulate(srv, "tictactoe", state=message, playouts=3, seed=9,
                         record_trajectories=True)
    expected = local_playouts(bundled("tictactoe"), seed=9, playouts=3,
                              state=engine_state("tictactoe", message))
    assert remote_playouts(response) == expected
    assert all(p.trajectory[0].moves[0] == move_of(ttt, "xplayer", "noop")
               for p in response.playouts)


def test_simulate_without_state_starts_from_initial(srv: Server) -> None:
    """An absent state means the initial state."""
    _, start = initial(srv, "nim")
    implicit = _simulate(srv, "nim", playouts=3, seed=4, record_trajectories=True)
    explicit = _simulate(srv, "nim", playouts=3, seed=4, record_trajectories=True,
                         state=start.state)
    assert list(implicit.playouts) == list(explicit.playouts)


# -- the position backend -------------------------------------------------------------------


@pytest.mark.parametrize("backend",
                         ["position", pytest.param("topdown", marks=pytest.mark.needs_tools)])
def test_position_backends_serve_every_rpc_a_player_uses(srv: Server, backend: str) -> None:
    """LoadOptions.backend "position" (or "topdown") loads tic-tac-toe position by position
    (its own game id, the tables of auto's load), and InitialState, Query, Next along a
    seeded walk, Expand and Simulate (one playout after another) answer as the engine does
    in process."""
    text = game_text("tictactoe")
    auto = srv.load("tictactoe")
    info = srv.stub.LoadGame(pb.LoadGameRequest(gdl=text, options=pb.LoadOptions(
        backend=backend)), timeout=CALL_TIMEOUT).game
    assert (info.statistics.backend, info.statistics.backend_note) == (backend, "")
    assert info.statistics.network_gates == 0 and info.game_id != auto.game_id
    assert (info.roles, info.fluents, info.moves) == (auto.roles, auto.fluents, auto.moves)
    engine = Game.from_file(GAMES / "tictactoe.kif", backend=backend)
    start = srv.stub.InitialState(pb.InitialStateRequest(game_id=info.game_id),
                                  timeout=CALL_TIMEOUT)
    assert list(start.state.fluents) == list(engine.initial_state.fluent_ids())
    assert remote_info(start.info) == local_info(engine.info(engine.initial_state))
    # Next and Query along a seeded walk, to the end of the game.
    state, message = engine.initial_state, start.state
    for step in random_walk(engine, engine.initial_state, random.Random(4), 9):
        following = srv.stub.Next(pb.NextRequest(
            game_id=info.game_id, state=message,
            joint_moves=[pb.JointMove(moves=step.joint)]), timeout=CALL_TIMEOUT).successors[0]
        assert list(following.state.fluents) == list(step.successor.fluent_ids())
        assert remote_info(following.info) == local_info(step.successor_info)
        query = srv.stub.Query(pb.QueryRequest(game_id=info.game_id, state=following.state),
                               timeout=CALL_TIMEOUT)
        assert query.info == following.info
        state, message = step.successor, following.state
    assert engine.info(state).terminal
    expand = srv.stub.Expand(pb.ExpandRequest(game_id=info.game_id, state=start.state),
                             timeout=CALL_TIMEOUT)
    on_auto = srv.stub.Expand(pb.ExpandRequest(game_id=auto.game_id, state=start.state),
                              timeout=CALL_TIMEOUT)
    assert len(expand.children) == 9 and list(expand.children) == list(on_auto.children)
    simulated = srv.stub.Simulate(pb.SimulateRequest(
        from_initial=True, game_id=info.game_id, playouts=20, seed=9, record_trajectories=True),
        timeout=CALL_TIMEOUT)
    assert remote_playouts(simulated) == local_playouts(engine, seed=9, playouts=20)
    assert all(p.terminal for p in simulated.playouts)
    assert simulated.updates == sum(p.length for p in simulated.playouts)


def test_client_loads_on_the_position_backend(srv: Server) -> None:
    """ReasonerClient.load_game(backend="position") says which backend answers, and its
    playouts and steps are those of the clingo load (the same walk over the same ids)."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        position = client.load_game(game_text("connectfour"), backend="position")
        clingo = client.load_game(game_text("connectfour"), backend="clingo")
        assert (position.backend, clingo.backend) == ("position", "clingo")
        ours = position.simulate(playouts=3, seed=5, record=True)
        theirs = clingo.simulate(playouts=3, seed=5, record=True)
        assert ours.playouts == theirs.playouts and ours.updates == theirs.updates
        state, _ = position.initial()
        joint = (position.move_id("red", "(drop 4)"), position.move_id("black", "noop"))
        assert position.step(state, joint) == clingo.step(state, joint)


# -- Translate -------------------------------------------------------------------------------


def test_translate_returns_the_asp_program(srv: Server) -> None:
    """Translate answers the engine's ASP program, and no relaxed program unless asked."""
    text = game_text("nim")
    response = srv.stub.Translate(pb.TranslateRequest(gdl=text), timeout=CALL_TIMEOUT)
    local = translate(parse_gdl(text))
    assert response.program == local.game_program
    assert "% 24:1: (role p1)\nrole(p1).\n" in response.program
    assert response.relaxed_program == ""
    assert list(response.warnings) == []


def test_translate_relaxed_program(srv: Server) -> None:
    """Translate with relaxed=true also answers the relaxed (reachability) program."""
    text = game_text("tictactoe")
    response = srv.stub.Translate(pb.TranslateRequest(gdl=text, relaxed=True),
                                  timeout=CALL_TIMEOUT)
    local = translate(parse_gdl(text))
    assert response.relaxed_program == local.relaxed_program
    assert response.relaxed_program != ""
    assert response.program == local.game_program


def test_translate_loads_no_game(srv: Server) -> None:
    """Translate of a game not loaded leaves the registry as it was."""
    before = srv.registry.ids()
    srv.stub.Translate(pb.TranslateRequest(gdl=game_text("hanoi")), timeout=CALL_TIMEOUT)
    assert srv.registry.ids() == before
    assert len(before) >= len(PLAYED)


def test_validator_warnings_reach_translate_and_load(srv: Server) -> None:
    """A keyword's name inside a term is read as data with one warning, in Translate and in
    LoadGame."""
    translated = srv.stub.Translate(pb.TranslateRequest(gdl=KEYWORD_IN_TERM),
                                    timeout=CALL_TIMEOUT)
    loaded = srv.stub.LoadGame(pb.LoadGameRequest(gdl=KEYWORD_IN_TERM),
                               timeout=CALL_TIMEOUT).game
    assert len(translated.warnings) == 1
    assert "read 'true' in (init (s (true x))) as a function symbol" in translated.warnings[0]
    assert list(loaded.warnings) == list(translated.warnings)
    assert list(loaded.roles) == ["a"]


# -- the client library ----------------------------------------------------------------------


def test_client_round_trip_matches_engine(srv: Server) -> None:
    """Through ReasonerClient: tables, initial state, query, next and expand as the engine."""
    engine = bundled("tictactoe")
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"))
        assert game.roles == ("xplayer", "oplayer")
        assert game.fluents == engine.fluents
        state, info = game.initial()
        assert state == engine.initial_state
        assert game.info(state) == info
        joint = (game.move_id("xplayer", "(mark 2 2)"), game.move_id("oplayer", "noop"))
        following, following_info = game.step(state, joint)
        local_state, local = engine.step(engine.initial_state, joint)
        assert following == local_state
        assert following_info.legal == tuple(tuple(ids) for ids in local.legal)
        expand_info, children = game.expand(state)
        assert expand_info == info
        assert len(children) == 9
        assert (joint, following, following_info) in children


def test_client_simulate_matches_engine(srv: Server) -> None:
    """RemoteGame.simulate gives the engine's seeded playouts, goals as one int per role."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("threeplayer"))
        result = game.simulate(playouts=3, seed=42, record=True)
    expected = local_playouts(bundled("threeplayer"), seed=42, playouts=3)
    assert [(list(p.goals), p.length, p.terminal, [list(j) for j in p.trajectory])
            for p in result.playouts] == [
        ([values[0] for values in goals], length, terminal, trajectory)
        for goals, length, terminal, trajectory in expected]
    assert result.updates == sum(p.length for p in result.playouts)


def test_client_simulate_names_a_count_that_cannot_be_sent(srv: Server) -> None:
    """A negative or too large count is a ValueError naming it, before any call (protobuf
    alone says "Value out of range"); seeds are taken modulo 2**64 as in process."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"))
        with pytest.raises(ArgumentError) as caught:
            game.simulate(playouts=-1)
        assert (caught.value.argument, caught.value.value) == ("playouts", -1)
        assert caught.value.allowed == range(4294967296)
        with pytest.raises(ArgumentError) as caught:
            game.simulate(playouts=3, max_steps=-1)
        assert (caught.value.argument, caught.value.value) == ("max_steps", -1)
        state = game.initial_state()
        with pytest.raises(ArgumentError) as caught:
            game.simulate_many([(state, 2), (state, 2**32)])
        assert (caught.value.argument, caught.value.value) == ("starts[1] count", 2**32)

        def lengths(seed: int) -> list[int]:
            return [p.length for p in game.simulate(playouts=20, seed=seed).playouts]

        assert lengths(-1) == lengths(2**64 - 1)
        assert lengths(2**64 + 5) == lengths(5)


def test_client_reloads_a_game_the_server_evicted() -> None:
    """With max_games=1, loading B evicts A; a query through A's handle still works (the
    client loads A again transparently)."""
    with running_server(max_games=1) as server, \
            ReasonerClient(server.target, timeout=CALL_TIMEOUT) as client:
        first = client.load_game(game_text("tictactoe"))
        state = first.initial_state()
        second = client.load_game(game_text("nim"))
        assert server.registry.ids() == [second.id]
        info = first.info(state)
        assert server.registry.ids() == [first.id]
        engine = bundled("tictactoe")
        assert info.legal == tuple(tuple(ids) for ids in engine.info(engine.initial_state).legal)
        assert info.terminal is False


def test_client_exports_every_name_it_lists() -> None:
    """``from client import *`` imports every name of ``client.__all__``."""
    import client

    namespace: dict[str, object] = {}
    exec("from client import *", namespace)
    assert set(client.__all__) <= set(namespace)


def test_client_move_id_reads_the_text_as_the_engine_does(srv: Server) -> None:
    """RemoteGame.move_id reads a move as Game.move does: spacing and case of names do not
    matter in a game loaded case-insensitively; it gives the engine's id."""
    engine = bundled("tictactoe")
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"))
        for text in ("(mark 2 3)", "( MARK  2 3 )", "(Mark 2\n3)"):
            assert game.move_id("xplayer", text) == engine.move("xplayer", text).id
        assert game.move_id("oplayer", "NOOP") == engine.move("oplayer", "noop").id


def test_client_move_id_of_a_case_sensitive_game_keeps_case(srv: Server) -> None:
    """In a game loaded case-sensitively, a move's names keep their case: "NOOP" is no move
    of tic-tac-toe's (IllegalMoveError with the role), "noop" is."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"), case_sensitive=True)
        assert game.move_id("oplayer", "noop") == move_of(
            srv.stub.GetGame(pb.GetGameRequest(game_id=game.id), timeout=CALL_TIMEOUT).game,
            "oplayer", "noop")
        with pytest.raises(IllegalMoveError) as caught:
            game.move_id("oplayer", "NOOP")
        assert (caught.value.role, caught.value.reason) == ("oplayer", "never-legal")


@pytest.mark.parametrize(("role", "text", "reason"), [
    ("xplayer", "(mark 9 9)", "never-legal"),
    ("xplayer", "(mark 1 1", "malformed"),
    ("nobody", "noop", "unknown-role"),
])
def test_client_move_id_of_no_move_is_illegal_move_error(srv: Server, role: str, text: str,
                                                         reason: str) -> None:
    """A move text that is no move of the role (or malformed, or of an unknown role) raises
    IllegalMoveError naming it, with the role, as the engine's Game.move does."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"))
        with pytest.raises(IllegalMoveError) as caught:
            game.move_id(role, text)
    assert (caught.value.role, caught.value.reason) == (role, reason)
    with pytest.raises(IllegalMoveError) as caught:
        bundled("tictactoe").move(role, text)
    assert (caught.value.role, caught.value.reason) == (role, reason)


def test_client_analyze_gives_value_types(srv: Server) -> None:
    """RemoteGame.analyze gives the client's frozen value types, no protobuf message, with
    what AnalyzeGame answers: tic-tac-toe's turn-taking, noop moves, board and catalogue."""
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("tictactoe"))
        found = game.analyze()
    assert isinstance(found, Analysis)
    assert not isinstance(found, Message)
    assert found.turn_taking
    assert found.noop_moves == {"xplayer": ("noop",), "oplayer": ("noop",)}
    board = next(b for b in found.boards if b.function == "cell")
    assert isinstance(board, Board) and len(board.inputs) == 2
    heuristics = {h.name: h for h in found.heuristics}
    assert {"hff", "fjo", "fuzzy", "extended-ff"} <= set(heuristics)
    assert [p.name for p in heuristics["fuzzy"].parameters] == ["p", "t", "q", "structures"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.turn_taking = False  # type: ignore[misc]
    values = [found, *found.boards, *found.heuristics, *found.features, *found.successors]
    assert not [v for v in values if not dataclasses.is_dataclass(v)]


# -- concurrency -----------------------------------------------------------------------------


def _remote_playout(target: str, name: str, seeds: list[int],
                    barrier: threading.Barrier) -> list[tuple[Any, ...]]:
    """Seeded random playouts played by Query/Next round trips, each thread its own client."""
    results = []
    with ReasonerClient(target, timeout=CALL_TIMEOUT) as client:
        barrier.wait(timeout=CALL_TIMEOUT)
        game = client.load_game(game_text(name))
        for seed in seeds:
            rng = random.Random(seed)
            state = game.initial_state()
            info = game.info(state)
            trajectory = []
            while not info.terminal:
                joint = tuple(legal[0] if len(legal) == 1 else rng.choice(legal)
                              for legal in info.legal)
                trajectory.append(list(joint))
                state, info = game.step(state, joint)
                assert game.info(state) == info
            results.append(([list(g) for g in info.goals], len(trajectory), True, trajectory,
                            list(state.fluent_ids())))
    return results


def _local_playout(name: str, seed: int) -> tuple[Any, ...]:
    engine = bundled(name)
    result = random_playout(engine, engine.initial_state, random.Random(seed), 1000,
                            record=True)
    return ([list(g) for g in result.info.goals], result.length, result.terminal,
            [list(joint) for joint in result.trajectory], list(result.final.fluent_ids()))


def test_parallel_clients_match_engine() -> None:
    """8 client threads playing seeded playouts on 3 games at once get exactly the engine's
    playouts, and the 3 games (loaded concurrently) are loaded once each."""
    names = ("tictactoe", "connectfour", "nim")
    jobs = [(names[i % 3], [100 * i + k for k in range(3)]) for i in range(8)]
    with running_server(workers=8, limits=DEFAULT_LIMITS) as server:
        barrier = threading.Barrier(len(jobs))
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = [pool.submit(_remote_playout, server.target, name, seeds, barrier)
                       for name, seeds in jobs]
            results = [future.result(timeout=120) for future in futures]
        assert len(server.registry.ids()) == 3
    for (name, seeds), result in zip(jobs, results, strict=True):
        assert result == [_local_playout(name, seed) for seed in seeds], (name, seeds)


# -- restart ---------------------------------------------------------------------------------


def test_client_survives_server_restart_on_same_port() -> None:
    """A client made before the server restarted on the same port keeps working: it
    reconnects and reloads its game, which the new server does not have."""
    engine = bundled("nim")
    with running_server() as first:
        port = first.port
        client = ReasonerClient(first.target, timeout=CALL_TIMEOUT)
        game = client.load_game(game_text("nim"))
        state = game.initial_state()
        joint = (game.move_id("p1", "(take a 2)"), game.move_id("p2", "noop"))
    try:
        with running_server(address=f"127.0.0.1:{port}") as second:
            assert second.port == port
            assert second.registry.ids() == []
            following, info = game.step(state, joint)
            assert second.registry.ids() == [game.id]
            local_state, local = engine.step(engine.initial_state, joint)
            assert following == local_state
            assert info.legal == tuple(tuple(ids) for ids in local.legal)
            assert "(heap a 1)" in game.describe_state(following)
    finally:
        client.close()


# -- health and reflection -------------------------------------------------------------------


@pytest.mark.parametrize("service", ["", SERVICE])
def test_health_is_serving(srv: Server, service: str) -> None:
    """grpc.health.v1 answers SERVING for the server ("") and for reasoner.v1.Reasoner."""
    stub = health_pb2_grpc.HealthStub(srv.channel)
    response = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=CALL_TIMEOUT)
    assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_health_of_unknown_service_is_not_found(srv: Server) -> None:
    """A health check for a service the server does not run answers NOT_FOUND."""
    stub = health_pb2_grpc.HealthStub(srv.channel)
    with pytest.raises(grpc.RpcError) as caught:
        stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"),
                   timeout=CALL_TIMEOUT)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def _reflect(srv: Server, request: reflection_pb2.ServerReflectionRequest) -> Any:
    stub = reflection_pb2_grpc.ServerReflectionStub(srv.channel)
    (response,) = list(stub.ServerReflectionInfo(iter([request]), timeout=CALL_TIMEOUT))
    return response


def test_reflection_lists_the_services(srv: Server) -> None:
    """Server reflection's list_services names the reasoner, health and reflection."""
    response = _reflect(srv, reflection_pb2.ServerReflectionRequest(list_services=""))
    names = {s.name for s in response.list_services_response.service}
    assert names == {SERVICE, "grpc.health.v1.Health",
                     "grpc.reflection.v1alpha.ServerReflection"}


def test_reflection_describes_the_reasoner(srv: Server) -> None:
    """Reflection gives the file that defines reasoner.v1.Reasoner, with every rpc in order."""
    from google.protobuf import descriptor_pb2

    response = _reflect(srv, reflection_pb2.ServerReflectionRequest(
        file_containing_symbol=SERVICE))
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in response.file_descriptor_response.file_descriptor_proto]
    (proto,) = [f for f in files if f.name == "reasoner/v1/reasoner.proto"]
    (service,) = proto.service
    assert [m.name for m in service.method] == [
        "LoadGame", "GetGame", "InitialState", "Query", "Next", "Expand", "Simulate",
        "Translate", "Supersets", "StreamSupersets", "RelaxedLayers", "Instantiate", "Evaluate",
        "AnalyzeGame",
        "ListGames", "LookupMoves", "Session", "SampleInformationSet"]


# -- the serve command -----------------------------------------------------------------------


def _read_lines(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


@pytest.mark.slow  # starts the serve command: about 1.7 s
def test_serve_command_serves_bundled_games_and_stops_on_sigterm(ttt: pb.GameInfo) -> None:
    """``serve --port 0 --games games`` logs "listening on HOST:PORT", serves every bundled
    game (tic-tac-toe is already loaded under the same id), and exits 0 on SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0", "--games", "games"],
        cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stderr, lines), daemon=True).start()
    try:
        found = None
        log = []
        deadline = time.monotonic() + 40
        while found is None and time.monotonic() < deadline:
            try:
                log.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
            found = re.search(r"listening on ([\d.]+):(\d+) with (\d+) games", log[-1])
        assert found is not None, "".join(log)
        host, port, count = found.group(1), int(found.group(2)), int(found.group(3))
        assert (host, count) == ("127.0.0.1", len(list(GAMES.glob("*.kif"))))
        assert port > 0
        with ReasonerClient(f"{host}:{port}", timeout=CALL_TIMEOUT) as client:
            response = client.call("LoadGame", pb.LoadGameRequest(gdl=game_text("tictactoe")))
            assert response.already_loaded is True
            assert response.game.game_id == ttt.game_id
            got = client.call("GetGame", pb.GetGameRequest(game_id=ttt.game_id))
            assert list(got.game.roles) == ["xplayer", "oplayer"]
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        assert time.monotonic() - started < 5
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_client_queries_many_states_in_one_call(srv: Server) -> None:
    """RemoteGame.info_many answers a list of states in one call as info answers each."""
    info = srv.load("connectfour")
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("connectfour"))
        assert game.id == info.game_id
        state, first = game.initial()
        children = [child for _, child, _ in game.expand(state)[1]]
        assert game.info_many([state, *children]) == [first, *map(game.info, children)]


def test_simulate_from_many_starts_plays_each_as_its_own_call(srv: Server) -> None:
    """Simulate with starts (flat Monte Carlo over the children of a position in one call)
    gives each start's playouts, in order, exactly as one Simulate from that state with the
    seed plus its index would."""
    srv.load("connectfour")
    with ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        game = client.load_game(game_text("connectfour"))
        state = game.initial_state()
        children = [child for _, child, _ in game.expand(state)[1]][:4]
        counts = [3, 1, 5, 2]
        many = game.simulate_many(list(zip(children, counts, strict=True)), seed=40,
                                  record=True)
        single = [game.simulate(child, playouts=count, seed=40 + number, record=True)
                  for number, (child, count) in enumerate(zip(children, counts, strict=True))]
        assert many.playouts == tuple(p for run in single for p in run.playouts)
        assert many.updates == sum(run.updates for run in single)
