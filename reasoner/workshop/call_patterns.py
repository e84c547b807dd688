"""Call patterns over gRPC: what each way of calling the service costs, and how it scales
(``bench-service``).

A real server runs in its own processes (``serve --processes P``, the bundled games not
preloaded: :func:`start_server`), and client processes (not threads: a Python client's
threads share one interpreter) call it for a given time per pattern
(:func:`measure_pattern`):

* ``unary-query``, ``unary-next``: one unary call per state (a search loop that asks one
  question at a time);
* ``session-query``, ``session-next``: the same requests on one Session stream per client,
  64 in flight, up to a batch of those waiting sent in one message;
* ``simulate``: Simulate calls of 1,000 playouts each, the steps made inside the server.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from typing import Any

from reasoner.console.common import CommandError
from reasoner.workshop.service_latency import percentile

__all__ = ["PATTERNS", "measure_pattern", "start_server"]

PATTERNS = ("unary-query", "unary-next", "session-query", "session-next", "simulate")
_WINDOW = 64


def start_server(processes: int) -> tuple[subprocess.Popen[str], int]:
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
    from reasoner.console.players import ReasonerClient
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


def measure_pattern(port: int, stem: str, text: str, pattern: str, batch: int,
                    processes: int, clients: int, seconds: float,
                    context: Any) -> dict[str, Any]:
    """One row: the pattern's calls from ``clients`` client processes at once, for
    ``seconds``, to the server on ``port`` (of ``processes`` processes)."""
    results: Any = context.Queue()
    started = [context.Process(target=_client, args=(
        f"127.0.0.1:{port}", text, pattern, batch or 1, seconds, seed, results))
        for seed in range(clients)]
    for client in started:
        client.start()
    outcomes = [results.get(timeout=seconds + 300) for _ in started]
    for client in started:
        client.join(30)
    steps = sum(count for count, _ in outcomes)
    latencies = [x for _, values in outcomes for x in values]
    return {"game": stem, "pattern": pattern, "clients": clients, "processes": processes,
            "batch": batch, "steps_per_sec": round(steps / seconds, 1),
            "median_ms": round(statistics.median(latencies), 3),
            "p99_ms": round(percentile(latencies, 0.99), 3)}
