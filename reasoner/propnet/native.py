"""The native backend: the network answered by the compiled playout kernel.

The same network as the Python backend (:class:`reasoner.propnet.machine.PropnetMachine`)
and the same ids, evaluated by C (``_native.c`` over ``kernel.h``) instead of generated
Python, with nothing compiled per game: the network is flattened into an image
(:func:`reasoner.propnet.flat.flatten`) that the kernel interprets.

* State queries go one state at a time: every thread keeps its own evaluator, which
  re-evaluates only what differs from the state it last saw.
* ``simulate`` runs bit-parallel playouts, 256 lanes a block, a lane starting its next
  playout as soon as one ends, with the Python lock released; it goes in chunks, whose
  sizes follow from the seed alone, and ``check`` is called between them. Recording the
  trajectories makes the kernel write every move it draws: the same playouts either way.
* With CuPy and an NVIDIA GPU, ``simulate`` runs on the GPU
  (:mod:`reasoner.propnet.gpu`) when asked to, falling back to the CPU with a log line.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import Goals, StateInfo
from reasoner.core.walk import Simulation
from reasoner.errors import NoLegalMoveError
from reasoner.propnet.flat import flatten
from reasoner.propnet.goal_masks import goal_table
from reasoner.propnet.gpu import MIN_GPU_PLAYOUTS, gpu_kernel, gpu_wanted
from reasoner.propnet.machine import NetworkTables
from reasoner.propnet.network import FALSE, TRUE, Network

__all__ = ["LANES", "MAX_TABLE_BYTES", "NativeMachine", "NetworkPercepts", "native_refusal",
           "playout_columns"]

log = logging.getLogger(__name__)

_native: Any
try:
    from reasoner.propnet import _native
except ImportError as _error:  # the package was installed without a working C compiler
    _native = None
    _MISSING = f"the native kernel is not built ({_error})"
else:
    _MISSING = ""

LANES = 256  # lanes in a CPU block: 4 words of 64
# A block's value table larger than this is not worth it (a network of millions of
# signals): the Python backend takes the game instead.
MAX_TABLE_BYTES = 256 * 2**20
# A chunk of playouts aims at this many state updates (about 0.1 s on breakthrough), so
# that ``check`` runs often enough; the first chunk has this many playouts.
_CHUNK_UPDATES = 2**18
_FIRST_CHUNK = 1024
_MAX_CHUNK = 2**20
_TRACE_FULL = 2  # kernel.h's K_TRACE_FULL


def native_refusal(network: Network | None = None) -> str:
    """Why the native kernel cannot take ``network`` (or any network when None), or ""."""
    if _native is None:
        return _MISSING
    if network is None:
        return ""
    rows = network.inputs + network.nodes + 2 + len(network.move_texts) + \
        len(network.fluent_texts)
    if rows * LANES // 8 > MAX_TABLE_BYTES:
        return (f"the native kernel needs {rows * LANES // 8 / 2**20:,.0f} MiB a block for "
                f"{rows:,} rows, more than {MAX_TABLE_BYTES // 2**20} MiB")
    return ""  # an image past 32 bits is refused by flatten (OverflowError)


def playout_columns(goal_masks: np.ndarray) -> tuple[np.ndarray, list[Goals]]:
    """The goal table (playout x role: the value, -1 for none or several) and every
    playout's goal values, from the kernel's masks (playout x role x 2 words: values 0..63
    in the first, 64..100 in the second).

    >>> masks = np.zeros((2, 2, 2), dtype=np.uint64)
    >>> masks[0, 0, 1], masks[0, 1, 0], masks[1, 0, 0] = 1 << 36, 1, 0b101
    >>> table, goals = playout_columns(masks)
    >>> table.tolist(), goals
    ([[100, 0], [-1, -1]], [((100,), (0,)), ((0, 2), ())])
    """
    playouts, roles = goal_masks.shape[0], goal_masks.shape[1]
    low = goal_masks[:, :, 0]
    high = goal_masks[:, :, 1]
    table = goal_table(np, goal_masks)
    if not playouts:
        return table, []
    several = np.flatnonzero(((table == -1) & ((low | high) != 0)).any(axis=1))
    if roles <= 9:  # one key per playout, 7 bits a role, mapped through the distinct keys
        keys = ((table + 1) << (7 * np.arange(roles, dtype=np.int64))).sum(axis=1).tolist()
        tuples = {key: _goal_tuples([((key >> 7 * r) & 127) - 1 for r in range(roles)])
                  for key in set(keys)}
        goals = [tuples[key] for key in keys]
    else:
        goals = [_goal_tuples(row) for row in table.tolist()]
    for index in several.tolist():  # several values for a role: read from the masks
        row = goal_masks[index].tolist()
        goals[index] = tuple(tuple(v for v in range(101) if (row[r][v >= 64] >> (v & 63)) & 1)
                             for r in range(roles))
    return table, goals


def _goal_tuples(values: list[int]) -> Goals:
    """Per role, its one goal value, or none for -1."""
    return tuple((value,) if value >= 0 else () for value in values)


class NativeMachine(NetworkTables):
    """A network answered by the native kernel (see the module documentation and
    :class:`reasoner.asp.machine.Machine` for the interface)."""

    def __init__(self, network: Network) -> None:
        if _native is None:
            raise RuntimeError(_MISSING)
        super().__init__(network)
        self.image = flatten(network)
        self._bytes = self.image.bytes
        self._park = self.image.park(LANES)
        self._local = threading.local()
        self._watching: tuple[int, ...] = ()  # GDL-II's percepts (see watch)
        self.init_bits: int = self._single().initial()
        self._gpu: Any = None  # a reasoner.propnet.gpu.GpuKernel once built
        self._gpu_tried = False
        self._gpu_lock = threading.Lock()

    def _single(self) -> Any:
        """This thread's one-state evaluator."""
        single = getattr(self._local, "single", None)
        if single is None:
            assert _native is not None
            single = self._local.single = _native.Single(self._bytes)
            if self._watching:
                single.watch(self._watching)
        return single

    def percepts(self) -> NetworkPercepts:
        """GDL-II's percepts as outputs of this machine's network (see
        :class:`NetworkPercepts`)."""
        return NetworkPercepts(self)

    def watch(self, signals: Sequence[int]) -> None:
        """The signals :meth:`watched` reads (network signals; :data:`TRUE` and
        :data:`FALSE` for the constants)."""
        zero = self.network.inputs + self.network.nodes
        self._watching = tuple(zero + 1 if s == TRUE else zero if s == FALSE else s
                               for s in signals)
        self._local = threading.local()  # each thread's evaluator takes them anew

    def watched(self, bits: int, joint: Sequence[int]) -> tuple[int, ...]:
        """The indices of the watched signals that hold once the state ``bits`` and the
        joint move ``joint`` are set, ascending."""
        found: tuple[int, ...] = self._single().watched(bits, joint)
        return found

    def _goals(self, bits: int) -> Goals:
        goals: Goals = self._single().goals(bits)
        return goals

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        legal, terminal = self._single().info(bits)
        return StateInfo(legal, terminal, goal_function=self._goals, bits=bits)

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (with ``current``), its successor under ``joint`` (one move
        id per role) and the successor's info."""
        own = self.info(bits) if current else None
        following, legal, terminal = self._single().step(bits, joint)
        return own, following, StateInfo(legal, terminal, goal_function=self._goals,
                                         bits=following)

    @property
    def park(self) -> int:
        """Ended lanes of a block that wait for one evaluation of the goals (see
        :meth:`reasoner.propnet.flat.KernelImage.park`)."""
        return self._park

    def start_bytes(self, bits: int) -> np.ndarray:
        """A state as the kernel takes it: one byte per fluent."""
        fluents = self.image.fluents
        packed = np.frombuffer(bits.to_bytes((fluents + 7) // 8, "little"), dtype=np.uint8)
        return np.unpackbits(packed, bitorder="little")[:fluents]

    def playout_updates(self, bits: int, playouts: int, seed: int, max_steps: int) -> int:
        """State updates of ``playouts`` kernel playouts whose ends are not kept (the
        bench's measure of the kernel alone, without the columns' conversion)."""
        lengths = np.zeros(playouts, dtype=np.int32)
        terminal = np.zeros(playouts, dtype=np.uint8)
        masks = np.zeros((playouts, len(self.roles), 2), dtype=np.uint64)
        updates, error, role, step, _ = _native.playouts(
            self._bytes, self.start_bytes(bits).tobytes(), playouts, seed, max_steps,
            self._park, lengths, terminal, masks)
        if error:
            raise NoLegalMoveError.after(self.roles[role], step)
        return int(updates)

    def single_playouts(self, bits: int, playouts: int, seed: int, max_steps: int) -> int:
        """State updates of ``playouts`` random playouts one state at a time, all in C
        (the measure of the one-state path without Python between steps)."""
        updates: int = self._single().playouts(bits, playouts, seed, max_steps)
        return updates

    def attach_gpu(self, kernel: Any) -> None:
        """Use ``kernel`` (a :class:`reasoner.propnet.gpu.GpuKernel`, or the emulated one)
        for the GPU's playouts instead of building one."""
        with self._gpu_lock:
            self._gpu, self._gpu_tried = kernel, True

    def gpu_kernel(self) -> Any:
        """The network's GPU kernel, built on first use (None, said once in the log, where
        there is no CuPy or GPU)."""
        with self._gpu_lock:
            if not self._gpu_tried:
                self._gpu_tried = True
                self._gpu, reason = gpu_kernel(self.image, self.roles)
                if self._gpu is None:
                    log.warning("no GPU for the playouts: %s; the CPU runs them", reason)
            return self._gpu

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None,
                 gpu: bool | None = None) -> Simulation:
        """Seeded random playouts from ``bits`` on the kernel. With ``gpu`` (by default:
        when ``GDL_REASONER_GPU`` is set, as ``serve --gpu`` does) and at least
        :data:`reasoner.propnet.gpu.MIN_GPU_PLAYOUTS` playouts not recorded, on the GPU;
        where it is absent or fails (busy, out of memory), on the CPU, with a log line.
        The GPU's playouts follow the seed too, but are not the CPU's.

        Raises:
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        start = self.start_bytes(bits)
        if gpu is None:
            gpu = gpu_wanted()
        if gpu and playouts >= MIN_GPU_PLAYOUTS and not record:
            kernel = self.gpu_kernel()
            if kernel is not None:
                try:
                    run = kernel.run(start, playouts, seed, max_steps)
                except NoLegalMoveError:
                    raise
                except Exception as error:  # any GPU failure: the CPU answers
                    log.warning("GPU playouts failed (%s); the CPU runs them", error)
                else:
                    return self._simulation(run.lengths, run.terminal, run.goals, run.updates)
        return self._cpu(start, playouts, seed, max_steps, check, record)

    def summarize(self, bits: int, playouts: int, seed: int, max_steps: int,
                  check: Callable[[], None] | None = None,
                  gpu: bool | None = None) -> PlayoutSummary:
        """The totals of :meth:`simulate`'s playouts (the same playouts, on the same device
        as :meth:`simulate` chooses), without building their columns: on a GPU only the
        totals leave it.

        Raises:
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        start = self.start_bytes(bits)
        if gpu is None:
            gpu = gpu_wanted()
        if gpu and playouts >= MIN_GPU_PLAYOUTS:
            kernel = self.gpu_kernel()
            if kernel is not None:
                try:
                    return kernel.summarize(start, playouts, seed, max_steps)  # type: ignore[no-any-return]
                except NoLegalMoveError:
                    raise
                except Exception as error:  # any GPU failure: the CPU answers
                    log.warning("GPU playouts failed (%s); the CPU runs them", error)
        lengths, terminal, masks, updates, _ = self._cpu_columns(start, playouts, seed,
                                                                 max_steps, check, False)
        return PlayoutSummary.from_arrays(np, lengths, terminal, goal_table(np, masks),
                                          updates)

    def _cpu(self, start: np.ndarray, playouts: int, seed: int, max_steps: int,
             check: Callable[[], None] | None, record: bool) -> Simulation:
        lengths, terminal, masks, updates, trajectories = self._cpu_columns(
            start, playouts, seed, max_steps, check, record)
        return self._simulation(lengths, terminal, masks, updates, trajectories)

    def _cpu_columns(self, start: np.ndarray, playouts: int, seed: int, max_steps: int,
                     check: Callable[[], None] | None, record: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int,
                                list[tuple[tuple[int, ...], ...]]]:
        """The CPU's playouts as the kernel writes them: lengths, terminal flags, goal
        masks, the updates and (with ``record``) the trajectories."""
        assert _native is not None
        roles = len(self.roles)
        lengths = np.zeros(playouts, dtype=np.int32)
        terminal = np.zeros(playouts, dtype=np.uint8)
        masks = np.zeros((playouts, roles, 2), dtype=np.uint64)
        done = 0
        updates = 0
        size = _FIRST_CHUNK
        chunk = 0
        raw = start.tobytes()
        trajectories: list[tuple[tuple[int, ...], ...]] = []
        while done < playouts:
            if check is not None:
                check()
            count = min(size, playouts - done)
            part = slice(done, done + count)
            arguments = (self._bytes, raw, count, _chunk_seed(seed, chunk), max_steps,
                         self._park, lengths[part], terminal[part], masks[part])
            if record:
                made, error, role, step, paths = self._recorded(arguments, count, max_steps)
                trajectories += paths
            else:
                made, error, role, step, _ = _native.playouts(*arguments)
            if error:
                raise NoLegalMoveError.after(self.roles[role], step)
            updates += made
            done += count
            chunk += 1
            # The next chunk's size follows from the lengths so far: the seed fixes it.
            mean = max(1.0, updates / done)
            size = max(_FIRST_CHUNK, min(_MAX_CHUNK, int(_CHUNK_UPDATES / mean)))
        return lengths, terminal, masks, updates, trajectories

    def _recorded(self, arguments: tuple[Any, ...], count: int, max_steps: int
                  ) -> tuple[int, int, int, int, list[tuple[tuple[int, ...], ...]]]:
        """One chunk with its moves recorded: the trace grows until it holds them (the
        same playouts each time), then becomes each playout's joint moves, in the order
        the playouts ended (the columns' order)."""
        assert _native is not None
        width = 2 + len(self.roles)
        capacity = max(1024, min(count * max_steps, count * 64))
        while True:
            trace = np.zeros((capacity, width), dtype=np.int32)
            started = np.zeros(count, dtype=np.int32)
            made, error, role, step, entries = _native.playouts(*arguments, trace, started)
            if error != _TRACE_FULL:
                break
            capacity *= 4
        if error:
            return made, error, role, step, []
        trace = trace[:entries]
        order = np.lexsort((trace[:, 1], trace[:, 0]))
        moves = trace[order, 2:].tolist()
        per_playout = np.bincount(trace[:, 0], minlength=count).tolist()
        paths: list[tuple[tuple[int, ...], ...]] = []
        at = 0
        for length in per_playout:
            paths.append(tuple(map(tuple, moves[at:at + length])))
            at += length
        return made, error, role, step, [paths[i] for i in started.tolist()]

    def _simulation(self, lengths: np.ndarray, terminal: np.ndarray, masks: np.ndarray,
                    updates: int, trajectories: list[tuple[tuple[int, ...], ...]] | None = None
                    ) -> Simulation:
        table, goals = playout_columns(masks)
        return Simulation(lengths.tolist(), terminal.astype(bool).tolist(), goals,
                          trajectories or [], int(updates), True, table.ravel().tolist())


