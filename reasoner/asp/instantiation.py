"""The instantiated (variable-free) game, read from clingo's ground program.

The game program is grounded over the relaxed superset, with ``true`` and ``does`` as
external atoms, and the ground-program reader (:mod:`reasoner.asp.ground_rules`) reports
every ground rule with its atoms' symbols. The grounder has already evaluated everything
static (facts, ``distinct``, auxiliary relations that do not depend on the state), so what
remains are the rules that a reasoner must evaluate per state. Written back as GDL they
form a game without variables that any GDL reasoner can read. The facts of the game's own
static relations are evaluated into the rules that read them and left out of the text
(they can be kept: ``keep_static``); those of GDL's relations (``role``, ``init``, a
``legal`` or ``goal`` that always holds) stay.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from reasoner.asp.encoding import relation_name
from reasoner.asp.ground_rules import RuleRecords, Symbol, ground_rules
from reasoner.asp.superset import Superset
from reasoner.asp.symbols import plain_atom_to_gdl, symbol_to_gdl
from reasoner.asp.translate import Signature, Translation
from reasoner.gdl.demand import MAGIC_SUFFIX, adorned_relation, is_adorned
from reasoner.gdl.syntax import GDL_KEYWORDS

__all__ = ["AUXILIARY_RELATION", "GroundProgram", "GroundRule", "RelationSize", "ground_program",
           "relation_sizes", "text_signature"]

# The atoms the grounder made up are each a relation of their own (gdl-reasoner-aux-17):
# the sizes count them together under this name.
AUXILIARY_RELATION = "gdl-reasoner-aux-*"
_AUXILIARY_PREFIX = "gdl-reasoner-aux-"
_INNERMOST = re.compile(r"\([^()]*\)")


@dataclass(frozen=True, slots=True)
class GroundRule:
    """A ground rule as GDL text: the head atom and the body literals (``(not ...)`` for
    negative ones); a fact has an empty body."""

    head: str
    body: tuple[str, ...]

    def __str__(self) -> str:
        if not self.body:
            return self.head
        return "(<= " + " ".join((self.head, *self.body)) + ")"


@dataclass(frozen=True, slots=True)
class RelationSize:
    """How large one relation of the instantiated game grew: its ground rules with a body
    (one per head atom) and its facts."""

    name: str
    arity: int
    rules: int
    facts: int

    def __str__(self) -> str:
        return f"{self.name}/{self.arity}: {self.rules:,} rules, {self.facts:,} facts"


def text_signature(text: str) -> Signature:
    """The relation of a ground atom written as GDL text: ``(cell 1 (move a b))`` is
    ``("cell", 2)``, ``terminal`` is ``("terminal", 0)``."""
    if not text.startswith("("):
        return text, 0
    inner = text[1:-1]
    while "(" in inner:  # each argument that is a function becomes one word
        inner = _INNERMOST.sub("t", inner)
    name, _, arguments = inner.partition(" ")
    return name, arguments.count(" ") + 1 if arguments else 0


def relation_sizes(bodied: Iterable[tuple[str, int]],
                   facts: Iterable[str]) -> tuple[RelationSize, ...]:
    """Per relation, its rules and facts, the largest first: ``bodied`` gives head atoms
    (texts) with their number of rules, ``facts`` the facts' texts. The grounder's own
    atoms count as one relation, :data:`AUXILIARY_RELATION`."""
    rules: Counter[Signature] = Counter()
    for head, count in bodied:
        rules[_relation_of(head)] += count
    held: Counter[Signature] = Counter(_relation_of(fact) for fact in facts)
    sizes = [RelationSize(name, arity, rules[name, arity], held[name, arity])
             for name, arity in rules.keys() | held.keys()]
    return tuple(sorted(sizes, key=lambda size: (-size.rules - size.facts, size.name,
                                                 size.arity)))


def _relation_of(text: str) -> Signature:
    if text.startswith(_AUXILIARY_PREFIX):
        return AUXILIARY_RELATION, 0
    return text_signature(text)


class _LiteralTexts(dict[int, str]):
    """The GDL text of each program literal: an atom's own, given; a negative literal's,
    ``(not ...)``, made the first time it is asked for and kept. An atom the grounder made
    up (it has no symbol) gets a name no GDL relation of the source can have, as names are
    read with their parentheses."""

    def __missing__(self, literal: int) -> str:
        text = ("(not " + self[-literal] + ")" if literal < 0
                else f"{_AUXILIARY_PREFIX}{literal}")
        self[literal] = text
        return text


class GroundProgram(Collection[GroundRule]):
    """The instantiated game's rules and how long grounding took.

    The rules are kept as clingo's ground program records (:class:`RuleRecords`) and one
    GDL text per atom, and made into :class:`GroundRule` values one at a time as they are
    iterated: a program of millions of rules (alexChess: 8.4 million) is written out
    without ever holding millions of Python objects. :attr:`rules` makes the whole tuple,
    for the callers that rework the rules (inlining, GDDL).
    """

    def __init__(self, facts: Sequence[str], records: RuleRecords, texts: dict[int, str],
                 extras: dict[int, tuple[str, ...]], seconds: float,
                 static_facts: int = 0) -> None:
        self.facts = tuple(facts)
        self.static_facts = static_facts  # facts of the game's own relations left out
        self._records = records
        self._texts = texts if isinstance(texts, _LiteralTexts) else _LiteralTexts(texts)
        self._extras = extras
        self.seconds = seconds
        self.rule_count = records.bodied_heads + (sum(
            len(extras.get(atom, ())) for head, body in records if body for atom in head)
            if extras else 0)

    def _bodied(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Every rule with a body: its head's text and its literals' texts."""
        texts = self._texts
        extras = self._extras
        for head, body in self._records:
            if not head or not body:
                continue  # integrity constraints do not occur; facts are in self.facts
            literals = tuple([texts[literal] for literal in body])
            for atom in head:
                yield texts[atom], literals
                # Equivalent atoms the grounder merged get their own copy of the rule.
                if extras:
                    for extra in extras.get(atom, ()):
                        yield extra, literals

    def __iter__(self) -> Iterator[GroundRule]:
        for fact in self.facts:
            yield GroundRule(fact, ())
        for head, literals in self._bodied():
            yield GroundRule(head, literals)

    def lines(self) -> Iterator[str]:
        """Each rule as a line of GDL text (what ``f"{rule}\\n"`` makes of each)."""
        for fact in self.facts:
            yield fact + "\n"
        texts = self._texts
        extras = self._extras
        for head, body in self._records:
            if not head or not body:
                continue
            line = " ".join([texts[literal] for literal in body]) + ")\n"
            for atom in head:
                yield "(<= " + texts[atom] + " " + line
                if extras:
                    for extra in extras.get(atom, ()):
                        yield "(<= " + extra + " " + line

    def __len__(self) -> int:
        return len(self.facts) + self.rule_count

    def __contains__(self, rule: object) -> bool:
        return any(rule == mine for mine in self)

    @cached_property
    def rules(self) -> tuple[GroundRule, ...]:
        """Every rule, facts first."""
        return tuple(self)

    def relation_sizes(self) -> tuple[RelationSize, ...]:
        """Per relation, its rules and facts, the largest first (see
        :func:`relation_sizes`); the rules are counted per head atom, not made."""
        heads = np.frombuffer(self._records.bodied_head_atoms, dtype=np.int32)
        atoms, counts = np.unique(heads, return_counts=True)
        texts, extras = self._texts, self._extras

        def bodied() -> Iterator[tuple[str, int]]:
            for atom, count in zip(atoms.tolist(), counts.tolist(), strict=True):
                yield texts[atom], count
                for extra in extras.get(atom, ()):  # merged atoms: a copy of each rule
                    yield extra, count

        return relation_sizes(bodied(), self.facts)


