"""The compiled-rules machine: a game's rules as C (:mod:`reasoner.compiled.codegen`),
loaded with ctypes and asked in ids.

States cross as bit words, moves as ids; one call answers a state's legal moves, terminal
and goals, and one a step with the successor's own answers. ``simulate`` runs its playouts
in C, a chunk at a time with ``check`` between chunks. The C code is not thread-safe: one
lock per shared object (two games of the same source share one) serialises the calls,
which release the Python lock while they run.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reasoner.compiled.build import shared_object
from reasoner.compiled.codegen import CompileRefusal, GameSource, game_source
from reasoner.core.state_cache import StateCache
from reasoner.core.values import Goals, StateInfo
from reasoner.core.walk import MachineStepper, Simulation, simulate_sequentially
from reasoner.errors import (
    GdlValidationError,
    GoalValueError,
    NoLegalMoveError,
    ResourceLimitError,
    seconds_text,
)
from reasoner.gdl.syntax import GameDescription

__all__ = ["COMPILED_MEMORY_MIB", "COMPILED_SECONDS", "CompiledMachine", "TableGrowth",
           "error_of", "open_library", "table_growth"]

# What one query may take, and what the tables of one game may hold, before a query is
# refused (RESOURCE_EXHAUSTED over gRPC).
COMPILED_SECONDS = 20.0
COMPILED_MEMORY_MIB = 2048
# Playouts go in chunks of about this many seconds, ``check`` called between them.
_CHUNK_SECONDS = 0.05

_E_MEMORY, _E_TIME, _E_UNSTRATIFIED, _E_FLUENT, _E_MOVE, _E_GOAL, _E_NO_MOVE, _E_DOES = \
    range(1, 9)
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()

_U64P = ctypes.POINTER(ctypes.c_uint64)
_I32P = ctypes.POINTER(ctypes.c_int32)


def open_library(path: Path) -> tuple[ctypes.CDLL, threading.Lock]:
    """A compiled game's shared object, loaded, and the lock that serialises its calls."""
    lib = ctypes.CDLL(str(path))
    d, i32, i64 = ctypes.c_double, ctypes.c_int32, ctypes.c_int64
    lib.cg_start.argtypes = [d, i64, _U64P]
    lib.cg_info.argtypes = [d, _U64P, _I32P, _I32P, _I32P, _I32P, _I32P]
    lib.cg_transition.argtypes = [d, _U64P, _I32P, _U64P, _I32P, _I32P, _I32P, _I32P, _I32P]
    lib.cg_playouts.argtypes = [d, _U64P, i32, ctypes.c_uint64, i32, _I32P,
                                ctypes.POINTER(ctypes.c_int8), _I32P, _I32P]
    lib.cg_root.argtypes = [d, _U64P, i32]
    lib.cg_term.argtypes = [i32, _I32P, _I32P, i32]
    lib.cg_dump.argtypes = [ctypes.c_void_p, _I32P, i64, ctypes.POINTER(ctypes.c_int64)]
    lib.cg_terms.restype = i64
    lib.cg_bytes.restype = i64
    lib.cg_growth.argtypes = [i32, ctypes.c_int]
    lib.cg_growth.restype = i64
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(str(path), threading.Lock())
    return lib, lock


