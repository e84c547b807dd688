"""Fuzzy goal evaluation after Schiffel & Thielscher 2007 (Fluxplayer; SPEC section 5.4).

The goal and terminal conditions of a game, unrolled over the auxiliary relations down to
fluents, are read as propositional formulas and evaluated in a state with fuzzy logic:

* a fluent atom is worth ``p`` when it holds and ``1 - p`` when it does not (0.5 < p < 1);
* ``and`` is ``T'``, ``or`` is ``S'``, ``not x`` is ``1 - x``, where
  ``T'(a, b) = max(T(a, b), t)`` if ``min(a, b) > 0.5`` else ``T(a, b)``,
  ``S'(a, b) = 1 - T'(1 - a, 1 - b)``, ``T(a, b) = 1 - S(1 - a, 1 - b)`` and the Yager-style
  ``S(a, b) = min(1, (a^q + b^q)^(1/q))``; n-ary conjunctions and disjunctions fold pairwise
  from the left;
* with ``0.5 < t <= p < 1`` a formula that holds scores ``>= t`` and one that does not
  ``<= 1 - t`` (so, in particular, the crisp truth of a formula is its value >= 0.5);
* the value of a state for role r is
  ``h(s) = sum over goal values gv of h(gv, s) * gv, divided by the sum of the goal
  values``, with ``h(gv, s) = eval(goal(r, gv) or terminal)`` when ``goal(r, gv)`` holds and
  ``eval(goal(r, gv) and not terminal)`` otherwise. SPEC 5.4 writes the weight as
  ``gv / 100`` *and* divides by the sum of the goal values, which normalises twice and puts
  h(s) in [0, 1/100]; with the weight ``gv`` alone h(s) is a weighted mean in [0, 1], the
  same order of states, 100 times larger. Whether ``goal(r, gv)`` holds is read off its own
  fuzzy value (>= 0.5), which the guarantee makes exact.

Parameters: the defaults are p = 0.8, t = 0.65 and q = 10. With q = 2 the Yager t-norm is
too harsh for the usual goal conjunctions: ``T(0.2, 0.2) = 1 - min(1, sqrt(0.8^2 + 0.8^2))
= 0``, so a line of tic-tac-toe with two empty cells is already worth 0 and every
non-final state scores 0; q = 10 keeps long conjunctions apart (the slides: q large for
many conjunctions, small for many disjunctions).

Where the formulas come from
----------------------------
By default from the game's compiled propositional network
(:class:`reasoner.propnet.network.Network`): a node is the disjunction of its bodies, a body
the conjunction of its literals, the inputs are the fluents. The nodes that the goal and
terminal outputs read are compiled once per game into one generated Python function that
evaluates them bottom-up (each node once per state: the network is a DAG, shared
sub-formulas are evaluated once). Nodes of a *recursive* component (positive cycles through
auxiliary atoms, e.g. a reachability relation) cannot be unrolled into a finite formula;
they get their crisp truth value, ``p`` or ``1 - p``, from the least fixpoint the generated
code computes over booleans (the network's own semantics). That keeps the guarantee and
costs only the boolean evaluation of those nodes and what they read.

Structure-aware refinements (optional: ``structures=None`` gives the plain evaluation)
---------------------------------------------------------------------------------------
Detected structures (:mod:`reasoner.heuristics.structures`) refine the value of an atom so
that it says *how far* a state is from making it hold, always staying on the correct side
of the threshold (a false atom stays ``<= 1 - t``, a true one ``>= t``), so the guarantee
survives:

* ordered board ``f(x1, .., xk, c)`` (a :class:`Board` whose every input has an ordering),
  atom false in s: let d be the mean, over the cells ``(x1', .., xk')`` where content c stands
  in s, of ``(sum_i |D(xi, xi')| / |dom_i|) / k`` (D: steps along the ordering, |dom_i| the
  chain length; the slides' 2-D formula generalised to k inputs). The slides use d itself as
  the value (a distance, 0 = there); to keep false atoms ``<= 1 - t`` it enters as
  ``(1 - t) * (1 - d)``: the closer the pieces, the closer to ``1 - t``. With no such piece
  in s the atom keeps ``1 - p``.
* quantity ``f(.., x, ..)`` (a :class:`Quantity`, and every :class:`StepCounter` as a quantity
  of its one argument), atom false while s holds ``f(.., x', ..)`` with the same input
  arguments: ``(1 - t) - (1 - t) * |D(x, x')| / |dom|``; without such an atom ``1 - p``. A
  fluent that is both on a quantity and on a board is refined as a quantity.
* order relation ``r(a, b)`` (an :class:`OrderRelation` with an ordering):
  ``t + (1 - t) * |D(a, b)| / |dom(r)|`` if it holds, else
  ``(1 - t) - (1 - t) * |D(b, a)| / |dom(r)|`` (|dom(r)| = the chain length). The grounder folds
  static relations away, so the network's bodies no longer contain ``r(a, b)``. When such a
  relation occurs in the goal or terminal rules (transitively), the evaluator therefore
  grounds the goal/terminal part of the game itself: the rules that goal and terminal depend
  on, minus the rules defining the order relations, translated rule for rule, with
  ``#external true(F)`` over the fluent table and ``#external r(a, b)`` over every pair of
  the relation's domain (its pairs' elements and the chain). Rules are recorded with a
  clingo observer as :mod:`reasoner.propnet.network` does and folded the same way; every
  ``r(a, b)`` atom then is an input of the formula whose value is the formula above (a
  constant per pair: the relation is static) and whose crisp truth is whether ``(a, b)`` is
  one of the relation's pairs. The whole goal/terminal formula then comes from this
  grounding (rule for rule, without the translation's unfolding, so its shape, and its
  values, may differ slightly from the network's; the guarantee holds all the same).
  Covered: order relations the goal/terminal rules read directly or through other
  auxiliary relations, with a successor chain, or without one when the relation is total
  (its chain is then read off the relation, :func:`chain_of_total_order`), and a domain of
  at most :data:`MAX_ORDER_DOMAIN` elements. Not covered (folded as usual, so crisp): a
  partial order without a successor chain, a larger domain, and comparisons the rules make
  without the relation (``distinct``, or a successor relation used directly).

Errors: :class:`reasoner.errors.ResourceLimitError` when the game has no network, or the
formula has more than ``max_gates`` gates (bodies plus nodes), or the own grounding exceeds
its rule bound.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import cast

import clingo
import numpy as np

from reasoner.asp.encoding import constant_text, predicate_name, term_text
from reasoner.asp.superset import new_control
from reasoner.asp.translate import translate
from reasoner.engine.game import Game
from reasoner.engine.values import State
from reasoner.errors import ResourceLimitError
from reasoner.gdl.components import strongly_connected_components
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import (
    Function,
    GameDescription,
    Rule,
    literal_atoms,
)
from reasoner.heuristics.structures import (
    Ordering,
    OrderRelation,
    Quantity,
    Structures,
)
from reasoner.propnet.network import FALSE, TRUE, Network, fold_rules

__all__ = [
    "DEFAULT_MAX_GATES",
    "MAX_ORDER_DOMAIN",
    "FuzzyEvaluator",
    "FuzzyParameters",
    "FuzzyValues",
    "board_atom_value",
    "chain_of_total_order",
    "fuzzy_and",
    "fuzzy_or",
    "order_atom_value",
    "quantity_atom_value",
    "s_norm",
    "s_prime",
    "t_norm",
    "t_prime",
]

DEFAULT_MAX_GATES = 300_000
MAX_ORDER_DOMAIN = 400  # elements: the externals are the domain squared
_MAX_GROUND_RULES = 2_000_000


# -- the fuzzy operators ------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzyParameters:
    """The fuzzy logic's parameters: atom value ``p``, threshold ``t``, Yager exponent ``q``.

    Raises:
        ValueError: unless ``0.5 < t <= p < 1`` and ``q >= 1`` (t <= p is what makes true
            formulas score >= t and false ones <= 1 - t).
    """

    p: float = 0.8
    t: float = 0.65
    q: float = 10.0  # see the module docstring for why not 2

    def __post_init__(self) -> None:
        values = (self.p, self.t, self.q)
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            raise ValueError(f"fuzzy parameters must be finite numbers, got p={self.p!r}, "
                             f"t={self.t!r}, q={self.q!r}")
        if not 0.5 < self.t <= self.p < 1.0:
            raise ValueError(f"fuzzy parameters need 0.5 < t <= p < 1, got p={self.p}, "
                             f"t={self.t}")
        if not self.q >= 1.0:
            raise ValueError(f"fuzzy parameter q must be >= 1, got q={self.q}")


def s_norm(a: float, b: float, q: float) -> float:
    """The Yager-style t-conorm ``min(1, (a^q + b^q)^(1/q))``."""
    return min(1.0, float((a ** q + b ** q) ** (1.0 / q)))


def t_norm(a: float, b: float, q: float) -> float:
    """The dual t-norm ``1 - S(1 - a, 1 - b)``."""
    return 1.0 - s_norm(1.0 - a, 1.0 - b, q)


def t_prime(a: float, b: float, parameters: FuzzyParameters) -> float:
    """``T'(a, b) = max(T(a, b), t)`` if ``min(a, b) > 0.5``, else ``T(a, b)``."""
    value = t_norm(a, b, parameters.q)
    if min(a, b) > 0.5:
        return max(value, parameters.t)
    return value


