"""Relaxed-reachability supersets of a game (docs/semantics/instantiation.md, after Kissmann &
Edelkamp).

Negative literals are dropped (``distinct`` is kept), every legal move becomes possible and
every ``next`` fluent becomes a possible fluent, until nothing changes; clingo's grounder
computes that fixpoint. Whatever can hold in the real game is in the result, which may hold
more (every king move, attacked or not).
"""

from __future__ import annotations

from reasoner.asp.superset import AtomSuperset, compute_atom_superset
from reasoner.asp.translate import translate
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import GameDescription
from reasoner.gdl.validation import validate

__all__ = ["AtomSuperset", "description_supersets", "supersets"]


def supersets(text: str, *, case_sensitive: bool = False, strict: bool = False) -> AtomSuperset:
    """Every fluent, move and auxiliary atom of a GDL game that could ever hold.

    Raises:
        GdlError: the text is not valid GDL.
    """
    description = parse_gdl(text, case_sensitive=case_sensitive)
    validate(description, strict=strict)
    return description_supersets(description)


def description_supersets(description: GameDescription) -> AtomSuperset:
    """The supersets of an already validated game."""
    # No unfolding: every auxiliary relation of the source keeps its atoms.
    return compute_atom_superset(translate(description, unfold_calls=False,
                                           relaxed_everything=True))
