"""Grounding-only work: the instantiated (variable-free) game and its GDDL form (the
supersets and relaxed layers it starts from are :mod:`reasoner.asp`'s)."""

from reasoner.instantiate.ground_game import InstantiatedGame, instantiate

__all__ = ["InstantiatedGame", "instantiate"]
