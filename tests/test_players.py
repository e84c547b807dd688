"""Players and the match runner, played against a real reasoner service on port 0.

The contract (``client/players``, ``client/match.py``): players only ever choose legal moves;
MCTS runs decoupled UCT, so simultaneous games need nothing special; one match runner plays
any number of roles and reports one goal per role; MCTS at 100 playouts per move does not
lose tic-tac-toe to a random player; ``gdl-reasoner match`` plays a match from the shell.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client import ReasonerClient, RemoteGame, State, StateInfo
from client.match import MatchResult, MatchStep, play_match
from client.players import MctsPlayer, Player, RandomPlayer
from reasoner import Game
from reasoner.core.game_view import GameView
from reasoner.errors import IllegalMoveError
from reasoner.server.app import create_server

PROJECT = Path(__file__).resolve().parents[1]
GAMES = PROJECT / "games"


@pytest.fixture(scope="module")
def reasoner() -> Iterator[ReasonerClient]:
    """A client of a real service on a free port, stopped after the module."""
    server, port, _ = create_server("127.0.0.1:0", games=None)
    client = ReasonerClient(f"127.0.0.1:{port}")
    yield client
    client.close()
    server.stop(None)


def load(reasoner: ReasonerClient, name: str) -> RemoteGame:
    """A bundled game, loaded on the service."""
    return reasoner.load_game((GAMES / f"{name}.kif").read_text(encoding="utf-8"))


class _Stubborn:
    """A player that always answers the same move id, legal or not."""

    name = "stubborn"

    def __init__(self, move: int) -> None:
        self.move = move

    def start(self, game: GameView[Any], role_index: int) -> None:
        del game, role_index

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        del state, info, deadline
        return self.move


# -- players ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tictactoe", "rps", "threeplayer", "nim"])
def test_random_player_chooses_only_legal_moves(reasoner: ReasonerClient, name: str) -> None:
    """In every state of seeded random matches, each role's choice is one of its legal moves."""
    game = load(reasoner, name)
    for seed in range(3):
        players = [RandomPlayer(random.Random(seed * 10 + i)) for i in range(len(game.roles))]
        for index, player in enumerate(players):
            player.start(game, index)
        state, info = game.initial()
        while not info.terminal:
            joint = tuple(player.choose(state, info) for player in players)
            for index, move in enumerate(joint):
                assert move in info.legal[index]
            state, info = game.step(state, joint)


def test_mcts_plays_simultaneous_rps_with_decoupled_statistics(reasoner: ReasonerClient) -> None:
    """Two MCTS players finish rock-paper-scissors (simultaneous moves), each having tried
    all three hands for its own role at the first state."""
    game = load(reasoner, "rps")
    players = [MctsPlayer(random.Random(i), playouts=60) for i in range(2)]
    first: list[State] = []

    def remember(step: MatchStep) -> None:
        if step.number == 1:
            first.append(step.state)

    result = play_match(game, players, on_step=remember)
    assert result.terminal
    assert result.goals in ((100, 0), (0, 100), (50, 50))
    for player in players:
        statistics = player.move_statistics(first[0])
        assert len(statistics) == 3
        assert all(visits > 0 for visits, _ in statistics.values())
        assert sum(visits for visits, _ in statistics.values()) >= 60


# -- match runner -------------------------------------------------------------------------


def test_match_runner_reports_one_goal_per_role(reasoner: ReasonerClient) -> None:
    """A tic-tac-toe match ends terminal with one goal per role and every joint move as
    GDL text, one text per role."""
    game = load(reasoner, "tictactoe")
    result = play_match(game, [RandomPlayer(random.Random(1)), RandomPlayer(random.Random(2))])
    assert result.terminal
    assert result.roles == ("xplayer", "oplayer")
    assert len(result.goals) == 2 and all(g in (0, 50, 100) for g in result.goals)
    assert result.steps == len(result.moves) >= 5
    assert all(len(joint) == 2 and "noop" in joint for joint in result.moves)


def test_match_runner_plays_three_player_game(reasoner: ReasonerClient) -> None:
    """Race to Ten with three roles is played to the end: one winner at 100, two at 0."""
    game = load(reasoner, "threeplayer")
    players: list[Player] = [MctsPlayer(random.Random(0), playouts=30),
                             RandomPlayer(random.Random(1)), RandomPlayer(random.Random(2))]
    result = play_match(game, players)
    assert result.terminal
    assert result.goals.count(100) == 1 and result.goals.count(0) == 2
    assert all(len(joint) == 3 for joint in result.moves)


