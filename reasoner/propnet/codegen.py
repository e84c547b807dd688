"""Python functions generated from a network: straight-line code, one line per gate.

Two flavours come out of one network:

* *single*: one state at a time. The state is one int (bit ``i`` for fluent ``i``) and the
  joint move another (bit ``j`` for move ``j``); a body is a few mask tests on them and
  references to node locals, evaluated with Python's short-circuiting ``and``/``or``.
* *batch*: bit-parallel. Every signal is one int holding one bit per playout (lane), so a
  gate is one ``&``, ``|`` or ``& ~`` over all lanes at once.

Each function computes only the nodes its outputs read. A node read once is inlined where
it is read; a body shared by several nodes is computed once; a recursive component is
iterated until its nodes stop changing (they only grow: its cycles are positive).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from reasoner.propnet.network import FALSE, TRUE, Network

__all__ = ["BatchFunctions", "SingleFunctions", "compile_batch", "compile_single"]

LegalAndTerminal = tuple[tuple[tuple[int, ...], ...], bool]
# Disjunctions longer than this are not factored by their most frequent literal (each
# level of that recursion counts every literal again).
_FACTOR_LIMIT = 2048
# Longer chains of | or & in the batch code become one reduce over a tuple.
_CHAIN_LIMIT = 64
Goals = tuple[tuple[int, ...], ...]
# Masks wider than this are named once, as globals of the generated code, instead of written
# out where they are tested: a literal is as long as its mask is wide, and a game of 40,000
# fluents (pancakes88) wrote 10,000 hex digits per test, 1.8 GB of source.
_LITERAL_BITS = 256
# In the one-state code, a state (or joint move) of more inputs than this is read as bytes,
# converted once per call: ``s & M`` costs as long as ``s`` is wide (5 KB for pancakes88's
# 40,361 fluents, at every test), ``sb[k] & m`` does not; the successor is built the same way.
_BYTEWISE_INPUTS = 1024


class _Masks:
    """The text of each mask in the generated code: a literal, or the name of a global.
    Masks are named by their bits (hashing a 40,000-bit int costs as much as writing it)."""

    def __init__(self) -> None:
        self.names: dict[tuple[int, ...], str] = {}
        self.values: dict[str, int] = {}

    def of(self, bits: Iterable[int]) -> str:
        """The text of the mask with ``bits`` set (at least one)."""
        key = tuple(sorted(bits))
        name = self.names.get(key)
        if name is not None:
            return name
        mask = sum(1 << bit for bit in key)
        if key[-1] < _LITERAL_BITS:
            text = f"{mask:#x}"
            if len(key) == 1:
                self.names[key] = text
            return text
        name = self.names[key] = f"M{len(self.values)}"
        self.values[name] = mask
        return name


@dataclass(frozen=True)
class SingleFunctions:
    """One state at a time: ``info(s)`` gives the legal move ids per role and terminal,
    ``goals(s)`` the goal values per role, ``next(s, d)`` the successor's bits."""

    info: Callable[[int], LegalAndTerminal]
    goals: Callable[[int], Goals]
    next: Callable[[int, int], int]
    init: int
    source_lines: int
    source_chars: int


@dataclass(frozen=True)
class BatchFunctions:
    """Bit-parallel: ``info(T, full)`` gives the legal lanes per move and the terminal lanes,
    ``goals(T, full)`` the lanes of every (value, ...) per role, ``next(T, D, full)`` the
    successor lanes per fluent. ``T`` holds the lanes per fluent, ``D`` per move."""

    info: Callable[[list[int], int], tuple[list[int], int]]
    goals: Callable[[list[int], int], list[list[int]]]
    next: Callable[[list[int], list[int], int], list[int]]
    source_lines: int
    source_chars: int