def s_prime(a: float, b: float, parameters: FuzzyParameters) -> float:
    """``S'(a, b) = 1 - T'(1 - a, 1 - b)``."""
    return 1.0 - t_prime(1.0 - a, 1.0 - b, parameters)


def fuzzy_and(values: Iterable[float], parameters: FuzzyParameters) -> float:
    """``T'`` folded from the left; the empty conjunction is 1."""
    result: float | None = None
    for value in values:
        result = value if result is None else t_prime(result, value, parameters)
    return 1.0 if result is None else result


def fuzzy_or(values: Iterable[float], parameters: FuzzyParameters) -> float:
    """``S'`` folded from the left; the empty disjunction is 0."""
    result: float | None = None
    for value in values:
        result = value if result is None else s_prime(result, value, parameters)
    return 0.0 if result is None else result


# -- the refinements ----------------------------------------------------------------------


def order_atom_value(holds: bool, a: str, b: str, ordering: Ordering,
                     parameters: FuzzyParameters) -> float:
    """The refined value of an order atom ``r(a, b)`` over the chain ``ordering``:
    ``t + (1-t) * |D(a,b)|/|dom|`` if it holds, else ``(1-t) - (1-t) * |D(b,a)|/|dom|``
    (an element outside the chain counts as distance 0)."""
    t = parameters.t
    steps = ordering.distance(a, b)
    fraction = abs(steps) / len(ordering) if steps is not None and len(ordering) else 0.0
    if holds:
        return t + (1.0 - t) * fraction
    return (1.0 - t) - (1.0 - t) * fraction


