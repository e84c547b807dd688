"""``dataset``: positions for learning players, sampled along seeded random playouts and
written as JSON Lines or Parquet (the rows are made in :mod:`reasoner.workshop.dataset`;
the schema is in docs/guides/datasets.md)."""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from reasoner.console.cluster import cluster_options
from reasoner.console.common import (
    BACKEND_CHOICES,
    EXIT_FAILURE,
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    failure,
    read,
)
from reasoner.console.numbers import SEED, at_least, between
from reasoner.errors import ReasonerError

if TYPE_CHECKING:
    from reasoner.console.cluster import TaskRun

__all__ = ["MOST_BYTES", "MOST_POSITIONS", "register"]

# The most positions a game may ask for: more is a typing slip.
MOST_POSITIONS = 10_000_000
# The largest output the rough estimate may reach (and never more than the free disk).
MOST_BYTES = 4 * 2**30
# Rows a Parquet row group holds (so that a large dataset is never held in memory whole).
BATCH = 10_000
INSTALL = "pip install '.[dataset]'"


def register(commands: Commands) -> None:
    """Add ``dataset``."""
    p = commands.add_parser(
        "dataset",
        help="positions for learning players, sampled along seeded random playouts, as JSON "
             "Lines or Parquet")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--positions", type=between(1, MOST_POSITIONS), required=True,
                   metavar="N", help=f"rows per game (1 to {MOST_POSITIONS:,})")
    p.add_argument("--seed", type=SEED, default=0,
                   help="the seed of every playout: the same command writes the same rows")
    p.add_argument("--playouts", type=at_least(0), default=0, metavar="M",
                   help="random playouts from each position whose outcome statistics the row "
                        "holds (0: none)")
    p.add_argument("--heuristic", action="append", default=[], metavar="NAME",
                   help="a heuristic whose value for each role the row holds (repeatable)")
    p.add_argument("--max-steps", type=at_least(0), default=1000,
                   help="joint moves after which a playout stops (the sampled ones and those "
                        "of --playouts)")
    p.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                   help="JSON Lines, or Parquet (needs pyarrow: pip install '.[dataset]')")
    p.add_argument("--output", "-o", default="-", metavar="PATH",
                   help="the file to write (- or none: standard output, JSON Lines only)")
    p.add_argument("--backend", default="auto", choices=BACKEND_CHOICES,
                   help="the backend each game loads on")
    cluster_options(p)
    p.set_defaults(run=_dataset)


def _dataset(args: argparse.Namespace) -> int:
    from reasoner.heuristics.table import parse_parameters

    try:
        for name in args.heuristic:
            parse_parameters(name, {})
    except ReasonerError as error:
        raise UsageError(str(error)) from None
    to_stdout = args.output == "-"
    pa = pq = None
    if args.format == "parquet":
        if to_stdout:
            raise UsageError("--format parquet needs --output PATH")
        try:
            pa = importlib.import_module("pyarrow")
            pq = importlib.import_module("pyarrow.parquet")
        except ImportError:
            raise UsageError(f"--format parquet needs pyarrow: {INSTALL}") from None
    from reasoner.console.cluster import task_run

    with task_run(args, "dataset") as run:
        return _sample(args, run, pa, pq)


