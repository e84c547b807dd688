"""A propositional network compiled out of clingo's ground program.

The game program is grounded over the relaxed superset with ``true`` and ``does`` external,
exactly as the clingo engine grounds it, and the ground-program reader
(:mod:`reasoner.asp.ground_rules`) hands over every ground rule. Those rules become a
network of *signals*:

* inputs: one signal per fluent of the fluent table (``true``) and per move of the move
  table (``does``), in the clingo engine's order, so states and move ids mean the same on
  both backends;
* nodes: every other atom the outputs depend on, the disjunction of its rule bodies, each
  body a conjunction of signals and negated signals (an AND gate; the node an OR gate).

While building, facts and impossible atoms are folded into the bodies that read them,
identical bodies are merged, and atoms no output reads are dropped. Nodes are then split
into strongly connected components in dependency order: a component of one node without a
self loop is evaluated once; a recursive component is iterated to its least fixpoint (its
cycles are positive: a negative edge inside a component means the rules are not stratified
on the ground level, which is refused like the clingo engine refuses it).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from reasoner.asp.encoding import constant_text
from reasoner.asp.ground_rules import (
    ABSENT,
    FACT,
    GroundingStopped,
    Symbol,
    ground_rules,
    number,
)
from reasoner.asp.superset import Superset
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation
from reasoner.asp.variable_free import VariableFreeProgram
from reasoner.errors import GdlValidationError, GoalValueError, ResourceLimitError, seconds_text
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.components import strongly_connected_components

__all__ = ["FALSE", "TRUE", "Body", "FoldedRules", "Network", "NetworkBounds", "NetworkSize",
           "build_network", "fold_rules"]

# Constant signals: outputs that the folding decided (the same numbers the ground-program
# reader gives an atom the grounder decided).
TRUE = FACT
FALSE = ABSENT


@dataclass(frozen=True)
class NetworkBounds:
    """How large and slow a network may get before building it is refused."""

    seconds: float = 30.0
    rules: int = 2_000_000
    gates: int = 400_000


# Measured (code written and compiled, one state at a time): checkers-mustjump's 560,000
# edges in 2.0 s, hex's narrow 231,000 in 2.0 s, pancakes88's 968,000 in 7.8 s.
_COMPILE_SECONDS_PER_EDGE = 8e-6


@dataclass(frozen=True, slots=True)
class Body:
    """A conjunction: every ``positive`` signal holds and no ``negative`` one does."""

    positive: tuple[int, ...]
    negative: tuple[int, ...]


@dataclass(frozen=True)
class NetworkSize:
    """What the network is made of (after folding, merging and dropping)."""

    propositions: int  # input and node signals
    gates: int  # AND gates (bodies) plus OR gates (nodes with several bodies)
    edges: int  # literal occurrences in bodies plus body-to-node links
    recursive_components: int
    build_seconds: float

    def describe(self) -> str:
        return (f"{self.propositions:,} propositions, {self.gates:,} gates, "
                f"{self.edges:,} edges, built in {self.build_seconds:.2f} s")


@dataclass(frozen=True)
class Network:
    """The compiled network of one game.

    Signals ``0 .. fluents-1`` are the fluent inputs, the next ``moves`` ones the move
    inputs, then come the nodes. Outputs name a signal or one of the constants
    :data:`TRUE` and :data:`FALSE`.
    """

    roles: tuple[str, ...]
    fluent_texts: tuple[str, ...]
    move_texts: tuple[str, ...]
    move_role: tuple[int, ...]
    nodes: int
    bodies: tuple[Body, ...]
    node_bodies: tuple[tuple[int, ...], ...]  # per node, indices into ``bodies``
    # Evaluation order: components of nodes, dependencies first, and whether each recurses.
    components: tuple[tuple[tuple[int, ...], bool], ...]
    legal: tuple[int, ...]  # per move
    next: tuple[int, ...]  # per fluent
    init: tuple[int, ...]  # per fluent
    terminal: int
    goals: tuple[tuple[tuple[int, int], ...], ...]  # per role: (value, signal)
    size: NetworkSize
    ground_atoms: int  # of the ground program the network was compiled from
    # GDL-II: per ground ``sees`` atom, (role number, percept as GDL text, signal); the
    # percepts a state and a joint move give are the signals that hold once they are set.
    sees: tuple[tuple[int, str, int], ...] = ()

    @property
    def inputs(self) -> int:
        return len(self.fluent_texts) + len(self.move_texts)

    def reached(self, outputs: Iterable[int]) -> set[int]:
        """The nodes (numbered from 0, after the inputs) that ``outputs`` (signals) read,
        directly or through other nodes."""
        inputs = self.inputs
        seen: set[int] = set()
        pending = [s - inputs for s in outputs if s >= inputs]
        while pending:
            node = pending.pop()
            if node in seen:
                continue
            seen.add(node)
            for index in self.node_bodies[node]:
                body = self.bodies[index]
                pending.extend(s - inputs for s in (*body.positive, *body.negative)
                               if s >= inputs)
        return seen


class GroundingTooLarge(ResourceLimitError):
    """The network's refusal because its program did not even ground within the bounds: a
    program that large will not ground once for clingo either."""


def build_network(translation: Translation, superset: Superset, roles: Sequence[str],
                  bounds: NetworkBounds | None = None, *, compiling: bool = False) -> Network:
    """Ground the game program over the superset and compile it into a network; with
    ``compiling``, its code is to be generated within the same time bound, so the build
    stops as soon as the edges so far could not be compiled in time.

    Raises:
        ResourceLimitError: the network would exceed ``bounds`` (``bound`` is "time" or
            "size"); the game still works on the clingo backend.
        GdlValidationError: a goal value is not an integer in 0..100, or the ground rules
            are not stratified.
    """
    # The build makes a tuple or two per ground rule and no cycles: the cyclic collector,
    # left on, walks every live object again and again (atariGo_7x7's instantiated game:
    # 4.2 s of its gates' 4.3 s).
    with paused_collector():
        return _build_network(translation, superset, roles, bounds, compiling)


def _build_network(translation: Translation, superset: Superset, roles: Sequence[str],
                   bounds: NetworkBounds | None, compiling: bool) -> Network:
    """:func:`build_network`'s work."""
    bounds = bounds or NetworkBounds()
    start = time.perf_counter()
    deadline = start + bounds.seconds
    roles = tuple(roles)
    role_index = {constant_text(name): i for i, name in enumerate(roles)}
    moves = superset.role_moves(role_index)
    fluents = superset.fluents
    ground = _ground(translation, superset, moves, bounds, deadline)
    if ground.unsupported:
        raise ResourceLimitError(f"no network: the ground program has {ground.unsupported}",
                                 bound="size", reason="unsupported")
    _check_time(start, deadline, bounds)

    # Signals: the inputs first, in the engine's table order.
    atom_signal: dict[int, int] = {}
    inputs = [ground.atom("true", f) for f in fluents]
    inputs += [ground.atom("does", r, m) for _, r, m in moves]
    for index, atom in enumerate(inputs):
        if atom > 0:
            atom_signal[atom] = index
    goal_symbols: list[tuple[int, int, int]] = []  # role, value, atom
    for (role_term, value_term), atom in ground.atoms("goal", 2):
        value = number(value_term)
        if value is None or not 0 <= value <= 100:
            raise GoalValueError.of(symbol_to_gdl(role_term), symbol_to_gdl(value_term))
        role_number = role_index.get(str(role_term))
        if role_number is not None:
            goal_symbols.append((role_number, value, atom))

    folded = fold_rules(ground.rules, atom_signal, lambda: _check_time(start, deadline, bounds))

    def output(atom: int) -> int:
        """An output's atom after folding, or a constant."""
        if atom < 0:
            return atom
        if atom in folded.constant:
            return folded.constant[atom]
        return atom if atom in folded.bodies or atom in atom_signal else FALSE

    legal_atoms = [output(ground.atom("legal", r, m)) for _, r, m in moves]
    next_atoms = [output(ground.atom("next", f)) for f in fluents]
    init_atoms = [output(ground.atom("init", f)) for f in fluents]
    terminal_atom = output(ground.atom("terminal"))
    sees_atoms: list[tuple[int, str, int]] = []
    for (role_term, percept_term), atom in ground.atoms("sees", 2):
        role_number = role_index.get(str(role_term))
        if role_number is not None:
            sees_atoms.append((role_number, symbol_to_gdl(percept_term), output(atom)))
    goal_atoms: list[list[tuple[int, int]]] = [[] for _ in roles]
    for role_number, value_number, atom in goal_symbols:
        goal_atoms[role_number].append((value_number, output(atom)))
    _check_time(start, deadline, bounds)

    # Keep the atoms the outputs read, numbered as nodes after the inputs.
    n_inputs = len(fluents) + len(moves)
    wanted = [a for a in [*legal_atoms, *next_atoms, *init_atoms, terminal_atom,
                          *(a for per in goal_atoms for _, a in per),
                          *(a for _, _, a in sees_atoms)]
              if isinstance(a, int) and a > 0]
    node_of: dict[int, int] = {}
    order: list[int] = []
    pending = list(wanted)
    while pending:
        atom = pending.pop()
        if atom in node_of or atom in atom_signal:
            continue
        node_of[atom] = len(order)
        order.append(atom)
        for body in folded.bodies.get(atom, ()):
            pending.extend(abs(literal) for literal in body)

    def signal(atom: int) -> int:
        if atom < 0:  # TRUE or FALSE
            return atom
        found = atom_signal.get(atom)
        return found if found is not None else n_inputs + node_of[atom]

    body_index: dict[Body, int] = {}
    bodies: list[Body] = []
    node_bodies: list[tuple[int, ...]] = []
    edges = 0
    for count, atom in enumerate(order):
        if count & 0x3FF == 0:
            _check_time(start, deadline, bounds)
            if compiling:
                _check_compile_time(edges, deadline, bounds, "more than ")
        own: dict[int, None] = {}  # the node's bodies, in order, once each
        for literals in folded.bodies.get(atom, ()):
            gate = Body(tuple(sorted({signal(x) for x in literals if x > 0})),
                        tuple(sorted({signal(-x) for x in literals if x < 0})))
            known = body_index.get(gate)
            if known is None:
                known = body_index[gate] = len(bodies)
                bodies.append(gate)
                edges += len(gate.positive) + len(gate.negative)
            own[known] = None
        node_bodies.append(tuple(own))
        edges += len(own)
        if len(bodies) > bounds.gates:
            raise ResourceLimitError(
                f"no network: more than {bounds.gates:,} gates", bound="size",
                limit=bounds.gates, reason="gates")
    _check_time(start, deadline, bounds)
    if compiling:
        _check_compile_time(edges, deadline, bounds)

    graph: dict[int, list[int]] = {}
    negative_edges: list[tuple[int, int]] = []
    for node, gate_ids in enumerate(node_bodies):
        children: list[int] = []
        for index in gate_ids:
            gate = bodies[index]
            children.extend(s - n_inputs for s in gate.positive if s >= n_inputs)
            for s in gate.negative:
                if s >= n_inputs:
                    children.append(s - n_inputs)
                    negative_edges.append((node, s - n_inputs))
        graph[node] = children
    component = strongly_connected_components(graph)
    for node, negated in negative_edges:
        if component[node] == component[negated]:
            names = ground.atom_texts()
            head, other = (names.get(order[x], "an auxiliary atom") for x in (node, negated))
            raise GdlValidationError(
                "the rules are not stratified: negation through recursion between ground "
                f"atoms ({head} depends on not {other} and back)", reason="unstratified")
    members: dict[int, list[int]] = defaultdict(list)
    for node in range(len(order)):
        members[component[node]].append(node)
    components = tuple(
        (tuple(nodes), len(nodes) > 1 or nodes[0] in graph[nodes[0]])
        for _, nodes in sorted(members.items())
    )
    gates = len(bodies) + sum(1 for ids in node_bodies if len(ids) > 1)
    size = NetworkSize(
        propositions=n_inputs + len(order), gates=gates, edges=edges,
        recursive_components=sum(1 for _, recursive in components if recursive),
        build_seconds=time.perf_counter() - start)
    return Network(
        roles=roles,
        fluent_texts=tuple(symbol_to_gdl(f) for f in fluents),
        move_texts=tuple(symbol_to_gdl(m) for _, _, m in moves),
        move_role=tuple(r for r, _, _ in moves),
        nodes=len(order), bodies=tuple(bodies), node_bodies=tuple(node_bodies),
        components=components,
        legal=tuple(map(signal, legal_atoms)), next=tuple(map(signal, next_atoms)),
        init=tuple(map(signal, init_atoms)), terminal=signal(terminal_atom),
        goals=tuple(tuple(sorted((v, signal(a)) for v, a in per)) for per in goal_atoms),
        size=size, ground_atoms=ground.atom_count,
        sees=tuple((r, text, signal(a)) for r, text, a in sees_atoms),
    )


