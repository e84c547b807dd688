"""Check that a parsed game is valid GDL.

Errors (raised as :class:`GdlValidationError`, naming the rule and its line:column):
GDL-II constructs (checked first, so a GDL-II game is always reported as such), safety, the
recursion restriction, the restrictions on the GDL keywords, one arity per relation and per
function symbol, integer goal values in 0..100. Returned as warnings: negation through
recursion between relations (several ggp.org games write ``(<= (goal r 100) (not (goal r
0)))``, stratified on the ground level, which the engine checks), a role named ``random``,
and, when validating leniently, names used with two arities.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reasoner.errors import GdlValidationError, UnsupportedGdlError
from reasoner.gdl.components import strongly_connected_components
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.syntax import (
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
    literal_atoms,
    literal_variables,
    term_variables,
)

__all__ = ["Warning", "validate"]

UNSTRATIFIED_RELATIONS = "unstratified-relations"

Signature = tuple[str, int]

_BODY_ONLY = {"true": 1, "does": 2, "distinct": 2}
_HEAD_ONLY = {"next": 1}
_ARITIES = {
    "role": 1, "init": 1, "true": 1, "does": 2, "next": 1, "legal": 2, "goal": 2,
    "terminal": 0, "base": 1, "input": 2, "sees": 2,
}  # fmt: skip


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


def _error(rule: Rule, message: str, cls: type[GdlValidationError] = GdlValidationError) -> (
    GdlValidationError
):
    return cls(f"{message} in {_describe(rule)}", rule.pos.line or None, rule.pos.column or None)


def _terms(term: Term) -> Iterator[Function]:
    if isinstance(term, Function):
        yield term
        for arg in term.args:
            yield from _terms(arg)


def _literal_terms(literal: Literal) -> Iterator[Term]:
    if isinstance(literal, Atom):
        yield from literal.args
    elif isinstance(literal, Not):
        yield from _literal_terms(literal.literal)
    elif isinstance(literal, Distinct):
        yield literal.left
        yield literal.right
    else:
        for disjunct in literal.disjuncts:
            yield from _literal_terms(disjunct)


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
                raise _error(rule, message)
            if atom.signature not in reported:
                reported.add(atom.signature)
                warnings.append(Warning(f"{message}; read as an ordinary relation in "
                                        f"{_describe(rule)}", rule.pos))
    head = rule.head
    if head.name in _BODY_ONLY and _is_keyword(head):
        raise _error(rule, f"'{head.name}' may only appear in rule bodies")
    if head.name == "role" and _is_keyword(head):
        if not rule.is_fact:
            raise _error(rule, "'role' may only be stated as a fact")
        if not isinstance(head.args[0], Constant):
            raise _error(rule, "a role must be a constant")
    for atom in atoms[1:]:
        if atom.name in _HEAD_ONLY and _is_keyword(atom):
            raise _error(rule, f"'{atom.name}' may only appear in rule heads")


def _check_goal_value(rule: Rule) -> None:
    if rule.head.name != "goal":
        return
    value = rule.head.args[1]
    if isinstance(value, Function):
        raise _error(rule, "a goal value must be an integer between 0 and 100")
    if isinstance(value, Constant) and not (
        value.name.isdigit() and str(int(value.name)) == value.name and int(value.name) <= 100
    ):
        raise _error(rule, f"goal value '{value.name}' is not an integer between 0 and 100")


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
                     "body literal")
    name = unbound(lit for lit in flat.body if not isinstance(lit, Atom))
    if name is not None:
        raise _error(rule, f"unsafe rule: variable ?{name} of a negative literal or distinct "
                     "does not occur in a positive body literal")


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
                raise _error(rule, message + " (load leniently to read them as different "
                             "symbols)")
            if (kind, name) not in self._reported:
                self._reported.add((kind, name))
                self._warnings.append(Warning(f"{message} in {_describe(rule)}; read as "
                                              "different symbols", rule.pos))

    def rule(self, rule: Rule) -> None:
        atoms = [rule.head]
        for literal in rule.body:
            atoms.extend(atom for atom, _ in literal_atoms(literal))
        for atom in atoms:
            self._see(self.relations, atom.name, atom.arity, rule, "relation")
        terms = list(rule.head.args)
        for literal in rule.body:
            terms.extend(_literal_terms(literal))
        for term in terms:
            for function in _terms(term):
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


def validate(game: GameDescription, *, strict: bool = True) -> list[Warning]:
    """Check a game; raise on the first error, return warnings.

    Args:
        game: The parsed game.
        strict: Reject a name used with two arities (the GDL specification and GGP-Base's
            validator do). Lenient validation warns and reads them as different symbols.

    Raises:
        UnsupportedGdlError: for GDL-II constructs.
        GdlValidationError: naming the offending rule and its line:column.
    """
    warnings: list[Warning] = []
    reported: set[tuple[str, int]] = set()
    arities = _Arities(strict, warnings)
    roles: list[Rule] = []
    graph: dict[Signature, set[Signature]] = defaultdict(set)
    negative_edges: list[tuple[Signature, Signature, Rule]] = []
    flats: list[tuple[Rule, Rule]] = []
    for rule in game.rules:
        if rule.head.name == "sees" or any(
            atom.name == "sees" for literal in rule.body for atom, _ in literal_atoms(literal)
        ):
            raise _error(rule, "GDL-II ('sees') is not supported: this reasoner plays base GDL",
                         UnsupportedGdlError)
    for rule in game.rules:
        _check_keywords(rule, strict, warnings, reported)
        arities.rule(rule)
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
        for flat in flat_rules(rule):
            _check_safety(rule, flat)
            flats.append((rule, flat))

    if not roles:
        raise GdlValidationError("the game declares no role")
    seen_roles: dict[str, Rule] = {}
    for rule in roles:
        name = str(rule.head.args[0])
        if name in seen_roles:
            raise _error(rule, f"role '{name}' is declared twice")
        seen_roles[name] = rule
    if "random" in seen_roles:
        warnings.append(Warning(
            "a role is named 'random'; it is played as an ordinary player (GDL-II's random "
            "nature player is not supported)", seen_roles["random"].pos))

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
                                 f"'{sorted(bad)[0]}'")

    # The recursion restriction (Love et al. 2008, Def. 4): it keeps the grounding finite.
    for rule, flat in flats:
        head = flat.head.signature
        comp = component.get(head)
        positive = [lit for lit in flat.body if isinstance(lit, Atom)]
        recursive = [a for a in positive if component.get(a.signature) == comp
                     and _reaches(graph, a.signature) & {head}]
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
                                 "head, nor bound by a non-recursive literal")
    return warnings


