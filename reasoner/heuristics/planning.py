"""Delete-relaxed planning tasks and their distances: h_max, h_add, h_FF, extended FF.

A :class:`PlanningTask` is a set of facts (numbered from 0) and rules ``effect <-cost- pre``:
when every precondition holds, the effect can be made true at the rule's cost. Nothing is
ever made false (the delete relaxation), so a fact once reached stays reached and a rule
once paid for is paid for good. The game's view (:mod:`reasoner.heuristics.relaxed`)
compiles a GDL game into such a task; the worked examples of docs/semantics/heuristics.md are tasks
written by hand.

Distances (Hoffmann & Nebel 2001; Bercher's two-player extension, docs/semantics/heuristics.md):

* :func:`cost_distances` gives every fact its h_max or h_add cost (a generalised Dijkstra
  over the AND/OR graph: a rule costs its own cost plus the maximum, or the sum, of its
  preconditions' costs; a fact costs its cheapest rule);
* :class:`LayeredGraph` builds the relaxed planning graph layer by layer (every applicable
  rule fires once per layer) and extracts a relaxed plan backwards, persistence first
  (a fact is wanted at the layer where it first appears) and among the rules that reach it
  there the one with the fewest preconditions (then the cheapest, then FF's easiest: the
  smallest sum of its preconditions' layers); h_FF is the summed cost of the plan;
* :func:`extended_ff` alternates the two players' rule sets layer by layer and balances
  their shares of the plan.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = ["EXTRACTED", "INFINITY", "LayeredGraph", "PlanningTask", "RelaxedPlan", "Rule",
           "cost_distances", "extended_ff", "formula_cost", "ranked_alternatives"]

INFINITY = math.inf
SHARED = -1  # the owner of a rule any player may fire (derived facts, move effects)


@dataclass(frozen=True, slots=True)
class Rule:
    """``effect`` holds once every fact of ``pre`` holds, at ``cost``.

    ``owner`` is the player whose move the rule is (:data:`SHARED` for rules anyone's move
    triggers); ``label`` names the rule in plans (a move rule: the move).
    """

    effect: int
    pre: tuple[int, ...]
    cost: int
    owner: int = SHARED
    label: str = ""


class PlanningTask:
    """Facts ``0 .. facts-1`` and the rules over them, indexed for the distance searches."""

    def __init__(self, facts: int, rules: Sequence[Rule],
                 names: Sequence[str] | None = None) -> None:
        self.facts = facts
        self.rules = tuple(rules)
        self.names = tuple(names) if names is not None else tuple(map(str, range(facts)))
        self.pre = [rule.pre for rule in self.rules]
        self.effect = [rule.effect for rule in self.rules]
        self.cost = [rule.cost for rule in self.rules]
        self.unconditional = [i for i, rule in enumerate(self.rules) if not rule.pre]
        by_pre: list[list[int]] = [[] for _ in range(facts)]
        achievers: list[list[int]] = [[] for _ in range(facts)]
        for index, rule in enumerate(self.rules):
            for fact in set(rule.pre):
                by_pre[fact].append(index)
            achievers[rule.effect].append(index)
        # A rule listing a precondition twice counts it once.
        self.pre_count = [len(set(rule.pre)) for rule in self.rules]
        self.by_pre = by_pre
        # Achievers in the order extraction prefers them: fewest preconditions, then the
        # cheapest, then the first written.
        for found in achievers:
            found.sort(key=lambda r: (self.pre_count[r], self.cost[r], r))
        self.achievers = achievers

    @classmethod
    def from_rules(cls, rules: Iterable[tuple[Sequence[str], str, int]] | Iterable[
            tuple[Sequence[str], str, int, int]]) -> tuple[PlanningTask, dict[str, int]]:
        """A task written with fact names: ``(preconditions, effect, cost[, owner])`` each;
        returns the task and the fact numbering."""
        numbers: dict[str, int] = {}

        def fact(name: str) -> int:
            return numbers.setdefault(name, len(numbers))

        made: list[Rule] = []
        for entry in rules:
            pre, effect, cost, *rest = entry
            owner = rest[0] if rest else SHARED
            made.append(Rule(fact(effect), tuple(fact(p) for p in pre), cost, owner,
                             f"{','.join(pre)}->{effect}"))
        return cls(len(numbers), made, list(numbers)), numbers


def cost_distances(task: PlanningTask, initial: Iterable[int], *,
                   additive: bool) -> list[float]:
    """Every fact's cost from ``initial`` (h_add when ``additive``, else h_max);
    :data:`INFINITY` for facts that cannot be reached."""
    cost = [INFINITY] * task.facts
    waiting = list(task.pre_count)
    reached = [0.0] * len(task.rules)  # the max or sum over the preconditions so far
    queue: list[tuple[float, int]] = []
    for fact in initial:
        if cost[fact] > 0:
            cost[fact] = 0.0
            queue.append((0.0, fact))
    for rule in task.unconditional:
        value = float(task.cost[rule])
        effect = task.effect[rule]
        if value < cost[effect]:
            cost[effect] = value
            queue.append((value, effect))
    heapq.heapify(queue)
    done = [False] * task.facts
    effect_of, rule_cost, by_pre = task.effect, task.cost, task.by_pre
    while queue:
        value, fact = heapq.heappop(queue)
        if done[fact] or value > cost[fact]:
            continue
        done[fact] = True
        for rule in by_pre[fact]:
            if additive:
                reached[rule] += value
            elif value > reached[rule]:
                reached[rule] = value
            waiting[rule] -= 1
            if waiting[rule] == 0:
                total = reached[rule] + rule_cost[rule]
                effect = effect_of[rule]
                if total < cost[effect]:
                    cost[effect] = total
                    heapq.heappush(queue, (total, effect))
    return cost


def formula_cost(costs: Sequence[float], goal: Sequence[int], *, additive: bool) -> float:
    """The cost of a conjunction of facts under :func:`cost_distances`' costs."""
    if not goal:
        return 0.0
    values = [costs[fact] for fact in goal]
    return float(sum(values)) if additive else max(values)


