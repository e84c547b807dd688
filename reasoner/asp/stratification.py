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
        component = _components(graph)
        for atom, negated in self.negative:
            if atom == negated or (atom in component and
                                   component.get(atom) == component.get(negated)):
                return atom, negated
        return None


def _components(graph: dict[int, set[int]]) -> dict[int, int]:
    """Strongly connected components of size > 1 (iterative Tarjan): atom -> component."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    result: dict[int, int] = {}
    counter = 0
    components = 0
    for root in list(graph):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(graph.get(root, ())))]
        while work:
            node, children = work[-1]
            pushed = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                    pushed = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if pushed:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    for member in members:
                        result[member] = components
                    components += 1
    return result
