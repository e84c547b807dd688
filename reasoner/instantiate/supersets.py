"""The supersets of a game: every fluent, move and auxiliary atom that could ever hold.

Relaxed reachability (docs/semantics/instantiation.md) is first ground in full by clingo,
within a budget of ground rules and seconds: for almost every game that is the answer, every
atom of every relation. Past the budget (chess: 11 million atoms, 8.4 million of them of one
relation that the game only ever asks with all its arguments bound), the relaxed rules are
evaluated by compiled code instead (:mod:`reasoner.compiled.relaxed`) over the fluent and move
tables the engine shares: a relation that is called with bound arguments then holds the
instances the rules asked for, and the answer lists those relations as ``demanded``.
"""

from __future__ import annotations

import time
from typing import Literal

from reasoner.asp.superset import (
    AtomSuperset,
    GroundingBudget,
    compute_atom_superset,
    compute_superset,
)
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import translate
from reasoner.compiled import build
from reasoner.compiled.relaxed import demanded_atoms
from reasoner.errors import ResourceLimitError
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import GameDescription
from reasoner.gdl.validation import validate

__all__ = ["FULL_RULES", "FULL_SECONDS", "Method", "description_supersets", "supersets"]

# What the full relaxed grounding may grow to before the demanded atoms are computed instead.
FULL_RULES = 1_000_000
FULL_SECONDS = 10.0
# What the compiled evaluation's tables may hold, and how long it may take: first with the
# rules as written, whose calls pass their bindings on (chess's threats, asked for one move
# at a time); past the first bound, with wide bodies split (racer's speeds, a join of every
# position and speed that the relaxed state holds at once).
DEMANDED_MEMORY_MIB = 3072
DEMANDED_SECONDS = (45.0, 300.0)
# Where the first evaluation ran out of memory, the split one gets this much: splitting
# is for joins that take too long; a game whose tables outgrow 3 GiB as written (every
# list of cells, every combination of prerequisites) outgrows them split too, and this
# keeps its refusal within the grounding bound (120 s).
SPLIT_AFTER_MEMORY_MIB = 1024

# "auto": in full within the budget, else demanded; "full": in full, however long it takes;
# "demanded": the compiled evaluation straight away.
Method = Literal["auto", "full", "demanded"]


def supersets(text: str, *, case_sensitive: bool = False, strict: bool = False,
              method: Method = "auto") -> AtomSuperset:
    """Every fluent, move and auxiliary atom of a GDL game that could ever hold (negative
    literals dropped, ``distinct`` kept, every legal move possible and every ``next``
    fluent a possible fluent until nothing changes: docs/semantics/instantiation.md, after
    Kissmann and Edelkamp). Whatever can hold in the real game is in it, which may hold
    more (every king move, attacked or not). See the module documentation for ``method``.

    Raises:
        GdlError: the text is not valid GDL.
        ResourceLimitError: the compiled evaluation ran past its bounds.
    """
    description = parse_gdl(text, case_sensitive=case_sensitive)
    validate(description, strict=strict)
    return description_supersets(description, method=method)


def description_supersets(description: GameDescription, *,
                          method: Method = "auto") -> AtomSuperset:
    """The supersets of an already validated game (see :func:`supersets`).

    Raises:
        CompilerMissing: ``method`` is "demanded" and there is no C compiler.
    """
    start = time.perf_counter()
    if method != "demanded":
        # Without a C compiler there is nothing past the budget: in full, however long.
        budget = GroundingBudget(FULL_RULES, FULL_SECONDS) \
            if method == "auto" and build.can_compile() else None
        # No unfolding: every auxiliary relation of the source keeps its atoms.
        found = compute_atom_superset(
            translate(description, unfold_calls=False, relaxed_everything=True), budget)
        if found is not None:
            return found
    tables = compute_superset(translate(description))
    fluents = [symbol_to_gdl(fluent) for fluent in tables.fluents]
    moves = [(symbol_to_gdl(role), symbol_to_gdl(move)) for role, move in tables.moves]
    try:
        demanded = demanded_atoms(description, fluents, moves, seconds=DEMANDED_SECONDS[0],
                                  memory_mib=DEMANDED_MEMORY_MIB)
    except ResourceLimitError as refused:
        after_memory = refused.bound == "memory"
        try:
            demanded = demanded_atoms(
                description, fluents, moves, seconds=DEMANDED_SECONDS[1], split=True,
                memory_mib=SPLIT_AFTER_MEMORY_MIB if after_memory else DEMANDED_MEMORY_MIB)
        except ResourceLimitError:
            if after_memory:
                raise refused from None  # what the rules as written outgrew
            raise
    atoms = dict(demanded.atoms)
    atoms[("true", 1)] = tuple(sorted(f"(true {fluent})" for fluent in fluents))
    atoms[("does", 2)] = tuple(sorted(f"(does {role} {move})" for role, move in moves))
    return AtomSuperset(atoms=dict(sorted(atoms.items())), fluents=tuple(sorted(fluents)),
                        moves=tuple(sorted(moves)), seconds=time.perf_counter() - start,
                        demanded=demanded.demanded)

