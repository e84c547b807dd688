"""clingo's ground program, read rule by rule: the one ground-program observer.

A program is grounded with an observer that records every ground rule as clingo hands it
over: ``(head, body)``, the head a sequence of program atoms (positive integers), the body a
sequence of program literals (an atom, or its negation as a negative integer). What a
propositional reading cannot hold (choice rules, integrity constraints, weight rules) is
noted, not refused: the caller decides. Grounding stops once it has made more rules than
allowed, or once it runs past a deadline; the stop is a :class:`GroundingStopped` that says
which bound it was (decided on the observer's data, not on clingo's message).

Atoms are found by symbol afterwards (:meth:`GroundRules.atom`), from clingo's symbolic
atoms: the observer's atom numbers are the same, and asking for the few symbols a caller
needs is far cheaper than hearing of every atom the grounder makes.

The propositional network (:mod:`reasoner.propnet.network`) and the fuzzy evaluation's own
grounding of goal and terminal (:mod:`reasoner.heuristics.fuzzy.orders`) read ground
programs through this module; neither talks to clingo itself.
"""

from __future__ import annotations

import math
import time
from array import array
from collections.abc import Iterator, Sequence
from typing import Literal, TypeAlias

import clingo

from reasoner.asp.superset import new_control

__all__ = ["ABSENT", "FACT", "GroundRules", "GroundingStopped", "RuleColumns", "RuleRecords",
           "Symbol", "function", "ground_columns", "ground_rules", "number", "parse_symbol"]

Symbol: TypeAlias = clingo.Symbol

# What :meth:`GroundRules.literal` gives for an atom the grounder decided: a fact, or an
# atom it never derived (no rule can make it true). Every other atom is a positive number.
FACT = -1
ABSENT = -2

Bound = Literal["size", "time"]
RuleRecord: TypeAlias = tuple[Sequence[int], Sequence[int]]


class GroundingStopped(Exception):
    """Grounding was stopped by a bound: ``bound`` is "size" (more than ``max_rules``
    ground rules, or of what ``counted`` names) or "time" (past the deadline)."""

    def __init__(self, bound: Bound, max_rules: float, counted: str = "rules") -> None:
        if bound == "size":
            message = f"the ground program has more than {max_rules:,.0f} {counted}"
        else:
            message = "grounding ran past its deadline"
        super().__init__(message)
        self.bound: Bound = bound
        self.max_rules = max_rules


class _Stop(Exception):
    """Ends grounding from inside the observer (clingo raises it again, or an error of its
    own, from ``ground``); what stopped it is the observer's ``stopped``."""


class RuleRecords:
    """Ground rules kept compactly: one array of 32-bit integers, each rule its head's
    length, its head atoms, its body's length and its body literals. Millions of rules
    take a few bytes a literal here, where a Python list for each head and body took
    about 300 bytes a rule (amazons' narrow program: 1.9 million rules, 37 MB against
    580 MB). Read back rule by rule, as ``(head, body)`` tuples."""

    __slots__ = ("_count", "_data", "_heads", "bodied_heads")

    def __init__(self) -> None:
        self._data = array("i")
        self._count = 0
        # The head atoms of the rules that have a body (the rules a GDL text of the
        # program writes, one per head atom), and how many.
        self._heads = array("i")
        self.bodied_heads = 0

    def append(self, head: Sequence[int], body: Sequence[int]) -> None:
        data = self._data
        data.append(len(head))
        data.extend(head)
        data.append(len(body))
        data.extend(body)
        self._count += 1
        if body:
            self.bodied_heads += len(head)
            self._heads.extend(head)

    @property
    def bodied_head_atoms(self) -> array[int]:
        """The head atoms of the rules with a body, one entry per rule and head atom."""
        return self._heads

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[RuleRecord]:
        data = self._data
        at = 0
        end = len(data)
        while at < end:
            heads = data[at]
            head = tuple(data[at + 1:at + 1 + heads])
            at += 1 + heads
            bodies = data[at]
            body = tuple(data[at + 1:at + 1 + bodies])
            at += 1 + bodies
            yield head, body


