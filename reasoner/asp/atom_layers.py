"""The first layer of every atom of a positive ground program, in one pass.

A relaxed planning graph asks, for each atom, the first layer at which it holds: layer 0
derives what the state's fluents give; each ``next`` atom derived in layer k puts its fluent
into layer k + 1; nothing is ever taken back (the program has no negation). Solving the
program once per layer costs a whole pass per layer (chess: 201 layers, a second each).
Here the rules are counted down instead, as in the linear-time evaluation of Horn clauses
(Dowling and Gallier): every rule keeps the number of its body atoms not yet true, each
atom's rules are visited once, when it becomes true, and a rule whose count reaches zero
makes its head true in the current layer. One pass over the program gives every layer.

The work is done on arrays, a wave at a time (the atoms that became true together), so
that a program of millions of rules is counted down in seconds.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["NEVER", "AtomLayers", "IntArray", "Program", "first_layers"]

IntArray = npt.NDArray[np.int64]
NEVER = -1


@dataclass(frozen=True)
class Program:
    """A positive ground program as arrays: each rule's head atom, its body's length, and
    the body atoms of every rule one after the other; atoms are numbered from 1 up to
    ``atoms``."""

    heads: IntArray
    lengths: IntArray
    literals: IntArray
    atoms: int

    @classmethod
    def of(cls, heads: array[int], lengths: array[int], literals: array[int], at_least: int = 0
           ) -> Program:
        """The program of three arrays of 32-bit integers (see
        :class:`reasoner.asp.ground_rules.RuleColumns`), its atoms numbered up to the
        largest it names or ``at_least``."""
        columns = [np.frombuffer(b, dtype=np.int32).astype(np.int64)
                   for b in (heads, lengths, literals)]
        atoms = max([at_least, *(int(c.max(initial=0)) for c in columns[::2])])
        return cls(columns[0], columns[1], columns[2], atoms)


@dataclass(frozen=True)
class AtomLayers:
    """Per atom number, the first layer at which it holds (:data:`NEVER`: in none); how
    many layers there are; whether the last one is a fixpoint."""

    first: IntArray
    count: int
    fixpoint: bool


class _Index:
    """For each atom, the rules whose bodies hold it (a compressed row per atom)."""

    def __init__(self, program: Program) -> None:
        rules = np.repeat(np.arange(len(program.heads), dtype=np.int64), program.lengths)
        # A stable sort of 32-bit keys is a radix sort: several times faster on millions.
        order = np.argsort(program.literals.astype(np.int32), kind="stable")
        self.rules = rules[order]
        self.starts = np.searchsorted(program.literals[order],
                                      np.arange(program.atoms + 2, dtype=np.int64))

    def rules_of(self, atoms: IntArray) -> IntArray:
        """The rules that read each of ``atoms`` (a rule once per body occurrence)."""
        starts = self.starts[atoms]
        counts = self.starts[atoms + 1] - starts
        total = int(counts.sum())
        if total == 0:
            return np.empty(0, dtype=np.int64)
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
        return self.rules[offsets + np.arange(total, dtype=np.int64)]


def first_layers(program: Program, start: IntArray, carried: IntArray, carry_to: IntArray,
                 max_layers: int) -> AtomLayers:
    """Count the rules of ``program`` down from the atoms ``start`` (layer 0).

    ``carried[i]`` derived in layer k makes ``carry_to[i]`` true in layer k + 1 (a ``next``
    atom and its fluent's ``true`` atom). Layers stop at the first that adds no carried
    atom (a fixpoint) or after ``max_layers``.

    Raises:
        ValueError: a body holds a negative literal.
    """
    if program.literals.size and int(program.literals.min()) <= 0:
        raise ValueError("the program has negative body literals")
    index = _Index(program)
    first = np.full(program.atoms + 1, NEVER, dtype=np.int64)
    missing = program.lengths.copy()
    carry = np.full(program.atoms + 1, 0, dtype=np.int64)
    carry[carried] = carry_to
    facts = program.heads[program.lengths == 0]
    wave = np.unique(np.concatenate([np.asarray(start, dtype=np.int64), facts]))
    layer = 0
    while True:
        carried_now: list[IntArray] = []
        while wave.size:
            first[wave] = layer
            targets = carry[wave]
            carried_now.append(targets[targets > 0])
            rules = index.rules_of(wave)
            np.subtract.at(missing, rules, 1)
            fired = rules[missing[rules] == 0]
            heads = np.unique(program.heads[fired])
            wave = heads[first[heads] == NEVER]
        following = np.unique(np.concatenate(carried_now)) if carried_now else \
            np.empty(0, dtype=np.int64)
        following = following[first[following] == NEVER]
        if following.size == 0:
            return AtomLayers(first, layer + 1, True)
        if layer + 1 >= max_layers:
            return AtomLayers(first, layer + 1, False)
        layer += 1
        wave = following
