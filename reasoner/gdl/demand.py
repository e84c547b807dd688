"""Demand-driven rules: a magic-set rewrite of flat GDL rules.

Bottom-up grounding materialises every instance of a helper relation, also the ones no
position ever asks for. Chess defines ``(threatened_with_capture ?owner ?cx ?cy ?x ?y
?ignorex ?ignorey)`` over every cell for every argument and then only ever calls it with all
seven arguments bound by the move at hand; grounded in full it has millions of instances.
This rewrite makes a relation compute only the instances its callers can ask for, as a
top-down reasoner would, and keeps the evaluation bottom-up:

* every rule body is put in an order in which each literal binds as much as it can
  (literals whose arguments are bound first, then those sharing a bound variable, negative
  literals and ``distinct`` as soon as their variables are bound);
* a derived helper relation called with some arguments bound becomes an *adorned* copy
  (``threatened bbbbb``), whose rules start with a *magic* literal holding the bound
  arguments; a *magic rule* derives those bindings from the literals before the call;
* the relations asked for in full (``legal``, ``next``, ... given as ``queries``), the base
  relations (``true`` and ``does``, given as ``base``) and relations defined by facts alone
  stay as they are; a relation that some call needs in full is used in full everywhere.

The new relation names hold a space (``"threatened bbbbb"``, ``"threatened bbbbb magic"``),
which no GDL name can, so they never collide with the game's own relations.

Magic rules only carry positive literals, so they add no negation. A rewrite that would still
put a relation in a cycle through negation is given up for negative calls (they then use the
relation in full), and, should that not suffice either, altogether.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

from reasoner.gdl.components import strongly_connected_components
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Literal,
    Not,
    Rule,
    literal_variables,
    term_variables,
)

__all__ = ["MAGIC_SUFFIX", "adorned_relation", "demand_rules", "is_adorned"]

Signature = tuple[str, int]
MAGIC_SUFFIX = " magic"


def adorned_relation(name: str) -> str:
    """The game's relation that an adorned or magic name stands for (the name itself for a
    relation of the game)."""
    return name.split(" ", 1)[0]


def is_adorned(name: str) -> bool:
    """True for the names the rewrite introduces."""
    return " " in name


def _names(literal: Literal) -> set[str]:
    return {var.name for var in literal_variables(literal)}


def _atom_of(literal: Literal) -> Atom | None:
    """The atom of a positive or negative relational literal."""
    if isinstance(literal, Atom):
        return literal
    if isinstance(literal, Not) and isinstance(literal.literal, Atom):
        return literal.literal
    return None


def _adornment(atom: Atom, bound: set[str]) -> str:
    return "".join(
        "b" if {var.name for var in term_variables(arg)} <= bound else "f"
        for arg in atom.args)


class _Rewriter:
    def __init__(self, rules: Sequence[Rule], queries: Collection[Signature],
                 base: Collection[Signature], adorn_negative: bool,
                 constants_only: bool) -> None:
        self.by_head: dict[Signature, list[Rule]] = defaultdict(list)
        for rule in rules:
            self.by_head[rule.head.signature].append(rule)
        derived = {sig for sig, group in self.by_head.items()
                   if any(not rule.is_fact for rule in group)}
        self.demandable = derived - set(queries) - set(base)
        self.queries = [sig for sig in queries if sig in self.by_head]
        self.adorn_negative = adorn_negative
        self.constants_only = constants_only
        self.full: set[Signature] = set()

    # -- ordering ------------------------------------------------------------------------

    def _order(self, body: Iterable[Literal], bound: set[str]) -> list[Literal]:
        pending = list(body)
        ordered: list[Literal] = []
        bound = set(bound)
        while pending:
            ready = [lit for lit in pending
                     if not isinstance(lit, Atom) and _names(lit) <= bound]
            if ready:
                ordered += ready
                pending = [lit for lit in pending if not any(lit is r for r in ready)]
                continue
            positives = [(i, lit) for i, lit in enumerate(pending) if isinstance(lit, Atom)]
            if not positives:  # unsafe leftovers (validation refuses them): keep as they are
                ordered += pending
                break
            _, best = min(positives, key=lambda item: (self._cost(item[1], bound), item[0]))
            ordered.append(best)
            bound |= _names(best)
            pending = [lit for lit in pending if lit is not best]
        return ordered

    def _cost(self, atom: Literal, bound: set[str]) -> int:
        assert isinstance(atom, Atom)
        names = _names(atom)
        if names <= bound:
            return 0
        some_bound = bool(names & bound) or any(
            isinstance(arg, Constant) for arg in atom.args)
        derived = atom.signature in self.demandable
        if some_bound:
            return 2 if derived else 1
        return 4 if derived else 3

    # -- adornment -----------------------------------------------------------------------

    def _call(self, atom: Atom, bound: set[str],
              inside: bool) -> tuple[Signature, str] | None:
        """The adorned relation a call uses, None for the relation in full; ``inside``: the
        call is in an adorned rule."""
        sig = atom.signature
        if sig not in self.demandable or sig in self.full or not atom.args:
            return None
        if self.constants_only and not inside and not any(
                next(term_variables(arg), None) is None for arg in atom.args):
            return None
        adornment = _adornment(atom, bound)
        if "b" not in adornment:
            return None
        return sig, adornment

    def _reachable(self) -> set[tuple[Signature, str]]:
        """Every (relation, adornment) the queries reach; adornment "" is the relation
        in full."""
        seen: set[tuple[Signature, str]] = set()
        todo = [(sig, "") for sig in self.queries]
        while todo:
            key = todo.pop()
            if key in seen:
                continue
            seen.add(key)
            sig, adornment = key
            for rule in self.by_head[sig]:
                for callee in self._calls(rule, adornment):
                    todo.append(callee)
        return seen

    def _head_bound(self, rule: Rule, adornment: str) -> set[str]:
        bound: set[str] = set()
        for arg, mode in zip(rule.head.args, adornment, strict=False):
            if mode == "b":
                bound |= {var.name for var in term_variables(arg)}
        return bound

    def _calls(self, rule: Rule, adornment: str) -> list[tuple[Signature, str]]:
        bound = self._head_bound(rule, adornment)
        calls: list[tuple[Signature, str]] = []
        for literal in self._order(rule.body, bound):
            atom = _atom_of(literal)
            if atom is not None and atom.signature in self.by_head:
                negative = isinstance(literal, Not)
                call = None if negative and not self.adorn_negative else \
                    self._call(atom, bound, bool(adornment))
                calls.append(call if call is not None else (atom.signature, ""))
            if isinstance(literal, Atom):
                bound |= _names(literal)
        return calls

    # -- output --------------------------------------------------------------------------

    def rewrite(self) -> list[Rule]:
        while True:
            reachable = self._reachable()
            full = {sig for sig, adornment in reachable if adornment == ""}
            if full & self.demandable <= self.full:
                break
            self.full |= full & self.demandable
        out: list[Rule] = []
        emitted: set[Signature] = set()
        for sig, adornment in sorted(reachable, key=lambda key: (key[0], key[1])):
            if adornment == "" and sig in emitted:
                continue
            emitted.add(sig)
            for rule in self.by_head[sig]:
                out += self._rewrite_rule(rule, adornment)
        # What no query reaches is left out: a position would ground it for nothing.
        return out

    def _rewrite_rule(self, rule: Rule, adornment: str) -> list[Rule]:
        head = rule.head
        magic_head: Atom | None = None
        if adornment:
            bound_args = tuple(arg for arg, mode in zip(head.args, adornment, strict=True)
                               if mode == "b")
            magic_head = Atom(f"{head.name} {adornment}{MAGIC_SUFFIX}", bound_args, head.pos)
            head = Atom(f"{head.name} {adornment}", head.args, head.pos)
        bound = self._head_bound(rule, adornment)
        prefix: list[Literal] = [magic_head] if magic_head is not None else []
        body: list[Literal] = list(prefix)
        rules: list[Rule] = []
        for literal in self._order(rule.body, bound):
            atom = _atom_of(literal)
            renamed: Literal = literal
            if atom is not None:
                negative = isinstance(literal, Not)
                call = None if negative and not self.adorn_negative else \
                    self._call(atom, bound, bool(adornment))
                if call is not None:
                    (name, _), mode = call
                    adorned = Atom(f"{name} {mode}", atom.args, atom.pos)
                    magic_args = tuple(arg for arg, m in zip(atom.args, mode, strict=True)
                                       if m == "b")
                    magic = Atom(f"{name} {mode}{MAGIC_SUFFIX}", magic_args, atom.pos)
                    rules.append(Rule(magic, tuple(prefix), rule.pos))
                    renamed = Not(adorned, literal.pos) if negative else adorned
            body.append(renamed)
            if isinstance(renamed, Atom):
                prefix.append(renamed)
                bound |= _names(renamed)
            elif isinstance(renamed, (Distinct, Not)) and _names(renamed) <= bound \
                    and _atom_of(renamed) is None:
                prefix.append(renamed)
        rules.append(Rule(head, tuple(body), rule.pos))
        return rules


def _negative_cycle(rules: Sequence[Rule]) -> bool:
    """True if some relation depends on itself through negation."""
    graph: dict[str, set[str]] = defaultdict(set)
    negative: list[tuple[str, str]] = []
    for rule in rules:
        for literal in rule.body:
            atom = _atom_of(literal)
            if atom is not None:
                graph[rule.head.name].add(atom.name)
                if isinstance(literal, Not):
                    negative.append((rule.head.name, atom.name))
    component = strongly_connected_components(graph)
    return any(component.get(head) == component.get(name) for head, name in negative)


def demand_rules(rules: Sequence[Rule], *, queries: Collection[Signature],
                 base: Collection[Signature], constants_only: bool = False) -> list[Rule]:
    """The magic-set rewrite of flat ``rules`` (see the module documentation).

    Args:
        rules: Flat rules (no ``or``; see :func:`reasoner.gdl.normal_form.flat_rules`).
        queries: The relations whose every instance is wanted; only what they reach is kept.
        base: Relations given from outside (``true`` and ``does``), never rewritten.
        constants_only: Start demand only at calls with a ground argument (inside an adorned
            relation every call passes its bindings on). For relaxed reachability, where
            every fluent may hold at once, bindings that come from the state only multiply
            into magic sets as large as the relation itself (chess's threat relations), while
            constants (merrills's ``(count_loop inner ne 0 0 ?w ?b)``) still cut it down.
    """
    before = _negative_cycle(rules)
    for adorn_negative in (True, False):
        rewritten = _Rewriter(rules, queries, base, adorn_negative, constants_only).rewrite()
        if before or not _negative_cycle(rewritten):
            return rewritten
    return list(rules)
