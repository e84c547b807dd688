"""The one seeded random walk: every tool that plays random moves plays them here.

Playouts, the service's ``Simulate`` on the clingo backend, agreement checks, structure and
mutex detection, benchmarks and the sweep all draw their joint moves with
:func:`pick_joint`: one ``rng.choice`` per role in role order over its legal moves (in the
order the state lists them), and no random number for a role with a single legal move (the
waiting player's ``noop``). So a seed means the same walk in every command.

The walk runs over anything that answers :class:`Stepper`: a
:class:`reasoner.engine.game.Game` over :class:`~reasoner.core.values.State` values, or a
backend's machine over fluent bits (:class:`MachineStepper`). The network backends'
bit-parallel playouts (:func:`reasoner.propnet.batch.batch_playouts` in Python, the native
kernel's in C, on the CPU or a GPU) draw per lane and are the other samplers; a seed fixes
them too, but they visit other states.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, Protocol, TypeVar

from reasoner.core.values import Goals, StateInfo
from reasoner.errors import NoLegalMoveError

__all__ = ["MachineStepper", "Playout", "PlayoutResult", "Simulation", "Step", "StepPercepts",
           "Stepper", "pick_joint", "random_playout", "random_walk", "sample_states",
           "simulate_sequentially"]

S = TypeVar("S")
T = TypeVar("T")

#: GDL-II: what every role (role order) perceives after one joint move, as percept ids.
StepPercepts = tuple[tuple[int, ...], ...]


class Stepper(Protocol[S]):
    """What a walk asks of a game: the roles, a state's info, and a successor by move ids."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    def info(self, state: S) -> StateInfo: ...

    def step(self, state: S, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[S, StateInfo]: ...


class _Machine(Protocol):
    roles: tuple[str, ...]

    def info(self, bits: int) -> StateInfo: ...

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]: ...


