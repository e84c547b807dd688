"""The top-down backend: each position evaluated by SWI-Prolog's resolution with tabling.

Where a game is too large to ground once, clingo's position-by-position grounding pays a
fixed cost per position for every non-ground rule (chess: about 480 rules, 40 ms), however
little the position asks. Resolution only touches the clauses a query reaches, so it answers
the same position an order of magnitude sooner. The clauses are the reference solver's
(:mod:`reasoner.reference.prolog`); this backend talks to its own ``swipl`` child in ids
(:mod:`reasoner.topdown.protocol`), one request line per step.

Because the clauses are the reference's, a game on this backend is cross-checked against
the clingo backends (``crosscheck --backends``), not against the reference.
"""

from __future__ import annotations

import random
import re
import shutil
import threading
import time
from collections.abc import Callable, Sequence

from reasoner.core.state_cache import StateCache
from reasoner.core.values import StateInfo
from reasoner.core.walk import MachineStepper, Simulation, pick_joint, simulate_sequentially
from reasoner.errors import (
    GdlValidationError,
    GoalValueError,
    ReferenceFailure,
    ResourceLimitError,
    seconds_text,
)
from reasoner.gdl.syntax import GameDescription
from reasoner.reference.solver import ReferenceSolver
from reasoner.topdown.protocol import PLAIN, TABLED, protocol_program

__all__ = ["TOPDOWN_SECONDS", "TopdownMachine", "topdown_available"]

# What one query may take before it is refused (RESOURCE_EXHAUSTED over gRPC).
TOPDOWN_SECONDS = 20.0
# How much longer the parent waits for the child's own refusal before it replaces the child.
_GRACE_SECONDS = 5.0
# The walk both copies of the rules play at load to choose between them: this many steps,
# the untabled copy given this many times the tabled one's time (at least the floor).
_TRIAL_STEPS = 4
_TRIAL_FACTOR = 2.0
_TRIAL_FLOOR = 0.05


def topdown_available(swipl: str = "swipl") -> bool:
    """Whether SWI-Prolog can be run (the backend's only requirement)."""
    return shutil.which(swipl) is not None


