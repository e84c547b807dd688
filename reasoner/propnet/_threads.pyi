# The GPU build's logic run thread by thread on the CPU (_threads.c); for the tests.
from _typeshed import ReadableBuffer, WriteableBuffer

def playouts(image: ReadableBuffer, start: ReadableBuffer, count: int, threads: int, seed: int,
             max_steps: int, park: int, lengths: WriteableBuffer, terminal: WriteableBuffer,
             goals: WriteableBuffer) -> tuple[int, int, int, int]: ...
