"""Bodies in disjunctive normal form.

GDL bodies may contain ``or`` and ``not`` nested freely. Translation and validation both work
on *flat* bodies: conjunctions of atoms, negated atoms, ``distinct`` and negated ``distinct``.
Expanding ``or`` into one rule per disjunct keeps every resulting rule safe whenever the
original was (a helper predicate for the disjunction would not: ``(or (distinct ?m ?j) ...)``).
"""

from __future__ import annotations

from itertools import product
from math import prod

from reasoner.errors import ResourceLimitError
from reasoner.gdl.syntax import Atom, Distinct, Literal, Not, Or, Rule

__all__ = ["MAX_ALTERNATIVES", "FlatLiteral", "alternatives", "body_dnf", "flat_rules"]

# A rule whose body expands into more flat rules than this is refused before it is
# expanded: sixteen two-way ors in one body make 65,536 rules, each translated and ground,
# and twelve (4,096) took a 1 s game to 27 s. The corpus's largest is 12 rules, in merrills
# (a corpus test keeps watch).
MAX_ALTERNATIVES = 256

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


def _literal_count(literal: Literal, negated: bool) -> int:
    if isinstance(literal, Not):
        return _literal_count(literal.literal, not negated)
    if isinstance(literal, Or):
        counts = [_literal_count(disjunct, negated) for disjunct in literal.disjuncts]
        return prod(counts) if negated else sum(counts)
    return 1


def alternatives(body: tuple[Literal, ...]) -> int:
    """How many flat conjunctions the body's DNF has, counted without expanding it."""
    return prod(_literal_count(literal, False) for literal in body)


def body_dnf(body: tuple[Literal, ...]) -> list[tuple[FlatLiteral, ...]]:
    """The body as a list of alternative flat conjunctions (one for a body without ``or``)."""
    if not any(isinstance(lit, Or | Not) for lit in body):
        return [body]  # type: ignore[list-item]
    return [tuple(conj) for conj in _conjunction_dnf(body)]


def flat_rules(rule: Rule) -> list[Rule]:
    """The rule split into one rule per disjunct of its body's DNF.

    Raises:
        ResourceLimitError: the DNF has more than :data:`MAX_ALTERNATIVES` conjunctions.
    """
    if any(isinstance(lit, Or | Not) for lit in rule.body):
        count = alternatives(rule.body)
        if count > MAX_ALTERNATIVES:
            name = f"{rule.head.name}/{len(rule.head.args)}"
            where = f"line {rule.pos.line}, column {rule.pos.column}: " if rule.pos.line else ""
            shown = f"{count:,}" if count < 10**12 else f"about 10^{len(str(count)) - 1}"
            raise ResourceLimitError(
                f"{where}the body of this rule of {name} expands into {shown} rules, one "
                f"per choice in its ors (at most {MAX_ALTERNATIVES:,})", "size", name,
                limit=MAX_ALTERNATIVES, reason="ors")
    found = body_dnf(rule.body)
    if len(found) == 1 and found[0] is rule.body:
        return [rule]
    return [Rule(rule.head, conj, rule.pos) for conj in found]
