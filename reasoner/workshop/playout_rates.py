"""Playout rates: random-playout state updates per second and load time, per backend.

One *state update* is what a Monte-Carlo player needs per step: the legal moves of all roles,
a random joint move, the next state and the terminal test. Figures are medians over runs.
The backends measured: ``clingo`` (clingo solves), ``propnet`` (the network one state at a
time), ``propnet-batch-N`` (bit-parallel playouts, N lanes), ``native`` (the network on the
native kernel one state at a time, through Python), ``native-one-state`` (the same, the
walk in C), ``native-batch`` (the kernel's bit-parallel playouts, 256 lanes, one core),
``native-batch-2p`` (the same in two processes at once, their updates added),
``gpu-batch`` (the kernel on a GPU), ``position`` (each position ground as it is asked),
and ``reference`` (SWI-Prolog); those over loopback gRPC (``grpc-query``, ``grpc-next``
and ``grpc-simulate``) are in :mod:`reasoner.workshop.service_latency`. A backend the game
does not load on within the bounds is reported as :class:`Skipped`, with the reason.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.core.walk import MachineStepper, random_playout
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits, run_bounded
from reasoner.errors import ResourceLimitError
from reasoner.propnet.machine import PropnetMachine

_NO_CAP = 1 << 30  # playouts run to the end
# Steps a playout runs before the clock is read again: a playout of a game answered
# position by position (chess, 40 ms a step) would otherwise overrun --seconds by its length.
_CHUNK = 16

__all__ = ["NATIVE_MODES", "BenchResult", "GpuCheck", "NetworkFigures", "Skipped",
           "bench_batch", "bench_game", "bench_native", "bench_reference", "gpu_check",
           "network_figures", "playout_rate", "probe_load"]

# The native kernel's rows (bench_native).
NATIVE_MODES = ("native-one-state", "native-batch", "native-batch-2p", "gpu-batch")
# Playouts a native batch call makes between two readings of the clock.
_NATIVE_BATCH = 4096


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


@dataclass(frozen=True)
class NetworkFigures:
    """The size of a game's network, its build time and the memory it takes (resident
    memory of a fresh process after loading the game on the network backend, less before)."""

    game: str
    backend: str  # "propnet-size"
    propositions: int
    gates: int
    edges: int
    build_ms: float
    resident_mb: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Skipped:
    """A backend not measured on a game, and why (it does not load within the bounds, or
    the measurement would take far longer than asked)."""

    game: str
    backend: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _load_backend(text: str, backend: str) -> tuple[str, str]:
    statistics = Game.from_gdl(text, backend=backend).statistics
    return str(statistics.backend), statistics.backend_note


def probe_load(text: str, backend: str, limits: Limits | None) -> tuple[str, str]:
    """Load the game on ``backend`` within ``limits`` in a bounded child process (here,
    unbounded, for None) and return the backend that answers and auto's note: for "auto",
    whether the game loads on the network, on clingo, or only position by position.

    Raises:
        ResourceLimitError: not even that load fits ``limits`` (naming the relation that
            grew, when found).
        ReasonerError: the game is invalid.
    """
    try:
        return run_bounded(_load_backend, (text, backend), limits)
    except ResourceLimitError as error:
        if limits is None:
            raise
        from reasoner.engine.overrun import explain_overrun

        raise explain_overrun(error, text, limits) from None


def _resident_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _network_load(text: str) -> tuple[int, int, int, float, float]:
    import gc

    gc.collect()
    before = _resident_mb()
    game = Game.from_gdl(text, backend="propnet")
    assert game.network is not None and isinstance(game.machine, PropnetMachine)
    game.machine.batch  # noqa: B018  (compiled on first use: part of what a game costs)
    gc.collect()
    size = game.network.size
    return (size.propositions, size.gates, size.edges, game.statistics.network_ms,
            _resident_mb() - before)


def network_figures(name: str, text: str, runs: int = 3) -> NetworkFigures:
    """Median network build time over ``runs`` loads, and its memory in a fresh child."""
    loads = [Game.from_gdl(text, backend="propnet").statistics.network_ms
             for _ in range(runs)]
    propositions, gates, edges, _, resident = run_bounded(
        _network_load, (text,), Limits(300.0, 8192, start_method="spawn"))
    return NetworkFigures(Path(name).stem, "propnet-size", propositions, gates, edges,
                          round(statistics.median(loads), 2), round(resident, 1))


def _medians(name: str, backend: str, game: Game, rates: list[float], counts: list[int],
             loads: list[float]) -> BenchResult:
    """The figures of ``runs`` measurements of one backend: medians and every run."""
    return BenchResult(
        game=Path(name).stem, backend=backend,
        updates_per_sec=round(statistics.median(rates), 1),
        load_ms=round(statistics.median(loads), 2), runs=len(rates), updates_per_run=counts,
        rates=[round(r, 1) for r in rates], load_runs_ms=[round(x, 2) for x in loads],
        fluents=len(game.fluents), moves=len(game.all_moves))


def playout_rate(game: Game, seconds: float, seed: int) -> tuple[int, float]:
    """Run seeded random playouts for about ``seconds``; return (updates, updates/s).

    The walk runs on the backend's machine over fluent bits (as the clingo backend's
    ``Simulate`` does): the figure is the backend's, without ``Game``'s checks of the
    states and move ids that the walk takes from the game itself. A playout goes on in
    pieces of 16 steps (the same walk: one draw per step), the clock read between them."""
    rng = random.Random(seed)
    machine = MachineStepper(game.machine)
    start_bits = game.initial_state.bits
    bits = start_bits
    updates = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        piece = random_playout(machine, bits, rng, _CHUNK)
        updates += piece.length
        bits = start_bits if piece.terminal else piece.final
    elapsed = time.perf_counter() - start
    return updates, updates / elapsed


def bench_game(name: str, text: str, runs: int = 3, seconds: float = 2.0,
               seed: int = 0, backend: str = "clingo") -> BenchResult:
    """Median load time and playout rate, one state at a time, of ``backend`` ("clingo",
    "propnet", "position", "compiled" or "topdown") over ``runs`` runs.

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
        game = Game.from_gdl(text, backend=backend)
        loads.append((time.perf_counter() - start) * 1e3)
        count, rate = playout_rate(game, seconds, seed + run)
        counts.append(count)
        rates.append(rate)
    assert game is not None
    return _medians(name, backend, game, rates, counts, loads)


