"""Structures of a game (docs/semantics/structures.md): found in the rules and by simulation.

* static: successor relations (binary, functional, injective, acyclic chains over static
  facts such as ``(succ 1 2)``), order relations (antisymmetric and transitive static
  binary relations, such as ``lessthan`` built on ``succ``);
* dynamic: step counters, boards (fluents with input arguments as coordinates and output
  arguments as contents), markers and pieces, quantities;
* by simulation: turn-taking with each role's noop moves, teams.

The dataclasses below are the interface the fuzzy evaluation and the features read;
:func:`detect_structures` fills them.

How each is found (Kuhlmann, Dresner & Stone 2006; Schiffel & Thielscher 2007):

* **static relations** are the relations whose rules never read ``true`` or ``does``, not
  even through other relations; their extension is read from the game program grounded
  without any state (static rules then ground to facts). Only binary ones are examined,
  and relations with more than :data:`MAX_STATIC_PAIRS` pairs are skipped.
* a **successor relation** is functional, injective, irreflexive and acyclic; each of its
  chains with at least three elements becomes an :class:`Ordering`.
* an **order relation** is antisymmetric and transitive and has at least one pair of
  pairs ``(a, b), (b, c)`` (so a relation of isolated pairs does not count); it is linked
  to the shortest ordering whose chain order agrees with every pair, else to the shortest
  one whose reversed order does (``greater``, marked ``reversed``).
* an argument of a fluent function is **on an ordered domain** when at least two values
  occur there in the fluent table and the shortest ordering holding all of them is found.
* a **step counter** is a unary fluent on an ordered domain of which every simulated state
  holds exactly one instance and that advances one step along its chain at every simulated
  step; the syntactic pattern ``(<= (next (f ?y)) (true (f ?x)) (succ ?x ?y))`` or at least
  one observed step is required besides.
* a **board** is a fluent function of arity >= 2 with a non-empty proper subset of its
  argument positions as inputs such that in every simulated state each input tuple has at
  most one output tuple. The inclusion-minimal surviving input sets are kept (several
  boards per function are possible: the eight-puzzle's tiles are a board on the tile as
  well as on the coordinates). A function never seen with two instances in one state has
  no evidence and makes no board.
* a **quantity** is a fluent argument on an ordered domain that is functional given the
  other arguments in every simulated state, for a function seen in at least one state;
  an argument that is a coordinate (input) of a board of the function is none.
* **turn-taking**: in every non-terminal state seen at most one role has more than one
  legal move; the noop moves of a role are its single legal moves in states where another
  role had several (recorded only for turn-taking games).
* **teams**: roles whose goal values agree in every terminal state seen (a partition of
  the roles, in role order); with no terminal state seen, every role is its own team.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from reasoner.asp.encoding import relation_name
from reasoner.asp.superset import new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.core.values import State, StateInfo
from reasoner.core.walk import random_walk
from reasoner.engine.game import Game
from reasoner.errors import NoLegalMoveError
from reasoner.gdl.components import depending_on
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import (
    GDL_KEYWORDS,
    Atom,
    Function,
    GameDescription,
    Variable,
    literal_atoms,
)

__all__ = [
    "MAX_STATIC_PAIRS",
    "Board",
    "FluentTable",
    "OrderRelation",
    "Ordering",
    "Quantity",
    "StepCounter",
    "Structures",
    "covering_ordering",
    "detect_structures",
]

# Static binary relations with more pairs than this are not examined (cost bound).
MAX_STATIC_PAIRS = 20_000
# Fluent functions with more arguments than this are not tried as boards (2^n hypotheses).
MAX_BOARD_ARITY = 8
# A successor chain needs at least this many elements.
MIN_CHAIN = 3


@dataclass(frozen=True)
class Ordering:
    """A successor chain over constants, first to last (``succ``: 1, 2, 3, ...)."""

    relation: str  # the static relation that defines it, e.g. "succ"
    elements: tuple[str, ...]  # GDL texts in chain order

    def position(self, term: str) -> int | None:
        """The index of ``term`` in the chain, or None."""
        try:
            return self.elements.index(term)
        except ValueError:
            return None

    def distance(self, a: str, b: str) -> int | None:
        """Steps from ``a`` to ``b`` along the chain (negative when ``b`` comes first);
        None when either is not in the chain."""
        i, j = self.position(a), self.position(b)
        return None if i is None or j is None else j - i

    def __len__(self) -> int:
        return len(self.elements)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {"relation": self.relation, "elements": list(self.elements)}


@dataclass(frozen=True)
class OrderRelation:
    """A static binary relation that is antisymmetric and transitive (``lessthan``)."""

    relation: str
    pairs: frozenset[tuple[str, str]]  # the (a, b) for which it holds
    ordering: Ordering | None  # the successor chain it is based on, when one is found
    # True when the relation runs against the chain (``greater``: b comes before a).
    reversed: bool = False

    @property
    def domain(self) -> frozenset[str]:
        return frozenset(x for pair in self.pairs for x in pair)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (the pairs are summarised by their number)."""
        return {"relation": self.relation, "pairs": len(self.pairs),
                "domain": len(self.domain),
                "ordering": _ordering_summary(self.ordering), "reversed": self.reversed}