def board_atom_value(distance: float, parameters: FuzzyParameters) -> float:
    """The value of a false ordered-board atom whose content stands at mean normalised
    distance ``distance`` (in [0, 1]) from its cell: ``(1 - t) * (1 - distance)``."""
    return (1.0 - parameters.t) * (1.0 - distance)


def quantity_atom_value(steps: int, domain: int, parameters: FuzzyParameters) -> float:
    """The value of a false quantity atom ``f(x)`` while ``f(x')`` holds, ``steps`` =
    ``|D(x, x')|`` on a chain of ``domain`` elements: ``(1-t) - (1-t) * steps/domain``."""
    t = parameters.t
    return (1.0 - t) - (1.0 - t) * abs(steps) / domain


def chain_of_total_order(order: OrderRelation) -> Ordering | None:
    """The chain of an order relation that compares every two distinct elements of its
    domain (strictly or not), smallest first; None when two elements are incomparable or
    the relation is empty. Used for order relations without a detected successor base
    (e.g. ``greater`` written out as facts)."""
    domain = sorted(order.domain)
    if len(domain) < 2:
        return None
    below: dict[str, int] = dict.fromkeys(domain, 0)
    for a, b in order.pairs:
        if a != b:
            below[b] += 1
    for i, a in enumerate(domain):
        for b in domain[i + 1:]:
            if (a, b) not in order.pairs and (b, a) not in order.pairs:
                return None
    chain = sorted(domain, key=lambda x: below[x])
    if len({below[x] for x in chain}) != len(chain):
        return None
    return Ordering(order.relation, tuple(chain))


