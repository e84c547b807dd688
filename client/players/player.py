"""The ``Player`` protocol: what the match runner asks of every player."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

__all__ = ["Player"]


@runtime_checkable
class Player(Protocol):
    """A player of one role in one match at a time.

    The match runner calls :meth:`start` once per match, then :meth:`choose` in every state
    where the player's role has a choice. Players see the game view (in process or on a
    service) and its values, never protobuf.
    """

    @property
    def name(self) -> str:
        """A short name for match reports ("random", "mcts")."""
        ...

    def start(self, game: GameView[Any], role_index: int) -> None:
        """Begin a match of ``game`` as the role ``game.roles[role_index]``.

        Forgets everything learnt in an earlier match.
        """
        ...

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        """The move id to play in ``state``, one of ``info.legal[role_index]``.

        Args:
            state: The current state of the match (not terminal).
            info: What ``state`` answers (legal moves, terminal status, goals).
            deadline: A :func:`time.monotonic` time by which the move is due (a play
                clock); a searching player stops there and answers its best move so far.
                None: the player's own budget (iterations, nodes or seconds).
        """
        ...
