"""Relaxed layers by compiled rules: the planning graph of a game too large to ground.

The relaxed layers (:mod:`reasoner.asp.relaxed_layers`) are counted out of the ground relaxed
program. A game whose relaxed program grounds past every bound (chessAlex's ``between/4``,
one ground rule per square between every two pieces; mummymaze1p's ``direction-from/5``
over the step counter's values) has no ground program to count; here its relaxed rules are
evaluated layer by layer instead, as :mod:`reasoner.compiled.relaxed` evaluates them once
over the fluent superset:

* The game's rules are compiled to C in their relaxed reading (negative literals asked and
  taken to hold, ``distinct`` kept, every call leaving its table) with every ``does`` read
  as ``legal``: a relaxed step plays every legal move, and ``legal`` reads no ``does``.
* Layer k is one evaluation in the state of every fluent whose first layer is k or less:
  ``next``, ``legal``, ``goal`` and ``terminal`` (and the relations whose atoms are asked
  for) are asked with no argument bound, and the tables of that state give each atom that
  first appears the layer k. The ``next`` fluents that are new make layer k + 1; the layers
  end at the first that adds none (a fixpoint) or at the layer cap. A fluent outside the
  table the code was compiled over (the rules read without negation reach more than the
  engine's fluent table, which keeps the negation of static relations) has the code
  compiled again with it, and the layers go on where they stopped.
* Every relation whose atoms are asked for is itself asked with no argument bound, so that
  an atom's first layer is the first in which it holds, not the first in which some rule
  asked for it with its arguments bound; a static atom's is 0, since it holds in every
  layer.

Each layer costs one evaluation of the rules in a state, a fraction of a second on these
games, where the ground program would cost millions of rules; the layers are those of the
ground relaxed program (the same reading), atom for atom.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from reasoner.compiled.build import shared_object
from reasoner.compiled.codegen import game_source
from reasoner.compiled.machine import COMPILED_MEMORY_MIB, error_of, open_library, table_growth
from reasoner.compiled.relations import STATIC, RelationGraph, Signature, by_relation
from reasoner.compiled.relaxed import Terms, dump, on_large_stack
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import (
    Atom,
    GameDescription,
    Literal,
    Not,
    Rule,
    Variable,
    relation_names,
)

__all__ = ["CompiledLayers", "compiled_layers"]

_REACHED = "reached"  # "true reached": a space, no name of the game

# What every layer asks: the fluents of the next layer, the moves, and what a heuristic reads.
_QUERIES: tuple[Signature, ...] = (("next", 1), ("legal", 2), ("goal", 2), ("terminal", 0))


@dataclass(frozen=True)
class CompiledLayers:
    """Per fluent, move and atom (the asked relations'; None: none asked) its first layer;
    how many layers; whether the last is a fixpoint."""

    fluents: dict[str, int]
    moves: dict[tuple[str, str], int]
    atoms: dict[str, int] | None
    count: int
    fixpoint: bool


def compiled_layers(description: GameDescription, fluent_texts: Sequence[str],
                    fluents_of_state: Iterable[str] | None, max_layers: int = 100,
                    atoms_of: Collection[str] | None = None, *, seconds: float = 60.0,
                    memory_mib: int = COMPILED_MEMORY_MIB) -> CompiledLayers:
    """The relaxed layers of a validated game from a state, ``fluents_of_state`` (texts as
    :func:`reasoner.asp.symbols.symbol_to_gdl` writes them; None: the initial state), the
    code compiled over ``fluent_texts`` (the engine's fluent table; fluents beyond it are
    added as they come); ``atoms_of``: the relations (names) whose atoms to keep, None for
    every relation's, an empty collection for none.

    Raises:
        CompilerMissing: no C compiler.
        CompileRefusal: the rules cannot be compiled.
        ResourceLimitError: the layers together ran past ``seconds`` or their tables past
            ``memory_mib``.
    """
    deadline = time.perf_counter() + seconds
    state = None if fluents_of_state is None else list(dict.fromkeys(fluents_of_state))
    rules = [Rule(flat.head, tuple(_does_as_legal(lit) for lit in flat.body), flat.pos)
             for rule in description for flat in flat_rules(rule)]
    graph = RelationGraph.of(by_relation(rules))
    wanted = None if atoms_of is None else set(atoms_of)
    queries = [sig for sig in _QUERIES if sig in graph.reads]
    relaxed = _Relaxed(
        GameDescription(tuple(rules)), description.roles,
        # Every relation whose atoms are asked is asked in full, so that each atom's first
        # layer is the first at which it holds, not the first at which a rule asked for it.
        queries + sorted(sig for sig in graph.reads.keys() - set(queries)
                         if wanted is None or sig[0] in wanted),
        {sig for sig, level in graph.classes.items() if level == STATIC},
        relation_names(rules), wanted, deadline, seconds, memory_mib)
    fluents = list(dict.fromkeys([*fluent_texts, *(state or ())]))
    progress = _Progress(state)
    reached = False
    while True:
        counting = _Counting(relaxed, fluents)
        found = on_large_stack(lambda: counting.layers(progress, max_layers))  # noqa: B023
        if found is not None:
            return found
        # Compiled again over every fluent the layers can reach (once), else over those
        # that came; the layers go on where they stopped.
        known = set(fluents)
        more = [] if reached else on_large_stack(
            lambda: _reachable_fluents(relaxed, fluents, state))  # noqa: B023
        reached = True
        fluents = [*fluents, *dict.fromkeys(
            text for text in [*more, *(progress.arriving or ())] if text not in known)]


def _reachable_fluents(relaxed: _Relaxed, fluents: Sequence[str],
                       state: Sequence[str] | None) -> list[str]:
    """Every fluent the relaxed rules reach from ``state`` (None: the initial state), in one
    evaluation: ``true`` read from a relation that ``next`` (and the state, or ``init``)
    make, negative literals left out (the relaxed reading holds them)."""
    reached = f"true {_REACHED}"
    rules = [Rule(rule.head, tuple(_reading(lit, reached) for lit in rule.body
                                   if not isinstance(lit, Not)), rule.pos)
             for rule in relaxed.rules]
    fluent = Variable("fluent")
    rules.append(Rule(Atom(reached, (fluent,)), (Atom("next", (fluent,)),)))
    if state is None:
        rules.append(Rule(Atom(reached, (fluent,)), (Atom("init", (fluent,)),)))
    else:
        rules += [Rule(Atom(reached, (parse_term(text, case_sensitive=True),)))
                  for text in state]
    source = game_source(GameDescription(tuple(rules)), relaxed.roles, fluents, (), (),
                         [("next", 1), (reached, 1)], relaxed=True)
    lib, lock = open_library(shared_object(source.text))
    check = error_of(relaxed.seconds, relaxed.memory_mib,
                     lambda: table_growth(lib, source.kind_patterns))
    left = max(relaxed.deadline - time.perf_counter(), 0.001)
    with lock:
        words = lib.cg_words()
        check(lib.cg_start(left, relaxed.memory_mib * 2**20, (ctypes.c_uint64 * words)()),
              "the initial state")
        for root in range(2):
            check(lib.cg_root(left, (ctypes.c_uint64 * words)(), root), "the fluents reached")
        kinds = (ctypes.c_uint8 * max(1, len(source.kind_patterns)))(
            *(name in ("next", reached) for (name, _), _ in source.kind_patterns))
        terms = Terms(lib, source.names)
        return list(dict.fromkeys(terms.text(record[1]) for record in _records(
            lib, kinds, [arity for (_, arity), _ in source.kind_patterns])))


def _reading(literal: Literal, reached: str) -> Literal:
    if isinstance(literal, Atom) and literal.signature == ("true", 1):
        return Atom(reached, literal.args, literal.pos)
    return literal


def _does_as_legal(literal: Literal) -> Literal:
    if isinstance(literal, Atom) and literal.signature == ("does", 2):
        return Atom("legal", literal.args, literal.pos)
    if isinstance(literal, Not) and isinstance(literal.literal, Atom) and \
            literal.literal.signature == ("does", 2):
        return Not(Atom("legal", literal.literal.args, literal.literal.pos), literal.pos)
    return literal


@dataclass(frozen=True)
class _Relaxed:
    """What every compilation of the relaxed rules shares: the rules, the roles, the
    relations asked in each layer, the static ones, the game's relation names, the names
    whose atoms are kept (None: all), the deadline and bounds."""

    rules: GameDescription
    roles: tuple[str, ...]
    roots: list[Signature]
    static: set[Signature]
    names: Collection[str]
    wanted: set[str] | None
    deadline: float
    seconds: float
    memory_mib: int


@dataclass
class _Progress:
    """The layers counted so far: each fluent's, move's and atom's first layer, the layer
    being counted and the fluents that arrive in it (None before the initial state)."""

    arriving: list[str] | None
    layer: int = 0
    fluents: dict[str, int] = field(default_factory=dict)
    moves: dict[tuple[str, str], int] = field(default_factory=dict)
    atoms: dict[str, int] = field(default_factory=dict)

    def found(self, fixpoint: bool, atoms_kept: bool) -> CompiledLayers:
        """The layers, the one being counted the last (their atoms if ``atoms_kept``)."""
        return CompiledLayers(self.fluents, self.moves, self.atoms if atoms_kept else None,
                              self.layer + 1, fixpoint)


class _Counting:
    """One compilation of the relaxed rules over a fluent table, counting layers."""

    def __init__(self, relaxed: _Relaxed, fluents: Sequence[str]) -> None:
        self.relaxed = relaxed
        self.source = game_source(relaxed.rules, relaxed.roles, fluents, (), (),
                                  relaxed.roots, relaxed=True)
        self.lib, self.lock = open_library(shared_object(self.source.text))
        self.fluents = fluents
        self.index = {text: at for at, text in enumerate(fluents)}
        self.check = error_of(relaxed.seconds, relaxed.memory_mib,
                              lambda: table_growth(self.lib, self.source.kind_patterns))
        patterns = self.source.kind_patterns
        # Which kinds' tables each layer reads: the moves, the next fluents and the atoms
        # asked for (the runtime's own relations are no relation of the game).
        self.kinds = (ctypes.c_uint8 * max(1, len(patterns)))()
        for kind, ((name, _), _) in enumerate(patterns):
            self.kinds[kind] = name in ("next", "legal") or (
                name in relaxed.names and (relaxed.wanted is None or name in relaxed.wanted))
        self.arities = [arity for (_, arity), _ in patterns]
        self.static = {kind for kind, (sig, _) in enumerate(patterns) if sig in relaxed.static}

    def layers(self, progress: _Progress, max_layers: int) -> CompiledLayers | None:
        """Count the layers on from ``progress``; None where the fluents arriving in the
        next layer are not all in the fluent table (``progress`` then stops before it)."""
        with self.lock:
            return self._layers(progress, max_layers)

    def _layers(self, progress: _Progress, max_layers: int) -> CompiledLayers | None:
        lib, patterns, wanted = self.lib, self.source.kind_patterns, self.relaxed.wanted
        keep_atoms = wanted is None or bool(wanted)
        terms = Terms(lib, self.source.names)
        bits = (ctypes.c_uint64 * lib.cg_words())()
        initial = (ctypes.c_uint64 * len(bits))()
        self.check(lib.cg_start(self._left(), self.relaxed.memory_mib * 2**20, initial),
                   "the initial state")
        if progress.arriving is None:
            progress.arriving = [text for at, text in enumerate(self.fluents)
                                 if initial[at >> 6] >> (at & 63) & 1]
        fluents, moves, atoms = progress.fluents, progress.moves, progress.atoms
        for text in fluents:
            self._set(bits, text)
        seen: set[tuple[int, ...]] = set()
        while True:
            layer = progress.layer
            for text in progress.arriving:
                fluents[text] = layer
                self._set(bits, text)
            for root in range(len(self.relaxed.roots)):
                self.check(lib.cg_root(self._left(), bits, root), f"relaxed layer {layer}")
            arriving: dict[str, None] = {}
            for record in _records(lib, self.kinds, self.arities):
                if record in seen:
                    continue
                seen.add(record)
                kind = record[0]
                (name, arity), _ = patterns[kind]
                first = 0 if kind in self.static else layer
                if name == "next":
                    text = terms.text(record[1])
                    if text not in fluents:
                        arriving[text] = None
                    continue
                if name == "legal" and arity == 2:
                    moves.setdefault((terms.text(record[1]), terms.text(record[2])), first)
                if keep_atoms and (wanted is None or name in wanted):
                    atoms.setdefault(name if not arity else "(" + " ".join(
                        [name, *map(terms.text, record[1:])]) + ")", first)
            if not arriving:
                return progress.found(True, keep_atoms)
            if layer + 1 >= max_layers:
                return progress.found(False, keep_atoms)
            progress.layer, progress.arriving = layer + 1, list(arriving)
            if any(text not in self.index for text in arriving):
                return None

    def _set(self, bits: ctypes.Array[ctypes.c_uint64], text: str) -> None:
        at = self.index[text]
        bits[at >> 6] |= 1 << (at & 63)

    def _left(self) -> float:
        """The seconds left to the layers (a call past the deadline times out at once)."""
        return max(self.relaxed.deadline - time.perf_counter(), 0.001)


def _records(lib: ctypes.CDLL, kinds: ctypes.Array[ctypes.c_uint8], arities: Sequence[int]
             ) -> list[tuple[int, ...]]:
    """The atoms of the current state's tables of the flagged ``kinds`` (each kind's
    relation of ``arities[kind]`` arguments): per atom, its kind and the arguments (term
    ids)."""
    flat = dump(lib, kinds)
    out: list[tuple[int, ...]] = []
    at = 0
    while at < len(flat):
        width = 1 + arities[flat[at]]
        out.append(tuple(flat[at:at + width]))
        at += width
    return out