# -- the formula graph ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Graph:
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


def _restrict(fluents: int, statics: tuple[tuple[float, bool], ...],
              bodies_of: Callable[[int], Sequence[tuple[Sequence[int], Sequence[int]]]],
              signal_of: Callable[[int], int], terminal: int,
              goals: Sequence[Sequence[tuple[int, int]]], source: str,
              max_gates: int) -> _Graph:
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
                    f"{max_gates:,} gates", bound="size")

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
    return _Graph(
        fluents=fluents, statics=statics, node_bodies=node_bodies, components=components,
        terminal=renumber(terminal),
        goals=tuple(tuple(sorted((v, renumber(s)) for v, s in per)) for per in goals),
        source=source)


def _graph_from_network(network: Network, max_gates: int) -> _Graph:
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

    return _restrict(fluents, (), bodies_of, signal_of, output(network.terminal),
                     [[(v, output(s)) for v, s in per] for per in network.goals],
                     "network", max_gates)


# -- grounding goal and terminal with order atoms kept ------------------------------------


def _goal_terminal_closure(description: GameDescription,
                           stop: frozenset[tuple[str, int]]) -> set[tuple[str, int]]:
    """The relations goal and terminal depend on, not looking through ``stop``."""
    graph: dict[tuple[str, int], set[tuple[str, int]]] = defaultdict(set)
    for rule in description.rules:
        for literal in rule.body:
            graph[rule.head.signature].update(a.signature for a, _ in literal_atoms(literal))
    found: set[tuple[str, int]] = set()
    pending = [("goal", 2), ("terminal", 0)]
    while pending:
        signature = pending.pop()
        if signature in found:
            continue
        found.add(signature)
        if signature not in stop and signature != ("true", 1):
            pending.extend(graph.get(signature, ()))
    return found


def _symbol(text: str) -> clingo.Symbol:
    """The clingo symbol of a ground GDL term."""
    return clingo.parse_term(term_text(parse_term(text)))


class _Observer(clingo.Observer):
    """Records the ground rules (within a count); notes anything a network cannot hold."""

    def __init__(self, max_rules: int) -> None:
        self.rules: list[tuple[Sequence[int], Sequence[int]]] = []
        self.refusal = ""
        self._max_rules = max_rules

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice or not head:
            self.refusal = "the ground goal and terminal rules have choice rules or constraints"
        self.rules.append((head, body))
        if len(self.rules) > self._max_rules:
            raise _TooLarge

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int,
                    body: Sequence[tuple[int, int]]) -> None:
        self.refusal = "the ground goal and terminal rules have weight rules"


class _TooLarge(Exception):
    pass