class _Bounded(clingo.Observer):
    """An observer that stops grounding past a rule count or a deadline."""

    def __init__(self, max_rules: float, deadline: float) -> None:
        self.unsupported = ""
        self.stopped: GroundingStopped | None = None
        self._max_rules = max_rules
        self._deadline = deadline

    def _check(self, size: int, count: int) -> None:
        """Stop past the bounds: ``size`` against the rule count, the deadline every 4,096
        rules (``count``)."""
        if size > self._max_rules:
            self._stop("size")
        if count & 0xFFF == 0 and time.perf_counter() > self._deadline:
            self._stop("time")

    def weight_rule(self, choice: bool, head: Sequence[int], lower_bound: int,
                    body: Sequence[tuple[int, int]]) -> None:
        self.unsupported = "weight rules"

    def _stop(self, bound: Bound, limit: float | None = None, counted: str = "rules") -> None:
        """Stop, past ``limit`` of what ``counted`` names (the rule bound unless given)."""
        self.stopped = GroundingStopped(bound, self._max_rules if limit is None else limit,
                                        counted)
        raise _Stop


class _Observer(_Bounded):
    """Keeps the ground rules while clingo grounds, within a rule count and a deadline."""

    def __init__(self, max_rules: float, deadline: float, bodied: bool = False,
                 max_records: float = math.inf) -> None:
        super().__init__(max_rules, deadline)
        self.rules = RuleRecords()
        self._bodied = bodied
        self._max_records = max_records

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice or not head:
            self.unsupported = "choice rules or constraints"
        rules = self.rules
        rules.append(head, body)
        count = len(rules)
        self._check(rules.bodied_heads if self._bodied else count, count)
        if count > self._max_records:
            self._stop("size", self._max_records, "rules and facts")


class _NamingObserver(_Observer):
    """An observer that also hears of every output atom's symbols (clingo calls
    ``output_atom`` only on observers that define it: it costs a call per atom)."""

    def __init__(self, max_rules: float, deadline: float, bodied: bool = False,
                 max_records: float = math.inf) -> None:
        super().__init__(max_rules, deadline, bodied, max_records)
        self.names: dict[int, list[Symbol]] = {}

    def output_atom(self, symbol: Symbol, atom: int) -> None:
        self.names.setdefault(atom, []).append(symbol)


class GroundRules:
    """A grounded program: its rules as the observer recorded them, and its atoms by symbol.

    Attributes:
        rules: Every ground rule, ``(head atoms, body literals)``, in the grounder's order
            (:class:`RuleRecords`: iterated, not indexed).
        unsupported: What the program has that a propositional reading cannot hold
            ("choice rules or constraints" or "weight rules", the last one seen), or "".
        names: Per program atom, the symbols clingo output for it (several when the
            grounder merged equivalent atoms; atom 0: the facts), when asked for.
    """

    def __init__(self, control: clingo.Control, observer: _Observer) -> None:
        self._control = control  # its symbolic atoms live as long as it does
        self._atoms = control.symbolic_atoms
        self.rules: RuleRecords = observer.rules
        self.unsupported: str = observer.unsupported
        self.names: dict[int, list[Symbol]] = (
            observer.names if isinstance(observer, _NamingObserver) else {})

    def literal(self, symbol: Symbol) -> int:
        """The program atom of ``symbol``; :data:`FACT` or :data:`ABSENT` when the grounder
        decided it."""
        found = self._atoms[symbol]
        if found is None:
            return ABSENT
        return FACT if found.is_fact else int(found.literal)

    def atom(self, name: str, *arguments: Symbol) -> int:
        """:meth:`literal` of the atom ``name(arguments)``."""
        return self.literal(clingo.Function(name, arguments))

    def atoms(self, name: str, arity: int) -> Iterator[tuple[tuple[Symbol, ...], int]]:
        """The atoms of relation ``name/arity`` the grounder kept: their arguments and
        program atom (:data:`FACT` for a fact)."""
        for found in self._atoms.by_signature(name, arity):
            yield (tuple(found.symbol.arguments),
                   FACT if found.is_fact else int(found.literal))

    def atom_texts(self) -> dict[int, str]:
        """Every program atom's symbol as clingo writes it (for messages)."""
        return {int(found.literal): str(found.symbol) for found in self._atoms}

    @property
    def symbolic(self) -> clingo.SymbolicAtoms:
        """clingo's symbolic atoms of the program (a fact has its program atom too)."""
        return self._atoms

    @property
    def atom_count(self) -> int:
        """How many atoms the grounder made."""
        return len(self._atoms)