class MachineStepper:
    """A backend machine (fluent bits, move ids) seen as a :class:`Stepper` over ints."""

    def __init__(self, machine: _Machine) -> None:
        self._machine = machine
        self.roles = machine.roles

    def info(self, state: int) -> StateInfo:
        return self._machine.info(state)

    def step(self, state: int, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[int, StateInfo]:
        del check_legal  # the walk plays legal moves only
        _, bits, info = self._machine.transition(state, joint, current=False)
        return bits, info


def pick_joint(rng: random.Random, legal: Sequence[Sequence[T]]) -> tuple[T, ...]:
    """One uniformly random move per role, in role order; a role with a single move draws
    no random number.

    >>> pick_joint(random.Random(0), [(3, 4, 5), ("noop",)])
    (4, 'noop')
    """
    return tuple(options[0] if len(options) == 1 else rng.choice(options)
                 for options in legal)


class Step(NamedTuple, Generic[S]):
    """One step of a walk: the state, what it answers, the joint move drawn (ids, role
    order), and the successor with what it answers."""

    state: S
    info: StateInfo
    joint: tuple[int, ...]
    successor: S
    successor_info: StateInfo


def random_walk(game: Stepper[S], state: S, rng: random.Random, max_steps: int, *,
                info: StateInfo | None = None) -> Iterator[Step[S]]:
    """Random joint moves (:func:`pick_joint`) from ``state`` until a terminal state or
    ``max_steps`` steps; ``info`` is the state's own when the caller has it.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    if info is None:
        info = game.info(state)
    step = game.step
    for length in range(max_steps):
        if info.terminal:
            return
        legal = info.legal
        if not all(legal):
            _no_legal_move(game, legal, length)
        joint = pick_joint(rng, legal)
        successor, following = step(state, joint, check_legal=False)
        yield Step(state, info, joint, successor, following)
        state, info = successor, following


def _no_legal_move(game: Stepper[S], legal: Sequence[Sequence[int]], length: int) -> None:
    role = next(i for i, moves in enumerate(legal) if not moves)
    raise NoLegalMoveError.after(game.roles[role], length)


@dataclass(frozen=True)
class PlayoutResult(Generic[S]):
    """The end of one playout."""

    final: S
    info: StateInfo
    length: int
    terminal: bool
    trajectory: tuple[tuple[int, ...], ...]
    timed_out: bool = False  # stopped at its deadline, before its end


def random_playout(game: Stepper[S], state: S, rng: random.Random, max_steps: int,
                   record: bool = False, deadline: float | None = None) -> PlayoutResult[S]:
    """Play the random walk from ``state`` to its end (see :func:`random_walk`), or until
    ``deadline`` (a :func:`time.perf_counter` value) has passed.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    # The walk of random_walk, without a Step per step: this is the playouts' hot loop.
    info = game.info(state)
    step = game.step
    trajectory: list[tuple[int, ...]] = []
    length = 0
    while length < max_steps and not info.terminal:
        if deadline is not None and time.perf_counter() > deadline:
            return PlayoutResult(state, info, length, False, tuple(trajectory), True)
        legal = info.legal
        if not all(legal):
            _no_legal_move(game, legal, length)
        joint = pick_joint(rng, legal)
        if record:
            trajectory.append(joint)
        state, info = step(state, joint, check_legal=False)
        length += 1
    return PlayoutResult(state, info, length, info.terminal, tuple(trajectory))


def sample_states(game: Stepper[S], initial: S, count: int, seed: int = 0,
                  max_steps: int = 1000) -> list[tuple[S, tuple[int, ...]]]:
    """``count`` non-terminal states met along seeded random walks from ``initial``, each
    with the joint move (ids) played from it; fewer when ``initial`` is terminal.
    Benchmarks and analyses measure on such samples."""
    rng = random.Random(seed)
    found: list[tuple[S, tuple[int, ...]]] = []
    if max_steps <= 0 or game.info(initial).terminal:
        return found
    while len(found) < count:
        for step in random_walk(game, initial, rng, max_steps):
            found.append((step.state, step.joint))
            if len(found) == count:
                break
    return found


@dataclass(frozen=True, slots=True)
class Playout:
    """One playout of a :class:`Simulation`: the goal value of each role in its last state
    (None where the role has none, or several), its length in joint moves, whether it
    ended in a terminal state, and its joint moves (ids, role order) when recorded; with
    them, in a GDL-II game when asked (:meth:`client.RemoteGame.simulate`'s
    ``record_percepts``), the percept ids each role received after each joint move."""

    goals: tuple[int | None, ...]
    length: int
    terminal: bool
    trajectory: tuple[tuple[int, ...], ...]
    percepts: tuple[StepPercepts, ...] = ()


@dataclass(frozen=True)
class Simulation:
    """Many playouts, in columns: playout ``i`` made ``lengths[i]`` steps, ended in a
    terminal state or not (``terminal[i]``), with the goal values ``goals[i]`` of its last
    state; ``trajectories[i]`` its joint moves when they were recorded. :attr:`playouts`
    gives them one :class:`Playout` each.

    What a game in process (:meth:`reasoner.engine.game.Game.simulate`) and a game on a
    service (:meth:`client.RemoteGame.simulate`) both answer: a role without a goal value
    at a playout's end is ``()`` in :attr:`goals`, -1 in :meth:`flat_goals` and None in
    :attr:`playouts`, on either."""

    lengths: list[int]
    terminal: list[bool]
    goals: list[Goals]
    trajectories: list[tuple[tuple[int, ...], ...]]
    updates: int
    batched: bool
    goal_table: list[int] | None = None  # see flat_goals
    elapsed_ms: float = 0.0  # the simulation's own time (the server's, over the service)
    # GDL-II, when asked: percepts[i][k][r], the percept ids role r received after joint
    # move k of playout i (one entry per recorded joint move); empty when not asked.
    percepts: list[tuple[StepPercepts, ...]] = field(default_factory=list)

    def flat_goals(self) -> list[int]:
        """Every playout's goal value per role, one after another (playout-major), -1 for
        a role with none or several."""
        if self.goal_table is not None:
            return self.goal_table
        return [values[0] if len(values) == 1 else -1 for goals in self.goals
                for values in goals]

    @property
    def playouts(self) -> tuple[Playout, ...]:
        """One :class:`Playout` per playout, in order."""
        flat = self.flat_goals()
        count = len(self.lengths)
        roles = len(flat) // count if count else 0
        paths = self.trajectories or [()] * count
        seen = self.percepts or [()] * count
        return tuple(
            Playout(tuple(None if value < 0 else value
                          for value in flat[i * roles:(i + 1) * roles]), length, terminal, path,
                    percepts)
            for i, (length, terminal, path, percepts) in enumerate(
                zip(self.lengths, self.terminal, paths, seen, strict=True)))

    @classmethod
    def of_columns(cls, lengths: Sequence[int], terminal: Sequence[bool],
                   flat_goals: Sequence[int], roles: int,
                   trajectories: Sequence[tuple[tuple[int, ...], ...]], updates: int,
                   elapsed_ms: float = 0.0,
                   percepts: Sequence[tuple[StepPercepts, ...]] = ()) -> Simulation:
        """A simulation from its columns as the service sends them: goal values
        playout-major, -1 for a role with none or several (read as none).

        >>> run = Simulation.of_columns([2, 5], [True, False], [100, 0, -1, -1], 2, [], 7)
        >>> run.goals, [p.goals for p in run.playouts]
        ([((100,), (0,)), ((), ())], [(100, 0), (None, None)])
        """
        flat = list(flat_goals)
        # One tuple per distinct value, looked up by map in C: the service's answers of
        # thousands of playouts are read in a fraction of the call.
        box = {value: (value,) if value >= 0 else () for value in set(flat)}
        boxed = list(map(box.__getitem__, flat))
        # Each playout's roles, grouped by one iterator taken roles times (zip in C).
        goals: list[Goals] = list(zip(*[iter(boxed)] * roles, strict=True)) if roles else []
        return cls(list(lengths), list(terminal), goals, list(trajectories), updates, False,
                   flat, elapsed_ms, list(percepts))


def simulate_sequentially(game: Stepper[S], state: S, playouts: int, seed: int,
                          max_steps: int, record: bool = False,
                          check: Callable[[], None] | None = None) -> Simulation:
    """``playouts`` random playouts from ``state`` one after another with one
    ``random.Random(seed)``; ``check`` is called before each and may raise to stop.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    rng = random.Random(seed)
    lengths: list[int] = []
    terminal: list[bool] = []
    goals: list[Goals] = []
    trajectories: list[tuple[tuple[int, ...], ...]] = []
    for _ in range(playouts):
        if check is not None:
            check()
        result = random_playout(game, state, rng, max_steps, record=record)
        lengths.append(result.length)
        terminal.append(result.terminal)
        goals.append(result.info.goals)
        if record:
            trajectories.append(result.trajectory)
    return Simulation(lengths, terminal, goals, trajectories, sum(lengths), False)
