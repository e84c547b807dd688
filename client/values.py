"""The client's own value types: players see these, never protobuf messages."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Evaluation", "GddlFiles", "JointMove", "PlanStep", "PlayoutResult", "SimulationResult",
           "State", "StateInfo"]

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
    """The playouts of a Simulate call, in columns, and the server's own figures: playout
    ``i`` made ``lengths[i]`` joint moves, ended terminal or not (``terminal[i]``), with the
    goal value of each role (None: none or several) ``goals[i]``; :attr:`playouts` gives
    them one object per playout."""

    lengths: tuple[int, ...]
    terminal: tuple[bool, ...]
    flat_goals: tuple[int | None, ...]  # playout-major: roles values per playout
    roles: int
    trajectories: tuple[tuple[JointMove, ...], ...]  # empty unless recorded
    updates: int
    elapsed_ms: float

    @property
    def goals(self) -> tuple[tuple[int | None, ...], ...]:
        """Per playout, the goal value of each role (None: none or several)."""
        flat, roles = self.flat_goals, self.roles
        return tuple(flat[i:i + roles] for i in range(0, len(flat), roles))

    @property
    def playouts(self) -> tuple[PlayoutResult, ...]:
        """One :class:`PlayoutResult` per playout."""
        paths = self.trajectories or ((),) * len(self.lengths)
        return tuple(PlayoutResult(goals, length, terminal, path) for goals, length, terminal,
                     path in zip(self.goals, self.lengths, self.terminal, paths, strict=True))


@dataclass(frozen=True, slots=True)
class GddlFiles:
    """A game in GDDL (see reasoner.instantiate.gddl): the three texts, the number of
    multi-actions, and the GDDL name of every GDL text."""

    domain: str
    problem: str
    partition: str
    multi_actions: int
    names: dict[str, str]


@dataclass(frozen=True)
class PlanStep:
    """One paid rule of a relaxed plan: its layer and cost, what it makes true, and for a
    move its role and move id."""

    layer: int
    cost: int
    text: str
    role: str = ""
    move_id: int | None = None


@dataclass(frozen=True)
class Evaluation:
    """A heuristic's value of one state, with the relaxed plan when asked for."""

    value: float
    plan: tuple[PlanStep, ...] = ()
