"""The cyclic garbage collector, paused while a large game's trees are built and walked.

Reading, validating and translating a game make millions of small objects (terms, atoms,
rules, their flattened copies) and no reference cycles: reference counting frees them all.
The cyclic collector, left running, would traverse every live object again each time enough
new ones survive; on an instantiated game of 380,000 rules that tripled the time of
validation. Pausing it nests: the collector runs again only when the outermost pause ends,
and only if it was running before.

When the outermost pause ends after more than :data:`FREEZE_AFTER` objects were kept, they
are moved out of the collector's sight (``gc.freeze``) before it runs again: its first
collection would otherwise walk every one of them (merrills's instantiated game, 317,295
rules: 4.4 s after reading it), and every full collection after that again. What is frozen
is still freed by reference counting as soon as nothing refers to it; only a reference cycle
among objects alive at that moment would stay in memory. A pause that ends with an
exception freezes nothing: the traceback's frames are such a cycle, and they may hold the
half-built tree.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FREEZE_AFTER", "paused_collector"]

# Objects kept during a pause (the collector's count of its youngest generation) past which
# they are frozen when it ends: a game of a few thousand rules keeps tens of thousands.
FREEZE_AFTER = 1_000_000


@contextmanager
def paused_collector() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off (as it was after)."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    except BaseException:
        if running:
            gc.enable()
        raise
    if running:
        if gc.get_count()[0] > FREEZE_AFTER:
            gc.freeze()
        gc.enable()
