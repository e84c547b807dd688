"""A small GDDL interpreter for the tests: it reads the three texts the reasoner writes and
plays the game from them alone, so that tests can compare it with the engine step by step.
It shares no code with the writer (reasoner.instantiate.gddl)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

Node = str | list["Node"]


def read_sexprs(text: str) -> list[Node]:
    """Every top-level s-expression of a text (``;`` starts a comment)."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text))
    stack: list[list[Node]] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


@dataclass
class MultiAction:
    """One joint move: the action per player, when it applies, and what it makes true."""

    actions: dict[str, str]
    precondition: Node
    effects: list[tuple[Node, str]] = field(default_factory=list)


@dataclass
class GddlGame:
    """The game as the GDDL texts describe it."""

    roles: list[str]
    derived: dict[str, Node]
    multi_actions: list[MultiAction]
    rewards: list[tuple[str, int, Node]]
    init: frozenset[str]
    terminal_condition: Node
    groups: list[list[str]]

    @classmethod
    def read(cls, domain: str, problem: str, partition: str) -> GddlGame:
        (d,), (p,), (g,) = read_sexprs(domain), read_sexprs(problem), read_sexprs(partition)
        assert isinstance(d, list) and isinstance(p, list) and isinstance(g, list)
        roles: list[str] = []
        derived: dict[str, Node] = {}
        actions: list[MultiAction] = []
        rewards: list[tuple[str, int, Node]] = []
        for section in d[2:]:
            assert isinstance(section, list)
            head = section[0]
            if head == ":roles":
                roles = [str(r) for r in section[1:]]
            elif head == ":derived":
                name = section[1]
                assert isinstance(name, list)
                derived[str(name[0])] = section[2]
            elif head == ":multi-action":
                actions.append(_multi_action(section[1:]))
            elif head == ":reward":
                parts = {str(part[0]): part[1] for part in section[1:]
                         if isinstance(part, list)}
                rewards.append((str(parts[":player"]), int(str(parts[":value"])),
                                parts[":condition"]))
        init: frozenset[str] = frozenset()
        terminal: Node = ["or"]
        for section in p[2:]:
            assert isinstance(section, list)
            if section[0] == ":init":
                init = frozenset(str(f[0]) for f in section[1:] if isinstance(f, list))
            elif section[0] == ":terminal":
                terminal = section[1]
        groups = [[str(f[0]) for f in s[1:] if isinstance(f, list)] for s in g[2:]
                  if isinstance(s, list) and s[0] == ":group"]
        return cls(roles, derived, actions, rewards, init, terminal, groups)

    def holds(self, formula: Node, state: frozenset[str]) -> bool:
        derived = self._derived(state)
        return _evaluate(formula, state | derived)

    def _derived(self, state: frozenset[str]) -> frozenset[str]:
        # Iterate to the fixpoint from nothing derived (the writer's derived propositions
        # are stratified or positive).
        current: frozenset[str] = frozenset()
        while True:
            following = frozenset(name for name, body in self.derived.items()
                                  if _evaluate(body, state | current))
            if following == current:
                return current
            current = following

    def applicable(self, state: frozenset[str]) -> list[MultiAction]:
        facts = state | self._derived(state)
        return [m for m in self.multi_actions if _evaluate(m.precondition, facts)]

    def successor(self, state: frozenset[str], action: MultiAction) -> frozenset[str]:
        facts = state | self._derived(state)
        return frozenset(effect for condition, effect in action.effects
                         if _evaluate(condition, facts))

    def terminal(self, state: frozenset[str]) -> bool:
        return self.holds(self.terminal_condition, state)

    def goals(self, state: frozenset[str]) -> dict[str, set[int]]:
        found: dict[str, set[int]] = {role: set() for role in self.roles}
        for role, value, condition in self.rewards:
            if self.holds(condition, state):
                found[role].add(value)
        return found


def _multi_action(parts: Iterable[Node]) -> MultiAction:
    items = list(parts)
    actions: dict[str, str] = {}
    precondition: Node = ["and"]
    effects: list[tuple[Node, str]] = []
    player = ""
    i = 0
    while i < len(items):
        item = items[i]
        if isinstance(item, list) and item[0] == ":player":
            player = str(item[1])
        elif isinstance(item, list) and item[0] == ":action":
            actions[player] = str(item[1])
        elif isinstance(item, list) and item[0] == ":global-precondition":
            precondition = item[1]
        elif isinstance(item, list) and item[0] == ":precondition":
            # (:precondition F :effect (f))
            assert item[2] == ":effect"
            effect = item[3]
            assert isinstance(effect, list)
            effects.append((item[1], str(effect[0])))
        i += 1
    return MultiAction(actions, precondition, effects)


def _evaluate(formula: Node, facts: frozenset[str]) -> bool:
    assert isinstance(formula, list)
    head = formula[0]
    if head == "and":
        return all(_evaluate(f, facts) for f in formula[1:])
    if head == "or":
        return any(_evaluate(f, facts) for f in formula[1:])
    if head == "not":
        return not _evaluate(formula[1], facts)
    assert len(formula) == 1, formula
    return str(head) in facts
