"""Seeded random playouts, shared by the service's Simulate, the sweep and benchmarks.

:func:`random_playout` plays one playout a state at a time on any backend;
:func:`simulate` plays many, in bit-parallel batches when the game runs on the network
backend, else one after another. A seed fixes the playouts of one backend (recording the
trajectories or not); the two backends draw their moves differently.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from reasoner.asp.machine import StateInfo
from reasoner.engine.game import Game
from reasoner.engine.values import State
from reasoner.errors import NoLegalMoveError
from reasoner.propnet.batch import DEFAULT_LANES, batch_playouts

__all__ = ["PlayoutResult", "Simulation", "random_playout", "sample_states", "simulate"]


@dataclass(frozen=True)
class PlayoutResult:
    """The end of one playout."""

    final: State
    info: StateInfo
    length: int
    terminal: bool
    trajectory: tuple[tuple[int, ...], ...]


def random_playout(game: Game, state: State, rng: random.Random, max_steps: int,
                   record: bool = False) -> PlayoutResult:
    """Play uniformly random joint moves from ``state`` until terminal or ``max_steps``.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    info = game.info(state)
    choice = rng.choice
    trajectory: list[tuple[int, ...]] = []
    length = 0
    while not info.terminal and length < max_steps:
        for index, legal in enumerate(info.legal):
            if not legal:
                raise NoLegalMoveError(f"role {game.roles[index]} has no legal move in a "
                                       f"non-terminal state after {length} steps")
        # A role with one legal move (the waiting player's noop) draws no random number.
        joint = tuple(legal[0] if len(legal) == 1 else choice(legal) for legal in info.legal)
        if record:
            trajectory.append(joint)
        state, info = game.step(state, joint)
        length += 1
    return PlayoutResult(state, info, length, info.terminal, tuple(trajectory))


@dataclass(frozen=True)
class Simulation:
    """Many playouts, in columns: playout ``i`` made ``lengths[i]`` steps, ended in a
    terminal state or not (``terminal[i]``), with the goal values ``goals[i]`` of its last
    state; ``trajectories[i]`` its joint moves when they were recorded."""

    lengths: list[int]
    terminal: list[bool]
    goals: list[tuple[tuple[int, ...], ...]]
    trajectories: list[tuple[tuple[int, ...], ...]]
    updates: int
    batched: bool
    goal_table: list[int] | None = None  # see flat_goals

    def flat_goals(self) -> list[int]:
        """Every playout's goal value per role, one after another (playout-major), -1 for
        a role with none or several."""
        if self.goal_table is not None:
            return self.goal_table
        return [values[0] if len(values) == 1 else -1 for goals in self.goals
                for values in goals]


def sample_states(game: Game, count: int, seed: int = 0,
                  max_steps: int = 1000) -> list[tuple[State, tuple[int, ...]]]:
    """``count`` non-terminal states met along seeded random playouts from the initial
    state, each with the joint move (ids) played from it; fewer when the initial state is
    terminal. Benchmarks measure on such samples."""
    rng = random.Random(seed)
    found: list[tuple[State, tuple[int, ...]]] = []
    while len(found) < count:
        state = game.initial_state
        info = game.info(state)
        if info.terminal:
            break
        for _ in range(max_steps):
            if info.terminal or len(found) == count:
                break
            joint = tuple(rng.choice(legal) for legal in info.legal)
            found.append((state, joint))
            state, info = game.step(state, joint)
    return found


def simulate(game: Game, state: State, playouts: int, seed: int, max_steps: int,
             record: bool = False, lanes: int = DEFAULT_LANES,
             check: Callable[[], None] | None = None) -> Simulation:
    """``playouts`` seeded random playouts from ``state`` (see the module documentation);
    ``check`` is called between steps or playouts and may raise to stop.

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    propnet = game.propnet
    if propnet is not None:
        run = batch_playouts(propnet.network, propnet.batch, state.bits, playouts, seed,
                             max_steps, lanes, check, record)
        return Simulation(run.lengths, run.terminal, run.goals, run.trajectories,
                          run.updates, True, run.goal_table.ravel().tolist())
    rng = random.Random(seed)
    lengths: list[int] = []
    terminal: list[bool] = []
    goals: list[tuple[tuple[int, ...], ...]] = []
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
