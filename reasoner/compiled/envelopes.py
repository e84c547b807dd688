"""Envelopes of the recursive relations that read the state: static relations that hold
wherever the relation could hold in some state.

A relation's envelope has its rules with every ``true``, ``does`` and negated literal left
out, and every other relation that reads the state read through its own envelope (or left
out where that one has none). Leaving literals out only lets more through, so the envelope
holds of every atom the relation holds of, in every state. It is static: the compiled rules
build its index once (``indexes.h``), and a fully bound call of the recursive relation is
answered "no" at once where the envelope lacks the atom: a ray that is asked whether it is
clear between two squares that no ray joins is not walked
(:mod:`reasoner.compiled.codegen`).

A relation has no envelope where leaving literals out would leave a rule unsafe (a head
variable that only the state bound). An envelope's name holds a space, which no name a game
writes does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reasoner.compiled.relations import STATIC, RelationGraph, Signature
from reasoner.gdl.syntax import Atom, Distinct, Literal, Not, Rule, term_variables

__all__ = ["envelopes"]

_INPUTS = frozenset({("true", 1), ("does", 2)})


def envelopes(rules: Mapping[Signature, Sequence[Rule]], graph: RelationGraph
              ) -> tuple[dict[Signature, Signature], dict[Signature, list[Rule]]]:
    """The envelope of each recursive relation of ``rules`` (flat rules by head relation)
    that reads the state and has one, and the envelopes' rules (of those relations and of
    the relations their envelopes read)."""
    candidates = {s for s, group in rules.items()
                  if group and s not in _INPUTS and graph.classes.get(s, STATIC) != STATIC}
    changed = True
    while changed:  # drop the relations with a rule that would be unsafe
        changed = False
        for signature in sorted(candidates):
            if not all(_safe(_body(rule, candidates, graph), rule.head)
                       for rule in rules[signature]):
                candidates.discard(signature)
                changed = True
    wanted = sorted(s for s in graph.recursive if s in candidates)
    made: dict[Signature, list[Rule]] = {}
    pending = list(wanted)
    while pending:
        signature = pending.pop()
        name = _name(signature)
        if (name, signature[1]) in made:
            continue
        group = made[(name, signature[1])] = []
        for rule in rules[signature]:
            body = _body(rule, candidates, graph)
            group.append(Rule(Atom(name, rule.head.args, rule.head.pos), body, rule.pos))
            pending.extend(literal.signature for literal in rule.body
                           if isinstance(literal, Atom) and literal.signature in candidates)
    return {s: (_name(s), s[1]) for s in wanted}, made


def _name(signature: Signature) -> str:
    return f"{signature[0]} envelope"


def _body(rule: Rule, candidates: set[Signature], graph: RelationGraph) -> tuple[Literal, ...]:
    body: list[Literal] = []
    for literal in rule.body:
        if isinstance(literal, Distinct):
            body.append(literal)
        elif isinstance(literal, Atom):
            if literal.signature in candidates:
                body.append(Atom(_name(literal.signature), literal.args, literal.pos))
            elif literal.signature not in _INPUTS and \
                    graph.classes.get(literal.signature, STATIC) == STATIC:
                body.append(literal)
        # a negation, the state, the move, a relation without an envelope: left out
        elif not isinstance(literal, Not):
            raise AssertionError(f"not a flat rule's literal: {literal}")
    return tuple(body)


def _safe(body: Sequence[Literal], head: Atom) -> bool:
    bound = {v.name for literal in body if isinstance(literal, Atom)
             for arg in literal.args for v in term_variables(arg)}
    needed = {v.name for arg in head.args for v in term_variables(arg)}
    for literal in body:
        if isinstance(literal, Distinct):
            needed |= {v.name for side in (literal.left, literal.right)
                       for v in term_variables(side)}
    return needed <= bound
