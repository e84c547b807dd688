"""``GameView``: the small surface of a game that players and the match loop use.

Both an in-process :class:`reasoner.Game` and a :class:`client.RemoteGame` on a service
satisfy it, so one player class and one match loop (:func:`client.match.play_match`) serve
both. States are whatever the game hands out (the engine's :class:`reasoner.State`, the
client's :class:`client.values.State`): players only pass them back. Moves are ids into
:attr:`GameView.move_texts`; a joint move is one id per role, in role order.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol, TypeVar

from reasoner.core.values import StateInfo

__all__ = ["GameView"]

S = TypeVar("S", bound=Hashable)


class GameView(Protocol[S]):
    """A game as a player sees it (see the module documentation)."""

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles, in the order of joint moves and goal values."""
        ...

    @property
    def move_texts(self) -> tuple[str, ...]:
        """The GDL text of every move id."""
        ...

    def move_id(self, role: str, text: str) -> int:
        """The id of a role's move written as GDL text (any spacing; any case unless the
        game was read case-sensitively).

        Raises:
            IllegalMoveError: the role can never make such a move.
        """
        ...

    def initial(self) -> tuple[S, StateInfo]:
        """The initial state and what it answers."""
        ...

    def info(self, state: S) -> StateInfo:
        """Legal move ids per role, terminal, goal values per role."""
        ...

    def step(self, state: S, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[S, StateInfo]:
        """The successor under ``joint`` and what it answers.

        Raises:
            IllegalMoveError: with ``check_legal``, a move that is not legal.
        """
        ...

    def expand(self, state: S) -> tuple[StateInfo, list[tuple[tuple[int, ...], S, StateInfo]]]:
        """The state's info and every legal joint move with its successor and what that
        answers."""
        ...
