"""A game's board as the page draws it, found by the structure analysis.

A board is a fluent function with two coordinate arguments and a content (``(cell x y
piece)``): the analysis's boards with two inputs, the one with the most cells first. The
first coordinate runs across (columns), the second up (rows, the first of its ordering at
the bottom, as a chess board's rank 1 or connect four's lowest row); each coordinate's
values come in the order of the successor relation that orders them, else numerically or
alphabetically. Each content gets a glyph and a colour: chess-like pieces (``wk``, ``bq``)
their chess symbols, colour names a disc of that colour, ``x`` and ``o`` their letters,
anything else a disc with its name; the content that fills most cells of the initial state
(when it fills at least two in five) is the empty square.

A move is offered from the squares it names: each coordinate pair in its arguments in
board order (a chess move's from and to squares), or, with no pair, the single argument
that is a column (connect four's ``(drop 3)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from reasoner.errors import GdlError
from reasoner.gdl.parser import parse_term
from reasoner.gdl.syntax import Function

__all__ = ["BoardLayout", "MarkerStyle", "board_layout", "term_parts"]

_COLOURS = {"red": "#d62728", "black": "#222222", "white": "#f4f4f4", "blue": "#1f77b4",
            "green": "#2ca02c", "yellow": "#f2c80f", "orange": "#ff7f0e",
            "purple": "#9467bd", "brown": "#8c564b", "pink": "#e377c2", "grey": "#888888",
            "gray": "#888888"}
_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#17becf", "#bcbd22", "#7f7f7f")
_CHESS = {"k": "\u2654", "q": "\u2655", "r": "\u2656", "b": "\u2657", "n": "\u2658",
          "p": "\u2659"}
_EMPTY_NAMES = {"b", "blank", "empty", "e", "none", "nil", "space", "free", "_"}


class BoardInfo(Protocol):
    """A board of the analysis (:class:`client.values.Board` has these fields)."""

    @property
    def function(self) -> str: ...
    @property
    def arity(self) -> int: ...
    @property
    def inputs(self) -> tuple[int, ...]: ...
    @property
    def outputs(self) -> tuple[int, ...]: ...
    @property
    def orderings(self) -> tuple[str, ...]: ...
    @property
    def cells(self) -> int: ...


class ChainInfo(Protocol):
    """A successor relation of the analysis as its chain (:class:`client.values.Chain`)."""

    @property
    def relation(self) -> str: ...
    @property
    def elements(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class MarkerStyle:
    """How one content is drawn."""

    glyph: str  # text on the square ("" for a plain disc)
    colour: str  # the disc's or the glyph's colour ("" for the empty square)
    empty: bool = False


@dataclass
class BoardLayout:
    """The board of one game: its fluent function, columns (left to right) and rows (top
    to bottom), the content's style per content, and where each board fluent lies."""

    function: str
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    styles: dict[str, MarkerStyle]
    # Per fluent index of the game's table: (column, row, content) of a board fluent.
    squares: dict[int, tuple[int, int, str]] = field(default_factory=dict)

    def place(self, fluent_ids: Iterable[int]) -> tuple[dict[str, str], list[int]]:
        """A state's board (``"column,row"`` to content, empty squares left out) and the
        fluents that are not on it."""
        board: dict[str, str] = {}
        others: list[int] = []
        for index in fluent_ids:
            square = self.squares.get(index)
            if square is None:
                others.append(index)
            elif not self.styles[square[2]].empty:
                board[f"{square[0]},{square[1]}"] = square[2]
        return board, others

    def move_squares(self, text: str) -> list[list[int | None]]:
        """The squares a move names, in its order (``[column, None]`` for a column)."""
        _, args = term_parts(text)
        column_of = {value: i for i, value in enumerate(self.columns)}
        row_of = {value: i for i, value in enumerate(self.rows)}
        squares: list[list[int | None]] = []
        i = 0
        while i < len(args):
            if i + 1 < len(args) and args[i] in column_of and args[i + 1] in row_of:
                squares.append([column_of[args[i]], row_of[args[i + 1]]])
                i += 2
            else:
                i += 1
        if not squares:
            columns = [column_of[a] for a in args if a in column_of]
            if len(args) == 1 and len(columns) == 1:
                squares.append([columns[0], None])
        return squares

    def as_dict(self) -> dict[str, Any]:
        """What the page reads."""
        return {"function": self.function, "columns": list(self.columns),
                "rows": list(self.rows),
                "styles": {name: {"glyph": s.glyph, "colour": s.colour, "empty": s.empty}
                           for name, s in self.styles.items()}}


