"""Leaf evaluators: what a search believes a state is worth to each role.

An evaluator is any callable ``(game, state, info, rng) -> values`` that returns one value
per role in role order, each in ``0.0..1.0`` (a goal value of 100 is 1.0). The search loops
do not know how the values come about: random playouts on the server, a heuristic, or a
learnt model all fit.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any, Protocol

from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

__all__ = ["Evaluator", "SimulateEvaluator", "goal_values"]

# The step bound of a playout when none is given (the service's default).
DEFAULT_MAX_STEPS = 1000


class Evaluator(Protocol):
    """Values of a state per role, in role order, each in 0.0..1.0."""

    def __call__(self, game: GameView[Any], state: Hashable, info: StateInfo,
                 rng: random.Random) -> tuple[float, ...]:
        ...


def goal_values(goals: Sequence[int | None]) -> tuple[float, ...]:
    """Goal values 0..100 scaled to 0.0..1.0; an undefined goal counts as 0."""
    return tuple(0.0 if g is None else g / 100.0 for g in goals)


class SimulateEvaluator:
    """The mean goal values of seeded random playouts, from the game's own
    :meth:`~reasoner.core.game_view.GameView.simulate`: one ``Simulate`` call for a game on
    a service, the game's backend for a game in process (the same playouts for a seed).

    A terminal state is worth its goal values; no call is made for it.
    """

    def __init__(self, rollouts: int = 1, *, max_steps: int = 0) -> None:
        """Args:
            rollouts: Playouts per evaluated state, run in one ``simulate`` call.
            max_steps: Steps after which a playout stops (0: 1,000, the service's default); a
                playout cut off is worth the goal values of the state it stopped in.
        """
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        self.rollouts = rollouts
        self.max_steps = max_steps

    def __call__(self, game: GameView[Any], state: Hashable, info: StateInfo,
                 rng: random.Random) -> tuple[float, ...]:
        if info.terminal:
            return goal_values([info.goal(r) for r in range(len(info.goals))])
        roles = range(len(game.roles))
        result = game.simulate(state, self.rollouts, rng.getrandbits(63),
                               self.max_steps or DEFAULT_MAX_STEPS)
        ends = [playout.goals for playout in result.playouts]
        totals = [0.0] * len(roles)
        for goals in ends:
            for r, value in enumerate(goal_values(goals)):
                totals[r] += value
        return tuple(t / len(ends) for t in totals)

    def __repr__(self) -> str:
        return f"SimulateEvaluator(rollouts={self.rollouts}, max_steps={self.max_steps})"
