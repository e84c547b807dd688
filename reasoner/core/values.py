"""The engine's values: states, moves, joint moves and what a state answers.

Every value here is immutable and hashable, so it can key a dict or sit in a set (a
transposition table, a search tree's children) and stay found.

A :class:`State` is a bitset over its game's fluent table (bit ``i`` set when fluent ``i``
holds) and carries the table, so two games' states never compare equal and a state prints
as GDL text. A :class:`Move` is an index into its game's move table with its role and text.
A :class:`JointMove` is one move per role, in role order. A :class:`StateInfo` is what one
state answers: legal move ids per role, terminal, goal values per role.

>>> table = ("(cell 1 1 b)", "(control xplayer)")
>>> state = State(0b11, table)
>>> state
State((true (cell 1 1 b)) (true (control xplayer)))
>>> sorted(state.fluents)
['(cell 1 1 b)', '(control xplayer)']
>>> state.bits = 0
Traceback (most recent call last):
...
AttributeError: State is immutable
>>> Move(4, "xplayer", "(mark 1 2)")
Move(4, 'xplayer', '(mark 1 2)')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NoReturn

from reasoner.errors import GdlSyntaxError, IllegalMoveError
from reasoner.gdl.parser import parse_term

__all__ = ["Goals", "JointMove", "Move", "State", "StateInfo", "move_key"]

# Per role, the goal values the role has in a state (one in a terminal state of a
# well-formed game).
Goals = tuple[tuple[int, ...], ...]


class State:
    """A game state: the set of fluents that hold, over one game's fluent table.

    Equal states have equal bits over equal tables; the hash is that of the bits.
    """

    __slots__ = ("_table", "bits")

    bits: int
    _table: Sequence[str]

    def __init__(self, bits: int, table: Sequence[str]) -> None:
        _set_state_bits(self, bits)
        _set_state_table(self, table)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("State is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("State is immutable")

    @property
    def table(self) -> Sequence[str]:
        """The fluent table of the state's game (fluent ``i`` is bit ``i``)."""
        return self._table

    @property
    def fluents(self) -> frozenset[str]:
        """The fluents that hold, as GDL text."""
        table = self._table
        return frozenset(table[i] for i in self.fluent_ids())

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
        return (isinstance(other, State) and other.bits == self.bits
                and (other._table is self._table or other._table == self._table))

    def __hash__(self) -> int:
        return hash(self.bits)

    def __str__(self) -> str:
        return " ".join(f"(true {fluent})" for fluent in sorted(self.fluents))

    def __repr__(self) -> str:
        return f"State({self})"

    def __reduce__(self) -> tuple[type[State], tuple[int, Sequence[str]]]:
        return State, (self.bits, self._table)


@dataclass(frozen=True, slots=True)
class Move:
    """A move of one role, such as ``(mark 1 1)`` of ``xplayer``: entry ``id`` of the game's
    move table."""

    id: int
    role: str
    text: str

    def __hash__(self) -> int:
        return hash(self.id)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Move({self.id}, {self.role!r}, {self.text!r})"


def move_key(role: str, text: str, *, case_sensitive: bool) -> str:
    """A move written by a person, as its game's move table writes it (one spacing, lower
    case unless the game was read case-sensitively): what a game and a client both look
    moves up by.

    >>> move_key("xplayer", "( MARK 1  1 )", case_sensitive=False)
    '(mark 1 1)'

    Raises:
        IllegalMoveError: the text is not a GDL term.
    """
    try:
        return str(parse_term(text, case_sensitive=case_sensitive))
    except GdlSyntaxError as error:
        raise IllegalMoveError(f"malformed move {text!r}: {error}", role=role,
                               reason="malformed") from error


