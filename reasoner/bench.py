"""Benchmarks: random-playout state updates per second and load time.

One *state update* is what a Monte-Carlo player needs per step: the legal moves of all roles,
a random joint move, the next state and the terminal test. Figures are medians over runs.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.engine.game import Game
from reasoner.engine.playout import random_playout

_NO_CAP = 1 << 30  # playouts run to the end

__all__ = ["BenchResult", "bench_game", "bench_reference", "playout_rate"]


@dataclass(frozen=True)
class BenchResult:
    """The figures for one game and backend."""

    game: str
    backend: str
    updates_per_sec: float
    load_ms: float
    runs: int
    updates_per_run: list[int]
    rates: list[float]
    load_runs_ms: list[float]
    fluents: int
    moves: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def playout_rate(game: Game, seconds: float, seed: int) -> tuple[int, float]:
    """Run seeded random playouts for about ``seconds``; return (updates, updates/s)."""
    rng = random.Random(seed)
    updates = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        updates += random_playout(game, game.initial_state, rng, _NO_CAP).length
    elapsed = time.perf_counter() - start
    return updates, updates / elapsed


def bench_game(name: str, text: str, runs: int = 3, seconds: float = 2.0,
               seed: int = 0) -> BenchResult:
    """Median load time and playout rate of the clingo backend over ``runs`` runs.

    Args:
        name: The game's file name (its stem names the game in the results).
        text: The GDL rules.
    """
    loads: list[float] = []
    rates: list[float] = []
    counts: list[int] = []
    game = None
    for run in range(runs):
        start = time.perf_counter()
        game = Game.from_gdl(text)
        loads.append((time.perf_counter() - start) * 1e3)
        count, rate = playout_rate(game, seconds, seed + run)
        counts.append(count)
        rates.append(rate)
    assert game is not None
    return BenchResult(
        game=Path(name).stem, backend="clingo", updates_per_sec=round(statistics.median(rates), 1),
        load_ms=round(statistics.median(loads), 2), runs=runs, updates_per_run=counts,
        rates=[round(r, 1) for r in rates], load_runs_ms=[round(x, 2) for x in loads],
        fluents=len(game.fluents), moves=len(game.all_moves),
    )


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


def _sample_states(game: Game, count: int, seed: int) -> list[tuple[Any, tuple[int, ...]]]:
    """(state, a legal joint move) pairs from seeded random playouts, in fluent ids."""
    rng = random.Random(seed)
    pairs: list[tuple[Any, tuple[int, ...]]] = []
    while len(pairs) < count:
        state = game.initial_state
        info = game.info(state)
        while not info.terminal and len(pairs) < count:
            joint = tuple(rng.choice(legal) for legal in info.legal)
            pairs.append((tuple(state.fluent_ids()), joint))
            state, info = game.step(state, joint)
    return pairs


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bench_service(name: str, text: str, seconds: float = 2.0, seed: int = 0,
                  simulate_playouts: int = 1000) -> list[ServiceResult]:
    """Round-trip latency of Query and Next (1 and 4 client threads) and Simulate
    throughput over loopback gRPC, beside the in-process playout rate, in one run."""
    import threading

    from client.reasoner_client import ReasonerClient
    from client.values import State as RemoteState
    from reasoner.server.app import create_server

    stem = Path(name).stem
    local = Game.from_gdl(text)
    pairs = _sample_states(local, 2000, seed)
    server, port, _ = create_server("127.0.0.1:0", games=None, workers=8, limits=None)
    results: list[ServiceResult] = []
    try:
        target = f"127.0.0.1:{port}"
        with ReasonerClient(target) as client:
            remote = client.load_game(text)
            load_ms = local.statistics.total_ms
            for method in ("Query", "Next"):
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
                                state = RemoteState(fluents)
                                start = time.perf_counter()
                                if method == "Query":
                                    game.query(state)
                                else:
                                    game.next(state, joint, check_legal=False)
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
                        latency_p99_ms=round(_percentile(flat, 0.99), 3),
                        updates_per_sec=round(len(flat) / seconds, 1),
                        in_process_updates_per_sec=0.0, load_ms=round(load_ms, 2)))

            # Simulate: the same playouts over gRPC and in process, alternating, 3 rounds.
            remote_rates: list[float] = []
            local_rates: list[float] = []
            for round_ in range(3):
                start = time.perf_counter()
                simulated = remote.simulate(playouts=simulate_playouts, seed=seed + round_)
                remote_rates.append(simulated.updates / (time.perf_counter() - start))
                rng = random.Random(seed + round_)
                start = time.perf_counter()
                updates = 0
                for _ in range(simulate_playouts):
                    updates += random_playout(local, local.initial_state, rng, 1000).length
                local_rates.append(updates / (time.perf_counter() - start))
            results.append(ServiceResult(
                game=stem, backend="grpc-simulate", threads=1, calls=3,
                latency_median_ms=0.0, latency_p99_ms=0.0,
                updates_per_sec=round(statistics.median(remote_rates), 1),
                in_process_updates_per_sec=round(statistics.median(local_rates), 1),
                load_ms=round(load_ms, 2)))
    finally:
        server.stop(None)
    return results


def _reference_rate(reference: Any, seconds: float, seed: int) -> tuple[int, float]:
    """Random playouts in the Prolog reference: per step its legal moves, a random joint
    move, the next state and the terminal test, as for the engine."""
    rng = random.Random(seed)
    updates = 0
    start = time.perf_counter()
    deadline = start + seconds
    roles = reference.roles
    while time.perf_counter() < deadline:
        state = reference.initial_state()
        while not reference.terminal(state) and time.perf_counter() < deadline:
            legal = reference.legal(state)
            if not all(legal[r] for r in roles):
                break
            state = reference.next_state(state, [rng.choice(sorted(legal[r])) for r in roles])
            updates += 1
    elapsed = time.perf_counter() - start
    return updates, updates / elapsed


def bench_reference(name: str, text: str, runs: int = 3, seconds: float = 2.0,
                    seed: int = 0) -> BenchResult:
    """Median load time and playout rate of the SWI-Prolog reference (backend
    ``reference``), measured the same way as :func:`bench_game`."""
    from reasoner.reference import ReferenceSolver

    loads: list[float] = []
    rates: list[float] = []
    counts: list[int] = []
    fluents = moves = 0
    for run in range(runs):
        start = time.perf_counter()
        with ReferenceSolver.from_gdl(text, timeout=max(30.0, seconds * 2)) as reference:
            initial = reference.initial_state()
            loads.append((time.perf_counter() - start) * 1e3)
            fluents = len(initial)
            moves = sum(len(m) for m in reference.legal(initial).values())
            count, rate = _reference_rate(reference, seconds, seed + run)
        counts.append(count)
        rates.append(rate)
    return BenchResult(
        game=Path(name).stem, backend="reference",
        updates_per_sec=round(statistics.median(rates), 1),
        load_ms=round(statistics.median(loads), 2), runs=runs, updates_per_run=counts,
        rates=[round(r, 1) for r in rates], load_runs_ms=[round(x, 2) for x in loads],
        fluents=fluents, moves=moves,
    )
