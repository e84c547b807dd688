"""Do two loads of one game agree? The cross-check's comparator (:func:`compare_sides`)
between two engines, goal values compared in every state, reported on one line.

Fluent and move ids may differ between the two (an instantiated game has its own tables):
the sides speak GDL text.
"""

from __future__ import annotations

from reasoner.crosscheck.check import compare_sides
from reasoner.crosscheck.sides import EngineSide
from reasoner.engine.game import Game

__all__ = ["first_disagreement"]


def first_disagreement(a: Game, b: Game, *, seed: int = 0, playouts: int = 3,
                       max_steps: int = 200) -> str | None:
    """None if the games agree along the seeded playouts (on GDL-II games, what each role
    perceives after each joint move too); else what differs first, and the joint moves
    that lead there."""
    found = compare_sides(EngineSide(a), EngineSide(b), playouts=playouts, seed=seed,
                          max_steps=max_steps, goals_everywhere=True,
                          percepts=a.is_gdl2 or b.is_gdl2).disagreement
    if found is None:
        return None
    first, second = sorted(found.ours - found.theirs), sorted(found.theirs - found.ours)
    if found.playout < 0:
        return f"{found.aspect} differ: only in the first {first}, only in the second {second}"
    trail = "; ".join(" ".join(joint) for joint in found.moves)
    where = f"playout {found.playout} after [{trail}]"
    if found.aspect in ("successor", "initial state"):
        return f"{where}: states differ: only in the first {first}, only in the second {second}"
    return f"{where}: {found.aspect}: {sorted(found.ours)} against {sorted(found.theirs)}"
