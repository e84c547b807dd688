"""Mutex groups: fluents that never hold together (docs/semantics/instantiation.md, step 5).

For every fluent relation, each choice of *input* argument positions is a hypothesis: two
fluents that agree on the inputs but differ elsewhere never hold in the same state (the
``x y`` of ``(cell x y c)`` are inputs, the content ``c`` is the output). Hypotheses are
checked against the states of seeded random playouts; of those that survive, the one whose
groups need the fewest bits wins (a group of n fluents of which exactly one always holds
needs ceil(log2 n) bits, one that may hold none needs ceil(log2 (n + 1))).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from dataclasses import dataclass

from reasoner.core.walk import random_walk
from reasoner.engine.game import Game
from reasoner.errors import NoLegalMoveError
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import Constant, Function

__all__ = ["MutexGroup", "MutexReport", "mutex_groups"]

_MAX_ARITY = 8  # 2^8 hypotheses per relation at most


@dataclass(frozen=True)
class MutexGroup:
    """Fluents of which at most one holds in any state seen."""

    relation: str
    inputs: tuple[int, ...]  # argument positions (0-based) that name the group
    fluents: tuple[str, ...]
    exactly_one: bool  # one of them held in every state seen

    @property
    def bits(self) -> int:
        values = len(self.fluents) + (0 if self.exactly_one else 1)
        return max(1, math.ceil(math.log2(values))) if values > 1 else 0


@dataclass(frozen=True)
class MutexReport:
    """The chosen groups, and how many bits a state needs with and without them."""

    groups: tuple[MutexGroup, ...]
    states_checked: int

    @property
    def bits(self) -> int:
        return sum(group.bits for group in self.groups)

    @property
    def fluents(self) -> int:
        return sum(len(group.fluents) for group in self.groups)


def _states(game: Game, playouts: int, max_steps: int, seed: int) -> list[frozenset[int]]:
    rng = random.Random(seed)
    seen: set[frozenset[int]] = {frozenset(game.initial_state.fluent_ids())}
    for _ in range(playouts):
        try:
            for step in random_walk(game, game.initial_state, rng, max_steps):
                seen.add(frozenset(step.successor.fluent_ids()))
        except NoLegalMoveError:
            continue  # the walk ends where a role has no move; what it saw counts
    return sorted(seen, key=sorted)


def mutex_groups(game: Game, playouts: int = 50, max_steps: int = 200,
                 seed: int = 0) -> MutexReport:
    """Choose the smallest consistent encoding of every fluent relation."""
    states = _states(game, playouts, max_steps, seed)
    relations: dict[tuple[str, int], list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
    for index, text in enumerate(game.fluents):
        term = parse_term(text)
        if isinstance(term, Function):
            relations[(term.name, len(term.args))].append(
                (index, tuple(str(arg) for arg in term.args)))
        else:
            relations[(str(term) if isinstance(term, Constant) else text, 0)].append(
                (index, ()))
    chosen: list[MutexGroup] = []
    for (name, arity), members in sorted(relations.items()):
        best: list[MutexGroup] | None = None
        hypotheses = (itertools.chain.from_iterable(
            itertools.combinations(range(arity), k) for k in range(arity + 1))
            if arity <= _MAX_ARITY else [tuple(range(arity))])
        for inputs in hypotheses:
            grouped: dict[tuple[str, ...], list[int]] = defaultdict(list)
            for index, args in members:
                grouped[tuple(args[i] for i in inputs)].append(index)
            counts = [sorted(ids) for ids in grouped.values()]
            consistent = True
            always_one = [True] * len(counts)
            for state in states:
                for g, ids in enumerate(counts):
                    held = sum(1 for i in ids if i in state)
                    if held > 1:
                        consistent = False
                        break
                    if held == 0:
                        always_one[g] = False
                if not consistent:
                    break
            if not consistent:
                continue
            groups = [MutexGroup(name, tuple(inputs), tuple(game.fluents[i] for i in ids),
                                 one) for ids, one in zip(counts, always_one, strict=True)]
            if best is None or sum(g.bits for g in groups) < sum(g.bits for g in best):
                best = groups
        assert best is not None  # all positions as inputs always works: groups of one
        chosen.extend(best)
    return MutexReport(tuple(chosen), len(states))