def term_parts(text: str) -> tuple[str, tuple[str, ...]]:
    """A term's name and its arguments as text (a constant has none; a text that does not
    parse is its own name)."""
    try:
        term = parse_term(text, case_sensitive=True)
    except GdlError:
        return text, ()
    if isinstance(term, Function):
        return term.name, tuple(str(arg) for arg in term.args)
    return str(term), ()


def _ordered(values: Iterable[str], chain: Sequence[str] | None) -> tuple[str, ...]:
    present = set(values)
    if chain:
        ordered = [v for v in chain if v in present]
        if len(ordered) == len(present):
            return tuple(ordered)
    if all(v.lstrip("-").isdigit() for v in present):
        return tuple(sorted(present, key=int))
    return tuple(sorted(present))


def _style(marker: str, index: int, chess: bool) -> MarkerStyle:
    low = marker.lower()
    if chess and len(low) == 2 and low[0] in "wb" and low[1] in _CHESS:
        glyph = _CHESS[low[1]]
        if low[0] == "b":
            glyph = chr(ord(glyph) + 6)  # the black piece of the same kind
        return MarkerStyle(glyph, "#000000")
    if low in _COLOURS:
        return MarkerStyle("", _COLOURS[low])
    if low in ("x", "o"):
        return MarkerStyle(low.upper(), "#1f4e9c" if low == "x" else "#b03030")
    colour = _PALETTE[index % len(_PALETTE)]
    if len(low) == 2 and low[0] in "wbr" and low[1] in "pk":  # checkers: man or king
        colour = {"w": "#f4f4f4", "b": "#222222", "r": "#d62728"}[low[0]]
        return MarkerStyle("\u265a" if low[1] == "k" else "", colour)
    return MarkerStyle(marker[:3], colour)


def board_layout(boards: Sequence[BoardInfo], chains: Sequence[ChainInfo],
                 fluents: Sequence[str], initial: Iterable[int]) -> BoardLayout | None:
    """The board to draw, or None when the analysis found none with two coordinates.

    Args:
        boards, chains: The analysis's boards and successor chains.
        fluents: The game's fluent table (GDL text by index).
        initial: The fluent indexes of the initial state.
    """
    candidates = [b for b in boards if len(b.inputs) == 2 and len(b.outputs) >= 1]
    if not candidates:
        return None
    board = max(candidates, key=lambda b: b.cells)  # the first of the largest
    by_relation = {c.relation: c.elements for c in chains}
    placed: dict[int, tuple[str, str, str]] = {}
    for index, text in enumerate(fluents):
        name, args = term_parts(text)
        if name != board.function or len(args) != board.arity:
            continue
        content = " ".join(args[p] for p in board.outputs)
        placed[index] = (args[board.inputs[0]], args[board.inputs[1]], content)
    if not placed:
        return None
    columns = _ordered((x for x, _, _ in placed.values()),
                       by_relation.get(board.orderings[0]) if board.orderings else None)
    rows = tuple(reversed(_ordered(
        (y for _, y, _ in placed.values()),
        by_relation.get(board.orderings[1]) if len(board.orderings) > 1 else None)))
    markers = sorted({c for _, _, c in placed.values()})
    chess = any(len(m) == 2 and m[0] in "wb" and m[1] in "qrn" for m in markers)
    styles = {m: _style(m, i, chess) for i, m in enumerate(markers)}
    at_start = Counter(placed[i][2] for i in initial if i in placed)
    if at_start:
        common, count = at_start.most_common(1)[0]
        if common.lower() in _EMPTY_NAMES or count * 5 >= len(columns) * len(rows) * 2:
            styles[common] = MarkerStyle("", "", empty=True)
    column_of = {v: i for i, v in enumerate(columns)}
    row_of = {v: i for i, v in enumerate(rows)}
    squares = {index: (column_of[x], row_of[y], content)
               for index, (x, y, content) in placed.items()}
    return BoardLayout(board.function, columns, rows, styles, squares)
