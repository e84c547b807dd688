"""clingo symbols back to GDL text (the inverse of :mod:`reasoner.asp.encoding`)."""

from __future__ import annotations

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


def atom_to_gdl(atom: clingo.Symbol) -> str:
    """GDL text of a ground atom of the translated program, e.g. ``(legal xplayer noop)``."""
    name = relation_name(str(atom.name))
    if not atom.arguments:
        return name
    return "(" + " ".join([name, *(symbol_to_gdl(a) for a in atom.arguments)]) + ")"
