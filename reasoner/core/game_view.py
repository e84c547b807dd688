"""``GameView``: the one surface of a game that players, evaluators and the match loop use.

An in-process :class:`reasoner.Game` and a :class:`client.RemoteGame` on a service both
satisfy it, with the same values: states are :class:`~reasoner.core.values.State` (fluent
bits over the game's fluent table), what a state answers a
:class:`~reasoner.core.values.StateInfo`, playouts a :class:`~reasoner.core.walk.Simulation`,
a heuristic's values :class:`~reasoner.core.evaluation.Evaluation` values.
Moves are ids into :attr:`GameView.move_texts`; a joint move is one id per role, in role
order. So one player class and one match loop (:func:`client.match.play_match`) serve both,
and none of them asks which one it has.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Protocol, TypeVar

from reasoner.core.evaluation import Evaluation
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import StateInfo
from reasoner.core.walk import Simulation

__all__ = ["GameView", "seated_roles"]

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

    def simulate(self, state: S, playouts: int = 1, seed: int = 0, max_steps: int = 1000, *,
                 record: bool = False) -> Simulation:
        """``playouts`` seeded random playouts from ``state``, each stopped after
        ``max_steps`` joint moves, with their joint moves when ``record``; the seed is taken
        modulo 2**64. The same seed gives the same playouts in process and on a service (on
        the same backend).

        Raises:
            ValueError: ``playouts`` or ``max_steps`` negative or too large.
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        ...

    def summarize(self, state: S, playouts: int = 1, seed: int = 0,
                  max_steps: int = 1000) -> PlayoutSummary:
        """The totals of :meth:`simulate`'s playouts with the same arguments (how often
        each role ended with each goal value, how many ended terminal, their lengths), for
        more playouts than their columns would be worth."""
        ...

    def evaluate(self, states: Sequence[S], role: str, heuristic: str,
                 parameters: Mapping[str, object] | None = None, *, plan: bool = False,
                 previous: S | None = None) -> list[Evaluation]:
        """A heuristic's values of ``states`` for ``role`` (the heuristics and their
        parameters are :data:`reasoner.heuristics.table.HEURISTICS`), with the relaxed
        plan when ``plan``; ``previous`` is the state before the first (novelty).

        Raises:
            HeuristicError: an unknown heuristic, parameter or role, a value out of range,
                or a heuristic that does not apply to this game or state.
        """
        ...


def seated_roles(game: GameView[S]) -> list[int]:
    """The roles that players seat: every role but GDL-II's ``random`` (``random_role``,
    where the game has one), which the match itself moves."""
    nature = getattr(game, "random_role", None)
    return [r for r, role in enumerate(game.roles) if role != nature]