@dataclass
class FoldedRules:
    """Ground rules after constant folding (see :func:`fold_rules`)."""

    bodies: dict[int, list[tuple[int, ...]]]  # atom -> bodies (program literals)
    constant: dict[int, int]  # atom -> TRUE or FALSE


def fold_rules(rules: Iterable[tuple[Sequence[int], Sequence[int]]],
          inputs: dict[int, int], check: Callable[[], None]) -> FoldedRules:
    """Constant folding: an atom with an empty body holds; an atom without rules (and not an
    input) never does; literals over decided atoms leave the bodies that read them, and a
    body with a false literal goes. Repeated until nothing changes."""
    bodies: dict[int, list[tuple[int, ...]]] = defaultdict(list)
    for head, body in rules:
        for atom in head:
            bodies[atom].append(tuple(body))
    constant: dict[int, int] = {}

    def value(atom: int) -> int | None:
        if atom in inputs:
            return None
        found = constant.get(atom)
        if found is not None:
            return found
        return None if atom in bodies else FALSE

    changed = True
    while changed:
        check()
        changed = False
        for atom in list(bodies):
            if atom in constant:
                continue
            kept: list[tuple[int, ...]] = []
            holds = False
            for body in bodies[atom]:
                literals: list[int] = []
                dead = False
                for literal in body:
                    decided = value(abs(literal))
                    if decided is None:
                        literals.append(literal)
                    elif (decided == TRUE) != (literal > 0):
                        dead = True
                        break
                if dead:
                    continue
                if not literals:
                    holds = True
                    break
                kept.append(tuple(literals))
            if holds:
                constant[atom] = TRUE
                changed = True
            elif not kept:
                constant[atom] = FALSE
                changed = True
            elif kept != bodies[atom]:
                bodies[atom] = kept
                changed = True
    for atom in constant:
        del bodies[atom]
    return FoldedRules(dict(bodies), constant)


