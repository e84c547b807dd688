"""GDDL: the instantiated game in a PDDL-like form (docs/semantics/instantiation.md, step 7; after
Kissmann and Edelkamp 2010).

Three texts:

* the **domain**: the fluents as propositions; derived propositions for the auxiliary atoms
  that inlining keeps (those read under negation or on a cycle); one **multi-action** per
  joint move that may be legal, joining one move per role, with the conjunction of the
  moves' ``legal`` conditions as its global precondition and precondition/effect pairs from
  the ``next`` rules with every ``does`` replaced by true or false and simplified (an effect
  whose condition became false is left out, one that became true gets ``(and)``); and one
  **reward** per role and goal value with its condition;
* the **problem**: the initial state and the terminal condition;
* the **partition**: the groups of mutually exclusive fluents (:mod:`mutexes`).

Semantics, as in GDL: in a state, a multi-action is applicable when its global precondition
holds; the successor holds exactly the effects whose preconditions hold (there is no frame:
what persists has an effect that says so). Joint moves whose ``legal`` conditions cannot
hold together are pruned using the mutex groups, which are found by simulation; a pruned
joint move that could in fact be legal would be a wrong domain, so tests replay seeded
playouts of every bundled game in the GDDL and compare each step with the engine.

Names: a ground term becomes its tokens joined by ``-`` (``(cell 1 1 b)`` is ``cell-1-1-b``),
every character outside ``[a-z0-9_]`` written as ``_xHH_``; a name that would not start with
a letter gets ``g-`` in front, and a name already taken gets ``--2``, ``--3``...
:attr:`GddlGame.names` maps every GDL text to its name.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reasoner.asp.instantiation import GroundRule
from reasoner.errors import ResourceLimitError, UnsupportedGdlError
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import Function, Term

__all__ = ["MAX_MULTI_ACTIONS", "GddlGame", "to_gddl"]

MAX_MULTI_ACTIONS = 200_000
_MAX_PARTIAL_BODIES = 256  # combined legal bodies kept per partial joint move when pruning

# Formulas: True, False, ("atom", name), ("not", f), ("and", (f, ...)), ("or", (f, ...)).
Formula = bool | tuple[str, object]


def _atom(name: str) -> Formula:
    return ("atom", name)


def _not(f: Formula) -> Formula:
    if isinstance(f, bool):
        return not f
    if f[0] == "not":
        return f[1]  # type: ignore[return-value]
    return ("not", f)


def _and(parts: Iterable[Formula]) -> Formula:
    kept: list[Formula] = []
    for part in parts:
        if part is False:
            return False
        if part is True:
            continue
        kept.extend(part[1] if part[0] == "and" else (part,))  # type: ignore[arg-type]
    kept = list(dict.fromkeys(kept))
    return True if not kept else kept[0] if len(kept) == 1 else ("and", tuple(kept))


def _or(parts: Iterable[Formula]) -> Formula:
    kept: list[Formula] = []
    for part in parts:
        if part is True:
            return True
        if part is False:
            continue
        kept.extend(part[1] if part[0] == "or" else (part,))  # type: ignore[arg-type]
    kept = list(dict.fromkeys(kept))
    return False if not kept else kept[0] if len(kept) == 1 else ("or", tuple(kept))


def _render(f: Formula) -> str:
    if f is True:
        return "(and)"
    if f is False:
        return "(or)"
    assert not isinstance(f, bool)
    kind, value = f
    if kind == "atom":
        return f"({value})"
    if kind == "not":
        return f"(not {_render(value)})"  # type: ignore[arg-type]
    return f"({kind} " + " ".join(_render(p) for p in value) + ")"  # type: ignore[attr-defined]


_UNSAFE = re.compile(r"[^a-z0-9_]")


def _tokens(term: Term) -> list[str]:
    if isinstance(term, Function):
        return [term.name, *itertools.chain.from_iterable(_tokens(a) for a in term.args)]
    return [str(term)]


class _Namer:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.taken: set[str] = set()

    def __call__(self, text: str) -> str:
        found = self.names.get(text)
        if found is not None:
            return found
        parts = [_UNSAFE.sub(lambda m: f"_x{ord(m.group()):02x}_", token)
                 for token in _tokens(parse_term(text, case_sensitive=True))]
        name = "-".join(parts)
        if not name[:1].isalpha():
            name = "g-" + name
        candidate, n = name, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{name}--{n}"
        self.taken.add(candidate)
        self.names[text] = candidate
        return candidate


@dataclass(frozen=True)
class GddlGame:
    """The three GDDL texts, and the name given to every GDL text in them."""

    domain: str
    problem: str
    partition: str
    names: dict[str, str]
    multi_actions: int

    def text(self) -> str:
        """All three texts in one, for printing."""
        return "\n".join((self.domain, self.problem, self.partition))


def _split(literal: str) -> tuple[str, str]:
    """("true", fluent), ("does", literal), ("not", inner literal) or ("atom", literal)."""
    if literal.startswith("(not ") and literal.endswith(")"):
        return "not", literal[5:-1]
    if literal.startswith(("(true ", "(does ")):
        term = parse_term(literal, case_sensitive=True)
        assert isinstance(term, Function)
        if term.name == "true" and len(term.args) == 1:
            return "true", str(term.args[0])
        if term.name == "does" and len(term.args) == 2:
            return "does", literal
    return "atom", literal


class _Compiler:
    def __init__(self, rules: Sequence[GroundRule], fluents: Sequence[str]) -> None:
        self.fluents = set(fluents)
        self.facts = {r.head for r in rules if not r.body}
        self.definitions: dict[str, list[tuple[str, ...]]] = defaultdict(list)
        for rule in rules:
            if rule.body:
                self.definitions[rule.head].append(rule.body)
        self.literals: dict[str, tuple[str, str]] = {}
        self.on_does: dict[str, bool] = {}
        self.derived: dict[str, Formula] = {}
        self.name = _Namer()

    def split(self, literal: str) -> tuple[str, str]:
        found = self.literals.get(literal)
        if found is None:
            found = self.literals[literal] = _split(literal)
        return found

    def reads_does(self, atom: str, visiting: frozenset[str] = frozenset()) -> bool:
        """Whether an auxiliary atom depends on ``does`` (such atoms are expanded per
        multi-action; they cannot be derived from the state alone)."""
        if atom in self.on_does:
            return self.on_does[atom]
        if atom in visiting:
            return False
        result = False
        for body in self.definitions.get(atom, ()):
            for literal in body:
                kind, inner = self.split(literal)
                if kind == "does":
                    result = True
                elif kind == "not" and self.split(inner)[0] == "atom":
                    result = self.reads_does(inner, visiting | {atom})
                elif kind == "atom":
                    result = self.reads_does(literal, visiting | {atom})
                if result:
                    break
            if result:
                break
        if not visiting:
            self.on_does[atom] = result
        return result

    def atom(self, atom: str, joint: frozenset[str] | None, expanding: frozenset[str]) -> Formula:
        """An auxiliary atom: a fact, a derived proposition, or (when it reads ``does``)
        its definition under the joint move."""
        if atom in self.facts:
            return True
        if atom not in self.definitions:
            return False
        if self.reads_does(atom):
            if joint is None:
                raise UnsupportedGdlError(
                    f"GDDL: {atom} reads does but is used where no moves are known")
            if atom in expanding:
                # A derivation never needs an atom inside its own derivation: false here
                # gives the least fixpoint (negation never sits on such a cycle in valid,
                # stratified GDL).
                return False
            return self.dnf(self.definitions[atom], joint, expanding | {atom})
        if atom not in self.derived:
            self.derived[atom] = False  # placeholder: cycles refer to the name
            self.derived[atom] = self.dnf(self.definitions[atom], None, frozenset())
        return _atom(self.name(atom))

    def literal(self, literal: str, joint: frozenset[str] | None,
                expanding: frozenset[str]) -> Formula:
        kind, inner = self.split(literal)
        if kind == "true":
            return _atom(self.name(inner)) if inner in self.fluents else False
        if kind == "does":
            if joint is None:
                raise UnsupportedGdlError(f"GDDL: {literal} outside of a next rule")
            return literal in joint
        if kind == "not":
            return _not(self.literal(inner, joint, expanding))
        return self.atom(literal, joint, expanding)

    def dnf(self, bodies: Iterable[tuple[str, ...]], joint: frozenset[str] | None,
            expanding: frozenset[str] = frozenset()) -> Formula:
        return _or(_and(self.literal(lit, joint, expanding) for lit in body)
                   for body in bodies)


def _heads(rules: Sequence[GroundRule], relation: str) -> dict[str, list[tuple[str, ...]]]:
    """Rules by head for one keyword relation, as ``{head: [body, ...]}`` (facts: ``()``)."""
    found: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for rule in rules:
        if rule.head == relation or rule.head.startswith(f"({relation} "):
            found[rule.head].append(rule.body)
    return found


def _positive_fluents(body: tuple[str, ...], compiler: _Compiler) -> tuple[frozenset[str],
                                                                            frozenset[str]]:
    pos: set[str] = set()
    neg: set[str] = set()
    for literal in body:
        kind, inner = compiler.split(literal)
        if kind == "true":
            pos.add(inner)
        elif kind == "not":
            sub_kind, sub = compiler.split(inner)
            if sub_kind == "true":
                neg.add(sub)
    return frozenset(pos), frozenset(neg)


def _joint_moves(roles: Sequence[str], legal: dict[str, list[tuple[str, ...]]],
                 moves: Sequence[tuple[str, str]], compiler: _Compiler,
                 group_of: dict[str, int]) -> list[tuple[str, ...]]:
    """Every joint move whose legal conditions may hold together: the product of each
    role's moves, pruned where every combination of their rule bodies needs two fluents of
    one mutex group, or a fluent both true and false."""
    Body = tuple[frozenset[str], frozenset[str]]

    def compatible(a: Body, b: Body) -> Body | None:
        pos, neg = a[0] | b[0], a[1] | b[1]
        if pos & neg:
            return None
        groups: dict[int, str] = {}
        for fluent in pos:
            group = group_of.get(fluent)
            if group is not None and groups.setdefault(group, fluent) != fluent:
                return None
        return pos, neg

    per_role: list[list[tuple[str, list[Body]]]] = []
    for role in roles:
        options = []
        for r, move in moves:
            if r != role:
                continue
            rule_bodies = legal.get(f"(legal {role} {move})", [])
            if rule_bodies:
                options.append((move, [_positive_fluents(b, compiler) for b in rule_bodies]))
        per_role.append(options)
    partial: list[tuple[tuple[str, ...], list[Body]]] = [((), [(frozenset(), frozenset())])]
    for options in per_role:
        extended: list[tuple[tuple[str, ...], list[Body]]] = []
        for moves_so_far, bodies in partial:
            for move, move_bodies in options:
                combined: list[Body] = []
                for a, b in itertools.product(bodies, move_bodies):
                    both = compatible(a, b)
                    if both is not None:
                        combined.append(both)
                        if len(combined) >= _MAX_PARTIAL_BODIES:
                            # Too many to follow: stop pruning this joint move (an empty
                            # body is compatible with everything).
                            combined = [(frozenset(), frozenset())]
                            break
                if combined:
                    extended.append(((*moves_so_far, move), combined))
                    if len(extended) > MAX_MULTI_ACTIONS:
                        raise ResourceLimitError(
                            f"GDDL: more than {MAX_MULTI_ACTIONS:,} joint moves may be legal",
                            bound="size")
        partial = extended
    return [moves_so_far for moves_so_far, _ in partial]


def to_gddl(name: str, roles: Sequence[str], rules: Sequence[GroundRule],
            fluents: Sequence[str], moves: Sequence[tuple[str, str]],
            groups: Sequence[Sequence[str]] = ()) -> GddlGame:
    """Write an instantiated game (best with auxiliary atoms inlined) as GDDL.

    Args:
        name: The domain's name (any text; it is made a safe name).
        roles: The roles in order.
        rules: The instantiated game's rules.
        fluents, moves: The supersets.
        groups: Mutex groups of fluent texts: they prune joint moves and make the partition.

    Raises:
        UnsupportedGdlError: an auxiliary atom that reads ``does`` is used by ``legal``,
            ``goal`` or ``terminal`` (invalid GDL, which validation rejects first).
        ResourceLimitError: more than :data:`MAX_MULTI_ACTIONS` joint moves may be legal.
    """
    compiler = _Compiler(rules, fluents)
    domain_name = _Namer()(name.lower() if re.fullmatch(r"[^\s()\"';]+", name) else "game")
    group_of = {fluent: index for index, group in enumerate(groups) if len(group) > 1
                for fluent in group}
    legal = _heads(rules, "legal")
    joints = _joint_moves(roles, legal, moves, compiler, group_of)

    nexts = _heads(rules, "next")
    targets = [(head, str(parse_term(head, case_sensitive=True).args[0]))  # type: ignore[union-attr]
               for head in nexts]
    actions: list[str] = []
    for joint in joints:
        does = frozenset(f"(does {role} {move})" for role, move in zip(roles, joint,
                                                                      strict=True))
        lines = ["  (:multi-action"]
        for role, move in zip(roles, joint, strict=True):
            lines.append(f"    (:player {compiler.name(role)}) (:action {compiler.name(move)})")
        condition = _and(compiler.dnf(legal[f"(legal {role} {move})"], None)
                         for role, move in zip(roles, joint, strict=True))
        lines.append(f"    (:global-precondition {_render(condition)})")
        for head, fluent in targets:
            if fluent not in compiler.fluents:
                continue
            precondition = compiler.dnf(nexts[head], does)
            if precondition is not False:
                lines.append(f"    (:precondition {_render(precondition)} "
                             f":effect ({compiler.name(fluent)}))")
        lines[-1] += ")"
        actions.append("\n".join(lines))

    rewards = []
    for head, bodies in sorted(_heads(rules, "goal").items()):
        term = parse_term(head, case_sensitive=True)
        assert isinstance(term, Function) and len(term.args) == 2
        condition = compiler.dnf(bodies, None)
        if condition is not False:
            rewards.append(f"  (:reward (:player {compiler.name(str(term.args[0]))}) "
                           f"(:value {term.args[1]}) (:condition {_render(condition)}))")
    terminal = compiler.dnf(_heads(rules, "terminal").get("terminal", []), None)
    init = [str(parse_term(r.head, case_sensitive=True).args[0])  # type: ignore[union-attr]
            for r in rules if not r.body and r.head.startswith("(init ")]

    # Derived propositions, including those that deriving others brought in.
    derived: list[str] = []
    done: set[str] = set()
    while len(done) < len(compiler.derived):
        for atom in list(compiler.derived):
            if atom not in done:
                done.add(atom)
                derived.append(f"  (:derived ({compiler.name(atom)}) "
                               f"{_render(compiler.derived[atom])})")

    header = "; GDDL written by gdl-reasoner"
    predicates = " ".join(f"({compiler.name(f)})" for f in fluents)
    domain = "\n".join([
        f"{header}: domain (multi-actions, derived propositions, rewards).",
        f"(define (domain {domain_name})",
        f"  (:roles {' '.join(compiler.name(r) for r in roles)})",
        f"  (:predicates {predicates})",
        *derived, *actions, *rewards, ")"]) + "\n"
    problem = "\n".join([
        f"{header}: problem (initial state, terminal condition).",
        f"(define (problem {domain_name})",
        f"  (:domain {domain_name})",
        f"  (:init {' '.join(f'({compiler.name(f)})' for f in init)})",
        f"  (:terminal {_render(terminal)}))"]) + "\n"
    partition = "\n".join([
        f"{header}: partition (groups of mutually exclusive fluents).",
        f"(define (partition {domain_name})",
        *(f"  (:group {' '.join(f'({compiler.name(f)})' for f in group)})"
          for group in groups), ")"]) + "\n"
    return GddlGame(domain, problem, partition, dict(compiler.name.names), len(joints))