class TopdownMachine:
    """A game answered by a ``swipl`` child in ids over the engine's tables (thread-safe:
    one query at a time holds the child)."""

    network = None  # no compiled network
    ground_atom_count = 0  # nothing is ground

    def __init__(self, description: GameDescription, roles: Sequence[str],
                 fluent_texts: Sequence[str], move_texts: Sequence[str],
                 move_role: Sequence[int], *, seconds: float = TOPDOWN_SECONDS) -> None:
        """Start the child, ask for the initial state and choose the copy of the rules that
        serves (see :meth:`_choose`).

        Raises:
            ReferenceFailure: SWI-Prolog is missing or does not load the game.
            ResourceLimitError, GdlValidationError: as for the queries.
        """
        self.roles = tuple(roles)
        self.fluent_texts = tuple(fluent_texts)
        self.move_texts = tuple(move_texts)
        self.move_role = tuple(move_role)
        self.seconds = seconds  # each query's bound
        self._description = description
        self._program = protocol_program(description, self.roles, self.fluent_texts,
                                         list(zip(self.move_role, self.move_texts,
                                                  strict=True)))
        self._lock = threading.Lock()
        self._cache = StateCache()
        self._solver: ReferenceSolver | None = None
        self.tabled = True  # every relation tabled, or only the recursive ones
        self.init_bits = 0
        for index in self._ask("init", "the initial state")[0].split():
            self.init_bits |= 1 << int(index)
        self._choose()

    # -- queries -------------------------------------------------------------------------

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        cached = self._cache.get(bits)
        if cached is not None:
            return cached
        info = self._decode(self._ask(f"info({self._ids(bits)})", "a state's answers"))
        self._cache.put(bits, info)
        return info

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (with ``current``), its successor under ``joint`` (one
        move id per role) and the successor's info."""
        info = self.info(bits) if current else None
        fields = self._ask(self._step(bits, joint), "the next state")
        following = 0
        for index in fields[0].split():
            following |= 1 << int(index)
        next_info = self._decode(fields[1:])
        self._cache.put(following, next_info)
        return info, following, next_info

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None) -> Simulation:
        """Seeded random playouts from ``bits``, one after another (see
        :func:`reasoner.core.walk.simulate_sequentially`)."""
        return simulate_sequentially(MachineStepper(self), bits, playouts, seed, max_steps,
                                     record, check)

    def close(self) -> None:
        """Stop the child; a later query starts a new one."""
        with self._lock:
            solver, self._solver = self._solver, None
        if solver is not None:
            solver.close()

    # -- internals -----------------------------------------------------------------------

    def _choose(self) -> None:
        """Play a few seeded random steps from the initial state on both copies of the rules
        and keep the sooner: the tabled one first (it derives no atom twice within a
        query), then the plain one within twice its time; the walk ends early at a
        terminal state or at a step past the bound, which is then refused when asked for."""
        rng = random.Random(0)
        bits, info = self.init_bits, self.info(self.init_bits)
        walk: list[tuple[int, tuple[int, ...]]] = []
        while len(walk) < _TRIAL_STEPS and not info.terminal and all(info.legal):
            joint = pick_joint(rng, info.legal)
            try:
                _, following, info = self.transition(bits, joint, current=False)
            except ResourceLimitError:  # a step past the bound: the game decides later
                break
            walk.append((bits, joint))
            bits = following
        if not walk:
            return
        start = time.perf_counter()
        for bits, joint in walk:
            self._ask(self._step(bits, joint), "the next state", TABLED)
        tabled = time.perf_counter() - start
        bound = max(_TRIAL_FLOOR, _TRIAL_FACTOR * tabled)
        start = time.perf_counter()
        try:
            for bits, joint in walk:
                self._ask(self._step(bits, joint), "the next state", PLAIN, bound)
                if time.perf_counter() - start > bound:
                    return
        except ResourceLimitError:
            return
        self.tabled = time.perf_counter() - start >= tabled

    def _step(self, bits: int, joint: tuple[int, ...]) -> str:
        return f"step({self._ids(bits)},[{','.join(str(move) for move in joint)}])"

    @staticmethod
    def _ids(bits: int) -> str:
        out = []
        while bits:
            low = bits & -bits
            out.append(str(low.bit_length() - 1))
            bits ^= low
        return "[" + ",".join(out) + "]"

    def _decode(self, fields: Sequence[str]) -> StateInfo:
        """Legal move ids, terminal and goal pairs (see the protocol) as a state's info."""
        n_roles = len(self.roles)
        legal: list[list[int]] = [[] for _ in range(n_roles)]
        goals: list[list[int]] = [[] for _ in range(n_roles)]
        for text in fields[0].split():
            move = int(text)
            legal[self.move_role[move]].append(move)
        for number, value in zip(fields[2::2], fields[3::2], strict=True):
            role = int(number)
            if not (re.fullmatch(r"[0-9]{1,3}", value) and int(value) <= 100):
                raise GoalValueError.of(self.roles[role], value)
            goals[role].append(int(value))
        return StateInfo(tuple(tuple(sorted(x)) for x in legal), fields[1] == "1",
                         tuple(tuple(sorted(x)) for x in goals))

    def _ask(self, request: str, what: str, prefix: str | None = None,
             seconds: float | None = None) -> list[str]:
        """The reply to ``request`` over the copy of the rules ``prefix`` (default: the
        chosen one) within ``seconds`` (default: :attr:`seconds`)."""
        if prefix is None:
            prefix = TABLED if self.tabled else PLAIN
        bound = self.seconds if seconds is None else seconds
        with self._lock:
            if self._solver is None:
                self._solver = ReferenceSolver(self._description, extra=self._program,
                                               timeout=self.seconds + _GRACE_SECONDS)
            solver = self._solver
            try:
                return solver.ask(f"td({bound!r},'{prefix}',{request})", what)
            except ReferenceFailure as error:
                if solver.pid is None:  # over the parent's bound, or the child died
                    self._solver = None
                raise _refusal(error, what, bound) from None

    def __del__(self) -> None:
        solver = getattr(self, "_solver", None)
        if solver is not None:
            solver.close()


def _refusal(error: ReferenceFailure, what: str, seconds: float) -> Exception:
    """What a failed query means to the caller: a bound (RESOURCE_EXHAUSTED), rules that
    are not stratified (the game's defect), or a failure of the child."""
    message = str(error)
    if error.reason == "time":
        return ResourceLimitError(f"evaluating {what} top-down took more than "
                                  f"{seconds_text(seconds)}",
                                  bound="time", limit=seconds)
    if error.reason == "stack":
        return ResourceLimitError(f"evaluating {what} top-down ran out of Prolog stack "
                                  f"({message})", bound="memory")
    if error.reason == "unstratified":
        return GdlValidationError(message.partition(": ")[2] or message, reason="unstratified")
    return error
