"""``bench-service``: what each way of calling the service costs, and how it scales.

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
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from reasoner.cli.common import EXIT_OK, CommandError, Commands, UsageError
from reasoner.cli.numbers import at_least, seconds

__all__ = ["register"]

PATTERNS = ("unary-query", "unary-next", "session-query", "session-next", "simulate")
_WINDOW = 64


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


def _start_server(processes: int) -> tuple[subprocess.Popen[str], int]:
    """``serve --port 0 --processes P`` with no preloaded games; returns it and its port
    once every process listens."""
    command = [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0", "--games", "",
               "--processes", str(processes)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    assert server.stderr is not None
    ports: list[int] = []
    deadline = time.monotonic() + 120
    while len(ports) < processes and time.monotonic() < deadline:
        line = server.stderr.readline()
        if not line:
            break
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            ports.append(int(found.group(1)))
    if len(ports) < processes:
        server.kill()
        raise CommandError("the server did not start")
    return server, ports[0]


def _client(target: str, text: str, pattern: str, batch: int, seconds: float, seed: int,
            results: Any) -> None:
    """One client process: the pattern's calls for ``seconds``; puts (steps, latencies)."""
    from client import ReasonerClient
    from reasoner.core.walk import sample_states
    from reasoner.engine.game import Game
    from reasoner.v1 import reasoner_pb2 as pb

    local = Game.from_gdl(text)
    pairs = [(list(state.fluent_ids()), joint)
             for state, joint in sample_states(local, local.initial_state, 1000, seed)]
    latencies: list[float] = []
    steps = 0
    with ReasonerClient(target, timeout=120) as client:
        game = client.load_game(text)
        deadline = time.perf_counter() + seconds
        if pattern.startswith("unary"):
            i = 0
            while time.perf_counter() < deadline:
                fluents, joint = pairs[i % len(pairs)]
                start = time.perf_counter()
                if pattern == "unary-query":
                    game.info(local.state_from_ids(fluents))
                else:
                    game.step(local.state_from_ids(fluents), joint, check_legal=False)
                latencies.append((time.perf_counter() - start) * 1e3)
                steps += 1
                i += 1
        elif pattern.startswith("session"):
            kind = pattern.removeprefix("session-")
            sent: dict[int, float] = {}

            def requests() -> Any:
                i = 0
                while time.perf_counter() < deadline:
                    fluents, joint = pairs[i % len(pairs)]
                    state = pb.State(fluents=fluents)
                    i += 1
                    if kind == "query":
                        yield pb.QueryRequest(game_id=game.id, state=state)
                    else:
                        yield pb.NextRequest(game_id=game.id, state=state, check_legal=False,
                                             joint_moves=[pb.JointMove(moves=joint)])

            with client.session(batch=batch) as session:
                waiting: list[int] = []
                for request in requests():
                    tag = session.send(kind, request)
                    sent[tag] = time.perf_counter()
                    waiting.append(tag)
                    if len(waiting) >= _WINDOW:
                        got, _ = session.receive()
                        latencies.append((time.perf_counter() - sent.pop(got)) * 1e3)
                        waiting.pop(0)
                        steps += 1
                for _ in waiting:
                    got, _ = session.receive()
                    latencies.append((time.perf_counter() - sent.pop(got)) * 1e3)
                    steps += 1
        else:
            round_ = 0
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                steps += game.simulate(playouts=1000, seed=seed * 1000 + round_).updates
                latencies.append((time.perf_counter() - start) * 1e3)
                round_ += 1
    results.put((steps, latencies))



def _measure(port: int, stem: str, text: str, pattern: str, batch: int, processes: int,
             args: argparse.Namespace, context: Any) -> dict[str, Any]:
    """One row: the pattern's calls from every client process at once."""
    from reasoner.cli.benchmarks import percentile

    results: Any = context.Queue()
    clients = [context.Process(target=_client, args=(
        f"127.0.0.1:{port}", text, pattern, batch or 1, args.seconds, seed, results))
        for seed in range(args.clients)]
    for client in clients:
        client.start()
    outcomes = [results.get(timeout=args.seconds + 300) for _ in clients]
    for client in clients:
        client.join(30)
    steps = sum(count for count, _ in outcomes)
    latencies = [x for _, values in outcomes for x in values]
    return {"game": stem, "pattern": pattern, "clients": args.clients, "processes": processes,
            "batch": batch, "steps_per_sec": round(steps / args.seconds, 1),
            "median_ms": round(statistics.median(latencies), 3),
            "p99_ms": round(percentile(latencies, 0.99), 3)}


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
        server, port = _start_server(processes)
        try:
            for stem, text in texts:
                for pattern, batch in [(p, b) for p in patterns
                                       for b in (batches if p.startswith("session") else [0])]:
                    row = _measure(port, stem, text, pattern, batch, processes, args, context)
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
