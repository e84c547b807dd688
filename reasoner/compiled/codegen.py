"""A game's rules as C: one function per relation and binding pattern, join plans over the
state's fluents (see :mod:`reasoner.compiled`).

Every rule of a relation is compiled once for each binding pattern a caller asks it with
(the pattern says which arguments are known at the call). Its body becomes nested loops in
an order chosen at compile time: at each point the literal expected to have the fewest
answers given what is bound so far comes next, tests (``distinct``, negations, fully bound
literals) as soon as their variables are bound. ``true`` reads the state through an index
from the fluent table (the fluents of one functor by some of their arguments); ``does``
reads the joint move; any other relation is a call, whose answers are kept in a table for
as long as what the relation depends on stays the same (static relations: the whole game).
A fully bound call of a relation off every cycle stops at its first proof, and so does a
call whose unbound arguments are variables no other literal of the rule reads (an
``exists`` kind: only whether an answer has the bound ones matters); one of a recursive
relation is first resolved depth first (``sl`` functions), after a look at the relation's
static envelope (:mod:`reasoner.compiled.envelopes`), the tables answering where resolution
leaves it open; a static relation called from above the static ones reads the index built
for it at setup (``indexes.h``).

The join order's estimates: a fully bound literal is a test; ``true`` expects as many
answers as the initial state has fluents per key of the index (its own count where the
key is constants, and those over the values the rest of the key takes where some of it
is); a relation of facts its facts per key; a recursive call of the very table being
evaluated :data:`_OWN_TABLE`; any other relation :data:`_PER_FREE_ARGUMENT` per argument
that is not bound.

No text of the game reaches the C source: names, relations, terms, fluents and moves all
become integers.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources

from reasoner.compiled.envelopes import envelopes
from reasoner.compiled.relations import STATIC, RelationGraph, Signature, by_relation
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Not,
    Rule,
    Term,
    Variable,
    term_variables,
)

__all__ = ["CompileRefusal", "GameSource", "game_source"]

_SPECIAL = {("true", 1), ("does", 2)}
_TOKENS = re.compile(r"[()]|[^() ]+")
# The estimated answers of a relation per argument that is not bound (where nothing better
# is known): enough that a literal with fewer free arguments comes first.
_PER_FREE_ARGUMENT = 8.0
# A recursive call that asks the table being evaluated (same relation, binding pattern and
# key as the head): no new table, only the answers found so far (a ray's cells). Every
# other order makes a table per binding, each a fixpoint of its own.
_OWN_TABLE = 1.0


# The table a rule is evaluated for: its relation, binding pattern and key (the bound
# arguments' texts).
_Own = tuple[Signature, tuple[bool, ...], tuple[str, ...]]


class CompileRefusal(Exception):
    """The rules cannot be compiled (an unsafe rule, a term the tables cannot hold)."""


@dataclass(frozen=True)
class GameSource:
    """The C source of a game, and what the machine needs to read its answers: the names
    by id (goal values come back as ids), the number of kinds and fluent indexes."""

    text: str
    generated: str  # the parts of ``text`` made from the game (the rest is the run-time's)
    names: tuple[str, ...]
    kinds: int
    rules: int
    # Per kind: its relation and which arguments a call binds (for reading tables back).
    kind_patterns: tuple[tuple[Signature, tuple[bool, ...]], ...] = ()


@dataclass(frozen=True)
class _Kind:
    index: int
    signature: Signature
    bound: tuple[bool, ...]
    test: bool  # fully bound and off every cycle: stops at the first proof
    inline: bool = False  # a test reading only the state, the move and static relations:
    # evaluated at each call, not kept (a lookup costs about what the test does)
    exists: bool = False  # a test of whether some answer has these bound arguments (the
    # caller reads none of the free ones)


def _variables(literal: Atom | Not | Distinct) -> set[str]:
    if isinstance(literal, Atom):
        return {v.name for arg in literal.args for v in term_variables(arg)}
    if isinstance(literal, Not):
        return _variables(literal.literal)  # type: ignore[arg-type]
    return {v.name for side in (literal.left, literal.right) for v in term_variables(side)}


def _ground(term: Term, bound: set[str]) -> bool:
    return all(v.name in bound for v in term_variables(term))


def _guards(ordered: Sequence[Atom | Not | Distinct], bound: set[str],
            initial: set[str]) -> list[Function]:
    """The patterns of the state's literals that a rule can check before its first loop:
    each one of a functor the initial state lacks (a check, a capture: what play adds now
    and then), read after a literal that binds variables, whose key at the rule's start (its
    constants and the head's bound variables) is not empty. Where no fluent the state
    holds has that key, the rule has no answer, and its loops are not run."""
    guards: list[Function] = []
    seen = set(bound)
    loops = False
    for literal in ordered:
        if isinstance(literal, Atom) and literal.signature == ("true", 1):
            pattern = literal.args[0]
            if loops and isinstance(pattern, Function) and pattern.name not in initial and \
                    any(_ground(arg, bound) for arg in pattern.args):
                guards.append(pattern)
        if isinstance(literal, Atom):
            fresh = _variables(literal) - seen
            loops = loops or bool(fresh)
            seen |= fresh
    return guards


def _lonely(rule: Rule) -> frozenset[str]:
    """The variables of ``rule`` that occur in one body literal only, not in the head."""
    seen: dict[str, int] = defaultdict(int)
    for literal in rule.body:
        if isinstance(literal, Atom | Not | Distinct):
            for name in _variables(literal):
                seen[name] += 1
    head = {v.name for arg in rule.head.args for v in term_variables(arg)}
    return frozenset(name for name, count in seen.items() if count == 1 and name not in head)


def _projected(literal: Atom | Not | Distinct, bound: set[str], lonely: frozenset[str]) -> bool:
    """Whether ``literal`` is a call whose every argument not bound is a variable of its
    own, met nowhere else in the rule: only whether it has an answer matters."""
    if not isinstance(literal, Atom) or literal.signature in _SPECIAL:
        return False
    free = [arg for arg in literal.args if not _ground(arg, bound)]
    names = [arg.name for arg in free if isinstance(arg, Variable)]
    return bool(free) and len(names) == len(free) and len(set(names)) == len(names) and \
        set(names) <= lonely


class _Compiler:
    def __init__(self, description: GameDescription, roles: Sequence[str],
                 fluent_texts: Sequence[str], move_texts: Sequence[str],
                 move_role: Sequence[int], relaxed: bool = False) -> None:
        # Relaxed: every call leaves its table (no inline tests, no resolution without
        # tables), and a negative literal is asked and then ignored.
        self.relaxed = relaxed
        self.rules: dict[Signature, list[Rule]] = defaultdict(
            list, by_relation(flat for rule in description for flat in flat_rules(rule)))
        self.names: dict[str, int] = {}
        for group in self.rules.values():
            for r in group:
                self._collect(r.head.args)
                for literal in r.body:
                    inner = literal.literal if isinstance(literal, Not) else literal
                    if isinstance(inner, Atom):
                        self._collect(inner.args)
                    elif isinstance(inner, Distinct):
                        self._collect((inner.left, inner.right))
        for name in roles:
            self._name(name)
        # The tables' texts as tokens (names never hold a space or a parenthesis).
        fluent_tokens = [_TOKENS.findall(text) for text in fluent_texts]
        move_tokens = [_TOKENS.findall(text) for text in move_texts]
        for tokens in (*fluent_tokens, *move_tokens):
            for token in tokens:
                if token not in "()":
                    self._name(token)
        self.compounds: dict[tuple[int, tuple[int, ...]], int] = {}
        self.compound_rows: list[tuple[int, tuple[int, ...]]] = []
        self.fluent_ids = [self._table_term(tokens) for tokens in fluent_tokens]
        self.move_ids = [self._table_term(tokens) for tokens in move_tokens]
        self.role_ids = [self.names[name] for name in roles]
        self.move_role = list(move_role)
        # The initial state's fluents per functor and arity, from ground init facts.
        self.initial_counts: dict[tuple[int, int], int] = defaultdict(int)
        self.initial_args: dict[tuple[int, int], list[tuple[int, ...]]] = defaultdict(list)
        for rule in self.rules.get(("init", 1), []):
            term = rule.head.args[0]
            if not rule.body and isinstance(term, Function) and \
                    not any(True for _ in term_variables(term)):
                functor = (self.names[term.name], len(term.args))
                self.initial_counts[functor] += 1
                self.initial_args[functor].append(tuple(
                    self.names[a.name] if isinstance(a, Constant) else -1 for a in term.args))
        # The functors of the initial state's fluents (from its ground init facts).
        self.initial_functors = {term.name for rule in self.rules.get(("init", 1), [])
                                 for term in rule.head.args if isinstance(term, Function)}
        graph = RelationGraph.of(self.rules)
        # The static envelopes of the recursive relations that read the state (a fully
        # bound call outside its envelope fails at once).
        self.envelope_of: dict[Signature, Signature] = {}
        if not relaxed:
            self.envelope_of, envelope_rules = envelopes(self.rules, graph)
            if envelope_rules:
                self.rules.update(envelope_rules)
                graph = RelationGraph.of(self.rules)
        self.classes = graph.classes
        self.recursive = graph.recursive
        self.scc_of = graph.components
        self.kinds: dict[tuple[Signature, tuple[bool, ...], bool], _Kind] = {}
        self.pending: list[_Kind] = []
        self.indexes: dict[tuple[int, int, tuple[int, ...]], int] = {}
        self.index_sizes: dict[tuple[int, int, tuple[int, ...]], float] = {}
        self.candidates: dict[tuple[int, int], list[tuple[int, tuple[int, ...]]]] = {}
        self.fact_tables: dict[Signature, int] = {}
        self.fact_rows: list[list[int]] = []
        self.functions: list[str] = []
        self.prototypes: list[str] = []
        # The static relations read through an index, each with its all-free kind.
        self.static_signatures: dict[Signature, int] = {}
        self.compiled_rules = 0

    # -- names and terms -----------------------------------------------------------------

    def _name(self, name: str) -> int:
        found = self.names.get(name)
        if found is None:
            found = self.names[name] = len(self.names)
        return found

    def _collect(self, terms: Iterable[Term]) -> None:
        for term in terms:
            if isinstance(term, Constant):
                self._name(term.name)
            elif isinstance(term, Function):
                self._name(term.name)
                self._collect(term.args)

    def _compound(self, functor: int, args: tuple[int, ...]) -> int:
        key = (functor, args)
        found = self.compounds.get(key)
        if found is None:
            found = len(self.names) + len(self.compound_rows)
            self.compounds[key] = found
            self.compound_rows.append(key)
        return found

    def _table_term(self, tokens: list[str]) -> int:
        """The id of a table's term from its text's tokens."""
        stack: list[list[int]] = []
        result = -1
        for token in tokens:
            if token == "(":
                stack.append([])
                continue
            if token == ")":
                if not stack or len(stack[-1]) < 2:
                    raise CompileRefusal(f"a table term does not read back: {' '.join(tokens)}")
                items = stack.pop()
                found = self._compound(items[0], tuple(items[1:]))
            else:
                found = self.names[token]
            if stack:
                stack[-1].append(found)
            elif result >= 0:
                raise CompileRefusal(f"a table term does not read back: {' '.join(tokens)}")
            else:
                result = found
        if result < 0 or stack:
            raise CompileRefusal(f"a table term does not read back: {' '.join(tokens)}")
        return result

    def _term(self, term: Term) -> int:
        if isinstance(term, Constant):
            return self.names[term.name]
        if isinstance(term, Variable):
            raise CompileRefusal(f"the table term {term} is not ground")
        return self._compound(self.names[term.name], tuple(self._term(arg) for arg in term.args))

    # -- kinds ------------------------------------------------------------------------------

    def kind(self, signature: Signature, bound: tuple[bool, ...],
             exists: bool = False) -> _Kind:
        """The kind of a call with these bound arguments; ``exists``: the caller asks only
        whether an answer has them (a test, where the relation is off every cycle)."""
        exists = exists and not all(bound) and self.existential(signature)
        key = (signature, bound, exists)
        found = self.kinds.get(key)
        if found is None:
            # Relaxed, a fully bound call is a table too: every rule of it is tried, not
            # only those up to the first proof (their calls are asked for as well).
            test = exists or (all(bound) and signature not in self.recursive and
                              not self.relaxed)
            # An existence test is kept: where the relation's table with every argument
            # free is complete already (legal moves), the test reads it (from_full).
            inline = test and not exists and self.classes[signature] != STATIC and \
                self._reads_only_state(signature)
            found = self.kinds[key] = _Kind(len(self.kinds), signature, bound, test, inline,
                                            exists)
            self.pending.append(found)
        return found

    def existential(self, signature: Signature) -> bool:
        """Whether a call whose free arguments the caller never reads can be a test."""
        return not self.relaxed and signature not in self.recursive

    def _reads_only_state(self, signature: Signature) -> bool:
        """Whether every rule of the relation reads only ``true``, ``does``, ``distinct``
        and static relations."""
        for rule in self.rules.get(signature, []):
            for literal in rule.body:
                inner = literal.literal if isinstance(literal, Not) else literal
                if isinstance(inner, Atom) and inner.signature not in _SPECIAL and \
                        self.classes[inner.signature] != STATIC:
                    return False
        return True

    def static_signature(self, signature: Signature) -> int:
        found = self.static_signatures.get(signature)
        if found is None:
            found = self.static_signatures[signature] = len(self.static_signatures)
            self.kind(signature, (False,) * signature[1])
        return found

    def generate(self) -> None:
        while self.pending:
            kind = self.pending.pop()
            self._emit_kind(kind)

    def _emit_kind(self, kind: _Kind) -> None:
        blocks: list[str] = []
        rules = self.rules.get(kind.signature, [])
        facts = [r for r in rules if not r.body and not any(
            True for arg in r.head.args for _ in term_variables(arg))]
        if len(facts) > 8:
            blocks.append(self._emit_facts(kind, facts))
            listed = {id(fact) for fact in facts}
            rules = [r for r in rules if id(r) not in listed]
        for rule in rules:
            blocks.append(self._emit_rule(kind, rule))
            self.compiled_rules += 1
        nb = sum(kind.bound)
        keys = "".join(f"    const T b{i} = key[{i}];\n" for i in range(nb))
        if kind.test:
            self.prototypes.append(f"static int bd{kind.index}(const T *key);")
            body = "".join(blocks)
            self.functions.append(
                f"static int bd{kind.index}(const T *key) {{\n{keys}{body}    return 0;\n}}\n")
        else:
            self.prototypes.append(f"static void ev{kind.index}(int32_t h);")
            load = (f"    const T *key = spaces[h & 3].keys + TB(h).key;\n{keys}" if nb else "")
            body = "".join(blocks)
            self.functions.append(f"static void ev{kind.index}(int32_t h) {{\n{load}{body}}}\n")
        if self._resolved(kind):
            self._emit_resolution(kind, rules, facts if len(facts) > 8 else [])

    def _resolved(self, kind: _Kind) -> bool:
        """Whether a fully bound call of a recursive relation is first tried by resolution
        (depth first, no tables, ancestors checked), its tables the fallback."""
        return bool(kind.bound) and all(kind.bound) and kind.signature in self.recursive \
            and not self.relaxed

    def _emit_resolution(self, kind: _Kind, rules: list[Rule], facts: list[Rule]) -> None:
        blocks = []
        if facts:
            blocks.append(self._emit_facts(kind, facts, resolution=True))
        for rule in rules:
            blocks.append(self._emit_rule(kind, rule, resolution=True))
        nb = sum(kind.bound)
        keys = "".join(f"    const T b{i} = key[{i}];\n" for i in range(nb))
        envelope = self.envelope_of.get(kind.signature)
        outside = ""
        if envelope is not None:
            env_kind = self.kind(envelope, (True,) * envelope[1])
            self.static_signature(envelope)
            outside = f"    if (!envelope_holds({env_kind.index}, key)) return 0;\n"
        self.prototypes.append(f"static int sl{kind.index}(const T *key);")
        self.functions.append(
            f"static int sl{kind.index}(const T *key) {{\n{outside}"
            f"    if (sld_enter({kind.index}, key)) return 0;\n{keys}{''.join(blocks)}"
            "    sld_leave();\n    return 0;\n}\n")

    def _emit_facts(self, kind: _Kind, facts: list[Rule], resolution: bool = False) -> str:
        signature = kind.signature
        if signature not in self.fact_tables:
            self.fact_tables[signature] = len(self.fact_rows)
            self.fact_rows.append([self._term(arg) for fact in facts for arg in fact.head.args])
        table = self.fact_tables[signature]
        arity = signature[1]
        w = _Writer(self, {}, self.classes[kind.signature] != STATIC,
                    self._scc(kind) if resolution else None)
        w.open(f"for (int32_t fi = 0; fi < {len(facts)}; fi++)")
        w.stmt("rt_tick();")
        for j, i in enumerate(i for i, is_bound in enumerate(kind.bound) if is_bound):
            w.open(f"if (FACTS{table}[fi * {arity} + {i}] == b{j})")
        free = [f"FACTS{table}[fi * {arity} + {i}]" for i, b in enumerate(kind.bound) if not b]
        w.finish(kind, free)
        return w.text()

    def _scc(self, kind: _Kind) -> int:
        return self.scc_of[kind.signature]

    def _emit_rule(self, kind: _Kind, rule: Rule, resolution: bool = False) -> str:
        variables: dict[str, str] = {}
        for literal in (rule.head, *rule.body):
            inner = literal.literal if isinstance(literal, Not) else literal
            names = _variables(inner)  # type: ignore[arg-type]
            for name in sorted(names):
                variables.setdefault(name, f"v{len(variables)}")
        w = _Writer(self, variables, self.classes[kind.signature] != STATIC,
                    self._scc(kind) if resolution else None)
        w.lonely = _lonely(rule)
        bound_args = [arg for arg, is_bound in zip(rule.head.args, kind.bound, strict=True)
                      if is_bound]
        for j, arg in enumerate(bound_args):
            w.match(arg, f"b{j}")
        own = (kind.signature, kind.bound, tuple(str(arg) for arg in bound_args))
        ordered = self._order(rule.body, set(w.bound), own, w.lonely)
        if not self.relaxed:
            for guard in _guards(ordered, set(w.bound), self.initial_functors):
                number, positions = self.index(guard, w.bound)
                keys = ", ".join(w.construct(guard.args[p]) for p in positions)
                w.open(f"if (index_true(&fluent_indexes[{number}], (const T[]){{{keys}}}))")
        for literal in ordered:
            w.literal(literal)
        free = []
        for arg, is_bound in zip(rule.head.args, kind.bound, strict=True):
            if not is_bound:
                if not _ground(arg, w.bound):
                    raise CompileRefusal(f"a variable of the head of a rule of "
                                         f"{rule.head.name}/{rule.head.arity} is not bound "
                                         "by its body (an unsafe rule)")
                free.append(w.construct(arg))
        w.finish(kind, free)
        return w.text()

    # -- join order -------------------------------------------------------------------------

    def _estimate(self, literal: Atom | Not | Distinct, bound: set[str],
                  own: _Own | None = None, lonely: frozenset[str] = frozenset()
                  ) -> float | None:
        """The expected number of answers of ``literal`` given ``bound``; None where it
        cannot come next (a test with a variable not bound yet). ``own``: the table the
        rule is evaluated for; a call that asks that very table again (a recursive rule
        read from its bound end) makes no table and reads the answers found so far.
        ``lonely``: the rule's variables that no other literal and not the head reads; a call
        whose free arguments are all such is a test of its bound ones."""
        if isinstance(literal, Distinct):
            return 0.0 if _variables(literal) <= bound else None
        if isinstance(literal, Not):
            return 0.3 if _variables(literal) <= bound else None
        if _variables(literal) <= bound:
            return 0.1 if literal.signature in _SPECIAL else 0.2
        if literal.signature == ("does", 2):
            return 1.0
        if literal.signature == ("true", 1):
            return self._fluent_estimate(literal.args[0], bound)
        if _projected(literal, bound, lonely) and self.existential(literal.signature):
            return 0.2
        if own is not None and literal.signature == own[0]:
            pattern = tuple(_ground(arg, bound) for arg in literal.args)
            key = tuple(str(arg) for arg, b in zip(literal.args, pattern, strict=True) if b)
            if pattern == own[1] and key == own[2]:
                return _OWN_TABLE
        free = sum(1 for arg in literal.args if not _ground(arg, bound))
        facts = [r for r in self.rules.get(literal.signature, []) if not r.body]
        if facts and len(facts) == len(self.rules[literal.signature]):
            keys = {tuple(str(arg) for arg, b in zip(fact.head.args, literal.args, strict=True)
                          if _ground(b, bound)) for fact in facts}
            return len(facts) / max(1, len(keys))
        return _PER_FREE_ARGUMENT ** free

    def _fluent_estimate(self, pattern: Term, bound: set[str]) -> float:
        if isinstance(pattern, Variable):
            return float(len(self.fluent_ids))
        if isinstance(pattern, Constant):
            return 0.1
        key = self._index_key(pattern, bound)
        fun, arity, positions = key
        constants = [p for p in positions if isinstance(pattern.args[p], Constant)]
        if constants and (fun, arity) in self.initial_counts:
            # Constants in the key: the initial state's own count of fluents with them
            # (thirty-two blank cells, where the average over the contents is five), over
            # the values the rest of the key takes (four blank cells in each of eight files).
            values = tuple(self.names[pattern.args[p].name] for p in constants)
            matching = sum(1 for args in self.initial_args[(fun, arity)]
                           if tuple(args[p] for p in constants) == values)
            rest = [p for p in positions if p not in constants]
            spread = {tuple(row[1][p] for p in rest) for row in self._candidates(fun, arity)}
            return max(0.5, matching / max(1, len(spread)))
        if key not in self.index_sizes:
            runs: dict[tuple[int, ...], int] = defaultdict(int)
            for row in self._candidates(fun, arity):
                runs[tuple(row[1][p] for p in positions)] += 1
            keys = max(1, len(runs))
            # The initial state says how many of a key's candidates tend to hold (one
            # velocity per player among nine, one piece per cell among thirteen); a fluent
            # it lacks is taken to hold for half of them.
            held = self.initial_counts.get((fun, arity))
            estimate = sum(runs.values()) / keys
            self.index_sizes[key] = (max(held / keys, 0.5) if held is not None
                                     else estimate / 2)
        return self.index_sizes[key]

    def _candidates(self, fun: int, arity: int) -> list[tuple[int, tuple[int, ...]]]:
        """The fluent table's terms of one functor (each its functor and arguments)."""
        found = self.candidates.get((fun, arity))
        if found is None:
            found = self.candidates[(fun, arity)] = [
                row for t in self.fluent_ids if t >= len(self.names)
                for row in (self.compound_rows[t - len(self.names)],)
                if row[0] == fun and len(row[1]) == arity]
        return found

    def _index_key(self, pattern: Function, bound: set[str]) -> tuple[int, int, tuple[int, ...]]:
        positions = tuple(i for i, arg in enumerate(pattern.args) if _ground(arg, bound))
        return (self.names[pattern.name], len(pattern.args), positions)

    def _order(self, body: Sequence[Atom | Not | Distinct | object], bound: set[str],
               own: _Own | None = None, lonely: frozenset[str] = frozenset()
               ) -> list[Atom | Not | Distinct]:
        remaining = [lit for lit in body if isinstance(lit, Atom | Not | Distinct)]
        ordered: list[Atom | Not | Distinct] = []
        bound = set(bound)
        while remaining:
            best: tuple[float, int] | None = None
            for i, literal in enumerate(remaining):
                estimate = self._estimate(literal, bound, own, lonely)
                if estimate is not None and (best is None or estimate < best[0]):
                    best = (estimate, i)
            if best is None:
                raise CompileRefusal("a negation or distinct has a variable that no positive "
                                     "literal binds (an unsafe rule)")
            literal = remaining.pop(best[1])
            ordered.append(literal)
            if isinstance(literal, Atom):
                bound |= _variables(literal)
        return ordered

    def index(self, pattern: Function, bound: set[str]) -> tuple[int, tuple[int, ...]]:
        key = self._index_key(pattern, bound)
        found = self.indexes.get(key)
        if found is None:
            found = self.indexes[key] = len(self.indexes)
        return found, key[2]

    # -- the whole source -------------------------------------------------------------------

    def source(self, roots: Sequence[Signature] = ()) -> GameSource:
        legal = self.kind(("legal", 2), (False, False))
        goal = self.kind(("goal", 2), (False, False))
        terminal = self.kind(("terminal", 0), ())
        following = self.kind(("next", 1), (False,))
        init = self.kind(("init", 1), (False,))
        root_kinds = [self.kind(signature, (False,) * signature[1]) for signature in roots]
        self.generate()
        ordered = sorted(self.kinds.values(), key=lambda k: k.index)
        names = tuple(sorted(self.names, key=self.names.__getitem__))
        numbers = [int(n) if n.isdigit() and len(n) <= 3 and int(n) <= 100 else -1
                   for n in names]
        parts = [
            f"#define N_NAMES {len(names)}",
            f"#define N_COMPOUNDS {len(self.compound_rows)}",
            f"#define N_FLUENTS {len(self.fluent_ids)}",
            f"#define N_MOVES {len(self.move_ids)}",
            f"#define N_ROLES {len(self.role_ids)}",
            f"#define N_INDEXES {len(self.indexes)}",
            f"#define N_KINDS {len(ordered)}",
            f"#define K_LEGAL {legal.index}",
            f"#define K_GOAL {goal.index}",
            f"#define K_TERMINAL {terminal.index}",
            f"#define K_NEXT {following.index}",
            f"#define K_INIT {init.index}",
            f"#define TERMINAL_TEST {int(terminal.test)}",
            f"#define TERMINAL_TEST_FN bd{terminal.index}" if terminal.test else "",
            _array("int32_t", "COMPOUND_FUN", [row[0] for row in self.compound_rows]),
            _array("int32_t", "COMPOUND_AR", [len(row[1]) for row in self.compound_rows]),
            _array("T", "COMPOUND_ARGS", [a for row in self.compound_rows for a in row[1]]),
            _array("T", "FLUENT_TERMS", self.fluent_ids),
            _array("T", "MOVE_TERMS", self.move_ids),
            _array("int32_t", "MOVE_ROLE", self.move_role),
            _array("T", "ROLE_TERMS", self.role_ids),
            _array("int8_t", "NAME_NUM", numbers),
        ]
        for number, rows in enumerate(self.fact_rows):
            parts.append(_array("T", f"FACTS{number}", rows))
        positions = sorted(self.indexes.items(), key=lambda item: item[1])
        for (_, _, where), number in positions:
            parts.append(_array("int32_t", f"IXPOS{number}", list(where)))
        entries = ", ".join(f"{{{fun}, {arity}, {len(where)}, IXPOS{number}}}"
                            for (fun, arity, where), number in positions)
        parts.append(f"static FluentIndex fluent_indexes[{max(1, len(positions))}] = "
                     f"{{{entries}}};")
        parts.extend(self.prototypes)
        parts.append(_array("int32_t", "KIND_NB", [sum(k.bound) for k in ordered]))
        parts.append(_array("int32_t", "KIND_NF",
                            [0 if k.test else len(k.bound) - sum(k.bound) for k in ordered]))
        parts.append(_array("int8_t", "KIND_SPACE",
                            [self.classes[k.signature] for k in ordered]))
        statics = sorted(self.static_signatures.items(), key=lambda item: item[1])
        parts.append(f"#define N_STATIC {len(statics)}")
        parts.append(_array("int32_t", "STATIC_ARITY", [sig[1] for sig, _ in statics]))
        envelopes = set(self.envelope_of.values())
        parts.append(_array("int8_t", "STATIC_ENVELOPE",
                            [int(sig in envelopes) for sig, _ in statics]))
        parts.append(_array("int32_t", "STATIC_FULL",
                            [self.kinds[(sig, (False,) * sig[1], False)].index
                             for sig, _ in statics]))
        parts.append(_array("int32_t", "KIND_STATIC",
                            [self.static_signatures.get(k.signature, -1) for k in ordered]))
        parts.append(f"#define N_SCC {max(1, len(set(self.scc_of.values())))}")
        parts.append(_array("int32_t", "KIND_SCC",
                            [self.scc_of.get(k.signature, -1) for k in ordered]))
        fulls = [self.kinds.get((k.signature, (False,) * len(k.bound), False))
                 for k in ordered]
        full = [f.index if any(k.bound) and f is not None and not f.test else -1
                for k, f in zip(ordered, fulls, strict=True)]
        parts.append(_array("int32_t", "KIND_FULL", full))
        masks = [sum(1 << i for i, b in enumerate(k.bound) if b) for k in ordered]
        parts.append(_array("int64_t", "KIND_MASK", masks))
        evals = ", ".join("0" if k.test else f"ev{k.index}" for k in ordered)
        parts.append(f"static const EvalFn KIND_EVAL[{len(ordered)}] = {{{evals}}};")
        parts.append(_array("int32_t", "ROOT_KIND", [k.index for k in root_kinds]))
        tables = "\n".join(parts) + "\n"
        functions = "\n".join(self.functions) + "\n"
        generated = tables + functions
        text = (f"{_resource('runtime.h')}\n{tables}\n{_resource('indexes.h')}\n{functions}\n"
                f"{_resource('api.h')}")
        return GameSource(text, generated, names, len(ordered), self.compiled_rules,
                          tuple((k.signature, k.bound) for k in ordered))


