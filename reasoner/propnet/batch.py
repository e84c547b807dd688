"""Bit-parallel random playouts on a network: one int per signal, one bit per playout.

A batch of up to ``lanes`` playouts advances in lock step: every gate of the network is one
Python int operation over all lanes (:func:`reasoner.propnet.codegen.compile_batch`). The
random joint move is drawn for all lanes at once with numpy: per role, the legal lanes of
each move that is legal somewhere become the rows of a bit matrix, every legal (move, lane)
gets a random key, and each lane plays the move with the largest key (a uniform choice
among its legal moves, independent between lanes). A role with one move legal in every
live lane (the waiting player's noop) needs no draw. Lanes that reach a terminal state or
the step bound drop out; their goal values are read when they do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from reasoner.errors import NoLegalMoveError
from reasoner.propnet.codegen import BatchFunctions
from reasoner.propnet.network import Network

__all__ = ["DEFAULT_LANES", "BatchRun", "batch_playouts"]

DEFAULT_LANES = 1024


Goals = tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class BatchRun:
    """The ends of a run of playouts, in columns: playout ``i`` made ``lengths[i]`` steps,
    ended terminal or not (``terminal[i]``, false when the step bound stopped it), with the
    goal values ``goals[i]`` (per role, in role order) of its last state."""

    lengths: list[int]
    terminal: list[bool]
    goals: list[Goals]
    updates: int
    trajectories: list[tuple[tuple[int, ...], ...]]  # joint moves, when recorded
    # goal_table[i, r]: the goal value of role r in playout i's last state, -1 for none or
    # several (what Simulate's columns send).
    goal_table: np.ndarray


class _Chooser:
    """Draws one legal move per live lane for each role."""

    def __init__(self, network: Network, seed: int) -> None:
        self.per_role: list[list[int]] = [[] for _ in network.roles]
        for move, role in enumerate(network.move_role):
            self.per_role[role].append(move)
        self.random = np.random.Generator(np.random.PCG64(seed))

    def joint(self, legal: list[int], alive: int, width: int, moves: int,
              roles: tuple[str, ...], step: int,
              record: list[np.ndarray] | None = None) -> list[int]:
        """The lanes of every move in the drawn joint move; with ``record``, each role's
        move id per lane is appended to it."""
        chosen = [0] * moves
        size = (width + 7) // 8
        for role, candidates in enumerate(self.per_role):
            rows = [m for m in candidates if legal[m] & alive]
            covered = 0
            for m in rows:
                covered |= legal[m]
            if alive & ~covered:
                raise NoLegalMoveError.after(roles[role], step)
            if len(rows) == 1:
                chosen[rows[0]] = alive
                if record is not None:
                    record.append(np.full(width, rows[0], dtype=np.int64))
                continue
            buffer = b"".join((legal[m] & alive).to_bytes(size, "little") for m in rows)
            bits = np.unpackbits(np.frombuffer(buffer, dtype=np.uint8),
                                 bitorder="little").reshape(len(rows), size * 8)
            keys = self.random.random(bits.shape, dtype=np.float32) + 1.0
            keys *= bits
            picks = keys.argmax(axis=0)
            if record is not None:
                record.append(np.asarray(rows, dtype=np.int64)[picks[:width]])
            onehot = picks == np.arange(len(rows))[:, None]
            packed = np.packbits(onehot, axis=1, bitorder="little")
            for row, move in enumerate(rows):
                chosen[move] = int.from_bytes(packed[row].tobytes(), "little") & alive
        return chosen


def batch_playouts(network: Network, functions: BatchFunctions, start: int, playouts: int,
                   seed: int, max_steps: int, lanes: int = DEFAULT_LANES,
                   check: Callable[[], None] | None = None,
                   record: bool = False) -> BatchRun:
    """Random playouts from the state ``start`` (fluent bits), ``lanes`` at a time;
    ``check`` is called before every step (it may raise to stop the run). With ``record``
    every playout's joint moves are kept too (the same playouts as without).

    Raises:
        NoLegalMoveError: a role has no legal move in a non-terminal state.
    """
    chooser = _Chooser(network, seed)
    fluents = len(network.fluent_texts)
    moves = len(network.move_texts)
    lengths: list[int] = []
    ended: list[bool] = []
    goal_values: list[Goals] = []
    trajectories: list[tuple[tuple[int, ...], ...]] = []
    tables: list[np.ndarray] = []
    reader = _GoalReader(network)
    updates = 0
    info, goals, successor = functions.info, functions.goals, functions.next
    while len(lengths) < playouts:
        width = min(lanes, playouts - len(lengths))
        full = (1 << width) - 1
        batch_lengths = [0] * width
        batch_terminal = [False] * width
        batch_goals: list[Goals] = [()] * width
        batch_table = np.full((width, len(network.roles)), -1, dtype=np.int64)
        state = [full if start >> i & 1 else 0 for i in range(fluents)]
        alive = full
        legal, terminal = info(state, full)
        step = 0
        drawn: list[np.ndarray] | None = [] if record else None
        while True:
            ending = terminal & alive
            stopped = alive & ~terminal if step == max_steps else 0
            for lanes_ending, is_terminal in ((ending, True), (stopped, False)):
                if lanes_ending:
                    where = _positions(lanes_ending, width)
                    values = reader.read(goals(state, full), where, width, batch_table)
                    for lane, value in zip(where.tolist(), values, strict=True):
                        batch_lengths[lane] = step
                        batch_terminal[lane] = is_terminal
                        batch_goals[lane] = value
            alive &= ~(ending | stopped)
            if not alive:
                break
            if check is not None:
                check()
            joint = chooser.joint(legal, alive, width, moves, network.roles, step, drawn)
            state = successor(state, joint, full)
            updates += alive.bit_count()
            step += 1
            legal, terminal = info(state, full)
        lengths += batch_lengths
        ended += batch_terminal
        goal_values += batch_goals
        tables.append(batch_table)
        if drawn is not None:
            trajectories += _trajectories(drawn, len(network.roles), batch_lengths)
    table = (np.concatenate(tables) if tables
             else np.zeros((0, len(network.roles)), dtype=np.int64))
    return BatchRun(lengths, ended, goal_values, updates, trajectories, table)


def _trajectories(drawn: list[np.ndarray], roles: int,
                  lengths: list[int]) -> list[tuple[tuple[int, ...], ...]]:
    """Per lane, the joint moves of its first ``lengths[lane]`` steps (``drawn`` holds
    each step's move ids per role, lanes along the arrays)."""
    if not drawn:
        return [() for _ in lengths]
    table = np.stack(drawn).reshape(-1, roles, len(drawn[0]))  # step, role, lane
    return [tuple(map(tuple, table[:length, :, lane].tolist()))
            for lane, length in enumerate(lengths)]


def _bits(lanes: int, width: int) -> np.ndarray:
    """The lanes of an int as a bool array of ``width`` entries."""
    size = (width + 7) // 8
    raw = np.frombuffer(lanes.to_bytes(size, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:width].astype(bool)


def _positions(lanes: int, width: int) -> np.ndarray:
    return np.flatnonzero(_bits(lanes, width))


class _GoalReader:
    """Goal values of many lanes at once: one value per role is the common case, read with
    an argmax; lanes with none or several get the slow, exact path."""

    def __init__(self, network: Network) -> None:
        self.values = [[value for value, _ in per_role] for per_role in network.goals]
        self.single = [[(value,) for value in values] for values in self.values]

    def read(self, goal_lanes: list[list[int]], where: np.ndarray, width: int,
             table: np.ndarray) -> list[Goals]:
        """The goal values of the lanes ``where``; ``table[lane, role]`` gets the single
        value, or -1 for none or several."""
        per_role: list[list[tuple[int, ...]]] = []
        for role, (values, singles, row) in enumerate(
                zip(self.values, self.single, goal_lanes, strict=True)):
            if not values:
                per_role.append([()] * len(where))
                table[where, role] = -1
                continue
            matrix = np.stack([_bits(lanes, width)[where] for lanes in row])
            counts = matrix.sum(axis=0)
            chosen = matrix.argmax(axis=0)
            table[where, role] = np.where(counts == 1, np.asarray(values)[chosen], -1)
            picks = chosen.tolist()
            found = [singles[i] for i in picks]
            for k in np.flatnonzero(counts != 1).tolist():
                found[k] = tuple(v for v, held in zip(values, matrix[:, k], strict=True)
                                 if held)
            per_role.append(found)
        return list(zip(*per_role, strict=True))
