"""Relaxed atoms by compiled rules: the supersets of a game too large to ground in full.

Grounding the relaxed program materialises every instance of every relation. Chess defines
``(threatened_with_capture ?owner ?cx ?cy ?x ?y ?ignorex ?ignorey)`` over sixteen
coordinates for each argument, and its full relaxed superset holds 11 million atoms, 8.4
million of them of that one relation, which the game only ever asks with all seven
arguments bound by the move at hand. Here the relaxed rules are evaluated as a top-down
reasoner with tables would: only the instances some rule asks for.

* The game's rules are compiled to C (:mod:`reasoner.compiled.codegen`) in its relaxed mode:
  ``does`` read from facts of the move superset (every move at once), a negative literal
  asked and then taken to hold (``distinct`` stays), and every call leaving its table: no
  inline tests, no proof that stops at its first answer.
* They are asked in one state, the fluent superset with every fluent at once: ``init``,
  ``next``, ``legal``, ``role``, ``goal`` and ``terminal`` with no argument bound, then every
  relation those do not read (``base``, ``input``). Every table the evaluation made is read
  back (``cg_dump``): a table's bound arguments and each of its answers make one atom.
* A magic-set rewrite evaluated this way would not do: magic sets and the relations they
  guard call each other in chains as long as a ray, one table inside the next.

What comes out is, per relation, the atoms that could ever hold among those that some rule
reads: for a relation that is used in full, every atom the relaxed game admits; for one that
is only called with bound arguments, the instances asked for. Relations of the second kind
are listed in :attr:`DemandedAtoms.demanded`.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

from reasoner.compiled.build import shared_object
from reasoner.compiled.codegen import CompileRefusal, game_source
from reasoner.compiled.machine import (
    COMPILED_MEMORY_MIB,
    error_of,
    open_library,
    table_growth,
)
from reasoner.compiled.relations import STATIC, RelationGraph, Signature, by_relation
from reasoner.gdl.components import reached_from
from reasoner.gdl.decompose import decompose_rules
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import (
    Atom,
    Function,
    GameDescription,
    Literal,
    Not,
    Rule,
    relation_names,
)

__all__ = ["DemandedAtoms", "Terms", "demanded_atoms", "dump", "on_large_stack",
           "relaxed_rules"]

QUERIES: tuple[Signature, ...] = (("init", 1), ("next", 1), ("legal", 2), ("role", 1),
                                  ("goal", 2), ("terminal", 0))
_MAX_ARITY = 256
_DOES = "does relaxed"  # a space: no name of the game
# The runtime refuses calls nested deeper than 20,000 (CALL_DEPTH): a few frames each.
_STACK_BYTES = 512 * 2**20
_STACK_LOCK = threading.Lock()
_T = TypeVar("_T")


@dataclass(frozen=True)
class DemandedAtoms:
    """Per relation (name, arity), the atoms as GDL texts, sorted; the relations whose atoms
    are only those their callers ask for ("name/arity"); and the time taken."""

    atoms: dict[Signature, tuple[str, ...]]
    demanded: tuple[str, ...]
    seconds: float


def relaxed_rules(description: GameDescription, moves: Sequence[tuple[str, str]],
                  split: bool = False) -> list[Rule]:
    """The game's flat rules with ``does`` read from facts of the move superset ``moves``
    (role and move texts). A literal ``(does ?r (move ?p ?x ?y))`` reads a relation of the
    move's functor with the move's arguments as its own, so that a bound ``?x`` is looked up
    in the static relation's index instead of tried against every move. ``split``: wide
    bodies are split (see :mod:`reasoner.gdl.decompose`)."""
    flats = [flat for rule in description for flat in flat_rules(rule)]
    # Split, wide bodies become joins of fewer variables (racer's of a player's position,
    # speed and the track, which hold every value at once in the relaxed state), never of
    # static relations alone, which would be evaluated in full.
    if split:
        dynamic = {name for (name, _), level in _graph(flats).classes.items()
                   if level != STATIC}
        flats = decompose_rules(flats, static=relation_names(flats) - dynamic)
    out = [Rule(flat.head, tuple(_does(lit) for lit in flat.body), flat.pos) for flat in flats]
    for role_text, move_text in moves:
        role = parse_term(role_text, case_sensitive=True)
        move = parse_term(move_text, case_sensitive=True)
        out.append(Rule(Atom(_DOES, (role, move))))
        if isinstance(move, Function):
            out.append(Rule(_does_atom(Atom("does", (role, move)))))
    return out


def _graph(rules: Sequence[Rule]) -> RelationGraph:
    return RelationGraph.of(by_relation(rules))


def _does(literal: Literal) -> Literal:
    if isinstance(literal, Atom) and literal.signature == ("does", 2):
        return _does_atom(literal)
    if isinstance(literal, Not) and isinstance(literal.literal, Atom) and \
            literal.literal.signature == ("does", 2):
        return Not(_does_atom(literal.literal), literal.pos)
    return literal


def _does_atom(atom: Atom) -> Atom:
    """A ``does`` atom as the relaxed rules read it (see :func:`relaxed_rules`)."""
    role, move = atom.args
    if isinstance(move, Function):
        return Atom(f"{_DOES} {move.name}/{len(move.args)}", (role, *move.args), atom.pos)
    return Atom(_DOES, atom.args, atom.pos)


def demanded_atoms(description: GameDescription, fluent_texts: Sequence[str],
                   moves: Sequence[tuple[str, str]], *, seconds: float = 60.0,
                   memory_mib: int = COMPILED_MEMORY_MIB, split: bool = False
                   ) -> DemandedAtoms:
    """The relaxed atoms of a validated game whose fluent superset is ``fluent_texts`` and
    move superset ``moves`` (role and move; texts as
    :func:`reasoner.asp.symbols.symbol_to_gdl` writes them); ``split``: with wide bodies
    split (see :func:`relaxed_rules`).

    Raises:
        CompilerMissing: no C compiler.
        CompileRefusal: the rules cannot be compiled.
        ResourceLimitError: the compiler, or the evaluation, ran past ``seconds`` (each) or
            the tables past ``memory_mib``.
    """
    start = time.perf_counter()
    rules = relaxed_rules(description, moves, split)
    reads = _graph(rules).reads
    queries = [sig for sig in QUERIES if sig in reads]
    # The queries, then in full every relation that they do not read (base and input).
    roots = queries + sorted(sig for sig in reads.keys() - reached_from(reads, queries)
                             if not sig[0].startswith(_DOES))
    source = game_source(GameDescription(tuple(rules)), description.roles, fluent_texts,
                         (), (), roots, relaxed=True)
    lib, lock = open_library(shared_object(source.text))
    state = (ctypes.c_uint64 * lib.cg_words())()
    for fluent in range(len(fluent_texts)):
        state[fluent >> 6] |= 1 << (fluent & 63)
    check = error_of(seconds, memory_mib, lambda: table_growth(lib, source.kind_patterns))

    def evaluate() -> tuple[dict[Signature, tuple[str, ...]], tuple[str, ...]]:
        with lock:  # the terms are read back before another call may drop them
            records = _evaluate(lib, state, len(roots), seconds, memory_mib, check)
            return _read(records, source.kind_patterns, Terms(lib, source.names),
                         relation_names(description.rules))

    # A relation that calls itself (a ray, cell after cell) nests its tables' evaluations:
    # deeper than a thread's usual stack holds, so the evaluation gets one of its own.
    atoms, demanded = on_large_stack(evaluate)
    return DemandedAtoms(atoms, demanded, time.perf_counter() - start)


def _evaluate(lib: ctypes.CDLL, state: ctypes.Array[ctypes.c_uint64], roots: int,
              seconds: float, memory_mib: int, check: Callable[[int, str], None]
              ) -> list[int]:
    """Ask every root for its answers in ``state`` (``check`` reading each answer code);
    every table's records (``cg_dump``)."""
    init = (ctypes.c_uint64 * len(state))()
    check(lib.cg_start(seconds, memory_mib * 2**20, init), "the initial state")
    for root in range(roots):
        check(lib.cg_root(seconds, state, root), "the relaxed atoms")
    return dump(lib)


