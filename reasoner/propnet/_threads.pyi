# The GPU build's logic run thread by thread on the CPU (_threads.c); for the tests.
from typing import Any

import numpy as np
from _typeshed import ReadableBuffer

# numpy arrays are buffers too (typeshed's Buffer protocol needs Python 3.12 to say so).
WriteableBuffer = np.ndarray[Any, Any]

def playouts(image: ReadableBuffer, start: ReadableBuffer, count: int, threads: int, seed: int,
             max_steps: int, park: int, lengths: WriteableBuffer, terminal: WriteableBuffer,
             goals: WriteableBuffer) -> tuple[int, int, int, int]: ...