def ground_program(translation: Translation, superset: Superset,
                   roles: Sequence[str], *, max_rules: int | None = None,
                   keep_static: bool = False, demand: int | None = None,
                   max_records: int | None = None) -> GroundProgram:
    """Ground the game program over the superset and return its rules as GDL.

    The facts of the game's own relations (``dist``, ``succ``, ``adjacent``: none of GDL's
    keywords) are left out unless ``keep_static``: the grounder has evaluated them into
    every rule that reads them, so no rule of the instantiated game reads them, and they
    can be most of its text (ad_game_2x2: 358,596 facts beside 21,538 rules).
    :attr:`GroundProgram.static_facts` counts them.

    With ``demand`` (an index), that demand-driven game program is ground instead
    (:attr:`Translation.demand_game_programs`): only the helper instances that GDL's own
    relations can ask for. What it writes is stripped of the demand: magic rules and magic
    literals go, adorned relations get their own names back, and the rules two adornments
    share are written once. Every rule written is an instance of a rule of the game, and
    every instance that an atom written may need is there.

    Raises:
        GroundingStopped: the ground program grew past ``max_rules`` rules with a body
            (facts are not counted: mummymaze1p's static relations make 7.6 million), or
            past ``max_records`` rules and facts together.
    """
    start = time.perf_counter()
    externals = [f"#external true({f})." for f in superset.fluents]
    externals += [f"#external does({r},{m})." for r, m in superset.moves]
    program = translation.game_program if demand is None else \
        translation.demand_game_programs[demand]
    ground = ground_rules(program + "\n".join(externals) + "\n",
                          max_rules=max_rules, names=True, bodied=True,
                          max_records=max_records)

    terms: dict[Symbol, str] = {}  # argument terms repeat across atoms: convert once

    def term(symbol: Symbol) -> str:
        found = terms.get(symbol)
        if found is None:
            found = terms[symbol] = symbol_to_gdl(symbol)
        return found

    relations: dict[str, str] = {}  # per predicate, the relation's name as written

    def relation(predicate: str) -> str:
        name = relation_name(predicate)
        if demand is not None and is_adorned(name):  # an adorned copy: the game's name
            name = adorned_relation(name)
        relations[predicate] = name
        return name

    def named(predicate: str) -> str:
        return relations.get(predicate) or relation(predicate)

    def atom_text(symbol: Symbol) -> str:
        text = plain_atom_to_gdl(str(symbol), named)
        if text is not None:
            return text
        name = named(symbol.name)
        arguments = symbol.arguments
        if not arguments:
            return name
        return "(" + name + " " + " ".join([term(a) for a in arguments]) + ")"

    facts = [f"(role {name})" for name in roles]
    seen = set(facts)
    static = 0
    # The facts: the grounder's own helpers (names starting with "_") are left out, and
    # repeats dropped, before any is written as text (mummymaze1p: 7.6 million facts
    # heard, 1.1 million written; their texts had taken 150 s).
    for symbol in {symbol: None for symbol in ground.names.pop(0, [])
                   if not symbol.name.startswith("_") or symbol.name.startswith("_r_")}:
        name = relation_name(symbol.name)
        if _is_magic(name):
            continue
        if not keep_static and adorned_relation(name) not in GDL_KEYWORDS:
            static += 1
            continue
        text = atom_text(symbol)
        if text not in seen:
            seen.add(text)
            facts.append(text)
    texts = _LiteralTexts()
    extras: dict[int, tuple[str, ...]] = {}
    magic: set[int] = set()
    names = ground.names
    while names:  # emptied as it is read: the symbols go as their texts come
        atom, symbols = names.popitem()
        if demand is not None:
            symbols = [s for s in symbols if not _is_magic(relation_name(s.name))]
            if not symbols:
                magic.add(atom)
                continue
        texts[atom] = atom_text(symbols[0])
        if len(symbols) > 1:
            extras[atom] = tuple(atom_text(extra) for extra in symbols[1:])
    records = ground.rules
    if demand is not None:
        records, unconditional = _without_demand(records, texts, extras, magic)
        for atom in unconditional:
            own = texts.get(atom)
            for fact in (*([own] if own is not None else []), *extras.get(atom, ())):
                if fact not in seen:
                    seen.add(fact)
                    facts.append(fact)
    # clingo's own copy of the program (the bulk of the memory) goes with `ground`.
    return GroundProgram(facts, records, texts, extras, time.perf_counter() - start,
                         static)


