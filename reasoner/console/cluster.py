"""Many independent tasks (one file, one match, one batch of positions), run here one after
another or spread over a Ray cluster, their results streamed back in the tasks' order.

Commands that run the same work over many inputs (``sweep``, ``crosscheck --corpus``,
``bench-players``, ``manage``, ``dataset``) describe it as :class:`Task` values and hand them
to :func:`run_tasks`. Without ``--cluster`` the tasks run in this process in order, exactly
as these commands always did. With ``--cluster ADDRESS`` (:func:`open_runner`) they run as
Ray tasks, a bounded number in flight at a time, and come back in the same order: the same
command prints the same rows on one machine or on many.

* ``local`` starts a Ray instance on this machine for the run (one worker per core);
  ``auto`` joins the one that ``ray start`` runs on this machine, or starts one if none does;
  ``HOST:PORT`` (a head node's GCS address, as ``ray start --head`` prints it) joins that
  cluster. An address that does not answer is a one-line error before any work.
* A task whose worker is lost (the process or its machine) is run again by Ray, up to
  :data:`RETRIES` more times, and so is one whose work raised; after that its result is the
  command's own "failed" record, with the reason (:data:`Failed`), never a hung run.
* Ray is an optional extra (``pip install '.[cluster]'``): without it, ``--cluster`` says
  how to get it, and nothing else changes.

A run given ``--resume FILE`` keeps each finished task's result in that journal
(:mod:`reasoner.console.journal`) and, run again after an interruption, takes the results of
the tasks it finished from there instead of running them again.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import itertools
import logging
import os
import re
import socket
import sys
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from reasoner.console.common import CommandError, UsageError
from reasoner.console.journal import Journal

if TYPE_CHECKING:
    from reasoner.engine.game import Game

__all__ = ["INSTALL", "RETRIES", "Failed", "Here", "RayCluster", "Runner", "Task", "TaskRun",
           "cluster_options", "game_from_text", "open_journal", "open_runner", "run_tasks",
           "task_run"]

INSTALL = "pip install '.[cluster]'"
# How many more times a task is run after its worker was lost or its work raised.
RETRIES = 2
# Seconds to wait for a cluster address to accept a connection.
CONNECT_SECONDS = 5.0


@dataclass(frozen=True)
class Task:
    """One piece of work: ``work(*args)``, ``work`` a function importable on every worker
    (a module-level function of this package), ``args`` plain values. ``key`` names the
    task uniquely within its run and stays the same when the run is repeated (a file's
    path, ``"match 3"``): the journal of ``--resume`` finds finished tasks by it."""

    key: str
    work: Callable[..., Any]
    args: tuple[Any, ...] = ()


# The result to report for a task that could not be done, from the task and the reason.
Failed = Callable[[Task, str], Any]


@functools.lru_cache(maxsize=4)
def game_from_text(text: str, backend: str = "auto") -> Game:
    """The game of ``text`` on ``backend``, loaded once per process: the tasks of one game
    (matches, batches of positions) carry its text, and a worker that runs several of them
    loads it for the first alone."""
    from reasoner.engine.game import Game

    return Game.from_gdl(text, backend=backend)


class Runner(Protocol):
    """Runs tasks and yields ``(task, result)`` in the tasks' order."""

    # How many tasks run at once.
    workers: int

    def map(self, tasks: Iterable[Task], failed: Failed) -> Generator[tuple[Task, Any]]:
        """Each task with its result, in the order of ``tasks`` (read lazily)."""
        ...

    def close(self) -> None:
        """Let go of what the runner holds (a local Ray instance stops)."""
        ...


class Here:
    """The tasks in this process, one after another: what the commands do without
    ``--cluster``. A task's exception goes to the caller, as it always did."""

    workers = 1

    def map(self, tasks: Iterable[Task], failed: Failed) -> Generator[tuple[Task, Any]]:
        for task in tasks:
            yield task, task.work(*task.args)

    def close(self) -> None:
        pass


