"""clingo symbols back to GDL text (the inverse of :mod:`reasoner.asp.encoding`)."""

from __future__ import annotations

from collections.abc import Callable

import clingo

from reasoner.asp.encoding import relation_name

__all__ = ["atom_to_gdl", "symbol_to_gdl"]


def _name(symbol: clingo.Symbol) -> str:
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return str(symbol.number)
    if kind == clingo.SymbolType.String:
        return str(symbol.string)
    return str(symbol.name)


def symbol_to_gdl(symbol: clingo.Symbol) -> str:
    """GDL text of a term symbol: lower case as read, single spaces, e.g. ``(cell 1 1 b)``."""
    if symbol.type != clingo.SymbolType.Function:
        return _name(symbol)
    args = symbol.arguments
    if not symbol.name:
        # A tuple stands for a compound term whose name is not a plain identifier.
        return "(" + " ".join([_name(args[0]), *(symbol_to_gdl(a) for a in args[1:])]) + ")"
    if not args:
        return str(symbol.name)
    return "(" + " ".join([str(symbol.name), *(symbol_to_gdl(a) for a in args)]) + ")"


def atom_to_gdl(atom: clingo.Symbol,
                term: Callable[[clingo.Symbol], str] = symbol_to_gdl) -> str:
    """GDL text of a ground atom of the translated program, e.g. ``(legal xplayer noop)``
    (``term`` converts the arguments: a caching version of :func:`symbol_to_gdl`, say)."""
    name = relation_name(str(atom.name))
    arguments = atom.arguments
    if not arguments:
        return name
    return "(" + " ".join([name, *(term(a) for a in arguments)]) + ")"
