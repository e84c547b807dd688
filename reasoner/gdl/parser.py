"""Parse GDL (KIF syntax) text into a :class:`~reasoner.gdl.syntax.GameDescription`.

Accepts GDL as real files write it: any case (names are lower-cased unless
``case_sensitive=True``), CRLF, bare CR and LF line ends, tabs, ``;`` comments, spaces inside
parentheses, function terms nested to any depth, and zero-arity atoms with or without
parentheses (``terminal`` and ``(terminal)`` are the same atom).

Two readings of what old or foreign files write, both unambiguous:

* Inside a term, ``not``, ``or`` and ``distinct`` are names like any other: in
  ``(contains 1 (not 18))`` (how the SAT and QBF games of Dresden's game server list their
  clauses) ``(not 18)`` is a function term, not a negation, as an argument position holds
  terms only. (Validation warns about it, and refuses it when validating strictly.) ``<=``
  is never a term.
* ``base`` with more than one argument and ``input`` with more than two, as old files write
  ``(base cell 1 2)`` and ``(input robot move 1 2)``, declare the fluent ``(cell 1 2)`` and
  the move ``(move 1 2)``: the arguments from the fluent's (or the move's) name on are
  wrapped into one term. This reading is taken for a relation (say ``base/3``) only when
  every one of its atoms, in heads and bodies, has a constant in that place, so that a
  game's own relation of that name and arity that is no declaration keeps its meaning (it is
  then validated as an ordinary relation). Each wrapping is noted in
  :attr:`~reasoner.gdl.syntax.GameDescription.readings`, which validation reports as a
  warning (or refuses, when strict).

Two readings of the same text give the same tree. Well-formed ASCII text (almost every
file, and every instantiated game this project writes) is read in one pass, each list built
into its term, atom, literal or rule as it closes; anything else goes through a tree of
S-expressions first, which is where every syntax error is found and reported with its line
and column. The one pass only leaves text to the other, never reports an error itself.

>>> term = parse_term("(Mark 1 ?X)")
>>> term
Function(name='mark', args=(Constant(name='1'), Variable(name='x')))
>>> print(term)
(mark 1 ?x)
>>> game = parse_game("(role robot) (<= (terminal) (true (Done)))")
>>> [str(rule) for rule in game.rules]
['(role robot)', '(<= terminal (true done))']
"""

from __future__ import annotations

import bisect
import itertools
import re
import sys
from collections.abc import Iterator
from typing import Any, NamedTuple, cast

from reasoner.errors import GdlSyntaxError
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Literal,
    Not,
    Or,
    Position,
    Reading,
    Rule,
    Term,
    Variable,
    literal_variables,
)

__all__ = ["parse_game", "parse_gdl", "parse_term", "parse_terms"]

_CONNECTIVES = frozenset({"<=", "not", "distinct", "or"})
# Where a term stands, only the rule arrow is refused: the other connectives are names there.
_NOT_A_TERM = frozenset({"<="})
# Declarations that old files write flat, and where the declared term starts.
_DECLARATIONS = {"base": 0, "input": 1}
# Deeper nesting is refused with a clear error; the recursion limit below covers it.
MAX_DEPTH = 1024
# Longer names are refused: no real game comes near, and every later stage copies a name
# wherever it occurs (a 1 MB name in a few rules held gigabytes in the translation).
MAX_NAME = 4096
_RECURSION_LIMIT = 20 * MAX_DEPTH
if sys.getrecursionlimit() < _RECURSION_LIMIT:
    # Terms are processed recursively (parse, print, translate); a term MAX_DEPTH deep needs
    # a few frames per level.
    sys.setrecursionlimit(_RECURSION_LIMIT)


# Tokens: ';' comments up to the end of the line (skipped), parentheses, and names (anything
# up to a delimiter). Whitespace between tokens is never matched.
_TOKEN = re.compile(r";[^\r\n]*|[()]|[^ \t\n\r\f\v();]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")
# Halves of UTF-16 surrogate pairs are no characters: Python strings can hold them (from a
# decoder's surrogateescape, say), UTF-8 cannot, and clingo reads UTF-8.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LINE_END = re.compile(r"\r\n|\r|\n")


