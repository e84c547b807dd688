"""``sweep``: load and play every game of a folder, or instantiate it, and report each
file's fate (the sweep itself is in :mod:`reasoner.workshop.corpus_sweep`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from reasoner.console.cluster import cluster_options
from reasoner.console.common import (
    EXIT_FAILURE,
    EXIT_OK,
    Commands,
    UsageError,
    strictness_options,
)
from reasoner.console.numbers import MEBIBYTES, SEED, at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``sweep``."""
    p = commands.add_parser("sweep", help="load and play every .kif file under a folder")
    p.add_argument("folder", nargs="?", default="../shared/corpus")
    p.add_argument("--timeout", type=seconds(), default=60.0, help="seconds per file")
    p.add_argument("--memory", type=MEBIBYTES, default=4096, help="MiB per file")
    p.add_argument("--playouts", type=at_least(0), default=3)
    p.add_argument("--max-steps", type=at_least(1), default=200)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per file")
    strictness_options(p)
    p.add_argument("--check-timeout", type=seconds(zero=True), default=0.0,
                   help="with --instantiate: seconds for the playout check of each "
                        "instantiated game (default: --timeout)")
    p.add_argument("--instantiate", action="store_true",
                   help="instantiate each file and check that the ground game plays alike")
    cluster_options(p)
    p.set_defaults(run=_sweep)


def _sweep(args: argparse.Namespace) -> int:
    from reasoner.console.cluster import task_run
    from reasoner.console.progress import count_line
    from reasoner.corpus import Fate, game_files
    from reasoner.engine.limits import Limits
    from reasoner.workshop.corpus_sweep import SweepResult, format_table, summarise, sweep_tasks

    started = time.monotonic()
    root = Path(args.folder)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder")
    paths = game_files(root)
    tasks = sweep_tasks(paths, limits=Limits(args.timeout, args.memory),
                        playouts=args.playouts, max_steps=args.max_steps, seed=args.seed,
                        strict=args.strict, instantiation=args.instantiate,
                        check_limits=Limits(args.check_timeout, args.memory)
                        if args.check_timeout else None)
    fates: list[SweepResult] = []
    with task_run(args, "sweep") as run:
        for i, fate in enumerate(run.results(tasks, SweepResult.failed_task,
                                             encode=SweepResult.as_dict,
                                             decode=SweepResult.from_dict)):
            fates.append(fate)
            if args.json:
                print(json.dumps(fate.as_dict()), flush=True)
            else:
                print(count_line(i + 1, len(paths), time.monotonic() - started,
                                 f"{fate.fate:<12} {fate.path}"), file=sys.stderr, flush=True)
    if not args.json:
        print(format_table(fates, root))
    return EXIT_FAILURE if summarise(fates).get(Fate.FAILED) else EXIT_OK