def bench_compiled_batch(name: str, text: str, runs: int = 3, seconds: float = 2.0,
                         seed: int = 0) -> BenchResult:
    """Median rate of the compiled rules' own playouts (backend ``compiled-batch``): the
    machine's ``simulate``, which plays whole playouts in C, 16 playouts a call, repeated
    for about ``seconds``, the goal values read as Simulate reads them."""
    start = time.perf_counter()
    game = Game.from_gdl(text, backend="compiled")
    load_ms = (time.perf_counter() - start) * 1e3
    rates: list[float] = []
    counts: list[int] = []
    for run in range(runs):
        updates = 0
        calls = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            updates += game.machine.simulate(game.initial_state.bits, 16,
                                             seed + 7919 * run + calls, _NO_CAP).updates
            calls += 1
        rates.append(updates / (time.perf_counter() - began))
        counts.append(updates)
    return _medians(name, "compiled-batch", game, rates, counts, [load_ms])


def bench_batch(name: str, text: str, lanes: int, runs: int = 3, seconds: float = 2.0,
                seed: int = 0) -> BenchResult:
    """Median playout rate of bit-parallel batches of ``lanes`` playouts on the network
    (backend ``propnet-batch-<lanes>``): batches of ``lanes`` playouts to the end, repeated
    for about ``seconds``; the goal values of every playout are read as Simulate reads them."""
    start = time.perf_counter()
    game = Game.from_gdl(text, backend="propnet")
    machine = game.machine
    assert isinstance(machine, PropnetMachine)
    machine.batch  # noqa: B018  (compiled on first use: part of the load here)
    load_ms = (time.perf_counter() - start) * 1e3
    rates: list[float] = []
    counts: list[int] = []
    for run in range(runs):
        updates = 0
        batches = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            updates += machine.simulate(game.initial_state.bits, lanes,
                                        seed + 7919 * run + batches, _NO_CAP,
                                        lanes=lanes).updates
            batches += 1
        rates.append(updates / (time.perf_counter() - began))
        counts.append(updates)
    return _medians(name, f"propnet-batch-{lanes}", game, rates, counts, [load_ms])


def _native_game(text: str) -> tuple[Game, Any]:
    from reasoner.propnet.native import NativeMachine

    game = Game.from_gdl(text, backend="native")
    machine = game.machine
    assert isinstance(machine, NativeMachine)
    return game, machine


def _native_rate(machine: Any, bits: int, mode: str, seconds: float,
                 seed: int) -> tuple[int, float]:
    """(updates, seconds) of ``mode`` ("native-one-state" or "native-batch") on a native
    machine for about ``seconds`` from the state ``bits``."""
    updates = 0
    calls = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        if mode == "native-one-state":
            updates += machine.single_playouts(bits, 64, seed + calls, _NO_CAP)
        else:
            updates += machine.playout_updates(bits, _NATIVE_BATCH, seed + calls, _NO_CAP)
        calls += 1
    return updates, time.perf_counter() - began


def _native_rate_apart(text: str, seconds: float, seed: int,
                       start_at: float) -> tuple[int, float]:
    """:func:`_native_rate` of "native-batch" in a process of its own: the game loaded
    there, the clock started at ``start_at`` (wall time)."""
    game, machine = _native_game(text)
    while time.time() < start_at:
        time.sleep(0.001)
    return _native_rate(machine, game.initial_state.bits, "native-batch", seconds, seed)


