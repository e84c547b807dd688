"""Relaxed layers from a state: what becomes reachable after 1, 2, ... relaxed steps.

Layer 0 is the state itself. From the fluents of layer k, the relaxed rules (negation
dropped) derive every atom they can, every legal move is taken as played, and the ``next``
fluents join the fluents of layer k + 1. The layers grow until nothing new appears: the
planning graph that relaxed-planning heuristics are built on.

The relaxed program is ground once, every fluent that ``init`` or ``next`` may give an
external atom of ``true`` (so that none is a fact and every rule keeps the fluents it
reads), and every atom's first layer is then counted out of the ground rules in one pass
(:mod:`reasoner.asp.atom_layers`), each ``next`` atom carrying its fluent to the next
layer. A game whose relaxed program is too large to ground in full (chess: 11 million
atoms, most of them threat relations with seven arguments) is ground demand-driven instead,
wide bodies split first (:mod:`reasoner.gdl.demand`, :mod:`reasoner.gdl.decompose`): only
the instances of its helper relations that some rule asks for, which is all the layers of
fluents, moves, ``legal``, ``goal`` and ``terminal`` need; a helper relation called with
bound arguments then lists the instances asked for (:attr:`RelaxedLayers.demanded`).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import clingo
import numpy as np

from reasoner.asp.atom_layers import NEVER, Program, first_layers
from reasoner.asp.encoding import relation_name
from reasoner.asp.ground_rules import GroundingStopped, GroundRules, RuleColumns, ground_columns
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import LAYER_QUERIES, Translation, translate
from reasoner.gdl.demand import adorned_relation, is_adorned
from reasoner.gdl.syntax import GameDescription, relation_names

__all__ = ["RelaxedLayer", "RelaxedLayers", "description_layers", "layers_translation",
           "relaxed_layers"]

# The relaxed program in full is tried within this budget, then the demand-driven ones: the
# first within FIRST_TRY (every binding passed on), the last (demand started at constants
# only) without one but the caller's.
FULL_RULES, FULL_SECONDS = 1_000_000, 10.0
FIRST_TRY_RULES, FIRST_TRY_SECONDS = 400_000, 4.0
# What the demand-driven programs ask in full: their atoms are all there (next's are no
# layer's atoms).
_READ = frozenset(name for name, _ in LAYER_QUERIES) - {"next"}
_K = TypeVar("_K")


@dataclass(frozen=True)
class RelaxedLayer:
    """One layer: the fluents that hold in it, and what they let derive."""

    fluents: tuple[str, ...]
    # (role, move) pairs legal in the relaxed sense.
    moves: tuple[tuple[str, str], ...]
    # Every other derived atom (auxiliary relations, legal, goal, terminal...), as GDL.
    atoms: tuple[str, ...]


@dataclass(frozen=True)
class RelaxedLayers:
    """The layers from a state until the fixpoint (or the layer cap), kept as the first
    layer of each fluent, move and atom: layer k holds everything whose first layer is k or
    less (:meth:`layer`)."""

    fluents: dict[str, int]
    moves: dict[tuple[str, str], int]
    # The atoms asked for (see description_layers's atoms_of); None: none were.
    atoms: dict[str, int] | None
    count: int
    fixpoint: bool
    seconds: float
    # The helper relations ("name/arity") whose atoms are only those their callers asked
    # for: the program was ground demand-driven. Empty when it was ground in full.
    demanded: tuple[str, ...] = ()

    def layer(self, k: int) -> RelaxedLayer:
        """Layer ``k`` (0 to ``count`` - 1): every fluent, move and atom that holds in it."""
        return RelaxedLayer(
            tuple(sorted(f for f, first in self.fluents.items() if first <= k)),
            tuple(sorted(m for m, first in self.moves.items() if first <= k)),
            tuple(sorted(a for a, first in (self.atoms or {}).items() if first <= k)))

    @property
    def layers(self) -> tuple[RelaxedLayer, ...]:
        """Every layer, in order."""
        return tuple(self.layer(k) for k in range(self.count))

    def entries(self) -> int:
        """How many fluents, moves and atoms all the layers list together."""
        return sum(self.count - first for table in (self.fluents, self.moves, self.atoms or {})
                   for first in table.values())


def relaxed_layers(translation: Translation, state: Iterable[str] | None,
                   max_layers: int = 100, atoms_of: Collection[str] | None = None,
                   last_rules: int | None = None) -> RelaxedLayers:
    """The relaxed layers from a state given as fluent texts (None: the initial state);
    ``atoms_of``: the relations (names) whose atoms to keep, None for every relation's (an
    empty collection: none); ``last_rules``: how many ground rules the last program tried
    may grow to (None: no bound but the caller's).

    Raises:
        GroundingStopped: the last program grew past ``last_rules``.
    """
    start = time.perf_counter()
    wanted = None if atoms_of is None else set(atoms_of)
    # Atoms of relations the layers do not read need the program in full, if it fits.
    columns, ground, demanded = _ground(translation, wanted is None or bool(wanted - _READ),
                                        last_rules)
    symbolic = ground.symbolic
    true_atoms = {symbol_to_gdl(atom.symbol.arguments[0]): int(atom.literal)
                  for atom in symbolic.by_signature("true", 1)}
    carried: list[int] = []
    carry_to: list[int] = []
    for atom in symbolic.by_signature("next", 1):
        target = true_atoms.get(symbol_to_gdl(atom.symbol.arguments[0]))
        if target is not None:
            carried.append(int(atom.literal))
            carry_to.append(target)
    if state is None:  # init reads static relations only: its atoms are facts
        state = [symbol_to_gdl(atom.symbol.arguments[0])
                 for atom in symbolic.by_signature("init", 1) if atom.is_fact]
    move_atoms = [((symbol_to_gdl(atom.symbol.arguments[0]),
                    symbol_to_gdl(atom.symbol.arguments[1])), int(atom.literal))
                  for atom in symbolic.by_signature("does", 2)]
    game_atoms = [] if wanted is not None and not wanted else \
        list(_atoms(symbolic, relation_names(translation.flats), wanted))
    # The grounder's own copy of the program goes before the layers are counted out.
    del symbolic, ground
    program = Program.of(columns.heads, columns.lengths, columns.literals,
                         max([*carried, *true_atoms.values(), 0]))
    del columns
    found = first_layers(program,
                         np.array([true_atoms[f] for f in state if f in true_atoms],
                                  dtype=np.int64),
                         np.array(carried, dtype=np.int64), np.array(carry_to, dtype=np.int64),
                         max_layers)
    first = found.first

    def reached(pairs: Iterable[tuple[_K, int]]) -> dict[_K, int]:
        return {key: int(first[number]) for key, number in pairs
                if number < len(first) and first[number] != NEVER}

    return RelaxedLayers(reached(true_atoms.items()), reached(move_atoms),
                         None if wanted is not None and not wanted else reached(game_atoms),
                         found.count, found.fixpoint, time.perf_counter() - start, demanded)


def _ground(translation: Translation, everything: bool, last_rules: int | None
            ) -> tuple[RuleColumns, GroundRules, tuple[str, ...]]:
    """The relaxed program ground: in full within a budget (if ``everything`` is wanted),
    else demand-driven (and which relations it demands), the last within ``last_rules``."""
    programs = translation.relaxed_layer_programs
    budgets = [(FULL_RULES, FULL_SECONDS), (FIRST_TRY_RULES, FIRST_TRY_SECONDS)]
    for index, (program, demanded) in enumerate(programs):
        last = index == len(programs) - 1
        if index == 0 and not everything and not last:
            continue
        rules, seconds = (last_rules, None) if last else budgets[index]
        try:
            deadline = None if seconds is None else time.perf_counter() + seconds
            columns, ground = ground_columns(program, max_rules=rules, deadline=deadline)
        except GroundingStopped:
            if last:
                raise
            continue
        if columns.unsupported:
            raise ValueError(f"the relaxed program has {columns.unsupported}")
        return columns, ground, demanded
    raise AssertionError("no relaxed program to ground")


def _atoms(symbolic: clingo.SymbolicAtoms, game: Collection[str], relations: set[str] | None
           ) -> Iterator[tuple[str, int]]:
    """Each atom of the ``game``'s relations (``relations`` only, if given) with its
    program atom; an adorned helper's atoms under the helper's own name (the parts of
    split bodies are no relation of the game)."""
    for predicate, arity, positive in symbolic.signatures:
        if not positive or (predicate.startswith("_") and not predicate.startswith("_r_")):
            continue
        name = relation_name(predicate)
        if is_adorned(name):
            if name.endswith(" magic"):
                continue
            name = adorned_relation(name)
        if name in ("true", "next", "does") or name not in game or \
                (relations is not None and name not in relations):
            continue
        for found in symbolic.by_signature(predicate, arity):
            arguments = found.symbol.arguments
            yield (name if not arguments else
                   "(" + " ".join([name, *map(symbol_to_gdl, arguments)]) + ")"), \
                int(found.literal)


def description_layers(description: GameDescription, fluents: Iterable[str] | None,
                       max_layers: int = 100, atoms_of: Collection[str] | None = None
                       ) -> RelaxedLayers:
    """The relaxed layers of a validated game from a state given as fluent texts (None: the
    initial state), every
    relation kept (goal and terminal too, so that the layers show when a goal value first
    becomes reachable), until nothing new appears or ``max_layers``; ``atoms_of`` as
    :func:`relaxed_layers` has it."""
    return relaxed_layers(layers_translation(description, atoms_of), fluents, max_layers,
                          atoms_of)


def layers_translation(description: GameDescription, atoms_of: Collection[str] | None
                       ) -> Translation:
    """The translation the layers of ``description`` are ground from: its calls unfolded
    only where ``atoms_of`` asks for no relation beyond what the layers read (an unfolded
    relation has no atoms of its own: blindtictactoe's ``line``, ``row`` and ``column``)."""
    unfold = atoms_of is not None and set(atoms_of) <= _READ
    return translate(description, relaxed_everything=True, unfold_calls=unfold)
