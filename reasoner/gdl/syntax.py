"""The immutable syntax tree of a GDL game description.

Names are stored as written (lower-cased unless the parser runs case-sensitively). Source
positions ride along for error messages but take no part in equality or hashing, so a tree
parsed from a printed game compares equal to the original.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = [
    "GDL_KEYWORDS",
    "RANDOM_ROLE",
    "Atom",
    "Constant",
    "Distinct",
    "Function",
    "GameDescription",
    "Literal",
    "Not",
    "Or",
    "Position",
    "Reading",
    "Rule",
    "Term",
    "Variable",
]

# Relation names with a fixed meaning in GDL (``distinct``, ``not``, ``or`` are connectives);
# ``sees`` is GDL-II's (what a role perceives after a joint move).
GDL_KEYWORDS = frozenset(
    {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "base", "input",
     "sees"}
)
# GDL-II's nature player: the role of this name moves uniformly at random.
RANDOM_ROLE = "random"


class Position(NamedTuple):
    """A 1-based line and column in the source text (a tuple: one is made per token, so it
    must be cheap)."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NOWHERE = Position(0, 0)


@dataclass(frozen=True, slots=True)
class Constant:
    """An object constant such as ``b``, ``1`` or ``noop``."""

    name: str
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Variable:
    """A variable; ``name`` excludes the leading ``?``."""

    name: str
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return "?" + self.name


@dataclass(frozen=True, slots=True)
class Function:
    """A compound term ``(name arg...)`` with at least one argument."""

    name: str
    args: tuple[Term, ...]
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return "(" + " ".join([self.name, *map(str, self.args)]) + ")"


Term = Constant | Variable | Function


@dataclass(frozen=True, slots=True)
class Atom:
    """A relational atom ``(name arg...)``; zero-arity atoms have ``args == ()``."""

    name: str
    args: tuple[Term, ...] = ()
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    @property
    def arity(self) -> int:
        return len(self.args)

    @property
    def signature(self) -> tuple[str, int]:
        return (self.name, len(self.args))

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return "(" + " ".join([self.name, *map(str, self.args)]) + ")"


@dataclass(frozen=True, slots=True)
class Not:
    """Negation as failure of a literal."""

    literal: Literal
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return f"(not {self.literal})"


@dataclass(frozen=True, slots=True)
class Distinct:
    """``(distinct a b)``: the two terms are syntactically different."""

    left: Term
    right: Term
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return f"(distinct {self.left} {self.right})"


@dataclass(frozen=True, slots=True)
class Or:
    """A disjunction of literals inside a rule body."""

    disjuncts: tuple[Literal, ...]
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    def __str__(self) -> str:
        return "(or " + " ".join(map(str, self.disjuncts)) + ")"


Literal = Atom | Not | Distinct | Or


@dataclass(frozen=True, slots=True)
class Rule:
    """``(<= head body...)``; a fact is a rule with an empty body."""

    head: Atom
    body: tuple[Literal, ...] = ()
    pos: Position = field(default=NOWHERE, compare=False, repr=False)

    @property
    def is_fact(self) -> bool:
        return not self.body

    def __str__(self) -> str:
        if not self.body:
            return str(self.head)
        return "(<= " + " ".join([str(self.head), *map(str, self.body)]) + ")"


class Reading(NamedTuple):
    """How the parser read something that the GDL specification does not allow but that an
    old file writes unambiguously (see :mod:`reasoner.gdl.parser`): the message, and the
    rule as written."""

    message: str
    rule: Rule


@dataclass(frozen=True, slots=True)
class GameDescription:
    """A whole game: its rules in source order (as read), and the parser's notes on what it
    read in another way than written (no part of equality: the printed game reads alike)."""

    rules: tuple[Rule, ...]
    readings: tuple[Reading, ...] = field(default=(), compare=False)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    @property
    def roles(self) -> tuple[str, ...]:
        """The role names, in the order of their ``role`` facts."""
        return tuple(rule.head.args[0].name for rule in self.rules
                     if rule.head.name == "role" and rule.head.arity == 1
                     and isinstance(rule.head.args[0], Constant))

    @property
    def is_gdl2(self) -> bool:
        """Whether the game is GDL-II: it has ``sees`` rules or a role named ``random``."""
        return RANDOM_ROLE in self.roles or any(
            rule.head.name == "sees" and rule.head.arity == 2 for rule in self.rules)


def term_variables(term: Term) -> Iterator[Variable]:
    """Yield the variables of a term, left to right, with repetitions."""
    if isinstance(term, Variable):
        yield term
    elif isinstance(term, Function):
        for arg in term.args:
            yield from term_variables(arg)


def literal_variables(literal: Literal) -> Iterator[Variable]:
    """Yield the variables of a literal, left to right, with repetitions."""
    if isinstance(literal, Atom):
        for arg in literal.args:
            yield from term_variables(arg)
    elif isinstance(literal, Not):
        yield from literal_variables(literal.literal)
    elif isinstance(literal, Distinct):
        yield from term_variables(literal.left)
        yield from term_variables(literal.right)
    else:
        for disjunct in literal.disjuncts:
            yield from literal_variables(disjunct)


def relation_names(rules: Iterable[Rule]) -> set[str]:
    """Every relation name the rules define or read (under negation and ``or`` too)."""
    return {name for rule in rules for name in (
        rule.head.name, *(atom.name for literal in rule.body
                          for atom, _ in literal_atoms(literal)))}


def literal_atoms(literal: Literal, negative: bool = False) -> Iterator[tuple[Atom, bool]]:
    """Yield every relational atom inside a literal, with whether it occurs under negation
    (``distinct`` has none)."""
    if isinstance(literal, Atom):
        yield literal, negative
    elif isinstance(literal, Not):
        yield from literal_atoms(literal.literal, not negative)
    elif isinstance(literal, Or):
        for disjunct in literal.disjuncts:
            yield from literal_atoms(disjunct, negative)