@dataclass(frozen=True)
class StepCounter:
    """A fluent ``(f ?x)`` advanced every step along a successor chain."""

    function: str
    ordering: Ordering

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {"function": self.function, "ordering": self.ordering.as_dict()}


@dataclass(frozen=True)
class Board:
    """A fluent function whose ``inputs`` arguments are coordinates and whose ``outputs``
    arguments are the contents: in every state seen, each coordinate tuple has at most one
    content. Positions are 0-based argument indices."""

    function: str
    arity: int
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    orderings: tuple[Ordering | None, ...]  # per input position, in ``inputs`` order
    cells: int  # how many coordinate tuples the fluent table has
    markers: tuple[str, ...] = ()  # contents seen (output arguments joined by a space)
    pieces: tuple[str, ...] = ()  # markers never seen on more than one cell at a time

    @property
    def ordered(self) -> bool:
        return bool(self.orderings) and all(o is not None for o in self.orderings)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (orderings by relation and length)."""
        return {"function": self.function, "arity": self.arity, "inputs": list(self.inputs),
                "outputs": list(self.outputs), "ordered": self.ordered,
                "orderings": [_ordering_summary(o) for o in self.orderings],
                "cells": self.cells, "markers": list(self.markers),
                "pieces": list(self.pieces)}


@dataclass(frozen=True)
class Quantity:
    """A fluent whose argument at ``position`` is an amount on an ordered domain: for each
    value of the other (input) arguments at most one amount holds."""

    function: str
    arity: int
    inputs: tuple[int, ...]
    position: int
    ordering: Ordering

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {"function": self.function, "arity": self.arity, "inputs": list(self.inputs),
                "position": self.position, "ordering": _ordering_summary(self.ordering)}


@dataclass(frozen=True)
class Structures:
    """Everything detected in one game."""

    successors: tuple[Ordering, ...] = ()
    orders: tuple[OrderRelation, ...] = ()
    step_counters: tuple[StepCounter, ...] = ()
    boards: tuple[Board, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    turn_taking: bool = False
    noop_moves: dict[str, tuple[str, ...]] = field(default_factory=dict)  # per role
    teams: tuple[tuple[str, ...], ...] = ()
    states_seen: int = 0
    terminal_states_seen: int = 0
    # True when the simulation stopped early at its time limit (the result then depends on
    # the machine's speed).
    time_limited: bool = False

    def board(self, function: str) -> Board | None:
        """The first board of a fluent function, or None."""
        return next((b for b in self.boards if b.function == function), None)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {
            "successors": [o.as_dict() for o in self.successors],
            "orders": [o.as_dict() for o in self.orders],
            "step_counters": [c.as_dict() for c in self.step_counters],
            "boards": [b.as_dict() for b in self.boards],
            "quantities": [q.as_dict() for q in self.quantities],
            "turn_taking": self.turn_taking,
            "noop_moves": {role: list(moves) for role, moves in self.noop_moves.items()},
            "teams": [list(team) for team in self.teams],
            "states_seen": self.states_seen,
            "terminal_states_seen": self.terminal_states_seen,
            "time_limited": self.time_limited,
        }


def _ordering_summary(ordering: Ordering | None) -> dict[str, Any] | None:
    if ordering is None:
        return None
    return {"relation": ordering.relation, "length": len(ordering),
            "first": ordering.elements[0], "last": ordering.elements[-1]}


# -- the fluent table ------------------------------------------------------------------------

Signature = tuple[str, int]


@dataclass(frozen=True)
class FluentTable:
    """The game's fluent table split into function name and argument texts, per fluent id.

    ``ids[(name, arity)]`` lists the ids of that function's fluents in table order; a
    fluent that is a constant has arity 0.
    """

    entries: tuple[tuple[str, tuple[str, ...]], ...]
    ids: dict[Signature, tuple[int, ...]]

    @classmethod
    def of(cls, fluents: Sequence[str]) -> FluentTable:
        """Parse a fluent table (GDL texts as :attr:`Game.fluents` gives them)."""
        entries = tuple(_split_term(text) for text in fluents)
        ids: dict[Signature, list[int]] = {}
        for index, (name, args) in enumerate(entries):
            ids.setdefault((name, len(args)), []).append(index)
        return cls(entries, {sig: tuple(found) for sig, found in ids.items()})

    def values(self, signature: Signature, position: int) -> list[str]:
        """The distinct values at an argument position, in table order."""
        return list(dict.fromkeys(self.entries[i][1][position] for i in self.ids[signature]))

    def mask(self, signature: Signature) -> int:
        """The bitmask of the function's fluent ids."""
        bits = 0
        for index in self.ids.get(signature, ()):
            bits |= 1 << index
        return bits


