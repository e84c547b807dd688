"""Features and their evaluation functions (Kuhlmann, Dresner & Stone 2006;
docs/semantics/structures.md).

From the detected :class:`~reasoner.heuristics.structures.Structures` come these features,
each a number ``V(s)`` in [0, 1] computed from a state's fluents:

=================  ===================================  ===============================
kind               structure                            ``V(s)``
=================  ===================================  ===============================
``count``          any board, per marker                cells holding it / board cells
``coordinate``     ordered board with pieces, per       offset of its cell / span
                   piece and input argument
``distance``       ordered board, per pair of pieces    Manhattan distance / largest
``distance_sum``   ordered board with >= 2 pieces       sum of pairwise distances /
                                                        (pairs * largest distance)
``quantity``       quantity, per value of its inputs    offset of the amount / span
=================  ===================================  ===============================

Positions on an ordered argument are counted along its :class:`Ordering` from the first
value that occurs at that argument in the fluent table; the *span* is the distance from
that first to the last such value (the chain length - 1 when the argument uses the whole
chain; Reversi's coordinates 1..8 lie on a ``succ`` chain 0..64 and still span 7). A
feature about a piece or amount that is absent from the state has the value 0.

Feature names are stable strings: the kind, then the fluent pattern in parentheses with
the function name and its arguments separated by commas; ``?`` stands for a coordinate
(input) argument, ``#`` for the argument measured, ``*`` for any content, and content
arguments are written out:

* ``count(cell,?,?,x)``: how many cells hold ``x``;
* ``coordinate(cell,#,?,wk)``: the first coordinate of piece ``wk``;
* ``distance(cell,?,?,wk;cell,?,?,bk)``: the distance between pieces ``wk`` and ``bk``;
* ``distance_sum(cell,?,?,*)``: the sum of the pairwise distances of the board's pieces;
* ``quantity(heap,a,#)``, ``quantity(step,#)``: an amount (input arguments written out).

Each feature gives two evaluation functions for a role whose goal values lie between R-
and R+ (:func:`goal_ranges`): maximising ``E(s) = 1 + R- + (R+ - R- - 2) * V(s)`` and
minimising, with ``1 - V(s)`` in place of ``V(s)`` (:func:`evaluation`). Every estimate
thus lies in [R- + 1, R+ - 1]: a real win beats it and a real loss is worse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Literal

from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.gdl.syntax import Constant
from reasoner.heuristics.structures import (
    Board,
    FluentTable,
    Ordering,
    Quantity,
    Structures,
)
from reasoner.propnet.network import FALSE

__all__ = [
    "DEFAULT_GOAL_RANGE",
    "MAX_PIECE_PAIRS",
    "Direction",
    "Feature",
    "FeatureKind",
    "evaluation",
    "feature_value",
    "game_features",
    "goal_ranges",
]

Direction = Literal["max", "min"]
FeatureKind = Literal["count", "coordinate", "distance", "distance_sum", "quantity"]

# Pairwise distance features are made only for boards with at most this many piece pairs.
MAX_PIECE_PAIRS = 120
# The goal range assumed for a role whose goal values the rules do not name as constants.
DEFAULT_GOAL_RANGE = (0, 100)

# One group: the fluent ids of one piece, marker or amount with the offsets of each.
Group = tuple[tuple[int, tuple[int, ...]], ...]


@dataclass(frozen=True)
class Feature:
    """One feature of a game: ``V(s)`` in [0, 1] by :meth:`value`.

    ``groups`` are what the feature reads: per piece, marker or amount, the fluent ids that
    stand for it with their offsets along the measured arguments; ``scale`` divides the raw
    number (a count, an offset or a distance) into [0, 1].
    """

    name: str
    kind: FeatureKind
    description: str
    function: str  # the fluent function it is about
    scale: float
    groups: tuple[Group, ...] = field(repr=False, compare=False)
    masks: tuple[int, ...] = field(repr=False, compare=False)

    def value(self, state: State | int) -> float:
        """``V(s)``: the scaled feature in ``state`` (a state or its fluent bits)."""
        bits = state.bits if isinstance(state, State) else state
        if self.scale <= 0:
            return 0.0
        if self.kind == "count":
            raw: float = sum((bits & mask).bit_count() for mask in self.masks)
        else:
            where = [_located(group, mask, bits) for group, mask
                     in zip(self.groups, self.masks, strict=True)]
            raw = _raw(self.kind, where)
        return min(1.0, max(0.0, raw / self.scale))

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return {"name": self.name, "kind": self.kind, "description": self.description,
                "function": self.function, "scale": self.scale}


def _located(group: Group, mask: int, bits: int) -> tuple[int, ...] | None:
    """The offsets of the group's first fluent that holds, or None."""
    if not bits & mask:
        return None
    for index, offsets in group:
        if bits >> index & 1:
            return offsets
    return None


def _manhattan(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True))