def ground_rules(program: str, *, max_rules: int | None = None,
                 deadline: float | None = None, names: bool = False,
                 bodied: bool = False, max_records: int | None = None) -> GroundRules:
    """Ground ``program`` (one ``base`` part) and record its rules.

    Args:
        max_rules: Stop once the ground program has more rules than this; None: no bound.
        deadline: A :func:`time.perf_counter` time to stop at (checked every 4,096 rules);
            None: no deadline.
        names: Record every output atom's symbols (:attr:`GroundRules.names`).
        bodied: ``max_rules`` counts only the head atoms of rules with a body, not facts.
        max_records: Stop once the ground program has more rules than this, facts
            included (with ``bodied``, a second bound); None: no bound.

    Raises:
        GroundingStopped: a bound was hit.
        RuntimeError: clingo refused the program.
    """
    observer = (_NamingObserver if names else _Observer)(
        math.inf if max_rules is None else max_rules,
        math.inf if deadline is None else deadline, bodied,
        math.inf if max_records is None else max_records)
    return GroundRules(_grounded(program, observer), observer)


def _grounded(program: str, observer: _Bounded) -> clingo.Control:
    """A control with ``program`` (one ``base`` part) ground, ``observer`` hearing it.

    Raises:
        GroundingStopped: the observer's bound was hit.
        RuntimeError: clingo refused the program.
    """
    control = new_control()
    control.register_observer(observer)
    control.add("base", [], program)
    try:
        control.ground([("base", [])])
    except (RuntimeError, _Stop):
        # Whether a bound stopped grounding is the observer's to say, not the exception's
        # (clingo re-raises what the observer raised, or reports a RuntimeError).
        if observer.stopped is not None:
            raise observer.stopped from None
        raise
    return control


class RuleColumns(_Bounded):
    """A normal program's ground rules as three columns, for arrays to read at once: each
    rule's head atom (``heads``), its body's length (``lengths``) and all body literals one
    rule after the other (``literals``). A rule with no head atom or several, or a choice,
    is noted in ``unsupported`` and not kept. Also the observer that records them, within
    a rule count and a deadline."""

    def __init__(self, max_rules: float, deadline: float) -> None:
        super().__init__(max_rules, deadline)
        self.heads = array("i")
        self.lengths = array("i")
        self.literals = array("i")

    def rule(self, choice: bool, head: Sequence[int], body: Sequence[int]) -> None:
        if choice or len(head) != 1:
            self.unsupported = "choice rules, constraints or disjunctions"
            return
        heads = self.heads
        heads.append(head[0])
        self.lengths.append(len(body))
        self.literals.extend(body)
        count = len(heads)
        self._check(count, count)

    def __len__(self) -> int:
        return len(self.heads)


def ground_columns(program: str, *, max_rules: int | None = None,
                   deadline: float | None = None) -> tuple[RuleColumns, GroundRules]:
    """Ground ``program`` (one ``base`` part) and record its rules as
    :class:`RuleColumns`; the :class:`GroundRules` beside them find atoms by symbol (its
    own ``rules`` are empty). Bounds and errors as :func:`ground_rules`."""
    columns = RuleColumns(math.inf if max_rules is None else max_rules,
                          math.inf if deadline is None else deadline)
    return columns, GroundRules(_grounded(program, columns), _Observer(math.inf, math.inf))


def function(name: str, arguments: Sequence[Symbol] = ()) -> Symbol:
    """The symbol ``name(arguments)``."""
    return clingo.Function(name, list(arguments))


def parse_symbol(text: str) -> Symbol:
    """The symbol of a ground term in ASP syntax, e.g. ``cell(1,1,b)``."""
    return clingo.parse_term(text)


def number(symbol: Symbol) -> int | None:
    """The integer a symbol is, or None for any other symbol."""
    if symbol.type == clingo.SymbolType.Number:
        return int(symbol.number)
    return None
