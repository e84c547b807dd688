"""``play_match``: the one match loop, for turn-taking and simultaneous games alike, for a
game on a service (:class:`client.RemoteGame`) or in process (:class:`reasoner.Game`): it
sees both through :class:`reasoner.core.game_view.GameView`.

>>> result = play_match(game, [MctsPlayer(random.Random(1)),          # doctest: +SKIP
...                            RandomPlayer(random.Random(2))])
>>> result.goals                                                    # doctest: +SKIP
(100, 0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from client.players.player import Player
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo
from reasoner.errors import IllegalMoveError, NoLegalMoveError

__all__ = ["MatchResult", "MatchStep", "play_match"]


@dataclass(frozen=True, slots=True)
class MatchStep:
    """One joint move of a match, as passed to ``on_step``."""

    # 1 for the first joint move of the match.
    number: int
    state: Any  # the game's own state value
    joint_move: tuple[int, ...]
    # The joint move as GDL text, in role order.
    moves: tuple[str, ...]
    successor: Any
    info: StateInfo


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended."""

    roles: tuple[str, ...]
    # Goal value per role in the final state (None where the game defines none or several).
    goals: tuple[int | None, ...]
    # The joint moves played, each as GDL text in role order.
    moves: tuple[tuple[str, ...], ...]
    steps: int
    # False if the match stopped at max_steps before a terminal state.
    terminal: bool


def play_match(game: GameView[Any], players: Sequence[Player], *, max_steps: int = 1000,
               on_step: Callable[[MatchStep], None] | None = None,
               seconds: float | None = None) -> MatchResult:
    """Play one match from the initial state until a terminal state or ``max_steps``.

    Every player is started, then asked for its move in each state where its role has more
    than one legal move (a role with exactly one, such as the idle role's ``noop`` in a
    turn-taking game, plays it without being asked). The game checks each joint move's
    legality when it computes the successor.

    Args:
        game: The game, on a service or in process.
        players: One player per role, in role order.
        max_steps: Joint moves after which the match stops even if not terminal.
        on_step: Called after every joint move.
        seconds: Each player's time for each move (its deadline); None: each player's
            own budget.

    Returns:
        The goals per role of the final state, the joint moves played and their number.

    Raises:
        ValueError: The number of players differs from the number of roles.
        IllegalMoveError: A player chose a move that is not legal for its role.
        NoLegalMoveError: A role has no legal move in a non-terminal state.
    """
    if len(players) != len(game.roles):
        raise ValueError(f"the game has {len(game.roles)} roles "
                         f"({', '.join(game.roles)}) but {len(players)} players were given")
    for index, player in enumerate(players):
        player.start(game, index)
    state, info = game.initial()
    played: list[tuple[str, ...]] = []
    while not info.terminal and len(played) < max_steps:
        joint = tuple(_move(game, player, index, state, info, seconds)
                      for index, player in enumerate(players))
        successor, following = game.step(state, joint, check_legal=True)
        texts = tuple(game.move_texts[move] for move in joint)
        played.append(texts)
        if on_step is not None:
            on_step(MatchStep(len(played), state, joint, texts, successor, following))
        state, info = successor, following
    return MatchResult(roles=game.roles,
                       goals=tuple(info.goal(r) for r in range(len(game.roles))),
                       moves=tuple(played), steps=len(played), terminal=info.terminal)


def _move(game: GameView[Any], player: Player, index: int, state: Hashable,
          info: StateInfo, seconds: float | None) -> int:
    legal = info.legal[index]
    if not legal:
        raise NoLegalMoveError(f"role {game.roles[index]} has no legal move in a "
                               f"non-terminal state")
    if len(legal) == 1:
        return legal[0]
    deadline = time.monotonic() + seconds if seconds is not None else None
    move = player.choose(state, info, deadline)
    if move not in legal:
        # The service would refuse it too; this names the player.
        text = game.move_texts[move] if 0 <= move < len(game.move_texts) else f"#{move}"
        raise IllegalMoveError(f"player {player.name} as {game.roles[index]} chose "
                               f"{text}, which is not legal", role=game.roles[index],
                               move_id=move, reason="not-legal")
    return move
