"""The cyclic garbage collector, paused while a large game's trees are built and walked.

Reading, validating and translating a game make millions of small objects (terms, atoms,
rules, their flattened copies) and no reference cycles: reference counting frees them all.
The cyclic collector, left running, would traverse every live object again each time enough
new ones survive; on an instantiated game of 380,000 rules that tripled the time of
validation. Pausing it nests: the collector runs again only when the outermost pause ends,
and only if it was running before.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_collector"]


@contextmanager
def paused_collector() -> Iterator[None]:
    """Run the body with the cyclic garbage collector off (as it was after)."""
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()
