"""Service latency over loopback gRPC: what a call costs, beside the same work in process.

:func:`bench_service` (``bench --grpc`` and the ``grpc-simulate`` row of ``bench``): the
round-trip latency of Query and Next (1 and 4 client threads) and the Simulate throughput
of a server in its own process, beside the in-process playout rate of the same backend.
:func:`percentile` is the nearest-rank percentile that every latency figure of the workshop
reports.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.core.walk import sample_states
from reasoner.engine.game import Game

__all__ = ["ServiceResult", "bench_service", "percentile"]


@dataclass(frozen=True)
class ServiceResult:
    """Figures of one measurement over loopback gRPC."""

    game: str
    backend: str
    threads: int
    calls: int
    latency_median_ms: float
    latency_p99_ms: float
    updates_per_sec: float
    in_process_updates_per_sec: float
    load_ms: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_service(name: str, text: str, seconds: float = 2.0, seed: int = 0,
                  simulate_playouts: int = 1000, latency: bool = True) -> list[ServiceResult]:
    """Round-trip latency of Query and Next (1 and 4 client threads) and Simulate
    throughput over loopback gRPC, beside the in-process playout rate, in one run. The
    server runs in its own process, as a deployed one does: in this process its threads
    would compete with the client and the in-process measurement for the interpreter."""
    import multiprocessing
    import threading

    from reasoner.console.players import ReasonerClient

    stem = Path(name).stem
    local = Game.from_gdl(text)
    pairs = [(tuple(state.fluent_ids()), joint)
             for state, joint in sample_states(local, local.initial_state, 2000, seed)]
    context = multiprocessing.get_context("spawn")
    ports: Any = context.Queue()
    stop: Any = context.Event()
    child = context.Process(target=_serve, args=(ports, stop), daemon=True)
    child.start()
    port = ports.get(timeout=120)
    results: list[ServiceResult] = []
    try:
        target = f"127.0.0.1:{port}"
        with ReasonerClient(target) as client:
            remote = client.load_game(text)
            load_ms = local.statistics.total_ms
            for method in ("Query", "Next") if latency else ():
                for threads in (1, 4):
                    latencies: list[list[float]] = [[] for _ in range(threads)]

                    def worker(index: int, method: str = method,
                               latencies: list[list[float]] = latencies) -> None:
                        with ReasonerClient(target) as own:
                            game = own.load_game(text)
                            deadline = time.perf_counter() + seconds
                            i = index * 997
                            while time.perf_counter() < deadline:
                                fluents, joint = pairs[i % len(pairs)]
                                state = local.state_from_ids(fluents)
                                start = time.perf_counter()
                                if method == "Query":
                                    game.info(state)
                                else:
                                    game.step(state, joint, check_legal=False)
                                latencies[index].append((time.perf_counter() - start) * 1e3)
                                i += 1

                    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
                    for thread in pool:
                        thread.start()
                    for thread in pool:
                        thread.join()
                    flat = [x for per in latencies for x in per]
                    results.append(ServiceResult(
                        game=stem, backend=f"grpc-{method.lower()}", threads=threads,
                        calls=len(flat), latency_median_ms=round(statistics.median(flat), 3),
                        latency_p99_ms=round(percentile(flat, 0.99), 3),
                        updates_per_sec=round(len(flat) / seconds, 1),
                        in_process_updates_per_sec=0.0, load_ms=round(load_ms, 2)))

            # Simulate: the same playouts over gRPC and in process (the same backend, the
            # same seeds), alternating, 5 rounds.
            remote_rates: list[float] = []
            local_rates: list[float] = []
            for round_ in range(5):
                start = time.perf_counter()
                simulated = remote.simulate(playouts=simulate_playouts, seed=seed + round_)
                remote_rates.append(simulated.updates / (time.perf_counter() - start))
                start = time.perf_counter()
                updates = local.simulate(local.initial_state, simulate_playouts,
                                         seed + round_, 1000).updates
                local_rates.append(updates / (time.perf_counter() - start))
            results.append(ServiceResult(
                game=stem, backend=f"grpc-simulate-{local.backend}", threads=1, calls=5,
                latency_median_ms=0.0, latency_p99_ms=0.0,
                updates_per_sec=round(statistics.median(remote_rates), 1),
                in_process_updates_per_sec=round(statistics.median(local_rates), 1),
                load_ms=round(load_ms, 2)))
    finally:
        stop.set()
        child.join(10)
        if child.is_alive():
            child.kill()
    return results


def _serve(ports: Any, stop: Any) -> None:
    """A reasoner service on a free loopback port, until ``stop`` is set."""
    from reasoner.server.app import create_server

    server, port, _ = create_server("127.0.0.1:0", games=None, workers=8, limits=None)
    ports.put(port)
    stop.wait()
    server.stop(None)
