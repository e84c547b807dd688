"""Relaxed layers of a loaded game from one of its states (see
:mod:`reasoner.asp.relaxed_layers`)."""

from __future__ import annotations

from collections.abc import Iterable

from reasoner.asp.relaxed_layers import RelaxedLayer, RelaxedLayers, relaxed_layers
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.gdl.syntax import GameDescription

__all__ = ["RelaxedLayer", "RelaxedLayers", "description_layers", "layers"]


def layers(game: Game, state: State, max_layers: int = 100) -> RelaxedLayers:
    """The relaxed layers from ``state`` until nothing new appears (or ``max_layers``).

    Every relation is kept (goal and terminal too), so the layers show when a goal value
    first becomes reachable."""
    return description_layers(game.description, state.fluents, max_layers)


def description_layers(description: GameDescription, fluents: Iterable[str],
                       max_layers: int = 100) -> RelaxedLayers:
    """The relaxed layers of a validated game from a state given as fluent texts."""
    translation = translate(description, relaxed_everything=True)
    return relaxed_layers(translation, compute_superset(translation), fluents, max_layers)
