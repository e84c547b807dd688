"""The other bit-parallel evaluator: packed numpy words, one gate level per numpy call.

Every signal is a row of ``lanes / 64`` uint64 words. The nodes are split into levels (a
node's level is one more than the highest level it reads; inputs are level 0), and a level
is evaluated with a few numpy calls over all its gates at once: gather the rows each body
reads, AND them (negated literals XORed with ones first), then OR the bodies of each node.

It exists to be measured beside the generated Python-int code (:mod:`.codegen`), as the
benchmark's ``propnet-packed-<lanes>`` backend; the service uses the faster one, the Python
ints. Networks with recursive components are not handled here (the generated code iterates
them to their fixpoint).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from reasoner.propnet.network import FALSE, TRUE, Network

__all__ = ["PackedNetwork", "packed_rate"]

_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True)
class _Level:
    literals: np.ndarray  # body x width: signal rows, padded with the TRUE row
    negated: np.ndarray  # body x width: 0 or all ones, XORed before the AND
    bodies: np.ndarray  # node x width: body indices into this level, padded with -1 (zero)
    nodes: np.ndarray  # the node rows this level writes


class PackedNetwork:
    """A network laid out for level-wise numpy evaluation over ``words`` uint64 per row."""

    def __init__(self, network: Network, words: int) -> None:
        if any(recursive for _, recursive in network.components):
            raise ValueError("the packed evaluator does not handle recursive components")
        self.network = network
        self.words = words
        inputs = network.inputs
        self.rows = inputs + network.nodes + 2
        self.true_row = self.rows - 1
        self.false_row = self.rows - 2
        level = [0] * network.nodes
        for nodes, _ in network.components:
            node = nodes[0]
            deepest = 0
            for index in network.node_bodies[node]:
                body = network.bodies[index]
                for s in (*body.positive, *body.negative):
                    if s >= inputs:
                        deepest = max(deepest, level[s - inputs])
            level[node] = deepest + 1
        self.levels: list[_Level] = []
        for depth in range(1, max(level, default=0) + 1):
            members = [n for n in range(network.nodes) if level[n] == depth]
            bodies: list[int] = []
            where: dict[int, int] = {}
            for node in members:
                for index in network.node_bodies[node]:
                    if index not in where:
                        where[index] = len(bodies)
                        bodies.append(index)
            width = max((len(network.bodies[i].positive) + len(network.bodies[i].negative)
                         for i in bodies), default=1) or 1
            literals = np.full((len(bodies), width), self.true_row, dtype=np.int64)
            negated = np.zeros((len(bodies), width, 1), dtype=np.uint64)
            for row, index in enumerate(bodies):
                body = network.bodies[index]
                signals = [*body.positive, *body.negative]
                literals[row, :len(signals)] = signals
                negated[row, len(body.positive):len(signals), 0] = _ONES
            fan = max((len(network.node_bodies[n]) for n in members), default=1) or 1
            node_bodies = np.full((len(members), fan), len(bodies), dtype=np.int64)
            for row, node in enumerate(members):
                ids = [where[i] for i in network.node_bodies[node]]
                node_bodies[row, :len(ids)] = ids
            self.levels.append(_Level(literals, negated, node_bodies,
                                      np.asarray([inputs + n for n in members], np.int64)))

        def rows_of(signals: tuple[int, ...]) -> np.ndarray:
            return np.asarray([self.true_row if s == TRUE else self.false_row if s == FALSE
                               else s for s in signals], dtype=np.int64)

        self.legal = rows_of(network.legal)
        self.next = rows_of(network.next)
        self.terminal = int(rows_of((network.terminal,))[0])

    def evaluate(self, values: np.ndarray) -> None:
        """Fill the node rows of ``values`` (rows x words) from its input rows."""
        for level in self.levels:
            gathered = values[level.literals] ^ level.negated
            conjunctions = np.bitwise_and.reduce(gathered, axis=1)
            padded = np.concatenate(
                [conjunctions, np.zeros((1, self.words), dtype=np.uint64)])
            values[level.nodes] = np.bitwise_or.reduce(padded[level.bodies], axis=1)


def packed_rate(network: Network, init: int, lanes: int, seconds: float,
                seed: int) -> tuple[int, float]:
    """Random playouts of ``lanes`` lanes from the state ``init`` (fluent bits) for about
    ``seconds``, on
    the packed evaluator with the same numpy move choice as the batches; returns (updates,
    updates/s)."""
    words = lanes // 64
    packed = PackedNetwork(network, words)
    random = np.random.Generator(np.random.PCG64(seed))
    fluents = len(network.fluent_texts)
    per_role = [[m for m, r in enumerate(network.move_role) if r == role]
                for role in range(len(network.roles))]
    updates = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        values = np.zeros((packed.rows, words), dtype=np.uint64)
        values[packed.true_row] = _ONES
        for i in range(fluents):
            if init >> i & 1:
                values[i] = _ONES
        alive = np.ones(lanes, dtype=bool)
        while True:
            packed.evaluate(values)
            terminal = np.unpackbits(values[packed.terminal].view(np.uint8),
                                     bitorder="little").astype(bool)
            alive &= ~terminal
            if not alive.any():
                break
            legal = np.unpackbits(values[packed.legal].view(np.uint8), axis=1,
                                  bitorder="little").astype(bool) & alive
            chosen = np.zeros((len(network.move_texts), lanes), dtype=bool)
            for moves in per_role:
                keys = (random.random((len(moves), lanes), dtype=np.float32) + 1.0)
                keys *= legal[moves]
                picks = keys.argmax(axis=0)
                chosen[np.asarray(moves)[picks], np.arange(lanes)] = True
            chosen &= alive
            values[fluents:fluents + len(network.move_texts)] = np.packbits(
                chosen, axis=1, bitorder="little").view(np.uint64)
            updates += int(alive.sum())
            packed.evaluate(values)
            values[:fluents] = values[packed.next]
    elapsed = time.perf_counter() - start
    return updates, updates / elapsed
