"""Heuristics through the gRPC service (Evaluate, AnalyzeGame), the client library and the
``evaluate``/``analyze`` commands: real servers on port 0, real subprocesses, no mocks."""

from __future__ import annotations

import json
import math
from typing import Any

import grpc
import pytest

from client import ReasonerClient, State
from reasoner.errors import HeuristicError
from reasoner.heuristics.distances import GoalDistances
from reasoner.heuristics.relaxed import RelaxedGame, ViewBounds, relaxed_network
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import bundled
from tests.service_support import (
    CALL_TIMEOUT,
    expect_detail,
    game_text,
    move_of,
    running_server,
    state_of,
)
from tests.test_cli import GAMES, run_cli


def _evaluate(stub: object, **fields: Any) -> pb.EvaluateResponse:
    response: pb.EvaluateResponse = stub.Evaluate(  # type: ignore[attr-defined]
        pb.EvaluateRequest(**fields), timeout=CALL_TIMEOUT)
    return response


def test_evaluate_fjo_matches_the_engine_on_a_batch() -> None:
    """A batch of tic-tac-toe states gets, in order, the f_JO values the in-process
    heuristics compute (25/3 after X's first mark)."""
    game = bundled("tictactoe")
    local = GoalDistances(game, RelaxedGame(relaxed_network(game)))
    states = [game.initial_state]
    state = game.initial_state
    for move in ("(mark 1 1)", "(mark 2 2)"):
        x, o = game.roles
        mover, other = (x, o) if len(states) % 2 == 1 else (o, x)
        state = game.next_state(state, {mover: game.move(mover, move),
                                        other: game.move(other, "noop")})
        states.append(state)
    with running_server() as server:
        info = server.load("tictactoe")
        response = _evaluate(server.stub, game_id=info.game_id, role="xplayer",
                             heuristic="fjo",
                             states=[pb.State(fluents=list(s.fluent_ids())) for s in states])
    values = [e.value for e in response.evaluations]
    assert values == pytest.approx([local.f_jo(s, "xplayer")[0] for s in states])
    assert values[1] == pytest.approx(25 / 3)


def test_evaluate_returns_the_relaxed_plan_with_move_ids() -> None:
    """h_FF with a plan on the maze: value 3 and the plan's moves [move, grab, drop] as ids
    of the game's move table."""
    with running_server() as server:
        info = server.load("maze")
        response = _evaluate(server.stub, game_id=info.game_id, role="robot",
                             heuristic="hff", plan=True,
                             states=[state_of(info, "(cell a)", "(gold c)", "(step 1)")])
    (evaluation,) = response.evaluations
    assert evaluation.value == 3
    assert [info.moves[p.move_id].text for p in evaluation.plan] == ["move", "grab", "drop"]
    assert [p.move_id for p in evaluation.plan] == [
        move_of(info, "robot", m) for m in ("move", "grab", "drop")]


def test_unreachable_goal_distance_is_infinite() -> None:
    """A terminal state where the role lost has no way to its win: h_FF is +infinity."""
    with running_server() as server:
        info = server.load("tictactoe")
        lost = state_of(info, "(cell 1 1 o)", "(cell 2 2 o)", "(cell 3 3 o)",
                        "(cell 1 2 x)", "(cell 1 3 x)", "(cell 2 1 b)", "(cell 2 3 b)",
                        "(cell 3 1 b)", "(cell 3 2 b)", "(control xplayer)")
        response = _evaluate(server.stub, game_id=info.game_id, role="xplayer",
                             heuristic="hff", states=[lost])
    assert math.isinf(response.evaluations[0].value)


@pytest.mark.parametrize(("heuristic", "parameters", "reason", "expected"), [
    ("h_ff", {}, "unknown-heuristic", "the heuristics are hmax, hadd, hff, fjo"),
    ("fuzzy", {"p": "1.5"}, "out-of-range", "0.5 < p < 1"),
    ("fuzzy", {"p": "0.7", "t": "0.9"}, "inconsistent", "t <= p"),
    ("fuzzy", {"p": "lots"}, "out-of-range", "parameter p of heuristic fuzzy"),
    ("hff", {"world_cost": "2"}, "out-of-range", "0 or 1"),
    ("hff", {"goal": "42"}, "no-such-goal", "its goal values are 0, 50, 100"),
    ("hff", {"depth": "3"}, "unknown-parameter", "its parameters are: goal, world_cost"),
    ("feature", {"name": "no-such-feature"}, "out-of-range", "its features are"),
])
def test_bad_heuristic_or_parameter_is_invalid_argument(
        heuristic: str, parameters: dict[str, str], reason: str, expected: str) -> None:
    """An unknown heuristic or parameter, or a value out of range, is INVALID_ARGUMENT, a
    heuristic error whose reason says which; the message, the output under test too, says
    what is allowed."""
    with running_server() as server:
        info = server.load("tictactoe")
        detail = expect_detail(
            grpc.StatusCode.INVALID_ARGUMENT, server.stub.Evaluate,
            pb.EvaluateRequest(game_id=info.game_id, role="xplayer", heuristic=heuristic,
                               parameters=parameters, states=[pb.State()]))
    assert (detail.kind, detail.reason) == (pb.ERROR_KIND_HEURISTIC, reason)
    assert expected in detail.message


