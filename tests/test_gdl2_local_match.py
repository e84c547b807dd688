"""Local matches (client.match.play_match, ``gdl-reasoner match``) of GDL-II games.

A player of ``play_match`` is given the full state, which a GDL-II role must never see. So a
GDL-II match is played by the loop itself: ``random`` moved uniformly (seeded), every other
seat a SamplingPlayer told only its own moves and percepts, whatever players were named;
the players given are never started nor asked. Monty Hall (games/montyhall.kif) on a real
server (port 0) and in process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import client.match
from client import ReasonerClient
from client.match import MatchStep, play_match
from client.players.sampling import InformationGame, SamplingPlayer
from client.reasoner_client import RemoteGame
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo
from reasoner.engine.game import Game
from tests.conftest import GAMES
from tests.service_support import CALL_TIMEOUT, game_text, running_server

PROJECT = Path(__file__).resolve().parent.parent
SECONDS = 0.05  # the sampling player's time per move: enough for Monty Hall


class _Untouchable:
    """A player that fails the test if the match starts it or asks it for a move."""

    name = "untouchable"

    def start(self, game: GameView[Any], role_index: int) -> None:
        raise AssertionError(f"a GDL-II match started a player as role {role_index}")

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        raise AssertionError("a GDL-II match asked a player for a move")


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteGame]:
    """Monty Hall on a real server of the module."""
    with running_server() as server, ReasonerClient(server.target,
                                                    timeout=CALL_TIMEOUT) as connected:
        yield connected.load_game(game_text("montyhall"))


@pytest.fixture(scope="module")
def local() -> Game:
    """Monty Hall in process."""
    return Game.from_file(GAMES / "montyhall.kif")


def _all_legal(game: GameView[Any], steps: list[MatchStep], role: int) -> bool:
    """Whether ``role``'s move at each step was legal in the state it was played in."""
    return all(step.joint_move[role] in game.info(step.state).legal[role] for step in steps)


def test_a_remote_match_asks_no_given_player(remote: RemoteGame) -> None:
    """play_match of Monty Hall on the service plays to the end (3 joint moves) without
    starting or asking the player named for the candidate; random's moves are legal ones
    drawn by the loop, and the result's note says the sampling player played instead."""
    steps: list[MatchStep] = []
    result = play_match(remote, [_Untouchable()], seconds=SECONDS, seed=1,
                        on_step=steps.append)
    assert result.terminal and result.steps == 3
    nature = remote.roles.index("random")
    assert _all_legal(remote, steps, nature)
    assert [moves[nature].split()[0] for moves in result.moves] == [
        "(hide_car", "(open_door", "noop"]
    assert "sampling player" in result.note and "random" in result.note
    assert "untouchable" in result.note


def test_a_player_for_random_is_never_asked(local: Game) -> None:
    """With one player per role (random's included) the match runs all the same and asks
    neither: random's move is never asked of a player."""
    result = play_match(local, [_Untouchable(), _Untouchable()], seconds=SECONDS, seed=2)
    assert result.terminal and result.steps == 3
    assert result.goals[local.roles.index("random")] == 0


def test_random_is_seeded(local: Game) -> None:
    """The same seed draws the same hiding place for the car (random's first move)."""
    nature = local.roles.index("random")
    first = {play_match(local, [_Untouchable()], seconds=SECONDS, seed=7).moves[0][nature]
             for _ in range(3)}
    assert len(first) == 1


def test_the_sampling_player_is_told_only_its_own_history(
        local: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each time the sampling player is asked, the history it is given is its own move and
    its own percepts per earlier turn, as the game's percepts of the played joint moves
    say, and never the state."""
    asked: list[list[tuple[str, tuple[str, ...]]]] = []

    class Recording(SamplingPlayer):
        def choose(self, game: InformationGame, role: int,
                   history: Sequence[tuple[str, Sequence[str]]], deadline: float,
                   refused: Mapping[int, str] | None = None) -> int:
            asked.append([(move, tuple(seen)) for move, seen in history])
            return super().choose(game, role, history, deadline, refused)

    monkeypatch.setattr(client.match, "SamplingPlayer", Recording)
    steps: list[MatchStep] = []
    play_match(local, [_Untouchable()], seconds=SECONDS, seed=3, on_step=steps.append)
    candidate = local.roles.index("candidate")
    truth = []
    for step in steps:
        seen = local.percept_ids(step.state, step.joint_move)[candidate]
        truth.append((step.moves[candidate],
                      tuple(local.percept_table[i][1] for i in seen)))
    assert asked and all(history == truth[:len(history)] for history in asked)
    assert asked[0] == []  # the first choice: nothing seen yet


def test_a_wrong_number_of_players_is_refused(local: Game) -> None:
    """Three players for Monty Hall (one role to seat) is a ValueError naming the seat."""
    with pytest.raises(ValueError, match="1 roles to seat \\(candidate"):
        play_match(local, [_Untouchable()] * 3, seconds=SECONDS)


@pytest.mark.slow  # about 1 s
def test_the_cli_prints_the_note_and_plays() -> None:
    """``gdl-reasoner match games/montyhall.kif --players mcts`` prints the note that the
    sampling player plays the candidate and random is moved by the match, then plays the
    match to its result."""
    done = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "match", "games/montyhall.kif",
         "--players", "mcts", "--seconds", "0.05", "--seed", "5"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("note: GDL-II game: random is moved uniformly")
    assert "candidate (mcts)" in lines[0]
    assert lines[-1].startswith("result: candidate ") and "after 3 steps" in lines[-1]
