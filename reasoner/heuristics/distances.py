"""Goal distances of game states on the relaxed view, and f_JO (docs/semantics/heuristics.md).

:class:`GoalDistances` answers, for a state and a role, how far each of the role's goal
formulas ``goal(r, q) AND terminal`` is: by h_max, h_add or h_FF (with the relaxed plan's
moves on request), by Bercher's extended FF for two turn-taking players, and combines the
h_FF distances into Aldinger's evaluation

    f_JO(s) = sum over the role's goal values q of (q - 50) / dist(s, T_q)

for a non-terminal ``s`` (goals that cannot be reached add 0; a distance is at least 1),
and ``g(s) - 50`` for a terminal one.
"""

from __future__ import annotations

from collections.abc import Sequence

from reasoner.arguments import ArgumentError
from reasoner.core.evaluation import PlanStep
from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.heuristics.planning import (
    INFINITY,
    LayeredGraph,
    RelaxedPlan,
    cost_distances,
    extended_ff,
    formula_cost,
    ranked_alternatives,
)
from reasoner.heuristics.relaxed import RelaxedGame

__all__ = ["DISTANCES", "GoalDistances"]

DISTANCES = ("hmax", "hadd", "hff")


class GoalDistances:
    """Distances and f_JO on one game's relaxed view."""

    def __init__(self, game: Game, view: RelaxedGame) -> None:
        self.game = game
        self.view = view
        self._role_index = {role: i for i, role in enumerate(game.roles)}
        self._shared: frozenset[int] | None = None

    def role_index(self, role: str) -> int:
        found = self._role_index.get(role)
        if found is None:
            raise ArgumentError(f"unknown role {role!r}; the roles are "
                                f"{', '.join(self.game.roles)}", argument="role", value=role,
                                allowed=tuple(self.game.roles))
        return found

    def goal_value(self, role: str, value: int | None) -> int:
        """The goal value a distance aims at: ``value`` checked, or the role's highest."""
        values = self.view.goal_values(self.role_index(role))
        if not values:
            raise ArgumentError(f"role {role!r} has no goal values", argument="role",
                                value=role, reason="no-goal-values")
        if value is None:
            return values[-1]
        if value not in values:
            raise ArgumentError(f"role {role!r} has no goal value {value}; its goal values are "
                                f"{', '.join(map(str, values))}", argument="value", value=value,
                                allowed=tuple(values), reason="no-such-goal")
        return value

    def distance(self, state: State, role: str, kind: str, value: int | None = None,
                 plan: bool = False) -> tuple[float, tuple[PlanStep, ...]]:
        """The ``kind`` distance ("hmax", "hadd" or "hff") from ``state`` to the role's goal
        formula for ``value`` (default: its highest goal value), and for h_FF with ``plan``
        the relaxed plan's paid rules. :data:`INFINITY` when it cannot be reached."""
        if kind not in DISTANCES:
            raise ArgumentError(f"unknown distance {kind!r}; the distances are "
                                f"{', '.join(DISTANCES)}", argument="kind", value=kind,
                                allowed=tuple(DISTANCES))
        target = self.goal_value(role, value)
        formulas = self.view.goal_formulas(self.role_index(role), target)
        if not formulas:
            return INFINITY, ()
        initial = self.view.initial_facts(state.bits)
        if kind != "hff":
            additive = kind == "hadd"
            costs = cost_distances(self.view.task, initial, additive=additive)
            return min(formula_cost(costs, f, additive=additive) for f in formulas), ()
        found = _best_plan(LayeredGraph(self.view.task, initial), formulas)
        return found.value, self.plan_steps(found) if plan else ()

    def f_jo(self, state: State, role: str, *, plan: bool = False
             ) -> tuple[float, tuple[PlanStep, ...]]:
        """Aldinger's f_JO for ``role`` in ``state`` (see the module documentation), in
        -50..50; with ``plan``, the relaxed plan towards the role's highest goal value."""
        index = self.role_index(role)
        info = self.game.info(state)
        if info.terminal:
            values = info.goals[index]
            return float(values[0] if len(values) == 1 else 0) - 50.0, ()
        values = self.view.goal_values(index)
        graph = LayeredGraph(self.view.task, self.view.initial_facts(state.bits))
        total = 0.0
        steps: tuple[PlanStep, ...] = ()
        for value in values:
            formulas = self.view.goal_formulas(index, value)
            if not formulas:
                continue
            found = _best_plan(graph, formulas)
            if plan and value == values[-1]:
                steps = self.plan_steps(found)
            if found.reachable and value != 50:
                total += (value - 50) / max(found.value, 1.0)
        return total, steps

    def extended(self, state: State, role: str, *, mover: str | None = None,
                 value: int | None = None, plan: bool = False
                 ) -> tuple[float, tuple[PlanStep, ...]]:
        """Bercher's extended FF: plies until ``role`` can reach its goal ``value`` with the
        two players moving in turn, ``mover`` first (default: the one role whose legal
        moves are not all noops in ``state``). A move rule belongs to its role; rules that
        any move triggers (effects, derived atoms) fire in every layer. A move of the
        player with more plan rules could have been the other's when the other has the
        same move with the same effects (the cargo game's pilot and co-pilot).

        Raises:
            ValueError: the game does not have two roles, or no single mover is found.
        """
        roles = self.game.roles
        if len(roles) != 2:
            raise ArgumentError("the extended FF heuristic needs a two-player game, "
                                f"this one has {len(roles)} roles", argument="game",
                                value=len(roles), allowed=2, reason="roles")
        first = self.role_index(mover) if mover is not None else self._mover(state)
        target = self.goal_value(role, value)
        formulas = self.view.goal_formulas(self.role_index(role), target)
        if not formulas:
            return INFINITY, ()
        view = self.view
        shared = self._shared_moves()

        def shared_rule(rule: int, player: int) -> bool:
            move = view.move_of(rule)
            return move is not None and move in shared
        plies, found = extended_ff(view.task, view.initial_facts(state.bits), formulas,
                                   mover=first, other=1 - first, shared_rule=shared_rule)
        return plies, self.plan_steps(found) if plan else ()

    def _shared_moves(self) -> frozenset[int]:
        """The moves (of a two-player game) that the other role has too: the same text and
        the same effects (the cargo game's pilot and co-pilot); found once."""
        if self._shared is None:
            net, view = self.view.network, self.view
            by_text: dict[str, list[int]] = {}
            for move, text in enumerate(net.move_texts):
                by_text.setdefault(text, []).append(move)
            self._shared = frozenset(
                move for moves in by_text.values() for move in moves
                if any(net.move_role[other] != net.move_role[move]
                       and view.move_effects(other) == view.move_effects(move)
                       for other in moves))
        return self._shared

    def _mover(self, state: State) -> int:
        movers = [i for i, role in enumerate(self.game.roles)
                  if any(not self.view.noop[m.id] for m in self.game.legal_moves(state, role))]
        if len(movers) != 1:
            raise ArgumentError("the extended FF heuristic needs one role to move: in this "
                                f"state {len(movers)} roles have moves that are not noops; "
                                "name the mover", argument="mover", value=len(movers),
                                reason="movers")
        return movers[0]

    def plan_steps(self, plan: RelaxedPlan) -> tuple[PlanStep, ...]:
        """The paid rules of a plan, in layer order."""
        view, roles = self.view, self.game.roles
        steps: list[PlanStep] = []
        for layer, rule in plan.rules:
            cost = view.task.cost[rule]
            if cost <= 0:
                continue
            move = view.move_of(rule)
            if move is not None:
                net = view.network
                # The network's moves are the game's move table, in order.
                steps.append(PlanStep(layer, cost, view.describe_rule(rule),
                                      roles[net.move_role[move]], net.move_texts[move], move))
            else:
                steps.append(PlanStep(layer, cost, view.describe_rule(rule)))
        return tuple(steps)


def _best_plan(graph: LayeredGraph, formulas: Sequence[tuple[int, ...]]) -> RelaxedPlan:
    """The cheapest plan over the alternatives of a goal formula that hold earliest (see
    :func:`ranked_alternatives`), the first of them on ties."""
    best = RelaxedPlan(INFINITY)
    for formula in ranked_alternatives(graph, formulas):
        found = graph.extract(formula)
        if found.value < best.value:
            best = found
    return best


def plan_texts(steps: Sequence[PlanStep]) -> list[str]:
    """The plan as short texts (moves by their GDL text)."""
    return [step.move or step.text for step in steps]
