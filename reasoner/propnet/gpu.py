"""Playouts on an NVIDIA GPU: the playout kernel's own source, compiled at run time.

CuPy (the optional extra ``pip install .[gpu]``) compiles ``kernel.h`` with NVRTC, with one
64-lane word per thread (``KERNEL_WORDS 1``) instead of the CPU's four, and a ``__global__``
entry that gives every thread its share of the playouts, its own stream of random numbers
and its own rows of a value table laid out thread-minor (row ``r`` of thread ``t`` at
``r * threads + t``, so that a warp's reads of one row are one transaction). The logic is
the CPU build's, line for line, and the thread partition (``k_thread``) is checked on the
CPU too: ``_threads.c`` builds the same source with one word a thread and runs the threads
one after another.

Nothing here is required: without CuPy or a GPU, :func:`gpu_kernel` says why and returns
None, and the CPU runs the playouts. A GPU that fails (busy, out of memory) makes the
caller fall back to the CPU with a log line.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from reasoner.core.playout_summary import PlayoutSummary
from reasoner.errors import NoLegalMoveError
from reasoner.propnet.flat import KernelImage
from reasoner.propnet.goal_masks import goal_table

__all__ = ["GPU_ENV", "PLAYOUTS_PER_LANE", "EmulatedGpuKernel", "GpuKernel", "GpuRun",
           "gpu_kernel", "gpu_source", "gpu_wanted", "launch_threads"]

log = logging.getLogger(__name__)

# Set to 1 to run Simulate's playouts on the GPU where one is found (serve --gpu sets it).
GPU_ENV = "GDL_REASONER_GPU"
# Fewer playouts than this stay on the CPU: starting a GPU kernel costs more.
MIN_GPU_PLAYOUTS = 4096
_THREADS_PER_BLOCK = 128
# At most this share of the GPU's free memory goes to one run's value tables.
_MEMORY_SHARE = 0.5
_MAX_THREADS = 1 << 20
# A lane plays at least this many playouts (fewer threads otherwise).
PLAYOUTS_PER_LANE = 2

_ENTRY = r"""
extern "C" __global__ void k_playouts(
        const int *image, const unsigned char *start, long long playouts, int threads,
        int max_steps, int park, unsigned long long seed, unsigned long long *values,
        int *lane_start, int *lengths, unsigned char *terminal, unsigned long long *goals,
        long long *updates, int *errors) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < threads)
        k_thread(t, threads, image, start, playouts, max_steps, park, seed, values,
                 lane_start, lengths, terminal, goals, updates, errors);
}
"""


def gpu_source() -> str:
    """The CUDA source: the kernel's C source with one word per thread, and the entry."""
    kernel = resources.files("reasoner.propnet").joinpath("kernel.h").read_text()
    return ("#define KERNEL_WORDS 1\n#define KFN __device__ static inline\n"
            + kernel + _ENTRY)


def gpu_wanted() -> bool:
    """Whether Simulate should try the GPU (``GDL_REASONER_GPU=1``)."""
    return os.environ.get(GPU_ENV, "") not in ("", "0")


@dataclass(frozen=True)
class GpuRun:
    """One run's columns (on the host) and its figures."""

    lengths: np.ndarray
    terminal: np.ndarray
    goals: np.ndarray  # playout x role x 2 words of goal value bits
    updates: int
    kernel_seconds: float
    threads: int