def _split_term(text: str) -> tuple[str, tuple[str, ...]]:
    term = parse_term(text, case_sensitive=True)
    if isinstance(term, Function):
        return term.name, tuple(str(arg) for arg in term.args)
    return str(term), ()


def _ids_in(bits: int) -> Iterator[int]:
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


# -- static relations ------------------------------------------------------------------------


def static_relations(description: GameDescription) -> frozenset[str]:
    """Names of the relations whose rules never read ``true`` or ``does``, directly or
    through other relations (GDL keywords excluded)."""
    reads: dict[str, set[str]] = {}
    for rule in description.rules:
        names = reads.setdefault(rule.head.name, set())
        for literal in rule.body:
            names.update(atom.name for atom, _ in literal_atoms(literal))
    dynamic = depending_on(reads, ("true", "does"))
    return frozenset(name for name in reads if name not in dynamic and name not in GDL_KEYWORDS)


def static_binary_facts(game: Game) -> dict[str, frozenset[tuple[str, str]]]:
    """The extension of every static binary relation, from the game program grounded
    without a state (static rules ground to facts there), by relation name."""
    wanted = static_relations(game.description)
    ctl = new_control()
    ctl.add("base", [], game.translation.game_program)
    ctl.ground([("base", [])])
    found: dict[str, set[tuple[str, str]]] = {}
    for atom in ctl.symbolic_atoms:
        symbol = atom.symbol
        if len(symbol.arguments) != 2 or not atom.is_fact:
            continue
        name = relation_name(str(symbol.name))
        if name in wanted:
            a, b = symbol.arguments
            found.setdefault(name, set()).add((symbol_to_gdl(a), symbol_to_gdl(b)))
    return {name: frozenset(pairs) for name, pairs in sorted(found.items())
            if len(pairs) <= MAX_STATIC_PAIRS}


def successor_chains(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, ...]] | None:
    """The chains of a functional, injective, irreflexive, acyclic binary relation (sorted by
    their first element); None when the relation is not such."""
    after: dict[str, str] = {}
    before: dict[str, str] = {}
    for a, b in pairs:
        if a == b or a in after or b in before:
            return None
        after[a] = b
        before[b] = a
    nodes = set(after) | set(before)
    chains: list[tuple[str, ...]] = []
    seen = 0
    for start in sorted(a for a in after if a not in before):
        chain = [start]
        while chain[-1] in after:
            chain.append(after[chain[-1]])
        seen += len(chain)
        chains.append(tuple(chain))
    if seen != len(nodes):  # some element lies on a cycle
        return None
    return chains


def find_successors(facts: dict[str, frozenset[tuple[str, str]]]) -> tuple[Ordering, ...]:
    """One :class:`Ordering` per chain (of at least :data:`MIN_CHAIN` elements) of every
    successor relation."""
    found: list[Ordering] = []
    for name, pairs in facts.items():
        chains = successor_chains(pairs)
        if chains is not None:
            found.extend(Ordering(name, chain) for chain in chains if len(chain) >= MIN_CHAIN)
    return tuple(found)


