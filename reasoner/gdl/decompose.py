"""Rule decomposition: a wide rule body split into joins over fewer variables.

A rule grounds one instance per combination of its body's variables, even where its head
has few. Racer's ``legal_speed`` joins a player's position, velocity and the track in one
body of nine variables; in the relaxed superset, where every position and every velocity of
a player may hold at once, that is hundreds of thousands of instances for a few dozen
heads. Much as lpopt does for ASP, the rewrite eliminates the body's variables that are not
in the head one at a time, the one whose literals mention the fewest other variables first
(bucket elimination): the literals that mention the variable become the body of a new rule,
whose head holds their other variables, and that one atom takes their place. As the variable
occurs nowhere else, the rule means what it meant (the new rule projects it away), and each
new rule joins only the variables its literals connect.

The new relations are GDL names made from the rule's head (``legal_speed_part1``), with as
many underscores added as it takes to differ from every name of the game, so that an
instantiated game that holds them is still GDL. Only rules of at least :data:`WIDE` variables
are split, and only where a step makes the join narrower.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from reasoner.gdl.syntax import (
    Atom,
    Literal,
    Rule,
    Variable,
    literal_atoms,
    literal_variables,
    relation_names,
    term_variables,
)

__all__ = ["WIDE", "decompose_rules"]

# Rules with fewer body variables than this are left as they are.
WIDE = 6


def _names(literal: Literal) -> set[str]:
    return {var.name for var in literal_variables(literal)}


def decompose_rules(rules: Sequence[Rule], wide: int = WIDE,
                    static: Collection[str] = ()) -> list[Rule]:
    """The rules with every body of at least ``wide`` variables split (see the module
    documentation); flat rules in, flat rules out, in the same order, each followed by the
    rules it was split into.

    No new rule is made of ``static`` relations alone: over a state, such a join is a table
    of every combination of its variables (checkers' cells different from a move's source
    and from its destination), where in the rule the move binds them first.
    """
    taken = relation_names(rules)
    made: dict[tuple[str, tuple[Literal, ...], tuple[str, ...]], Atom] = {}
    out: list[Rule] = []
    for rule in rules:
        out += _decompose(rule, taken, made, wide, frozenset(static))
    return out


def _fresh(stem: str, taken: set[str]) -> str:
    """``stem`` with underscores added until it is no name in ``taken`` (then taken)."""
    name = stem
    while name in taken:
        name = name.replace("_part", "__part", 1)
    taken.add(name)
    return name


def _decompose(rule: Rule, taken: set[str],
               made: dict[tuple[str, tuple[Literal, ...], tuple[str, ...]], Atom],
               wide: int, static: frozenset[str]) -> list[Rule]:
    """The rule split, reusing the new relation of an identical body split before (the
    disjuncts of one ``or`` share their other literals)."""
    head_names = {var.name for arg in rule.head.args for var in term_variables(arg)}
    body = list(rule.body)
    variables = set().union(*(_names(lit) for lit in body)) if body else set()
    if len(variables) < wide:
        return [rule]
    new: list[Rule] = []
    while True:
        step = _best_elimination(body, head_names, static)
        if step is None:
            break
        eliminated, bucket, kept = step
        free = sorted(set().union(*(_names(lit) for lit in bucket)) - {eliminated})
        key = (rule.head.name, tuple(bucket), tuple(free))
        aux = made.get(key)
        if aux is None:
            aux = Atom(_fresh(f"{rule.head.name}_part{len(made) + 1}", taken),
                       tuple(Variable(name) for name in free), rule.pos)
            made[key] = aux
            new.append(Rule(aux, tuple(bucket), rule.pos))
        body = [*kept, aux]
    if body == list(rule.body):
        return [rule]
    return [Rule(rule.head, tuple(body), rule.pos), *new]


def _best_elimination(body: list[Literal], head_names: set[str], static: frozenset[str]
                      ) -> tuple[str, list[Literal], list[Literal]] | None:
    """The narrowest useful elimination of one body variable: (its name, the new rule's
    body, the literals left in the rule), or None."""
    variables = set().union(*(_names(lit) for lit in body)) - head_names
    width = len(set().union(*(_names(lit) for lit in body)) | head_names)
    best: tuple[int, str] | None = None
    buckets: dict[str, tuple[list[Literal], list[Literal]]] = {}
    for name in sorted(variables):
        rest = [lit for lit in body if name not in _names(lit)]
        bucket = _bound([lit for lit in body if name in _names(lit)], rest)
        if bucket is None or not rest:
            continue
        if static and all(atom.name in static for lit in bucket
                          for atom, _ in literal_atoms(lit)):
            continue
        arity = len(set().union(*(_names(lit) for lit in bucket)) - {name})
        if arity > width - 2:  # not narrower: no rule of its own
            continue
        buckets[name] = (bucket, rest)
        if best is None or arity < best[0]:
            best = (arity, name)
    if best is None:
        return None
    name = best[1]
    bucket, rest = buckets[name]
    # Positive atoms copied into the bucket to bind a negative literal stay in the rule too.
    kept = [lit for lit in body if lit not in bucket or (isinstance(lit, Atom)
                                                           and name not in _names(lit))]
    return name, bucket, kept


def _bound(bucket: list[Literal], rest: list[Literal]) -> list[Literal] | None:
    """The bucket with positive atoms of ``rest`` copied in until every variable of its
    negative literals and ``distinct`` is bound by a positive atom, or None if none can."""
    bucket = list(bucket)
    while True:
        bound = set().union(*(_names(lit) for lit in bucket if isinstance(lit, Atom)))
        unbound = set().union(*(_names(lit) for lit in bucket
                                if not isinstance(lit, Atom))) - bound
        if not unbound:
            return bucket
        wanted = sorted(unbound)[0]
        binders = [lit for lit in rest if isinstance(lit, Atom) and wanted in _names(lit)
                   and lit not in bucket]
        if not binders:
            return None
        bucket.append(min(binders, key=lambda lit: len(_names(lit))))
