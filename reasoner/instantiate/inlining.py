"""Remove auxiliary atoms from an instantiated game by inlining them
(docs/semantics/instantiation.md, step 6).

The ground dependency graph of auxiliary atoms is acyclic in the games this is meant for,
so each auxiliary atom can be replaced, where it occurs positively, by the bodies of its
rules: a body becomes one rule per combination. Tic-tac-toe's ``(goal xplayer 100)`` becomes
eight rules of three cells each. An atom that also occurs under negation keeps its own
rules for those occurrences; atoms on a cycle, or that would expand into more than a
bounded number of bodies, are kept as they are.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from reasoner.asp.instantiation import GroundRule
from reasoner.gdl.syntax import GDL_KEYWORDS

__all__ = ["inline_auxiliaries"]

MAX_BODIES = 4096  # per inlined atom


def _relation(atom: str) -> str:
    return atom[1:].split(" ", 1)[0].rstrip(")") if atom.startswith("(") else atom


def inline_auxiliaries(rules: tuple[GroundRule, ...]) -> tuple[GroundRule, ...]:
    """The rules with every inlinable auxiliary atom replaced by its definitions."""
    definitions: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for rule in rules:
        if rule.body and _relation(rule.head) not in GDL_KEYWORDS:
            definitions[rule.head].append(rule.body)

    expanded: dict[str, list[tuple[str, ...]] | None] = {}
    visiting: set[str] = set()

    def expand(atom: str) -> list[tuple[str, ...]] | None:
        """The atom's definition with inlinable atoms inlined, or None to keep the atom."""
        if atom in expanded:
            return expanded[atom]
        if atom not in definitions or atom in visiting:
            return None
        visiting.add(atom)
        bodies: list[tuple[str, ...]] | None = []
        for body in definitions[atom]:
            assert bodies is not None
            bodies.extend(expand_body(body))
            if len(bodies) > MAX_BODIES:
                bodies = None
                break
        visiting.discard(atom)
        expanded[atom] = bodies
        return bodies

    def expand_body(body: tuple[str, ...]) -> list[tuple[str, ...]]:
        options: list[list[tuple[str, ...]]] = []
        for literal in body:
            inlined = expand(literal) if not literal.startswith("(not ") else None
            options.append(inlined if inlined is not None else [(literal,)])
        result = []
        for combo in itertools.product(*options):
            merged = tuple(dict.fromkeys(lit for part in combo for lit in part))
            result.append(merged)
            if len(result) > MAX_BODIES:
                break
        return result

    output: list[GroundRule] = []
    for rule in rules:
        if rule.body and _relation(rule.head) not in GDL_KEYWORDS:
            continue  # auxiliary definitions: re-added below if still referenced
        if not rule.body:
            output.append(rule)
            continue
        output.extend(GroundRule(rule.head, body) for body in expand_body(rule.body))
    # Atoms still referenced (under negation, or kept whole) keep their definitions.
    todo = [lit[5:-1] if lit.startswith("(not ") else lit
            for rule in output for lit in rule.body]
    todo = [atom for atom in todo if atom in definitions]
    emitted: set[str] = set()
    while todo:
        atom = todo.pop()
        if atom in emitted:
            continue
        emitted.add(atom)
        for body in definitions[atom]:
            for new_body in expand_body(body):
                output.append(GroundRule(atom, new_body))
                for lit in new_body:
                    name = lit[5:-1] if lit.startswith("(not ") else lit
                    if name in definitions:
                        todo.append(name)
    return tuple(output)