def is_order_relation(pairs: frozenset[tuple[str, str]]) -> bool:
    """Antisymmetric, transitive, and with at least one two-step path ``a < b < c``."""
    after: dict[str, set[str]] = {}
    for a, b in pairs:
        if a != b:
            if (b, a) in pairs:
                return False
            after.setdefault(a, set()).add(b)
    composed = False
    for a, bs in after.items():
        for b in bs:
            for c in after.get(b, ()):
                if c != a:
                    if (a, c) not in pairs:
                        return False
                    composed = True
    return composed


def find_orders(facts: dict[str, frozenset[tuple[str, str]]],
                successors: Sequence[Ordering]) -> tuple[OrderRelation, ...]:
    """Every order relation, linked to the shortest ordering that agrees with it, or else
    to the shortest one it runs against (``reversed``)."""
    found = []
    for name, pairs in facts.items():
        if not is_order_relation(pairs):
            continue
        agreeing = [o for o in successors if _agrees(o, pairs)]
        if agreeing:
            found.append(OrderRelation(name, pairs, min(agreeing, key=len)))
            continue
        flipped = frozenset((b, a) for a, b in pairs)
        against = [o for o in successors if _agrees(o, flipped)]
        found.append(OrderRelation(name, pairs, min(against, key=len) if against else None,
                                   reversed=bool(against)))
    return tuple(found)


def _agrees(ordering: Ordering, pairs: frozenset[tuple[str, str]]) -> bool:
    index = {e: i for i, e in enumerate(ordering.elements)}
    for a, b in pairs:
        i, j = index.get(a), index.get(b)
        if i is None or j is None or i > j:
            return False
    return True


def covering_ordering(values: Iterable[str], orderings: Sequence[Ordering]) -> Ordering | None:
    """The shortest ordering whose chain holds every value (at least two distinct values
    are needed; the first of equally short ones)."""
    wanted = set(values)
    if len(wanted) < 2:
        return None
    holding = [o for o in orderings if wanted <= set(o.elements)]
    return min(holding, key=len) if holding else None


# -- simulation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Visit:
    """One state of a playout: its fluent bits, legal move ids per role, and goal values per
    role when it is terminal (None for a role with none or several)."""

    bits: int
    legal: tuple[tuple[int, ...], ...]
    terminal: bool
    goals: tuple[int | None, ...] = ()


def _playouts(game: Game, playouts: int, max_steps: int, seed: int,
              time_limit: float | None = None) -> tuple[list[list[_Visit]], bool]:
    """Seeded uniformly random playouts from the initial state, every state recorded, and
    whether the time limit (seconds) cut them short. A playout stops at a terminal state,
    after ``max_steps`` steps, or when a role has no legal move."""
    rng = random.Random(seed)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    runs: list[list[_Visit]] = []

    def visit(state: State, info: StateInfo) -> _Visit:
        goals: tuple[int | None, ...] = ()
        if info.terminal:
            goals = tuple(v[0] if len(v) == 1 else None for v in info.goals)
        return _Visit(state.bits, info.legal, info.terminal, goals)

    for _ in range(playouts):
        run = [visit(game.initial_state, game.info(game.initial_state))]
        runs.append(run)
        try:
            for step in random_walk(game, game.initial_state, rng, max_steps):
                if deadline is not None and time.perf_counter() > deadline:
                    return runs, True
                run.append(visit(step.successor, step.successor_info))
        except NoLegalMoveError:
            continue  # the playout ends where a role has no legal move
    return runs, False


def _turn_taking(game: Game, visits: Iterable[_Visit]) -> tuple[bool, dict[str, tuple[str, ...]]]:
    """Whether at most one role had several legal moves in every non-terminal state, and
    (if so) each role's single moves in states where another role had several."""
    noops: dict[int, set[int]] = {i: set() for i in range(len(game.roles))}
    for visit in visits:
        if visit.terminal:
            continue
        busy = [i for i, legal in enumerate(visit.legal) if len(legal) > 1]
        if len(busy) > 1:
            return False, {}
        if busy:
            for i, legal in enumerate(visit.legal):
                if len(legal) == 1:
                    noops[i].add(legal[0])
    moves = game.all_moves
    return True, {role: tuple(sorted(moves[m].text for m in noops[i]))
                  for i, role in enumerate(game.roles)}


def _teams(roles: Sequence[str], terminal: Sequence[_Visit]) -> tuple[tuple[str, ...], ...]:
    """Roles whose goal values agree in every terminal state (singletons without any)."""
    if not terminal:
        return tuple((role,) for role in roles)
    groups: dict[tuple[int | None, ...], list[str]] = {}
    for index, role in enumerate(roles):
        key = tuple(visit.goals[index] for visit in terminal)
        groups.setdefault(key, []).append(role)
    return tuple(tuple(team) for team in groups.values())


