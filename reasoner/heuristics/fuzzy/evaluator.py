"""The fuzzy evaluator: a game's goal and terminal formulas, compiled once, per state.

The value of a state for role r is ``h(s) = sum over goal values gv of h(gv, s) * gv,
divided by the sum of the goal values``, with ``h(gv, s) = eval(goal(r, gv) or terminal)``
when ``goal(r, gv)`` holds and ``eval(goal(r, gv) and not terminal)`` otherwise. The restatement
this project started from wrote the weight as ``gv / 100`` *and* divided by the sum of the goal
values (docs/semantics/fuzzy.md), which normalises twice and puts h(s) in [0, 1/100]; with the
weight ``gv`` alone h(s) is a weighted mean in [0, 1], the same order of states, 100 times larger.
Whether ``goal(r, gv)`` holds is read off its own fuzzy value (>= 0.5), which the guarantee makes
exact.

Errors: :class:`reasoner.errors.ResourceLimitError` when the game has no network, or the
formula has more than ``max_gates`` gates (bodies plus nodes), or the own grounding exceeds
its rule bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from reasoner.arguments import ArgumentError
from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.errors import ResourceLimitError
from reasoner.heuristics.fuzzy.compiler import compile_formulas
from reasoner.heuristics.fuzzy.formulas import graph_from_network
from reasoner.heuristics.fuzzy.logic import FuzzyParameters, s_prime, t_prime
from reasoner.heuristics.fuzzy.orders import graph_from_grounding, orders_in_formulas
from reasoner.heuristics.fuzzy.refinement import Refinements
from reasoner.heuristics.structures import Structures
from reasoner.propnet.network import Network

__all__ = ["DEFAULT_MAX_GATES", "FuzzyEvaluator", "FuzzyValues"]

DEFAULT_MAX_GATES = 300_000


@dataclass(frozen=True)
class FuzzyValues:
    """The fuzzy values of one state's goal and terminal formulas."""

    terminal: float
    goals: tuple[tuple[tuple[int, float], ...], ...]  # per role: (goal value, eval)


class FuzzyEvaluator:
    """Fuzzy evaluation of a game's states (see :mod:`reasoner.heuristics.fuzzy`).

    Args:
        game: The game.
        network: Its compiled network (default: ``game.network``, the network backend's;
            pass one built for a game on the clingo backend).
        parameters: p, t and q.
        structures: Detected structures for the refinements; None for the plain evaluation.
        max_gates: The largest goal/terminal formula (bodies plus nodes) to compile.

    Raises:
        ResourceLimitError: no network, or a formula beyond ``max_gates``.
    """

    def __init__(self, game: Game, parameters: FuzzyParameters | None = None,
                 structures: Structures | None = None,
                 max_gates: int = DEFAULT_MAX_GATES, network: Network | None = None) -> None:
        self.game = game
        self.parameters = parameters or FuzzyParameters()
        self.structures = structures
        network = network if network is not None else game.network
        if network is None:
            raise ResourceLimitError(
                "fuzzy evaluation needs the game's propositional network, and the game has "
                "none (load it with backend 'auto', 'native' or 'propnet' within the network's "
                "bounds)",
                bound="size", reason="no-network")
        orders = orders_in_formulas(game, structures)
        if orders:
            self.graph = graph_from_grounding(game, orders, self.parameters, max_gates)
        else:
            self.graph = graph_from_network(network, max_gates)
        self.order_relations: tuple[str, ...] = tuple(o.relation for o in orders)
        # Fluents the fuzzy formulas read, for the refinement tables.
        read = {s for bodies in self.graph.node_bodies for p, n in bodies
                for s in (*p, *n) if 0 <= s < self.graph.fluents}
        refinements = Refinements(game, read, structures, self.parameters)
        self._refined = refinements.refined
        self._low = refinements.low  # the refined fluents' values were they false
        compiled = compile_formulas(self.graph, self._refined, self.parameters)
        self.source = compiled.source
        self._evaluate = compiled.evaluate
        position = {signal: k for k, signal in enumerate(compiled.outputs)}
        self._terminal_slot = position[self.graph.terminal]
        self._goal_slots = tuple(tuple((v, position[s]) for v, s in per)
                                 for per in self.graph.goals)
        self._role_index = {role: i for i, role in enumerate(game.roles)}

    # -- per state -----------------------------------------------------------------------

    def evaluate(self, state: State) -> FuzzyValues:
        """Every goal formula's and the terminal formula's value in ``state``."""
        outputs = self._values(state.bits)
        return FuzzyValues(
            terminal=outputs[self._terminal_slot],
            goals=tuple(tuple((v, outputs[k]) for v, k in per) for per in self._goal_slots))

    def _values(self, bits: int) -> tuple[float, ...]:
        return self._evaluate(bits, self._low(bits))

    def goal_value(self, state: State, role: str, goal_value: int) -> float:
        """eval(goal(role, goal_value), s); 0 for a goal value the role never gets."""
        for value, slot in self._goal_slots[self._role(role)]:
            if value == goal_value:
                return self._values(state.bits)[slot]
        return 0.0

    def formula(self, state: State, role: str, goal_value: int) -> float:
        """h(gv, s): eval(goal(gv) or terminal) if goal(gv) holds in s, else
        eval(goal(gv) and not terminal)."""
        outputs = self._values(state.bits)
        for value, slot in self._goal_slots[self._role(role)]:
            if value == goal_value:
                return self._combine(outputs[slot], outputs[self._terminal_slot])
        return self._combine(0.0, outputs[self._terminal_slot])

    def _combine(self, goal: float, terminal: float) -> float:
        # goal(gv) holds iff its value is >= 0.5 (true scores >= t > 0.5, false <= 1 - t).
        if goal >= 0.5:
            return s_prime(goal, terminal, self.parameters)
        return t_prime(goal, 1.0 - terminal, self.parameters)

    def value(self, state: State, role: str) -> float:
        """h(s) in [0, 1] for ``role``: the goal values' h(gv, s) weighted by gv, divided by
        the sum of the goal values (0 when they sum to 0)."""
        slots = self._goal_slots[self._role(role)]
        total = sum(v for v, _ in slots)
        if total <= 0:
            return 0.0
        outputs = self._values(state.bits)
        terminal = outputs[self._terminal_slot]
        weighted = sum(self._combine(outputs[k], terminal) * v for v, k in slots if v > 0)
        return weighted / total

    def values(self, state: State) -> dict[str, float]:
        """h(s) of every role from one evaluation."""
        outputs = self._values(state.bits)
        terminal = outputs[self._terminal_slot]
        result: dict[str, float] = {}
        for role, slots in zip(self.game.roles, self._goal_slots, strict=True):
            total = sum(v for v, _ in slots)
            weighted = sum(self._combine(outputs[k], terminal) * v for v, k in slots if v > 0)
            result[role] = weighted / total if total > 0 else 0.0
        return result

    def atom_value(self, state: State, fluent: int) -> float:
        """The (refined) value of fluent ``fluent`` (an index into ``game.fluents``)."""
        if state.bits >> fluent & 1:
            return self.parameters.p
        if fluent in self._refined:
            return self._low(state.bits)[self._refined.index(fluent)]
        return 1.0 - self.parameters.p

    @property
    def static_atoms(self) -> int:
        """How many order atoms the formulas keep as inputs."""
        return len(self.graph.statics)

    def _role(self, role: str) -> int:
        index = self._role_index.get(role)
        if index is None:
            raise ArgumentError(f"unknown role {role!r}; the roles are {list(self.game.roles)}",
                                argument="role", value=role, allowed=tuple(self.game.roles))
        return index
