"""``RandomPlayer``: a uniformly random legal move."""

from __future__ import annotations

import random
from typing import Any

from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

__all__ = ["RandomPlayer"]


class RandomPlayer:
    """Plays a legal move chosen uniformly by its seeded random generator."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._role = 0

    def start(self, game: GameView[Any], role_index: int) -> None:
        del game
        self._role = role_index

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        del state, deadline
        return self._rng.choice(info.legal[self._role])

    def __repr__(self) -> str:
        return "RandomPlayer()"
