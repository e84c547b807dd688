"""A GDL game as a delete-relaxed planning task (Aldinger; docs/semantics/heuristics.md).

Built from the game's instantiation as compiled into its network
(:mod:`reasoner.propnet.network`: clingo's ground program, static parts evaluated):

* **state variables**: one per fluent (``init``, ``true`` and ``next`` share it), one per
  move (``legal`` and ``does`` share it), one per auxiliary atom the outputs read
  (``terminal`` and ``goal`` among them);
* **rules and their costs**: a legal rule makes its move's variable true and costs 1, or 0
  for a move no rule reads (a noop); a next rule whose body depends on a move (a move
  effect) costs 0; a next rule without one (the world's own change: a step counter, the
  turn switch) costs ``world_cost``, 0 by default and 1 as an option; derived atoms cost 0;
* **negative preconditions** are compiled away (positive normal form): ``not x`` becomes a
  fresh variable. For a fluent it holds in the evaluated state when the fluent does not,
  and is reached later when every next rule of the fluent can fail (the negation of its
  ``next`` formula); for an auxiliary atom it is reached when every rule body of the atom
  can fail (some literal of each body negated); not doing a move costs nothing, as a role
  may always do something else. A negated atom inside a recursive component is reached
  only through the non-recursive part of that dual formula (cycles of it never hold);
* **goal formulas**: ``goal(r, q) AND terminal`` per role and goal value.

The relaxation ignores delete effects: a fluent or move once true stays true, so a move is
paid for once however often its effects are used (the maze's ``move`` walks everywhere).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from reasoner.engine.game import Game
from reasoner.errors import ResourceLimitError
from reasoner.heuristics.planning import SHARED, PlanningTask, Rule
from reasoner.propnet.network import FALSE, TRUE, Body, Network, NetworkBounds

__all__ = ["DEFAULT_VIEW_BOUNDS", "RelaxedGame", "ViewBounds", "relaxed_network"]

MOVE, EFFECT, WORLD, DERIVED, NEGATION = "move", "effect", "world", "derived", "negation"
_MAX_INLINED = 20_000  # bodies of a next formula with its move-dependent atoms inlined
_MISSING = object()
# A body of a next formula with moves inlined: state literals that hold, state literals
# that do not, moves made, moves not made (move numbers).
_MoveBody = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_MAX_JOINS = 4096  # goal bodies times terminal bodies distributed at most


_VIEW_NETWORK = NetworkBounds(seconds=20.0, rules=2_000_000, gates=300_000)


@dataclass(frozen=True)
class ViewBounds:
    """How large the relaxed view of a game may get before it is refused."""

    network: NetworkBounds = _VIEW_NETWORK
    rules: int = 600_000


DEFAULT_VIEW_BOUNDS = ViewBounds()


def relaxed_network(game: Game, bounds: ViewBounds = DEFAULT_VIEW_BOUNDS) -> Network:
    """The game's network: the one its backend runs on, else one built for the view.

    Raises:
        ResourceLimitError: the game's instantiation is too large for the view.
    """
    if game.network is not None:
        return game.network
    from reasoner.asp.superset import compute_superset
    from reasoner.propnet.network import build_network

    try:
        return build_network(game.translation, compute_superset(game.translation),
                             game.roles, bounds.network)
    except ResourceLimitError as error:
        raise ResourceLimitError(f"the game is too large for the relaxed view ({error})",
                                 bound=error.bound, limit=error.limit,
                                 reason="relaxed-view") from None


class RelaxedGame:
    """The relaxed planning task of one game, with the state and goal mapping.

    Fact numbers: fluent ``i`` is fact ``i``, move ``j`` is fact ``fluents + j`` (the
    network's signal numbers), auxiliary atoms follow, then the negation variables.
    """

    def __init__(self, network: Network, *, world_cost: int = 0,
                 max_rules: int = DEFAULT_VIEW_BOUNDS.rules) -> None:
        if world_cost not in (0, 1):
            raise ValueError(f"world_cost must be 0 or 1, got {world_cost}")
        self.network = network
        self.world_cost = world_cost
        self._max_rules = max_rules
        self._fluents = len(network.fluent_texts)
        self._moves = len(network.move_texts)
        self._inputs = network.inputs
        self._facts = self._inputs + network.nodes
        self._names: list[str] = self._signal_names()
        self._rules: list[Rule] = []
        self._kinds: list[str] = []
        self._negation: dict[int, int] = {}  # signal -> its negation variable
        self._pending: list[int] = []  # signals whose negation still needs its rules
        self._effects: dict[int, frozenset[int]] = {}
        self._inlined: dict[int, object] = {}
        self._failing_cache: dict[tuple[object, ...], list[int] | None] = {}
        self._clauses: dict[tuple[int, ...], int] = {}
        self._readers: dict[int, list[int]] | None = None
        read = self._read_signals()
        self.noop = tuple(self._fluents + m not in read for m in range(self._moves))
        self._on_moves = self._move_dependent()
        self._build()
        self._keep_relevant()
        self.task = PlanningTask(self._facts, self._rules, self._names)
        self.kinds = tuple(self._kinds)
        negated = [(f, fact) for f, fact in self._negation.items() if f < self._fluents]
        self._negated_fluents = tuple(sorted(negated))

    # -- the mapping -------------------------------------------------------------------

    def initial_facts(self, bits: int) -> list[int]:
        """The facts that hold in the state with fluent bits ``bits``."""
        facts = []
        rest = bits
        while rest:
            low = rest & -rest
            facts.append(low.bit_length() - 1)
            rest ^= low
        facts.extend(fact for fluent, fact in self._negated_fluents
                     if not bits >> fluent & 1)
        return facts

    def goal_values(self, role: int) -> tuple[int, ...]:
        """The goal values the rules can give ``role``, ascending."""
        return tuple(value for value, signal in self.network.goals[role] if signal != FALSE)

    def goal_formulas(self, role: int, value: int) -> tuple[tuple[int, ...], ...]:
        """``goal(role, value) AND terminal`` in disjunctive form (see
        :meth:`_join_goal`); empty when it can never hold."""
        return self._goals.get((role, value), ())

    def _join_goal(self, role: int, value: int) -> tuple[tuple[int, ...], ...]:
        """``goal(role, value) AND terminal`` in disjunctive form, one level deep: each
        rule body of the goal atom joined with each rule body of ``terminal``, leaving out
        the joins that contradict themselves (a fact with its negation). Empty when it can
        never hold. (Distributing matters: h_FF reaches ``terminal`` by whatever ends the
        game first, which is often the other player's win.)"""
        goal = self._alternatives(self._goal_signal(role, value))
        terminal = self._alternatives(self.network.terminal)
        if len(goal) * len(terminal) > _MAX_JOINS:
            both = [s for s in (self._goal_signal(role, value), self.network.terminal)
                    if s != TRUE]
            return () if FALSE in both else (tuple(both),)
        joined: dict[tuple[int, ...], None] = {}
        for left in goal:
            for right in terminal:
                facts = tuple(sorted(set(left) | set(right)))
                if not self._contradictory(facts):
                    joined[facts] = None
        return tuple(joined)

    def _alternatives(self, signal: int, depth: int = 3) -> list[tuple[int, ...]]:
        """A signal's formula in disjunctive form: its rule bodies, with auxiliary atoms
        that have several bodies expanded in turn (``depth`` levels, while the joins stay
        under :data:`_MAX_JOINS`)."""
        if signal == FALSE:
            return []
        if signal == TRUE:
            return [()]
        if signal < self._inputs:
            return [(signal,)]
        found: list[tuple[int, ...]] = []
        for index in self.network.node_bodies[signal - self._inputs]:
            body = self.network.bodies[index]
            pre = self._pre(body)
            if pre is None:
                continue
            partial: list[tuple[int, ...]] = [()]
            for fact in pre:
                options: list[tuple[int, ...]] = [(fact,)]
                if depth > 1 and fact in body.positive and fact >= self._inputs and len(
                        self.network.node_bodies[fact - self._inputs]) > 1:
                    expanded = self._alternatives(fact, depth - 1)
                    if len(partial) * len(expanded) <= _MAX_JOINS:
                        options = expanded
                partial = [a + b for a in partial for b in options]
            found.extend(partial)
            if len(found) > _MAX_JOINS:
                return [(signal,)]
        return found

    def _contradictory(self, facts: tuple[int, ...]) -> bool:
        present = set(facts)
        return any(self._negation.get(fact) in present for fact in facts)

    def move_of(self, rule: int) -> int | None:
        """The move a move rule makes true, else None."""
        if self.kinds[rule] != MOVE:
            return None
        return self.task.effect[rule] - self._fluents

    def move_effects(self, move: int) -> frozenset[int]:
        """The fluents whose next formula reads the move (directly or through auxiliary
        atoms): what the move can change."""
        found = self._effects.get(move)
        if found is None:
            if self._readers is None:
                self._readers = self._reader_index()
            seen = {self._fluents + move}
            todo = [self._fluents + move]
            while todo:
                for reader in self._readers.get(todo.pop(), ()):
                    if reader not in seen:
                        seen.add(reader)
                        todo.append(reader)
            found = frozenset(f for f, signal in enumerate(self.network.next)
                              if signal in seen)
            self._effects[move] = found
        return found

    def _reader_index(self) -> dict[int, list[int]]:
        readers: dict[int, list[int]] = {}
        for node, indices in enumerate(self.network.node_bodies):
            for index in indices:
                body = self.network.bodies[index]
                for signal in (*body.positive, *body.negative):
                    readers.setdefault(signal, []).append(self._inputs + node)
        return readers

    def describe_rule(self, rule: int) -> str:
        """A rule's effect as GDL-like text: ``(does robot move)``, ``(next (step 2))``."""
        return self._names[self.task.effect[rule]]

    # -- building ------------------------------------------------------------------------

    def _signal_names(self) -> list[str]:
        net = self.network
        names = [f"(true {text})" for text in net.fluent_texts]
        names += [f"(does {net.roles[r]} {text})"
                  for r, text in zip(net.move_role, net.move_texts, strict=True)]
        names += [f"(aux {node})" for node in range(net.nodes)]
        return names

    def _read_signals(self) -> set[int]:
        read: set[int] = set()
        for body in self.network.bodies:
            read.update(body.positive)
            read.update(body.negative)
        return read

    def _move_dependent(self) -> list[bool]:
        """Per node: whether its value depends on a move."""
        net = self.network
        first_move, first_node = self._fluents, self._inputs
        depends = [False] * net.nodes

        def literal_depends(signal: int) -> bool:
            if signal >= first_node:
                return depends[signal - first_node]
            return signal >= first_move

        for nodes, recursive in net.components:
            changed = True
            while changed:
                changed = False
                for node in nodes:
                    if depends[node]:
                        continue
                    if any(literal_depends(s) for b in net.node_bodies[node]
                           for s in (*net.bodies[b].positive, *net.bodies[b].negative)):
                        depends[node] = True
                        changed = recursive
        return depends

    def _body_depends(self, body: Body) -> bool:
        first_node = self._inputs
        for signal in (*body.positive, *body.negative):
            if signal >= first_node:
                if self._on_moves[signal - first_node]:
                    return True
            elif signal >= self._fluents:
                return True
        return False

    def _add(self, effect: int, pre: Sequence[int] | None, cost: int, kind: str,
             owner: int = SHARED, label: str = "") -> None:
        if pre is None or effect in pre:
            return  # a precondition that can never hold, or a frame rule: without deletes
            # a fact never needs to be kept, and such a rule never reaches anything new
        self._rules.append(Rule(effect, tuple(pre), cost, owner, label))
        self._kinds.append(kind)
        if len(self._rules) > self._max_rules:
            raise ResourceLimitError(
                f"the game is too large for the relaxed view (more than "
                f"{self._max_rules:,} relaxed rules)", bound="size", limit=self._max_rules,
                reason="relaxed-view")

    def _pre(self, body: Body) -> list[int] | None:
        """A body's preconditions: its positive signals and the negation variables of its
        negative ones (None if one of those can never hold)."""
        pre = list(body.positive)
        for signal in body.negative:
            negated = self._negated(signal)
            if negated is None:
                return None
            if negated >= 0:
                pre.append(negated)
        return pre

    def _negated(self, signal: int) -> int | None:
        """The negation variable of a signal; -1 when the negation holds for free, None
        when it never holds."""
        if signal == TRUE:
            return None
        if signal == FALSE or self._fluents <= signal < self._inputs:
            return -1  # not doing a move costs nothing
        found = self._negation.get(signal)
        if found is None:
            found = self._negation[signal] = self._facts
            self._facts += 1
            self._names.append(f"(not {self._names[signal]})")
            self._pending.append(signal)
        return found

    def _signal_bodies(self, signal: int) -> Iterator[list[int] | None]:
        """The precondition lists that make a signal true (one per rule body)."""
        if signal == FALSE:
            return
        if signal == TRUE:
            yield []
        elif signal < self._inputs:
            yield [signal]
        else:
            for index in self.network.node_bodies[signal - self._inputs]:
                yield self._pre(self.network.bodies[index])

    def _build(self) -> None:
        net = self.network
        for move, signal in enumerate(net.legal):
            role = net.move_role[move]
            cost = 0 if self.noop[move] else 1
            for pre in self._signal_bodies(signal):
                self._add(self._fluents + move, pre, cost, MOVE, role,
                          self._names[self._fluents + move])
        for fluent, signal in enumerate(net.next):
            if signal >= self._inputs:
                node = signal - self._inputs
                for index in net.node_bodies[node]:
                    body = net.bodies[index]
                    world = not self._body_depends(body)
                    self._add(fluent, self._pre(body), self.world_cost if world else 0,
                              WORLD if world else EFFECT)
            else:
                world = not self._fluents <= signal < self._inputs
                for pre in self._signal_bodies(signal):
                    self._add(fluent, pre, self.world_cost if world else 0,
                              WORLD if world else EFFECT)
        for node in range(net.nodes):
            for index in net.node_bodies[node]:
                self._add(self._inputs + node, self._pre(net.bodies[index]), 0, DERIVED)
        self._goals = {(role, value): self._join_goal(role, value)
                       for role, per in enumerate(net.goals) for value, _ in per}
        while self._pending:
            self._negation_rules(self._pending.pop())

    def _keep_relevant(self) -> None:
        """Drop the rules whose effect no goal formula needs, directly or through other
        rules (auxiliary atoms that only frame rules read, for instance)."""
        needed = [False] * self._facts
        todo: list[int] = []

        def need(fact: int) -> None:
            if not needed[fact]:
                needed[fact] = True
                todo.append(fact)

        for formulas in self._goals.values():
            for formula in formulas:
                for fact in formula:
                    need(fact)
        for rule, kind in zip(self._rules, self._kinds, strict=True):
            if kind == MOVE:  # moves are what a plan is made of
                need(rule.effect)
        by_effect: dict[int, list[int]] = {}
        for index, rule in enumerate(self._rules):
            by_effect.setdefault(rule.effect, []).append(index)
        while todo:
            for index in by_effect.get(todo.pop(), ()):
                for fact in self._rules[index].pre:
                    need(fact)
        kept = [i for i, rule in enumerate(self._rules) if needed[rule.effect]]
        self._rules = [self._rules[i] for i in kept]
        self._kinds = [self._kinds[i] for i in kept]

    def _negation_rules(self, signal: int) -> None:
        """Rules reaching ``not signal``: the dual of the signal's formula."""
        target = self._negation[signal]
        if signal < self._fluents:  # a fluent fails next when its next formula fails
            if self._deletion_rules(signal, target):
                return
            negated = self._negated(self.network.next[signal])
            if negated is not None:
                self._add(target, [] if negated < 0 else [negated], 0, NEGATION)
            return
        bodies = [self.network.bodies[i]
                  for i in self.network.node_bodies[signal - self._inputs]]
        # Each body fails when one of its literals does: one clause per body.
        clauses: list[list[int]] = []
        for body in bodies:
            options: list[int] = []
            free = False
            for positive in body.positive:
                negated = self._negated(positive)
                if negated is None:
                    continue
                if negated < 0:
                    free = True
                    break
                options.append(negated)
            if not free:
                for negative in body.negative:
                    if negative == FALSE:
                        continue
                    if negative == TRUE:
                        free = True
                        break
                    options.append(negative)
            if free:
                continue
            if not options:
                return  # a body that cannot fail: the negation never holds
            clauses.append(options)
        if len(clauses) == 1:
            for option in clauses[0]:
                self._add(target, [option], 0, NEGATION)
            return
        pre: list[int] = []
        for options in clauses:
            if len(options) == 1:
                pre.append(options[0])
                continue
            clause = self._facts
            self._facts += 1
            self._names.append(f"(fails {self._names[signal]} {len(pre)})")
            for option in options:
                self._add(clause, [option], 0, NEGATION)
            pre.append(clause)
        self._add(target, pre, 0, NEGATION)

    # -- deletion by moves ----------------------------------------------------------------

    def _deletion_rules(self, fluent: int, target: int) -> bool:
        """Rules reaching ``not fluent`` when its next formula reads moves: which single
        move, made while the other roles do nothing, makes every next rule of the fluent
        fail (given what the state must then also lack). A frame rule such as tic-tac-toe's
        "a blank cell stays blank when some mark is made elsewhere" then deletes the blank
        only by a mark on that cell; treating each negated move literal on its own would let
        the blank vanish when nobody marks anything, which no real joint move does. False
        when the formula reads no move or is too large to inline (the caller falls back to
        the dual formula)."""
        found = self._move_bodies(self.network.next[fluent])
        if found is None or not any(b[2] or b[3] for b in found):
            return False
        by_move: dict[int, list[_MoveBody]] = {}
        unmoved: list[_MoveBody] = []
        mentioned: set[int] = set()
        for body in found:
            positive_moves = body[2]
            if len(positive_moves) > 1:
                continue  # two moves at once never happen while the others do nothing
            if positive_moves:
                by_move.setdefault(positive_moves[0], []).append(body)
                mentioned.add(positive_moves[0])
            else:
                unmoved.append(body)
                mentioned.update(body[3])
        first_move = self._fluents
        for move in range(self._moves):
            if self.noop[move]:
                continue  # a noop is what a role does while another one moves
            if move in mentioned:
                surviving = by_move.get(move, []) + [b for b in unmoved if move not in b[3]]
            else:
                surviving = unmoved
            pre = self._failing(surviving, fluent)
            if pre is not None:
                self._add(target, [first_move + move, *pre], 0, NEGATION)
        return True

    def _failing(self, bodies: Sequence[_MoveBody], fluent: int) -> list[int] | None:
        """Preconditions under which every body (moves already decided) fails: one clause
        per body; None when a body cannot fail (a bare frame rule ``true(f)`` for ``f``)."""
        key = tuple(sorted((b[0], b[1]) for b in bodies))
        if key in self._failing_cache:
            return self._failing_cache[key]
        pre: list[int] | None = []
        for positive, negative, _, _ in bodies:
            options: list[int] = []
            free = False
            for literal in positive:
                if literal == fluent:
                    continue  # the fluent's own absence is the goal, not a way to it
                negated = self._negated(literal)
                if negated is not None and negated < 0:
                    free = True
                    break
                if negated is not None:
                    options.append(negated)
            if free:
                continue
            options.extend(negative)
            if not options:
                pre = None
                break
            assert pre is not None
            pre.append(self._clause(options))
        self._failing_cache[key] = pre
        return pre

    def _clause(self, options: list[int]) -> int:
        """A fact that holds when any of ``options`` does (the option itself if alone)."""
        if len(options) == 1:
            return options[0]
        key = tuple(sorted(set(options)))
        found = self._clauses.get(key)
        if found is None:
            found = self._clauses[key] = self._facts
            self._facts += 1
            self._names.append("(any " + " ".join(self._names[o] for o in key) + ")")
            for option in key:
                self._add(found, [option], 0, NEGATION)
        return found

    def _move_bodies(self, signal: int) -> list[_MoveBody] | None:
        """The formula of a signal with its move-dependent atoms inlined: bodies of (state
        literals true, state literals false, moves made, moves not made). None when it
        grows beyond a bound or negates a move-dependent atom that is not a plain
        disjunction of moves."""
        if signal in (TRUE, FALSE):
            return [((), (), (), ())] if signal == TRUE else []
        if signal < self._inputs:
            if signal >= self._fluents:
                return [((), (), (signal - self._fluents,), ())]
            return [((signal,), (), (), ())]
        node = signal - self._inputs
        if not self._on_moves[node]:
            return [((signal,), (), (), ())]
        cached = self._inlined.get(node, _MISSING)
        if cached is not _MISSING:
            return cached  # type: ignore[return-value]
        self._inlined[node] = None  # a cycle through moves is not inlined
        result: list[_MoveBody] | None = []
        for index in self.network.node_bodies[node]:
            expanded = self._expand_body(self.network.bodies[index])
            if expanded is None or result is None or len(result) + len(expanded) > _MAX_INLINED:
                result = None
                break
            result.extend(expanded)
        self._inlined[node] = result
        return result

    def _expand_body(self, body: Body) -> list[_MoveBody] | None:
        partial: list[_MoveBody] = [((), (), (), ())]
        for literal in body.positive:
            found = self._move_bodies(literal)
            if found is None or len(partial) * len(found) > _MAX_INLINED:
                return None
            partial = [(a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])
                       for a in partial for b in found]
        for literal in body.negative:
            if self._fluents <= literal < self._inputs:
                moves: tuple[int, ...] = (literal - self._fluents,)
            elif literal >= self._inputs and self._on_moves[literal - self._inputs]:
                found = self._move_bodies(literal)
                if found is None or any(b[0] or b[1] or b[3] or len(b[2]) != 1 for b in found):
                    return None
                moves = tuple(b[2][0] for b in found)
            else:
                partial = [(p[0], (*p[1], literal), p[2], p[3]) for p in partial]
                continue
            partial = [(p[0], p[1], p[2], p[3] + moves) for p in partial]
        return [(p[0], p[1], tuple(sorted(set(p[2]))), p[3]) for p in partial]

    def _goal_signal(self, role: int, value: int) -> int:
        for found, signal in self.network.goals[role]:
            if found == value:
                return signal
        return FALSE
