"""``HeuristicValues``: a heuristic of the service as a search's value of states, in 0..1.

The game values the states itself (:meth:`reasoner.core.game_view.GameView.evaluate`): a
game on a service in one ``Evaluate`` call, a game in process with its heuristics. A terminal
state is worth its goal value / 100 and is never sent. Each heuristic's range maps to 0..1
as its entry in the one heuristics table says (``as_value`` of
:data:`reasoner.heuristics.table.HEURISTICS`: fuzzy and mobility as they are, fjo's -50..50
as (v + 50) / 100, a feature's goal units as v / 100).

The distance heuristics (``hff``, ``hmax``, ``hadd``, ``extended-ff``) are costs, not
values, and are refused here (AO* takes them).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from reasoner.arguments import ArgumentError
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo
from reasoner.heuristics.table import value_heuristics

__all__ = ["VALUE_HEURISTICS", "HeuristicEvaluator", "HeuristicValues", "RawHeuristics"]

# Each heuristic that values a state, with the map of its values into 0..1: read from the
# heuristics table.
VALUE_HEURISTICS: dict[str, Callable[[float], float]] = value_heuristics()


class RawHeuristics:
    """A heuristic's values of states as it gives them, from the game's own
    :meth:`~reasoner.core.game_view.GameView.evaluate`: one ``Evaluate`` call for a game on
    a service, the game's heuristics (built once) in process."""

    def __call__(self, game: GameView[Any], role: str, heuristic: str,
                 states: Sequence[Hashable], parameters: Mapping[str, object]) -> list[float]:
        return [e.value for e in game.evaluate(states, role, heuristic, parameters)]


class HeuristicValues:
    """Values of states for one role by a named heuristic of the service, each 0..1."""

    def __init__(self, heuristic: str = "fuzzy",
                 parameters: Mapping[str, object] | None = None) -> None:
        scales = value_heuristics()
        if heuristic not in scales:
            raise ArgumentError(f"heuristic {heuristic!r} gives no values to search with; "
                                f"the ones that do are {', '.join(scales)}",
                                argument="heuristic", value=heuristic, allowed=tuple(scales))
        self.heuristic = heuristic
        self.parameters = dict(parameters or {})
        self._scale = scales[heuristic]
        self._raw = RawHeuristics()

    def __call__(self, game: GameView[Any], role: int,
                 states: Sequence[tuple[Hashable, StateInfo]]) -> list[float]:
        """The value for ``game.roles[role]`` of each (state, info), in order."""
        asked = [state for state, info in states if not info.terminal]
        found = iter(self._raw(game, game.roles[role], self.heuristic, asked,
                               self.parameters) if asked else [])
        out = []
        for _, info in states:
            if info.terminal:
                goal = info.goal(role)
                out.append(0.0 if goal is None else goal / 100.0)
            else:
                raw = next(found)
                out.append(0.5 if math.isnan(raw) else min(1.0, max(0.0, self._scale(raw))))
        return out

    def __repr__(self) -> str:
        return f"HeuristicValues({self.heuristic!r}, {self.parameters!r})"


class HeuristicEvaluator:
    """A leaf :class:`~client.players.evaluator.Evaluator` for MCTS from a heuristic: each
    role's value of the state (one ``Evaluate`` per role), its goals / 100 in a terminal
    state. It replaces the random playouts of a leaf by the heuristic's judgement."""

    def __init__(self, heuristic: str = "fuzzy",
                 parameters: Mapping[str, object] | None = None) -> None:
        self.values = HeuristicValues(heuristic, parameters)

    def __call__(self, game: GameView[Any], state: Hashable, info: StateInfo,
                 rng: random.Random) -> tuple[float, ...]:
        del rng
        return tuple(self.values(game, role, [(state, info)])[0]
                     for role in range(len(game.roles)))

    def __repr__(self) -> str:
        return f"HeuristicEvaluator({self.values.heuristic!r})"