def _is_magic(name: str) -> bool:
    """True for the demand's magic relations (see :mod:`reasoner.gdl.demand`)."""
    return is_adorned(name) and name.endswith(MAGIC_SUFFIX)


def _without_demand(records: RuleRecords, texts: dict[int, str],
                    extras: dict[int, tuple[str, ...]],
                    magic: set[int]) -> tuple[RuleRecords, set[int]]:
    """The demand-driven ground rules as rules of the game: magic rules and literals
    dropped, and each atom that several adorned copies share (by its text, which names
    the game's relation) read as one, so that their common rules are kept once.
    ``texts`` and ``extras`` are left with the atoms that stand for the others. Also the
    atoms whose rules had only demand in their bodies: facts now."""
    standing: dict[str, int] = {}
    one: dict[int, int] = {}
    for atom, text in list(texts.items()):
        kept = standing.setdefault(text, atom)
        one[atom] = kept
        if kept != atom:
            del texts[atom]
            more = extras.pop(atom, ())
            if more:
                extras[kept] = tuple(dict.fromkeys((*extras.get(kept, ()), *more)))
    out = RuleRecords()
    facts: set[int] = set()
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for head, body in records:
        if not body:
            continue
        heads = tuple(one.get(atom, atom) for atom in head if atom not in magic)
        if not heads:
            continue
        literals = tuple(one.get(lit, lit) if lit > 0 else -one.get(-lit, -lit)
                         for lit in body if abs(lit) not in magic)
        if not literals:
            # Demand alone guarded it: the atom holds wherever it is asked for, a fact
            # that rules read (kept whatever its relation).
            facts.update(heads)
            continue
        key = (heads, literals)
        if key in seen:
            continue
        seen.add(key)
        out.append(heads, literals)
    return out, facts
