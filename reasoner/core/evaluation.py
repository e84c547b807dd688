"""A heuristic's value of a state, and where an in-process game finds its heuristics.

:class:`Evaluation` (with the relaxed plan's :class:`PlanStep` values) is what
``evaluate`` answers on every game: :meth:`reasoner.Game.evaluate` in process,
:meth:`client.RemoteGame.evaluate` on a service, and
:class:`reasoner.heuristics.game_heuristics.GameHeuristics` underneath the first.

The heuristics sit above the engine (they read a loaded game), so a :class:`reasoner.Game`
cannot import them: the package's face (``reasoner/__init__.py``, which every import of
``reasoner`` runs first) names their builder here with :func:`provide_heuristics`, and a
game asks :func:`heuristics_of` for its own on its first ``evaluate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from reasoner.core.values import State
from reasoner.errors import HeuristicError

__all__ = ["Evaluation", "PlanStep", "StateHeuristics", "heuristics_of", "provide_heuristics"]


@dataclass(frozen=True)
class PlanStep:
    """One paid rule of a relaxed plan: the layer it fires in, its cost, and what it makes
    true (a move as ``(does role move)``, a world change as ``(true fluent)``)."""

    layer: int
    cost: int
    text: str
    role: str = ""  # for a move
    move: str = ""  # for a move, as GDL text
    move_id: int | None = None  # for a move: its id in the game's move table


@dataclass(frozen=True)
class Evaluation:
    """One state's value, with the relaxed plan's paid rules when asked for."""

    value: float
    plan: tuple[PlanStep, ...] = ()


class StateHeuristics(Protocol):
    """What evaluates one game's states by heuristic name, in process."""

    def evaluate(self, name: str, role: str, states: Sequence[State],
                 parameters: Mapping[str, str] | None = None, *, plan: bool = False,
                 previous: State | None = None) -> list[Evaluation]:
        """Values of ``states`` for ``role`` by heuristic ``name``.

        Raises:
            HeuristicError: an unknown heuristic, parameter or role, or one that does not
                apply to the game.
        """
        ...


# What builds a game's heuristics from the game, once provided.
_builders: list[Callable[[Any], StateHeuristics]] = []


def provide_heuristics(build: Callable[[Any], StateHeuristics]) -> None:
    """Name what builds a game's heuristics (given the game); the last one named counts."""
    _builders[:] = [build]


def heuristics_of(game: object) -> StateHeuristics:
    """The heuristics of ``game``, newly built.

    Raises:
        HeuristicError: none were provided (the package's face provides them).
    """
    if not _builders:
        raise HeuristicError("no heuristics are provided in this process")
    return _builders[0](game)
