"""General evaluation ideas that need no structure (docs/semantics/structures.md; Kissmann's slides
on evaluation functions): mobility, inverse mobility and novelty, each scaled to [0, 1].

* **mobility**: more moves is better (few moves means little control, as in Reversi); the
  opponents' moves may count against it;
* **inverse mobility**: fewer moves is better (suicide games such as nOthello: giving the
  opponent more to do is good);
* **novelty**: a state that differs much from its predecessor is better (it keeps the
  search from getting stuck; it is a gamble, as sacrificing a piece changes a lot too).

They plug into the same evaluation as the features:
``reasoner.heuristics.features.evaluation(v, direction, low, high)``.
"""

from __future__ import annotations

from reasoner.core.values import State
from reasoner.engine.game import Game

__all__ = ["inverse_mobility", "mobility", "novelty", "own_mobility"]


def own_mobility(game: Game, state: State, role: str) -> float:
    """The role's legal moves in ``state`` over the size of its move table (every move it
    could ever make), in [0, 1]; 0 for a role without any move in its table."""
    table = len(game.moves(role))
    if table == 0:
        return 0.0
    return len(game.legal_moves(state, role)) / table


def mobility(game: Game, state: State, role: str, *, relative: bool = False) -> float:
    """Mobility of ``role`` in ``state``, in [0, 1].

    Without ``relative`` it is :func:`own_mobility`: the role's legal moves over its move
    table. With ``relative`` the opponents' mobility counts against it:
    ``(own - mean of the other roles' own mobility + 1) / 2``, so 0.5 means as mobile as
    the opponents on average (a game with one role gives its own mobility).
    """
    own = own_mobility(game, state, role)
    if not relative:
        return own
    others = [own_mobility(game, state, other) for other in game.roles if other != role]
    if not others:
        return own
    return (own - sum(others) / len(others) + 1) / 2


def inverse_mobility(game: Game, state: State, role: str, *, relative: bool = False) -> float:
    """``1 - mobility``: fewer own moves (or, with ``relative``, more moves for the
    opponents) is better."""
    return 1.0 - mobility(game, state, role, relative=relative)


def novelty(previous: State | None, state: State) -> float:
    """How much ``state`` differs from ``previous``: the fluents that hold in exactly one of
    them over those that hold in either (0 when they are equal, 1 when they share no
    fluent); 0 without a previous state or when both are empty."""
    if previous is None:
        return 0.0
    either = (previous.bits | state.bits).bit_count()
    if either == 0:
        return 0.0
    return (previous.bits ^ state.bits).bit_count() / either