# -- dynamic structures ----------------------------------------------------------------------


def _functional(table: FluentTable, signature: Signature, inputs: Sequence[int],
                outputs: Sequence[int], states: Iterable[int]) -> bool:
    """Whether each input tuple has at most one output tuple in every state."""
    mask = table.mask(signature)
    entries = table.entries
    for bits in states:
        seen: dict[tuple[str, ...], tuple[str, ...]] = {}
        for index in _ids_in(bits & mask):
            args = entries[index][1]
            key = tuple(args[i] for i in inputs)
            value = tuple(args[i] for i in outputs)
            if seen.setdefault(key, value) != value:
                return False
    return True


def _max_instances(table: FluentTable, signature: Signature, states: Iterable[int]) -> int:
    mask = table.mask(signature)
    return max((bits & mask).bit_count() for bits in states)


def find_boards(table: FluentTable, states: Sequence[int],
                successors: Sequence[Ordering]) -> tuple[Board, ...]:
    """Boards among the fluent functions of arity 2 to :data:`MAX_BOARD_ARITY`."""
    boards: list[Board] = []
    for signature in sorted(table.ids):
        arity = signature[1]
        if not 2 <= arity <= MAX_BOARD_ARITY or _max_instances(table, signature, states) < 2:
            continue
        survivors: list[tuple[int, ...]] = []
        for size in range(1, arity):
            for inputs in combinations(range(arity), size):
                if any(set(s) <= set(inputs) for s in survivors):
                    continue  # a subset already survives: not minimal
                outputs = tuple(i for i in range(arity) if i not in inputs)
                if _functional(table, signature, inputs, outputs, states):
                    survivors.append(inputs)
        boards.extend(_board(table, signature, inputs, states, successors)
                      for inputs in survivors)
    return tuple(boards)


def _board(table: FluentTable, signature: Signature, inputs: tuple[int, ...],
           states: Sequence[int], successors: Sequence[Ordering]) -> Board:
    name, arity = signature
    outputs = tuple(i for i in range(arity) if i not in inputs)
    entries = table.entries
    ids = table.ids[signature]
    cells = len({tuple(entries[i][1][p] for p in inputs) for i in ids})
    orderings = tuple(covering_ordering(table.values(signature, p), successors) for p in inputs)
    marker_of = {i: " ".join(entries[i][1][p] for p in outputs) for i in ids}
    mask = table.mask(signature)
    markers: dict[str, int] = {}  # marker -> most cells it was seen on at once
    for bits in states:
        counts: dict[str, int] = {}
        for index in _ids_in(bits & mask):
            marker = marker_of[index]
            counts[marker] = counts.get(marker, 0) + 1
        for marker, count in counts.items():
            markers[marker] = max(markers.get(marker, 0), count)
    order = sorted(markers)
    return Board(name, arity, inputs, outputs, orderings, cells, tuple(order),
                 tuple(m for m in order if markers[m] == 1))


def find_quantities(table: FluentTable, states: Sequence[int], successors: Sequence[Ordering],
                    boards: Sequence[Board] = ()) -> tuple[Quantity, ...]:
    """Fluent arguments on an ordered domain that are functional given the others and are
    no coordinate (input) of a board of the same function."""
    found: list[Quantity] = []
    for signature in sorted(table.ids):
        name, arity = signature
        if arity == 0 or _max_instances(table, signature, states) == 0:
            continue
        coordinates = {i for b in boards if (b.function, b.arity) == signature
                       for i in b.inputs}
        for position in range(arity):
            if position in coordinates:
                continue
            ordering = covering_ordering(table.values(signature, position), successors)
            if ordering is None:
                continue
            inputs = tuple(i for i in range(arity) if i != position)
            if _functional(table, signature, inputs, (position,), states):
                found.append(Quantity(name, arity, inputs, position, ordering))
    return tuple(found)


