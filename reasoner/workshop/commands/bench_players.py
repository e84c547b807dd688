"""``bench-players``: how strong each player is, at equal time per move (the measurement
itself is in :mod:`reasoner.workshop.player_strength`, which says how it plays)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reasoner.console.common import EXIT_OK, Commands, UsageError, read
from reasoner.console.numbers import SEED, at_least, seconds

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


def _bench_players(args: argparse.Namespace) -> int:
    from reasoner.console.players import STRATEGIES
    from reasoner.engine.game import Game
    from reasoner.workshop.player_strength import pairings, strength

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
        for player, opponent in pairings(players, len(game.roles)):
            row, mean, half = strength(game, stem, player, opponent, args.matches,
                                       args.seconds, args.seed)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                interval = f"{max(mean - half, 0):.1f}-{min(mean + half, 100):.1f}"
                print(f"{stem:22} {player:10} {row['opponent']:8} {args.matches:>7} "
                      f"{mean:>9.1f} {interval:>13} {row['wins']:>5} "
                      f"{row['draws']:>5} {row['losses']:>6}", flush=True)
    return EXIT_OK
