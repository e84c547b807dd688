"""Bodies in disjunctive normal form.

GDL bodies may contain ``or`` and ``not`` nested freely. Translation and validation both work
on *flat* bodies: conjunctions of atoms, negated atoms, ``distinct`` and negated ``distinct``.
Expanding ``or`` into one rule per disjunct keeps every resulting rule safe whenever the
original was (a helper predicate for the disjunction would not: ``(or (distinct ?m ?j) ...)``).
"""

from __future__ import annotations

from itertools import product

from reasoner.gdl.syntax import Atom, Distinct, Literal, Not, Or, Rule

__all__ = ["FlatLiteral", "body_dnf", "flat_rules"]

# After normalisation: Atom, Not(Atom), Distinct, Not(Distinct).
FlatLiteral = Atom | Not | Distinct


def _literal_dnf(literal: Literal, negated: bool) -> list[list[FlatLiteral]]:
    if isinstance(literal, Not):
        return _literal_dnf(literal.literal, not negated)
    if isinstance(literal, Or):
        if negated:
            # not (a or b) == (not a) and (not b)
            return _conjunction_dnf(literal.disjuncts, negated=True)
        alternatives: list[list[FlatLiteral]] = []
        for disjunct in literal.disjuncts:
            alternatives.extend(_literal_dnf(disjunct, negated=False))
        return alternatives
    if negated:
        return [[Not(literal, literal.pos)]]
    return [[literal]]


def _conjunction_dnf(
    literals: tuple[Literal, ...], negated: bool = False
) -> list[list[FlatLiteral]]:
    parts = [_literal_dnf(literal, negated) for literal in literals]
    return [[lit for conj in combo for lit in conj] for combo in product(*parts)]


def body_dnf(body: tuple[Literal, ...]) -> list[tuple[FlatLiteral, ...]]:
    """The body as a list of alternative flat conjunctions (one for a body without ``or``)."""
    if not any(isinstance(lit, Or | Not) for lit in body):
        return [body]  # type: ignore[list-item]
    return [tuple(conj) for conj in _conjunction_dnf(body)]


def flat_rules(rule: Rule) -> list[Rule]:
    """The rule split into one rule per disjunct of its body's DNF."""
    alternatives = body_dnf(rule.body)
    if len(alternatives) == 1 and alternatives[0] is rule.body:
        return [rule]
    return [Rule(rule.head, conj, rule.pos) for conj in alternatives]
