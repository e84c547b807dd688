"""A network flattened into the playout kernel's image: one array of int32.

The kernel (``kernel.h``, built for the CPU by ``_native.c`` and for a GPU by
:mod:`reasoner.propnet.gpu`) reads programs of operations over rows of a value table:

* ``OP_NODE dst nbodies {nlits lit...}...``: the node is the OR of its bodies, each the AND
  of its literals (``signal * 2 + negated``);
* ``OP_FIX length nmembers {OP_NODE...}...``: a recursive component, iterated from empty to
  its least fixpoint (its cycles are positive: the network refuses others).

Three programs serve playouts, each computing only what it needs and not what an earlier
one of the same state computed: ``info`` (legal and terminal), ``goal`` (goal values, read
when lanes end) and ``next`` (the successor, after the moves are drawn). A fourth, ``all``,
holds every node as one *unit* each (a recursive component is one unit) in evaluation
order: the one-state evaluator runs it once, then keeps counts per body of its literals
that hold and per node of its bodies that hold, and moves them by the flips of the inputs
that change (the ``bodies``, ``owners`` and ``readers`` sections), recomputing a recursive
unit whole when one of its bodies changes.

Rows: the network's signals (fluent inputs, move inputs, nodes), then the constants ZERO
and ONES (outputs the folding decided), then scratch rows (one per move, one per fluent).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence, Sized
from dataclasses import dataclass

import numpy as np

from reasoner.propnet.network import FALSE, TRUE, Network

__all__ = ["HEADER", "KernelImage", "flatten"]

# The header's fields, in the order of kernel.h's enum (H_MAGIC .. H_INIT).
HEADER = ("magic", "signals", "fluents", "moves", "roles", "terminal", "zero", "ones",
          "info", "info_len", "next", "next_len", "goal", "goal_len",
          "legal", "next_sig", "role_off", "role_moves", "goal_off", "goal_val", "goal_sig",
          "units", "unit_count", "all", "all_len", "rows", "init",
          "bodies", "body_off", "body_lits", "owner_off", "owners", "read_off", "readers",
          "node_unit")
MAGIC = 0x4B4E4554
# The playout length assumed when sizing the goal parking (see KernelImage.park).
_ASSUMED_LENGTH = 30
OP_NODE = 0
OP_FIX = 1


@dataclass(frozen=True)
class KernelImage:
    """The image (int32), and what its users size their buffers by, read off its header."""

    data: np.ndarray

    @functools.cached_property
    def header(self) -> dict[str, int]:
        """The header's fields by name (see :data:`HEADER`)."""
        return dict(zip(HEADER, self.data[:len(HEADER)].tolist(), strict=True))

    @property
    def rows(self) -> int:
        """Rows a block's value table needs: signals, constants and scratch."""
        return self.header["rows"]

    @property
    def fluents(self) -> int:
        return self.header["fluents"]

    @property
    def roles(self) -> int:
        return self.header["roles"]

    @property
    def bytes(self) -> bytes:
        return self.data.tobytes()

    def park(self, lanes: int) -> int:
        """How many ended lanes of a block of ``lanes`` wait for one evaluation of the goal
        program: where goals cost ``G`` against ``S`` for a step's programs, parking ``P``
        lanes costs about ``S * P / 2L`` a step in idle lanes and saves about
        ``G * (L / length)`` less ``G * (L / length) / P``; the best ``P`` is
        ``L * sqrt(2G / (S * length))``, at least 1 and at most half the lanes (a playout
        of 30 steps assumed)."""
        header = self.header
        step = max(1, header["info_len"] + header["next_len"])
        best = lanes * math.sqrt(2 * header["goal_len"] / (step * _ASSUMED_LENGTH))
        return max(1, min(lanes // 2, round(best)))


def flatten(network: Network) -> KernelImage:
    """The kernel image of ``network``."""
    inputs = network.inputs
    nodes = network.nodes
    zero = inputs + nodes
    ones = zero + 1
    signals = ones + 1
    fluents = len(network.fluent_texts)
    moves = len(network.move_texts)

    def row(signal: int) -> int:
        if signal == TRUE:
            return ones
        if signal == FALSE:
            return zero
        return signal

    body_lits = [[*(s * 2 for s in b.positive), *(s * 2 + 1 for s in b.negative)]
                 for b in network.bodies]

    def node_op(node: int) -> list[int]:
        ids = network.node_bodies[node]
        code = [OP_NODE, inputs + node, len(ids)]
        for index in ids:
            code.append(len(body_lits[index]))
            code += body_lits[index]
        return code

    def unit_op(members: tuple[int, ...], recursive: bool) -> list[int]:
        if not recursive:
            return node_op(members[0])
        inner = [x for node in members for x in node_op(node)]
        return [OP_FIX, 3 + len(inner), len(members), *inner]

    # Every component's code, written once: the playout programs and ``all`` take from it.
    unit_code = [unit_op(members, recursive) for members, recursive in network.components]

    def program(wanted: set[int]) -> list[int]:
        return [x for (members, _), code in zip(network.components, unit_code, strict=True)
                if members[0] in wanted for x in code]

    goal_signals = [s for per in network.goals for _, s in per]
    info_nodes = network.reached([*network.legal, network.terminal])
    info = program(info_nodes)
    goal = program(network.reached(goal_signals) - info_nodes)
    following = program(network.reached(network.next) - info_nodes)

    units = offsets(unit_code)[:-1]
    everything = [x for code in unit_code for x in code]
    node_unit = np.full(signals, -1, dtype=np.int64)  # per signal: its recursive unit
    for unit, (members, recursive) in enumerate(network.components):
        if recursive:
            node_unit[[inputs + node for node in members]] = unit
    # The one-state evaluator's counters: which bodies read each signal (and negated or
    # not), and which nodes own each body.
    owners: list[list[int]] = [[] for _ in network.bodies]
    for node, ids in enumerate(network.node_bodies):
        for index in ids:
            owners[index].append(inputs + node)
    readers: list[list[int]] = [[] for _ in range(signals)]
    for index, literals in enumerate(body_lits):
        for literal in literals:
            readers[literal >> 1].append(index * 2 + (literal & 1))

    role_moves: list[list[int]] = [[] for _ in network.roles]
    for move, role in enumerate(network.move_role):
        role_moves[role].append(move)

    sections: dict[str, list[int] | np.ndarray] = {
        "info": info, "next": following, "goal": goal,
        "legal": [row(s) for s in network.legal],
        "next_sig": [row(s) for s in network.next],
        "role_off": offsets(role_moves), "role_moves": [m for per in role_moves for m in per],
        "goal_off": offsets(network.goals),
        "goal_val": [v for per in network.goals for v, _ in per],
        "goal_sig": [row(s) for per in network.goals for _, s in per],
        "units": units, "all": everything,
        "init": [row(s) for s in network.init],
        "body_off": offsets(body_lits), "body_lits": [x for b in body_lits for x in b],
        "owner_off": offsets(owners), "owners": [x for o in owners for x in o],
        "read_off": offsets(readers), "readers": [x for r in readers for x in r],
        "node_unit": node_unit,
    }
    header = dict.fromkeys(HEADER, 0)
    header.update(magic=MAGIC, signals=signals, fluents=fluents, moves=moves,
                  roles=len(network.roles), terminal=row(network.terminal), zero=zero,
                  ones=ones, unit_count=len(units), rows=signals + moves + fluents,
                  info_len=len(info), next_len=len(following), goal_len=len(goal),
                  bodies=len(network.bodies),
                  all_len=len(everything))
    parts: list[np.ndarray] = []
    offset = len(HEADER)
    for name, values in sections.items():
        array = np.asarray(values, dtype=np.int64)
        header[name] = offset
        parts.append(array)
        offset += len(array)
    if offset >= 2**31:
        raise OverflowError("the network is too large for the kernel's 32-bit image")
    data = np.concatenate([np.asarray([header[name] for name in HEADER], dtype=np.int64),
                           *parts]).astype(np.int32)
    return KernelImage(data)


def offsets(lists: Sequence[Sized]) -> np.ndarray:
    """Where each list starts in their concatenation, and the total length last."""
    return np.cumsum([0, *(len(x) for x in lists)])
