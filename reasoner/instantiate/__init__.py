"""Grounding-only work: relaxed-reachability supersets and layers, the instantiated game."""

from reasoner.instantiate.ground_game import InstantiatedGame, instantiate
from reasoner.instantiate.layers import layers
from reasoner.instantiate.supersets import supersets

__all__ = ["InstantiatedGame", "instantiate", "layers", "supersets"]