def _raw(kind: FeatureKind, where: Sequence[tuple[int, ...] | None]) -> float:
    if kind in ("coordinate", "quantity"):
        return float(where[0][0]) if where[0] is not None else 0.0
    present = [w for w in where if w is not None]
    return float(sum(_manhattan(a, b) for a, b in combinations(present, 2)))


def evaluation(v: float, direction: Direction, low: int | float, high: int | float) -> float:
    """``E(s) = 1 + R- + (R+ - R- - 2) * V(s)`` for ``"max"``, with ``1 - V(s)`` for
    ``"min"``; ``low`` and ``high`` are R- and R+."""
    scaled = v if direction == "max" else 1.0 - v
    return 1 + low + (high - low - 2) * scaled


def feature_value(feature: Feature, state: State | int, direction: Direction,
                  low: int | float, high: int | float) -> float:
    """The feature's maximising or minimising evaluation of ``state`` for a role whose goal
    values lie between ``low`` (R-) and ``high`` (R+); see :func:`goal_ranges`."""
    return evaluation(feature.value(state), direction, low, high)


# -- goal ranges -----------------------------------------------------------------------------


def goal_ranges(game: Game) -> dict[str, tuple[int, int]]:
    """The lowest and highest goal value (R-, R+) the rules can give each role.

    On the network backend these are the goal outputs the network keeps; else the constant
    values of the ``goal`` rules (a rule whose role is a variable counts for every role).
    A role with a goal rule whose value is not a constant gets :data:`DEFAULT_GOAL_RANGE`
    widened by the constants found.
    """
    network = game.network
    values: dict[str, set[int]] = {role: set() for role in game.roles}
    if network is not None:
        for role, goals in zip(game.roles, network.goals, strict=True):
            values[role].update(v for v, signal in goals if signal != FALSE)
    else:
        for role, found in _rule_goal_values(game).items():
            values[role].update(found)
    return {role: (min(found), max(found)) if found else DEFAULT_GOAL_RANGE
            for role, found in values.items()}


def _rule_goal_values(game: Game) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {role: set() for role in game.roles}
    for rule in game.description.rules:
        head = rule.head
        if head.name != "goal" or head.arity != 2:
            continue
        who, value = head.args
        roles = ([who.name] if isinstance(who, Constant) and who.name in found
                 else list(game.roles))
        number = _integer(value.name) if isinstance(value, Constant) else None
        for role in roles:
            if number is None:
                found[role].update(DEFAULT_GOAL_RANGE)
            else:
                found[role].add(number)
    return found


def _integer(text: str) -> int | None:
    # ASCII digits only (str.isdigit and \d admit others that int reads differently or not
    # at all), and few enough for int to read: a goal value is at most 100 anyway.
    return int(text) if re.fullmatch(r"[0-9]{1,12}", text) else None


# -- building the features -------------------------------------------------------------------


def game_features(game: Game, structures: Structures) -> tuple[Feature, ...]:
    """Every feature of the game's boards and quantities, in a stable order."""
    table = FluentTable.of(game.fluents)
    features: list[Feature] = []
    for board in structures.boards:
        features.extend(board_features(table, board))
    for quantity in structures.quantities:
        features.extend(quantity_features(table, quantity))
    return tuple(features)


def _domain(table: FluentTable, signature: tuple[str, int], position: int,
            ordering: Ordering) -> tuple[dict[str, int], int]:
    """Offsets along ``ordering`` of the values at an argument, from the first value that
    occurs there in the fluent table, and the span (last offset)."""
    index = {e: i for i, e in enumerate(ordering.elements)}
    positions = [index[v] for v in table.values(signature, position) if v in index]
    first = min(positions, default=0)
    offsets = {e: i - first for e, i in index.items() if i >= first}
    return offsets, max(positions, default=first) - first


def _pattern(arity: int, fixed: dict[int, str], measured: int | None = None,
             function: str = "") -> str:
    parts = [fixed.get(i, "#" if i == measured else "?") for i in range(arity)]
    return ",".join([function, *parts])


def _content_of(table: FluentTable, board: Board, index: int) -> str:
    args = table.entries[index][1]
    return " ".join(args[p] for p in board.outputs)


def _marker_groups(table: FluentTable, board: Board,
                   offsets: Sequence[dict[str, int]]) -> dict[str, Group]:
    """Per marker, its fluent ids with their offsets along the board's inputs (empty when
    the board is not ordered)."""
    signature = (board.function, board.arity)
    groups: dict[str, list[tuple[int, tuple[int, ...]]]] = {m: [] for m in board.markers}
    for index in table.ids.get(signature, ()):
        marker = _content_of(table, board, index)
        if marker not in groups:
            continue
        args = table.entries[index][1]
        if offsets:
            vector = tuple(offsets[k].get(args[p], 0) for k, p in enumerate(board.inputs))
        else:
            vector = ()
        groups[marker].append((index, vector))
    return {m: tuple(g) for m, g in groups.items()}


