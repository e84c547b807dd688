"""What a cluster gains on corpus work (``bench-cluster``): the same sweep of a corpus slice
in one process and as tasks on a Ray cluster, timed in the same run, and the cost of one
task on the cluster.

* **The slice.** Each run sweeps the same files (seeded random playouts, each file in its
  own bounded child, as ``sweep`` does) first in this process, one file after another, then
  on the cluster, and checks that both give every file the same fate; the ratio is the
  one-process wall time over the cluster's.
* **The cost of a task.** A batch of tasks that do nothing (``abs`` of a number) through the
  cluster: wall time over their count, what each task adds beside its work (submission,
  scheduling, the result's way back, in order).

The cluster's own start is timed apart and not counted in either figure. A process that
runs Ray's threads must not fork its bounded children directly (they would inherit Ray's
address space, past their memory bound), so both sides start them from the fork server, as
the cluster's workers do.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reasoner.console.cluster import Here, Runner, Task, run_tasks
from reasoner.engine.limits import Limits, fork_from_server
from reasoner.workshop.corpus_sweep import DEFAULT_LIMITS, SweepResult, sweep_tasks

__all__ = ["ClusterFigures", "measure"]


@dataclass(frozen=True)
class ClusterFigures:
    """The medians of one measurement (seconds), with every run's figures."""

    files: int
    workers: int
    here_seconds: list[float]
    cluster_seconds: list[float]
    task_ms: list[float]
    same_fates: bool

    @property
    def ratio(self) -> float:
        return statistics.median(self.here_seconds) / statistics.median(self.cluster_seconds)


def _sweep(paths: Sequence[Path], runner: Runner, limits: Limits, playouts: int,
           seed: int) -> tuple[float, list[str]]:
    """The wall time of one sweep of ``paths`` by ``runner``, and each file's fate."""
    tasks = list(sweep_tasks(paths, limits=limits, playouts=playouts, seed=seed))
    started = time.perf_counter()
    results: list[SweepResult] = list(run_tasks(tasks, runner, SweepResult.failed_task))
    return time.perf_counter() - started, [f"{r.fate}" for r in results]


def _task_ms(runner: Runner, count: int) -> float:
    """Milliseconds per task of ``count`` tasks that do nothing."""
    tasks = [Task(str(i), abs, (-i,)) for i in range(count)]
    started = time.perf_counter()
    list(run_tasks(tasks, runner, lambda task, why: why))
    return 1000 * (time.perf_counter() - started) / count


def measure(paths: Sequence[Path], runner: Runner, *, runs: int = 3, playouts: int = 3,
            seed: int = 0, limits: Limits = DEFAULT_LIMITS,
            empty_tasks: int = 500) -> ClusterFigures:
    """``runs`` interleaved runs of the slice in this process and on ``runner``'s cluster,
    and of ``empty_tasks`` empty tasks there."""
    fork_from_server()
    here_seconds, cluster_seconds, task_ms = [], [], []
    same = True
    for _ in range(runs):
        seconds, here_fates = _sweep(paths, Here(), limits, playouts, seed)
        here_seconds.append(seconds)
        seconds, cluster_fates = _sweep(paths, runner, limits, playouts, seed)
        cluster_seconds.append(seconds)
        same = same and here_fates == cluster_fates
        task_ms.append(_task_ms(runner, empty_tasks))
    return ClusterFigures(len(paths), runner.workers, here_seconds, cluster_seconds, task_ms,
                          same)