class CompiledMachine:
    """A game answered by its rules compiled to C (thread-safe)."""

    network = None  # no compiled network
    ground_atom_count = 0  # nothing is ground

    def __init__(self, description: GameDescription, roles: Sequence[str],
                 fluent_texts: Sequence[str], move_texts: Sequence[str],
                 move_role: Sequence[int], *, seconds: float = COMPILED_SECONDS,
                 memory_mib: int = COMPILED_MEMORY_MIB) -> None:
        """Generate and compile the rules (or find them compiled) and ask for the initial
        state.

        Raises:
            CompileRefusal: the rules cannot be compiled (the reason says why).
            CompilerMissing: no C compiler.
            ResourceLimitError: the compiler or the initial state ran past a bound.
        """
        self.roles = tuple(roles)
        self.fluent_texts = tuple(fluent_texts)
        self.move_texts = tuple(move_texts)
        self.move_role = tuple(move_role)
        self.seconds = seconds
        self.memory_mib = memory_mib
        start = time.perf_counter()
        self.source: GameSource = game_source(description, self.roles, self.fluent_texts,
                                              self.move_texts, self.move_role)
        self.generate_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        self._lib, self._lock = open_library(shared_object(self.source.text))
        self.compile_ms = (time.perf_counter() - start) * 1e3
        self._words = self._lib.cg_words()
        self._legal = (ctypes.c_int32 * max(1, len(self.move_texts)))()
        self._goals = (ctypes.c_int32 * (2 * self._lib.cg_goal_cap()))()
        self._cache = StateCache()
        # Buffers of the calls, used under the lock (their values are copied out there).
        self._out = (ctypes.c_uint64 * self._words)()
        self._moves = (ctypes.c_int32 * max(1, len(self.roles)))()
        self._counts = (ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32())
        self._check = error_of(
            seconds, memory_mib, lambda: table_growth(self._lib, self.source.kind_patterns))
        out = (ctypes.c_uint64 * self._words)()
        with self._lock:
            code = self._lib.cg_start(seconds, memory_mib * 2**20, out)
        self._check(code, "the initial state")
        self.init_bits = self._bits(out)

    # -- queries -------------------------------------------------------------------------

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        cached = self._cache.get(bits)
        if cached is not None:
            return cached
        state = self._words_of(bits)
        n_legal, terminal, n_goals = self._counts
        with self._lock:
            code = self._lib.cg_info(self.seconds, state, self._legal, ctypes.byref(n_legal),
                                     ctypes.byref(terminal), self._goals,
                                     ctypes.byref(n_goals))
            self._check(code, "a state's answers")
            info = self._decode(n_legal.value, terminal.value, n_goals.value)
        self._cache.put(bits, info)
        return info

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (with ``current``), its successor under ``joint`` (one
        move id per role) and the successor's info."""
        info = self.info(bits) if current else None
        state = self._words_of(bits)
        n_legal, terminal, n_goals = self._counts
        with self._lock:
            moves = self._moves
            moves[:len(joint)] = list(joint)
            code = self._lib.cg_transition(self.seconds, state, moves, self._out, self._legal,
                                           ctypes.byref(n_legal), ctypes.byref(terminal),
                                           self._goals, ctypes.byref(n_goals))
            if code:
                self._check(code, "the next state")
            next_info = self._decode(n_legal.value, terminal.value, n_goals.value)
            following = self._bits(self._out)
        self._cache.put(following, next_info)
        return info, following, next_info

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None) -> Simulation:
        """Seeded random playouts from ``bits``, in C (recorded ones one step at a time in
        Python, :func:`reasoner.core.walk.simulate_sequentially`)."""
        if record:
            return simulate_sequentially(MachineStepper(self), bits, playouts, seed,
                                         max_steps, record, check)
        start = time.perf_counter()
        state = self._words_of(bits)
        roles = len(self.roles)
        lengths: list[int] = []
        terminal: list[bool] = []
        goals: list[int] = []
        chunk = 1
        done = 0
        while done < playouts:
            if check is not None:
                check()
            count = min(chunk, playouts - done)
            out_lengths = (ctypes.c_int32 * count)()
            out_terminal = (ctypes.c_int8 * count)()
            out_goals = (ctypes.c_int32 * (count * max(1, roles)))()
            began = time.perf_counter()
            with self._lock:
                code = self._lib.cg_playouts(self.seconds, state, count,
                                             (seed * 1_000_003 + done) & (2**64 - 1),
                                             max_steps, out_lengths, out_terminal, out_goals,
                                             None)
                detail = self._lib.cg_error_detail()
            if code == _E_NO_MOVE:
                role = self.roles[detail] if 0 <= detail < roles else None
                raise NoLegalMoveError(f"role {role} has no legal move in a non-terminal "
                                       "state of a playout", role=role, reason="no-legal-move")
            self._check(code, "a playout")
            lengths.extend(out_lengths)
            terminal.extend(bool(x) for x in out_terminal)
            goals.extend(out_goals[:count * roles])
            done += count
            spent = time.perf_counter() - began
            if spent < _CHUNK_SECONDS / 2:
                chunk *= 2
        run = Simulation.of_columns(lengths, terminal, goals, roles, [], sum(lengths),
                                    (time.perf_counter() - start) * 1e3)
        return run

    def close(self) -> None:
        """Nothing to stop (the shared object stays loaded for the process)."""

    # -- internals -----------------------------------------------------------------------

    def _words_of(self, bits: int) -> ctypes.Array[ctypes.c_uint64]:
        words: ctypes.Array[ctypes.c_uint64] = (ctypes.c_uint64 * self._words).from_buffer_copy(
            bits.to_bytes(self._words * 8, "little"))
        return words

    @staticmethod
    def _bits(words: ctypes.Array[ctypes.c_uint64]) -> int:
        return int.from_bytes(bytes(words), "little")

    def _decode(self, n_legal: int, terminal: int, n_goals: int) -> StateInfo:
        roles = len(self.roles)
        legal: list[list[int]] = [[] for _ in range(roles)]
        move_role = self.move_role
        for move in self._legal[:n_legal]:
            legal[move_role[move]].append(move)
        goals: list[list[int]] = [[] for _ in range(roles)]
        pairs = self._goals[:2 * n_goals]
        names = self.source.names
        for role, value in zip(pairs[0::2], pairs[1::2], strict=True):
            if role < 0:
                continue
            text = names[value] if value < len(names) else "a compound term"
            if not (text.isdigit() and len(text) <= 3 and int(text) <= 100):
                raise GoalValueError.of(self.roles[role], text)
            goals[role].append(int(text))
        found: Goals = tuple(tuple(sorted(set(values))) for values in goals)
        return StateInfo(tuple(tuple(sorted(x)) for x in legal), bool(terminal), found)