class _Writer:
    """Writes the node computations one function needs."""

    def __init__(self, network: Network, batch: bool, masks: _Masks) -> None:
        self.net = network
        self.batch = batch
        self.masks = masks
        self.fluents = len(network.fluent_texts)
        self.inputs = network.inputs
        # Which one-state inputs are read bytewise (see _BYTEWISE_INPUTS), by name.
        widths = {"s": self.fluents, "d": self.inputs - self.fluents}
        self.bytewise = {name: not batch and width > _BYTEWISE_INPUTS
                         for name, width in widths.items()}
        self.widths = widths
        self.read_bytewise: set[str] = set()
        self.lines: list[str] = []
        self.used_inputs: set[int] = set()

    # -- what a function needs ---------------------------------------------------------

    def plan(self, outputs: Iterable[int]) -> None:
        """Decide which nodes to compute, which to inline, and which bodies to share."""
        net = self.net
        outputs = list(outputs)
        needed = net.reached(outputs)
        self.recursive: set[int] = set()
        self.order: list[tuple[tuple[int, ...], bool]] = []
        for nodes, recursive in net.components:
            if nodes[0] in needed:
                self.order.append((nodes, recursive))
                if recursive:
                    self.recursive.update(nodes)
        reads: dict[int, int] = {}
        body_users: dict[int, int] = {}
        for node in needed:
            for index in net.node_bodies[node]:
                body_users[index] = body_users.get(index, 0) + 1
                body = net.bodies[index]
                for s in (*body.positive, *body.negative):
                    if s >= self.inputs:
                        reads[s - self.inputs] = reads.get(s - self.inputs, 0) + 1
        for s in outputs:
            if s >= self.inputs:
                reads[s - self.inputs] = reads.get(s - self.inputs, 0) + 1
        # A node read once, outside recursion, is written where it is read.
        self.inline = {n for n in needed if reads.get(n, 0) == 1 and n not in self.recursive}
        self.shared = {i for i, users in body_users.items() if users > 1}
        self.written_bodies: set[int] = set()

    # -- expressions ---------------------------------------------------------------------

    def ref(self, signal: int) -> str:
        """The expression of a signal (inputs and nodes)."""
        if signal == TRUE:
            return "FULL" if self.batch else "True"
        if signal == FALSE:
            return "0" if self.batch else "False"
        if signal < self.inputs:
            self.used_inputs.add(signal)
            if self.batch:
                return f"t{signal}" if signal < self.fluents else f"d{signal - self.fluents}"
            if signal < self.fluents:
                return f"({self.test('s', [signal], 'any')})"
            return f"({self.test('d', [signal - self.fluents], 'any')})"
        node = signal - self.inputs
        if node in self.inline:
            return "(" + self.node_expression(node) + ")"
        return f"n{node}"

    def test(self, name: str, bits: list[int], how: str) -> str:
        """A test of the one-state input ``name`` (``s`` or ``d``) for ``bits``: ``all``
        of them set, ``none`` of them, or ``any``; bytewise where the input is wide."""
        if not self.bytewise[name]:
            mask = self.masks.of(bits)
            if how == "all" and len(bits) > 1:
                return f"{name} & {mask} == {mask}"
            return f"not {name} & {mask}" if how == "none" else f"{name} & {mask}"
        self.read_bytewise.add(name)
        per_byte: dict[int, int] = {}
        for bit in bits:
            per_byte[bit >> 3] = per_byte.get(bit >> 3, 0) | 1 << (bit & 7)
        if how == "any":
            return " or ".join(f"{name}b[{i}] & {m}" for i, m in sorted(per_byte.items()))
        if how == "none":
            return " and ".join(f"not {name}b[{i}] & {m}" for i, m in sorted(per_byte.items()))
        return " and ".join(f"{name}b[{i}] & {m} == {m}" if m & (m - 1) else f"{name}b[{i}] & {m}"
                            for i, m in sorted(per_byte.items()))

    def body_expression(self, index: int) -> str:
        if index in self.shared and index in self.written_bodies:
            return f"b{index}"
        body = self.net.bodies[index]
        return self.conjunction(body.positive, body.negative)

    def conjunction(self, positive: Iterable[int], negative: Iterable[int]) -> str:
        """Every ``positive`` signal and no ``negative`` one: mask tests on the inputs
        first (cheap, and they decide most bodies), then the nodes."""
        positive, negative = tuple(positive), tuple(negative)
        if self.batch:
            parts = [self.ref(s) for s in positive] or ["FULL"]
            parts += ["~" + self.ref(s) for s in negative]
            if len(parts) > _CHAIN_LIMIT:
                return "_all((" + ", ".join(parts) + ",), FULL)"
            return " & ".join(parts)
        parts = []
        for name, offset, limit in (("s", 0, self.fluents), ("d", self.fluents, self.inputs)):
            held = [s - offset for s in positive if offset <= s < limit]
            absent = [s - offset for s in negative if offset <= s < limit]
            if held:
                self.used_inputs.update(x + offset for x in held)
                parts.append(self.test(name, held, "all"))
            if absent:
                self.used_inputs.update(x + offset for x in absent)
                parts.append(self.test(name, absent, "none"))
        parts += [self.ref(s) for s in positive if s >= self.inputs]
        parts += ["not " + self.ref(s) for s in negative if s >= self.inputs]
        if not parts:
            return "True"
        if len(parts) == 1:
            return parts[0]
        return " and ".join(f"({p})" if " " in p and not p.startswith("(") else p
                            for p in parts)

    def node_expression(self, node: int) -> str:
        """The disjunction of the node's bodies, factored (see :meth:`factored`)."""
        ids = self.net.node_bodies[node]
        if not ids:
            return "0" if self.batch else "False"
        if len(ids) == 1:
            return self.body_expression(ids[0])
        if all(i in self.shared and i in self.written_bodies for i in ids):
            return self.disjunction([f"b{i}" for i in ids])
        bodies = [self.net.bodies[i] for i in ids]
        return self.factored([(frozenset(b.positive), frozenset(b.negative)) for b in bodies])

    def disjunction(self, terms: list[str]) -> str:
        """``a | b | ...`` (batch) or ``a or b or ...``; a long batch chain becomes one call
        over a tuple, as Python compiles a deep chain of binary operators slowly."""
        if not self.batch:
            return " or ".join(terms)
        if len(terms) > _CHAIN_LIMIT:
            return "_any((" + ", ".join(terms) + ",))"
        return " | ".join(terms)

    def factored(self, alternatives: list[tuple[frozenset[int], frozenset[int]]]) -> str:
        """A disjunction of conjunctions with shared literals pulled out: first the literals
        every alternative has (``next`` of a frame fluent reads the fluent in every body),
        then, group by group, the literal most of the remaining alternatives share. In the
        one-state code, alternatives that are a single fluent or move become one mask test
        (``d & (A|B|...)``: some move of the set is played). Fewer operations, and a shared
        test decides many alternatives at once."""
        meet = " & " if self.batch else " and "
        if len(alternatives) == 1:
            positive, negative = alternatives[0]
            return self.conjunction(sorted(positive), sorted(negative))
        if any(not p and not n for p, n in alternatives):
            return "FULL" if self.batch else "True"
        common_positive = frozenset.intersection(*(p for p, _ in alternatives))
        common_negative = frozenset.intersection(*(n for _, n in alternatives))
        if common_positive or common_negative:
            common = self.conjunction(sorted(common_positive), sorted(common_negative))
            rest = [(p - common_positive, n - common_negative) for p, n in alternatives]
            if any(not p and not n for p, n in rest):
                return common  # the common part alone is one alternative: it absorbs all
            return f"({common}){meet}({self.factored(rest)})"
        terms: list[str] = []
        if not self.batch:
            masks: tuple[list[int], list[int]] = ([], [])  # any of these fluents, moves
            remaining = []
            for positive, negative in alternatives:
                if not negative and len(positive) == 1 and min(positive) < self.inputs:
                    signal = min(positive)
                    self.used_inputs.add(signal)
                    if signal < self.fluents:
                        masks[0].append(signal)
                    else:
                        masks[1].append(signal - self.fluents)
                else:
                    remaining.append((positive, negative))
            terms += [self.test(name, bits, "any")
                      for name, bits in zip("sd", masks, strict=True) if bits]
            alternatives = remaining
        if len(alternatives) > _FACTOR_LIMIT:  # factoring costs more than it saves here
            alternatives, plain = [], alternatives
            terms += [f"({self.conjunction(sorted(p), sorted(n))})" for p, n in plain]
        while alternatives:
            counts: dict[tuple[bool, int], int] = {}
            for positive, negative in alternatives:
                for signal in positive:
                    counts[(True, signal)] = counts.get((True, signal), 0) + 1
                for signal in negative:
                    counts[(False, signal)] = counts.get((False, signal), 0) + 1
            (sign, signal), count = max(counts.items(),
                                        key=lambda item: (item[1], -item[0][1]))
            if count < 2 or len(alternatives) == 1:
                terms += [f"({self.conjunction(sorted(p), sorted(n))})"
                          for p, n in alternatives]
                break
            side = 0 if sign else 1
            having = [a for a in alternatives if signal in a[side]]
            alternatives = [a for a in alternatives if signal not in a[side]]
            terms.append(f"({self.factored(having)})")
        return self.disjunction(terms)

    # -- statements ----------------------------------------------------------------------

    def write_nodes(self, indent: str = "    ") -> None:
        empty = "0" if self.batch else "False"
        for nodes, recursive in self.order:
            if not recursive:
                node = nodes[0]
                if node in self.inline:
                    continue
                self._share_bodies(node, indent)
                self.lines.append(f"{indent}n{node} = {self.node_expression(node)}")
                continue
            names = [f"n{n}" for n in nodes]
            self.lines.append(f"{indent}{' = '.join(names)} = {empty}")
            self.lines.append(f"{indent}while True:")
            self.lines.append(f"{indent}    _old = ({', '.join(names)},)")
            for node in nodes:
                self.lines.append(f"{indent}    n{node} = {self.node_expression(node)}")
            self.lines.append(f"{indent}    if ({', '.join(names)},) == _old:")
            self.lines.append(f"{indent}        break")

    def _share_bodies(self, node: int, indent: str) -> None:
        for index in self.net.node_bodies[node]:
            if index in self.shared and index not in self.written_bodies:
                self.lines.append(f"{indent}b{index} = {self.body_expression(index)}")
                self.written_bodies.add(index)

    def header(self, signature: str) -> list[str]:
        lines = [f"def {signature}:"]
        for name in sorted(self.read_bytewise):
            lines.append(f"    {name}b = {name}.to_bytes({(self.widths[name] + 7) // 8}, "
                         "'little')")
        if self.batch:
            for signal in sorted(self.used_inputs):
                if signal < self.fluents:
                    lines.append(f"    t{signal} = T[{signal}]")
                else:
                    lines.append(f"    d{signal - self.fluents} = D[{signal - self.fluents}]")
        return lines


