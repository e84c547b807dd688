"""clingo symbols back to GDL text (the inverse of :mod:`reasoner.asp.encoding`), and a
ground GDL term to its clingo symbol."""

from __future__ import annotations

import re
from collections.abc import Callable

import clingo

from reasoner.asp.encoding import relation_name, term_text
from reasoner.gdl.syntax import Term

__all__ = ["SymbolTree", "atom_to_gdl", "plain_atom_to_gdl", "symbol_from_tree", "symbol_to_gdl",
           "symbol_tree", "term_symbol"]

# A clingo symbol as plain data that survives a pickle into another process (a symbol itself
# pickles as a pointer into its own process's symbol table): a number is an int, a string
# ("", text), a function (a tuple has the name "") (name, positive, arguments...).
SymbolTree = int | tuple[object, ...]


def _name(symbol: clingo.Symbol) -> str:
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return str(symbol.number)
    if kind == clingo.SymbolType.String:
        return str(symbol.string)
    return str(symbol.name)


def term_symbol(term: Term) -> clingo.Symbol:
    """The clingo symbol of a ground GDL term, as the translation writes it."""
    return clingo.parse_term(term_text(term))


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


# clingo's text of a term made of plain names, numbers and functions of them alone: no
# string, negative number, tuple or special symbol (a tuple opens with "(" after "(" or ",").
_PLAIN_TEXT = re.compile(r"[A-Za-z0-9_'(),]+")
_FUNCTION_OPENS = re.compile(r"([A-Za-z0-9_']+)\(")


def plain_atom_to_gdl(text: str, relation: Callable[[str], str]) -> str | None:
    """:func:`atom_to_gdl`'s text of a ground atom, made from clingo's text of it
    (``str(symbol)``) where the atom holds plain names, numbers and functions alone:
    ``cell(1,move(a,b))`` is ``(cell 1 (move a b))``. ``relation`` gives the GDL name of
    the atom's predicate. None for any other atom (strings, tuples, negative numbers),
    which :func:`atom_to_gdl` converts. One call into clingo per atom, where walking the
    symbol costs one per term and the arguments (alexChess's 1.5 million atoms: 15 s)."""
    if _PLAIN_TEXT.fullmatch(text) is None or "((" in text or ",(" in text:
        return None
    opens = text.find("(")
    if opens < 0:
        return relation(text)
    arguments = _FUNCTION_OPENS.sub(r"(\1 ", text[opens + 1:-1]).replace(",", " ")
    return "(" + relation(text[:opens]) + " " + arguments + ")"


def symbol_tree(symbol: clingo.Symbol) -> SymbolTree:
    """``symbol`` as plain data (see :data:`SymbolTree`)."""
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return int(symbol.number)
    if kind == clingo.SymbolType.String:
        return ("", str(symbol.string))
    if kind == clingo.SymbolType.Function:
        return (str(symbol.name), bool(symbol.positive),
                *(symbol_tree(argument) for argument in symbol.arguments))
    raise ValueError(f"no plain form for the symbol {symbol}")


def symbol_from_tree(tree: SymbolTree) -> clingo.Symbol:
    """The symbol of :func:`symbol_tree`'s data, built without parsing any text."""
    if isinstance(tree, int):
        return clingo.Number(tree)
    name = tree[0]
    assert isinstance(name, str)
    if not name and len(tree) == 2 and isinstance(tree[1], str):
        return clingo.String(tree[1])
    positive = tree[1]
    assert isinstance(positive, bool)
    return clingo.Function(name, [symbol_from_tree(a) for a in tree[2:]],  # type: ignore[arg-type]
                           positive)
