"""Which rule made an atom true in a position: the ground instances of the game's rules
whose body holds there.

For a target atom (``(next (cell e 4 wp))``, ``(legal white (move wp e 2 e 4))``, ``(init
(cell a 1 wr))``, ``(goal white 100)``, ``terminal``), each rule of the game whose head
unifies with the target becomes a rule of a relation of its own whose head is the rule's
body variables (the head's already bound by the target): ``why_k(X, Y) :- body``. The game
with these rules added is translated as every game is, and clingo grounds it with the
position's fluents as ``true`` facts and the joint move as ``does`` facts; the answer set
holds exactly the body instances that are true, and each is the supporting ground rule.
Nothing of the game's text reaches clingo but through the translation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reasoner.asp.encoding import predicate_name, term_text
from reasoner.asp.superset import GroundingBudget, ground_within, new_control
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import translate
from reasoner.errors import GdlError, ResourceLimitError, seconds_text
from reasoner.gdl.normal_form import FlatLiteral, flat_rules
from reasoner.gdl.parser import parse_term
from reasoner.gdl.substitution import Substitution, apply_literal, apply_term, unify
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Function,
    GameDescription,
    Literal,
    Or,
    Rule,
    Variable,
    literal_variables,
    relation_names,
)

__all__ = ["SUPPORT_RULES", "SUPPORT_SECONDS", "Support", "supporting_rules"]

# What finding the support may ground before it is refused.
SUPPORT_RULES = 20_000_000
SUPPORT_SECONDS = 30.0
_PREFIX = "gdl_reasoner_why"


@dataclass(frozen=True)
class Support:
    """A rule of the game as written (with its line, 0 when unknown) and its ground
    instance whose body holds in the position."""

    rule: str
    line: int
    instance: str


def _target(text: str) -> Atom:
    term = parse_term(text)
    if isinstance(term, Function):
        return Atom(term.name, term.args)
    if isinstance(term, Constant):
        return Atom(term.name)
    raise GdlError(f"{text} is not an atom", reason="not-an-atom")


def _flat(literal: Literal) -> FlatLiteral:
    assert not isinstance(literal, Or)  # flat rules have no disjunctions
    return literal


def supporting_rules(description: GameDescription, target: str, state: Iterable[str],
                     joint: Sequence[tuple[str, str]] = (), *, limit: int = 5,
                     seconds: float = SUPPORT_SECONDS) -> list[Support]:
    """Up to ``limit`` ground rules whose body holds in the position ``state`` (fluents as
    GDL text) under ``joint`` ((role, move) pairs, for ``next`` and what reads ``does``)
    and whose head is ``target``, one per rule as written (the first instance in a fixed
    order); none when the target does not hold there.

    Raises:
        GdlError: ``target`` is not an atom.
        ResourceLimitError: the grounding ran past ``seconds`` or :data:`SUPPORT_RULES`.
    """
    goal = _target(target)
    taken = relation_names(description)
    prefix = _PREFIX
    while any(name.startswith(prefix) for name in taken):
        prefix += "_"
    extra: list[Rule] = []
    found: list[Support] = []
    shown: set[int] = set()  # the rules (as written) that have an instance in ``found``
    origins: list[tuple[Rule, Rule, tuple[str, ...], Substitution]] = []
    for rule in description:
        if rule.head.signature != goal.signature:
            continue
        for flat in flat_rules(rule):
            theta: Substitution = {}
            if not all(unify(h, t, theta) for h, t in zip(flat.head.args, goal.args,
                                                           strict=True)):
                continue
            body = tuple(apply_literal(_flat(literal), theta) for literal in flat.body)
            if not body:
                if id(rule) not in shown:
                    shown.add(id(rule))
                    found.append(Support(str(rule), rule.pos.line, str(goal)))
                continue
            variables = tuple(sorted({v.name for literal in body
                                      for v in literal_variables(literal)}))
            head = Atom(f"{prefix}_{len(origins)}", tuple(Variable(n) for n in variables))
            extra.append(Rule(head, body))
            origins.append((rule, flat, variables, theta))
    if not extra or len(found) >= limit:
        return found[:limit]
    translation = translate(GameDescription(description.rules + tuple(extra)),
                            unfold_calls=False)
    facts = [f"true({term_text(parse_term(f))})." for f in state]
    facts += [f"does({term_text(parse_term(role))},{term_text(parse_term(move))})."
              for role, move in joint]
    shows = [f"#show {predicate_name(rule.head.name)}/{rule.head.arity}." for rule in extra]
    ctl = new_control(["1"])
    ctl.add("base", [], translation.game_program + "\n" + "\n".join(facts + shows) + "\n")
    budget = GroundingBudget(SUPPORT_RULES, seconds)
    if not ground_within(ctl, budget):
        raise ResourceLimitError(
            f"finding the rules that support {target} ran past "
            f"{seconds_text(seconds)} or {SUPPORT_RULES:,} ground rules", "time",
            limit=seconds, reason="support")
    by_name = {predicate_name(rule.head.name): index for index, rule in enumerate(extra)}
    with ctl.solve(yield_=True) as handle:
        model = next(iter(handle), None)
        symbols = list(model.symbols(shown=True)) if model is not None else []
    for symbol in sorted(symbols, key=lambda s: (by_name.get(s.name, 0), str(s))):
        if len(found) >= limit:
            break
        index = by_name.get(symbol.name)
        if index is None or id(origins[index][0]) in shown:
            continue
        rule, flat, names, theta = origins[index]
        shown.add(id(rule))  # one instance per rule as written
        bound = dict(theta)
        for name, value in zip(names, symbol.arguments, strict=True):
            bound[name] = parse_term(symbol_to_gdl(value))
        head = Atom(goal.name, tuple(apply_term(a, bound) for a in flat.head.args))
        instance = Rule(head, tuple(apply_literal(_flat(literal), bound)
                                    for literal in flat.body))
        found.append(Support(str(rule), rule.pos.line, str(instance)))
    return found
