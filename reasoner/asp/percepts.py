"""What each role perceives after a joint move (GDL-II's ``sees``), answered by clingo.

``(sees ?role ?percept)`` reads the state and the joint move, as ``next`` does, so its rules
(and those of the relations it reads, :attr:`Translation.percept_program`) are ground once
over the relaxed superset with ``true(F)`` and ``does(R,M)`` as externals, as the clingo
machine grounds the game (:mod:`reasoner.asp.machine`), and one solve under assumptions
answers a state and a joint move; only the fluents and moves the rules read are externals,
and so assumed. Every backend shares this: the backends answer the state machine, and the
game's percepts come from here, whichever answers it.

The percept table is every ``sees`` atom of that ground program: per role, each percept
term that some state and joint move could give it (a superset, as the fluent and move
tables are). Percept ``i`` is ``(role index, GDL text)``; answers are ids, sorted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import clingo

from reasoner.asp.encoding import constant_text
from reasoner.asp.superset import Superset, new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation
from reasoner.errors import GdlValidationError
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import Atom, Constant, Function, Not, Rule

__all__ = ["PerceptOracle", "PerceptSource", "Percepts"]

# Per role (role order), the ids of the percepts it receives, ascending.
Percepts = tuple[tuple[int, ...], ...]


class PerceptSource(Protocol):
    """What answers a GDL-II game's percepts: its table (percept ``i`` is the role number
    ``percept_role[i]`` and the GDL text ``percept_texts[i]``, sorted by role, then text),
    the percepts of a state and a joint move, and a word for what answers them."""

    percept_role: tuple[int, ...]
    percept_texts: tuple[str, ...]
    source: str

    def percepts(self, bits: int, joint: Sequence[int]) -> Percepts: ...


class PerceptOracle:
    """The ``sees`` rules of one game, ground once; thread-safe (solves are serialised)."""

    source = "clingo"

    def __init__(self, translation: Translation, superset: Superset,
                 roles: Sequence[str]) -> None:
        self.roles = tuple(roles)
        role_index = {constant_text(name): i for i, name in enumerate(self.roles)}
        table = superset.role_moves(role_index)
        read_fluent, reads_does = _reads(translation.percept_rules)
        # Only the fluents and moves the rules read are externals (and assumed in a solve).
        self._fluents = [i for i, f in enumerate(superset.fluents) if read_fluent(f)]
        self._moves = list(range(len(table))) if reads_does else []
        domain = [f"_f({superset.fluents[i]})." for i in self._fluents]
        domain += [f"_m({table[j][1]},{table[j][2]})." for j in self._moves]
        program = "\n".join([
            translation.percept_program, *domain,
            "#external true(F) : _f(F).",
            "#external does(R,M) : _m(R,M).",
            "#show.",
            "#show sees(R,P) : sees(R,P).",
        ])
        ctl = new_control()
        ctl.add("base", [], program)
        ctl.ground([("base", [])])
        atoms = ctl.symbolic_atoms
        fluent_literals = [_literal(atoms, clingo.Function("true", [superset.fluents[i]]))
                           for i in self._fluents]
        move_literals = [_literal(atoms, clingo.Function("does", [table[j][1], table[j][2]]))
                         for j in self._moves]
        for literal in (*fluent_literals, *move_literals):
            ctl.assign_external(literal, None)
        # Per fluent id and move id: its place in the assumptions, and its literal.
        self._fluent_at = {i: (k, literal) for k, (i, literal)
                           in enumerate(zip(self._fluents, fluent_literals, strict=True))}
        self._move_at = {j: (len(fluent_literals) + k, literal) for k, (j, literal)
                         in enumerate(zip(self._moves, move_literals, strict=True))}
        self._absent = [-literal for literal in (*fluent_literals, *move_literals)]
        found: list[tuple[int, clingo.Symbol]] = []
        for atom in atoms.by_signature("sees", 2):
            role, percept = atom.symbol.arguments
            number = role_index.get(str(role))
            if number is not None:
                found.append((number, percept))
        found.sort(key=lambda item: (item[0], symbol_to_gdl(item[1])))
        self.percept_role = tuple(role for role, _ in found)
        self.percept_texts = tuple(symbol_to_gdl(percept) for _, percept in found)
        self._ids = {(self.roles[role], symbol): i for i, (role, symbol) in enumerate(found)}
        self._role_symbols = {constant_text(name): name for name in self.roles}
        self._ctl = ctl
        self._lock = threading.Lock()
        self._shown: list[clingo.Symbol] = []
        self._models = 0

    def percepts(self, bits: int, joint: Sequence[int]) -> Percepts:
        """Per role, the percepts it receives when ``joint`` (a move id per role) is played
        in the state ``bits``."""
        assumptions = self._absent.copy()
        remaining = bits
        fluent_at = self._fluent_at
        while remaining:
            low = remaining & -remaining
            found = fluent_at.get(low.bit_length() - 1)
            if found is not None:
                assumptions[found[0]] = found[1]
            remaining ^= low
        for move in joint:
            placed = self._move_at.get(move)
            if placed is not None:
                assumptions[placed[0]] = placed[1]
        per_role: list[list[int]] = [[] for _ in self.roles]
        with self._lock:
            self._models = 0
            self._ctl.solve(assumptions=assumptions, on_model=self._on_model)
            if self._models != 1:
                raise GdlValidationError(
                    "the game's rules have no single answer set for a joint move's percepts: "
                    "negation through recursion is not stratified here", reason="unstratified")
            shown = self._shown
        role_symbols = self._role_symbols
        for symbol in shown:
            role, percept = symbol.arguments
            name = role_symbols.get(str(role))
            if name is None:
                continue
            index = self._ids[(name, percept)]
            per_role[self.percept_role[index]].append(index)
        return tuple(tuple(sorted(ids)) for ids in per_role)

    def _on_model(self, model: clingo.Model) -> None:
        self._models += 1
        if self._models == 1:
            self._shown = list(model.symbols(shown=True))


def _reads(rules: Sequence[Rule]) -> tuple[Callable[[clingo.Symbol], bool], bool]:
    """What ``rules`` read from outside: a test of the fluents whose ``true`` they read
    (by functor and arity; every fluent where one reads ``(true ?x)``), and whether they
    read ``does``."""
    keys: set[tuple[str, int]] = set()
    every = does = False
    for rule in rules:
        for literal in rule.body:
            inner = literal.literal if isinstance(literal, Not) else literal
            if not isinstance(inner, Atom):
                continue
            if inner.signature == ("does", 2):
                does = True
            elif inner.signature == ("true", 1):
                term = inner.args[0]
                if isinstance(term, Function):
                    keys.add((term.name, len(term.args)))
                elif isinstance(term, Constant):
                    keys.add((term.name, 0))
                else:
                    every = True

    def read(fluent: clingo.Symbol) -> bool:
        if every:
            return True
        term = parse_term(symbol_to_gdl(fluent))
        key = (term.name, len(term.args)) if isinstance(term, Function) else (str(term), 0)
        return key in keys

    return read, does


def _literal(atoms: clingo.SymbolicAtoms, symbol: clingo.Symbol) -> int:
    atom = atoms[symbol]
    if atom is None:  # every superset fluent and move is declared external
        raise AssertionError(f"no external for {symbol}")
    return atom.literal
