"""Translate a validated GDL game into ASP program text.

Three programs come out of one game:

* the *game program*: every GDL rule as an ASP rule, ``or`` expanded into one rule per
  disjunct, ``distinct`` as ``!=`` and ``(not (distinct a b))`` as ``=``; auxiliary relations
  called with constants are unfolded first (:mod:`reasoner.gdl.unfolding`);
* the *relaxed program* (docs/semantics/instantiation.md): negative literals dropped,
  ``true`` fed from ``init`` and ``next``, ``does`` from ``legal``, and only the rules that
  ``init``, ``next`` and ``legal`` depend on; its grounding is the superset of every fluent
  and move that could ever hold;
* the *successor layer*: ``legal``, ``terminal``, ``goal`` and the auxiliary relations they
  read from the state, copied with ``true`` replaced by ``next``, so one solve yields a
  successor state together with its legal moves, terminal status and goals.

Every rule is preceded by a comment with its GDL source position and its GDL text.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

from reasoner.asp.encoding import predicate_name, term_text
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.components import depending_on, reached_from
from reasoner.gdl.decompose import decompose_rules
from reasoner.gdl.demand import adorned_relation, demand_rules, is_adorned
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Literal,
    Not,
    Rule,
    Term,
    Variable,
    literal_variables,
    relation_names,
)
from reasoner.gdl.unfolding import unfold, unfold_projections

__all__ = ["GAME_QUERIES", "LAYER_QUERIES", "NEXT_SUFFIX", "Translation", "translate"]

Signature = tuple[str, int]
_NEXT_LAYER = "_n_"
_SUCCESSOR_FLUENT = _NEXT_LAYER + "true"  # the successor layer's true/1: next/1's copy
# Bodies of at least this many variables are split in the program the network falls back
# on (see Translation.split); the superset splits only those of decompose.WIDE.
NARROW = 3


def _atom_text(atom: Atom, rename: dict[Signature, str] | None = None,
               anonymous: frozenset[str] = frozenset()) -> str:
    name = predicate_name(atom.name)
    if rename is not None:
        name = rename.get(atom.signature, name)
    if not atom.args:
        return name
    return f"{name}({','.join(term_text(arg, anonymous) for arg in atom.args)})"


def _singletons(rule: Rule) -> frozenset[str]:
    """Variables that occur once in the rule (necessarily in a positive body atom, as the rule
    is safe): written as ``_``, they let the grounder project them away instead of
    enumerating every value they could take."""
    counts: dict[str, int] = defaultdict(int)
    for var in literal_variables(rule.head):
        counts[var.name] += 1
    for literal in rule.body:
        for var in literal_variables(literal):
            counts[var.name] += 1
    return frozenset(name for name, count in counts.items() if count == 1)


def _literal_text(literal: Literal, rename: dict[Signature, str] | None = None,
                  anonymous: frozenset[str] = frozenset()) -> str:
    if isinstance(literal, Atom):
        return _atom_text(literal, rename, anonymous)
    if isinstance(literal, Distinct):
        return f"{term_text(literal.left)}!={term_text(literal.right)}"
    if isinstance(literal, Not):
        inner = literal.literal
        if isinstance(inner, Distinct):
            return f"{term_text(inner.left)}={term_text(inner.right)}"
        if isinstance(inner, Atom):
            return "not " + _atom_text(inner, rename)
    raise TypeError(f"not a flat literal: {literal}")  # flat_rules guarantees this


def _rule_text(rule: Rule, rename: dict[Signature, str] | None = None,
               drop_negative: bool = False, counter: int | None = None,
               ground: bool = False) -> str:
    """The rule in ASP; ``ground``: it has no variables (none to look for)."""
    body = [lit for lit in rule.body
            if not (drop_negative and isinstance(lit, Not) and isinstance(lit.literal, Atom))]
    head = _atom_text(rule.head, rename)
    if not body:
        return head + "."
    anonymous = frozenset() if ground else _singletons(Rule(rule.head, tuple(body)))
    literals = [_literal_text(lit, rename, anonymous) for lit in body]
    if counter is not None:
        # One call per ground instance (see reasoner.asp.growth): the rule's named variables
        # are the arguments, so that the grounder cannot evaluate the call only once. The
        # head is named by a number, so that no GDL text reaches the program.
        named = dict.fromkeys(
            term_text(var) for lit in body if isinstance(lit, Atom)
            for var in literal_variables(lit) if var.name not in anonymous)
        literals.append(f"1 = @grew({', '.join([str(counter), *named])})")
    return head + " :- " + ", ".join(literals) + "."


def _ground_rule_texts(rule: Rule) -> tuple[str, str]:
    """A rule without variables in ASP, as :func:`_rule_text` writes it, and without its
    negative relational literals (``drop_negative``)."""
    head = _atom_text(rule.head)
    if not rule.body:
        return head + ".", head + "."
    texts = [_literal_text(lit) for lit in rule.body]
    game = head + " :- " + ", ".join(texts) + "."
    kept = [text for lit, text in zip(rule.body, texts, strict=True)
            if not (isinstance(lit, Not) and isinstance(lit.literal, Atom))]
    if len(kept) == len(texts):
        return game, game
    return game, head + "." if not kept else head + " :- " + ", ".join(kept) + "."


def _comment(rule: Rule) -> str:
    # One line: GDL tokens never contain line breaks, so the comment cannot end early, and
    # it starts "% " so that it is never read as a block comment.
    text = str(rule)
    if len(text) > 160:
        text = text[:157] + "..."
    return f"% {rule.pos}: {text}"


def _dependencies(rules: list[Rule], *, positive_only: bool = False,
                  kept: frozenset[Signature] = frozenset()) -> dict[Signature, set[Signature]]:
    """What each relation reads; with ``positive_only``, under negation only the relations
    in ``kept``."""
    graph: dict[Signature, set[Signature]] = defaultdict(set)
    for rule in rules:
        for literal in rule.body:
            if (positive_only and isinstance(literal, Not)
                    and not (isinstance(literal.literal, Atom)
                             and literal.literal.signature in kept)):
                continue
            inner = literal.literal if isinstance(literal, Not) else literal
            if isinstance(inner, Atom):
                graph[rule.head.signature].add(inner.signature)
    return graph


@dataclass(frozen=True)
class Translation:
    """The ASP programs of one game (see the module docstring)."""

    game_program: str
    relaxed_program: str
    # The relaxed rules without the feedback from next to true: one relaxed step.
    relaxed_step_program: str
    next_layer_program: str
    flat_rule_count: int
    # The predicate that holds legal, terminal and goal of the successor state.
    next_layer_names: dict[str, str]
    # With count_instances: the head signature of the rule that calls @grew(i, ...).
    counted: tuple[Signature, ...] = ()
    # Demand-driven programs over a state given as facts true(F) (and a joint move as facts
    # does(R,M)): the first derives legal, terminal and goal, the second next, the third
    # init; each only grounds the helper instances its queries can ask for.
    # The flat rules (after unfolding) the programs below are made of, on first use.
    flats: tuple[Rule, ...] = ()
    relaxed_flats: tuple[Rule, ...] = ()
    # This is the narrow translation (see split), which has none of its own.
    narrowed: bool = False
    # No rule has a variable (an instantiated game): nothing to unfold, split or narrow.
    ground: bool = False

    @cached_property
    def split(self) -> Translation | None:
        """This translation with the narrow programs clingo grounds over the superset (its
        game program and successor layer: static relations that project variables away
        unfolded into the rules that read the state, then bodies of :data:`NARROW` or more
        variables split), or None when that changes nothing: for a game whose whole
        program's network is over its bounds (quarto, hex, checkers, racer), at some cost in
        ground size where the whole program's is not (connect four's lines)."""
        if self.narrowed or self.ground:
            return None
        flats = list(self.flats)
        narrow = _narrow_rules(flats)
        if narrow == flats:
            return None
        texts = _texts(narrow, False, False)
        return replace(self, game_program=texts.game, next_layer_program=texts.layer,
                       narrowed=True)

    @cached_property
    def superset_programs(self) -> tuple[str, ...]:
        """Demand-driven relaxed programs with the same true/1 and does/2 as the relaxed
        program, to try in order (see :func:`reasoner.asp.superset.compute_superset`):
        first with every binding passed on, then with demand started at constant arguments
        only (see :func:`reasoner.gdl.demand.demand_rules`)."""
        head = "true(F) :- init(F).\ntrue(F) :- next(F).\ndoes(R,M) :- legal(R,M).\n"
        if not any(_has_variables(rule) for rule in self.relaxed_flats):
            # An instantiated game: every call is ground already, and demand would only
            # add a magic atom per call (ad_game_2x2's 380,000 rules: 8 s more to load).
            return (head + _demand_program(list(self.relaxed_flats)),)
        return tuple(
            head + _demand_program(demand_rules(
                self.relaxed_flats, queries=_RELAXED_QUERIES, base=_BASE,
                constants_only=constants_only))
            for constants_only in (False, True))

    @cached_property
    def relaxed_layer_programs(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Programs of the relaxed layers (see :mod:`reasoner.asp.relaxed_layers`), to try
        in order, each with the helper relations ("name/arity") it grounds only as asked:
        the relaxed program in full, then demand-driven with every binding passed on, then
        with demand started at constant arguments only. In each, a fluent is an external
        atom of ``true`` (never a fact: the layers decide when it holds) for everything
        ``init`` or ``next`` may give, and the rules keep no negative literal."""
        head = (f"{_LAYER_FLUENT}(F) :- init(F).\n{_LAYER_FLUENT}(F) :- next(F).\n"
                f"#external true(F) : {_LAYER_FLUENT}(F).\ndoes(R,M) :- legal(R,M).\n")
        flats = [_positive(flat) for flat in self.flats]
        full = head + "\n".join(_rule_text(flat) for flat in flats) + "\n"
        if self.ground:
            return ((full, ()),)
        # Demand starts at what the layers read; a relation they never read (chess's
        # threat relations of seven arguments, read only under negation) is left out.
        heads = {flat.head.signature for flat in flats}
        queries = [sig for sig in LAYER_QUERIES if sig in heads]
        programs: list[tuple[str, tuple[str, ...]]] = [(full, ())]
        # Wide bodies split: a body that joins witnesses the head does not keep (alexChess's
        # legal reads a checking piece and its direction) grounds once per combination.
        split = decompose_rules(flats)
        names = relation_names(flats)
        for constants_only in (False, True):
            rules = demand_rules(split, queries=queries, base=_BASE,
                                 constants_only=constants_only)
            demanded = tuple(sorted({f"{adorned_relation(r.head.name)}/{len(r.head.args)}"
                                     for r in rules if " " in r.head.name
                                     and not r.head.name.endswith(" magic")
                                     and adorned_relation(r.head.name) in names}))
            programs.append((head + _demand_program(rules), demanded))
        return tuple(programs)

    @cached_property
    def demand_game_programs(self) -> tuple[str, ...]:
        """The game program demand-driven, for an instantiation that does not fit whole:
        every relation of GDL's own (``legal``, ``next``, ``goal``, ...) asked in full, a
        helper relation only at the instances its callers can ask for (see
        :func:`reasoner.gdl.demand.demand_rules`); first with every binding passed on, then
        with demand started at constant arguments only. mummymaze1p's walls are asked
        from the explorer's cell: 211,392 ground rules with every binding, 7.9 million from
        constants only; merrills's piece count, asked with constants, passes its partial
        counts through every pit: 32.8 million rules in full, 3.5 million with every
        binding, 411,662 from constants. The instantiation strips the demand from what it
        writes (see :func:`reasoner.asp.instantiation.ground_program`). A program that
        demands nothing (no helper is called with a binding: gt_two_thirds_6p from
        constants) is the whole program again, and is left out, as is a repeat."""
        heads = {flat.head.signature for flat in self.flats}
        queries = [sig for sig in GAME_QUERIES if sig in heads]
        programs: dict[str, None] = {}
        for constants_only in (False, True):
            rules = demand_rules(list(self.flats), queries=queries, base=_BASE,
                                 constants_only=constants_only)
            if any(is_adorned(rule.head.name) for rule in rules):
                programs[_demand_program(rules)] = None
        return tuple(programs)

    @cached_property
    def _position_rules(self) -> list[Rule]:
        return demand_rules(self.flats, queries=_POSITION_QUERIES, base=_BASE)

    @cached_property
    def position_program(self) -> str:
        """Demand-driven rules deriving legal, terminal and goal of a state given as facts
        ``true(F)``: only the helper instances this state asks for are ground."""
        return _demand_program(self._position_rules)

    @cached_property
    def step_program(self) -> str:
        """Demand-driven rules deriving ``next`` from a state and a joint move given as facts
        ``true(F)`` and ``does(R,M)``, together with the position rules read from ``next``
        (relations renamed ``"legal next"``, see NEXT_SUFFIX): one grounding yields the
        successor and what it answers."""
        successor = demand_rules(self.flats, queries=[("next", 1)], base=_BASE)
        # The successor's own answers are always renamed, static or not (goal facts).
        dynamic = _dynamic_names(list(self.flats)) | {name for name, _ in _POSITION_QUERIES}
        rules = successor + [_next_layer(r, dynamic) for r in self._position_rules]
        return _demand_program(list(dict.fromkeys(rules)))

    @cached_property
    def percept_rules(self) -> tuple[Rule, ...]:
        """GDL-II: the flat rules of ``sees`` and of every relation it reads, directly or
        through others (``next`` among them where a percept tells of the successor)."""
        graph = _dependencies(list(self.flats))
        needed = reached_from(graph, [("sees", 2)]) | {("sees", 2)}
        return tuple(flat for flat in self.flats if flat.head.signature in needed)

    @cached_property
    def percept_program(self) -> str:
        """:attr:`percept_rules` as ASP, over ``true`` and ``does`` given from outside;
        empty where the game has no ``sees`` rules."""
        lines: list[str] = []
        for flat in self.percept_rules:
            lines += [_comment(flat), _rule_text(flat)]
        return "\n".join(lines) + "\n"

    @cached_property
    def init_program(self) -> str:
        """Demand-driven rules deriving ``init``."""
        return _demand_program(demand_rules(self.flats, queries=[("init", 1)], base=_BASE))


