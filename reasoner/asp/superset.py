"""Relaxed reachability by grounding: the superset of fluents, moves and auxiliary atoms."""

from __future__ import annotations

import time
from dataclasses import dataclass

import clingo

from reasoner.asp.translate import Translation

__all__ = ["Superset", "compute_superset", "new_control"]


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


def compute_superset(translation: Translation) -> Superset:
    """Ground the relaxed program; the grounder computes the fixpoint itself."""
    start = time.perf_counter()
    ctl = new_control()
    ctl.add("base", [], translation.relaxed_program)
    ctl.ground([("base", [])])
    atoms = ctl.symbolic_atoms
    fluents = sorted(atom.symbol.arguments[0] for atom in atoms.by_signature("true", 1))
    moves = sorted(
        (atom.symbol.arguments[0], atom.symbol.arguments[1])
        for atom in atoms.by_signature("does", 2)
    )
    count = len(atoms)
    return Superset(tuple(fluents), tuple(moves), count, time.perf_counter() - start)