def launch_threads(playouts: int, free_bytes: int, rows: int, resident: int | None) -> int:
    """Threads for one run of ``playouts`` on a GPU with ``free_bytes`` of free memory,
    for a network of ``rows`` value rows, of which the GPU keeps ``resident`` running at
    once (None: unknown).

    At least two playouts a lane; no more threads than run at once, so that a large run
    is one wave of threads whose lanes play many playouts back to back (a thread's lanes
    sit idle only while its last playouts end, and that share shrinks with the playouts
    a lane plays; threads beyond one wave would also bring value tables of their own to
    crowd the caches); and no more than :data:`_MEMORY_SHARE` of the free memory holds.

    Raises:
        MemoryError: the free memory holds no thread's value table.
    """
    per_thread = rows * 8 + 64 * 4  # a word a row, and the lanes' start steps
    by_memory = int(free_bytes * _MEMORY_SHARE) // per_thread
    wanted = max(1, -(-playouts // (64 * PLAYOUTS_PER_LANE)))
    threads = min(wanted, by_memory, resident or _MAX_THREADS, _MAX_THREADS)
    if threads < 1:
        raise MemoryError("the GPU's free memory holds no value table")
    return threads


class GpuKernel:
    """A network's image on the GPU and the compiled kernel."""

    def __init__(self, image: KernelImage, roles: tuple[str, ...], cupy: Any,
                 block: int = _THREADS_PER_BLOCK) -> None:
        self.cp = cupy
        self.block = block
        self.image = image
        self.park = image.park(64)  # a thread's block is one word of 64 lanes
        self.roles = roles
        self.module = cupy.RawModule(code=gpu_source(), options=("--std=c++14",))
        self.function = self.module.get_function("k_playouts")
        self.device_image = cupy.asarray(image.data)
        properties = cupy.cuda.runtime.getDeviceProperties(0)
        name = properties["name"]
        self.device = name.decode() if isinstance(name, bytes) else str(name)
        self.resident = self._resident(properties)

    def _resident(self, properties: dict[str, Any]) -> int | None:
        """How many of the kernel's threads the GPU keeps running at once (its occupancy
        at this block size, over every multiprocessor), or None where CUDA does not say."""
        try:
            # CuPy's RawKernel keeps the driver's function handle in .kernel.
            pointer = getattr(self.function, "ptr", None) or self.function.kernel.ptr
            blocks = self.cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                pointer, self.block, 0)
            resident = int(blocks) * int(properties["multiProcessorCount"]) * self.block
        except Exception as error:  # an older CuPy or driver: size by memory alone
            log.info("the GPU's occupancy is unknown (%s); runs are sized by memory", error)
            return None
        return resident or None

    def threads_for(self, playouts: int) -> int:
        """Threads for ``playouts``: see :func:`launch_threads`."""
        free, _ = self.cp.cuda.runtime.memGetInfo()
        return launch_threads(playouts, free, self.image.rows, self.resident)

    def run(self, start: np.ndarray, playouts: int, seed: int, max_steps: int,
            threads: int | None = None) -> GpuRun:
        """``playouts`` random playouts from ``start`` (a byte per fluent).

        Raises:
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        cp = self.cp
        lengths, terminal, goals, updates, elapsed, threads = self._launch(
            start, playouts, seed, max_steps, threads)
        return GpuRun(cp.asnumpy(lengths), cp.asnumpy(terminal),
                      cp.asnumpy(goals).reshape(playouts, self.image.roles, 2),
                      updates, elapsed, threads)

    def summarize(self, start: np.ndarray, playouts: int, seed: int,
                  max_steps: int) -> PlayoutSummary:
        """The totals of :meth:`run`'s playouts, added up on the GPU: only they leave it.

        Raises:
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        cp = self.cp
        lengths, terminal, goals, updates, _, _ = self._launch(start, playouts, seed,
                                                               max_steps, None)
        table = goal_table(cp, goals.reshape(playouts, self.image.roles, 2))
        return PlayoutSummary.from_arrays(cp, lengths, terminal, table, updates)

    def _launch(self, start: np.ndarray, playouts: int, seed: int, max_steps: int,
                threads: int | None) -> tuple[Any, Any, Any, int, float, int]:
        """One kernel run: its columns, still on the GPU, the updates, the kernel's
        seconds and the threads it took."""
        cp = self.cp
        threads = threads or self.threads_for(playouts)
        roles = self.image.roles
        values = cp.zeros(self.image.rows * threads, dtype=cp.uint64)
        lane_start = cp.zeros(threads * 64, dtype=cp.int32)
        lengths = cp.zeros(playouts, dtype=cp.int32)
        terminal = cp.zeros(playouts, dtype=cp.uint8)
        goals = cp.zeros(playouts * roles * 2, dtype=cp.uint64)
        updates = cp.zeros(threads, dtype=cp.int64)
        errors = cp.zeros(threads * 3, dtype=cp.int32)
        device_start = cp.asarray(start.astype(np.uint8))
        blocks = -(-threads // self.block)
        cp.cuda.Device().synchronize()
        began = time.perf_counter()
        self.function((blocks,), (self.block,), (
            self.device_image, device_start, np.int64(playouts), np.int32(threads),
            np.int32(max_steps), np.int32(self.park), np.uint64(seed & (2**64 - 1)), values,
            lane_start, lengths, terminal, goals, updates, errors))
        cp.cuda.Device().synchronize()
        elapsed = time.perf_counter() - began
        found = cp.asnumpy(errors).reshape(threads, 3)
        failed = np.flatnonzero(found[:, 0])
        if len(failed):
            _, role, step = found[failed[0]].tolist()
            raise NoLegalMoveError.after(self.roles[role], step)
        return lengths, terminal, goals, int(updates.sum()), elapsed, threads


class EmulatedGpuKernel:
    """The GPU kernel's interface over the GPU build's logic compiled for the CPU
    (``_threads.c``: one word a thread, the threads one after another): what the tests
    drive the GPU path with where there is no GPU. Slow; never chosen by itself."""

    def __init__(self, image: KernelImage, roles: tuple[str, ...], threads: int = 97) -> None:
        from reasoner.propnet import _threads

        self._threads = _threads
        self.image = image
        self.park = image.park(64)
        self.roles = roles
        self.threads = threads
        self.device = "the CPU, running the GPU build's logic thread by thread"

    def run(self, start: np.ndarray, playouts: int, seed: int, max_steps: int,
            threads: int | None = None) -> GpuRun:
        """As :meth:`GpuKernel.run`."""
        threads = threads or self.threads
        lengths = np.zeros(playouts, dtype=np.int32)
        terminal = np.zeros(playouts, dtype=np.uint8)
        goals = np.zeros((playouts, self.image.roles, 2), dtype=np.uint64)
        began = time.perf_counter()
        updates, error, role, step = self._threads.playouts(
            self.image.bytes, start.astype(np.uint8).tobytes(), playouts, threads,
            (seed + 2**63) % 2**64 - 2**63, max_steps, self.park,
            lengths, terminal, goals)
        elapsed = time.perf_counter() - began
        if error:
            raise NoLegalMoveError.after(self.roles[role], step)
        return GpuRun(lengths, terminal, goals, updates, elapsed, threads)

    def summarize(self, start: np.ndarray, playouts: int, seed: int,
                  max_steps: int) -> PlayoutSummary:
        """As :meth:`GpuKernel.summarize`."""
        run = self.run(start, playouts, seed, max_steps)
        return PlayoutSummary.from_arrays(np, run.lengths, run.terminal,
                                          goal_table(np, run.goals), run.updates)


def gpu_kernel(image: KernelImage, roles: tuple[str, ...]) -> tuple[GpuKernel | None, str]:
    """The image's GPU kernel, or None and why not (no CuPy, no GPU, a failed compile)."""
    try:
        import cupy  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        return None, f"CuPy is not installed ({error}; pip install .[gpu])"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "no NVIDIA GPU is present"
        return GpuKernel(image, roles, cupy), ""
    except Exception as error:  # any CUDA failure means: the CPU answers
        return None, f"the GPU kernel is unavailable ({type(error).__name__}: {error})"
