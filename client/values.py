"""The client's own value types: players see these, never protobuf messages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["GddlFiles", "JointMove", "PlayoutResult", "SimulationResult", "State", "StateInfo"]

# One move id per role, in role order.
JointMove = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """A game state as the sorted ids of the fluents that hold (hashable, cheap)."""

    fluents: tuple[int, ...]

    @classmethod
    def of(cls, ids: Iterable[int]) -> State:
        """A state from fluent ids in any order, duplicates allowed."""
        return cls(tuple(sorted(set(ids))))


@dataclass(frozen=True, slots=True)
class StateInfo:
    """Legal move ids per role, terminal status, goal values per role."""

    legal: tuple[tuple[int, ...], ...]
    terminal: bool
    # Per role: the goal values defined in this state (exactly one in a terminal state of a
    # well-formed game).
    goals: tuple[tuple[int, ...], ...]

    def goal(self, role_index: int) -> int | None:
        """The role's goal value if exactly one is defined, else None."""
        values = self.goals[role_index]
        return values[0] if len(values) == 1 else None


@dataclass(frozen=True, slots=True)
class PlayoutResult:
    """One playout of a Simulate call."""

    goals: tuple[int | None, ...]
    length: int
    terminal: bool
    trajectory: tuple[JointMove, ...]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """The playouts of a Simulate call and the server's own figures."""

    playouts: tuple[PlayoutResult, ...]
    updates: int
    elapsed_ms: float


@dataclass(frozen=True, slots=True)
class GddlFiles:
    """A game in GDDL (see reasoner.instantiate.gddl): the three texts, the number of
    multi-actions, and the GDDL name of every GDL text."""

    domain: str
    problem: str
    partition: str
    multi_actions: int
    names: dict[str, str]
