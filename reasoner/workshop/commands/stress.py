"""``stress``: a steady client's Query latency on a server alone, then while blow-ups run
(the measurement itself is in :mod:`reasoner.workshop.server_stress`, which says what
blows up)."""

from __future__ import annotations

import argparse
import json

from reasoner.console.common import EXIT_OK, Commands
from reasoner.console.numbers import at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``stress``."""
    p = commands.add_parser(
        "stress", help="a steady client's Query latency alone and while blow-ups run")
    p.add_argument("--seconds", type=seconds(), default=30.0, help="length of each phase")
    p.add_argument("--blowups", type=at_least(0), default=8, help="threads sending blow-ups")
    p.add_argument("--deadline", type=seconds(), default=15.0,
                   help="seconds each blow-up request may take")
    p.add_argument("--max-heavy", type=at_least(1), default=2, help="the server's --max-heavy")
    p.add_argument("--max-costly", type=at_least(1), default=2,
                   help="the server's --max-costly (a large one, 1000 say, is as good as "
                        "none: the comparison)")
    p.add_argument("--simulates", type=at_least(0), default=0,
                   help="threads sending large Simulates (connect four) besides the blow-ups")
    p.add_argument("--playouts", type=at_least(1), default=300_000,
                   help="playouts of each of those Simulates")
    p.add_argument("--previews", type=at_least(0), default=0,
                   help="threads sending preview messages of exploding games to an HTTP "
                        "player beside the server")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_stress)


def _stress(args: argparse.Namespace) -> int:
    from reasoner.workshop.server_stress import measure_stress

    figures = measure_stress(args.seconds, args.blowups, args.deadline, args.max_heavy,
                             args.simulates, args.playouts, args.max_costly,
                             args.previews)
    if args.json:
        print(json.dumps(figures))
        return EXIT_OK
    print(f"steady Query on tic-tac-toe, {args.seconds:g} s per phase, server with "
          f"--max-heavy {args.max_heavy} --max-costly {args.max_costly}:")
    for name in ("alone", "blowups"):
        f = figures[name]
        label = "alone" if name == "alone" else f"with {args.blowups} blow-ups" + (
            f", {args.simulates} Simulates" if args.simulates else "") + (
            f", {args.previews} previews" if args.previews else "")
        print(f"  {label:18} {f['queries']:>7,} queries  median {f['median_ms']:6.2f} ms  "
              f"p99 {f['p99_ms']:7.2f} ms  max {f['max_ms']:8.1f} ms  errors {f['errors']}")
    print("  blow-ups answered: " + ", ".join(f"{k} {v}" for k, v in
                                             figures["blowup_codes"].items()))
    print(f"  server resident memory: {figures['resident_mb_before']:,} MiB before, "
          f"{figures['resident_mb_peak_phase']:,} MiB at most during the blow-ups, "
          f"{figures['resident_mb_after']:,} MiB after")
    return EXIT_OK