def test_match_runner_refuses_an_illegal_move(reasoner: ReasonerClient) -> None:
    """A player that answers a move not legal for its role stops the match with
    IllegalMoveError naming the player's role and move."""
    game = load(reasoner, "tictactoe")
    noop = game.move_id("oplayer", "noop")
    with pytest.raises(IllegalMoveError) as caught:
        play_match(game, [_Stubborn(noop), RandomPlayer(random.Random(0))])
    assert (caught.value.role, caught.value.move_id, caught.value.reason) == (
        "xplayer", noop, "not-legal")


# -- strength -----------------------------------------------------------------------------


def _score(result: MatchResult, role: int) -> int:
    """+1 for a win of ``role``, 0 for a draw, -1 for a loss."""
    mine, theirs = result.goals[role], result.goals[1 - role]
    assert mine is not None and theirs is not None
    return (mine > theirs) - (mine < theirs)


@pytest.mark.slow  # 20 matches of 100 playouts per move: 6 s, too slow for make test-fast
def test_mcts_does_not_lose_tictactoe_to_random(reasoner: ReasonerClient) -> None:
    """MCTS at 100 playouts per move, 10 seeded games as each role against a random player,
    loses none and wins at least 15 of the 20."""
    game = load(reasoner, "tictactoe")
    scores = []
    for role in (0, 1):
        for seed in range(10):
            mcts = MctsPlayer(random.Random(seed), playouts=100)
            opponent = RandomPlayer(random.Random(1000 + seed))
            players: list[Player] = [mcts, opponent] if role == 0 else [opponent, mcts]
            scores.append(_score(play_match(game, players), role))
    assert scores.count(-1) == 0, scores
    assert scores.count(1) >= 15, scores


def test_one_match_loop_plays_in_process_and_on_a_service(reasoner: ReasonerClient) -> None:
    """The same players and the same seeds give the same match whether the game is a
    ``Game`` in process or a ``RemoteGame`` on the service: one loop, one game view."""
    text = (GAMES / "nim.kif").read_text(encoding="utf-8")
    results = []
    for game in (Game.from_gdl(text), reasoner.load_game(text)):
        players: list[Player] = [RandomPlayer(random.Random(5)), RandomPlayer(random.Random(6))]
        results.append(play_match(game, players))
    assert results[0] == results[1]
    assert results[0].terminal and results[0].steps > 0


def test_mcts_plays_in_process_with_in_process_playouts() -> None:
    """MCTS searches an in-process ``Game`` (its playouts run by the engine's random walk)
    and, at 100 playouts per move, does not lose tic-tac-toe to a random player."""
    game = Game.from_file(GAMES / "tictactoe.kif")
    for seed in range(2):
        mcts = MctsPlayer(random.Random(seed), playouts=100)
        result = play_match(game, [mcts, RandomPlayer(random.Random(100 + seed))])
        assert result.terminal and result.goals[0] is not None
        assert result.goals[0] >= (result.goals[1] or 0), result


# -- command line -------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m reasoner.cli ARGS`` from the project root and capture its output."""
    return subprocess.run([sys.executable, "-m", "reasoner.cli", *args], cwd=PROJECT,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.slow  # about 1.3 s
def test_cli_match_plays_tictactoe_and_prints_the_result() -> None:
    """``match games/tictactoe.kif --players mcts,random`` prints numbered joint moves and a
    result line with both goals, exit 0."""
    result = run_cli("match", "games/tictactoe.kif", "--players", "mcts,random",
                     "--playouts", "50", "--seed", "1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("step 1: xplayer ") and ", oplayer noop" in lines[0]
    assert lines[-1].startswith("result: xplayer ")
    assert ", oplayer " in lines[-1] and f"after {len(lines) - 1} steps" in lines[-1]


def test_cli_match_unknown_player_exits_2_with_one_line() -> None:
    """An unknown player name prints one line on stderr and exits 2."""
    result = run_cli("match", "games/tictactoe.kif", "--players", "mcts,alphazero")
    assert result.returncode == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "alphazero" in line
