"""Check that a parsed game is valid GDL.

Errors (raised as :class:`GdlValidationError`, naming the rule and its line:column):
safety, the recursion restriction, the restrictions on the GDL keywords, integer goal values
in 0..100, and GDL-II's: ``sees`` only in rule heads, for a declared role (it may read
``true`` and ``does``, as ``next`` does). Returned as warnings: negation through recursion
between relations (several ggp.org games write ``(<= (goal r 100) (not (goal r 0)))``,
stratified on the ground level, which the engine checks), and a keyword's name used as a
function symbol (``(holds (true x))``: a term, as an argument position holds terms only).

What real game servers ran, and GGP-Base reads, is read by default, each with a warning that
says what was read how, for the reading is unambiguous:

* a name used with two arities (``next/1`` and a successor relation ``next/2`` in
  ``libgdl/kono.kif``) is two different symbols; a GDL keyword with another arity than its
  own is an ordinary relation;
* ``not``, ``or`` and ``distinct`` inside a term (``(contains 1 (not 18))``, as the SAT and
  QBF games of Dresden's game server list their clauses) are function symbols or constants;
* ``base`` and ``input`` written flat by old files, ``(base cell 1 2)``, declare one term,
  ``(base (cell 1 2))``, as the parser reads them (see :mod:`reasoner.gdl.parser`).

``strict=True`` refuses all three, as the GDL specification and GGP-Base's validator do.
Unsafe rules and negation through recursion that the ground program does not stratify are
refused either way.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reasoner.errors import GdlValidationError, GoalValueError
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.components import strongly_connected_components
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.syntax import (
    GDL_KEYWORDS,
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Literal,
    Not,
    Position,
    Rule,
    Term,
    Variable,
    literal_atoms,
    literal_variables,
    term_variables,
)

__all__ = ["Warning", "located_goal_value", "validate"]

UNSTRATIFIED_RELATIONS = "unstratified-relations"

Signature = tuple[str, int]

_BODY_ONLY = {"true": 1, "does": 2, "distinct": 2}
_HEAD_ONLY = {"next": 1, "sees": 2}
_ARITIES = {
    "role": 1, "init": 1, "true": 1, "does": 2, "next": 1, "legal": 2, "goal": 2,
    "terminal": 0, "base": 1, "input": 2, "sees": 2,
}  # fmt: skip
# Connectives, which a term may use as names only when not validating strictly.
_CONNECTIVES = frozenset({"not", "or", "distinct"})
# A goal value as written: ASCII digits, no leading zero, at most 100 (checked after).
_GOAL_VALUE = re.compile(r"0|[1-9][0-9]{0,2}")


@dataclass(frozen=True, slots=True)
class Warning:
    """A finding that does not stop the game from being played."""

    message: str
    pos: Position
    kind: str = "general"

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos.line else self.message


def _describe(rule: Rule) -> str:
    text = str(rule)
    if len(text) > 120:
        text = text[:117] + "..."
    return f"rule at {rule.pos} {text}"


def _error(rule: Rule, message: str, cls: type[GdlValidationError] = GdlValidationError, *,
           reason: str | None = None, symbols: tuple[str, ...] = ()) -> GdlValidationError:
    return cls(f"{message} in {_describe(rule)}", rule.pos.line or None, rule.pos.column or None,
               reason=reason, symbols=symbols)


def _is_keyword(atom: Atom) -> bool:
    """A GDL keyword used with its own arity (lenient reading lets e.g. a binary ``next``
    stand as an ordinary relation)."""
    return _ARITIES.get(atom.name) == atom.arity


def _check_keywords(rule: Rule, strict: bool, warnings: list[Warning],
                    reported: set[tuple[str, int]]) -> None:
    atoms = [rule.head] + [atom for literal in rule.body for atom, _ in literal_atoms(literal)]
    for atom in atoms:
        expected = _ARITIES.get(atom.name)
        if expected is not None and atom.arity != expected:
            message = f"'{atom.name}' takes {expected} argument(s), not {atom.arity}"
            if strict:
                raise _error(rule, message, reason="keyword-arity", symbols=(atom.name,))
            if atom.signature not in reported:
                reported.add(atom.signature)
                warnings.append(Warning(f"{message}, in {_describe(rule)}; read as an "
                                        f"ordinary relation {atom.name}/{atom.arity}", rule.pos))
    head = rule.head
    if head.name in _BODY_ONLY and _is_keyword(head):
        raise _error(rule, f"'{head.name}' may only appear in rule bodies", reason="body-only",
                     symbols=(head.name,))
    if head.name == "role" and _is_keyword(head):
        if not rule.is_fact:
            raise _error(rule, "'role' may only be stated as a fact", reason="role-not-fact")
        if not isinstance(head.args[0], Constant):
            raise _error(rule, "a role must be a constant", reason="role-not-constant")
    for atom in atoms[1:]:
        if atom.name in _HEAD_ONLY and _is_keyword(atom) and not (
                atom.name == "next" and head.name == "sees" and _is_keyword(head)):
            # GDL-II: a percept may tell of the successor state, as Dresden's game
            # controller's games write it: (<= (sees ?r (at ?x)) (next (at ?x)) ...).
            raise _error(rule, f"'{atom.name}' may only appear in rule heads",
                         reason="head-only", symbols=(atom.name,))


def _holders(literal: Literal) -> Iterator[tuple[Atom | Distinct, tuple[Term, ...]]]:
    """The atoms and ``distinct`` literals of a literal, each with its argument terms."""
    if isinstance(literal, Atom):
        yield literal, literal.args
    elif isinstance(literal, Distinct):
        yield literal, (literal.left, literal.right)
    elif isinstance(literal, Not):
        yield from _holders(literal.literal)
    else:
        for disjunct in literal.disjuncts:
            yield from _holders(disjunct)


def _check_terms(rule: Rule, strict: bool, warnings: list[Warning], reported: set[str],
                 arities: _Arities) -> bool:
    """Walk every term of the rule once (each term outermost first): keywords' names
    inside terms are function symbols (or constants), with a warning once per name, and
    connectives are refused there when strict; then the arities of its relations and
    function symbols are seen. Whether the rule has a variable."""
    variables = False
    functions: list[Function] = []
    for atom, args in itertools.chain(_holders(rule.head), *map(_holders, rule.body)):
        stack = list(reversed(args))
        while stack:
            term = stack.pop()
            if type(term) is Function:
                functions.append(term)
                stack.extend(reversed(term.args))
                name = term.name
                if name not in _CONNECTIVES and name not in GDL_KEYWORDS:
                    continue
            elif type(term) is Constant:
                name = term.name
                if name not in _CONNECTIVES:
                    continue
            else:
                variables = True
                continue
            what = "a function symbol" if isinstance(term, Function) else "a constant"
            if strict and name in _CONNECTIVES:
                raise _error(rule, f"the connective '{name}' is used as {what} in {atom} "
                             "(refused when reading strictly)", reason="connective",
                             symbols=(name,))
            if name not in reported:
                reported.add(name)
                warnings.append(Warning(
                    f"read '{name}' in {atom} as {what} (a keyword's name inside a term "
                    "is data, not a literal)", atom.pos if atom.pos.line else rule.pos))
    arities.rule(rule, functions)
    return variables


def _check_goal_value(rule: Rule) -> None:
    if rule.head.name != "goal" or len(rule.head.args) != 2:
        return  # another arity is an ordinary relation when not reading strictly
    value = rule.head.args[1]
    if isinstance(value, Function):
        raise _error(rule, "a goal value must be an integer between 0 and 100",
                     reason="goal-value", symbols=(str(value),))
    if isinstance(value, Constant) and not (
        _GOAL_VALUE.fullmatch(value.name) and int(value.name) <= 100
    ):
        raise _error(rule, f"goal value '{value.name}' is not an integer between 0 and 100",
                     reason="goal-value", symbols=(value.name,))


def located_goal_value(description: GameDescription, error: GoalValueError) -> GoalValueError:
    """``error`` (met on the ground level) with the position of the first goal rule that
    could give its value: one whose value is a variable, for its role or any."""
    for rule in description.rules:
        head = rule.head
        if (head.name == "goal" and len(head.args) == 2 and isinstance(head.args[1], Variable)
                and (isinstance(head.args[0], Variable) or str(head.args[0]) == error.role)):
            located = _error(rule, error.message, GoalValueError, reason=error.reason)
            assert isinstance(located, GoalValueError)
            located.role, located.value = error.role, error.value
            return located
    return error


def _check_safety(rule: Rule, flat: Rule) -> None:
    bound = {
        v.name
        for lit in flat.body
        if isinstance(lit, Atom)
        for v in literal_variables(lit)
    }

    def unbound(literals: Iterable[Literal | Atom]) -> str | None:
        for lit in literals:
            for var in literal_variables(lit):
                if var.name not in bound:
                    return var.name
        return None

    name = unbound([flat.head])
    if name is not None:
        raise _error(rule, f"unsafe rule: head variable ?{name} does not occur in a positive "
                     "body literal", reason="unsafe-head", symbols=(f"?{name}",))
    name = unbound(lit for lit in flat.body if not isinstance(lit, Atom))
    if name is not None:
        raise _error(rule, f"unsafe rule: variable ?{name} of a negative literal or distinct "
                     "does not occur in a positive body literal", reason="unsafe-negative",
                     symbols=(f"?{name}",))


class _Arities:
    """One arity per relation name and per function name (or warnings, when lenient)."""

    def __init__(self, strict: bool, warnings: list[Warning]) -> None:
        self.relations: dict[str, tuple[int, Rule]] = {}
        self.functions: dict[str, tuple[int, Rule]] = {}
        self._strict = strict
        self._warnings = warnings
        self._reported: set[tuple[str, str]] = set()

    def _see(self, table: dict[str, tuple[int, Rule]], name: str, arity: int, rule: Rule,
             kind: str) -> None:
        seen = table.setdefault(name, (arity, rule))
        if seen[0] != arity:
            message = (f"{kind} '{name}' is used with {arity} argument(s) here but with "
                       f"{seen[0]} in the rule at {seen[1].pos}")
            if self._strict:
                raise _error(rule, message + " (the default reading takes them as different "
                             "symbols)", reason=f"{kind}-arity", symbols=(name,))
            if (kind, name) not in self._reported:
                self._reported.add((kind, name))
                self._warnings.append(Warning(
                    f"{kind} '{name}' is used with {arity} argument(s) in {_describe(rule)} "
                    f"but with {seen[0]} in the rule at {seen[1].pos}; read as different "
                    f"symbols, {kind}s {name}/{seen[0]} and {name}/{arity}", rule.pos))

    def rule(self, rule: Rule, functions: Iterable[Function]) -> None:
        """See the rule's relations, then its function terms ``functions`` (in the order
        they occur)."""
        atoms = [rule.head]
        for literal in rule.body:
            atoms.extend(atom for atom, _ in literal_atoms(literal))
        for atom in atoms:
            self._see(self.relations, atom.name, atom.arity, rule, "relation")
        for function in functions:
            self._see(self.functions, function.name, len(function.args), rule, "function")


def _reaches(graph: dict[Signature, set[Signature]], start: Signature) -> set[Signature]:
    seen = {start}
    todo = [start]
    while todo:
        for child in graph.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def _reached(graph: dict[Signature, set[Signature]], start: Signature,
             known: dict[Signature, set[Signature]]) -> set[Signature]:
    """:func:`_reaches`, each start's answer kept in ``known``."""
    found = known.get(start)
    if found is None:
        found = known[start] = _reaches(graph, start)
    return found


