"""Grounding-only work: relaxed-reachability supersets (and, later, the instantiated game)."""

from reasoner.instantiate.supersets import supersets

__all__ = ["supersets"]
