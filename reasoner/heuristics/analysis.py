"""One call for everything docs/semantics/structures.md finds in a game: structures, features, goal
ranges.

:func:`analyze_game` is what an RPC or the command line reports; :meth:`GameAnalysis.as_dict`
gives it as plain JSON-able data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from reasoner.engine.game import Game
from reasoner.heuristics.features import Feature, game_features, goal_ranges
from reasoner.heuristics.structures import Structures, detect_structures

__all__ = ["GameAnalysis", "analyze_game"]


@dataclass(frozen=True)
class GameAnalysis:
    """The structures of a game, the features built on them, each role's goal range (R-,
    R+) for the evaluation functions, and how long the analysis took."""

    structures: Structures
    features: tuple[Feature, ...]
    goal_ranges: dict[str, tuple[int, int]]
    seconds: float

    def feature(self, name: str) -> Feature | None:
        """The feature with this name, or None."""
        return next((f for f in self.features if f.name == name), None)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {
            "structures": self.structures.as_dict(),
            "features": [f.as_dict() for f in self.features],
            "goal_ranges": {role: list(r) for role, r in self.goal_ranges.items()},
            "seconds": round(self.seconds, 4),
        }


def analyze_game(game: Game, *, playouts: int = 20, seed: int = 0, max_steps: int = 200,
                 time_limit: float | None = None) -> GameAnalysis:
    """Detect the game's structures by its rules and ``playouts`` seeded random playouts
    (see :func:`~reasoner.heuristics.structures.detect_structures`, which also explains
    ``time_limit``) and build their features
    (:func:`~reasoner.heuristics.features.game_features`)."""
    start = time.perf_counter()
    structures = detect_structures(game, playouts=playouts, max_steps=max_steps, seed=seed,
                                   time_limit=time_limit)
    features = game_features(game, structures)
    return GameAnalysis(structures, features, goal_ranges(game), time.perf_counter() - start)
