"""Seeded random playouts, shared by the service's Simulate, the sweep and benchmarks."""

from __future__ import annotations

import random
from dataclasses import dataclass

from reasoner.asp.machine import StateInfo
from reasoner.engine.game import Game
from reasoner.engine.values import State
from reasoner.errors import NoLegalMoveError

__all__ = ["PlayoutResult", "random_playout"]


@dataclass(frozen=True)
class PlayoutResult:
    """The end of one playout."""

    final: State
    info: StateInfo
    length: int
    terminal: bool
    trajectory: tuple[tuple[int, ...], ...]


def random_playout(game: Game, state: State, rng: random.Random, max_steps: int,
                   record: bool = False) -> PlayoutResult:
    """Play uniformly random joint moves from ``state`` until terminal or ``max_steps``.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    info = game.info(state)
    choice = rng.choice
    trajectory: list[tuple[int, ...]] = []
    length = 0
    while not info.terminal and length < max_steps:
        for index, legal in enumerate(info.legal):
            if not legal:
                raise NoLegalMoveError(f"role {game.roles[index]} has no legal move in a "
                                       f"non-terminal state after {length} steps")
        joint = tuple(choice(legal) for legal in info.legal)
        if record:
            trajectory.append(joint)
        state, info = game.step(state, joint)
        length += 1
    return PlayoutResult(state, info, length, info.terminal, tuple(trajectory))
