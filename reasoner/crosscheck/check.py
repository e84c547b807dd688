"""Cross-checking: two reasoners play the same seeded random playouts and must agree on
every state (docs/semantics/crosschecking.md).

At every state both are asked for terminal; in a terminal state for the goal values of every
role, otherwise for the legal moves of every role; then one joint move is drawn from our
legal moves (:func:`reasoner.core.walk.pick_joint` over each role's moves sorted by text)
and both compute the successor; on a GDL-II game (``percepts``) both are asked too what each
role perceives when that joint move is played there (``sees``, which may read the
successor's fluents through ``next``). The first difference ends a playout; of all
playouts, the disagreement reached in the fewest steps is reported, with the joint moves
that reproduce it from the initial state. Supersets (fluents, moves, every relation's atoms)
are compared as sets.
"""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from reasoner.core.walk import pick_joint
from reasoner.crosscheck.sides import Side
from reasoner.crosscheck.trace import (
    TraceError,
    TraceHeader,
    TraceStep,
    write_header,
    write_step,
)

__all__ = ["CrossCheck", "Disagreement", "compare_sides", "compare_supersets",
           "compare_trace"]

_SHOWN = 12  # differing items printed per side


@dataclass(frozen=True)
class Disagreement:
    """Where two reasoners first differ, and how to get there."""

    # "initial state", "legal moves of xplayer", "successor", "percepts of candidate",
    # "fluents"...
    aspect: str
    ours: frozenset[str]
    theirs: frozenset[str]
    playout: int = -1  # -1: not found in play (roles, supersets)
    step: int = 0
    moves: tuple[tuple[str, ...], ...] = ()  # joint moves from the initial state
    state: frozenset[str] = frozenset()

    def describe(self, ours: str = "ours", theirs: str = "reference") -> str:
        """Several lines: what differs, the move sequence that reproduces it, and the two
        sets' differences."""
        lines = [f"disagreement on {self.aspect}"]
        if self.playout >= 0:
            lines[0] += f" (playout {self.playout}, step {self.step})"
            if self.moves:
                lines.append("reproduce with these joint moves from the initial state:")
                lines += [f"  {i + 1}. {' '.join(joint)}" for i, joint in enumerate(self.moves)]
            else:
                lines.append("reproduce in the initial state")
        for label, found in ((f"only {ours}", self.ours - self.theirs),
                             (f"only {theirs}", self.theirs - self.ours)):
            items = sorted(found)
            more = f" ... and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
            lines.append(f"{label} ({len(items)}): {' '.join(items[:_SHOWN])}{more}")
        return "\n".join(lines)


@dataclass
class CrossCheck:
    """The outcome of one cross-check."""

    playouts: int = 0
    states: int = 0
    percepts: int = 0  # joint moves whose percepts were compared (GDL-II)
    disagreement: Disagreement | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.disagreement is None


def _texts(values: Iterable[object]) -> frozenset[str]:
    return frozenset(str(v) for v in values)


@dataclass
class _Counts:
    states: int = 0
    percepts: int = 0


def _play(ours: Side, theirs: Side, playout: int, rng: random.Random, max_steps: int,
          record: TextIO | None, goals_everywhere: bool, percepts: bool,
          counts: _Counts) -> Disagreement | None:
    """One playout, counted in ``counts``; the first disagreement (or None)."""
    roles = ours.roles
    state = ours.initial_state()
    moves: list[tuple[str, ...]] = []

    def differ(aspect: str, a: Iterable[object], b: Iterable[object]) -> Disagreement:
        return Disagreement(aspect, _texts(a), _texts(b), playout, len(moves), tuple(moves),
                            state)

    for _ in range(max_steps + 1):
        counts.states += 1
        terminal = ours.terminal(state)
        if terminal != theirs.terminal(state):
            return differ("terminal", [str(terminal).lower()],
                                   [str(not terminal).lower()])
        if terminal or goals_everywhere:
            goals, their_goals = ours.goals(state), theirs.goals(state)
            for role in roles:
                if goals[role] != their_goals[role]:
                    return differ(f"goals of {role}", goals[role], their_goals[role])
        if terminal:
            if record is not None:
                write_step(record, playout, len(moves), state, True, {},
                           {r: _single(goals[r]) for r in roles}, None)
            return None
        legal, their_legal = ours.legal(state), theirs.legal(state)
        for role in roles:
            if legal[role] != their_legal[role]:
                return differ(f"legal moves of {role}", legal[role], their_legal[role])
        if not all(legal[role] for role in roles):
            # A role without moves: the game's defect, not ours to judge; the playout ends.
            if record is not None:
                write_step(record, playout, len(moves), state, False, legal,
                           {r: None for r in roles}, None)
            return None
        joint = pick_joint(rng, [sorted(legal[role]) for role in roles])
        if record is not None:
            write_step(record, playout, len(moves), state, False, legal,
                       {r: None for r in roles}, joint)
        following, their_following = ours.next_state(state, joint), theirs.next_state(state,
                                                                                       joint)
        moves.append(joint)
        if following != their_following:
            return differ("successor", following, their_following)
        if percepts:
            seen, their_seen = ours.sees(state, joint), theirs.sees(state, joint)
            counts.percepts += 1
            for role in roles:
                if seen[role] != their_seen[role]:
                    return differ(f"percepts of {role}", seen[role], their_seen[role])
        state = following
    return None


def _single(values: frozenset[int]) -> int | None:
    return next(iter(values)) if len(values) == 1 else None


