"""Time and memory bounds for work that may explode (grounding a huge game).

clingo's grounder cannot be interrupted from Python, so bounded work runs in a forked child
process with an address-space limit; the parent waits for its answer until the time bound and
kills it afterwards (:class:`BoundedWork` lets the parent do its own work meanwhile).
Errors the child raises on purpose (:class:`ReasonerError`) come back
as themselves; running out of either bound becomes :class:`ResourceLimitError` naming it.
"""

from __future__ import annotations

import fcntl
import math
import multiprocessing
import os
import pickle
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from reasoner.errors import ReasonerError, ResourceLimitError, seconds_text

__all__ = ["BoundedWork", "Limits", "die_with_parent", "fork_from_server", "run_bounded"]

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Bounds for one piece of work: wall-clock seconds and resident memory in MiB."""

    seconds: float = 60.0
    memory_mb: int = 4096
    # How the child starts: "fork" (cheap; fine in single-threaded programs) or
    # "forkserver" (for multi-threaded servers: children fork from a clean helper process).
    start_method: str = "fork"


# How much lower a child's scheduling priority is than its parent's: a server's threads that
# answer queries come first when grounding children fill the cores.
CHILD_NICENESS = 10
# How often a waiting parent calls its check (see run_bounded).
CHECK_SECONDS = 0.1
# CPU seconds a child may use beyond its wall-clock bound before the kernel stops it: the
# parent kills it at the bound, so this only ends a child whose parent is gone.
_CPU_MARGIN = 10


# Set in a process whose other threads make a plain fork unsafe (a Ray worker): every bounded
# child of the process starts from the fork server.
_start_method: str | None = None


def fork_from_server() -> None:
    """Start every bounded child of this process from the fork server, whatever its
    :class:`Limits` say: for a process that runs threads it does not own (a cluster's
    worker), where a child forked from it may inherit a lock held by another thread."""
    global _start_method
    _start_method = "forkserver"


def die_with_parent(alive: Connection, seconds: float = math.inf) -> None:
    """Make this child end as soon as the process waiting for its answer does, even in the
    middle of a grounding that holds the interpreter: ``alive`` is the read end of a pipe
    only that process writes to, and when it exits the kernel signals the end of the pipe
    with SIGIO, whose default action ends this process. The CPU-time limit stops it in any
    case. (A ``kill -9`` of a server must not leave a child growing for minutes.)"""
    if math.isfinite(seconds):
        cpu = math.ceil(seconds) + _CPU_MARGIN
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    if sys.platform.startswith("linux"):
        signal.signal(signal.SIGIO, signal.SIG_DFL)
        fd = alive.fileno()
        fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)
    if alive.poll(0):  # the parent was gone before the signal was asked for
        os._exit(1)


def _unraisable(_: Any) -> None:
    """A bounded child's hook for errors that cannot be raised: say nothing."""


