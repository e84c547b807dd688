"""``bench-players``: how strong each player is, at equal time per move (the measurement
itself is in :mod:`reasoner.workshop.player_strength`, which says how it plays)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reasoner.console.cluster import cluster_options
from reasoner.console.common import EXIT_OK, Commands, UsageError, read
from reasoner.console.numbers import SEED, at_least, seconds

if TYPE_CHECKING:
    from reasoner.console.cluster import Task

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
    p.add_argument("--playouts", type=at_least(1), default=None, metavar="N",
                   help="instead of --seconds, MCTS's iterations per move: the same moves "
                        "on any machine (alpha-beta and best-first still take --seconds)")
    p.add_argument("--matches", type=at_least(1), default=20, help="matches per pairing")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    cluster_options(p)
    p.set_defaults(run=_bench_players)


def _bench_players(args: argparse.Namespace) -> int:
    import time

    from reasoner.console.cluster import Task, game_from_text, task_run
    from reasoner.console.players import STRATEGIES
    from reasoner.console.progress import count_line
    from reasoner.workshop.player_strength import pairings, play_one, strength_row

    players = [p for p in args.players.split(",") if p]
    unknown = sorted(set(players) - set(STRATEGIES))
    if unknown:
        raise UsageError(f"unknown player {unknown[0]}; the players are "
                         f"{', '.join(STRATEGIES)}")
    seconds = None if args.playouts is not None else args.seconds
    with task_run(args, "bench-players") as run:
        games = [(name, read(name)) for name in args.games]
        rows = []  # (game, player, opponent) in the order of the table
        for name, text in games:
            roles = len(game_from_text(text).roles)
            rows += [(name, text, pair) for pair in pairings(players, roles)]
        tasks = (Task(f"{Path(name).stem} {player} {opponent or 'alone'} {k}", play_one,
                      (text, Path(name).stem, player, opponent, k, seconds, args.seed,
                       args.playouts or 100))
                 for name, text, (player, opponent) in rows for k in range(args.matches))
        results = run.results(tasks, _failed, encode=list, decode=tuple)
        if not args.json:
            print(f"{'game':22} {'player':10} {'against':8} {'matches':>7} "
                  f"{'mean goal':>9} {'95% interval':>13} {'wins':>5} {'draws':>5} "
                  f"{'losses':>6}")
        total = len(rows) * args.matches
        began = time.monotonic()
        for number, (name, _, (player, opponent)) in enumerate(rows):
            started = time.monotonic()
            stem = Path(name).stem
            played = []
            for _ in range(args.matches):
                played.append(next(results))
                done = number * args.matches + len(played)
                print(count_line(done, total, time.monotonic() - began,
                                 f"{stem} {player} against {opponent or 'alone'}"),
                      file=sys.stderr, flush=True)
            row, mean, half = strength_row(stem, player, opponent, played, seconds,
                                           args.playouts or 100,
                                           (time.monotonic() - started) / 60)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                interval = f"{max(mean - half, 0):.1f}-{min(mean + half, 100):.1f}"
                print(f"{stem:22} {player:10} {row['opponent']:8} {args.matches:>7} "
                      f"{mean:>9.1f} {interval:>13} {row['wins']:>5} "
                      f"{row['draws']:>5} {row['losses']:>6}", flush=True)
    return EXIT_OK


def _failed(task: Task, why: str) -> tuple[float, str]:
    """A match that could not be played on the cluster: counted lost, with goal 0."""
    print(f"gdl-reasoner: match {task.key}: {why}", file=sys.stderr)
    return 0.0, "loss"