def _syntactic_counters(description: GameDescription,
                        successors: Sequence[Ordering]) -> dict[str, set[str]]:
    """Unary functions ``f`` with a rule ``(<= (next (f ?y)) ... (true (f ?x)) ...
    (r ?x ?y))`` for a successor relation ``r``: function -> such relations."""
    relations = {o.relation for o in successors}
    found: dict[str, set[str]] = {}
    for rule in description.rules:
        head = rule.head
        if head.name != "next" or head.arity != 1:
            continue
        fluent = head.args[0]
        if not (isinstance(fluent, Function) and len(fluent.args) == 1
                and isinstance(fluent.args[0], Variable)):
            continue
        y = fluent.args[0]
        olds = {lit.args[0].args[0] for lit in rule.body
                if isinstance(lit, Atom) and lit.name == "true" and lit.arity == 1
                and isinstance(lit.args[0], Function) and lit.args[0].name == fluent.name
                and len(lit.args[0].args) == 1 and isinstance(lit.args[0].args[0], Variable)}
        for lit in rule.body:
            if (isinstance(lit, Atom) and lit.name in relations and lit.arity == 2
                    and lit.args[1] == y and lit.args[0] in olds):
                found.setdefault(fluent.name, set()).add(lit.name)
    return found


def find_step_counters(game: Game, table: FluentTable, runs: Sequence[Sequence[_Visit]],
                       successors: Sequence[Ordering]) -> tuple[StepCounter, ...]:
    """Unary fluents with exactly one instance per state that advance one chain step per
    game step (see the module documentation)."""
    syntactic = _syntactic_counters(game.description, successors)
    found: list[StepCounter] = []
    for signature in sorted(table.ids):
        name, arity = signature
        if arity != 1:
            continue
        values = table.values(signature, 0)
        preferred = [o for o in successors if o.relation in syntactic.get(name, ())]
        ordering = covering_ordering(values, preferred) or covering_ordering(values, successors)
        if ordering is None:
            continue
        advances = _advances(table, signature, runs, ordering)
        if advances is not None and (advances > 0 or name in syntactic):
            found.append(StepCounter(name, ordering))
    return tuple(found)


def _advances(table: FluentTable, signature: Signature, runs: Sequence[Sequence[_Visit]],
              ordering: Ordering) -> int | None:
    """How many simulated steps advanced the counter by one; None when a state holds other
    than one instance or a step does anything else."""
    mask = table.mask(signature)
    index = {e: i for i, e in enumerate(ordering.elements)}
    position = {f: index.get(table.entries[f][1][0]) for f in table.ids[signature]}
    steps = 0
    for run in runs:
        previous: int | None = None
        for visit in run:
            held = bits_single(visit.bits & mask)
            if held is None:
                return None
            current = position[held]
            if current is None:
                return None
            if previous is not None:
                if current != previous + 1:
                    return None
                steps += 1
            previous = current
    return steps


def bits_single(bits: int) -> int | None:
    """The only set bit's index, or None when none or several are set."""
    if bits == 0 or bits & (bits - 1):
        return None
    return bits.bit_length() - 1


# -- the whole detection ---------------------------------------------------------------------


def detect_structures(game: Game, *, playouts: int = 20, max_steps: int = 200,
                      seed: int = 0, time_limit: float | None = None) -> Structures:
    """Detect the game's structures from its rules and ``playouts`` seeded random playouts
    of at most ``max_steps`` steps each (see the module documentation). The same seed gives
    the same structures.

    ``time_limit`` (seconds) bounds the simulation: on a game whose steps are slow (a large
    game on the clingo backend takes ~0.1 s a step) the playouts stop there and the
    structures rest on the states seen so far (``time_limited`` is then set, and the result
    depends on the machine's speed). Without it the simulation always runs in full.
    """
    facts = static_binary_facts(game)
    successors = find_successors(facts)
    orders = find_orders(facts, successors)
    table = FluentTable.of(game.fluents)
    runs, limited = _playouts(game, playouts, max_steps, seed, time_limit)
    visits = [visit for run in runs for visit in run]
    states = list(dict.fromkeys(visit.bits for visit in visits))
    terminal = list({visit.bits: visit for visit in visits if visit.terminal}.values())
    turn_taking, noops = _turn_taking(game, visits)
    boards = find_boards(table, states, successors)
    return Structures(
        successors=successors,
        orders=orders,
        step_counters=find_step_counters(game, table, runs, successors),
        boards=boards,
        quantities=find_quantities(table, states, successors, boards),
        turn_taking=turn_taking,
        noop_moves=noops,
        teams=_teams(game.roles, terminal),
        states_seen=len(states),
        terminal_states_seen=len(terminal),
        time_limited=limited,
    )

