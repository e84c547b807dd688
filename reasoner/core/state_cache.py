"""The bounded cache of state answers that the solver-backed machines keep."""

from __future__ import annotations

import threading

from reasoner.core.values import StateInfo

__all__ = ["StateCache"]


class StateCache:
    """Legal moves, terminal and goals by state bits, the oldest entry dropped when full
    (thread-safe: a lookup is one dict read, a store holds the cache's own lock)."""

    def __init__(self, size: int = 65536) -> None:
        self._size = size
        self._entries: dict[int, StateInfo] = {}
        self._lock = threading.Lock()

    def get(self, bits: int) -> StateInfo | None:
        return self._entries.get(bits)

    def put(self, bits: int, info: StateInfo) -> None:
        with self._lock:
            entries = self._entries
            if len(entries) >= self._size:
                entries.pop(next(iter(entries)))
            entries[bits] = info