def compare_sides(ours: Side, theirs: Side, *, playouts: int = 10, seed: int = 0,
                  max_steps: int = 200, record: TextIO | None = None,
                  goals_everywhere: bool = False, percepts: bool = False) -> CrossCheck:
    """Seeded random playouts in both; see the module docstring. ``record`` receives our
    side's trace (see :mod:`reasoner.crosscheck.trace`). With ``goals_everywhere`` the goal
    values are compared in every state, not only in terminal ones; with ``percepts`` (a
    GDL-II game) each role's percepts after every joint move played."""
    start = time.perf_counter()
    result = CrossCheck()
    if tuple(ours.roles) != tuple(theirs.roles):
        result.disagreement = Disagreement("roles", frozenset(ours.roles),
                                           frozenset(theirs.roles))
        return result
    init, their_init = ours.initial_state(), theirs.initial_state()
    if init != their_init:
        result.disagreement = Disagreement("initial state", init, their_init, 0)
        return result
    if record is not None:
        write_header(record, ours.roles, init)
    rng = random.Random(seed)
    best: Disagreement | None = None
    counts = _Counts()
    for playout in range(playouts):
        # Once a disagreement is known, a later playout can only report a shorter one.
        limit = max_steps if best is None else best.step - 1
        if limit < 0:
            break
        found = _play(ours, theirs, playout, rng, limit, record, goals_everywhere, percepts,
                      counts)
        result.playouts += 1
        result.states, result.percepts = counts.states, counts.percepts
        if found is not None and (best is None or found.step < best.step):
            best = found
    result.disagreement = best
    result.seconds = time.perf_counter() - start
    return result


def compare_supersets(ours: Mapping[str, frozenset[str]],
                      theirs: Mapping[str, frozenset[str]],
                      demanded: Collection[str] = ()) -> Disagreement | None:
    """The first relation ("fluents", "moves", then "name/arity" in order) whose atoms
    differ, or None; a relation of ``demanded`` (ours holds the instances its callers ask
    for) differs where ours has an atom that theirs has not."""
    for key in sorted(set(ours) | set(theirs), key=lambda k: (k not in ("fluents", "moves"), k)):
        a, b = ours.get(key, frozenset()), theirs.get(key, frozenset())
        if a != b and not (key in demanded and a <= b):
            return Disagreement(f"superset of {key}", a, b)
    return None


def compare_trace(ours: Side, header: TraceHeader, steps: Iterator[TraceStep]) -> CrossCheck:
    """Replay a trace's joint moves in our reasoner and check every line of it.

    A playout ends at a terminal state, or at a state where the trace lists no legal move
    for some role and no joint move: there the legal moves of every role are compared as
    anywhere else (both sides must find that role without a move).

    Raises:
        TraceError: the trace is malformed (naming the line), including a joint move that
            is not legal in our reasoner (then the trace is compared up to there), and a
            playout that goes on after its last step.
    """
    start = time.perf_counter()
    result = CrossCheck()
    if tuple(header.roles) != tuple(ours.roles):
        result.disagreement = Disagreement("roles", frozenset(ours.roles),
                                           frozenset(header.roles))
        return result
    init = ours.initial_state()
    if init != header.init:
        result.disagreement = Disagreement("initial state", init, header.init, 0)
        return result
    roles = ours.roles
    current_playout: int | None = None
    state = init
    moves: list[tuple[str, ...]] = []
    expected_step = 0
    ended: TraceStep | None = None  # the current playout's last step, once seen
    for step in steps:
        if step.playout != current_playout:
            current_playout, state, moves, expected_step = step.playout, init, [], 0
            ended = None
            result.playouts += 1
        if ended is not None:
            why = "terminal" if ended.terminal else "a role has no legal move there"
            raise TraceError(f"line {step.line}: playout {step.playout} goes on after its "
                             f"last step {ended.step} on line {ended.line} ({why})",
                             line=step.line, other_line=ended.line,
                             reason="terminal" if ended.terminal else "no-legal-move")
        if step.step != expected_step:
            raise TraceError(f"line {step.line}: step {step.step} of playout {step.playout} "
                             f"should be step {expected_step}")
        result.states += 1

        at = (step, tuple(moves), state)
        if step.state != state:
            result.disagreement = _at(at, "state", state, step.state)
            break
        terminal = ours.terminal(state)
        if terminal != step.terminal:
            result.disagreement = _at(at, "terminal", [str(terminal).lower()],
                                         [str(step.terminal).lower()])
            break
        if terminal:
            goals = ours.goals(state)
            mismatch = next((r for r in roles if _single(goals[r]) != step.goals[r]), None)
            if mismatch is not None:
                result.disagreement = _at(at, f"goals of {mismatch}", goals[mismatch],
                                             [] if step.goals[mismatch] is None
                                             else [step.goals[mismatch]])
                break
            ended = step
            continue
        legal = ours.legal(state)
        mismatch = next((r for r in roles if legal[r] != step.legal[r]), None)
        if mismatch is not None:
            result.disagreement = _at(at, f"legal moves of {mismatch}", legal[mismatch],
                                         step.legal[mismatch])
            break
        if step.joint is None:  # read_trace allows it only where a role has no legal move
            ended = step
            continue
        for role, move in zip(roles, step.joint, strict=True):
            if move not in legal[role]:
                raise TraceError(f"line {step.line}: the joint move plays {move} for {role}, "
                                 "which the trace's own legal moves do not list")
        state = ours.next_state(state, step.joint)
        moves.append(step.joint)
        expected_step += 1
    result.seconds = time.perf_counter() - start
    return result


def _at(at: tuple[TraceStep, tuple[tuple[str, ...], ...], frozenset[str]], aspect: str,
        ours: Iterable[object], theirs: Iterable[object]) -> Disagreement:
    step, moves, state = at
    return Disagreement(f"{aspect} (trace line {step.line})", _texts(ours), _texts(theirs),
                        step.playout, step.step, moves, state)