def _array(ctype: str, name: str, values: Sequence[int]) -> str:
    body = ",".join(map(str, values)) if values else "0"
    return f"static const {ctype} {name}[{max(1, len(values))}] = {{{body}}};"


def _resource(name: str) -> str:
    return resources.files("reasoner.compiled").joinpath(name).read_text()


class _Writer:
    """One rule's nested loops and tests, written from the outside in."""

    def __init__(self, compiler: _Compiler, variables: dict[str, str],
                 above_static: bool, resolution: int | None = None) -> None:
        self.compiler = compiler
        self.variables = variables
        # Writing the resolution of a fully bound call in this component: fully bound
        # calls within it resolve in turn.
        self.resolution = resolution
        # Static relations are read through their indexes from relations above them (the
        # static tables are complete there).
        self.above_static = above_static
        self.bound: set[str] = set()
        self.lonely: frozenset[str] = frozenset()
        self.lines: list[str] = []
        self.opened = 0
        self.fresh_count = 0
        if variables:
            self.lines.append("T " + ", ".join(sorted(set(variables.values()))) + ";")

    def fresh(self, prefix: str) -> str:
        self.fresh_count += 1
        return f"{prefix}{self.fresh_count}"

    def open(self, header: str) -> None:
        self.lines.append(header + " {")
        self.opened += 1

    def stmt(self, text: str) -> None:
        self.lines.append(text)

    def text(self) -> str:
        return "    {\n" + "\n".join(self.lines) + "\n" + "}" * self.opened + "\n    }\n"

    def finish(self, kind: _Kind, free: list[str]) -> None:
        if self.resolution is not None:
            self.stmt("sld_leave(); return 1;")
        elif kind.test:
            self.stmt("return 1;")
        elif free:
            self.stmt(f"add_answer(h, (const T[]){{{', '.join(free)}}});")
        else:
            self.stmt("add_answer(h, NULL);")

    def construct(self, term: Term) -> str:
        if isinstance(term, Constant):
            return str(self.compiler.names[term.name])
        if isinstance(term, Variable):
            return self.variables[term.name]
        args = ", ".join(self.construct(arg) for arg in term.args)
        return f"mk({self.compiler.names[term.name]}, {len(term.args)}, (const T[]){{{args}}})"

    def match(self, term: Term, expr: str) -> None:
        if isinstance(term, Variable):
            name = self.variables[term.name]
            if term.name in self.bound:
                self.open(f"if ({expr} == {name})")
            else:
                self.stmt(f"{name} = {expr};")
                self.bound.add(term.name)
        elif isinstance(term, Constant):
            self.open(f"if ({expr} == {self.compiler.names[term.name]})")
        else:
            t = self.fresh("t")
            self.stmt(f"T {t} = {expr};")
            self.open(f"if (TF({t}) == {self.compiler.names[term.name]} && "
                      f"TA({t}) == {len(term.args)})")
            for i, arg in enumerate(term.args):
                self.match(arg, f"TG({t}, {i})")

    def literal(self, literal: Atom | Not | Distinct) -> None:
        if isinstance(literal, Distinct):
            self.open(f"if ({self.construct(literal.left)} != {self.construct(literal.right)})")
        elif isinstance(literal, Not):
            inner = literal.literal
            if isinstance(inner, Distinct):
                self.open(f"if ({self.construct(inner.left)} == {self.construct(inner.right)})")
            else:
                assert isinstance(inner, Atom)
                if self.compiler.relaxed:
                    self.stmt(f"(void)({self._holds(inner)});")
                else:
                    self.open(f"if (!({self._holds(inner)}))")
        elif literal.signature == ("true", 1):
            self._true(literal.args[0])
        elif literal.signature == ("does", 2):
            self._does(literal.args[0], literal.args[1])
        else:
            self._call(literal)

    def _holds(self, atom: Atom) -> str:
        """A C expression: the fully bound ``atom`` holds."""
        if atom.signature == ("true", 1):
            pattern = atom.args[0]
            if isinstance(pattern, Function):
                number, positions = self.compiler.index(pattern, self.bound)
                keys = ", ".join(self.construct(pattern.args[p]) for p in positions)
                return f"index_true(&fluent_indexes[{number}], (const T[]){{{keys}}})"
            return f"rt_true({self.construct(pattern)})"
        if atom.signature == ("does", 2):
            return f"rt_does({self.construct(atom.args[0])}, {self.construct(atom.args[1])})"
        kind = self.compiler.kind(atom.signature, (True,) * atom.arity)
        key = self._key(atom, kind.bound)
        if kind.inline:
            return f"bd{kind.index}({key})"
        if kind.test and self._indexed(kind):
            return f"static_test({kind.index}, {key}, bd{kind.index})"
        if kind.test:
            return f"test_memo({kind.index}, {key}, bd{kind.index})"
        return f"!negated_call({kind.index}, {key})"

    def _static_above(self, signature: Signature) -> bool:
        """Whether a call of ``signature`` here reads a static relation from above."""
        return self.above_static and self.compiler.classes[signature] == STATIC

    def _indexed(self, kind: _Kind) -> bool:
        """Whether the call reads a static relation's index (built at setup where the
        relation is small; the run-time falls back to the tables where it is not)."""
        if (not self.above_static or self.compiler.classes[kind.signature] != STATIC
                or kind.signature[1] > 62):
            return False
        self.compiler.static_signature(kind.signature)
        return True

    def _key(self, atom: Atom, bound: tuple[bool, ...]) -> str:
        parts = [self.construct(arg) for arg, b in zip(atom.args, bound, strict=True) if b]
        return f"(const T[]){{{', '.join(parts)}}}" if parts else "NULL"

    def _call(self, atom: Atom) -> None:
        bound = tuple(_ground(arg, self.bound) for arg in atom.args)
        key = self._key(atom, bound)
        projected = _projected(atom, self.bound, self.lonely)
        if projected and self._static_above(atom.signature) and \
                self._indexed(plain := self.compiler.kind(atom.signature, bound)):
            # a static index's run: whether it has one
            a = self.fresh("a")
            self.stmt(f"const T *{a};")
            self.open(f"if (static_answers({plain.index}, {key}, &{a}) > 0)")
            return
        kind = self.compiler.kind(atom.signature, bound, exists=projected)
        if kind.inline:
            self.open(f"if (bd{kind.index}({key}))")
            return
        if kind.test and not kind.exists and self._indexed(kind):
            self.open(f"if (static_test({kind.index}, {key}, bd{kind.index}))")
            return
        if kind.test:
            self.open(f"if (test_memo({kind.index}, {key}, bd{kind.index}))")
            return
        if self.compiler._resolved(kind):
            if self.resolution is not None and \
                    self.compiler.scc_of[kind.signature] == self.resolution:
                self.open(f"if (sl{kind.index}({key}))")
            else:
                self.open(f"if (rec_test({kind.index}, {key}, sl{kind.index}))")
            return
        free = [arg for arg, b in zip(atom.args, bound, strict=True) if not b]
        i = self.fresh("i")
        if self._indexed(kind):  # a static index's run, else the call's table
            a, n = self.fresh("a"), self.fresh("n")
            self.stmt(f"const T *{a}; int32_t {n} = static_answers({kind.index}, {key}, &{a});")
            count, element = n, f"{a}[(int64_t){i} * {len(free)} + {{j}}]"
        else:
            h = self.fresh("h")
            self.stmt(f"int32_t {h} = call({kind.index}, {key});")
            count, element = f"TB({h}).n_ans", f"ANS({h}, {i}, {{j}})"
        self.open(f"for (int32_t {i} = 0; {i} < {count}; {i}++)")
        self.stmt("rt_tick();")
        names = []
        for j in range(len(free)):
            x = self.fresh("x")
            self.stmt(f"T {x} = {element.format(j=j)};")
            names.append(x)
        for arg, x in zip(free, names, strict=True):
            self.match(arg, x)

    def _true(self, pattern: Term) -> None:
        if _ground(pattern, self.bound) and not isinstance(pattern, Function):
            self.open(f"if (rt_true({self.construct(pattern)}))")
            return
        f, t = self.fresh("f"), self.fresh("t")
        if isinstance(pattern, Variable):
            self.open(f"for (int32_t {f} = 0; {f} < N_FLUENTS; {f}++)")
            self.open(f"if (BIT({f}))")
            self.stmt(f"T {t} = FLUENT_TERMS[{f}];")
            self.match(pattern, t)
            return
        assert isinstance(pattern, Function)
        number, positions = self.compiler.index(pattern, self.bound)
        run, count, j = self.fresh("r"), self.fresh("c"), self.fresh("j")
        keys = [self.construct(pattern.args[p]) for p in positions]
        key = f"(const T[]){{{', '.join(keys)}}}" if keys else "NULL"
        self.open("")
        self.stmt(f"const int32_t *{run}; int32_t {count} = "
                  f"index_run(&fluent_indexes[{number}], {key}, &{run});")
        self.open(f"for (int32_t {j} = 0; {j} < {count}; {j}++)")
        self.stmt("rt_tick();")
        self.stmt(f"int32_t {f} = {run}[{j}];")
        self.open(f"if (BIT({f}))")
        self.stmt(f"T {t} = FLUENT_TERMS[{f}];")
        for i, arg in enumerate(pattern.args):
            if i not in positions:
                self.match(arg, f"TG({t}, {i})")

    def _does(self, role: Term, move: Term) -> None:
        r = self.fresh("r")
        self.stmt("if (!joint_set) rt_fail(E_DOES);")
        if _ground(role, self.bound):
            self.stmt(f"int32_t {r} = rt_role({self.construct(role)});")
            self.open(f"if ({r} >= 0)")
        else:
            self.open(f"for (int32_t {r} = 0; {r} < N_ROLES; {r}++)")
            self.match(role, f"ROLE_TERMS[{r}]")
        self.match(move, f"cur_joint[{r}]")


def game_source(description: GameDescription, roles: Sequence[str],
                fluent_texts: Sequence[str], move_texts: Sequence[str],
                move_role: Sequence[int], roots: Sequence[Signature] = (), *,
                relaxed: bool = False) -> GameSource:
    """The C source of ``description`` over the engine's tables (fluent ``i`` is the term
    of ``fluent_texts[i]``, move ``j`` that of ``move_texts[j]``, of role ``move_role[j]``;
    the texts as :func:`reasoner.asp.symbols.symbol_to_gdl` writes them). Each relation of
    ``roots`` can be asked for all its answers in a state (``cg_root``), in a relaxed source
    only (where no call is a test without a table). ``relaxed``: every
    call leaves its table, for ``cg_dump`` to read (no inline tests, no resolution without
    tables), and negative literals are asked but hold (the relaxed reading).

    Raises:
        CompileRefusal: a rule is unsafe, or a table text does not read back as one term.
    """
    if roots and not relaxed:
        raise ValueError("roots are asked in a relaxed source only")
    compiler = _Compiler(description, roles, fluent_texts, move_texts, move_role, relaxed)
    return compiler.source(roots)
