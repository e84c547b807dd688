"""The totals of many random playouts, without the playouts themselves.

A search loop that runs a million playouts from a position wants their statistics (how
often each role reached each goal value, how long they took), not a million rows: a
:class:`PlayoutSummary` holds those, is built on the GPU where the playouts ran there, and
crosses the service in a few hundred bytes (``SimulateRequest.summary``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NO_GOAL", "PlayoutSummary"]

# The goal "value" counted for a role that has no goal value in a playout's last state, or
# several (as the columns' -1).
NO_GOAL = -1


@dataclass(frozen=True)
class PlayoutSummary:
    """``playouts`` playouts in totals: ``terminal`` of them ended in a terminal state (the
    others were cut off at the step bound), ``total_length`` joint moves were made in all,
    and ``goal_counts[r]`` maps each goal value of role ``r`` (role order) to the number of
    playouts that ended with it (:data:`NO_GOAL` for none or several); ``updates`` state
    updates were made.

    >>> s = PlayoutSummary.from_columns([3, 5], [1, 0], [100, 0, -1, 50], roles=2,
    ...                                 updates=8)
    >>> s.mean_length, s.goal_counts, s.share(0, 100), s.mean_goal(0)
    (4.0, ({-1: 1, 100: 1}, {0: 1, 50: 1}), 0.5, 100.0)
    """

    playouts: int
    terminal: int
    total_length: int
    goal_counts: tuple[dict[int, int], ...]
    updates: int

    @property
    def mean_length(self) -> float:
        """Joint moves per playout (0.0 for no playouts)."""
        return self.total_length / self.playouts if self.playouts else 0.0

    def share(self, role: int, value: int) -> float:
        """The share of the playouts in which role ``role`` ended with ``value``."""
        if not self.playouts:
            return 0.0
        return self.goal_counts[role].get(value, 0) / self.playouts

    def mean_goal(self, role: int) -> float | None:
        """Role ``role``'s mean goal value over the playouts that gave it exactly one (None
        where none did)."""
        counted = {v: n for v, n in self.goal_counts[role].items() if v != NO_GOAL}
        total = sum(counted.values())
        return sum(v * n for v, n in counted.items()) / total if total else None

    @classmethod
    def from_columns(cls, lengths: Sequence[int] | np.ndarray,
                     terminal: Sequence[bool] | Sequence[int] | np.ndarray,
                     goal_table: Sequence[int] | np.ndarray, roles: int,
                     updates: int) -> PlayoutSummary:
        """The totals of playouts given in columns: ``goal_table`` holds every playout's
        goal value per role, playout-major, -1 for none or several (as
        :meth:`reasoner.core.walk.Simulation.flat_goals`)."""
        table = np.asarray(goal_table, dtype=np.int64).reshape(-1, roles) if roles else \
            np.zeros((len(lengths), 0), dtype=np.int64)
        return cls.from_arrays(np, np.asarray(lengths, dtype=np.int64),
                               np.asarray(terminal, dtype=np.int64), table, updates)

    @classmethod
    def from_arrays(cls, xp: Any, lengths: Any, terminal: Any, table: Any,
                    updates: int) -> PlayoutSummary:
        """The totals of columns held as arrays of the array module ``xp`` (numpy, or CuPy
        for columns still on a GPU: only the totals leave it). ``table`` is playout x
        role, -1 for none or several; goal values are 0..100."""
        playouts, roles = int(table.shape[0]), int(table.shape[1])
        counts: list[dict[int, int]] = []
        for role in range(roles):
            binned = xp.bincount(table[:, role] + 1, minlength=102)
            found = binned.tolist() if xp is np else xp.asnumpy(binned).tolist()
            counts.append({value - 1: int(n) for value, n in enumerate(found) if n})
        total = int(lengths.sum(dtype=xp.int64)) if playouts else 0
        ended = int((terminal != 0).sum(dtype=xp.int64)) if playouts else 0
        return cls(playouts, ended, total, tuple(counts), int(updates))

    @classmethod
    def joined(cls, parts: Sequence[PlayoutSummary], roles: int) -> PlayoutSummary:
        """One summary of several (the playouts of every part together)."""
        counts: list[dict[int, int]] = [{} for _ in range(roles)]
        for part in parts:
            for role, found in enumerate(part.goal_counts):
                for value, n in found.items():
                    counts[role][value] = counts[role].get(value, 0) + n
        return cls(sum(p.playouts for p in parts), sum(p.terminal for p in parts),
                   sum(p.total_length for p in parts),
                   tuple(dict(sorted(c.items())) for c in counts),
                   sum(p.updates for p in parts))