def _call(work: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """What a Ray worker runs for a task. The worker runs Ray's threads beside the task's,
    so its bounded children start from the fork server."""
    from reasoner.engine.limits import fork_from_server

    fork_from_server()
    return work(*args)


class RayCluster:
    """The tasks as Ray tasks on a cluster (see the module docstring); made by
    :func:`open_runner`."""

    def __init__(self, ray: Any) -> None:
        self._ray = ray
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, cpus)
        self._remote = ray.remote(_call).options(num_cpus=1, max_retries=RETRIES,
                                                 retry_exceptions=True)

    def map(self, tasks: Iterable[Task], failed: Failed) -> Generator[tuple[Task, Any]]:
        """Keeps twice as many tasks in flight as the cluster has cores (and no more than
        eight times as many finished results waiting for a slow task before them); yields
        in order. Closing the iterator early leaves the tasks still in flight to finish
        unread: cancelling a task that Ray is retrying can crash Ray's own bookkeeping."""
        ray = self._ray
        window = 2 * self.workers
        source = iter(tasks)
        flight: dict[Any, int] = {}  # object ref -> the task's index
        order: list[Task] = []
        done: dict[int, Any] = {}
        yielded = 0
        exhausted = False
        while True:
            while not exhausted and len(flight) < window and len(done) < 4 * window:
                task = next(source, None)
                if task is None:
                    exhausted = True
                    break
                flight[self._remote.remote(task.work, task.args)] = len(order)
                order.append(task)
            while yielded in done:
                yield order[yielded], done.pop(yielded)
                yielded += 1
            if not flight:
                if exhausted:
                    return
                continue
            ready, _ = ray.wait(list(flight), num_returns=1)
            for ref in ready:
                index = flight.pop(ref)
                try:
                    done[index] = ray.get(ref)
                except ray.exceptions.RayError as error:
                    done[index] = failed(order[index], _reason(error))

    def close(self) -> None:
        """Disconnect; a cluster started for the run stops with it."""
        self._ray.shutdown()


def _reason(error: BaseException) -> str:
    """A task's failure in one line, after its retries."""
    name = type(error).__name__
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException):
        name, text = type(cause).__name__, str(cause)
    else:
        text = str(error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return f"{name} on the cluster after {RETRIES + 1} tries: {lines[-1] if lines else ''}"


_ESCAPES = re.compile(r"\x1b\[[0-9;]*m")


def _quiet_driver(ray: Any) -> None:
    """Keep Ray's messages to the driver (a task's retry, a lost worker) off standard
    output, which holds the command's rows: each becomes its first line on stderr. (Ray
    prints them from a thread of its own through ``ray._private.worker.print_to_stdstream``,
    a private name: where it is missing, nothing changes.)"""
    worker = importlib.import_module("ray._private.worker")
    if not hasattr(worker, "print_to_stdstream"):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool = False) -> None:
        lines = [_ESCAPES.sub("", str(line)).strip() for line in data.get("lines", [])]
        first = next((line for line in lines if line), "")
        if first:
            print(f"gdl-reasoner: ray: {first}", file=sys.stderr, flush=True)

    setattr(worker, "print_to_stdstream", to_stderr)  # noqa: B010 (a private name)


