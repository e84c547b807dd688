"""Matches on the page: played (people and players on the roles), watched (a match that
``gdl-reasoner manage`` publishes) and replayed (a match record).

A match is its positions, each with the joint move that led to it and the errors marked on
that move (``IL``, ``TO``, ``CE`` as a game manager writes them, ``CE`` also for a player
of the page that failed). Whoever follows a match is told when it changed (``version``)
and asks for the positions it shows.

A played match runs as one task: at each position every player's move is asked on a
thread of its own (a search takes its clock as its deadline) while the people on the other
roles click; a role with one legal move plays it. Undo stops the task, takes back the
moves to the last position where a person had a choice, and starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reasoner.console.players import Player, RemoteGame, make_player
from reasoner.core.values import State, StateInfo
from reasoner.errors import ReasonerError
from reasoner.web.library import OpenedGame

__all__ = ["HUMAN", "Match", "MatchError", "Position"]

HUMAN = "human"
# The longest a page's match keeps going without a click (then it waits for none).
_MAX_STEPS = 2000


class MatchError(Exception):
    """A request the match cannot take (an illegal move, a role that is not a person's)."""


@dataclass
class Position:
    """One position of a match and how it was reached."""

    state: State
    info: StateInfo
    moves: tuple[str, ...] = ()  # the joint move that led here, as GDL text
    errors: tuple[str, ...] = ()  # per role: "" or IL, TO, CE
    think_ms: tuple[float, ...] = ()  # per role: how long its move took


@dataclass
class Match:
    """A match the page shows (see the module documentation)."""

    id: str
    kind: str  # "play", "watch" or "replay"
    opened: OpenedGame  # the game, with its board and heuristics
    seats: tuple[str, ...]  # per role: "human", a player's strategy, or a player's address
    positions: list[Position]
    clock: float = 1.0
    message: str = ""
    finished: bool = False
    version: int = 0
    created: float = field(default_factory=time.time)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _pending: dict[int, int] = field(default_factory=dict)  # role -> move id, clicked
    _clicked: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _players: dict[int, Player] = field(default_factory=dict)
    _seed: int = 0

    @property
    def game(self) -> RemoteGame:
        return self.opened.game

    # -- following ------------------------------------------------------------------------

    def touch(self) -> None:
        """Tell those who follow the match that it changed."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self, since: int, timeout: float) -> int:
        """The version after ``since`` (at once when there is one), or ``since`` again
        after ``timeout`` seconds."""
        if self.version != since:
            return self.version
        event = self._changed
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        return self.version

    @property
    def status(self) -> str:
        """What the match waits for, in words."""
        last = self.positions[-1]
        if last.info.terminal:
            return "over"
        if self.finished:
            return "stopped"
        if self.kind != "play":
            return "live" if self.kind == "watch" else "recorded"
        waiting = [self.game.roles[r] for r in self.human_choices() if r not in self._pending]
        return f"{', '.join(waiting)} to move" if waiting else "players thinking"

    def human_choices(self) -> list[int]:
        """The people's roles with more than one legal move in the last position."""
        info = self.positions[-1].info
        return [r for r, seat in enumerate(self.seats)
                if seat == HUMAN and len(info.legal[r]) > 1 and not info.terminal]

    # -- playing --------------------------------------------------------------------------

    def start(self, seed: int = 0) -> None:
        """Start a played match's task."""
        self._seed = seed
        for r, seat in enumerate(self.seats):
            if seat != HUMAN:
                player = make_player(seat, random.Random(f"{seed}/{r}"))
                player.start(self.game, r)
                self._players[r] = player
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        """Stop a played match's task."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def click(self, role: str, move: str) -> None:
        """A person's move for ``role`` (GDL text) in the last position.

        Raises:
            MatchError: not a person's role, the match is over, or the move is not legal.
        """
        if self.kind != "play":
            raise MatchError("only a played match takes moves")
        if role not in self.game.roles:
            raise MatchError(f"unknown role {role!r}")
        r = self.game.roles.index(role)
        if self.seats[r] != HUMAN:
            raise MatchError(f"{role} is played by {self.seats[r]}, not by a person")
        info = self.positions[-1].info
        if info.terminal:
            raise MatchError("the match is over")
        try:
            found = self.game.move_id(role, move)
        except ReasonerError as error:  # the game's word on a malformed or unknown move
            raise MatchError(str(error)) from None
        if found not in info.legal[r]:
            raise MatchError(f"{self.game.move_texts[found]} is not legal for {role} now")
        self._pending[r] = found
        self._clicked.set()

    async def undo(self) -> None:
        """Take back the moves to the last earlier position where a person had a choice
        (the start when there is none)."""
        if self.kind != "play":
            raise MatchError("only a played match can take moves back")
        self.stop()
        self._pending.clear()
        keep = 1
        for index in range(len(self.positions) - 2, -1, -1):
            info = self.positions[index].info
            if any(seat == HUMAN and len(info.legal[r]) > 1
                   for r, seat in enumerate(self.seats)):
                keep = index + 1
                break
        del self.positions[keep:]
        self.message = ""
        self.touch()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            while len(self.positions) < _MAX_STEPS and not self.positions[-1].info.terminal:
                await self._play_one()
        except Exception as error:  # the service failed: say so, keep the page usable
            self.message = f"the match stopped: {type(error).__name__}: {error}"
            self.finished = True
            self.touch()

    async def _play_one(self) -> None:
        position = self.positions[-1]
        info = position.info
        roles = len(self.game.roles)
        thinking = {r: asyncio.create_task(self._ask(r, position))
                    for r in range(roles)
                    if self.seats[r] != HUMAN and len(info.legal[r]) > 1}
        try:
            while any(r not in self._pending for r in self.human_choices()):
                self._clicked.clear()
                await self._clicked.wait()
            answers = {r: await task for r, task in thinking.items()}
        finally:
            for task in thinking.values():
                task.cancel()
        joint: list[int] = []
        errors: list[str] = []
        times: list[float] = []
        for r in range(roles):
            if r in answers:
                move, error, ms = answers[r]
            elif r in self._pending:
                move, error, ms = self._pending[r], "", 0.0
            else:
                move, error, ms = info.legal[r][0], "", 0.0
            joint.append(move)
            errors.append(error)
            times.append(ms)
        self._pending.clear()
        state, following = await asyncio.to_thread(
            self.game.step, position.state, tuple(joint))
        self.positions.append(Position(state, following,
                                       tuple(self.game.move_texts[m] for m in joint),
                                       tuple(errors), tuple(times)))
        self.touch()

    async def _ask(self, role: int, position: Position) -> tuple[int, str, float]:
        """A player's move: (move id, "" or CE, milliseconds); a player that fails or
        answers an illegal move is replaced by a random legal move, and the page says so."""
        player = self._players[role]
        began = time.monotonic()
        deadline = time.monotonic() + self.clock
        legal = position.info.legal[role]
        try:
            move = await asyncio.to_thread(player.choose, position.state, position.info,
                                           deadline)
            error = "" if move in legal else "IL"
        except Exception as failure:  # a player's defect: the page says so and plays on
            self.message = (f"{self.game.roles[role]}'s player ({self.seats[role]}) failed: "
                            f"{type(failure).__name__}: {failure}")
            move, error = -1, "CE"
        if error:
            move = random.Random(f"{self._seed}/{len(self.positions)}").choice(legal)
        return move, error, (time.monotonic() - began) * 1e3


def replayed(game: RemoteGame, moves: Sequence[Sequence[str]],
             errors: Sequence[Sequence[str]], start: Position | None = None
             ) -> list[Position]:
    """The positions of a recorded match from its moves (GDL text per role per step) and
    the errors marked on them, from ``start`` (the initial state by default; the
    positions returned begin with it).

    Raises:
        MatchError: a move the game does not know or that is not legal where it is played
            (the message names the step and the role).
    """
    positions = [start] if start is not None else []
    if not positions:
        state, info = game.initial()
        positions.append(Position(state, info))
    first = len(positions)
    for i, texts in enumerate(moves):
        number = first + i
        last = positions[-1]
        if len(texts) != len(game.roles):
            raise MatchError(f"step {number}: {len(texts)} moves for {len(game.roles)} roles")
        joint: list[int] = []
        for r, text in enumerate(texts):
            try:
                move = game.move_id(game.roles[r], text)
            except ReasonerError as error:  # an unknown or malformed move in the record
                raise MatchError(f"step {number}: {game.roles[r]}: {error}") from None
            if move not in last.info.legal[r]:
                raise MatchError(f"step {number}: {text} is not legal for {game.roles[r]}")
            joint.append(move)
        state, info = game.step(last.state, tuple(joint), check_legal=False)
        marks = tuple(errors[i]) if i < len(errors) else ()
        positions.append(Position(state, info, tuple(texts), marks or ("",) * len(texts)))
    return positions


def describe(match: Match) -> dict[str, Any]:
    """A match in the list of matches."""
    last = match.positions[-1]
    return {"id": match.id, "kind": match.kind, "game": match.opened.entry.name,
            "roles": list(match.game.roles), "seats": list(match.seats),
            "steps": len(match.positions) - 1, "status": match.status,
            "goals": _goals(last.info) if last.info.terminal else None,
            "message": match.message, "version": match.version}


def _goals(info: StateInfo) -> list[int | None]:
    return [info.goal(r) for r in range(len(info.legal))]