def _graph_from_grounding(game: Game, orders: Sequence[OrderRelation],
                          parameters: FuzzyParameters, max_gates: int) -> _Graph:
    """Ground the goal/terminal rules with the order relations kept as external atoms."""
    kept = frozenset((o.relation, 2) for o in orders)
    closure = _goal_terminal_closure(game.description, kept)
    rules: list[Rule] = [rule for rule in game.description.rules
                         if rule.head.signature in closure - kept
                         and rule.head.signature != ("true", 1)]
    flat = [f for rule in rules for f in flat_rules(rule)]
    translation = translate(GameDescription(tuple(flat)), unfold_calls=False)
    fluent_symbols = [_symbol(text) for text in game.fluents]
    lines = [f"#external true({s})." for s in fluent_symbols]
    static_keys: list[tuple[clingo.Symbol, float, bool]] = []
    for order in orders:
        assert order.ordering is not None
        domain = sorted(order.domain | frozenset(order.ordering.elements))
        name = predicate_name(order.relation)
        for a in domain:
            for b in domain:
                symbol = clingo.Function(name, [_symbol(a), _symbol(b)])
                holds = (a, b) in order.pairs
                value = order_atom_value(holds, a, b, order.ordering, parameters)
                static_keys.append((symbol, value, holds))
                lines.append(f"#external {symbol}.")
    observer = _Observer(_MAX_GROUND_RULES)
    ctl = new_control()
    ctl.register_observer(observer)
    ctl.add("base", [], translation.game_program + "\n".join(lines) + "\n")
    try:
        ctl.ground([("base", [])])
    except (RuntimeError, _TooLarge):
        raise ResourceLimitError(
            f"fuzzy evaluation: grounding goal and terminal with order atoms kept took more "
            f"than {_MAX_GROUND_RULES:,} rules", bound="size") from None
    if observer.refusal:
        raise ResourceLimitError(f"fuzzy evaluation: {observer.refusal}", bound="size")
    atoms = ctl.symbolic_atoms
    fluents = len(fluent_symbols)
    inputs: dict[int, int] = {}
    for index, symbol in enumerate(fluent_symbols):
        found = atoms[clingo.Function("true", [symbol])]
        if found is not None and not found.is_fact:
            inputs[found.literal] = index
    statics: list[tuple[float, bool]] = []
    for symbol, value, holds in static_keys:
        found = atoms[symbol]
        if found is not None and not found.is_fact and found.literal not in inputs:
            inputs[found.literal] = fluents + len(statics)
            statics.append((value, holds))
    folded = fold_rules(observer.rules, inputs, lambda: None)

    def output(symbol: clingo.Symbol) -> int:
        found = atoms[symbol]
        if found is None:
            return FALSE
        if found.is_fact:
            return TRUE
        atom = found.literal
        if atom in folded.constant:
            return folded.constant[atom]
        return atom if atom in folded.bodies or atom in inputs else FALSE

    roles = {constant_text(role): i for i, role in enumerate(game.roles)}
    goals: list[list[tuple[int, int]]] = [[] for _ in game.roles]
    for found in atoms.by_signature("goal", 2):
        role_term, value_term = found.symbol.arguments
        role_number = roles.get(str(role_term))
        if role_number is not None and value_term.type == clingo.SymbolType.Number:
            goals[role_number].append((value_term.number, output(found.symbol)))
    terminal = output(clingo.Function("terminal"))

    def bodies_of(atom: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        return [(tuple(x for x in body if x > 0), tuple(-x for x in body if x < 0))
                for body in folded.bodies.get(atom, ())]

    def signal_of(atom: int) -> int:
        # Atoms with neither rules nor input status are folded out of every body.
        return inputs.get(atom, -1)

    return _restrict(fluents, tuple(statics), bodies_of, signal_of, terminal, goals,
                     "grounding", max_gates)


# -- code generation -----------------------------------------------------------------------


def _operators(parameters: FuzzyParameters) -> dict[str, object]:
    """The compiled S' and T' for the parameters (S' directly: ``S'(a, b) = S(a, b)``
    clipped to 1, lowered to ``1 - t`` when both are below 0.5)."""
    q, t = parameters.q, parameters.t
    low = 1.0 - t
    yager: Callable[[float, float], float]
    if q == 1.0:
        def yager(a: float, b: float) -> float:
            return a + b
    elif q == 2.0:
        yager = cast(Callable[[float, float], float], math.hypot)
    else:
        inverse = 1.0 / q

        def yager(a: float, b: float) -> float:
            return float((a ** q + b ** q) ** inverse)

    def s_op(a: float, b: float) -> float:
        value = yager(a, b)
        if value > 1.0:
            value = 1.0
        if a < 0.5 and b < 0.5 and value > low:
            return low
        return value

    def t_op(a: float, b: float) -> float:
        value = yager(1.0 - a, 1.0 - b)
        value = 0.0 if value >= 1.0 else 1.0 - value
        if a > 0.5 and b > 0.5 and value < t:
            return t
        return value

    return {"_s": s_op, "_t": t_op}


def _generate(graph: _Graph, refined: Sequence[int]) -> tuple[str, list[int]]:
    """Python source of ``evaluate(bits, low)``: the values of the output signals, in the
    order of the returned list. ``low[k]`` is the value of fluent ``refined[k]`` when false;
    other false fluents are worth ``Q`` (1 - p), true ones ``P``."""
    first = graph.first_node
    outputs: list[int] = []
    for signal in [graph.terminal, *(s for per in graph.goals for _, s in per)]:
        if signal not in outputs:
            outputs.append(signal)
    # Which nodes need a fuzzy value, which a crisp one (recursive components and below).
    fuzzy_needed: set[int] = set()
    crisp_needed: set[int] = set()
    recursive_nodes = {n for nodes, rec in graph.components if rec for n in nodes}
    pending = [s - first for s in outputs if s >= first]
    while pending:
        node = pending.pop()
        if node in fuzzy_needed:
            continue
        fuzzy_needed.add(node)
        if node in recursive_nodes:
            crisp_pending = [node]
            while crisp_pending:
                current = crisp_pending.pop()
                if current in crisp_needed:
                    continue
                crisp_needed.add(current)
                crisp_pending.extend(s - first for p, n in graph.node_bodies[current]
                                     for s in (*p, *n) if s >= first)
            continue
        pending.extend(s - first for p, n in graph.node_bodies[node]
                       for s in (*p, *n) if s >= first)
    fluents_read: set[int] = set()
    crisp_fluents: set[int] = set()
    for node in fuzzy_needed - recursive_nodes:
        for p, n in graph.node_bodies[node]:
            fluents_read.update(s for s in (*p, *n) if 0 <= s < graph.fluents)
    for node in crisp_needed:
        for p, n in graph.node_bodies[node]:
            crisp_fluents.update(s for s in (*p, *n) if 0 <= s < graph.fluents)
    low_index = {fluent: k for k, fluent in enumerate(refined)}

    def fuzzy(signal: int) -> str:
        if signal == TRUE:
            return "1.0"
        if signal == FALSE:
            return "0.0"
        if signal < graph.fluents:
            return f"f{signal}"
        if signal < first:
            return repr(graph.statics[signal - graph.fluents][0])
        return f"v{signal - first}"

    def crisp(signal: int) -> str:
        if signal == TRUE:
            return "True"
        if signal == FALSE:
            return "False"
        if signal < graph.fluents:
            return f"(bits >> {signal} & 1 == 1)"
        if signal < first:
            return repr(graph.statics[signal - graph.fluents][1])
        return f"c{signal - first}"

    lines = ["def evaluate(bits, low):"]
    for fluent in sorted(fluents_read):
        false_value = f"low[{low_index[fluent]}]" if fluent in low_index else "Q"
        lines.append(f"    f{fluent} = P if bits >> {fluent} & 1 else {false_value}")
    for nodes, recursive in graph.components:
        crisp_nodes = [n for n in nodes if n in crisp_needed]
        if crisp_nodes:
            def disjunction(node: int) -> str:
                terms = []
                for positive, negative in graph.node_bodies[node]:
                    literals = [crisp(s) for s in positive]
                    literals += [f"not {crisp(s)}" for s in negative]
                    terms.append("(" + " and ".join(literals or ["True"]) + ")")
                return " or ".join(terms) or "False"
            if recursive:
                for node in crisp_nodes:
                    lines.append(f"    c{node} = False")
                lines.append("    changed = True")
                lines.append("    while changed:")
                lines.append("        changed = False")
                for node in crisp_nodes:
                    lines.append(f"        if not c{node} and ({disjunction(node)}):")
                    lines.append(f"            c{node} = True")
                    lines.append("            changed = True")
            else:
                for node in crisp_nodes:
                    lines.append(f"    c{node} = bool({disjunction(node)})")
        for node in nodes:
            if node not in fuzzy_needed:
                continue
            if node in recursive_nodes:
                lines.append(f"    v{node} = P if c{node} else Q")
                continue
            bodies = graph.node_bodies[node]
            if not bodies:
                lines.append(f"    v{node} = 0.0")
                continue
            for number, (positive, negative) in enumerate(bodies):
                literals = [fuzzy(s) for s in positive]
                literals += [f"1.0 - {fuzzy(s)}" for s in negative]
                target = f"v{node}" if number == 0 else "b"
                lines.append(f"    {target} = {literals[0] if literals else '1.0'}")
                for literal in literals[1:]:
                    lines.append(f"    {target} = _t({target}, {literal})")
                if number:
                    lines.append(f"    v{node} = _s(v{node}, b)")
    lines.append("    return (" + "".join(f"{fuzzy(s)}, " for s in outputs) + ")")
    return "\n".join(lines) + "\n", outputs


# -- refinement tables ---------------------------------------------------------------------


def _split(text: str) -> tuple[str, tuple[str, ...]]:
    term = parse_term(text)
    if isinstance(term, Function):
        return term.name, tuple(str(arg) for arg in term.args)
    return str(term), ()


@dataclass
class _BoardGroup:
    """False atoms of one ordered board with one content: value from the mean distance."""

    members: np.ndarray  # fluent ids of every cell with this content
    targets: list[int]  # indices into the ``low`` list
    distances: np.ndarray  # targets x members, normalised distances in [0, 1)


@dataclass
class _QuantityGroup:
    """False atoms of one quantity with one input tuple."""

    members: np.ndarray  # fluent ids of every amount
    positions: np.ndarray  # chain position per member
    targets: list[int]  # indices into the ``low`` list
    target_positions: np.ndarray
    length: int


def _refinement_tables(game: Game, fluents_read: Iterable[int], structures: Structures,
                       ) -> tuple[list[int], list[_BoardGroup], list[_QuantityGroup]]:
    """Which fluents are refined when false, and how."""
    parsed = [_split(text) for text in game.fluents]
    quantities: list[Quantity] = list(structures.quantities)
    for counter in structures.step_counters:
        if not any(q.function == counter.function and q.arity == 1 for q in quantities):
            quantities.append(Quantity(counter.function, 1, (), 0, counter.ordering))
    read = set(fluents_read)
    refined: list[int] = []
    quantity_groups: list[_QuantityGroup] = []
    taken: set[int] = set()
    for quantity in quantities:
        groups: dict[tuple[str, ...], list[tuple[int, int]]] = defaultdict(list)
        for index, (name, args) in enumerate(parsed):
            if name != quantity.function or len(args) != quantity.arity:
                continue
            position = quantity.ordering.position(args[quantity.position])
            if position is None:
                continue
            key = tuple(args[i] for i in quantity.inputs)
            groups[key].append((index, position))
        for members in groups.values():
            targets = [(i, pos) for i, pos in members if i in read and i not in taken]
            if not targets:
                continue
            slots = list(range(len(refined), len(refined) + len(targets)))
            refined.extend(i for i, _ in targets)
            taken.update(i for i, _ in targets)
            quantity_groups.append(_QuantityGroup(
                members=np.array([i for i, _ in members], dtype=np.int64),
                positions=np.array([pos for _, pos in members], dtype=np.int64),
                targets=slots, target_positions=np.array([pos for _, pos in targets]),
                length=len(quantity.ordering)))
    board_groups: list[_BoardGroup] = []
    for board in structures.boards:
        if not board.ordered:
            continue
        orderings = [o for o in board.orderings if o is not None]
        cells: dict[tuple[str, ...], list[tuple[int, tuple[int, ...]]]] = defaultdict(list)
        for index, (name, args) in enumerate(parsed):
            if name != board.function or len(args) != board.arity:
                continue
            positions = [o.position(args[i]) for o, i in zip(orderings, board.inputs,
                                                               strict=True)]
            if any(p is None for p in positions):
                continue
            content = tuple(args[i] for i in board.outputs)
            cells[content].append((index, tuple(p for p in positions if p is not None)))
        lengths = np.array([len(o) for o in orderings], dtype=np.float64)
        for cell_members in cells.values():
            cell_targets = [(i, pos) for i, pos in cell_members if i in read and i not in taken]
            if not cell_targets:
                continue
            member_positions = np.array([pos for _, pos in cell_members], dtype=np.float64)
            target_positions = np.array([pos for _, pos in cell_targets], dtype=np.float64)
            steps = np.abs(target_positions[:, None, :] - member_positions[None, :, :])
            distances = (steps / lengths).mean(axis=2)
            slots = list(range(len(refined), len(refined) + len(cell_targets)))
            refined.extend(i for i, _ in cell_targets)
            taken.update(i for i, _ in cell_targets)
            board_groups.append(_BoardGroup(
                members=np.array([i for i, _ in cell_members], dtype=np.int64),
                targets=slots, distances=distances))
    return refined, board_groups, quantity_groups


# -- the evaluator -------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzyValues:
    """The fuzzy values of one state's goal and terminal formulas."""

    terminal: float
    goals: tuple[tuple[tuple[int, float], ...], ...]  # per role: (goal value, eval)


class FuzzyEvaluator:
    """Fuzzy evaluation of a game's states (see the module docstring).

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
                "none (load it with backend='propnet' or 'auto' within the network's bounds)",
                bound="size")
        orders = self._orders_in_formulas(game, structures)
        if orders:
            self.graph = _graph_from_grounding(game, orders, self.parameters, max_gates)
        else:
            self.graph = _graph_from_network(network, max_gates)
        self.order_relations: tuple[str, ...] = tuple(o.relation for o in orders)
        # Fluents the fuzzy formulas read, for the refinement tables.
        read = {s for bodies in self.graph.node_bodies for p, n in bodies
                for s in (*p, *n) if 0 <= s < self.graph.fluents}
        if structures is not None:
            self._refined, self._boards, self._quantities = _refinement_tables(
                game, read, structures)
        else:
            self._refined, self._boards, self._quantities = [], [], []
        source, outputs = _generate(self.graph, self._refined)
        self.source = source
        namespace: dict[str, object] = {"P": self.parameters.p, "Q": 1.0 - self.parameters.p}
        namespace.update(_operators(self.parameters))
        exec(compile(source, "<fuzzy evaluation>", "exec"), namespace)
        self._evaluate = namespace["evaluate"]
        position = {signal: k for k, signal in enumerate(outputs)}
        self._terminal_slot = position[self.graph.terminal]
        self._goal_slots = tuple(tuple((v, position[s]) for v, s in per)
                                 for per in self.graph.goals)
        self._role_index = {role: i for i, role in enumerate(game.roles)}
        self._nbytes = (len(game.fluents) + 7) // 8 + 1

    @staticmethod
    def _orders_in_formulas(game: Game, structures: Structures | None) -> list[OrderRelation]:
        if structures is None:
            return []
        candidates = []
        for order in structures.orders:
            if order.ordering is None:
                order = OrderRelation(order.relation, order.pairs, chain_of_total_order(order))
            if order.ordering is not None and len(
                    order.domain | frozenset(order.ordering.elements)) <= MAX_ORDER_DOMAIN:
                candidates.append(order)
        if not candidates:
            return []
        closure = _goal_terminal_closure(
            game.description, frozenset((o.relation, 2) for o in candidates))
        defined = {rule.head.signature for rule in game.description.rules}
        return [o for o in candidates
                if (o.relation, 2) in closure and (o.relation, 2) in defined]

    # -- per state -----------------------------------------------------------------------

    def _low(self, bits: int) -> list[float]:
        """The values of the refined fluents were they false in the state."""
        if not self._refined:
            return []
        q = 1.0 - self.parameters.p
        low = [q] * len(self._refined)
        raw = np.frombuffer(bits.to_bytes(self._nbytes, "little"), dtype=np.uint8)
        present = np.unpackbits(raw, bitorder="little")
        scale = 1.0 - self.parameters.t
        for quantity in self._quantities:
            where = np.flatnonzero(present[quantity.members])
            if where.size:
                here = int(quantity.positions[where[0]])
                values = scale - scale * np.abs(quantity.target_positions - here) / quantity.length
                for slot, value in zip(quantity.targets, values.tolist(), strict=True):
                    low[slot] = value
        for board in self._boards:
            mask = present[board.members].astype(np.float64)
            count = mask.sum()
            if count:
                values = scale * (1.0 - board.distances @ mask / count)
                for slot, value in zip(board.targets, values.tolist(), strict=True):
                    low[slot] = value
        return low

    def evaluate(self, state: State) -> FuzzyValues:
        """Every goal formula's and the terminal formula's value in ``state``."""
        outputs = self._values(state.bits)
        return FuzzyValues(
            terminal=outputs[self._terminal_slot],
            goals=tuple(tuple((v, outputs[k]) for v, k in per) for per in self._goal_slots))

    def _values(self, bits: int) -> tuple[float, ...]:
        result: tuple[float, ...] = self._evaluate(bits, self._low(bits))  # type: ignore[operator]
        return result

    def terminal_value(self, state: State) -> float:
        """eval(terminal, s)."""
        return self._values(state.bits)[self._terminal_slot]

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
            raise ValueError(f"unknown role {role!r}; the roles are {list(self.game.roles)}")
        return index
