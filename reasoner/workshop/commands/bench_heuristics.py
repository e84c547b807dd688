"""``bench-heuristics``: heuristic evaluations per second, and greedy players against random
ones (the measurements themselves are in :mod:`reasoner.workshop.heuristic_rates`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from reasoner.console.common import (
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    failure,
    limit_options,
    limits,
    read,
)
from reasoner.console.numbers import SEED, at_least
from reasoner.errors import ReasonerError

__all__ = ["HEURISTIC_BENCH", "register"]

# The heuristics bench-heuristics measures by default.
HEURISTIC_BENCH = ("hff", "fjo", "fuzzy")


def register(commands: Commands) -> None:
    """Add ``bench-heuristics``."""
    p = commands.add_parser(
        "bench-heuristics",
        help="heuristic evaluations per second, and greedy players against random ones")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--heuristics", default=",".join(HEURISTIC_BENCH), metavar="LIST",
                   help="comma-separated heuristic names")
    p.add_argument("--states", type=at_least(1), default=40, help="sampled states to evaluate")
    p.add_argument("--runs", type=at_least(1), default=5, help="timed runs (the median is printed)")
    p.add_argument("--matches", type=at_least(0), default=20,
                   help="matches per player against random players (0: none)")
    p.add_argument("--seed", type=SEED, default=0)
    limit_options(p)
    p.set_defaults(run=_bench_heuristics)


def _bench_heuristics(args: argparse.Namespace) -> int:
    from reasoner.core.walk import sample_states
    from reasoner.engine.game import Game
    from reasoner.heuristics.game_heuristics import GameHeuristics
    from reasoner.heuristics.table import parse_parameters
    from reasoner.workshop.heuristic_rates import (
        evaluation_rate,
        greedy_against_random,
        playout_rate,
    )

    names = [n.strip() for n in args.heuristics.split(",") if n.strip()]
    try:
        for name in names:
            parse_parameters(name, {})
    except ReasonerError as error:
        raise UsageError(str(error)) from None
    print(f"# {time.strftime('%Y-%m-%d')}: medians of {args.runs} runs over {args.states} "
          f"sampled states; greedy one-ply player against random players, "
          f"{args.matches} matches, seats alternating")
    for path in args.games:
        try:
            game = Game.from_gdl(read(path), limits=limits(args))
            heuristics = GameHeuristics(game)
            states = [state for state, _ in sample_states(game, game.initial_state, args.states,
                                                             seed=args.seed)]
            role = game.roles[0]
            rates = {name: evaluation_rate(heuristics, name, role, states, runs=args.runs)
                     for name in names}
            baseline = playout_rate(game, states, runs=args.runs, seed=args.seed)
        except (ReasonerError, CommandError) as error:
            failure(error, path)
            continue
        stem = Path(path).stem
        shown = ", ".join(f"{name} {rate:,.0f}" for name, rate in rates.items())
        print(f"{stem}: evaluations/s for {role}: {shown}; one random playout "
              f"{baseline:,.0f}")
        if args.matches <= 0:
            continue
        random_tally = greedy_against_random(heuristics, None, args.matches, seed=args.seed)
        print(f"{stem}: random player wins {random_tally.win_rate:.0%} "
              f"(draws {random_tally.draws}, mean goal {random_tally.mean_goal:.1f})")
        for name in names:
            try:
                tally = greedy_against_random(heuristics, name, args.matches, seed=args.seed)
            except ReasonerError as error:
                print(f"{stem}: greedy on {name}: {type(error).__name__}: {error}")
                continue
            print(f"{stem}: greedy on {name} wins {tally.win_rate:.0%} (draws {tally.draws}, "
                  f"mean goal {tally.mean_goal:.1f})")
        sys.stdout.flush()
    return EXIT_OK
