"""Ground-level stratification: is negation free of cycles between ground atoms?

Games such as ggp.org's futoshiki write ``(<= (goal robot 100) (not (goal robot 0)))``: a
negative cycle between relations, but not between ground atoms. Such a game is well defined
exactly when its ground program is stratified, which this module checks on the program
clingo grounds, read through clingo's ground-program observer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import clingo

from reasoner.gdl.components import strongly_connected_components

__all__ = ["GroundDependencies"]


class GroundDependencies(clingo.Observer):
    """Collects the ground rules' dependencies while clingo grounds (register, then ground)."""

    def __init__(self) -> None:
        self.positive: dict[int, set[int]] = defaultdict(set)
        self.negative: list[tuple[int, int]] = []

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        for atom in head:
            for literal in body:
                if literal > 0:
                    self.positive[atom].add(literal)
                else:
                    self.negative.append((atom, -literal))

    def negative_cycle(self) -> tuple[int, int] | None:
        """A negative dependency (head atom, negated atom) that lies on a cycle, if any."""
        graph: dict[int, set[int]] = defaultdict(set)
        for atom, children in self.positive.items():
            graph[atom] |= children
        for atom, negated in self.negative:
            graph[atom].add(negated)
        component = strongly_connected_components(graph)
        for atom, negated in self.negative:
            if component.get(atom) == component.get(negated):
                return atom, negated
        return None