def _mask(group: Group) -> int:
    bits = 0
    for index, _ in group:
        bits |= 1 << index
    return bits


def _content(table: FluentTable, board: Board, group: Group, marker: str) -> dict[int, str]:
    """A marker's content arguments by position."""
    if group:
        args = table.entries[group[0][0]][1]
        return {p: args[p] for p in board.outputs}
    return dict(zip(board.outputs, marker.split(" "), strict=False))


def _marker_pattern(table: FluentTable, board: Board, group: Group, marker: str,
                    measured: int | None = None) -> str:
    """The fluent pattern of a marker: inputs ``?`` (``#`` for ``measured``), its content
    written out."""
    return _pattern(board.arity, _content(table, board, group, marker), measured,
                    board.function)


def board_features(table: FluentTable, board: Board) -> list[Feature]:
    """Marker counts for any board; for an ordered board with pieces also every piece's
    coordinates, the distance of every pair of pieces and their sum."""
    signature = (board.function, board.arity)
    offsets: list[dict[str, int]] = []
    spans: list[int] = []
    if board.ordered:
        for position, ordering in zip(board.inputs, board.orderings, strict=True):
            assert ordering is not None
            found, span = _domain(table, signature, position, ordering)
            offsets.append(found)
            spans.append(span)
    groups = _marker_groups(table, board, offsets)
    features = [_count_feature(table, board, marker, groups[marker])
                for marker in board.markers]
    if board.ordered and board.pieces:
        features.extend(_piece_features(table, board, groups, spans))
    return features


def _count_feature(table: FluentTable, board: Board, marker: str, group: Group) -> Feature:
    pattern = _marker_pattern(table, board, group, marker)
    return Feature(
        name=f"count({pattern})", kind="count",
        description=f"cells of board {board.function} holding {marker}, "
                    f"out of {board.cells}",
        function=board.function, scale=float(board.cells),
        groups=(group,), masks=(_mask(group),))


def _piece_features(table: FluentTable, board: Board, groups: dict[str, Group],
                    spans: Sequence[int]) -> list[Feature]:
    features: list[Feature] = []
    patterns = {p: _marker_pattern(table, board, groups[p], p) for p in board.pieces}
    for piece in board.pieces:
        for k, position in enumerate(board.inputs):
            group = tuple((index, (vector[k],)) for index, vector in groups[piece])
            pattern = _marker_pattern(table, board, groups[piece], piece, position)
            features.append(Feature(
                name=f"coordinate({pattern})",
                kind="coordinate",
                description=f"argument {position + 1} of piece {piece} on board "
                            f"{board.function}, along its order",
                function=board.function, scale=float(spans[k]),
                groups=(group,), masks=(_mask(group),)))
    largest = float(sum(spans))
    pairs = list(combinations(board.pieces, 2))
    if len(pairs) <= MAX_PIECE_PAIRS:
        for a, b in pairs:
            features.append(Feature(
                name=f"distance({patterns[a]};{patterns[b]})", kind="distance",
                description=f"Manhattan distance of pieces {a} and {b} on board "
                            f"{board.function}",
                function=board.function, scale=largest,
                groups=(groups[a], groups[b]), masks=(_mask(groups[a]), _mask(groups[b]))))
    if pairs:
        every = tuple(groups[p] for p in board.pieces)
        all_pattern = _pattern(board.arity, dict.fromkeys(board.outputs, "*"),
                               function=board.function)
        features.append(Feature(
            name=f"distance_sum({all_pattern})", kind="distance_sum",
            description=f"sum of the pairwise Manhattan distances of the pieces on board "
                        f"{board.function}",
            function=board.function, scale=largest * len(pairs),
            groups=every, masks=tuple(_mask(g) for g in every)))
    return features


def quantity_features(table: FluentTable, quantity: Quantity) -> list[Feature]:
    """One feature per value of the quantity's inputs in the fluent table (one for a unary
    quantity): the amount's offset along its order over the span."""
    signature = (quantity.function, quantity.arity)
    offsets, span = _domain(table, signature, quantity.position, quantity.ordering)
    by_inputs: dict[tuple[str, ...], list[tuple[int, tuple[int, ...]]]] = {}
    for index in table.ids.get(signature, ()):
        args = table.entries[index][1]
        amount = args[quantity.position]
        if amount in offsets:
            key = tuple(args[i] for i in quantity.inputs)
            by_inputs.setdefault(key, []).append((index, (offsets[amount],)))
    features = []
    for key, found in by_inputs.items():
        group = tuple(found)
        pattern = _pattern(quantity.arity, dict(zip(quantity.inputs, key, strict=True)),
                           quantity.position, quantity.function)
        where = " for " + " ".join(key) if key else ""
        features.append(Feature(
            name=f"quantity({pattern})", kind="quantity",
            description=f"amount of {quantity.function}{where} along "
                        f"{quantity.ordering.relation}",
            function=quantity.function, scale=float(span),
            groups=(group,), masks=(_mask(group),)))
    return features
