"""Cross-checking this engine against an independent reasoner (docs/semantics/crosschecking.md): the
Prolog reference of :mod:`reasoner.reference`, or a trace written by any other program."""

from reasoner.crosscheck.check import (
    CrossCheck,
    Disagreement,
    compare_sides,
    compare_supersets,
    compare_trace,
)
from reasoner.crosscheck.sides import EngineSide, Side
from reasoner.crosscheck.trace import TraceError, read_trace

__all__ = ["CrossCheck", "Disagreement", "EngineSide", "Side", "TraceError", "compare_sides",
           "compare_supersets", "compare_trace", "read_trace"]