@dataclass(frozen=True)
class GpuCheck:
    """The GPU's playouts against the CPU build's: the first role's share of each goal
    value and the mean length of the same number of playouts on each, and whether they
    agree within sampling error (five standard errors)."""

    game: str
    backend: str  # "gpu-check"
    device: str
    playouts: int
    gpu_shares: dict[int, float]
    cpu_shares: dict[int, float]
    gpu_mean_length: float
    cpu_mean_length: float
    agree: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def gpu_check(name: str, game: Game, machine: Any, kernel: Any, playouts: int,
              seed: int) -> GpuCheck:
    """Compare ``playouts`` GPU playouts with as many on the CPU build (see
    :mod:`reasoner.crosscheck.statistics`)."""
    from reasoner.crosscheck.statistics import means_agree, outcomes_agree, shares
    from reasoner.propnet.native import playout_columns

    start = machine.start_bytes(game.initial_state.bits)
    on_gpu = kernel.run(start, playouts, seed, 1000)
    gpu_first = playout_columns(on_gpu.goals)[0][:, 0].tolist()
    cpu = machine.simulate(game.initial_state.bits, playouts, seed, 1000, gpu=False)
    cpu_first = cpu.flat_goals()[::len(game.roles)]
    gpu_lengths = on_gpu.lengths.tolist()
    agree = (outcomes_agree(gpu_first, cpu_first)
             and means_agree(gpu_lengths, cpu.lengths))

    def rounded(sample: list[int]) -> dict[int, float]:
        return {value: round(share, 5) for value, share in sorted(shares(sample).items())}

    return GpuCheck(Path(name).stem, "gpu-check", kernel.device, playouts,
                    rounded(gpu_first), rounded(cpu_first),
                    round(sum(gpu_lengths) / playouts, 4),
                    round(sum(cpu.lengths) / playouts, 4), agree)


def bench_native(name: str, text: str, mode: str, runs: int = 3, seconds: float = 2.0,
                 seed: int = 0) -> list[BenchResult | Skipped | GpuCheck]:
    """Median playout rate of the native kernel in ``mode`` (one of :data:`NATIVE_MODES`):
    one state at a time with the walk in C, bit-parallel on one core, the same in two
    processes at once (their updates added over the common time), or on a GPU (kernel
    time, then the GPU's statistics against the CPU's: :func:`gpu_check`; Skipped, with
    the reason, where there is no GPU)."""
    start = time.perf_counter()
    game, machine = _native_game(text)
    load_ms = (time.perf_counter() - start) * 1e3
    rates: list[float] = []
    counts: list[int] = []
    if mode == "gpu-batch":
        from reasoner.propnet.gpu import PLAYOUTS_PER_LANE, gpu_kernel

        kernel, reason = gpu_kernel(machine.image, machine.roles)
        if kernel is None:
            return [Skipped(Path(name).stem, mode, reason)]
        start_state = machine.start_bytes(game.initial_state.bits)
        kernel.run(start_state, 1 << 16, seed, _NO_CAP)  # compiled and warm
        # At least one full wave of the threads the GPU runs at once, each lane playing
        # its share (fewer playouts leave the GPU partly idle, however long they take),
        # then enough for about ``seconds`` of kernel time.
        playouts = min(1 << 26, max(1 << 16, (kernel.resident or 0) * 64 * PLAYOUTS_PER_LANE))
        for run in range(runs):
            while True:
                measured = kernel.run(start_state, playouts, seed + run, _NO_CAP)
                if measured.kernel_seconds >= seconds / 4 or playouts >= 1 << 26:
                    break
                playouts = min(1 << 26, playouts * 4)
            rates.append(measured.updates / measured.kernel_seconds)
            counts.append(measured.updates)
        print(f"gpu-batch: {kernel.device}, {measured.threads} threads, {playouts} playouts "
              "a run", file=sys.stderr)
        return [_medians(name, mode, game, rates, counts, [load_ms]),
                gpu_check(name, game, machine, kernel, 100_000, seed)]
    for run in range(runs):
        if mode == "native-batch-2p":
            import concurrent.futures
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            # Both children load the game, then start together (a spawned child takes
            # about a second to import the package).
            start_at = time.time() + 2.0 + 3 * load_ms / 1e3
            with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
                futures = [pool.submit(_native_rate_apart, text, seconds,
                                       seed + 7919 * run + 104729 * k, start_at)
                           for k in range(2)]
                done = [f.result() for f in futures]
            updates = sum(u for u, _ in done)
            rates.append(sum(u / s for u, s in done))
        else:
            updates, elapsed = _native_rate(machine, game.initial_state.bits, mode, seconds,
                                            seed + 7919 * run)
            rates.append(updates / elapsed)
        counts.append(updates)
    return [_medians(name, mode, game, rates, counts, [load_ms])]


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