def validate(game: GameDescription, *, strict: bool = False) -> list[Warning]:
    """Check a game; raise on the first error, return warnings.

    Args:
        game: The parsed game.
        strict: Reject what the default reading takes with a warning (see the module
            docstring): a name used with two arities, a connective inside a term, a flat
            ``base`` or ``input``. The GDL specification and GGP-Base's validator do.

    Raises:
        GdlValidationError: naming the offending rule and its line:column.
    """
    with paused_collector():
        return _validated(game, strict)


def _validated(game: GameDescription, strict: bool) -> list[Warning]:
    """:func:`validate`'s checks."""
    warnings: list[Warning] = []
    reported: set[tuple[str, int]] = set()
    reported_names: set[str] = set()
    arities = _Arities(strict, warnings)
    roles: list[Rule] = []
    graph: dict[Signature, set[Signature]] = defaultdict(set)
    negative_edges: list[tuple[Signature, Signature, Rule]] = []
    flats: list[tuple[Rule, Rule]] = []
    for reading in game.readings:
        if strict:
            if reading.rule.head.name == "sees":  # a percept's role that nothing binds
                raise _error(reading.rule, f"unsafe rule: {reading.message} (refused when "
                             "reading strictly)", reason="unsafe-head")
            _check_keywords(reading.rule, strict, warnings, reported)  # raises
        warnings.append(Warning(reading.message, reading.rule.pos))
    for rule in game.rules:
        _check_keywords(rule, strict, warnings, reported)
        variables = _check_terms(rule, strict, warnings, reported_names, arities)
        _check_goal_value(rule)
        if rule.head.name == "role" and _is_keyword(rule.head):
            roles.append(rule)
        head = rule.head.signature
        graph[head]
        for literal in rule.body:
            for atom, negative in literal_atoms(literal):
                graph[head].add(atom.signature)
                if negative:
                    negative_edges.append((head, atom.signature, rule))
        if not variables:
            continue  # safe, and within the recursion restriction, as it stands
        for flat in flat_rules(rule):
            _check_safety(rule, flat)
            flats.append((rule, flat))

    if not roles:
        raise GdlValidationError("the game declares no role", reason="no-role")
    seen_roles: dict[str, Rule] = {}
    for rule in roles:
        name = str(rule.head.args[0])
        if name in seen_roles:
            raise _error(rule, f"role '{name}' is declared twice", reason="role-twice",
                         symbols=(name,))
        seen_roles[name] = rule
    for rule in game.rules:  # GDL-II: a percept goes to a declared role
        percept = rule.head
        if percept.name == "sees" and _is_keyword(percept):
            who = percept.args[0]
            if isinstance(who, Function) or (isinstance(who, Constant)
                                             and who.name not in seen_roles):
                raise _error(rule, f"'sees' names {who}, which is not a role",
                             reason="sees-role", symbols=(str(who),))

    component = strongly_connected_components(graph)
    for head, body, rule in negative_edges:
        if component.get(head) == component.get(body):
            # Several ggp.org games write (<= (goal r 100) (not (goal r 0))): a negative cycle
            # between relations but not between ground atoms. The engine checks the ground
            # program has exactly one answer set, so this is a warning here.
            warnings.append(Warning(
                f"negation through recursion: '{head[0]}' depends negatively on '{body[0]}'; "
                f"accepted only if the ground program is stratified, in {_describe(rule)}",
                rule.pos, kind="unstratified-relations"))

    # Restrictions on the keywords' dependencies (Love et al. 2008, section 3).
    forbidden = {
        "init": {"true", "does", "next", "legal", "goal", "terminal"},
        "base": {"true", "does", "next", "legal", "goal", "terminal"},
        "input": {"true", "does", "next", "legal", "goal", "terminal"},
        "role": {"true", "does", "next", "legal", "goal", "terminal", "init"},
        "legal": {"does"},
        "goal": {"does"},
        "terminal": {"does"},
    }
    for rule in game.rules:
        banned = forbidden.get(rule.head.name) if _is_keyword(rule.head) else None
        if not banned:
            continue
        for literal in rule.body:
            for atom, _ in literal_atoms(literal):
                reached = {name for name, arity in _reaches(graph, atom.signature)
                           if _ARITIES.get(name) == arity}
                bad = banned & reached
                if bad:
                    raise _error(rule, f"'{rule.head.name}' must not depend on "
                                 f"'{sorted(bad)[0]}'", reason="forbidden-dependency",
                                 symbols=(rule.head.name, sorted(bad)[0]))

    # The recursion restriction (Love et al. 2008, Def. 4): it keeps the grounding finite.
    reaching: dict[Signature, set[Signature]] = {}
    for rule, flat in flats:
        head = flat.head.signature
        comp = component.get(head)
        positive = [lit for lit in flat.body if isinstance(lit, Atom)]
        recursive = [a for a in positive if component.get(a.signature) == comp
                     and head in _reached(graph, a.signature, reaching)]
        if not recursive:
            continue
        allowed = {v.name for v in literal_variables(flat.head)}
        for atom in positive:
            if component.get(atom.signature) != comp:
                allowed.update(v.name for v in literal_variables(atom))
        for atom in recursive:
            for arg in atom.args:
                if any(v.name not in allowed for v in term_variables(arg)):
                    raise _error(rule, f"breaks the recursion restriction: argument {arg} of "
                                 f"the recursive literal {atom} is neither ground, nor in the "
                                 "head, nor bound by a non-recursive literal",
                                 reason="recursion-restriction", symbols=(str(atom),))
    return warnings