def _child(connection: Connection, alive: Connection, alive_there: Connection,
           memory_mb: int, seconds: float, func: Callable[..., Any],
           args: tuple[Any, ...], max_answer_bytes: int | None = None) -> None:
    before: tuple[int, int] | None = None
    try:
        alive_there.close()  # the copy of the parent's end that a fork or a pickle made
        die_with_parent(alive, seconds)
        os.nice(CHILD_NICENESS)
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        # An error a library's callback cannot raise (clingo's observer at the memory
        # bound) would be printed on stderr among the command's lines; the work's outcome
        # says what happened.
        sys.unraisablehook = _unraisable
        before = _address_space_kb()
        outcome: tuple[str, Any] = ("ok", func(*args))
    except ReasonerError as error:
        outcome = ("error", error)
    except MemoryError:
        outcome = ("memory", None)
    except BaseException as error:
        # A library that fails to allocate may say so in its own words, or in none:
        # clingo grounding past the address-space bound raises a RuntimeError with no
        # message. Near the bound, the failure is the bound's (and so it is where even
        # reading how near fails for memory).
        try:
            near = _near_the_bound(memory_mb, before)
        except MemoryError:
            near = True
        outcome = (("memory", None) if near else
                   ("crash", f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
    try:
        answer = pickle.dumps(outcome)
        if max_answer_bytes is not None and len(answer) > max_answer_bytes:
            answer = pickle.dumps(("error", ResourceLimitError(
                f"the work's answer takes {len(answer) / 2**20:,.0f} MiB, more than the "
                f"{max_answer_bytes / 2**20:,.0f} MiB it may", "size",
                limit=max_answer_bytes / 2**20, reason="answer")))
        connection.send_bytes(answer)
    except MemoryError:  # the answer (a large network, say) does not fit beside the work
        connection.send_bytes(pickle.dumps(("memory", None)))
    except BaseException:
        connection.send_bytes(pickle.dumps(("crash", "result could not be sent back")))
    finally:
        connection.close()
        os._exit(0)


# A failure counts as the memory bound's when the work itself took the child's address
# space this close to it (an allocation that failed asked for what the rest could not
# hold), growing it by at least half the room it had.
_NEAR_THE_BOUND = 0.9


def _address_space_kb() -> tuple[int, int] | None:
    """This process's address space now and at its peak, in KiB (``VmSize`` and
    ``VmPeak``, what ``RLIMIT_AS`` bounds; a forked child starts with its parent's peak),
    or None where they cannot be read."""
    found: dict[str, int] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(("VmSize:", "VmPeak:")):
                    found[line.split(":")[0]] = int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    if len(found) < 2:
        return None
    return found["VmSize"], found["VmPeak"]


def _near_the_bound(memory_mb: int, before: tuple[int, int] | None) -> bool:
    """Whether the work grew this process's address space (from ``before``, as
    :func:`_address_space_kb` read it when the work started) to :data:`_NEAR_THE_BOUND` of
    ``memory_mb`` MiB, by at least half the room it had then (False where it cannot be
    read)."""
    now = _address_space_kb()
    if now is None or before is None:
        return False
    (size, peak), (size_before, peak_before) = now, before
    reached = max(size, peak if peak > peak_before else 0)
    bound = memory_mb * 1024
    room = bound - size_before  # none when the child started past the bound
    return room > 0 and reached >= _NEAR_THE_BOUND * bound and reached - size_before >= room / 2


# The share of a memory bound past which this process's own address space leaves a forked
# child too little room (see _too_large_to_fork).
FORK_SHARE = 0.5


def _too_large_to_fork(memory_mb: int) -> bool:
    """Whether this process's address space is past :data:`FORK_SHARE` of ``memory_mb``
    MiB. A forked child starts with its parent's address space, which its ``RLIMIT_AS``
    counts: the child of a process that has grown (a long-lived program that loaded large
    games, a test process after hundreds of tests, its threads' reserved stacks and malloc
    arenas) would have little room for the work, and one that cannot even start a thread
    may hang rather than fail. Its child starts from the fork server instead, a small
    process, with the whole bound."""
    found = _address_space_kb()
    return found is not None and found[0] > FORK_SHARE * memory_mb * 1024


class BoundedCrash(RuntimeError):
    """The bounded work died of an unexpected exception (a bug, not bad input)."""


def run_bounded(func: Callable[..., T], args: tuple[Any, ...], limits: Limits | None,
                check: Callable[[], None] | None = None,
                max_answer_bytes: int | None = None) -> T:
    """Run ``func(*args)`` in a child process under ``limits`` and return its result
    (``limits=None``: run it here, unbounded). ``check`` is called every
    :data:`CHECK_SECONDS` while the child works; whatever it raises kills the child and
    is raised here (a request that was cancelled or whose deadline passed). A result
    whose pickle exceeds ``max_answer_bytes`` is refused in the child, so that it never
    reaches this process.

    Raises:
        ResourceLimitError: the time or memory bound was exceeded, or the answer's.
        ReasonerError: whatever the work raised deliberately.
        BoundedCrash: any other failure inside the child.
    """
    if limits is None:
        return func(*args)
    with BoundedWork(func, args, limits, max_answer_bytes) as work:
        return work.result(check)


class BoundedWork(Generic[T]):
    """``func(*args)`` started in a bounded child (see :func:`run_bounded`), so that this
    process can do work of its own before it asks for the answer: a load reads the rules
    here while its child grounds them. The time bound counts from the start. Used as a
    context manager, the child is killed on leaving it, whether or not its answer was
    asked for (the work here failed, say)."""

    def __init__(self, func: Callable[..., T], args: tuple[Any, ...], limits: Limits,
                 max_answer_bytes: int | None = None) -> None:
        start_method = _start_method or limits.start_method
        if start_method == "fork" and _too_large_to_fork(limits.memory_mb):
            start_method = "forkserver"
        context: Any = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            # Preload the reasoner, not __main__: a script that starts a server without an
            # `if __name__ == "__main__"` guard must not be run again in the fork server.
            context.set_forkserver_preload(["reasoner.engine.game", "reasoner.server.registry"])
        self._limits = limits
        self._receiver, sender = context.Pipe(duplex=False)
        alive, self._alive_here = context.Pipe(duplex=False)  # this process alone writes
        self._process = context.Process(target=_child, args=(sender, alive, self._alive_here,
                                                             limits.memory_mb, limits.seconds,
                                                             func, args, max_answer_bytes),
                                        daemon=True)
        self._process.start()
        self._deadline = time.monotonic() + limits.seconds
        sender.close()
        alive.close()
        self._closed = False

    def __enter__(self) -> BoundedWork[T]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill the child if it still works, and let its pipes go."""
        if self._closed:
            return
        self._closed = True
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._receiver.close()
        self._alive_here.close()

    def result(self, check: Callable[[], None] | None = None) -> T:
        """Wait for the child's answer (``check`` as in :func:`run_bounded`) and return it;
        the child is gone afterwards.

        Raises:
            ResourceLimitError: the time or memory bound was exceeded, or the answer's.
            ReasonerError: whatever the work raised deliberately.
            BoundedCrash: any other failure inside the child.
        """
        try:
            kind, value = self._answer(check)
        finally:
            self.close()
        limits = self._limits
        if kind == "ok":
            return value  # type: ignore[no-any-return]
        if kind == "error":
            raise value
        if kind == "memory":
            raise ResourceLimitError(f"exceeded the memory bound of {limits.memory_mb} MiB",
                                     bound="memory", limit=limits.memory_mb, reason="work")
        raise BoundedCrash(value)

    def _answer(self, check: Callable[[], None] | None) -> tuple[str, Any]:
        """The child's outcome as it sent it: a kind and a value."""
        limits, process, receiver = self._limits, self._process, self._receiver
        deadline = self._deadline
        while not receiver.poll(min(CHECK_SECONDS, max(deadline - time.monotonic(), 0.0))):
            if time.monotonic() >= deadline:
                raise ResourceLimitError(
                    f"exceeded the time bound of {seconds_text(limits.seconds)}", bound="time",
                    limit=limits.seconds, reason="work")
            if check is not None:
                check()
        try:
            outcome: tuple[str, Any] = pickle.loads(receiver.recv_bytes())
            return outcome
        except EOFError:
            process.join(1.0)
            if process.exitcode is not None and process.exitcode < 0:
                raise ResourceLimitError(
                    f"the work was killed (signal {-process.exitcode}), most likely at the "
                    f"memory bound of {limits.memory_mb} MiB", bound="memory",
                    limit=limits.memory_mb, reason="work") from None
            # A child that ran out of memory where Python could not raise MemoryError
            # (inside clingo, say) exits with an error code and no answer.
            peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            if process.exitcode and peak_mb >= 0.75 * limits.memory_mb:
                raise ResourceLimitError(
                    f"exceeded the memory bound of {limits.memory_mb} MiB (the work ended "
                    f"with exit code {process.exitcode} at {peak_mb:,.0f} MiB resident)",
                    bound="memory", limit=limits.memory_mb, reason="work") from None
            raise BoundedCrash(
                f"the bounded child process ended without an answer (exit code "
                f"{process.exitcode}); with the forkserver start method, a script that "
                "starts it needs an `if __name__ == \"__main__\":` guard") from None