def _function(network: Network, batch: bool, signature: str, outputs: list[int],
              tail: Callable[[_Writer], list[str]], masks: _Masks) -> list[str]:
    writer = _Writer(network, batch, masks)
    writer.plan(outputs)
    writer.write_nodes()
    body = tail(writer)
    return [*writer.header(signature), *writer.lines, *body]


def _by_role(network: Network) -> list[list[int]]:
    per_role: list[list[int]] = [[] for _ in network.roles]
    for move, role in enumerate(network.move_role):
        per_role[role].append(move)
    return per_role


def _single_source(network: Network, masks: _Masks) -> list[str]:
    per_role = _by_role(network)

    def info_tail(w: _Writer) -> list[str]:
        lines = []
        for role, moves in enumerate(per_role):
            lines.append(f"    l{role} = []")
            for move in moves:
                signal = network.legal[move]
                if signal == FALSE:
                    continue
                if signal == TRUE:
                    lines.append(f"    l{role}.append({move})")
                else:
                    lines.append(f"    if {w.ref(signal)}: l{role}.append({move})")
        legal = "".join(f"tuple(l{r}), " for r in range(len(per_role)))
        lines.append(f"    return ({legal}), bool({w.ref(network.terminal)})")
        return lines

    def goals_tail(w: _Writer) -> list[str]:
        lines = []
        for role, values in enumerate(network.goals):
            lines.append(f"    g{role} = []")
            for value, signal in values:
                if signal != FALSE:
                    lines.append(f"    if {w.ref(signal)}: g{role}.append({value})")
        goals = "".join(f"tuple(g{r}), " for r in range(len(network.goals)))
        lines.append(f"    return ({goals})")
        return lines

    def bits_tail(outputs: tuple[int, ...]) -> Callable[[_Writer], list[str]]:
        return lambda w: _bits(w, outputs)

    legal_outputs = [*network.legal, network.terminal]
    goal_outputs = [s for values in network.goals for _, s in values]
    return [
        *_function(network, False, "info(s)", legal_outputs, info_tail, masks),
        *_function(network, False, "goals(s)", goal_outputs, goals_tail, masks),
        *_function(network, False, "next(s, d)", list(network.next), bits_tail(network.next),
                   masks),
        *_function(network, False, "init(s, d)", list(network.init), bits_tail(network.init),
                   masks),
    ]