def test_requests_the_heuristic_cannot_serve_are_invalid_argument() -> None:
    """An unknown role, a plan from a heuristic without plans, extended FF on a three-player
    game, a malformed state and too many states are each INVALID_ARGUMENT, of the kind and
    reason that say which."""
    with running_server() as server:
        info = server.load("tictactoe")
        three = server.load("threeplayer")
        cases = [
            (pb.EvaluateRequest(game_id=info.game_id, role="nobody", heuristic="hff",
                                states=[pb.State()]),
             (pb.ERROR_KIND_HEURISTIC, "unknown-role")),
            (pb.EvaluateRequest(game_id=info.game_id, role="xplayer", heuristic="mobility",
                                plan=True, states=[pb.State()]),
             (pb.ERROR_KIND_HEURISTIC, "no-plan")),
            (pb.EvaluateRequest(game_id=three.game_id, role=three.roles[0],
                                heuristic="extended-ff", states=[pb.State()]),
             (pb.ERROR_KIND_HEURISTIC, "roles")),
            (pb.EvaluateRequest(game_id=info.game_id, role="xplayer", heuristic="hff",
                                states=[pb.State(fluents=[10_000])]),
             (pb.ERROR_KIND_INVALID_STATE, "unknown-fluent")),
            (pb.EvaluateRequest(game_id=info.game_id, role="xplayer", heuristic="hff",
                                states=[pb.State()] * 10_001),
             (pb.ERROR_KIND_REQUEST, "too-many-states")),
        ]
        for request, expected in cases:
            detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, server.stub.Evaluate,
                                   request)
            assert (detail.kind, detail.reason) == expected


def test_unknown_game_is_not_found() -> None:
    """Evaluate and AnalyzeGame on an id that is not loaded answer NOT_FOUND, an unknown
    game of reason "unknown-id"."""
    with running_server() as server:
        for call, request in ((server.stub.Evaluate,
                               pb.EvaluateRequest(game_id="feed", role="x", heuristic="hff")),
                              (server.stub.AnalyzeGame, pb.AnalyzeGameRequest(game_id="feed"))):
            detail = expect_detail(grpc.StatusCode.NOT_FOUND, call, request)
            assert (detail.kind, detail.reason) == (pb.ERROR_KIND_UNKNOWN_GAME, "unknown-id")


def test_game_too_large_for_the_view_is_resource_exhausted_and_the_server_goes_on() -> None:
    """Over the relaxed view's bound, Evaluate answers RESOURCE_EXHAUSTED (a size bound of
    reason "relaxed-view"); the game stays loaded and answers queries, and other heuristics
    still work."""
    with running_server(heuristic_bounds=ViewBounds(rules=200)) as server:
        info = server.load("connectfour")
        detail = expect_detail(
            grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Evaluate,
            pb.EvaluateRequest(game_id=info.game_id, role="red", heuristic="fjo",
                               states=[pb.State()]))
        assert (detail.kind, detail.bound, detail.reason) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "size", "relaxed-view")
        initial = server.stub.InitialState(pb.InitialStateRequest(game_id=info.game_id),
                                           timeout=CALL_TIMEOUT)
        assert not initial.info.terminal
        mobility = _evaluate(server.stub, game_id=info.game_id, role="red",
                             heuristic="mobility", states=[initial.state])
        assert 0 < mobility.evaluations[0].value <= 1


