"""What each role perceives after a joint move (GDL-II's ``sees``), answered by clingo.

``(sees ?role ?percept)`` reads the state and the joint move, as ``next`` does, so its rules
are ground once over the relaxed superset with ``true(F)`` and ``does(R,M)`` as externals,
as the clingo machine grounds the game (:mod:`reasoner.asp.machine`), and one solve under
assumptions answers a state and a joint move. Every backend shares this: the backends
answer the state machine, and the game's percepts come from here, whichever answers it.

The percept table is every ``sees`` atom of that ground program: per role, each percept
term that some state and joint move could give it (a superset, as the fluent and move
tables are). Percept ``i`` is ``(role index, GDL text)``; answers are ids, sorted.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import clingo

from reasoner.asp.encoding import constant_text
from reasoner.asp.superset import Superset, new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation
from reasoner.errors import GdlValidationError

__all__ = ["PerceptOracle", "Percepts"]

# Per role (role order), the ids of the percepts it receives, ascending.
Percepts = tuple[tuple[int, ...], ...]


class PerceptOracle:
    """The ``sees`` rules of one game, ground once; thread-safe (solves are serialised)."""

    def __init__(self, translation: Translation, superset: Superset,
                 roles: Sequence[str]) -> None:
        self.roles = tuple(roles)
        role_index = {constant_text(name): i for i, name in enumerate(self.roles)}
        table = superset.role_moves(role_index)
        domain = [f"_f({sym})." for sym in superset.fluents]
        domain += [f"_m({role},{move})." for _, role, move in table]
        program = "\n".join([
            translation.game_program, *domain,
            "#external true(F) : _f(F).",
            "#external does(R,M) : _m(R,M).",
            "#show.",
            "#show sees(R,P) : sees(R,P).",
        ])
        ctl = new_control()
        ctl.add("base", [], program)
        ctl.ground([("base", [])])
        atoms = ctl.symbolic_atoms
        self._fluent_literals = [_literal(atoms, clingo.Function("true", [f]))
                                 for f in superset.fluents]
        self._move_literals = [_literal(atoms, clingo.Function("does", [role, move]))
                               for _, role, move in table]
        for literal in (*self._fluent_literals, *self._move_literals):
            ctl.assign_external(literal, None)
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
        self._absent = [-literal for literal in (*self._fluent_literals, *self._move_literals)]
        self._shown: list[clingo.Symbol] = []
        self._models = 0

    def percepts(self, bits: int, joint: Sequence[int]) -> Percepts:
        """Per role, the percepts it receives when ``joint`` (a move id per role) is played
        in the state ``bits``."""
        assumptions = self._absent.copy()
        remaining = bits
        while remaining:
            low = remaining & -remaining
            index = low.bit_length() - 1
            assumptions[index] = self._fluent_literals[index]
            remaining ^= low
        offset = len(self._fluent_literals)
        for move in joint:
            assumptions[offset + move] = self._move_literals[move]
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


def _literal(atoms: clingo.SymbolicAtoms, symbol: clingo.Symbol) -> int:
    atom = atoms[symbol]
    if atom is None:  # every superset fluent and move is declared external
        raise AssertionError(f"no external for {symbol}")
    return atom.literal
