"""A variable-free game's rules as a numbered ground program, read without clingo.

An instantiated game (the output of ``gdl-reasoner ground``) or any game written without
variables is already ground: clingo would only read its text, number its atoms and hand the
same rules back, and on games of a hundred thousand rules that takes longer than everything
else of a load (atariGo_7x7's instantiated game: 8 s to ground the relaxed program, 4 s to
read its fluents back, the same again for the network). Here the flat rules are numbered
directly:

* each distinct atom gets a number from 1, and each rule becomes ``((head,), body)`` with the
  body's program literals (an atom's number, negated under ``not``), as the ground-program
  reader (:mod:`reasoner.asp.ground_rules`) gives clingo's rules;
* ``distinct`` between ground terms is decided on the spot: a rule whose ``distinct`` fails
  is dropped, one that holds leaves the body;
* the relaxed superset is the least model of the relaxed rules with ``true(F)`` from
  ``init(F)`` and ``next(F)`` and ``does(R,M)`` from ``legal(R,M)``, counted out on arrays
  (:func:`reasoner.asp.atom_layers.first_layers`), where those rules are positive (the
  tables keep the negation of static relations: a game with any is left to clingo).

The network (:mod:`reasoner.propnet.network`) reads the rules as it reads clingo's, through
the same queries: an atom by relation and clingo symbols, the atoms of a relation, every
atom's text.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from functools import cached_property

import clingo
import numpy as np

from reasoner.asp.atom_layers import NEVER, Program, first_layers
from reasoner.asp.encoding import predicate_name
from reasoner.asp.symbols import term_symbol
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.syntax import Atom, Distinct, Literal, Not, Rule

__all__ = ["VariableFreeProgram", "counted_superset"]

# Relations whose atoms the network asks for by clingo symbol.
_QUERIED = frozenset({"true", "does", "legal", "next", "init", "goal", "terminal", "sees"})
_ABSENT = -2  # reasoner.asp.ground_rules.ABSENT: an atom no rule makes


def _symbol(atom: Atom) -> clingo.Symbol:
    """The clingo symbol of a ground atom, as the translation writes it."""
    return clingo.Function(predicate_name(atom.name), [term_symbol(arg) for arg in atom.args])


class VariableFreeProgram:
    """The numbered rules of a variable-free game (see the module docstring)."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._numbers: dict[Atom, int] = {}
        self._atoms: list[Atom] = [Atom("")]  # by number; 0 is no atom
        self.rules: list[tuple[tuple[int], tuple[int, ...]]] = []
        # Millions of new tuples and no cycles: the cyclic collector, left on, would walk
        # the game's trees again and again (atariGo_7x7's instantiated game: 8.9 s, 1.0 s
        # without it).
        with paused_collector():
            for rule in rules:
                body = self._body(rule.body)
                if body is not None:
                    self.rules.append(((self.number(rule.head),), body))
        self.unsupported = ""  # a GDL rule is always a normal rule

    def named(self) -> list[Atom]:
        """Every atom some rule names, in number order."""
        return list(self._numbers)

    def atom_of(self, number: int) -> Atom:
        """The atom of a number."""
        return self._atoms[number]

    def add(self, head: Atom, body: Atom) -> None:
        """One more rule: ``head`` holds where ``body`` does."""
        self.rules.append(((self.number(head),), (self.number(body),)))

    def number(self, atom: Atom) -> int:
        """The atom's number (a new one for an atom not seen yet)."""
        found = self._numbers.get(atom)
        if found is None:
            found = self._numbers[atom] = len(self._atoms)
            self._atoms.append(atom)
        return found

    def _body(self, literals: Sequence[Literal]) -> tuple[int, ...] | None:
        """The body's program literals; None where a ``distinct`` fails."""
        body: list[int] = []
        for literal in literals:
            if isinstance(literal, Atom):
                body.append(self.number(literal))
            elif isinstance(literal, Not) and isinstance(literal.literal, Atom):
                body.append(-self.number(literal.literal))
            elif isinstance(literal, Distinct):
                if literal.left == literal.right:
                    return None
            elif isinstance(literal, Not) and isinstance(literal.literal, Distinct):
                if literal.literal.left != literal.literal.right:
                    return None
            else:
                raise TypeError(f"not a flat ground literal: {literal}")
        return tuple(body)

    @cached_property
    def _by_symbol(self) -> dict[clingo.Symbol, int]:
        return {_symbol(atom): number for atom, number in self._numbers.items()
                if atom.name in _QUERIED}

    def atom(self, name: str, *arguments: clingo.Symbol) -> int:
        """The number of the atom ``name(arguments)`` (ASP names and symbols, as in
        :meth:`reasoner.asp.ground_rules.GroundRules.atom`); ``true`` and ``does`` atoms
        are the inputs and always have one, any other atom no rule names is ABSENT."""
        symbol = clingo.Function(name, arguments)
        found = self._by_symbol.get(symbol)
        if found is not None:
            return found
        if name not in ("true", "does"):
            return _ABSENT
        found = self._by_symbol[symbol] = len(self._atoms)
        self._atoms.append(Atom(""))  # an input no rule reads: only its number is needed
        return found

    def atoms(self, name: str, arity: int) -> Iterator[tuple[tuple[clingo.Symbol, ...], int]]:
        """The atoms of the relation ``name/arity`` (ASP name) some rule names: their
        arguments as clingo symbols and their numbers."""
        for symbol, number in self._by_symbol.items():
            if symbol.name == name and len(symbol.arguments) == arity:
                yield tuple(symbol.arguments), number

    def atom_texts(self) -> dict[int, str]:
        """Every atom's GDL text by number (for messages)."""
        return {number: str(atom) for atom, number in self._numbers.items()}

    @property
    def atom_count(self) -> int:
        return len(self._atoms) - 1


Moves = list[tuple[clingo.Symbol, clingo.Symbol]]


def counted_superset(relaxed: Sequence[Rule]) -> tuple[list[clingo.Symbol], Moves, int] | None:
    """The relaxed superset of ``relaxed`` (flat ground rules): its fluents and moves as
    clingo symbols, sorted as clingo sorts them, and how many atoms can hold; None where a
    rule keeps a negative literal, which a count of positive rules cannot decide."""
    if any(isinstance(literal, Not) and isinstance(literal.literal, Atom)
           for rule in relaxed for literal in rule.body):
        return None
    with paused_collector():  # as in VariableFreeProgram: 5.1 s to 1.0 s on atariGo_7x7
        program = VariableFreeProgram(relaxed)
        # The relaxed program's own rules: true from init and next, does from legal.
        for atom in program.named():
            if atom.name in ("init", "next") and len(atom.args) == 1:
                program.add(Atom("true", atom.args), atom)
            elif atom.name == "legal" and len(atom.args) == 2:
                program.add(Atom("does", atom.args), atom)
        heads = array("i", (head for (head,), _ in program.rules))
        lengths = array("i", (len(body) for _, body in program.rules))
        literals = array("i", (literal for _, body in program.rules for literal in body))
        nothing = np.empty(0, dtype=np.int64)
        first = first_layers(Program.of(heads, lengths, literals, program.atom_count),
                             nothing, nothing, nothing, 1).first
        held = [program.atom_of(number)
                for number in np.flatnonzero(first != NEVER).tolist() if number > 0]
        fluents = sorted(term_symbol(atom.args[0]) for atom in held
                         if atom.name == "true" and len(atom.args) == 1)
        moves = sorted((term_symbol(atom.args[0]), term_symbol(atom.args[1]))
                       for atom in held if atom.name == "does" and len(atom.args) == 2)
        return fluents, moves, len(held)