def test_analyze_game_reports_turn_taking_boards_and_the_catalogue() -> None:
    """AnalyzeGame on tic-tac-toe: turn-taking with noop as each role's noop move, the
    cell board, marker-count features, and every heuristic with its parameters."""
    with running_server() as server:
        info = server.load("tictactoe")
        response = server.stub.AnalyzeGame(pb.AnalyzeGameRequest(game_id=info.game_id),
                                           timeout=CALL_TIMEOUT)
    assert response.turn_taking
    assert {n.role: list(n.moves) for n in response.noop_moves} == {
        "xplayer": ["noop"], "oplayer": ["noop"]}
    assert any(b.function == "cell" and len(b.inputs) == 2 for b in response.boards)
    assert response.features
    heuristics = {h.name: h for h in response.heuristics}
    assert {"hff", "fjo", "fuzzy", "extended-ff"} <= set(heuristics)
    assert [p.name for p in heuristics["fuzzy"].parameters] == ["p", "t", "q", "structures"]


def test_client_evaluate_and_errors() -> None:
    """The client library's evaluate gives values and plans; a bad parameter comes back as
    HeuristicError of reason "out-of-range", whose message (the ErrorDetail carries no
    parameter field; the wording is the output under test too) says the range."""
    with running_server() as server, ReasonerClient(server.target) as client:
        game = client.load_game(game_text("maze"))
        start = game.initial_state()
        (found,) = game.evaluate([start], "robot", "hff", plan=True)
        assert found.value == 3 and len(found.plan) == 3
        assert found.plan[0].move_id == game.move_id("robot", "move")
        (fuzzy,) = game.evaluate([start], "robot", "fuzzy", {"p": 0.9, "t": 0.7})
        assert 0 <= fuzzy.value <= 1
        with pytest.raises(HeuristicError, match=r"0\.5 < p < 1") as caught:
            game.evaluate([start], "robot", "fuzzy", {"p": 2})
        assert caught.value.reason == "out-of-range"
        assert isinstance(start, State)


def test_cli_evaluate_after_moves() -> None:
    """``evaluate --moves`` plays one joint move per argument and prints the value: f_JO of
    X's first mark is 25/3."""
    done = run_cli("evaluate", GAMES / "tictactoe.kif", "--role", "xplayer", "--heuristic",
                   "fjo", "--moves", "(mark 1 1) noop", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["value"] == pytest.approx(25 / 3) and found["steps"] == 1


def test_cli_evaluate_prints_the_plan() -> None:
    """``evaluate --plan`` prints the relaxed plan's moves, one per line."""
    done = run_cli("evaluate", GAMES / "maze.kif", "--role", "robot", "--heuristic", "hff",
                   "--plan")
    assert done.returncode == 0, done.stderr
    assert "hff for robot in the initial state: 3" in done.stdout
    assert [line.split(": ", 1)[1] for line in done.stdout.splitlines()[2:]] == [
        "robot move", "robot grab", "robot drop"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--moves", "(mark 1 1)"], "step 1 has 1 moves, the game has 2 roles"),
    (["--moves", "noop (mark 1 1)"], "step 1: noop is not legal for xplayer"),
    (["--moves", "(mark 1 1 noop"], "step 1: malformed moves"),
    (["--param", "world_cost"], "--param takes name=value"),
    (["--param", "world_cost=7"], "must be 0 or 1"),
])
def test_cli_evaluate_bad_input_is_one_line(args: list[str], expected: str) -> None:
    """Bad moves or parameters print one line naming the problem and exit 1."""
    done = run_cli("evaluate", GAMES / "tictactoe.kif", "--role", "xplayer", "--heuristic",
                   "hff", *args)
    assert done.returncode == 1
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_cli_analyze_lists_structures() -> None:
    """``analyze`` prints the game's boards, turn-taking and features."""
    done = run_cli("analyze", GAMES / "tictactoe.kif")
    assert done.returncode == 0, done.stderr
    assert "board cell/3" in done.stdout
    assert "turn-taking; noop moves xplayer: noop; oplayer: noop" in done.stdout


def test_heuristics_agree_on_both_backends() -> None:
    """A game on the clingo backend gets a network built for its heuristics: f_JO, fuzzy
    and h_FF give the same values as on the network backend."""
    from reasoner.engine.game import Game
    from reasoner.heuristics.game_heuristics import GameHeuristics

    path = GAMES / "connectfour.kif"
    on_clingo, on_network = (Game.from_file(path, backend=b) for b in ("clingo", "propnet"))
    assert on_clingo.network is None
    joint = {"red": "(drop 4)", "black": "noop"}
    states = [g.next_state(g.initial_state, joint) for g in (on_clingo, on_network)]
    for name in ("fjo", "fuzzy", "hff"):
        values = [GameHeuristics(g).evaluate(name, "red", [s])[0].value
                  for g, s in zip((on_clingo, on_network), states, strict=True)]
        assert values[0] == pytest.approx(values[1]), name
