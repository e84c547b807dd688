"""``bench-gdl2``: information-set sampling rates and the sampling player's strength
against random play on GDL-II games (the measurement is in
:mod:`reasoner.workshop.information_sets`, which says how)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from reasoner.console.common import BACKEND_CHOICES, EXIT_OK, Commands, UsageError, read
from reasoner.console.numbers import SEED, at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``bench-gdl2``."""
    p = commands.add_parser("bench-gdl2",
                            help="GDL-II: information-set sampling rates and the sampling "
                                 "player's mean goal against random play")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--turns", default="1,5,10",
                   help="the turns after which the information set is sampled")
    p.add_argument("--samples", type=at_least(1), default=20, help="states sampled a turn")
    p.add_argument("--matches", type=at_least(0), default=10,
                   help="matches per seated role for the strength table (0: none)")
    p.add_argument("--seconds", type=seconds(), default=0.2, help="time per move")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--backend", default="auto", choices=BACKEND_CHOICES,
                   help="the backend each game loads on (percepts come from the network on "
                        "native, from clingo elsewhere)")
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.set_defaults(run=_bench_gdl2)


def _bench_gdl2(args: argparse.Namespace) -> int:
    from reasoner.core.game_view import seated_roles
    from reasoner.engine.game import Game
    from reasoner.workshop.information_sets import sampling_rate, strength_against_random

    try:
        turns = [int(t) for t in args.turns.split(",") if t]
    except ValueError:
        raise UsageError(f"--turns takes counts separated by commas, got {args.turns!r}") \
            from None
    stems = [Path(name).stem for name in args.games]
    games = []
    for name, stem in zip(args.games, stems, strict=True):
        game = Game.from_gdl(read(name), backend=args.backend)
        if not game.is_gdl2:
            raise UsageError(f"{name} is not a GDL-II game (no sees rules, no random role)")
        # Games of one name are told apart by their folder.
        games.append((f"{Path(name).parent.name}/{stem}" if stems.count(stem) > 1 else stem,
                      game))
    if not args.json:
        print(f"{'game':34} {'role':10} {'turn':>4} {'states/s':>9} {'nodes/state':>11} "
              f"{'distinct':>8} {'percepts':>8}")
    for stem, game in games:
        for turn in turns:
            row = sampling_rate(game, stem, turn, args.samples, args.seed)
            if row is None:
                continue
            if args.json:
                print(json.dumps({"table": "sampling", **row}), flush=True)
            else:
                nodes = row["nodes_per_state"]
                print(f"{stem:34} {row['role']:10} {turn:>4} {row['states_per_second']:>9} "
                      f"{'-' if nodes is None else nodes:>11} "
                      f"{row['distinct']:>5}/{row['states']:<2} {row['percepts']:>8}",
                      flush=True)
    if args.matches == 0:
        return EXIT_OK
    if not args.json:
        print(f"\n{'game':34} {'role':10} {'matches':>7} {'sampling player':>16} "
              f"{'random player':>14} {'replaced':>8}")
    for stem, game in games:
        for seat in seated_roles(game):
            row = strength_against_random(game, stem, seat, args.matches, args.seconds,
                                          args.seed)
            if args.json:
                print(json.dumps({"table": "strength", **row}), flush=True)
            else:
                print(f"{stem:34} {row['role']:10} {row['matches']:>7} "
                      f"{row['sampling_mean']:>9.1f} ±{row['sampling_ci95']:<5.1f} "
                      f"{row['random_mean']:>7.1f} ±{row['random_ci95']:<5.1f} "
                      f"{row['replaced_moves']:>8}", flush=True)
    return EXIT_OK