def translate(game: GameDescription, *, unfold_calls: bool = True,
              relaxed_everything: bool = False, count_instances: bool = False) -> Translation:
    """Translate a validated game.

    Args:
        game: A game that passed :func:`reasoner.gdl.validation.validate`.
        unfold_calls: Unfold auxiliary relations called with constants (see
            :mod:`reasoner.gdl.unfolding`); off gives a rule-for-rule translation.
        relaxed_everything: Keep every rule in the relaxed program (goal, terminal and the
            auxiliary relations only they read), for the superset of every atom; by default
            it keeps only what reachability needs.
        count_instances: Make the relaxed and the game program call ``@grew(i, ...)``
            once per ground rule instance, ``i`` the rule's place in ``counted`` (for
            :mod:`reasoner.asp.growth`).
    """
    with paused_collector():
        return _translated(game, unfold_calls, relaxed_everything, count_instances)


def _translated(game: GameDescription, unfold_calls: bool, relaxed_everything: bool,
                count_instances: bool) -> Translation:
    """:func:`translate`'s work."""
    flats = [flat for rule in game.rules for flat in flat_rules(rule)]
    # An instantiated game has nothing to unfold or split: every pass over its rules would
    # only find that out (chineseCheckers4p's 99,000 ground rules: 1.4 s of 7.5).
    ground = not any(_has_variables(flat) for flat in flats)
    if unfold_calls and not ground:
        flats = unfold(flats)
    shown = _texts(flats, relaxed_everything, count_instances, ground)
    # The superset is computed with wide bodies split (only its fluents and moves are read
    # out); what is shown and instantiated keeps the game's own relations, and the position
    # programs, ground over one state, where such a join is small, keep them whole too
    # (fewer rules to ground). The narrow program is made when a network asks for it (see
    # Translation.split).
    split = flats if ground else decompose_rules(flats)
    relaxed = shown if split == flats else _texts(split, False, False)
    return Translation(
        game_program=shown.game,
        relaxed_program=shown.relaxed,
        relaxed_step_program=shown.relaxed_step,
        next_layer_program=shown.layer,
        flat_rule_count=len(flats),
        next_layer_names=shown.layer_names,
        counted=shown.counted,
        flats=tuple(flats),
        ground=ground,
        relaxed_flats=relaxed.relaxed_flats,
    )


