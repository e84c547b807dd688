"""Player strength: how strong each player is, at equal time per move (``bench-players``).

Each searching player plays ``--matches`` matches against a random player and against
MCTS (seats alternating; in a game of more roles the other seats are random players), and
plays a one-role game alone; the reasoner runs in process. Each match is one task
(:func:`play_one`), so that a cluster plays them side by side; given a number of MCTS
iterations instead of a time per move (``--playouts``), MCTS plays the same moves wherever
it runs, and the rows are the same on one machine or many. Each row gives the player's
mean goal with a 95% interval (normal approximation: 1.96 standard errors) and its wins,
draws and losses (the highest goal alone wins, a shared highest draws; alone, 100 wins and
0 loses). Best-first is a one-role search and plays only one-role games; alpha-beta needs a
game where at most one role chooses at a time or reads simultaneous moves cautiously.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Any

__all__ = ["pairings", "play_one", "strength_row"]


def pairings(players: list[str], roles: int) -> list[tuple[str, str]]:
    """(player, opponent) to measure; the opponent "" for a one-role game."""
    if roles == 1:
        return [(p, "") for p in [*players, "random"]]
    pairs = []
    for player in players:
        if player == "bestfirst":
            continue
        pairs.append((player, "random"))
        if player != "mcts":
            pairs.append((player, "mcts"))
    return pairs


def play_one(text: str, stem: str, player: str, opponent: str, k: int,
             seconds: float | None, seed: int, playouts: int) -> tuple[float, str]:
    """Match ``k`` of ``player`` against ``opponent`` ("" alone) on the game ``text``
    (called ``stem``): its seat is ``k`` modulo the roles, ``seconds`` per move (None: each
    player's own budget, MCTS ``playouts`` iterations). The player's goal (0 for none) and
    its outcome ("win", "draw" or "loss"). One task of ``bench-players`` on a cluster; the
    game is loaded once per process."""
    from reasoner.console.cluster import game_from_text
    from reasoner.console.players import make_player, play_match
    from reasoner.core.outcome import outcome

    game = game_from_text(text)
    roles = len(game.roles)
    seat = k % roles
    seated = []
    for r in range(roles):
        rng = random.Random(f"{seed}/{stem}/{player}/{opponent}/{k}/{r}")
        who = player if r == seat else (opponent if roles == 2 else "random")
        seated.append(make_player(who, rng, playouts=playouts,
                                  seconds=seconds if seconds is not None else 1.0))
    result = play_match(game, seated, seconds=seconds)
    goal = result.goals[seat]
    return (float(goal) if goal is not None else 0.0), outcome(result.goals, seat)


def strength_row(stem: str, player: str, opponent: str, played: list[tuple[float, str]],
                 seconds: float | None, playouts: int,
                 minutes: float) -> tuple[dict[str, Any], float, float]:
    """The row of ``played`` (each match's goal and outcome, from :func:`play_one`): the
    player's mean goal with the half-width of a 95% interval, its wins, draws and losses.
    Returned with the mean and the half-width unrounded (the row holds them rounded)."""
    goals = [goal for goal, _ in played]
    outcomes = {"win": 0, "draw": 0, "loss": 0}
    for _, result in played:
        outcomes[result] += 1
    mean = statistics.fmean(goals)
    half = (1.96 * statistics.stdev(goals) / math.sqrt(len(goals))
            if len(goals) > 1 else 0.0)
    row = {"game": stem, "player": player, "opponent": opponent or "alone",
           "matches": len(played), "seconds_per_move": seconds,
           "playouts": playouts if seconds is None else None,
           "mean_goal": round(mean, 1), "ci95": round(half, 1),
           "wins": outcomes["win"], "draws": outcomes["draw"],
           "losses": outcomes["loss"], "minutes": round(minutes, 2)}
    return row, mean, half
