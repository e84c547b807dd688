"""``play_match``: the one match loop, for turn-taking and simultaneous games alike, for a
game on a service (:class:`client.RemoteGame`) or in process (:class:`reasoner.Game`): it
sees both through :class:`reasoner.core.game_view.GameView`.

A :class:`~client.players.player.Player` is given the full state, which a role of a GDL-II
game must never see. So a GDL-II match is played otherwise: the loop moves ``random``
itself (uniformly, seeded), and every other seat is a
:class:`~client.players.sampling.SamplingPlayer` told only its own moves and percepts,
whatever players were given (:attr:`MatchResult.note` says so).

>>> result = play_match(game, [MctsPlayer(random.Random(1)),          # doctest: +SKIP
...                            RandomPlayer(random.Random(2))])
>>> result.goals                                                    # doctest: +SKIP
(100, 0)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from client.players.player import Player
from client.players.sampling import InformationGame, SamplingPlayer
from reasoner.core.game_view import GameView, seated_roles
from reasoner.core.values import StateInfo
from reasoner.errors import IllegalMoveError, NoLegalMoveError

__all__ = ["MatchResult", "MatchStep", "gdl2_note", "play_match"]

# GDL-II: the sampling players' time per move when play_match is given no seconds.
SAMPLING_SECONDS = 1.0


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
    # GDL-II: how the match was played instead of by the players given (see gdl2_note).
    note: str = ""


def play_match(game: GameView[Any], players: Sequence[Player], *, max_steps: int = 1000,
               on_step: Callable[[MatchStep], None] | None = None,
               seconds: float | None = None, seed: int = 0) -> MatchResult:
    """Play one match from the initial state until a terminal state or ``max_steps``.

    Every player is started, then asked for its move in each state where its role has more
    than one legal move (a role with exactly one, such as the idle role's ``noop`` in a
    turn-taking game, plays it without being asked). The game checks each joint move's
    legality when it computes the successor.

    A GDL-II game (``game.is_gdl2``) is played otherwise, since a player here sees the
    full state and a GDL-II role must not: ``players`` names one player per role but
    ``random`` (one for ``random`` too is taken and ignored), none of them is started or
    asked; ``random``'s move is drawn uniformly by the loop (seeded by ``seed``), and each
    other seat is a :class:`~client.players.sampling.SamplingPlayer` given only its own
    moves and percepts, ``seconds`` per move (:data:`SAMPLING_SECONDS` when None). The
    result's ``note`` says so.

    Args:
        game: The game, on a service or in process.
        players: One player per role, in role order.
        max_steps: Joint moves after which the match stops even if not terminal.
        on_step: Called after every joint move.
        seconds: Each player's time for each move (its deadline); None: each player's
            own budget.
        seed: GDL-II only: seeds ``random``'s moves and the sampling players.

    Returns:
        The goals per role of the final state, the joint moves played and their number.

    Raises:
        ValueError: The number of players differs from the number of roles.
        IllegalMoveError: A player chose a move that is not legal for its role.
        NoLegalMoveError: A role has no legal move in a non-terminal state.
    """
    if getattr(game, "is_gdl2", False):
        return _play_gdl2(game, players, max_steps=max_steps, on_step=on_step,
                          seconds=SAMPLING_SECONDS if seconds is None else seconds, seed=seed)
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


def gdl2_note(game: GameView[Any], players: Sequence[Player]) -> str:
    """What :func:`play_match` tells of a GDL-II match: who plays each seat instead of
    ``players`` (one per seated role, or one per role), and why."""
    seated = seated_roles(game)
    names = _seat_players(game, players, seated)
    given = ", ".join(f"{game.roles[r]} ({player.name})"
                      for r, player in zip(seated, names, strict=True))
    nature = getattr(game, "random_role", None)
    moved = (f"{nature} is moved uniformly at random by the match; every other role"
             if nature else "every role")
    return (f"GDL-II game: {moved} is played by the sampling player "
            f"(Monte Carlo over states of its information set, told only its own moves "
            f"and percepts) in place of the player named for it ({given}), since the "
            f"players of a local match see the whole state, which a GDL-II role must not")


def _seat_players(game: GameView[Any], players: Sequence[Player],
                  seated: list[int]) -> list[Player]:
    """The players given for the seated roles (``random``'s, if given, left out)."""
    if len(players) == len(seated):
        return list(players)
    if len(players) == len(game.roles):
        return [players[r] for r in seated]
    names = ", ".join(game.roles[r] for r in seated)
    raise ValueError(f"the game has {len(seated)} roles to seat ({names}; the match moves "
                     f"random) but {len(players)} players were given")


def _play_gdl2(view: GameView[Any], players: Sequence[Player], *, max_steps: int,
               on_step: Callable[[MatchStep], None] | None, seconds: float,
               seed: int) -> MatchResult:
    """A GDL-II match (see :func:`play_match`): nobody but the loop sees the state."""
    note = gdl2_note(view, players)  # checks the number of players too
    game = cast(InformationGame, view)
    seated = seated_roles(view)
    samplers = {r: SamplingPlayer(random.Random(f"{seed}/{r}/sampling")) for r in seated}
    nature = random.Random(f"{seed}/random")
    table = game.percept_table
    histories: dict[int, list[tuple[str, tuple[str, ...]]]] = {r: [] for r in seated}
    state, info = view.initial()
    played: list[tuple[str, ...]] = []
    while not info.terminal and len(played) < max_steps:
        moves: list[int] = []
        for index, legal in enumerate(info.legal):
            if not legal:
                raise NoLegalMoveError(f"role {view.roles[index]} has no legal move in a "
                                       f"non-terminal state")
            if len(legal) == 1:
                moves.append(legal[0])
            elif index not in samplers:  # random: drawn here, never asked of a player
                moves.append(nature.choice(legal))
            else:
                move = samplers[index].choose(game, index, histories[index],
                                              time.monotonic() + seconds)
                if move not in legal:
                    text = (view.move_texts[move] if 0 <= move < len(view.move_texts)
                            else f"#{move}")
                    raise IllegalMoveError(f"the sampling player as {view.roles[index]} "
                                           f"chose {text}, which is not legal",
                                           role=view.roles[index], move_id=move,
                                           reason="not-legal")
                moves.append(move)
        joint = tuple(moves)
        successor, following = view.step(state, joint, check_legal=True)
        seen = game.percepts(state, joint, check_legal=False)
        for r, history in histories.items():
            history.append((view.move_texts[joint[r]], tuple(table[i][1] for i in seen[r])))
        texts = tuple(view.move_texts[move] for move in joint)
        played.append(texts)
        if on_step is not None:
            on_step(MatchStep(len(played), state, joint, texts, successor, following))
        state, info = successor, following
    return MatchResult(roles=view.roles,
                       goals=tuple(info.goal(r) for r in range(len(view.roles))),
                       moves=tuple(played), steps=len(played), terminal=info.terminal,
                       note=note)