def dump(lib: ctypes.CDLL, kinds: ctypes.Array[ctypes.c_uint8] | None = None) -> list[int]:
    """The records of the tables ``cg_dump`` reads back: every kind's, or those flagged in
    ``kinds`` (a flag per kind)."""
    empty = (ctypes.c_int32 * 1)()
    count = ctypes.c_int64()
    lib.cg_dump(kinds, empty, 0, ctypes.byref(count))
    buffer = (ctypes.c_int32 * max(1, count.value))()
    lib.cg_dump(kinds, buffer, len(buffer), ctypes.byref(count))
    return buffer[:count.value]


class Terms:
    """Term ids of a loaded game as GDL texts (each read once)."""

    def __init__(self, lib: ctypes.CDLL, names: Sequence[str]) -> None:
        self._lib = lib
        self._names = names
        self._texts: dict[int, str] = {}
        self._name = ctypes.c_int32()
        self._arguments = (ctypes.c_int32 * _MAX_ARITY)()

    def text(self, term: int) -> str:
        found = self._texts.get(term)
        if found is None:
            arity = self._lib.cg_term(term, ctypes.byref(self._name), self._arguments,
                                      _MAX_ARITY)
            if arity > _MAX_ARITY:
                raise CompileRefusal(f"a term has {arity} arguments, more than {_MAX_ARITY}")
            name = self._names[self._name.value]
            found = name if arity == 0 else \
                "(" + " ".join([name, *map(self.text, list(self._arguments[:arity]))]) + ")"
            self._texts[term] = found
        return found


def _read(records: Sequence[int], patterns: Sequence[tuple[Signature, tuple[bool, ...]]],
          terms: Terms, game_names: Collection[str]
          ) -> tuple[dict[Signature, tuple[str, ...]], tuple[str, ...]]:
    """The atoms per relation of ``cg_dump``'s records, and the relations ("name/arity")
    that are only called with bound arguments; relations not named in ``game_names`` (the
    parts of split bodies, the move facts) are left out."""
    atoms: dict[Signature, set[str]] = {}
    at = 0
    while at < len(records):
        (name, arity), _ = patterns[records[at]]
        arguments = records[at + 1:at + 1 + arity]
        at += 1 + arity
        if name not in game_names:
            continue
        atoms.setdefault((name, arity), set()).add(
            name if not arity else "(" + " ".join([name, *map(terms.text, arguments)]) + ")")
    full = {sig for sig, bound in patterns if not any(bound)}
    demanded = sorted(f"{name}/{arity}" for (name, arity), _ in patterns
                      if (name, arity) not in full and name in game_names)
    return ({sig: tuple(sorted(texts)) for sig, texts in sorted(atoms.items())},
            tuple(dict.fromkeys(demanded)))


def on_large_stack(work: Callable[[], _T]) -> _T:
    """What ``work`` returns, run in a thread with a stack of :data:`_STACK_BYTES` (what it
    raised, raised here)."""
    done: list[_T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as error:  # handed to the caller's thread
            failed.append(error)

    with _STACK_LOCK:
        previous = threading.stack_size(_STACK_BYTES)
        try:
            thread = threading.Thread(target=run, name="relaxed-atoms")
            thread.start()
        finally:
            threading.stack_size(previous)
    thread.join()
    if failed:
        raise failed[0]
    return done[0]
