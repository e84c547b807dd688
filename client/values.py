"""The client's value types beside the engine's: players see these, never protobuf messages.

States, joint moves, what a state answers, playouts and heuristic values are the engine's
own (:class:`reasoner.core.values.State`, :class:`~reasoner.core.values.JointMove`,
:class:`~reasoner.core.values.StateInfo`, :class:`reasoner.core.walk.Simulation` with its
:class:`~reasoner.core.walk.Playout`, :class:`reasoner.core.evaluation.Evaluation` with its
:class:`~reasoner.core.evaluation.PlanStep`), so a player reads a game the same way in
process and on a service; the rest are what only the service answers (GDDL and analyses).
"""

from __future__ import annotations

from dataclasses import dataclass

from reasoner.core.evaluation import Evaluation, PlanStep
from reasoner.core.values import JointMove, State, StateInfo
from reasoner.core.walk import Playout, Simulation

__all__ = ["Analysis", "Board", "Chain", "Evaluation", "Feature", "GddlFiles", "HeuristicInfo",
           "HeuristicParameter", "JointMove", "Order", "PlanStep", "Playout", "Quantity",
           "Simulation", "State", "StateInfo", "StepCounter"]


@dataclass(frozen=True, slots=True)
class GddlFiles:
    """A game in GDDL (see reasoner.instantiate.gddl): the three texts, the number of
    multi-actions, and the GDDL name of every GDL text."""

    domain: str
    problem: str
    partition: str
    multi_actions: int
    names: dict[str, str]


# -- AnalyzeGame ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chain:
    """A successor relation as its chain of constants, first to last."""

    relation: str
    elements: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Order:
    """An order relation with its number of pairs and the successor relation whose chain it
    follows ("" when none is found)."""

    relation: str
    pairs: int
    successor: str


@dataclass(frozen=True, slots=True)
class StepCounter:
    """A fluent function counting steps along a successor relation."""

    function: str
    successor: str


@dataclass(frozen=True, slots=True)
class Board:
    """A board: 0-based argument positions of its coordinates (``inputs``) and contents
    (``outputs``), per input the successor relation ordering it ("" when unordered), the
    number of cells, and the markers and pieces seen on it."""

    function: str
    arity: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    orderings: tuple[str, ...]
    cells: int
    markers: tuple[str, ...]
    pieces: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Quantity:
    """A fluent argument that counts along a successor relation."""

    function: str
    arity: int
    position: int
    successor: str


@dataclass(frozen=True, slots=True)
class Feature:
    """A feature of the game (Kuhlmann et al.) that the heuristics can use."""

    name: str
    description: str


@dataclass(frozen=True, slots=True)
class HeuristicParameter:
    """A heuristic's parameter: its default ("" when none) and what values are allowed."""

    name: str
    default: str
    allowed: str


@dataclass(frozen=True, slots=True)
class HeuristicInfo:
    """A heuristic of the server's catalogue: its name for ``evaluate``, what it computes,
    its parameters, and whether it can give a relaxed plan."""

    name: str
    summary: str
    parameters: tuple[HeuristicParameter, ...]
    plans: bool


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the heuristics see in a game (``RemoteGame.analyze``): its structures,
    turn-taking, the noop moves per role, teams of roles, features, the catalogue of
    heuristics, how many (terminal) states the seeded playouts saw, and the server's time."""

    successors: tuple[Chain, ...]
    orders: tuple[Order, ...]
    step_counters: tuple[StepCounter, ...]
    boards: tuple[Board, ...]
    quantities: tuple[Quantity, ...]
    turn_taking: bool
    noop_moves: dict[str, tuple[str, ...]]  # per role, its moves when not the one to move
    teams: tuple[tuple[str, ...], ...]
    features: tuple[Feature, ...]
    heuristics: tuple[HeuristicInfo, ...]
    states_seen: int
    terminal_states_seen: int
    elapsed_ms: float
