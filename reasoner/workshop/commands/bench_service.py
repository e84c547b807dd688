"""``bench-service``: what each way of calling the service costs, and how it scales (the
measurement itself is in :mod:`reasoner.workshop.call_patterns`).

A real server runs in its own processes (``serve --processes P``, the bundled games not
preloaded), and ``--clients`` client processes (not threads: a Python client's threads
share one interpreter) call it for ``--seconds`` per pattern:

* ``unary-query``, ``unary-next``: one unary call per state (a search loop that asks one
  question at a time);
* ``session-query``, ``session-next``: the same requests on one Session stream per client,
  64 in flight, up to ``--batch`` of those waiting sent in one message (a list compares:
  ``--batch 1,256``);
* ``simulate``: Simulate calls of 1,000 playouts each, the steps made inside the server.

Each row: ``game``, ``pattern``, ``clients``, ``processes``, ``batch`` (requests per session
message at most; 0 for the other patterns), ``steps_per_sec`` (answers, or
for simulate the state updates, per second over all clients), ``median_ms`` and ``p99_ms``
(per call; on a session, from a request's sending to its answer).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import signal
import subprocess
from pathlib import Path

from reasoner.console.common import EXIT_OK, Commands, UsageError
from reasoner.console.numbers import at_least, seconds
from reasoner.workshop.call_patterns import PATTERNS, measure_pattern, start_server

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``bench-service``."""
    p = commands.add_parser(
        "bench-service", help="steps per second and latency of each call pattern over gRPC, "
                              "and their scaling with server processes")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--clients", type=at_least(1), default=2, help="client processes")
    p.add_argument("--processes", default="1",
                   help="server processes, or a comma-separated list to compare (1,2)")
    p.add_argument("--seconds", type=seconds(), default=3.0, help="per pattern")
    p.add_argument("--batch", default="256",
                   help="requests a session message carries at most, or a comma-separated "
                        "list to compare (1,256)")
    p.add_argument("--patterns", default=",".join(PATTERNS))
    p.add_argument("--json", action="store_true", help="one JSON object per row")
    p.set_defaults(run=_bench_service)


def _bench_service(args: argparse.Namespace) -> int:
    patterns = [p for p in args.patterns.split(",") if p]
    unknown = sorted(set(patterns) - set(PATTERNS))
    if unknown:
        raise UsageError(f"unknown pattern {unknown[0]}; the patterns are {', '.join(PATTERNS)}")
    try:
        counts = [int(p) for p in args.processes.split(",")]
        batches = [int(b) for b in args.batch.split(",")]
    except ValueError:
        raise UsageError("--processes and --batch take numbers") from None
    if min(counts) < 1 or min(batches) < 1:
        raise UsageError("--processes and --batch must be at least 1")
    texts = []
    for name in args.games:
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"{name} is not a file")
        texts.append((path.stem, path.read_text(encoding="utf-8", errors="replace")))
    context = multiprocessing.get_context("spawn")
    if not args.json:
        print(f"{'game':14} {'pattern/batch':18} {'clients':>7} {'processes':>9} "
              f"{'steps/s':>10} {'median ms':>9} {'p99 ms':>8}")
    for processes in counts:
        server, port = start_server(processes)
        try:
            for stem, text in texts:
                for pattern, batch in [(p, b) for p in patterns
                                       for b in (batches if p.startswith("session") else [0])]:
                    row = measure_pattern(port, stem, text, pattern, batch, processes,
                                          args.clients, args.seconds, context)
                    if args.json:
                        print(json.dumps(row), flush=True)
                    else:
                        name = f"{pattern}/{batch}" if batch else pattern
                        print(f"{stem:14} {name:18} {args.clients:>7} {processes:>9} "
                              f"{row['steps_per_sec']:>10,.0f} {row['median_ms']:>9.3f} "
                              f"{row['p99_ms']:>8.3f}", flush=True)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    return EXIT_OK
