"""Strongly connected components of a dependency graph (relations or ground atoms)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import TypeVar

__all__ = ["depending_on", "reached_from", "strongly_connected_components"]

Node = TypeVar("Node", bound=Hashable)


def depending_on(graph: Mapping[Node, Iterable[Node]], seeds: Iterable[Node]) -> set[Node]:
    """The seeds and every node of ``graph`` (node -> the nodes it reads) that reads one of
    them, directly or through others."""
    readers: dict[Node, list[Node]] = {}
    for node, reads in graph.items():
        for read in reads:
            readers.setdefault(read, []).append(node)
    found = set(seeds)
    todo = list(found)
    while todo:
        for reader in readers.get(todo.pop(), ()):
            if reader not in found:
                found.add(reader)
                todo.append(reader)
    return found


def reached_from(graph: Mapping[Node, Iterable[Node]], seeds: Iterable[Node]) -> set[Node]:
    """The seeds and every node of ``graph`` (node -> the nodes it reads) that one of them
    reads, directly or through others."""
    found = set(seeds)
    todo = list(found)
    while todo:
        for read in graph.get(todo.pop(), ()):
            if read not in found:
                found.add(read)
                todo.append(read)
    return found


def strongly_connected_components(graph: Mapping[Node, Iterable[Node]]) -> dict[Node, int]:
    """The component number of every node reachable in ``graph`` (Tarjan's algorithm,
    iterative, so deep dependency chains do not hit Python's recursion limit)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    component: dict[Node, int] = {}
    counter = 0
    components = 0
    for root in list(graph):
        if root in index:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[Node, Iterator[Node]]] = [(root, iter(graph.get(root, ())))]
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
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = components
                    if member == node:
                        break
                components += 1
    return component