@dataclass(frozen=True)
class TableGrowth:
    """What a compiled game's tables held when a call was refused, per relation
    ("name/arity"): its tables (one per binding asked) and their answers, largest first;
    and the bytes held then by the tables and by the terms the evaluation made (lists,
    numbers of compound terms), and how many terms that was."""

    relations: tuple[tuple[str, int, int], ...]
    table_bytes: int = 0
    term_bytes: int = 0
    terms_made: int = 0

    @property
    def relation(self) -> str | None:
        """The relation whose tables held the most, where the tables held more than the
        terms did."""
        return self.relations[0][0] if self.relations and not self._terms_grew else None

    @property
    def _terms_grew(self) -> bool:
        return self.term_bytes > self.table_bytes

    def describe(self) -> str:
        """What grew, as a clause: "the tables of X grew most (...; then Y: ...)", with the
        next two where they held at least a hundredth of what it held; where the terms
        held more than the tables, "the terms it made grew most (...)"; empty where
        nothing was held."""
        if self._terms_grew:
            return f"the terms it made grew most ({self.terms_made:,} terms, " \
                   f"{_mib(self.term_bytes)}; the tables {_mib(self.table_bytes)})"
        if not self.relations:
            return ""
        (name, tables, answers), *rest = self.relations[:3]
        rest = [entry for entry in rest if 100 * (entry[1] + entry[2]) >= tables + answers]
        then = "; then " + ", ".join(f"{n}: {_counted(t, a)}" for n, t, a in rest) \
            if rest else ""
        return f"the tables of {name} grew most ({_counted(tables, answers)}{then})"


def _counted(tables: int, answers: int) -> str:
    return f"{tables:,} table{'s' if tables != 1 else ''}, " \
           f"{answers:,} answer{'s' if answers != 1 else ''}"


def _mib(count: int) -> str:
    return f"{count / 2**20:,.0f} MiB"


def table_growth(lib: ctypes.CDLL, patterns: Sequence[tuple[tuple[str, int], tuple[bool, ...]]]
                 ) -> TableGrowth:
    """What the tables of ``lib`` (whose kinds are ``patterns``: relation and binding) held
    at its last refused call, per relation of the game (the runtime's own relations, whose
    names hold a space, left out)."""
    held: dict[str, list[int]] = {}
    for kind, ((name, arity), _) in enumerate(patterns):
        if " " in name:
            continue
        tables, answers = lib.cg_growth(kind, 0), lib.cg_growth(kind, 1)
        if tables:
            counts = held.setdefault(f"{name}/{arity}", [0, 0])
            counts[0] += tables
            counts[1] += answers
    ranked = sorted(held.items(), key=lambda item: (-(item[1][0] + item[1][1]), item[0]))
    return TableGrowth(tuple((name, tables, answers) for name, (tables, answers) in ranked),
                       lib.cg_growth(-1, 0), lib.cg_growth(-1, 1), lib.cg_growth(-1, 2))


def error_of(seconds: float, memory_mib: int,
             growth: Callable[[], TableGrowth] | None = None) -> Callable[[int, str], None]:
    """What checks an entry point's answer code: nothing for 0, else the error it stands for
    (under the bounds ``seconds`` and ``memory_mib``), raised, ``what`` naming the query;
    ``growth``: what the tables held then, to name in a refusal for a bound."""
    def grew() -> tuple[str, str | None]:
        found = TableGrowth(()) if growth is None else growth()
        clause = found.describe()
        return (f"; {clause}" if clause else ""), found.relation

    def check(code: int, what: str) -> None:
        if code == 0:
            return
        if code == _E_MEMORY:
            clause, relation = grew()
            raise ResourceLimitError(
                f"the compiled rules' tables for {what} grew past {memory_mib} MiB{clause}",
                "memory", relation, limit=memory_mib, reason="compiled-tables")
        if code == _E_TIME:
            clause, relation = grew()
            raise ResourceLimitError(f"the compiled rules took more than {seconds_text(seconds)} "
                                     f"for {what}{clause}", "time", relation, limit=seconds,
                                     reason="compiled-time")
        if code == _E_UNSTRATIFIED:
            raise GdlValidationError("the rules are not stratified: a negated relation "
                                     "depends on itself", reason="unstratified")
        if code == _E_GOAL:
            raise GoalValueError(f"a goal value of {what} is not an integer in 0..100",
                                 reason="goal-value")
        if code == _E_FLUENT:
            raise CompileRefusal(f"{what} has a fluent outside the fluent table")
        if code == _E_MOVE:
            raise CompileRefusal(f"{what} has a move outside the move table")
        raise CompileRefusal(f"{what} failed in the compiled rules (code {code})")
    return check
