"""Player strength: how strong each player is, at equal time per move (``bench-players``).

Each searching player plays ``--matches`` matches against a random player and against
MCTS (seats alternating; in a game of more roles the other seats are random players), and
plays a one-role game alone; the reasoner runs in process. Each row gives the player's
mean goal with a 95% interval (normal approximation: 1.96 standard errors) and its wins,
draws and losses (the highest goal alone wins, a shared highest draws; alone, 100 wins and
0 loses). Best-first is a one-role search and plays only one-role games; alpha-beta needs a
game where at most one role chooses at a time or reads simultaneous moves cautiously.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reasoner.engine.game import Game

__all__ = ["pairings", "strength"]


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


def strength(game: Game, stem: str, player: str, opponent: str, matches: int,
             seconds: float, seed: int) -> tuple[dict[str, Any], float, float]:
    """One row: ``matches`` matches of ``player`` against ``opponent`` ("" alone) on
    ``game`` (named ``stem``), its seat alternating, ``seconds`` per move; its mean goal
    with the half-width of a 95% interval, its wins, draws and losses. Returned with the
    mean and the half-width unrounded (the row holds them rounded)."""
    from reasoner.console.players import make_player, play_match
    from reasoner.core.outcome import outcome

    roles = len(game.roles)
    goals: list[float] = []
    outcomes = {"win": 0, "draw": 0, "loss": 0}
    started = time.monotonic()
    for k in range(matches):
        seat = k % roles
        seated = []
        for r in range(roles):
            rng = random.Random(f"{seed}/{stem}/{player}/{opponent}/{k}/{r}")
            who = player if r == seat else (opponent if roles == 2 else "random")
            seated.append(make_player(who, rng))
        result = play_match(game, seated, seconds=seconds)
        goal = result.goals[seat]
        goals.append(float(goal) if goal is not None else 0.0)
        outcomes[outcome(result.goals, seat)] += 1
    mean = statistics.fmean(goals)
    half = (1.96 * statistics.stdev(goals) / math.sqrt(len(goals))
            if len(goals) > 1 else 0.0)
    row = {"game": stem, "player": player, "opponent": opponent or "alone",
           "matches": matches, "seconds_per_move": seconds,
           "mean_goal": round(mean, 1), "ci95": round(half, 1),
           "wins": outcomes["win"], "draws": outcomes["draw"],
           "losses": outcomes["loss"],
           "minutes": round((time.monotonic() - started) / 60, 2)}
    return row, mean, half
