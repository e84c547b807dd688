"""Relaxed reachability by grounding: the superset of fluents, moves and auxiliary atoms."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import clingo

from reasoner.asp.encoding import relation_name
from reasoner.asp.symbols import (
    SymbolTree,
    atom_to_gdl,
    symbol_from_tree,
    symbol_to_gdl,
    symbol_tree,
)
from reasoner.asp.translate import Translation
from reasoner.asp.variable_free import counted_superset

__all__ = [
    "AtomSuperset",
    "GroundingBudget",
    "OverBudget",
    "PortableSuperset",
    "Superset",
    "compute_atom_superset",
    "compute_superset",
    "ground_within",
    "new_control",
]


def _quiet(code: clingo.MessageCode, message: str) -> None:
    # clingo's informational messages (atoms without rules and the like) are expected for
    # GDL programs; errors surface as exceptions.
    del code, message


def new_control(arguments: list[str] | None = None) -> clingo.Control:
    """A clingo control that does not print to stderr."""
    return clingo.Control(arguments or [], logger=_quiet, message_limit=0)


@dataclass(frozen=True)
class Superset:
    """Every ground atom that relaxed reachability admits, as clingo symbols."""

    fluents: tuple[clingo.Symbol, ...]
    moves: tuple[tuple[clingo.Symbol, clingo.Symbol], ...]
    atom_count: int
    seconds: float

    def role_moves(self, role_index: dict[str, int]
                   ) -> list[tuple[int, clingo.Symbol, clingo.Symbol]]:
        """The move table every backend shares: (role number, role, move) of each move of
        a role in ``role_index`` (ASP text of a role -> its number), in superset order."""
        return [(role_index[str(r)], r, m) for r, m in self.moves if str(r) in role_index]

    def portable(self) -> PortableSuperset:
        """This superset as plain data, to send from a bounded child to its parent."""
        return PortableSuperset(tuple(symbol_tree(f) for f in self.fluents),
                                tuple((symbol_tree(r), symbol_tree(m)) for r, m in self.moves),
                                self.atom_count, self.seconds)


@dataclass(frozen=True)
class PortableSuperset:
    """A :class:`Superset` as plain data (see :data:`reasoner.asp.symbols.SymbolTree`)."""

    fluents: tuple[SymbolTree, ...]
    moves: tuple[tuple[SymbolTree, SymbolTree], ...]
    atom_count: int
    seconds: float

    def superset(self) -> Superset:
        """The superset again, in its order."""
        return Superset(tuple(symbol_from_tree(f) for f in self.fluents),
                        tuple((symbol_from_tree(r), symbol_from_tree(m))
                              for r, m in self.moves),
                        self.atom_count, self.seconds)


# What the first demand-driven relaxed program may grow to before the next one is tried.
FIRST_TRY_RULES = 400_000
FIRST_TRY_SECONDS = 4.0


class GroundingBudget(clingo.Observer):
    """Stops a grounding past a rule count or a deadline (by raising from the callback)."""

    def __init__(self, max_rules: int, seconds: float) -> None:
        self.rules = 0
        self.stopped = False
        self.max_rules = max_rules
        self.seconds = seconds
        self.deadline = time.perf_counter() + seconds

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        self.rules += 1
        if self.rules > self.max_rules or (
                self.rules & 0x3F == 0 and time.perf_counter() > self.deadline):
            self.stopped = True
            raise OverBudget


class OverBudget(Exception):
    """Raised inside the grounder when a tried program grows past its budget."""


def ground_within(ctl: clingo.Control, budget: GroundingBudget) -> bool:
    """Ground ``ctl``'s base part under ``budget``: True if it finished, False if the
    budget stopped it (any other error is raised)."""
    ctl.register_observer(budget)
    try:
        ctl.ground([("base", [])])
    except (OverBudget, RuntimeError):  # clingo may rethrow it as its own error
        if not budget.stopped:
            raise
        return False
    return True


def _ground_relaxed(translation: Translation) -> clingo.Control:
    """A control with the superset ground: the demand-driven relaxed programs in turn (all
    but the last within a budget), or the plain relaxed program."""
    programs = translation.superset_programs or (translation.relaxed_program,)
    for index, program in enumerate(programs):
        ctl = new_control()
        ctl.add("base", [], program)
        if index < len(programs) - 1:
            if not ground_within(ctl, GroundingBudget(FIRST_TRY_RULES, FIRST_TRY_SECONDS)):
                continue
        else:
            ctl.ground([("base", [])])
        return ctl
    raise AssertionError("no relaxed program to ground")


def compute_superset(translation: Translation) -> Superset:
    """Ground the relaxed program; the grounder computes the fixpoint itself (a game
    without variables is counted out without clingo: see
    :mod:`reasoner.asp.variable_free`)."""
    start = time.perf_counter()
    if translation.ground:
        # Already ground: the rules are counted out without clingo where they can be.
        found = counted_superset(translation.relaxed_flats)
        if found is not None:
            fluents, moves, count = found
            return Superset(tuple(fluents), tuple(moves), count, time.perf_counter() - start)
    ctl = _ground_relaxed(translation)
    atoms = ctl.symbolic_atoms
    fluents = sorted(atom.symbol.arguments[0] for atom in atoms.by_signature("true", 1))
    moves = sorted(
        (atom.symbol.arguments[0], atom.symbol.arguments[1])
        for atom in atoms.by_signature("does", 2)
    )
    count = len(atoms)
    return Superset(tuple(fluents), tuple(moves), count, time.perf_counter() - start)


@dataclass(frozen=True)
class AtomSuperset:
    """Every ground atom of every relation that relaxed reachability admits, as GDL text,
    grouped by relation signature, with the time the grounding took."""

    atoms: dict[tuple[str, int], tuple[str, ...]]
    fluents: tuple[str, ...]
    moves: tuple[tuple[str, str], ...]
    seconds: float
    # The relations ("name/arity") whose atoms are only the instances that the rules ask
    # for, where the full grounding was over its budget (see reasoner.instantiate.supersets);
    # empty: every relation in full.
    demanded: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return sum(len(group) for group in self.atoms.values())


def compute_atom_superset(translation: Translation,
                          budget: GroundingBudget | None = None) -> AtomSuperset | None:
    """Ground a relaxed program (best one made with ``relaxed_everything=True``) and read
    every atom back as GDL; None where ``budget`` stopped the grounding."""
    start = time.perf_counter()
    ctl = new_control()
    ctl.add("base", [], translation.relaxed_program)
    if budget is None:
        ctl.ground([("base", [])])
    elif not ground_within(ctl, budget):
        return None
    groups: dict[tuple[str, int], list[str]] = {}
    fluents: list[str] = []
    moves: list[tuple[str, str]] = []
    for atom in ctl.symbolic_atoms:
        symbol = atom.symbol
        if symbol.type != clingo.SymbolType.Function or symbol.name.startswith("_n_"):
            continue
        signature = (relation_name(str(symbol.name)), len(symbol.arguments))
        groups.setdefault(signature, []).append(atom_to_gdl(symbol))
        if signature == ("true", 1):
            fluents.append(symbol_to_gdl(symbol.arguments[0]))
        elif signature == ("does", 2):
            moves.append((symbol_to_gdl(symbol.arguments[0]),
                          symbol_to_gdl(symbol.arguments[1])))
    return AtomSuperset(
        atoms={sig: tuple(sorted(texts)) for sig, texts in sorted(groups.items())},
        fluents=tuple(sorted(fluents)), moves=tuple(sorted(moves)),
        seconds=time.perf_counter() - start)
