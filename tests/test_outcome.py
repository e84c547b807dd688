"""A match's win, draw or loss is computed in one place (reasoner.core.outcome), and every
tally of matches reads it: the GGP game manager's and bench-heuristics' agree, one-role
games included."""

from __future__ import annotations

import random

from client.ggp.game_manager import MatchRecord, tally
from client.match import play_match
from client.players import RandomPlayer
from reasoner.cli.heuristic_benchmarks import greedy_against_random
from reasoner.core.outcome import Outcome, outcome
from reasoner.heuristics.game_heuristics import GameHeuristics
from tests.conftest import bundled


def test_a_puzzle_solved_failed_or_half_done_is_a_win_loss_or_draw() -> None:
    """With one role, 100 wins, 0 (or no goal) loses and anything between draws."""
    assert [outcome([100], 0), outcome([0], 0), outcome([None], 0), outcome([40], 0)] == [
        Outcome.WIN, Outcome.LOSS, Outcome.LOSS, Outcome.DRAW]


def test_the_highest_goal_alone_wins_and_a_shared_one_draws() -> None:
    """With several roles, the highest goal alone wins, a shared highest draws, the rest
    lose; a role without a goal counts below 0."""
    assert [outcome([100, 0, 0], r) for r in range(3)] == ["win", "loss", "loss"]
    assert [outcome([50, 50, 0], r) for r in range(3)] == ["draw", "draw", "loss"]
    assert [outcome([None, 0], r) for r in range(2)] == ["loss", "win"]


def test_bench_heuristics_counts_a_failed_puzzle_as_a_loss() -> None:
    """bench-heuristics' random player on the bundled maze (one role), which it never
    solves in 60 steps, loses every match (it counted them as draws: 0 against no other
    role's goal)."""
    maze = bundled("maze")
    assert len(maze.roles) == 1
    found = greedy_against_random(GameHeuristics(maze), None, 4, seed=0, max_steps=60)
    assert (found.wins, found.draws, found.losses, found.mean_goal) == (0, 0, 4, 0.0)


def test_the_game_manager_and_bench_heuristics_count_a_match_alike() -> None:
    """A one-role match played on the bundled maze, recorded as the game manager records
    it, is tallied as outcome() says: a loss for a goal of 0."""
    maze = bundled("maze")
    result = play_match(maze, [RandomPlayer(random.Random(0))], max_steps=60)
    record = MatchRecord(match_id="m", game="maze", roles=list(maze.roles),
                         players=["random"], start_clock=1.0, play_clock=1.0,
                         goals=list(result.goals), terminal=True)
    (entry,) = tally([record])
    expected = outcome(result.goals, 0)
    assert expected == Outcome.LOSS
    assert (entry.wins, entry.draws, entry.losses) == (0, 0, 1)