def _dynamic_names(rules: list[Rule]) -> set[str]:
    """The relations that depend on the state or the moves."""
    return {name for name, _ in depending_on(_dependencies(rules), _BASE)}


def _narrow_rules(flats: list[Rule]) -> list[Rule]:
    """The rules the network tries when the whole program's network is over its bounds:
    static projections unfolded into the state's rules, and every body that a variable's
    elimination makes narrower split (hex's transfer between groups of cells, quarto's
    lines of pieces that share a bit), never into a rule of static relations alone."""
    unfolded = unfold_projections(flats)
    return decompose_rules(unfolded, wide=NARROW,
                           static=relation_names(unfolded) - _dynamic_names(unfolded))


class _Texts(NamedTuple):
    game: str
    relaxed: str
    relaxed_step: str
    layer: str
    layer_names: dict[str, str]
    counted: tuple[Signature, ...]
    relaxed_flats: tuple[Rule, ...]


def _texts(flats: list[Rule], relaxed_everything: bool, count_instances: bool,
           ground: bool = False) -> _Texts:
    """The game, relaxed and successor-layer programs of flat rules (``ground``: rules
    without variables)."""
    graph = _dependencies(flats)

    # Relations whose truth depends on the current state need a successor-layer copy.
    state_dependent = depending_on(graph, [("true", 1)])
    needed = reached_from(graph, [("legal", 2), ("terminal", 0), ("goal", 2)])
    copied = (needed & state_dependent) - {("true", 1)}
    rename = {sig: _NEXT_LAYER + predicate_name(sig[0]) for sig in copied}
    # The successor's fluents are read through a copy of next/1: clingo grounds body atoms
    # of next/1 itself several times slower (chineseCheckers4p's instantiated game, 59,000
    # successor-layer rules: its clingo machine ground in 18.4 s over next/1, 5.8 s over
    # the copy).
    rename[("true", 1)] = _SUCCESSOR_FLUENT

    # Reachability needs only what init, next and legal read positively: the relaxed rules
    # drop negative literals, so a relation read only under negation (chess's
    # threatened_with_capture/7) is never grounded for the superset.
    roots: list[Signature] = [("init", 1), ("next", 1), ("legal", 2), ("role", 1)]
    relaxed_needed = reached_from(_dependencies(flats, positive_only=True), roots)
    if relaxed_everything:
        relaxed_needed |= {flat.head.signature for flat in flats}
    # The programs of the engine's fluent and move tables (relaxed_flats) are tighter and
    # still sound: they keep the negation of static relations (those that read neither
    # true nor does), which is exact in every state, with the rules those need. Dropping it
    # can blow the tables up past any bound: urmAdd's lineNumber counts to 10 under
    # (not (maxLines ?n)), without it to 51, and its program lines to 51 x 132,651 fluents.
    # The relaxed program itself stays as docs/semantics/instantiation.md defines the supersets.
    # Fluents that never change (mummymaze's walls: an init fact each, carried over by a
    # frame rule and made by no other) are read there from init, which is static too: so
    # (not (true (wall ?x ?y north))) keeps its walls, and the explorer in the board.
    constant = _constant_fluents(flats)
    table_flats = [_init_for_true(flat, constant) for flat in flats] if constant else flats
    table_graph = _dependencies(table_flats) if constant else graph
    dynamic = depending_on(table_graph, [("true", 1), ("does", 2)])
    static = frozenset(sig for reads in table_graph.values() for sig in reads) - dynamic
    table_needed = reached_from(_dependencies(table_flats, positive_only=True, kept=static), roots)
    if relaxed_everything:
        table_needed |= relaxed_needed

    game_lines = ["% Game rules, translated from GDL (one ASP rule per disjunct of a body)."]
    relaxed_head = [
        "% Relaxed reachability: negation dropped, every legal move possible.",
        "true(F) :- init(F).",
        "true(F) :- next(F).",
    ]
    relaxed_lines = ["does(R,M) :- legal(R,M)."]
    layer_lines = ["% Successor layer: legal, terminal and goal read from next(F).",
                   f"{_SUCCESSOR_FLUENT}(F) :- next(F)."]
    counted: list[Signature] = []
    relaxed_flats: list[Rule] = []
    for flat, table_flat in zip(flats, table_flats, strict=True):
        comment = _comment(flat)
        game_counter = len(counted) if count_instances else None
        if count_instances:
            counted.append(flat.head.signature)
        relaxed = flat.head.signature in relaxed_needed
        if ground and not count_instances:
            # Each literal spelled once for both programs (merrills's instantiated game,
            # 317,348 rules: 13.8 s of translation to 10.2 s).
            game_text, relaxed_text = _ground_rule_texts(flat)
            game_lines += [comment, game_text]
            if relaxed:
                relaxed_lines += [comment, relaxed_text]
        else:
            game_lines += [comment, _rule_text(flat, counter=game_counter, ground=ground)]
            if relaxed:
                counter = len(counted) if count_instances else None
                relaxed_lines += [comment, _rule_text(flat, drop_negative=True,
                                                        counter=counter, ground=ground)]
                counted.append(flat.head.signature)
        if flat.head.signature in table_needed:
            relaxed_flats.append(_positive(table_flat, static))
        if flat.head.signature in copied:
            layer_lines += [comment, _rule_text(flat, rename, ground=ground)]
    return _Texts(
        game="\n".join(game_lines) + "\n",
        relaxed="\n".join(relaxed_head + relaxed_lines) + "\n",
        relaxed_step="\n".join(relaxed_lines) + "\n",
        layer="\n".join(layer_lines) + "\n",
        layer_names={
            name: rename.get((name, arity), name)
            for name, arity in (("legal", 2), ("terminal", 0), ("goal", 2))
        },
        counted=tuple(counted) if count_instances else (),
        relaxed_flats=tuple(relaxed_flats),
    )