def _bits(w: _Writer, outputs: tuple[int, ...]) -> list[str]:
    """The statements that return the bits of the outputs that hold (set in a bytearray
    where the state is wide: ``n |= M`` copies all of ``n``)."""
    if w.bytewise["s"]:
        start, end = (f"nb = bytearray({(len(outputs) + 7) // 8})",
                      "return int.from_bytes(nb, 'little')")

        def setting(fluent: int) -> str:
            return f"nb[{fluent >> 3}] |= {1 << (fluent & 7)}"
    else:
        start, end = "n = 0", "return n"

        def setting(fluent: int) -> str:
            return f"n |= {w.masks.of((fluent,))}"
    lines = [f"    {start}"]
    for fluent, signal in enumerate(outputs):
        if signal == TRUE:
            lines.append(f"    {setting(fluent)}")
        elif signal != FALSE:
            lines.append(f"    if {w.ref(signal)}: {setting(fluent)}")
    lines.append(f"    {end}")
    return lines


def _batch_source(network: Network, masks: _Masks) -> list[str]:
    def info_tail(w: _Writer) -> list[str]:
        legal = ", ".join(w.ref(s) for s in network.legal)
        return [f"    return [{legal}], {w.ref(network.terminal)}"]

    def goals_tail(w: _Writer) -> list[str]:
        rows = ", ".join("[" + ", ".join(w.ref(s) for _, s in values) + "]"
                         for values in network.goals)
        return [f"    return [{rows}]"]

    def next_tail(w: _Writer) -> list[str]:
        return ["    return [" + ", ".join(w.ref(s) for s in network.next) + "]"]

    goal_outputs = [s for values in network.goals for _, s in values]
    return [
        *_function(network, True, "info(T, FULL)", [*network.legal, network.terminal],
                   info_tail, masks),
        *_function(network, True, "goals(T, FULL)", goal_outputs, goals_tail, masks),
        *_function(network, True, "next(T, D, FULL)", list(network.next), next_tail, masks),
    ]


