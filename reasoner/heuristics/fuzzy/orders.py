"""The order-relation grounding: goal and terminal grounded with order atoms kept.

The grounder folds static relations away, so the network's bodies no longer contain an
order atom ``r(a, b)``. When such a relation (an :class:`OrderRelation` with an ordering)
occurs in the goal or terminal rules (transitively), the evaluator therefore grounds the
goal/terminal part of the game itself: the rules that goal and terminal depend on, minus
the rules defining the order relations, translated rule for rule, with ``#external true(F)``
over the fluent table and ``#external r(a, b)`` over every pair of the relation's domain
(its pairs' elements and the chain). The rules are read with the ground-program reader
(:mod:`reasoner.asp.ground_rules`) that the network uses and folded the same way; every
``r(a, b)`` atom then is an input of the formula whose value is
:func:`~reasoner.heuristics.fuzzy.refinement.order_atom_value` (a constant per pair: the
relation is static) and whose crisp truth is whether ``(a, b)`` is one of the relation's
pairs. The whole goal/terminal formula then comes from this grounding (rule for rule,
without the translation's unfolding, so its shape, and its values, may differ slightly from
the network's; the guarantee holds all the same).

Covered: order relations the goal/terminal rules read directly or through other auxiliary
relations, with a successor chain, or without one when the relation is total (its chain is
then read off the relation, :func:`chain_of_total_order`), and a domain of at most
:data:`MAX_ORDER_DOMAIN` elements. Not covered (folded as usual, so crisp): a partial order
without a successor chain, a larger domain, and comparisons the rules make without the
relation (``distinct``, or a successor relation used directly).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from reasoner.asp.encoding import constant_text, predicate_name
from reasoner.asp.ground_rules import (
    GroundingStopped,
    Symbol,
    function,
    ground_rules,
    number,
)
from reasoner.asp.symbols import term_symbol
from reasoner.asp.translate import translate
from reasoner.engine.game import Game
from reasoner.errors import ResourceLimitError
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import GameDescription, Rule, literal_atoms
from reasoner.heuristics.fuzzy.formulas import FormulaGraph, restrict
from reasoner.heuristics.fuzzy.logic import FuzzyParameters
from reasoner.heuristics.fuzzy.refinement import order_atom_value
from reasoner.heuristics.structures import Ordering, OrderRelation, Structures
from reasoner.propnet.network import FALSE, fold_rules

__all__ = ["MAX_GROUND_RULES", "MAX_ORDER_DOMAIN", "chain_of_total_order",
           "goal_terminal_closure", "graph_from_grounding", "orders_in_formulas"]

MAX_ORDER_DOMAIN = 400  # elements: the externals are the domain squared
MAX_GROUND_RULES = 2_000_000


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


def goal_terminal_closure(description: GameDescription,
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


def orders_in_formulas(game: Game, structures: Structures | None) -> list[OrderRelation]:
    """The order relations to keep as inputs: those with a chain (detected, or read off a
    total order) over at most :data:`MAX_ORDER_DOMAIN` elements that the goal or terminal
    rules read and the game defines by rules; none without structures."""
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
    closure = goal_terminal_closure(
        game.description, frozenset((o.relation, 2) for o in candidates))
    defined = {rule.head.signature for rule in game.description.rules}
    return [o for o in candidates
            if (o.relation, 2) in closure and (o.relation, 2) in defined]


def _symbol(text: str) -> Symbol:
    """The clingo symbol of a ground GDL term."""
    return term_symbol(parse_term(text))


def graph_from_grounding(game: Game, orders: Sequence[OrderRelation],
                         parameters: FuzzyParameters, max_gates: int) -> FormulaGraph:
    """Ground the goal/terminal rules with the order relations kept as external atoms."""
    kept = frozenset((o.relation, 2) for o in orders)
    closure = goal_terminal_closure(game.description, kept)
    rules: list[Rule] = [rule for rule in game.description.rules
                         if rule.head.signature in closure - kept
                         and rule.head.signature != ("true", 1)]
    flat = [f for rule in rules for f in flat_rules(rule)]
    translation = translate(GameDescription(tuple(flat)), unfold_calls=False)
    fluent_symbols = [_symbol(text) for text in game.fluents]
    lines = [f"#external true({s})." for s in fluent_symbols]
    static_keys: list[tuple[Symbol, float, bool]] = []
    for order in orders:
        assert order.ordering is not None
        domain = sorted(order.domain | frozenset(order.ordering.elements))
        name = predicate_name(order.relation)
        for a in domain:
            for b in domain:
                symbol = function(name, [_symbol(a), _symbol(b)])
                holds = (a, b) in order.pairs
                value = order_atom_value(holds, a, b, order.ordering, parameters)
                static_keys.append((symbol, value, holds))
                lines.append(f"#external {symbol}.")
    try:
        ground = ground_rules(translation.game_program + "\n".join(lines) + "\n",
                              max_rules=MAX_GROUND_RULES)
    except (RuntimeError, GroundingStopped):
        raise ResourceLimitError(
            f"fuzzy evaluation: grounding goal and terminal with order atoms kept took more "
            f"than {MAX_GROUND_RULES:,} rules", bound="size", limit=MAX_GROUND_RULES,
            reason="grounding") from None
    if ground.unsupported:
        raise ResourceLimitError(
            f"fuzzy evaluation: the ground goal and terminal rules have {ground.unsupported}",
            bound="size", reason="unsupported")
    fluents = len(fluent_symbols)
    inputs: dict[int, int] = {}
    for index, symbol in enumerate(fluent_symbols):
        atom = ground.atom("true", symbol)
        if atom > 0:
            inputs[atom] = index
    statics: list[tuple[float, bool]] = []
    for symbol, value, holds in static_keys:
        atom = ground.literal(symbol)
        if atom > 0 and atom not in inputs:
            inputs[atom] = fluents + len(statics)
            statics.append((value, holds))
    folded = fold_rules(ground.rules, inputs, lambda: None)

    def output(atom: int) -> int:
        """An output's atom after folding, or a constant (the reader's FACT and ABSENT
        are the network's TRUE and FALSE)."""
        if atom < 0:
            return atom
        if atom in folded.constant:
            return folded.constant[atom]
        return atom if atom in folded.bodies or atom in inputs else FALSE

    roles = {constant_text(role): i for i, role in enumerate(game.roles)}
    goals: list[list[tuple[int, int]]] = [[] for _ in game.roles]
    for (role_term, value_term), atom in ground.atoms("goal", 2):
        role_number = roles.get(str(role_term))
        value_number = number(value_term)
        if role_number is not None and value_number is not None:
            goals[role_number].append((value_number, output(atom)))
    terminal = output(ground.atom("terminal"))

    def bodies_of(atom: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        return [(tuple(x for x in body if x > 0), tuple(-x for x in body if x < 0))
                for body in folded.bodies.get(atom, ())]

    def signal_of(atom: int) -> int:
        # Atoms with neither rules nor input status are folded out of every body.
        return inputs.get(atom, -1)

    return restrict(fluents, tuple(statics), bodies_of, signal_of, terminal, goals,
                    "grounding", max_gates)
