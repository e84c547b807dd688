"""Admission of heavy calls: loads and groundings run a few at a time, beside the queries.

The service keeps a second gate of the same kind for calls whose cost grows with their
arguments (a Simulate of many playouts, an Expand of many children, a Query, Next or Evaluate
of many states): see ``ReasonerService._costly``.

A heavy call (a load that is not cached, a translation, a grounding for supersets, relaxed
layers or an instantiation) takes one of ``running`` slots; while all are taken, up to
``waiting`` more wait for one (as long as their request lives), and one more is refused at
once with RESOURCE_EXHAUSTED. The server's thread pool has room for all of them besides its
workers, so that blow-ups never take the threads that answer short queries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from reasoner.errors import ResourceLimitError

__all__ = ["DEFAULT_HEAVY", "HeavyGate", "costly_gate"]

# Heavy calls that run at once by default (``serve --max-heavy``); as many more may wait.
DEFAULT_HEAVY = 2
# How often a waiting call asks whether its request still lives.
_POLL_SECONDS = 0.1


class HeavyGate:
    """Slots for heavy calls (see the module documentation)."""

    def __init__(self, running: int = DEFAULT_HEAVY, waiting: int | None = None, *,
                 noun: str = "loads or groundings", flag: str = "serve --max-heavy") -> None:
        self.running = max(1, running)
        self._noun = noun  # what runs here, and the option that sizes it: for the refusal
        self._flag = flag
        self.waiting = self.running if waiting is None else max(0, waiting)
        self._slots = threading.Semaphore(self.running)
        self._lock = threading.Lock()
        self._queued = 0

    @property
    def threads(self) -> int:
        """Threads that heavy calls may hold at once (running and waiting)."""
        return self.running + self.waiting

    @property
    def queued(self) -> int:
        """Calls waiting for a slot now."""
        with self._lock:
            return self._queued

    @contextmanager
    def admit(self, what: str, check: Callable[[], None] | None = None) -> Iterator[None]:
        """Hold a slot for ``what`` (a call's name, for the refusal) while the block runs;
        ``check`` is called while it waits and may raise (a cancelled request, a passed
        deadline) to give up its place.

        Raises:
            ResourceLimitError: every slot is taken and ``waiting`` calls wait already.
        """
        if not self._slots.acquire(blocking=False):
            with self._lock:
                if self._queued >= self.waiting:
                    raise ResourceLimitError(
                        f"the server runs {self.running} {self._noun} at once and "
                        f"{self.waiting} more wait already: send {what} again later "
                        f"({self._flag})", "concurrency", limit=self.running,
                        reason="busy")
                self._queued += 1
            try:
                while not self._slots.acquire(timeout=_POLL_SECONDS):
                    if check is not None:
                        check()
            finally:
                with self._lock:
                    self._queued -= 1
        try:
            yield
        finally:
            self._slots.release()


def costly_gate(running: int = DEFAULT_HEAVY) -> HeavyGate:
    """The gate of the calls whose cost grows with their arguments (``serve
    --max-costly``)."""
    return HeavyGate(running, noun="costly calls (large Simulate, Expand, Query, Next or "
                     "Evaluate)", flag="serve --max-costly")