_BASE = (("true", 1), ("does", 2))
_LAYER_FLUENT = "_l_fluent"  # no GDL name is spelled so (see encoding.predicate_name)
_POSITION_QUERIES = (("legal", 2), ("terminal", 0), ("goal", 2))
_RELAXED_QUERIES = (("init", 1), ("next", 1), ("legal", 2), ("role", 1))
# The relations the demand-driven programs of the relaxed layers ask in full.
LAYER_QUERIES = tuple(dict.fromkeys((*_RELAXED_QUERIES, *_POSITION_QUERIES)))
# The relations an instantiated game keeps every instance of: GDL's own.
GAME_QUERIES = (("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("terminal", 0),
                ("goal", 2), ("sees", 2), ("base", 1), ("input", 2))


def _fluent_key(term: Term) -> Signature | None:
    if isinstance(term, Function):
        return term.name, len(term.args)
    if isinstance(term, Constant):
        return term.name, 0
    return None


def _constant_fluents(flats: list[Rule]) -> frozenset[Signature]:
    """The fluent functions (name, arity) that hold in every reachable state exactly as in
    the initial one: some ``next`` rule carries every one of them over unconditionally
    (``(<= (next (f ?a ?b)) (true (f ?a ?b)))``), and every other ``next`` rule that makes
    one reads it with ``true`` as it is (so makes none that did not hold)."""
    carried: set[Signature] = set()
    made: set[Signature] = set()
    for rule in flats:
        if rule.head.name != "next" or len(rule.head.args) != 1:
            continue
        (fluent,) = rule.head.args
        key = _fluent_key(fluent)
        if key is None:
            return frozenset()  # (next ?x) may make any fluent
        if Atom("true", (fluent,)) not in rule.body:
            made.add(key)
            continue
        args = fluent.args if isinstance(fluent, Function) else ()
        if (len(rule.body) == 1 and all(isinstance(arg, Variable) for arg in args)
                and len(set(args)) == len(args)):
            carried.add(key)  # every instance, unconditionally
    return frozenset(carried - made)


def _init_for_true(rule: Rule, constant: frozenset[Signature]) -> Rule:
    """The rule with ``(true F)`` read as ``(init F)`` where F is a constant fluent, under
    negation too (both are exact there)."""
    def swapped(literal: Literal) -> Literal:
        inner = literal.literal if isinstance(literal, Not) else literal
        if (isinstance(inner, Atom) and inner.name == "true" and len(inner.args) == 1
                and _fluent_key(inner.args[0]) in constant):
            atom = Atom("init", inner.args, inner.pos)
            return Not(atom, literal.pos) if isinstance(literal, Not) else atom
        return literal
    return Rule(rule.head, tuple(swapped(lit) for lit in rule.body), rule.pos)


def _positive(rule: Rule, keep: frozenset[Signature] = frozenset()) -> Rule:
    """The rule without its negative relational literals (the relaxed reading), but those
    of the relations in ``keep``."""
    return Rule(rule.head, tuple(lit for lit in rule.body
                                 if not (isinstance(lit, Not) and isinstance(lit.literal, Atom)
                                         and lit.literal.signature not in keep)), rule.pos)


def _has_variables(rule: Rule) -> bool:
    return any(True for literal in (rule.head, *rule.body)
               for _ in literal_variables(literal))


def _demand_program(rules: list[Rule]) -> str:
    """Program text of demand-driven rules, without comments: clingo parses it for every
    position."""
    return "\n".join(_rule_text(rule) for rule in rules) + "\n"


NEXT_SUFFIX = " next"  # a space: no GDL name holds one


def _next_layer(rule: Rule, dynamic: set[str]) -> Rule:
    """The rule over the successor: ``true`` read as ``next``, every relation that depends
    on the state (``dynamic``, by name; its adorned and magic copies with it) renamed apart,
    as it holds different instances in the two states.

    A static relation keeps its name and its rules are shared with the current state's: its
    instances are the same in both, and an adorned copy computes the instances that either
    state demands of it (its magic set is the union of both demands), each as in the full
    relation."""
    def rename(atom: Atom) -> Atom:
        if atom.name == "true":
            return Atom("next", atom.args, atom.pos)
        if adorned_relation(atom.name) not in dynamic:
            return atom
        return Atom(atom.name + NEXT_SUFFIX, atom.args, atom.pos)

    body: list[Literal] = []
    for literal in rule.body:
        if isinstance(literal, Atom):
            body.append(rename(literal))
        elif isinstance(literal, Not) and isinstance(literal.literal, Atom):
            body.append(Not(rename(literal.literal), literal.pos))
        else:
            body.append(literal)
    return Rule(rename(rule.head), tuple(body), rule.pos)
