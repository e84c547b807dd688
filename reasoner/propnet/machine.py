"""The network backend's state machine: the clingo machine's interface, one state at a time.

States and moves are the same integer ids as on the clingo backend (the network's inputs
follow the same tables), so a :class:`reasoner.engine.game.Game` can sit on either.
Evaluation is pure Python over ints and holds no lock: the generated functions keep no
state between calls, so threads may share the machine.
"""

from __future__ import annotations

from collections.abc import Callable

from reasoner.core.values import StateInfo
from reasoner.core.walk import Simulation
from reasoner.propnet.batch import DEFAULT_LANES, batch_playouts
from reasoner.propnet.codegen import BatchFunctions, SingleFunctions, compile_batch, compile_single
from reasoner.propnet.network import Network

__all__ = ["NetworkTables", "PropnetMachine"]


class NetworkTables:
    """What a machine over a network shows of it (both network backends): the network and
    the tables every backend shares."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.roles = network.roles
        self.fluent_texts = network.fluent_texts
        self.move_texts = network.move_texts
        self.move_role = network.move_role
        self.ground_atom_count = network.ground_atoms


class PropnetMachine(NetworkTables):
    """A compiled network answering state queries (see :class:`reasoner.asp.machine.Machine`
    for the interface)."""

    def __init__(self, network: Network) -> None:
        super().__init__(network)
        self._single: SingleFunctions = compile_single(network)
        self._batch: BatchFunctions | None = None
        self.init_bits = self._single.init
        self._info = self._single.info
        self._goals = self._single.goals
        self._next = self._single.next

    @property
    def batch(self) -> BatchFunctions:
        """The bit-parallel functions, compiled on first use."""
        if self._batch is None:
            self._batch = compile_batch(self.network)
        return self._batch

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        legal, terminal = self._info(bits)
        return StateInfo(legal, terminal, goal_function=self._goals, bits=bits)

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (with ``current``), its successor under ``joint`` (one move
        id per role) and the successor's info."""
        moves = 0
        for move in joint:
            moves |= 1 << move
        following = self._next(bits, moves)
        legal, terminal = self._info(following)
        next_info = StateInfo(legal, terminal, goal_function=self._goals, bits=following)
        return (self.info(bits) if current else None), following, next_info

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None,
                 lanes: int = DEFAULT_LANES) -> Simulation:
        """Seeded random playouts from ``bits``, ``lanes`` at a time in bit-parallel
        batches (see :func:`reasoner.propnet.batch.batch_playouts`)."""
        run = batch_playouts(self.network, self.batch, bits, playouts, seed, max_steps,
                             lanes, check, record)
        return Simulation(run.lengths, run.terminal, run.goals, run.trajectories,
                          run.updates, True, run.goal_table.ravel().tolist())