def _reachable(address: str) -> None:
    """Raise :class:`CommandError` unless ``address`` (``HOST:PORT``, or ``ray://HOST:PORT``)
    accepts a connection within :data:`CONNECT_SECONDS`."""
    plain = address.removeprefix("ray://")
    host, _, port = plain.rpartition(":")
    if not host or not port.isdigit():
        raise UsageError(f"--cluster {address}: give local, auto or HOST:PORT (a Ray head "
                         "node's address, as `ray start --head` prints it)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_SECONDS).close()
    except OSError as error:
        why = error.strerror or str(error) or type(error).__name__
        raise CommandError(f"cannot reach the Ray cluster at {address}: {why}") from None


def open_runner(address: str | None) -> Runner:
    """:class:`Here` for None; otherwise a :class:`RayCluster` joined (or started: ``local``,
    ``auto``) as the module says.

    Raises:
        UsageError: Ray is not installed, or the address is not one.
        CommandError: the cluster does not answer or refuses us.
    """
    if address is None:
        return Here()
    try:
        ray = importlib.import_module("ray")
    except ImportError:
        raise UsageError(f"--cluster needs Ray: {INSTALL}") from None
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    _quiet_driver(ray)
    options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
    if address == "local":
        ray.init(address="local", include_dashboard=False, **options)
        return RayCluster(ray)
    if address == "auto":
        found = _running_here()
        if found is None:
            ray.init(address="local", include_dashboard=False, **options)
            return RayCluster(ray)
        address = found
    else:
        _reachable(address)
    try:
        ray.init(address=address, **options)
    except Exception as error:  # Ray's own errors (authentication, version) have no base
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise CommandError(f"cannot join the Ray cluster at {address}: "
                           f"{type(error).__name__}: {first}") from None
    return RayCluster(ray)


def _running_here() -> str | None:
    """The address of the cluster that ``ray start`` runs on this machine (``RAY_ADDRESS``,
    else the one Ray notes in its temporary folder), if it accepts a connection; None
    otherwise (Ray itself would retry a dead one's address for minutes)."""
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        noted = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
        try:
            address = noted.read_text(encoding="utf-8").strip().splitlines()[0]
        except (OSError, IndexError):
            return None
    try:
        _reachable(address)
    except CommandError:
        return None
    return address


def run_tasks(tasks: Iterable[Task], runner: Runner, failed: Failed, *,
              journal: Journal | None = None,
              encode: Callable[[Any], Any] = lambda result: result,
              decode: Callable[[Any], Any] = lambda saved: saved) -> Generator[Any]:
    """Each task's result, in the order of ``tasks``: from ``journal`` for a task it holds
    (``decode`` of what it kept), otherwise from ``runner`` (then kept there as ``encode`` of
    it, a JSON value)."""
    finished = journal.finished() if journal is not None else {}
    walk, pending = itertools.tee(tasks)
    fresh = runner.map((t for t in pending if t.key not in finished), failed)
    try:
        for task in walk:
            if task.key in finished:
                yield decode(finished[task.key])
                continue
            ran, result = next(fresh)
            assert ran.key == task.key
            if journal is not None:
                journal.keep(task.key, encode(result))
            yield result
    finally:
        fresh.close()


def cluster_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--cluster`` and ``--resume`` to a command that runs many tasks."""
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="run the tasks on a Ray cluster: local (started for this run), "
                             "auto (the one on this machine) or HOST:PORT of a head node; "
                             f"needs Ray ({INSTALL})")
    parser.add_argument("--resume", type=Path, metavar="FILE",
                        help="keep each finished task's result in FILE; run again after an "
                             "interruption, take those from there and run only the rest")


# Options that decide how a run is shown or where it runs, not its results.
_NOT_RESULTS = frozenset({"run", "cluster", "resume", "json", "output"})


def open_journal(args: argparse.Namespace, command: str) -> Journal | None:
    """The journal of ``--resume``, naming the run by ``command`` and every option that
    decides its results (None without ``--resume``)."""
    if args.resume is None:
        return None
    run: dict[str, Any] = {"command": command}
    for name, value in sorted(vars(args).items()):
        if name in _NOT_RESULTS or callable(value):
            continue
        run[name] = [str(v) for v in value] if isinstance(value, list) else (
            value if isinstance(value, (bool, int, float, str, type(None))) else str(value))
    return Journal(args.resume, run)


@dataclass(frozen=True)
class TaskRun:
    """What a command's tasks run on (see :func:`task_run`): its runner and its journal."""

    runner: Runner
    journal: Journal | None

    @property
    def plain(self) -> bool:
        """Whether the tasks run here without a journal, as the command always ran."""
        return isinstance(self.runner, Here) and self.journal is None

    def results(self, tasks: Iterable[Task], failed: Failed, *,
                encode: Callable[[Any], Any] = lambda result: result,
                decode: Callable[[Any], Any] = lambda saved: saved) -> Generator[Any]:
        """:func:`run_tasks` on this run's runner and journal."""
        return run_tasks(tasks, self.runner, failed, journal=self.journal, encode=encode,
                         decode=decode)


@contextlib.contextmanager
def task_run(args: argparse.Namespace, command: str) -> Iterator[TaskRun]:
    """The runner of ``--cluster`` and the journal of ``--resume`` for ``command`` (named
    so in the journal), both let go of when the block ends. The journal is opened first: a
    usage error there costs no cluster."""
    journal = open_journal(args, command)
    try:
        runner = open_runner(args.cluster)
        try:
            yield TaskRun(runner, journal)
        finally:
            runner.close()
    finally:
        if journal is not None:
            journal.close()