def _sample(args: argparse.Namespace, run: TaskRun, pa: Any, pq: Any) -> int:
    """The rows, written where ``--output`` says, by ``run``'s tasks."""
    from reasoner.console.cluster import game_from_text
    from reasoner.workshop.dataset import estimate_row_bytes

    to_stdout = args.output == "-"
    games = []
    texts = {}
    for path in args.games:
        try:
            texts[path] = read(path)
            # Loaded once per process: a batch run here takes this one.
            games.append((path, game_from_text(texts[path], args.backend)))
        except ReasonerError as error:
            return failure(error, path)
    stems = [Path(path).stem for path, _ in games]
    named = [(f"{Path(path).parent.name}/{stem}" if stems.count(stem) > 1 else stem, game)
             for (path, game), stem in zip(games, stems, strict=True)]
    estimate = args.positions * sum(
        estimate_row_bytes(game, name, playouts=args.playouts, heuristics=args.heuristic)
        for name, game in named)
    bound, why = MOST_BYTES, f"the bound of {_size(MOST_BYTES)}"
    if not to_stdout:
        folder = Path(args.output).resolve().parent
        if not folder.is_dir():
            raise UsageError(f"cannot write {args.output}: no folder {folder}")
        free = shutil.disk_usage(folder).free
        if free < bound:
            bound, why = free, f"the {_size(free)} free at {folder}"
    if estimate > bound:
        raise UsageError(f"the output would take about {_size(estimate)} "
                         f"({args.positions:,} positions a game), more than {why}; ask for "
                         "fewer positions")
    if run.plain:
        rows = _rows(named, args)
    else:
        rows = _batched_rows(named, [texts[path] for path, _ in games], args, run)
    try:
        if to_stdout:
            _write_lines(rows, sys.stdout)
            return EXIT_OK
        partial = Path(args.output + ".partial")
        if args.format == "parquet":
            _write_parquet(rows, partial, pa, pq)
        else:
            with partial.open("w", encoding="utf-8", newline="\n") as out:
                _write_lines(rows, out)
        os.replace(partial, args.output)
    except OSError as error:
        print(f"gdl-reasoner: cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def _rows(named: list[tuple[str, Any]], args: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """Every game's rows, game after game."""
    from reasoner.workshop.dataset import sample_rows

    for name, game in named:
        yield from sample_rows(game, name, args.positions, args.seed, playouts=args.playouts,
                               heuristics=args.heuristic, max_steps=args.max_steps)


# About how many rows one task of a batched run makes: without playout statistics, and with.
TASK_ROWS = 2000
TASK_ROWS_WITH_PLAYOUTS = 100


def _batched_rows(named: list[tuple[str, Any]], sources: list[str], args: argparse.Namespace,
                  run: TaskRun) -> Iterator[dict[str, Any]]:
    """Every game's rows as :func:`_rows` gives them, made by tasks of whole playouts (on a
    cluster, or kept in the journal of ``--resume``): a game's tasks go on until its rows
    are counted; the rows past the count are dropped."""
    from reasoner.console.cluster import Task
    from reasoner.console.progress import count_line
    from reasoner.workshop.dataset import batch_rows, playout_rows

    def failed(task: Task, why: str) -> list[dict[str, Any]]:
        raise CommandError(f"{task.key}: {why}")

    began = time.monotonic()
    total = len(named) * args.positions
    for number, ((name, game), text) in enumerate(zip(named, sources, strict=True)):
        # Playouts per task, from the length of the first: a function of the options alone,
        # so that the tasks are the same when the run is resumed.
        length = sum(1 for _ in playout_rows(game, name, 0, args.seed,
                                             max_steps=args.max_steps))
        target = TASK_ROWS_WITH_PLAYOUTS if args.playouts else TASK_ROWS
        size = max(1, min(256, target // length, -(-args.positions // length)))
        tasks = (Task(f"{name} playouts {first}-{first + size - 1}", batch_rows,
                      (text, args.backend, name, first, size, args.seed, args.playouts,
                       tuple(args.heuristic), args.max_steps))
                 for first in itertools.count(0, size))
        results = run.results(tasks, failed)
        made = 0
        try:
            for batch in results:
                yield from batch[:args.positions - made]
                made += min(len(batch), args.positions - made)
                print(count_line(number * args.positions + made, total,
                                 time.monotonic() - began, f"rows of {name}"),
                      file=sys.stderr, flush=True)
                if made >= args.positions:
                    break
        finally:
            results.close()


def _write_lines(rows: Iterator[dict[str, Any]], out: TextIO) -> None:
    """The rows as JSON Lines."""
    from reasoner.workshop.dataset import row_json

    for row in rows:
        out.write(row_json(row) + "\n")
    out.flush()


def _write_parquet(rows: Iterator[dict[str, Any]], path: Path, pa: Any, pq: Any) -> None:
    """The rows as one Parquet file, a row group per :data:`BATCH` rows."""
    from reasoner.workshop.dataset import arrow_schema

    schema = arrow_schema(pa)
    with pq.ParquetWriter(str(path), schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))


def _size(count: float) -> str:
    """A byte count in words, e.g. "9.3 GiB"."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} TiB"
