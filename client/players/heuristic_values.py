"""``HeuristicValues``: a heuristic of the service as a search's value of states, in 0..1.

For a game on a service the states of one request are valued in one ``Evaluate`` call; for
a game in process by :class:`reasoner.heuristics.catalogue.GameHeuristics`. A terminal
state is worth its goal value / 100 and is never sent. Each heuristic's range maps to 0..1:

========================  =========================  ==============================
heuristic                 its values                 as a value
========================  =========================  ==============================
``fuzzy``                 0..1                       as it is
``mobility``,             0..1                       as it is
``inverse-mobility``
``fjo``                   -50..50                    (v + 50) / 100
``feature``               about 1..99 (goal units)   v / 100
========================  =========================  ==============================

The distance heuristics (``hff``, ``hmax``, ``hadd``, ``extended-ff``) are costs, not
values, and are refused here (AO* takes them).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from client.game_view import GameView
from client.reasoner_client import RemoteGame
from reasoner.arguments import ArgumentError
from reasoner.engine.values import StateInfo

__all__ = ["VALUE_HEURISTICS", "HeuristicEvaluator", "HeuristicValues", "RawHeuristics"]

# Each heuristic that values a state, with the map of its values into 0..1.
VALUE_HEURISTICS: dict[str, Callable[[float], float]] = {
    "fuzzy": lambda v: v,
    "mobility": lambda v: v,
    "inverse-mobility": lambda v: v,
    "fjo": lambda v: (v + 50.0) / 100.0,
    "feature": lambda v: v / 100.0,
}


class RawHeuristics:
    """A heuristic's values of states as it gives them, on either kind of game: one
    ``Evaluate`` call for a game on a service, the game's own
    :class:`~reasoner.heuristics.catalogue.GameHeuristics` (built once) in process."""

    def __init__(self) -> None:
        self._local: Any = None  # GameHeuristics of the last in-process game

    def __call__(self, game: GameView[Any], role: str, heuristic: str,
                 states: Sequence[Hashable], parameters: Mapping[str, object]) -> list[float]:
        if isinstance(game, RemoteGame):
            return [e.value for e in game.evaluate(states, role, heuristic,  # type: ignore[arg-type]
                                                   parameters)]
        from reasoner.heuristics.catalogue import GameHeuristics

        if self._local is None or self._local.game is not game:
            self._local = GameHeuristics(game)  # type: ignore[arg-type]
        text = {k: str(v) for k, v in parameters.items()}
        return [e.value for e in self._local.evaluate(heuristic, role, states, text)]


class HeuristicValues:
    """Values of states for one role by a named heuristic of the service, each 0..1."""

    def __init__(self, heuristic: str = "fuzzy",
                 parameters: Mapping[str, object] | None = None) -> None:
        if heuristic not in VALUE_HEURISTICS:
            raise ArgumentError(f"heuristic {heuristic!r} gives no values to search with; "
                                f"the ones that do are {', '.join(VALUE_HEURISTICS)}",
                                argument="heuristic", value=heuristic,
                                allowed=tuple(VALUE_HEURISTICS))
        self.heuristic = heuristic
        self.parameters = dict(parameters or {})
        self._scale = VALUE_HEURISTICS[heuristic]
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