def _any(items: tuple[int, ...]) -> int:
    return functools.reduce(operator.or_, items, 0)


def _all(items: tuple[int, ...], full: int) -> int:
    return functools.reduce(operator.and_, items, full)


def _load(lines: list[str], name: str, masks: _Masks) -> dict[str, Any]:
    namespace: dict[str, Any] = {"_any": _any, "_all": _all, **masks.values}
    code = compile("\n".join(lines) + "\n", f"<propnet {name}>", "exec")
    exec(code, namespace)  # generated from the network: no GDL text appears in it
    return namespace


def _chars(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def compile_single(network: Network) -> SingleFunctions:
    """The one-state-at-a-time functions of a network."""
    masks = _Masks()
    lines = _single_source(network, masks)
    namespace = _load(lines, "single", masks)
    # init reads no state (GDL forbids it), so it is evaluated once, on the empty state.
    return SingleFunctions(info=namespace["info"], goals=namespace["goals"],
                           next=namespace["next"], init=namespace["init"](0, 0),
                           source_lines=len(lines), source_chars=_chars(lines))


def compile_batch(network: Network) -> BatchFunctions:
    """The bit-parallel functions of a network."""
    masks = _Masks()
    lines = _batch_source(network, masks)
    namespace = _load(lines, "batch", masks)
    return BatchFunctions(info=namespace["info"], goals=namespace["goals"],
                          next=namespace["next"], source_lines=len(lines),
                          source_chars=_chars(lines))