@dataclass(frozen=True)
class RelaxedPlan:
    """An extracted relaxed plan: its rules (by layer, then index) and summed cost."""

    value: float  # INFINITY when the goal cannot be reached
    rules: tuple[tuple[int, int], ...] = ()  # (layer, rule index)

    @property
    def reachable(self) -> bool:
        return self.value != INFINITY


class LayeredGraph:
    """The relaxed planning graph from one state: the layer where each fact first holds.

    ``allowed(rule, layer)`` restricts which rules fire in which layer (all of them for
    plain h_FF; one player's moves per layer for the extended heuristic). Layers are built
    until nothing new is reached: stopping once the goal holds would hide an alternative
    of it that holds later but costs less (a quick "no black pieces" before a pawn's walk
    to the last row).
    """

    def __init__(self, task: PlanningTask, initial: Iterable[int], *,
                 allowed: Callable[[int, int], bool] | None = None,
                 max_layers: int = 100_000) -> None:
        self.task = task
        level = [-1] * task.facts
        self.level = level
        frontier: list[int] = []
        for fact in initial:
            if level[fact] < 0:
                level[fact] = 0
                frontier.append(fact)
        waiting = list(task.pre_count)
        ready: list[int] = list(task.unconditional)
        pending: list[int] = []  # applicable rules waiting for their player's layer
        fired = [-1] * len(task.rules)  # the layer each rule fired in
        self._fired = fired
        layer = 0
        by_pre, effect_of = task.by_pre, task.effect
        while layer < max_layers:
            for fact in frontier:
                for rule in by_pre[fact]:
                    waiting[rule] -= 1
                    if waiting[rule] == 0:
                        ready.append(rule)
            if allowed is not None:
                pending.extend(ready)
                ready = [r for r in pending if allowed(r, layer)]
                pending = [r for r in pending if not allowed(r, layer)]
            frontier = []
            for rule in ready:
                fired[rule] = layer
                effect = effect_of[rule]
                if level[effect] < 0:
                    level[effect] = layer + 1
                    frontier.append(effect)
            ready = []
            layer += 1
            if not frontier and not any(level[effect_of[r]] < 0 for r in pending):
                break
        self._allowed = allowed

    def fact_level(self, fact: int) -> int:
        """The first layer where ``fact`` holds (-1: never)."""
        return self.level[fact]

    def extract(self, goal: Sequence[int]) -> RelaxedPlan:
        """A relaxed plan for the conjunction ``goal`` (see the module documentation)."""
        level = self.level
        if any(level[fact] < 0 for fact in goal):
            return RelaxedPlan(INFINITY)
        task = self.task
        top = max((level[fact] for fact in goal), default=0)
        wanted: list[set[int]] = [set() for _ in range(top + 1)]
        for fact in goal:
            wanted[level[fact]].add(fact)
        chosen: dict[int, int] = {}  # rule -> layer it fires in
        marked = [False] * task.facts  # wanted already (at its first layer)
        for fact in goal:
            marked[fact] = True
        for layer in range(top, 0, -1):
            for fact in sorted(wanted[layer]):
                rule = self._achiever(fact, layer - 1)
                if rule in chosen:
                    continue
                chosen[rule] = layer - 1
                for pre in task.pre[rule]:
                    if not marked[pre]:
                        marked[pre] = True
                        if level[pre] > 0:
                            wanted[level[pre]].add(pre)
        value = float(sum(task.cost[rule] for rule in chosen))
        ordered = sorted((layer, rule) for rule, layer in chosen.items())
        return RelaxedPlan(value, tuple(ordered))

    def _achiever(self, fact: int, layer: int) -> int:
        """The rule that reaches ``fact`` for ``layer + 1``: among those that fired in
        ``layer`` (only they can: one applicable earlier would have reached it earlier),
        the one with the fewest preconditions, then the cheapest, then the easiest (FF's
        difficulty: the smallest sum of its preconditions' layers)."""
        fired, task = self._fired, self.task
        best, best_key = -1, (0, 0)
        tied: list[int] = []
        for rule in task.achievers[fact]:  # sorted by preconditions, then cost
            if fired[rule] != layer:
                continue
            key = (task.pre_count[rule], task.cost[rule])
            if best < 0:
                best, best_key = rule, key
            elif key == best_key:
                tied.append(rule)
            else:
                break
        if best < 0:
            raise AssertionError(f"fact {fact} at layer {layer + 1} has no achiever")
        if tied:
            level, pre = self.level, task.pre
            tied.insert(0, best)
            best = min(tied, key=lambda r: sum(level[p] for p in pre[r]))
        return best


