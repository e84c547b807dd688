"""The clingo-backed state machine, in integer ids.

The game is grounded once, over the relaxed superset: ``true(F)`` and ``does(R,M)`` are
``#external`` atoms, one per superset fluent and move, left free. A query solves under
assumptions that fix every one of them; the program is stratified, so the solve is pure
propagation (no choices, no conflicts). The successor layer (see
:mod:`reasoner.asp.translate`) makes one solve return the successor state together with its
legal moves, terminal status and goals, so a random playout costs one solve per step.

Everything here speaks integer ids: fluent ``i`` is bit ``i`` of a state, moves are indices
into one table over all roles. :mod:`reasoner.engine` puts GDL text on the edges.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import clingo

from reasoner.asp.encoding import constant_text
from reasoner.asp.stratification import GroundDependencies
from reasoner.asp.superset import Superset, new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation
from reasoner.core.state_cache import StateCache
from reasoner.core.values import StateInfo
from reasoner.core.walk import MachineStepper, Simulation, simulate_sequentially
from reasoner.errors import GdlValidationError, GoalValueError

__all__ = ["Machine"]

_GOAL_SPAN = 101  # goal values 0..100



class Machine:
    """One grounded game; thread-safe (queries are serialised on a lock)."""

    network = None  # no compiled network: every query is a clingo solve

    def __init__(
        self,
        translation: Translation,
        superset: Superset,
        roles: Sequence[str],
        check_stratification: bool = False,
    ) -> None:
        self.roles = tuple(roles)
        role_index = {constant_text(name): i for i, name in enumerate(self.roles)}
        self.fluent_symbols = superset.fluents
        table = superset.role_moves(role_index)
        moves = [(r, m) for r, _, m in table]
        role_symbols = {r: symbol for r, symbol, _ in table}
        self.move_role = tuple(r for r, _ in moves)
        self.move_symbols = tuple(m for _, m in moves)
        self.fluent_texts = tuple(symbol_to_gdl(f) for f in self.fluent_symbols)
        self.move_texts = tuple(symbol_to_gdl(m) for m in self.move_symbols)

        n_fluents, n_moves, n_roles = len(self.fluent_symbols), len(moves), len(self.roles)
        self._legal1 = n_fluents
        self._terminal1 = self._legal1 + n_moves
        self._goal1 = self._terminal1 + 1
        self._legal2 = self._goal1 + n_roles * _GOAL_SPAN
        self._terminal2 = self._legal2 + n_moves
        self._goal2 = self._terminal2 + 1

        names = translation.next_layer_names
        domain = [f"_f({i},{sym})." for i, sym in enumerate(self.fluent_symbols)]
        domain += [
            f"_m({i},{constant_text(self.roles[r])},{m})." for i, (r, m) in enumerate(moves)
        ]
        domain += [f"_r({i},{constant_text(name)})." for i, name in enumerate(self.roles)]
        # Shown atoms are plain numbers (cheap to read back). Two switches select what a solve
        # reports: _current the state's own legal/terminal/goal, _successor the fluents that
        # change under the joint move (a delta, far fewer than the whole successor) and the
        # successor's legal/terminal/goal.
        control = [
            "% Interface: state and joint move are externals over the relaxed superset.",
            "#external true(F) : _f(_,F).",
            "#external does(R,M) : _m(_,R,M).",
            "#external _current.",
            "#external _successor.",
            "#show.",
            "#show I : next(F), not true(F), _f(I,F), _successor.",
            "#show I : true(F), not next(F), _f(I,F), _successor.",
            f"#show {self._legal1}+I : legal(R,M), _m(I,R,M), _current.",
            f"#show {self._terminal1} : terminal, _current.",
            f"#show {self._goal1}+I*{_GOAL_SPAN}+V : goal(R,V), _r(I,R), V>=0, V<=100, "
            "_current.",
            f"#show {self._legal2}+I : {names['legal']}(R,M), _m(I,R,M), _successor.",
            f"#show {self._terminal2} : {names['terminal']}, _successor.",
            f"#show {self._goal2}+I*{_GOAL_SPAN}+V : {names['goal']}(R,V), _r(I,R), "
            "V>=0, V<=100, _successor.",
        ]
        program = "\n".join(
            [translation.game_program, translation.next_layer_program, *domain, *control]
        )
        # When the relations are not stratified, the ground program is checked instead;
        # once it passes, every query has exactly one answer set.
        ctl = new_control()
        dependencies = GroundDependencies() if check_stratification else None
        if dependencies is not None:
            ctl.register_observer(dependencies)
        ctl.add("base", [], program)
        ctl.ground([("base", [])])
        if dependencies is not None:
            cycle = dependencies.negative_cycle()
            if cycle is not None:
                atom_names = {a.literal: str(a.symbol) for a in ctl.symbolic_atoms}
                head, negated = (atom_names.get(x, "an auxiliary atom") for x in cycle)
                raise GdlValidationError(
                    "the rules are not stratified: negation through recursion between ground "
                    f"atoms ({head} depends on not {negated} and back)",
                    reason="unstratified")
        self._ctl = ctl
        atoms = ctl.symbolic_atoms
        self._fluent_literals = [
            _literal(atoms, clingo.Function("true", [f])) for f in self.fluent_symbols
        ]
        self._move_literals = [
            _literal(atoms, clingo.Function("does", [role_symbols[r], m])) for r, m in moves
        ]
        fluent_index = {sym: i for i, sym in enumerate(self.fluent_symbols)}
        self.init_bits = 0
        for atom in atoms.by_signature("init", 1):
            index = fluent_index.get(atom.symbol.arguments[0])
            if index is not None:
                self.init_bits |= 1 << index
        for atom in atoms.by_signature("goal", 2):
            value = atom.symbol.arguments[1]
            if value.type != clingo.SymbolType.Number or not 0 <= value.number <= 100:
                raise GoalValueError.of(symbol_to_gdl(atom.symbol.arguments[0]),
                                        symbol_to_gdl(value))
        self.ground_atom_count = len(atoms)
        self._lock = threading.Lock()
        self._switch_current = _literal(atoms, clingo.Function("_current"))
        self._switch_successor = _literal(atoms, clingo.Function("_successor"))
        self._mode = (False, False)
        # State and joint move travel as assumptions over free externals: clasp then keeps
        # its level-0 simplification of the whole program between solves, instead of
        # redoing it for every changed external (measured: 1.5x on ggp.org's breakthrough).
        for literal in (*self._fluent_literals, *self._move_literals):
            ctl.assign_external(literal, None)
        self._absent_fluents = [-literal for literal in self._fluent_literals]
        self._absent_moves = [-literal for literal in self._move_literals]
        self._shown: Sequence[clingo.Symbol] = ()
        self._models = 0
        self._cache = StateCache()

    # -- queries -------------------------------------------------------------------------

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        cached = self._cache.get(bits)
        if cached is not None:
            return cached
        with self._lock:
            self._solve(bits, (), current=True, successor=False)
            info, _, _ = self._decode(bits, current=True, successor=False)
            assert info is not None
            self._cache.put(bits, info)
        return info

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info, its successor under ``joint``, and the successor's info.

        ``joint`` holds one move id per role, in role order; legality is the caller's check
        against the returned info (one solve answers both). With ``current=False`` the
        state's own info is not computed (None), which saves time in playouts.
        """
        with self._lock:
            self._solve(bits, joint, current=current, successor=True)
            info, next_bits, next_info = self._decode(bits, current=current, successor=True)
            assert next_info is not None
            if info is not None:
                self._cache.put(bits, info)
            self._cache.put(next_bits, next_info)
        return info, next_bits, next_info

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None) -> Simulation:
        """Seeded random playouts from ``bits``, one after another (see
        :func:`reasoner.core.walk.simulate_sequentially`)."""
        return simulate_sequentially(MachineStepper(self), bits, playouts, seed, max_steps,
                                     record, check)

    # -- internals -----------------------------------------------------------------------

    def _on_model(self, model: clingo.Model) -> None:
        self._models += 1
        if self._models == 1:
            self._shown = model.symbols(shown=True)

    def _solve(self, bits: int, joint: tuple[int, ...], current: bool,
               successor: bool) -> None:
        assign = self._ctl.assign_external
        if (current, successor) != self._mode:
            assign(self._switch_current, current)
            assign(self._switch_successor, successor)
            self._mode = (current, successor)
        assumptions = self._absent_fluents.copy()
        literals = self._fluent_literals
        remaining = bits
        while remaining:
            low = remaining & -remaining
            index = low.bit_length() - 1
            assumptions[index] = literals[index]
            remaining ^= low
        moves = self._absent_moves.copy()
        for move in joint:
            moves[move] = self._move_literals[move]
        assumptions += moves
        self._models = 0
        self._ctl.solve(assumptions=assumptions, on_model=self._on_model)
        if self._models != 1:
            raise GdlValidationError(
                f"the game's rules have {self._models if self._models < 2 else 'several'} "
                "answer sets in a state: negation through recursion is not stratified here",
                reason="unstratified")

    def _decode(self, bits: int, current: bool,
                successor: bool) -> tuple[StateInfo | None, int, StateInfo | None]:
        n_roles = len(self.roles)
        move_role = self.move_role
        legal1: list[list[int]] = [[] for _ in range(n_roles)]
        legal2: list[list[int]] = [[] for _ in range(n_roles)]
        goals1: list[list[int]] = [[] for _ in range(n_roles)]
        goals2: list[list[int]] = [[] for _ in range(n_roles)]
        terminal1 = terminal2 = False
        flips = 0
        l1, t1, g1 = self._legal1, self._terminal1, self._goal1
        l2, t2, g2 = self._legal2, self._terminal2, self._goal2
        for symbol in self._shown:
            n = symbol.number
            if n < l1:
                flips |= 1 << n
            elif n < t1:
                legal1[move_role[n - l1]].append(n - l1)
            elif n == t1:
                terminal1 = True
            elif n < l2:
                role, value = divmod(n - g1, _GOAL_SPAN)
                goals1[role].append(value)
            elif n < t2:
                legal2[move_role[n - l2]].append(n - l2)
            elif n == t2:
                terminal2 = True
            else:
                role, value = divmod(n - g2, _GOAL_SPAN)
                goals2[role].append(value)
        info = StateInfo(
            tuple(tuple(sorted(x)) for x in legal1), terminal1, tuple(tuple(x) for x in goals1)
        ) if current else None
        next_info = StateInfo(
            tuple(tuple(sorted(x)) for x in legal2), terminal2, tuple(tuple(x) for x in goals2)
        ) if successor else None
        return info, bits ^ flips, next_info


def _literal(atoms: clingo.SymbolicAtoms, symbol: clingo.Symbol) -> int:
    """The program literal of an external declared over the superset."""
    atom = atoms[symbol]
    if atom is None:  # every superset fluent and move is declared external
        raise AssertionError(f"no external for {symbol}")
    return atom.literal
