# The CPU build of the playout kernel (_native.c); see reasoner/propnet/native.py.
from collections.abc import Sequence
from typing import Any

import numpy as np
from _typeshed import ReadableBuffer

# numpy arrays are buffers too (typeshed's Buffer protocol needs Python 3.12 to say so).
WriteableBuffer = np.ndarray[Any, Any]

WORDS: int
MAGIC: int

def playouts(image: ReadableBuffer, start: ReadableBuffer, count: int, seed: int,
             max_steps: int, park: int, lengths: WriteableBuffer, terminal: WriteableBuffer,
             goals: WriteableBuffer, trace: WriteableBuffer | None = None,
             started: WriteableBuffer | None = None) -> tuple[int, int, int, int, int]: ...

class Single:
    def __init__(self, image: ReadableBuffer) -> None: ...
    def initial(self) -> int: ...
    def info(self, bits: int) -> tuple[tuple[tuple[int, ...], ...], bool]: ...
    def goals(self, bits: int) -> tuple[tuple[int, ...], ...]: ...
    def step(self, bits: int, joint: Sequence[int]
             ) -> tuple[int, tuple[tuple[int, ...], ...], bool]: ...
    def playouts(self, bits: int, count: int, seed: int, max_steps: int) -> int: ...
