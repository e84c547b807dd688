"""What the compiled rules need to know of a game's relations, from the graph of which
relation's rules read which: how long each relation's answers live (static, as long as the
state, as long as the joint move), which relations are on a cycle, and their components."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reasoner.gdl.components import reached_from
from reasoner.gdl.syntax import Atom, Not, Rule

__all__ = ["MOVE", "STATE", "STATIC", "RelationGraph", "Signature", "by_relation"]

Signature = tuple[str, int]
# How long a relation's answers hold: for the whole game, as long as the state, or for one
# joint move (the index of the space that keeps its tables).
STATIC, STATE, MOVE = 0, 1, 2


def by_relation(rules: Iterable[Rule]) -> dict[Signature, list[Rule]]:
    """``rules`` grouped by the relation of their head, in their order."""
    grouped: dict[Signature, list[Rule]] = {}
    for rule in rules:
        grouped.setdefault(rule.head.signature, []).append(rule)
    return grouped


@dataclass(frozen=True)
class RelationGraph:
    """The relations of flat rules: each one's lifetime class, the relations on a cycle,
    and the numbered strongly connected component of each of those."""

    classes: Mapping[Signature, int]
    recursive: frozenset[Signature]
    components: Mapping[Signature, int]
    # Per relation with rules, the relations its rules read (under negation too).
    reads: Mapping[Signature, frozenset[Signature]]

    @classmethod
    def of(cls, rules: Mapping[Signature, Sequence[Rule]]) -> RelationGraph:
        """The graph of ``rules`` (flat rules by head relation)."""
        edges: dict[Signature, set[Signature]] = defaultdict(set)
        for signature, group in rules.items():
            for rule in group:
                for literal in rule.body:
                    inner = literal.literal if isinstance(literal, Not) else literal
                    if isinstance(inner, Atom):
                        edges[signature].add(inner.signature)
        # What each relation's rules read, directly or through others (itself only on a cycle).
        reaches = {signature: reached_from(edges, edges.get(signature, ()))
                   for signature in list(edges)}
        recursive = frozenset(s for s, reached in reaches.items() if s in reached)
        components: dict[Signature, int] = {}
        for signature in sorted(recursive):
            if signature not in components:
                number = len(set(components.values()))
                for other in sorted(recursive):
                    if other in reaches[signature] and signature in reaches[other]:
                        components[other] = number
        return cls(_classes(edges), recursive, components,
                   {signature: frozenset(edges.get(signature, ())) for signature in rules})


def _classes(edges: Mapping[Signature, set[Signature]]) -> dict[Signature, int]:
    """Each relation's class: the longest-lived that every relation it reads allows."""
    classes: dict[Signature, int] = defaultdict(int)
    classes[("true", 1)] = STATE
    classes[("does", 2)] = MOVE
    changed = True
    while changed:
        changed = False
        for signature, targets in edges.items():
            level = max((classes[t] for t in targets), default=STATIC)
            if level > classes[signature]:
                classes[signature] = level
                changed = True
    return classes