def _chunk_seed(seed: int, chunk: int) -> int:
    """A chunk's own seed for the kernel's generator (any int64)."""
    mixed = (seed * 0x9E3779B97F4A7C15 + chunk * 0xD1B54A32D192ED03) & (2**64 - 1)
    return mixed - 2**64 if mixed >= 2**63 else mixed


class NetworkPercepts:
    """A GDL-II game's percepts read off its network on the native kernel: the network
    keeps each ground ``sees`` atom as a node (:attr:`Network.sees`), and one evaluation
    of a state and a joint move sets them, as it sets ``next``. The table is the network's
    ``sees`` atoms, sorted by role, then text (as :class:`reasoner.asp.percepts.PerceptOracle`
    sorts the same atoms); thread-safe (each thread has its evaluator)."""

    source = "network"

    def __init__(self, machine: NativeMachine) -> None:
        found = sorted(machine.network.sees, key=lambda entry: (entry[0], entry[1]))
        self.percept_role = tuple(role for role, _, _ in found)
        self.percept_texts = tuple(text for _, text, _ in found)
        self._roles = len(machine.roles)
        self._machine = machine
        machine.watch([signal for _, _, signal in found])

    def percepts(self, bits: int, joint: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        """Per role, the ids of the percepts it receives, ascending."""
        per_role: list[list[int]] = [[] for _ in range(self._roles)]
        owners = self.percept_role
        for index in self._machine.watched(bits, joint):
            per_role[owners[index]].append(index)
        return tuple(map(tuple, per_role))
