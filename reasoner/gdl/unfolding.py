"""Unfold auxiliary relations that are called with constants.

Grounding works bottom-up: an auxiliary relation such as ``(count ?x ?y ?z ?player ?n)``,
defined over three board cells, gets every combination of cells instantiated even when the
game only ever asks ``(count h1 h2 i1 red ?n)``. Unfolding such a call (replacing it by the
bodies of the relation's rules, unified with the call) lets the grounder see the constants
and instantiate only what is asked: for the Chinese-checkers family of the corpus it turns a
million ground atoms into a few hundred. This is a rewriting of the rules that preserves their
meaning; it applies only where that is plainly safe:

* the relation is not a GDL keyword, not recursive, never used under negation, and not
  defined by facts alone (a static table is cheaper to ground once than to copy);
* at least one call passes a non-variable argument where a defining rule has a variable;
* the number of rules, and of body literals, stays within a bound.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from typing import NamedTuple

from reasoner.gdl.components import depending_on
from reasoner.gdl.normal_form import FlatLiteral
from reasoner.gdl.substitution import Substitution, apply_literal, unify
from reasoner.gdl.syntax import (
    GDL_KEYWORDS,
    Atom,
    Distinct,
    Function,
    Not,
    Rule,
    Term,
    Variable,
)

__all__ = ["unfold", "unfold_projections"]

Signature = tuple[str, int]
_MAX_GROWTH = 4  # the rule count may at most quadruple, and
_MAX_EXTRA = 20000  # grow by at most this many rules; the same bounds hold for the
_MAX_EXTRA_LITERALS = 200000  # total number of body literals


def _size(rules: list[Rule]) -> int:
    return sum(len(rule.body) for rule in rules)


def _rename(term: Term, suffix: str) -> Term:
    if isinstance(term, Variable):
        return Variable(term.name + suffix, term.pos)
    if isinstance(term, Function):
        return Function(term.name, tuple(_rename(a, suffix) for a in term.args), term.pos)
    return term


def _rename_literal(literal: FlatLiteral, suffix: str) -> FlatLiteral:
    theta: Substitution = {}
    for var in _variables(literal):
        theta[var] = Variable(var + suffix)
    return apply_literal(literal, theta)


def _variables(literal: FlatLiteral | Atom) -> set[str]:
    found: set[str] = set()

    def visit(term: Term) -> None:
        if isinstance(term, Variable):
            found.add(term.name)
        elif isinstance(term, Function):
            for arg in term.args:
                visit(arg)

    if isinstance(literal, Atom):
        for arg in literal.args:
            visit(arg)
    elif isinstance(literal, Distinct):
        visit(literal.left)
        visit(literal.right)
    else:
        inner = literal.literal
        assert isinstance(inner, Atom | Distinct)
        found |= _variables(inner)
    return found


class _Relations(NamedTuple):
    """Who defines, reads and negates what, in one pass over flat rules."""

    definitions: dict[Signature, list[Rule]]
    graph: dict[Signature, set[Signature]]  # head -> the relations its bodies read
    negated: set[Signature]
    calls: dict[Signature, list[Atom]]  # the positive calls of each relation


def _relations(rules: list[Rule]) -> _Relations:
    found = _Relations(defaultdict(list), defaultdict(set), set(), defaultdict(list))
    for rule in rules:
        found.definitions[rule.head.signature].append(rule)
        for lit in rule.body:
            if isinstance(lit, Atom):
                found.graph[rule.head.signature].add(lit.signature)
                found.calls[lit.signature].append(lit)
            elif isinstance(lit, Not) and isinstance(lit.literal, Atom):
                found.graph[rule.head.signature].add(lit.literal.signature)
                found.negated.add(lit.literal.signature)
    return found


def _candidates(rules: list[Rule]) -> set[Signature]:
    definitions, graph, negated, calls = _relations(rules)
    chosen: set[Signature] = set()
    for sig, defs in definitions.items():
        if sig[0] in GDL_KEYWORDS or sig in negated or not calls.get(sig):
            continue
        if all(d.is_fact for d in defs):
            continue
        if _reaches(graph, sig, sig):
            continue
        open_positions = {i for d in defs for i, a in enumerate(d.head.args)
                          if isinstance(a, Variable)}
        if any(not isinstance(call.args[i], Variable)
               for call in calls[sig] for i in open_positions):
            chosen.add(sig)
    return chosen


def _reaches(graph: dict[Signature, set[Signature]], start: Signature,
             goal: Signature) -> bool:
    seen: set[Signature] = set()
    todo = list(graph.get(start, ()))
    while todo:
        sig = todo.pop()
        if sig == goal:
            return True
        if sig not in seen:
            seen.add(sig)
            todo.extend(graph.get(sig, ()))
    return False


def _unfold_one(rules: list[Rule], sig: Signature, counter: list[int],
                limit: int) -> list[Rule] | None:
    """The rules with every call of ``sig`` unfolded, or None as soon as they would be more
    than ``limit`` (a relation whose unfolding multiplies rules is better left alone)."""
    definitions = [r for r in rules if r.head.signature == sig]
    # At most this many rules come out (every call may match every definition): a cheap
    # refusal before any work.
    estimate = len(rules) - len(definitions)
    for rule in rules:
        calls = sum(1 for lit in rule.body if isinstance(lit, Atom) and lit.signature == sig)
        if calls and rule.head.signature != sig:
            estimate += len(definitions) ** min(calls, 64) - 1
        if estimate > limit:
            return None
    result: list[Rule] = []
    todo = deque(r for r in rules if r.head.signature != sig)
    while todo:
        if len(result) + len(todo) > limit:
            return None
        rule = todo.popleft()
        index = next((i for i, lit in enumerate(rule.body)
                      if isinstance(lit, Atom) and lit.signature == sig), None)
        if index is None:
            result.append(rule)
            continue
        call = rule.body[index]
        assert isinstance(call, Atom)
        for definition in definitions:
            counter[0] += 1
            # ";" cannot occur in a GDL variable name, so renamed variables never collide.
            suffix = f";{counter[0]}"
            head = Atom(definition.head.name,
                        tuple(_rename(a, suffix) for a in definition.head.args))
            theta: Substitution = {}
            if not all(unify(x, y, theta)
                       for x, y in zip(call.args, head.args, strict=True)):
                continue
            body = (
                [apply_literal(lit, theta) for lit in rule.body[:index]]  # type: ignore[arg-type]
                + [apply_literal(_rename_literal(lit, suffix), theta)  # type: ignore[arg-type]
                   for lit in definition.body]
                + [apply_literal(lit, theta) for lit in rule.body[index + 1:]]  # type: ignore[arg-type]
            )
            new_head = apply_literal(rule.head, theta)
            assert isinstance(new_head, Atom)
            todo.append(Rule(new_head, tuple(body), rule.pos))
    return result


def unfold(rules: Iterable[Rule]) -> list[Rule]:
    """Unfold every eligible auxiliary relation in a list of flat rules (see module doc)."""
    current = list(rules)
    limit = min(len(current) * _MAX_GROWTH, len(current) + _MAX_EXTRA)
    literal_limit = min(_size(current) * _MAX_GROWTH, _size(current) + _MAX_EXTRA_LITERALS)
    counter = [0]
    tried: set[Signature] = set()
    while True:
        pending = sorted(_candidates(current) - tried)
        if not pending:
            return current
        sig = pending[0]
        tried.add(sig)
        unfolded = _unfold_one(current, sig, counter, limit)
        if unfolded is not None and _size(unfolded) <= literal_limit:
            current = unfolded


def _projection_candidates(rules: list[Rule]) -> list[Signature]:
    """Static relations defined by one rule that projects a variable away, never negated,
    not recursive, and read by a rule that depends on the state or the moves."""
    definitions, graph, negated, _ = _relations(rules)
    dynamic = depending_on(graph, [("true", 1), ("does", 2)])
    read_by_dynamic = {sig for head in dynamic for sig in graph.get(head, ())}
    chosen = []
    for sig, defs in sorted(definitions.items()):
        if (sig[0] in GDL_KEYWORDS or sig in negated or sig in dynamic
                or sig not in read_by_dynamic or len(defs) != 1 or defs[0].is_fact
                or _reaches(graph, sig, sig)):
            continue
        head = _variables(defs[0].head)
        if any(_variables(lit) - head for lit in defs[0].body):  # type: ignore[arg-type]
            chosen.append(sig)
    return chosen


def unfold_projections(rules: Iterable[Rule]) -> list[Rule]:
    """Unfold static relations whose one rule projects variables away into their callers.

    Such a relation (quarto's ``(set ?p1 ?p2 ?p3 ?p4)``, four pieces that share a bit)
    materialises as a table of every combination its projection allows, and a state rule
    that joins it with four board cells grounds one instance per row of that table. With
    the relation's body in its place, the projected variables (the bit) are back in the
    caller, where :func:`reasoner.gdl.decompose.decompose_rules` can split the join per
    cell: a few dozen instances instead of tens of thousands. The rule count stays the
    same; the number of body literals may grow within the module's bounds.
    """
    current = list(rules)
    literal_limit = min(_size(current) * _MAX_GROWTH, _size(current) + _MAX_EXTRA_LITERALS)
    counter = [0]
    for sig in _projection_candidates(current):
        unfolded = _unfold_one(current, sig, counter, len(current))
        if unfolded is not None and _size(unfolded) <= literal_limit:
            current = unfolded
    return current
