"""The position-by-position backend: clingo grounds only what one state needs.

Where a game is too large to ground once over its relaxed superset (chess, amazons,
skirmish), each query grounds the game's demand-driven programs (see
:mod:`reasoner.gdl.demand`) with the state as facts ``true(F)``, and the joint move as facts
``does(R,M)``: helper relations then only get the instances this position asks for, as a
top-down reasoner would compute them, and the program being stratified, grounding alone
decides it (the solve that follows makes no choice).

States and moves are the same integer ids as on the other backends (fluent ``i`` is bit
``i``, moves index one table over all roles), over the same relaxed superset, so a game's
states mean the same whichever backend answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import clingo

from reasoner.asp.encoding import constant_text, predicate_name, relation_name
from reasoner.asp.superset import GroundingBudget, Superset, ground_within, new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import NEXT_SUFFIX, Translation
from reasoner.core.state_cache import StateCache
from reasoner.core.values import StateInfo
from reasoner.core.walk import MachineStepper, Simulation, simulate_sequentially
from reasoner.errors import GdlValidationError, GoalValueError, ResourceLimitError, seconds_text
from reasoner.gdl.demand import adorned_relation

__all__ = ["POSITION_SECONDS", "IdTables", "PositionMachine", "id_tables"]

# What one position may ground before the query is refused (RESOURCE_EXHAUSTED over gRPC).
POSITION_RULES = 2_000_000
POSITION_SECONDS = 20.0
_SHOW_POSITION = "\n#show legal/2.\n#show terminal/0.\n#show goal/2.\n"
_SHOW_INIT = "\n#show init/1.\n"
# The successor's own legal, terminal and goal in the step program.
_LEGAL, _TERMINAL, _GOAL = (predicate_name(name + NEXT_SUFFIX)
                            for name in ("legal", "terminal", "goal"))
_SHOW_STEP = f"\n#show next/1.\n#show {_LEGAL}/2.\n#show {_TERMINAL}/0.\n#show {_GOAL}/2.\n"


@dataclass(frozen=True)
class IdTables:
    """The ids every backend speaks over a relaxed superset: fluent ``i`` is
    ``fluent_texts[i]``, move ``j`` is ``move_texts[j]`` of role ``move_role[j]``."""

    fluent_texts: tuple[str, ...]
    move_texts: tuple[str, ...]
    move_role: tuple[int, ...]


def id_tables(superset: Superset, roles: Sequence[str]) -> IdTables:
    """The fluent and move tables of ``superset`` (as GDL texts) for the position-by-position
    backends."""
    role_index = {constant_text(name): i for i, name in enumerate(roles)}
    moves = superset.role_moves(role_index)
    return IdTables(tuple(symbol_to_gdl(f) for f in superset.fluents),
                    tuple(symbol_to_gdl(m) for _, _, m in moves),
                    tuple(r for r, _, _ in moves))


class PositionMachine:
    """A game answered by grounding each position anew (thread-safe: every query has a
    clingo control of its own)."""

    network = None  # no compiled network

    def __init__(self, translation: Translation, superset: Superset,
                 roles: Sequence[str], *, seconds: float = POSITION_SECONDS) -> None:
        """Ground the initial state; ``seconds`` bounds each position's grounding (it may
        be changed later through :attr:`seconds`)."""
        self.roles = tuple(roles)
        self.seconds = seconds
        role_index = {constant_text(name): i for i, name in enumerate(self.roles)}
        self.fluent_symbols = superset.fluents
        moves = superset.role_moves(role_index)
        tables = id_tables(superset, self.roles)
        self.move_role = tables.move_role
        self.move_symbols = tuple(m for _, _, m in moves)
        self.fluent_texts = tables.fluent_texts
        self.move_texts = tables.move_texts
        self._fluent_index = {sym: i for i, sym in enumerate(self.fluent_symbols)}
        self._move_index = {(r, m): i for i, (_, r, m) in enumerate(moves)}
        self._role_index = role_index
        self._fluent_facts = tuple(f"true({sym})." for sym in self.fluent_symbols)
        self._move_facts = tuple(f"does({r},{m})." for _, r, m in moves)
        self._position = translation.position_program + _SHOW_POSITION
        self._step = translation.step_program + _SHOW_STEP
        self._cache = StateCache()
        self.ground_atom_count = 0
        self.init_bits = 0
        for symbol in self._model(translation.init_program + _SHOW_INIT, ""):
            index = self._fluent_index.get(symbol.arguments[0])
            if index is not None:
                self.init_bits |= 1 << index

    # -- queries -------------------------------------------------------------------------

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        cached = self._cache.get(bits)
        if cached is not None:
            return cached
        _, info = self._decode(self._model(self._position, self._facts(bits)),
                               ("legal", "terminal", "goal"))
        self._cache.put(bits, info)
        return info

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (with ``current``), its successor under ``joint`` (one
        move id per role) and the successor's info."""
        info = self.info(bits) if current else None
        facts = self._facts(bits) + "\n".join(self._move_facts[m] for m in joint)
        following, next_info = self._decode(self._model(self._step, facts),
                                            (_LEGAL, _TERMINAL, _GOAL))
        self._cache.put(following, next_info)
        return info, following, next_info

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None) -> Simulation:
        """Seeded random playouts from ``bits``, one after another (see
        :func:`reasoner.core.walk.simulate_sequentially`)."""
        return simulate_sequentially(MachineStepper(self), bits, playouts, seed, max_steps,
                                     record, check)

    # -- internals -----------------------------------------------------------------------

    def _decode(self, symbols: Sequence[clingo.Symbol],
                names: tuple[str, str, str]) -> tuple[int, StateInfo]:
        """The fluents of ``next`` atoms as bits, and the legal, terminal and goal atoms
        (named ``names``) as a state's info."""
        legal_name, terminal_name, _ = names
        n_roles = len(self.roles)
        legal: list[list[int]] = [[] for _ in range(n_roles)]
        goals: list[list[int]] = [[] for _ in range(n_roles)]
        terminal = False
        following = 0
        move_index, role_index, fluent_index = (self._move_index, self._role_index,
                                                self._fluent_index)
        for symbol in symbols:
            name = symbol.name
            if name == "next":
                index = fluent_index.get(symbol.arguments[0])
                if index is None:
                    raise AssertionError(f"fluent {symbol} is outside the superset")
                following |= 1 << index
            elif name == legal_name:
                role, move = symbol.arguments
                index = move_index.get((role, move))
                if index is None:
                    raise AssertionError(f"legal move {symbol} is outside the superset")
                legal[self.move_role[index]].append(index)
            elif name == terminal_name:
                terminal = True
            else:
                role, value = symbol.arguments
                number = role_index.get(str(role))
                if number is None:
                    continue
                if value.type != clingo.SymbolType.Number or not 0 <= value.number <= 100:
                    raise GoalValueError.of(symbol_to_gdl(role), symbol_to_gdl(value))
                goals[number].append(value.number)
        return following, StateInfo(tuple(tuple(sorted(x)) for x in legal), terminal,
                                    tuple(tuple(sorted(x)) for x in goals))

    @staticmethod
    def _too_large(ctl: clingo.Control, budget: GroundingBudget) -> ResourceLimitError:
        """The refusal of a position that grew past its bound, naming the relation with the
        most atoms by then."""
        counts: dict[str, int] = {}
        for atom in ctl.symbolic_atoms:
            name = adorned_relation(relation_name(str(atom.symbol.name)))
            counts[name] = counts.get(name, 0) + 1
        relation = max(counts, key=counts.__getitem__) if counts else ""
        over_rules = budget.rules > budget.max_rules
        bound = "size" if over_rules else "time"
        what = (f"more than {budget.max_rules:,} ground rules" if over_rules
                else f"more than {seconds_text(budget.seconds)}")
        return ResourceLimitError(
            f"grounding this position took {what}; the relation {relation} grew most "
            f"({counts.get(relation, 0):,} atoms)", bound=bound, relation=relation)

    def _facts(self, bits: int) -> str:
        facts = self._fluent_facts
        out = []
        while bits:
            low = bits & -bits
            out.append(facts[low.bit_length() - 1])
            bits ^= low
        return "\n".join(out) + "\n"

    def _model(self, program: str, facts: str) -> Sequence[clingo.Symbol]:
        """The shown atoms of the one answer set of ``program`` with ``facts``."""
        ctl = new_control(["2"])  # two models at most: a second one means unstratified
        ctl.add("base", [], program)
        ctl.add("base", [], facts)
        budget = GroundingBudget(POSITION_RULES, self.seconds)
        if not ground_within(ctl, budget):
            raise self._too_large(ctl, budget)
        self.ground_atom_count = max(self.ground_atom_count, len(ctl.symbolic_atoms))
        shown: list[Sequence[clingo.Symbol]] = []
        with ctl.solve(yield_=True) as handle:
            for model in handle:
                shown.append(model.symbols(shown=True))
                if len(shown) > 1:
                    break
        if len(shown) != 1:
            raise GdlValidationError(
                f"the game's rules have {'no' if not shown else 'several'} answer sets in a "
                "state: negation through recursion is not stratified here",
                reason="unstratified")
        return shown[0]
