"""The formula model: goal and terminal formulas as one DAG over signals.

By default the formulas come from the game's compiled propositional network
(:class:`reasoner.propnet.network.Network`): a node is the disjunction of its bodies, a body
the conjunction of its literals, the inputs are the fluents. Only the nodes that the goal
and terminal outputs read are kept, renumbered after the inputs and split into strongly
connected components in dependency order. Nodes of a *recursive* component (positive
cycles through auxiliary atoms, e.g. a reachability relation) cannot be unrolled into a
finite formula; the compiler (:mod:`reasoner.heuristics.fuzzy.compiler`) gives them their
crisp truth value.

The same model holds the formulas of the evaluator's own grounding when order relations
are kept as inputs (:mod:`reasoner.heuristics.fuzzy.orders`): there the static order atoms
come between the fluents and the nodes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reasoner.errors import ResourceLimitError
from reasoner.gdl.components import strongly_connected_components
from reasoner.propnet.network import FALSE, Network

__all__ = ["FormulaGraph", "graph_from_network", "restrict"]


@dataclass(frozen=True)
class FormulaGraph:
    """Goal and terminal formulas as a DAG over signals: ``0 .. fluents-1`` are the fluents,
    the next ``len(statics)`` are static atoms (order atoms, each with its fuzzy value and
    crisp truth), then come the nodes (each an OR of bodies, a body an AND of literals)."""

    fluents: int
    statics: tuple[tuple[float, bool], ...]
    node_bodies: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], ...]
    components: tuple[tuple[tuple[int, ...], bool], ...]  # dependencies first
    terminal: int  # a signal or TRUE / FALSE
    goals: tuple[tuple[tuple[int, int], ...], ...]  # per role: (value, signal)
    source: str  # "network" or "grounding"

    @property
    def first_node(self) -> int:
        return self.fluents + len(self.statics)

    @property
    def gates(self) -> int:
        return sum(len(b) for b in self.node_bodies) + len(self.node_bodies)


def restrict(fluents: int, statics: tuple[tuple[float, bool], ...],
              bodies_of: Callable[[int], Sequence[tuple[Sequence[int], Sequence[int]]]],
              signal_of: Callable[[int], int], terminal: int,
              goals: Sequence[Sequence[tuple[int, int]]], source: str,
              max_gates: int) -> FormulaGraph:
    """The nodes the outputs read, renumbered after the inputs, in dependency order.

    ``bodies_of(key)`` gives a node's bodies as (positive, negative) source keys and
    ``signal_of(key)`` maps a source key to an input signal (>= 0) or -1 for a node."""
    first = fluents + len(statics)
    node_of: dict[int, int] = {}
    order: list[int] = []
    gates = 0

    def visit(key: int) -> None:
        nonlocal gates
        pending = [key]
        while pending:
            current = pending.pop()
            if current < 0 or current in node_of or signal_of(current) >= 0:
                continue
            node_of[current] = len(order)
            order.append(current)
            for positive, negative in bodies_of(current):
                gates += 1
                pending.extend(positive)
                pending.extend(negative)
            gates += 1
            if gates > max_gates:
                raise ResourceLimitError(
                    f"fuzzy evaluation: the goal and terminal formulas have more than "
                    f"{max_gates:,} gates", bound="size", limit=max_gates, reason="gates")

    outputs = [terminal, *(s for per in goals for _, s in per)]
    for key in outputs:
        visit(key)

    def renumber(key: int) -> int:
        if key < 0:
            return key
        found = signal_of(key)
        return found if found >= 0 else first + node_of[key]

    node_bodies = tuple(
        tuple((tuple(renumber(x) for x in positive), tuple(renumber(x) for x in negative))
              for positive, negative in bodies_of(key))
        for key in order)
    graph: dict[int, list[int]] = {}
    for node, bodies in enumerate(node_bodies):
        graph[node] = [s - first for positive, negative in bodies
                       for s in (*positive, *negative) if s >= first]
    component = strongly_connected_components(graph)
    members: dict[int, list[int]] = defaultdict(list)
    for node in range(len(order)):
        members[component[node]].append(node)
    components = tuple((tuple(nodes), len(nodes) > 1 or nodes[0] in graph[nodes[0]])
                       for _, nodes in sorted(members.items()))
    return FormulaGraph(
        fluents=fluents, statics=statics, node_bodies=node_bodies, components=components,
        terminal=renumber(terminal),
        goals=tuple(tuple(sorted((v, renumber(s)) for v, s in per)) for per in goals),
        source=source)


def graph_from_network(network: Network, max_gates: int) -> FormulaGraph:
    """The goal and terminal formulas of a compiled network. Move inputs cannot occur in
    them in valid GDL; should one, it is read as false (a body needing it is dropped, a
    negated one is left out)."""
    fluents = len(network.fluent_texts)
    inputs = network.inputs

    def is_move(signal: int) -> bool:
        return fluents <= signal < inputs

    def bodies_of(signal: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        out = []
        for index in network.node_bodies[signal - inputs]:
            body = network.bodies[index]
            if any(is_move(s) for s in body.positive):
                continue
            out.append((body.positive, tuple(s for s in body.negative if not is_move(s))))
        return out

    def signal_of(signal: int) -> int:
        return signal if signal < fluents else -1

    def output(signal: int) -> int:
        return FALSE if is_move(signal) else signal

    return restrict(fluents, (), bodies_of, signal_of, output(network.terminal),
                     [[(v, output(s)) for v, s in per] for per in network.goals],
                     "network", max_gates)

