"""The outcome of a finished match for one role: win, draw or loss, from the goal values.

Every tally of matches reads it here: the GGP game manager's, ``bench-players``' and
``bench-heuristics``'.

>>> print(outcome([100, 0], 0), outcome([50, 50], 1), outcome([50, 50, 0], 2))
win draw loss
>>> print(outcome([100], 0), outcome([40], 0), outcome([0], 0))
win draw loss
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = ["Outcome", "outcome"]


class Outcome(StrEnum):
    """A role's outcome of a match (a plain string of the value compares equal)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


def outcome(goals: Sequence[int | None], role: int) -> Outcome:
    """The outcome for role number ``role`` (in role order) of a match that ended with
    ``goals`` (None: the role has no single goal value, which counts below 0).

    With one role, a goal of 100 wins, 0 (or none) loses and anything between draws: a
    puzzle solved, failed or half done. With more, the highest goal alone wins, a highest
    goal shared draws, and anything else loses.

    Raises:
        IndexError: ``role`` is not an index of ``goals``.
    """
    own = goals[role]
    mine = own if own is not None else -1
    if len(goals) == 1:
        return Outcome.WIN if mine == 100 else Outcome.LOSS if mine <= 0 else Outcome.DRAW
    best = max(g if g is not None else -1 for i, g in enumerate(goals) if i != role)
    return Outcome.WIN if mine > best else Outcome.DRAW if mine == best else Outcome.LOSS