def extended_ff(task: PlanningTask, initial: Iterable[int],
                goals: Sequence[Sequence[int]], *, mover: int, other: int,
                shared_rule: Callable[[int, int], bool]) -> tuple[float, RelaxedPlan]:
    """Bercher's two-player extension of FF (docs/semantics/heuristics.md): the players' rule sets
    alternate layer by layer, starting with ``mover``; the extracted plan's move rules are counted
    per player and rebalanced (a rule the other player could have fired moves over while that
    evens the counts). Returns the value (plies: ``2c - 1`` when the mover contributes
    more, else ``2c``) and the plan. ``shared_rule(rule, player)`` says whether ``player``
    has the rule too. Rules owned by :data:`SHARED` fire in every layer and count for
    no one. ``goals`` are alternative conjunctions: the graph is built once and the best
    of the alternatives that hold earliest (see :func:`ranked_alternatives`) is taken.
    """
    owner = [rule.owner for rule in task.rules]

    def allowed(rule: int, layer: int) -> bool:
        who = owner[rule]
        return who == SHARED or who == (mover if layer % 2 == 0 else other)

    graph = LayeredGraph(task, initial, allowed=allowed)
    best: tuple[float, RelaxedPlan] = (INFINITY, RelaxedPlan(INFINITY))
    for goal in ranked_alternatives(graph, goals):
        plan = graph.extract(goal)
        value = _balanced(task, plan, owner, mover, other, shared_rule)
        if value < best[0]:
            best = (value, plan)
    return best


def _balanced(task: PlanningTask, plan: RelaxedPlan, owner: list[int], mover: int,
              other: int, shared_rule: Callable[[int, int], bool]) -> float:
    selected: dict[int, list[int]] = {mover: [], other: []}
    for _, rule in plan.rules:
        who = owner[rule]
        if who in selected and task.cost[rule] > 0:
            selected[who].append(rule)
    most = mover if len(selected[mover]) > len(selected[other]) else other
    least = other if most == mover else mover
    counter = {most: len(selected[most]), least: len(selected[least])}
    allowance = 1 if most == mover else 0  # the mover may contribute one rule more
    for rule in selected[most]:
        if counter[most] <= counter[least] + allowance:
            break
        if shared_rule(rule, least):
            counter[least] += 1
            counter[most] -= 1
    if counter[mover] > counter[other]:
        return float(2 * counter[mover] - 1)
    return float(2 * counter[other])


EXTRACTED = 4  # alternatives of a goal whose relaxed plans are extracted


def ranked_alternatives(graph: LayeredGraph, goals: Sequence[Sequence[int]],
                        count: int = EXTRACTED) -> list[Sequence[int]]:
    """The ``count`` alternative conjunctions that hold earliest in the graph (by their
    last, then their summed first layers; the first written on ties); unreachable ones
    are left out."""
    level = graph.level
    ranked: list[tuple[int, int, int]] = []
    for number, goal in enumerate(goals):
        levels = [level[fact] for fact in goal]
        if all(found >= 0 for found in levels):
            ranked.append((max(levels, default=0), sum(levels), number))
    return [goals[number] for _, _, number in sorted(ranked)[:count]]