class _Lines:
    """Offsets to 1-based line and column; CRLF counts once, bare CR and LF each end a line."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in _LINE_END.finditer(text)]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


class _Token(NamedTuple):
    text: str
    pos: Position


class _List(NamedTuple):
    items: tuple[_Token | _List, ...]
    pos: Position


_SExpr = _Token | _List

# A named tuple's own constructor is a Python function: on millions of tokens, building the
# tuples directly is cheaper (ad_game_2x2's instantiated game, 3.6 million tokens: 4.0 s
# to 3.1 s of reading).
_new_tuple = tuple.__new__


def _check_characters(text: str) -> None:
    """Refuse characters that GDL text cannot hold."""
    control = _CONTROL.search(text)
    if control is not None:
        # Control characters (NUL above all) have no place in GDL and would end a C string
        # inside clingo.
        line, column = _Lines(text).position(control.start())
        raise GdlSyntaxError(f"control character U+{ord(control.group()):04X} in the text",
                             line, column, reason="control-character")
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        line, column = _Lines(text).position(surrogate.start())
        raise GdlSyntaxError(f"U+{ord(surrogate.group()):04X} is half of a UTF-16 surrogate "
                             "pair, not a character", line, column, reason="surrogate",
                             symbols=(f"U+{ord(surrogate.group()):04X}",))


def _read_sexprs(text: str) -> list[_SExpr]:
    """Split the text into top-level S-expressions, tracking 1-based line and column."""
    _check_characters(text)
    starts = _Lines(text).starts
    count = len(starts)
    line = 1  # starts[line - 1] <= offset < starts[line]: tokens come in text order
    stack: list[tuple[Position, list[_SExpr]]] = []
    top: list[_SExpr] = []
    items = top
    for match in _TOKEN.finditer(text):
        token = match.group()
        first = token[0]
        if first == ";":
            continue
        offset = match.start()
        while line < count and starts[line] <= offset:
            line += 1
        pos = _new_tuple(Position, (line, offset - starts[line - 1] + 1))
        if first == "(":
            if len(stack) >= MAX_DEPTH:
                raise GdlSyntaxError(f"parentheses nested deeper than {MAX_DEPTH} levels",
                                     pos.line, pos.column, reason="too-deep")
            items = []
            stack.append((pos, items))
        elif first == ")":
            if not stack:
                raise GdlSyntaxError("unexpected ')' with no matching '('", pos.line,
                                     pos.column, reason="unmatched-close")
            start, done = stack.pop()
            items = stack[-1][1] if stack else top
            items.append(_List(tuple(done), start))
        else:
            if len(token) > MAX_NAME:
                raise GdlSyntaxError(f"a name of {len(token):,} characters (at most "
                                     f"{MAX_NAME:,}): {token[:40]}...", pos.line, pos.column,
                                     reason="long-name")
            items.append(_new_tuple(_Token, (token, pos)))
    if stack:
        start = stack[-1][0]
        raise GdlSyntaxError("'(' is never closed", start.line, start.column,
                             reason="unclosed")
    return top


class _Converter:
    def __init__(self, case_sensitive: bool) -> None:
        self._case_sensitive = case_sensitive
        # Set when an atom looks like an old flat declaration such as (base cell 1 2).
        self.flat_declarations = False

    def name(self, token: _Token) -> str:
        return token.text if self._case_sensitive else token.text.lower()

    def _error(self, message: str, pos: Position, reason: str,
               *symbols: str) -> GdlSyntaxError:
        return GdlSyntaxError(message, pos.line, pos.column, reason=reason, symbols=symbols)

    def _head_token(self, node: _List, what: str) -> _Token:
        if not node.items:
            raise self._error(f"empty parentheses where {what} was expected", node.pos,
                              "empty-parentheses")
        first = node.items[0]
        if isinstance(first, _List):
            raise self._error(f"{what} must start with a name, not '('", first.pos, "no-name")
        if first.text.startswith("?"):
            raise self._error(f"{what} cannot start with the variable {first.text}", first.pos,
                              "variable-head", first.text)
        return first

    def term(self, node: _SExpr) -> Term:
        if isinstance(node, _Token):
            text = self.name(node)
            if text.startswith("?"):
                if len(text) == 1:
                    raise self._error("a lone '?' is not a variable name", node.pos, "lone-mark")
                return Variable(text[1:], node.pos)
            if text in _NOT_A_TERM:
                raise self._error(f"'{text}' cannot be used as a term", node.pos, "not-a-term",
                                  text)
            return Constant(text, node.pos)
        head = self._head_token(node, "a function term")
        name = self.name(head)
        if name in _NOT_A_TERM:
            raise self._error(f"'{name}' cannot be used as a function symbol", head.pos,
                              "not-a-function", name)
        if len(node.items) == 1:
            # (f) is the constant f, as zero-arity atoms are the same with or without parens.
            return Constant(name, node.pos)
        return Function(name, tuple(self.term(item) for item in node.items[1:]), node.pos)

    def atom(self, node: _SExpr, what: str = "an atom") -> Atom:
        if isinstance(node, _Token):
            text = self.name(node)
            if text.startswith("?"):
                raise self._error(f"the variable {node.text} cannot stand as {what}", node.pos,
                                  "variable-literal", node.text)
            if text in _CONNECTIVES:
                raise self._error(f"'{text}' cannot stand alone as {what}", node.pos,
                                  "not-a-literal", text)
            return Atom(text, (), node.pos)
        head = self._head_token(node, what)
        name = self.name(head)
        if name in _CONNECTIVES:
            raise self._error(f"'{name}' cannot stand as {what} here", head.pos,
                              "not-a-literal", name)
        start = _DECLARATIONS.get(name)
        if start is not None and len(node.items) > start + 2:
            self.flat_declarations = True
        return Atom(name, tuple(self.term(item) for item in node.items[1:]), node.pos)

    def literal(self, node: _SExpr) -> Literal:
        if isinstance(node, _List) and node.items and isinstance(node.items[0], _Token):
            keyword = self.name(node.items[0])
            args = node.items[1:]
            if keyword == "not":
                if len(args) != 1:
                    raise self._error(f"'not' takes one literal, got {len(args)}", node.pos,
                                      "not-arity")
                return Not(self.literal(args[0]), node.pos)
            if keyword == "distinct":
                if len(args) != 2:
                    raise self._error(f"'distinct' takes two terms, got {len(args)}", node.pos,
                                      "distinct-arity")
                return Distinct(self.term(args[0]), self.term(args[1]), node.pos)
            if keyword == "or":
                if not args:
                    raise self._error("'or' needs at least one literal", node.pos, "empty-or")
                return Or(tuple(self.literal(arg) for arg in args), node.pos)
            if keyword == "<=":
                raise self._error("a rule '(<= ...)' cannot stand inside a rule body", node.pos,
                                  "nested-rule")
        return self.atom(node, "a body literal")

    def rule(self, node: _SExpr) -> Rule:
        if (isinstance(node, _List) and node.items and isinstance(node.items[0], _Token)
                and self.name(node.items[0]) == "<="):
            if len(node.items) < 2:
                raise self._error("'<=' needs a head", node.pos, "no-head")
            head = self.atom(node.items[1], "a rule head")
            body = tuple(self.literal(item) for item in node.items[2:])
            return Rule(head, body, node.pos)
        return Rule(self.atom(node, "a fact"), (), node.pos)


class _Irregular(Exception):
    """Raised by the one-pass reading where the text is not plainly well-formed: the
    two-pass reading then reads it again, and says what is wrong where."""


# What a list is, in the one-pass reading: decided by where it stands and by its first name.
_TOP, _OPEN, _RULE, _ATOM, _LITERAL, _NOT, _OR, _DISTINCT, _TERM = range(9)
_LITERAL_KINDS = {"not": _NOT, "or": _OR, "distinct": _DISTINCT}


def _read_in_one_pass(text: str, case_sensitive: bool) -> tuple[tuple[Rule, ...], bool]:
    """The rules of well-formed ASCII text, and whether an atom looks like an old flat
    declaration, read in one pass: each list becomes its term, atom, literal or rule when
    it closes, with no tree of tokens in between (merrills's instantiated game, 11.4
    million tokens: 11 s instead of 21 s). The tree is the one the two passes of
    :func:`_read_sexprs` and :class:`_Converter` give, positions included.

    Raises:
        _Irregular: anything these do not read as plain GDL (an error above all, which they
            report with its line and column), and text that is not ASCII (whose names
            they lower-case one at a time).
    """
    if not text.isascii():
        raise _Irregular
    source = text if case_sensitive else text.lower()
    starts = _Lines(text).starts
    count = len(starts)
    end = len(text) + 1
    line, line_start, next_start = 1, 0, starts[1] if count > 1 else end
    flat = False
    rules: list[Rule] = []
    # The open lists: what each is, where it starts, its name, and what it holds so far
    # (terms, literals or rules: built bottom-up, so typed loosely).
    stack: list[tuple[int, Position, str | None, list[Any]]] = []
    kind, pos, name, items = _TOP, Position(0, 0), None, cast(list[Any], rules)
    for match in _TOKEN.finditer(source):
        token = match.group()
        first = token[0]
        if first == ";":
            continue
        offset = match.start()
        if offset >= next_start:
            while line < count and starts[line] <= offset:
                line += 1
            line_start = starts[line - 1]
            next_start = starts[line] if line < count else end
        here = _new_tuple(Position, (line, offset - line_start + 1))
        if first == "(":
            if kind == _TOP:
                inner = _OPEN
            elif name is None or len(stack) >= MAX_DEPTH:
                raise _Irregular  # a list where a name must come first; too deep
            elif kind == _RULE:
                inner = _ATOM if not items else _LITERAL
            elif kind in (_NOT, _OR):
                inner = _LITERAL
            else:
                inner = _TERM
            stack.append((kind, pos, name, items))
            kind, pos, name, items = inner, here, None, []
        elif first == ")":
            if not stack or name is None:
                raise _Irregular
            built: Term | Literal | Rule
            if kind == _TERM:
                built = Function(name, tuple(items), pos) if items else Constant(name, pos)
            elif kind == _ATOM:
                start = _DECLARATIONS.get(name)
                if start is not None and len(items) > start + 1:
                    flat = True
                built = Atom(name, tuple(items), pos)
            elif kind == _RULE:
                if not items:
                    raise _Irregular
                built = Rule(items[0], tuple(items[1:]), pos)
            elif kind == _NOT:
                if len(items) != 1:
                    raise _Irregular
                built = Not(items[0], pos)
            elif kind == _DISTINCT:
                if len(items) != 2:
                    raise _Irregular
                built = Distinct(items[0], items[1], pos)
            else:
                if not items:
                    raise _Irregular
                built = Or(tuple(items), pos)
            kind, pos, name, items = stack.pop()
            items.append(Rule(built, (), built.pos) if kind == _TOP and
                         isinstance(built, Atom) else built)
        elif len(token) > MAX_NAME or token == "?":
            raise _Irregular
        elif name is None and kind != _TOP:
            # The list's first token: its name, which settles what the list is.
            if first == "?":
                raise _Irregular
            name = token
            if kind in (_OPEN, _LITERAL):
                if token == "<=":
                    if kind == _LITERAL:
                        raise _Irregular
                    kind = _RULE
                else:
                    kind = _LITERAL_KINDS.get(token, _ATOM) if kind == _LITERAL else _ATOM
                    if kind == _ATOM and token in _CONNECTIVES:
                        raise _Irregular
            elif token in (_CONNECTIVES if kind == _ATOM else _NOT_A_TERM):
                raise _Irregular
        elif kind in (_TERM, _ATOM, _DISTINCT):
            if first == "?":
                items.append(Variable(token[1:], here))
            elif token in _NOT_A_TERM:
                raise _Irregular
            else:
                items.append(Constant(token, here))
        else:  # an atom without parentheses: a fact, a head or a body literal
            if first == "?" or token in _CONNECTIVES:
                raise _Irregular
            atom = Atom(token, (), here)
            items.append(Rule(atom, (), here) if kind == _TOP else atom)
    if stack:
        raise _Irregular
    return tuple(rules), flat


def parse_game(text: str, *, case_sensitive: bool = False) -> GameDescription:
    """Parse a whole game description.

    Args:
        text: The GDL text.
        case_sensitive: Keep names as written instead of lower-casing them (GGP-Base's
            reading; the GDL specification says KIF is case-insensitive).

    Returns:
        The rules in source order.

    Raises:
        GdlSyntaxError: with the line and column of the first problem.
    """
    # The parser allocates millions of small tuples on large games and creates no cycles;
    # the cyclic collector would otherwise run hundreds of times for nothing (2.5x slower).
    with paused_collector():
        _check_characters(text)
        try:
            rules, flat = _read_in_one_pass(text, case_sensitive)
        except _Irregular:
            converter = _Converter(case_sensitive)
            rules = tuple(converter.rule(node) for node in _read_sexprs(text))
            flat = converter.flat_declarations
        game = _read_flat_declarations(rules) if flat else GameDescription(rules)
        return _read_open_percepts(game)


def _atoms(literal: Literal) -> Iterator[Atom]:
    if isinstance(literal, Atom):
        yield literal
    elif isinstance(literal, Not):
        yield from _atoms(literal.literal)
    elif isinstance(literal, Or):
        for disjunct in literal.disjuncts:
            yield from _atoms(disjunct)


def _wrapped(atom: Atom, start: int) -> Atom:
    """``(base cell 1 2)`` as ``(base (cell 1 2))`` (``start``: where the term starts)."""
    name = atom.args[start]
    assert isinstance(name, Constant)
    declared = Function(name.name, atom.args[start + 1:], name.pos)
    return Atom(atom.name, (*atom.args[:start], declared), atom.pos)


def _rewrite_atom(atom: Atom, wrap: dict[tuple[str, int], int]) -> Atom:
    start = wrap.get(atom.signature)
    return atom if start is None else _wrapped(atom, start)


def _rewrite(literal: Literal, wrap: dict[tuple[str, int], int]) -> Literal:
    if isinstance(literal, Atom):
        return _rewrite_atom(literal, wrap)
    if isinstance(literal, Not):
        return Not(_rewrite(literal.literal, wrap), literal.pos)
    if isinstance(literal, Or):
        return Or(tuple(_rewrite(d, wrap) for d in literal.disjuncts), literal.pos)
    return literal


def _read_open_percepts(game: GameDescription) -> GameDescription:
    """GDL-II files of Dresden's game controller write ``(<= (sees ?p (control ?x)) ...)``
    with ``?p`` in no body literal: every role perceives it (the controller asks ``sees``
    for one role at a time, which binds ``?p``). Such a rule is read with ``(role ?p)``
    added to its body, with a note."""
    changed: list[Rule] = []
    readings = list(game.readings)
    touched = False
    for rule in game.rules:
        head = rule.head
        if head.name == "sees" and head.arity == 2 and isinstance(head.args[0], Variable):
            name = head.args[0].name
            bound = any(isinstance(literal, Atom)
                        and any(v.name == name for v in literal_variables(literal))
                        for literal in rule.body)
            if not bound:
                readings.append(Reading(
                    f"'sees' for {head.args[0]}, which no literal of the body binds, read as "
                    "a percept of every role", rule))
                role = Atom("role", (Variable(name, head.args[0].pos),), head.pos)
                changed.append(Rule(head, (*rule.body, role), rule.pos))
                touched = True
                continue
        changed.append(rule)
    if not touched:
        return game
    return GameDescription(tuple(changed), tuple(readings))


def _read_flat_declarations(rules: tuple[Rule, ...]) -> GameDescription:
    """Read old flat ``base`` and ``input`` atoms as declarations of one term each, where
    every atom of the relation allows it (see the module docstring)."""
    found: dict[tuple[str, int], list[tuple[Atom, Rule]]] = {}
    for rule in rules:
        for atom in itertools.chain([rule.head], *map(_atoms, rule.body)):
            start = _DECLARATIONS.get(atom.name)
            if start is not None and atom.arity > start + 1:
                found.setdefault(atom.signature, []).append((atom, rule))
    wrap: dict[tuple[str, int], int] = {}
    readings: list[Reading] = []
    for signature, uses in found.items():
        start = _DECLARATIONS[signature[0]]
        if not all(isinstance(atom.args[start], Constant) for atom, _ in uses):
            continue
        wrap[signature] = start
        atom, rule = uses[0]
        what = "fluent" if signature[0] == "base" else "move"
        readings.append(Reading(
            f"'{signature[0]}' with {signature[1]} arguments (an old file's flat "
            f"declaration) read as declaring one {what}: {atom} as {_wrapped(atom, start)}",
            rule))
    if not wrap:
        return GameDescription(rules)
    return GameDescription(
        tuple(Rule(_rewrite_atom(rule.head, wrap),
                   tuple(_rewrite(literal, wrap) for literal in rule.body), rule.pos)
              for rule in rules),
        tuple(readings))


def parse_gdl(text: str, *, case_sensitive: bool = False) -> GameDescription:
    """Parse a game's rules, GDL or GDL-II (:func:`parse_game`).

    Raises:
        GdlSyntaxError: malformed text, with line and column.
    """
    return parse_game(text, case_sensitive=case_sensitive)


def parse_terms(text: str, *, case_sensitive: bool = False) -> tuple[Term, ...]:
    """Parse a sequence of terms separated by white space, such as one step's moves
    ``(mark 1 1) noop``."""
    converter = _Converter(case_sensitive)
    return tuple(converter.term(node) for node in _read_sexprs(text))


def parse_term(text: str, *, case_sensitive: bool = False) -> Term:
    """Parse a single ground or non-ground term, such as a move ``(mark 1 1)``."""
    nodes = _read_sexprs(text)
    if len(nodes) != 1:
        raise GdlSyntaxError(f"expected exactly one term, found {len(nodes)}", 1, 1,
                             reason="not-one-term")
    return _Converter(case_sensitive).term(nodes[0])
