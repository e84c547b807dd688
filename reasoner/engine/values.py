"""States and moves: immutable, hashable, cheap values with readable reprs.

A state is a bitset over the game's fluent table (bit ``i`` set when fluent ``i`` holds); a
move is an index into the game's move table. Both carry a reference to their table only for
display, so they hash and compare as integers do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

__all__ = ["Move", "State"]


class State:
    """A game state: the set of fluents that hold."""

    __slots__ = ("_table", "bits")

    def __init__(self, bits: int, table: Sequence[str]) -> None:
        self.bits = bits
        self._table = table

    @property
    def fluents(self) -> frozenset[str]:
        """The fluents that hold, as GDL text."""
        return frozenset(self._table[i] for i in self.fluent_ids())

    def fluent_ids(self) -> Iterator[int]:
        """Ids of the fluents that hold, ascending."""
        bits = self.bits
        while bits:
            low = bits & -bits
            yield low.bit_length() - 1
            bits ^= low

    def __contains__(self, fluent: object) -> bool:
        return fluent in self.fluents

    def __len__(self) -> int:
        return self.bits.bit_count()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other.bits == self.bits

    def __hash__(self) -> int:
        return hash(self.bits)

    def __repr__(self) -> str:
        return "State({" + ", ".join(sorted(self.fluents)) + "})"


class Move:
    """A move of one role, such as ``(mark 1 1)`` of ``xplayer``."""

    __slots__ = ("id", "role", "text")

    def __init__(self, id: int, role: str, text: str) -> None:
        self.id = id
        self.role = role
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and other.id == self.id and other.role == self.role

    def __hash__(self) -> int:
        return hash(self.id)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move({self.role!r}, {self.text!r})"
