"""``bench-cluster``: a corpus slice swept in one process and on a Ray cluster in the same
run, and the cost of one task there (the measurement is in
:mod:`reasoner.workshop.cluster_speed`)."""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from reasoner.console.common import EXIT_FAILURE, EXIT_OK, Commands, UsageError
from reasoner.console.numbers import SEED, at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``bench-cluster``."""
    p = commands.add_parser("bench-cluster",
                            help="a corpus slice swept in one process and on a Ray cluster, "
                                 "and the cost of one task there")
    p.add_argument("folder", nargs="?", default="../shared/corpus")
    p.add_argument("--sample", type=at_least(1), default=40,
                   help="files of the folder, drawn with --seed")
    p.add_argument("--cluster", default="local", metavar="ADDRESS",
                   help="local (started for the run, one worker per core), auto or HOST:PORT")
    p.add_argument("--runs", type=at_least(1), default=3)
    p.add_argument("--playouts", type=at_least(0), default=3)
    p.add_argument("--timeout", type=seconds(), default=60.0, help="seconds per file")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.set_defaults(run=_bench_cluster)


def _bench_cluster(args: argparse.Namespace) -> int:
    from reasoner.console.cluster import open_runner
    from reasoner.corpus import game_files
    from reasoner.engine.limits import Limits
    from reasoner.workshop.cluster_speed import measure

    root = Path(args.folder)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder")
    paths = game_files(root, sample=args.sample, seed=args.seed)
    started = time.perf_counter()
    runner = open_runner(args.cluster)
    start_seconds = time.perf_counter() - started
    try:
        figures = measure(paths, runner, runs=args.runs, playouts=args.playouts,
                          seed=args.seed, limits=Limits(args.timeout, 4096))
    finally:
        runner.close()
    here = statistics.median(figures.here_seconds)
    there = statistics.median(figures.cluster_seconds)
    task = statistics.median(figures.task_ms)
    if args.json:
        print(json.dumps({"files": figures.files, "workers": figures.workers,
                          "cluster_start_seconds": round(start_seconds, 2),
                          "one_process_seconds": figures.here_seconds,
                          "cluster_seconds": figures.cluster_seconds,
                          "ratio": round(figures.ratio, 2), "task_ms": figures.task_ms,
                          "same_fates": figures.same_fates}))
    else:
        runs = ", ".join(f"{s:.1f}" for s in figures.here_seconds)
        print(f"{figures.files} files of {root}, {args.runs} runs, medians")
        print(f"cluster start ({args.cluster}, {figures.workers} workers): "
              f"{start_seconds:.1f} s (not counted)")
        print(f"one process:  {here:8.1f} s   (runs: {runs})")
        runs = ", ".join(f"{s:.1f}" for s in figures.cluster_seconds)
        print(f"cluster:      {there:8.1f} s   (runs: {runs})")
        print(f"ratio:        {figures.ratio:8.2f} times")
        print(f"per task:     {task:8.2f} ms   (an empty task through the cluster)")
        print(f"same fates:   {'yes' if figures.same_fates else 'NO'}")
    return EXIT_OK if figures.same_fates else EXIT_FAILURE