class JointMove(Mapping[str, Move]):
    """One move per role, in role order; read as a mapping from role to move.

    >>> joint = JointMove((Move(0, "xplayer", "(mark 1 1)"), Move(9, "oplayer", "noop")))
    >>> joint
    JointMove((does xplayer (mark 1 1)) (does oplayer noop))
    >>> joint["oplayer"].text, joint.ids
    ('noop', (0, 9))
    """

    __slots__ = ("_moves",)

    _moves: tuple[Move, ...]

    def __init__(self, moves: Sequence[Move]) -> None:
        object.__setattr__(self, "_moves", tuple(moves))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("JointMove is immutable")

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves in role order."""
        return self._moves

    @property
    def ids(self) -> tuple[int, ...]:
        """The move ids in role order (what :meth:`reasoner.engine.game.Game.step` takes)."""
        return tuple(move.id for move in self._moves)

    @property
    def roles(self) -> tuple[str, ...]:
        return tuple(move.role for move in self._moves)

    def __getitem__(self, role: str) -> Move:
        for move in self._moves:
            if move.role == role:
                return move
        raise KeyError(role)

    def __iter__(self) -> Iterator[str]:
        return (move.role for move in self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, JointMove):
            return other._moves == self._moves
        return super().__eq__(other)

    def __hash__(self) -> int:
        return hash(self._moves)

    def __str__(self) -> str:
        return " ".join(f"(does {move.role} {move.text})" for move in self._moves)

    def __repr__(self) -> str:
        return f"JointMove({self})"


class StateInfo:
    """What a state answers: legal move ids and goal values per role, and terminal.

    Goal values are given, or computed on first use by ``goal_function(bits)`` (the
    network backend: playouts read goals only at their end).

    >>> StateInfo(legal=((0, 1), (2,)), terminal=False, goals=((), ()))
    StateInfo(legal=((0, 1), (2,)), terminal=False, goals=((), ()))
    """

    __slots__ = ("_bits", "_goal_function", "_goals", "legal", "terminal")

    legal: tuple[tuple[int, ...], ...]
    terminal: bool
    _goals: Goals | None
    _goal_function: Callable[[int], Goals] | None
    _bits: int

    def __init__(self, legal: tuple[tuple[int, ...], ...], terminal: bool,
                 goals: Goals | None = None,
                 goal_function: Callable[[int], Goals] | None = None, bits: int = 0) -> None:
        if goals is None and goal_function is None:
            raise ValueError("StateInfo needs goals or a goal function")
        _set_info_legal(self, legal)
        _set_info_terminal(self, terminal)
        _set_info_goals(self, goals)
        _set_info_goal_function(self, goal_function)
        _set_info_bits(self, bits)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("StateInfo is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("StateInfo is immutable")

    @property
    def goals(self) -> Goals:
        """The goal values of every role, in role order."""
        goals = self._goals
        if goals is None:
            assert self._goal_function is not None
            goals = self._goal_function(self._bits)
            _set_info_goals(self, goals)
        return goals

    def goal(self, role_index: int) -> int | None:
        """The role's goal value if exactly one is defined, else None."""
        values = self.goals[role_index]
        return values[0] if len(values) == 1 else None

    def _key(self) -> tuple[object, ...]:
        return (self.legal, self.terminal, self.goals)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StateInfo) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type[StateInfo], tuple[object, ...]]:
        return StateInfo, (self.legal, self.terminal, self.goals)

    def __repr__(self) -> str:
        return f"StateInfo(legal={self.legal}, terminal={self.terminal}, goals={self.goals})"


# The slots' own setters: values are built in every step of a playout, and these are about
# twice as fast as object.__setattr__ (the classes refuse plain assignment).
_set_state_bits = State.__dict__["bits"].__set__
_set_state_table = State.__dict__["_table"].__set__
_set_info_legal = StateInfo.__dict__["legal"].__set__
_set_info_terminal = StateInfo.__dict__["terminal"].__set__
_set_info_goals = StateInfo.__dict__["_goals"].__set__
_set_info_goal_function = StateInfo.__dict__["_goal_function"].__set__
_set_info_bits = StateInfo.__dict__["_bits"].__set__