class _GroundProgram(Protocol):
    """What the network reads of a ground program: clingo's (see
    :class:`reasoner.asp.ground_rules.GroundRules`) or a variable-free game's own (see
    :class:`reasoner.asp.variable_free.VariableFreeProgram`)."""

    @property
    def rules(self) -> Iterable[tuple[Sequence[int], Sequence[int]]]: ...
    @property
    def unsupported(self) -> str: ...
    @property
    def atom_count(self) -> int: ...
    def atom(self, name: str, *arguments: Symbol) -> int: ...
    def atoms(self, name: str, arity: int) -> Iterator[tuple[tuple[Symbol, ...], int]]: ...
    def atom_texts(self) -> dict[int, str]: ...


def _ground(translation: Translation, superset: Superset,
            moves: Sequence[tuple[int, Symbol, Symbol]], bounds: NetworkBounds,
            deadline: float) -> _GroundProgram:
    """The game program ground over the superset, with ``true`` and ``does`` external. A
    game without variables is already ground: its rules are numbered without clingo."""
    try:
        if translation.ground:
            if len(translation.flats) > bounds.rules:
                raise GroundingStopped("size", bounds.rules)
            return VariableFreeProgram(translation.flats)
        externals = [f"#external true({f})." for f in superset.fluents]
        externals += [f"#external does({r},{m})." for _, r, m in moves]
        return ground_rules(translation.game_program + "\n".join(externals) + "\n",
                            max_rules=bounds.rules, deadline=deadline)
    except GroundingStopped as stopped:
        reason = (str(stopped) if stopped.bound == "size"
                  else "grounding the network's program took too long")
        raise GroundingTooLarge(f"no network: {reason}", bound=stopped.bound,
                                limit=stopped.max_rules if stopped.bound == "size" else None,
                                reason="grounding") from None


def _check_time(start: float, deadline: float, bounds: NetworkBounds) -> None:
    if time.perf_counter() > deadline:
        raise ResourceLimitError(
            f"no network: building it exceeded {seconds_text(bounds.seconds)}", bound="time",
            limit=bounds.seconds, reason="time")


def _check_compile_time(edges: int, deadline: float, bounds: NetworkBounds,
                        prefix: str = "") -> None:
    """Refuse a network whose code could not be compiled by the deadline (compiling cannot
    be interrupted)."""
    if time.perf_counter() + edges * _COMPILE_SECONDS_PER_EDGE > deadline:
        raise ResourceLimitError(
            f"no network: building it would exceed {seconds_text(bounds.seconds)} "
            f"({prefix}{edges:,} edges to compile)", bound="time", limit=bounds.seconds,
            reason="time")
