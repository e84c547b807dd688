"""``bench-players``: how strong each player is, at equal time per move.

Each searching player plays ``--matches`` matches against a random player and against
MCTS (seats alternating; in a game of more roles the other seats are random players), and
plays a one-role game alone; the reasoner runs in process. Each row gives the player's
mean goal with a 95% interval (normal approximation: 1.96 standard errors) and its wins,
draws and losses (the highest goal alone wins, a shared highest draws; alone, 100 wins and
0 loses). Best-first is a one-role search and plays only one-role games; alpha-beta needs a
game where at most one role chooses at a time or reads simultaneous moves cautiously.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path

from reasoner.cli.common import EXIT_OK, Commands, UsageError, read
from reasoner.cli.numbers import SEED, at_least, seconds

__all__ = ["register"]

def register(commands: Commands) -> None:
    """Add ``bench-players``."""
    p = commands.add_parser("bench-players",
                            help="each player's mean goal against random and MCTS players "
                                 "at equal time per move")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--players", default="alphabeta,mcts,bestfirst",
                   help="the searching players to measure (comma-separated)")
    p.add_argument("--seconds", type=seconds(), default=0.2, help="time per move")
    p.add_argument("--matches", type=at_least(1), default=20, help="matches per pairing")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.set_defaults(run=_bench_players)


def _pairings(players: list[str], roles: int) -> list[tuple[str, str]]:
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


def _bench_players(args: argparse.Namespace) -> int:
    from client.match import play_match
    from client.players.strategies import STRATEGIES, make_player
    from reasoner.core.outcome import outcome
    from reasoner.engine.game import Game

    players = [p for p in args.players.split(",") if p]
    unknown = sorted(set(players) - set(STRATEGIES))
    if unknown:
        raise UsageError(f"unknown player {unknown[0]}; the players are "
                         f"{', '.join(STRATEGIES)}")
    if not args.json:
        print(f"{'game':22} {'player':10} {'against':8} {'matches':>7} {'mean goal':>9} "
              f"{'95% interval':>13} {'wins':>5} {'draws':>5} {'losses':>6}")
    for name in args.games:
        game = Game.from_gdl(read(name))
        stem = Path(name).stem
        roles = len(game.roles)
        for player, opponent in _pairings(players, roles):
            goals: list[float] = []
            outcomes = {"win": 0, "draw": 0, "loss": 0}
            started = time.monotonic()
            for k in range(args.matches):
                seat = k % roles
                seated = []
                for r in range(roles):
                    rng = random.Random(f"{args.seed}/{stem}/{player}/{opponent}/{k}/{r}")
                    who = player if r == seat else (opponent if roles == 2 else "random")
                    seated.append(make_player(who, rng))
                result = play_match(game, seated, seconds=args.seconds)
                goal = result.goals[seat]
                goals.append(float(goal) if goal is not None else 0.0)
                outcomes[outcome(result.goals, seat)] += 1
            mean = statistics.fmean(goals)
            half = (1.96 * statistics.stdev(goals) / math.sqrt(len(goals))
                    if len(goals) > 1 else 0.0)
            row = {"game": stem, "player": player, "opponent": opponent or "alone",
                   "matches": args.matches, "seconds_per_move": args.seconds,
                   "mean_goal": round(mean, 1), "ci95": round(half, 1),
                   "wins": outcomes["win"], "draws": outcomes["draw"],
                   "losses": outcomes["loss"],
                   "minutes": round((time.monotonic() - started) / 60, 2)}
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                interval = f"{max(mean - half, 0):.1f}-{min(mean + half, 100):.1f}"
                print(f"{stem:22} {player:10} {row['opponent']:8} {args.matches:>7} "
                      f"{mean:>9.1f} {interval:>13} {outcomes['win']:>5} "
                      f"{outcomes['draw']:>5} {outcomes['loss']:>6}", flush=True)
    return EXIT_OK
