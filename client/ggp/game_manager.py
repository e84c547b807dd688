"""A game manager: runs matches between GGP players over HTTP (docs/semantics/match-protocol.md), as
GGP-Base's GameServer does, and records them.

Each message is one POST on a new connection, written as GGP-Base writes it. A player's
answer to ``play`` is the first term of its body; one that is not a legal move (``IL``),
comes after the play clock and one second (``TO``) or not at all (``CE``: refused, closed,
an HTTP error) is replaced by a random legal move, and the error is recorded with the
step. ``play`` and ``stop`` carry the moves actually applied. Seats rotate over matches:
in match ``k`` (from 0) role ``r`` is played by the player ``(r + k) mod n``. A player's
wins, draws and losses are :func:`reasoner.core.outcome.outcome`'s.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from client.ggp.messages import ProtocolError, first_term, write_message
from reasoner.core.outcome import Outcome, outcome
from reasoner.engine.game import Game
from reasoner.errors import ReasonerError

__all__ = ["MatchRecord", "PlayerTally", "ping", "run_match", "save", "seats",
           "tally"]

# A play's answer may come this long after the play clock (GGP-Base's read timeout).
LATE_SECONDS = 1.0
# The longest answer read from a player.
_MAX_ANSWER = 1 << 20


@dataclass
class MatchRecord:
    """One match as it was played (written as JSON by ``manage --record``)."""

    match_id: str
    game: str
    roles: list[str]
    players: list[str]  # host:port per role
    start_clock: float
    play_clock: float
    moves: list[list[str]] = field(default_factory=list)  # per step, in role order
    # Per step and role: "" or IL, TO, CE (the move then was a random legal one).
    errors: list[list[str]] = field(default_factory=list)
    # Per step and role: what the player answered (its first term, or the failure).
    answers: list[list[str]] = field(default_factory=list)
    answer_ms: list[list[float]] = field(default_factory=list)
    states: list[list[str]] | None = None  # the fluents of each state, on request
    goals: list[int | None] = field(default_factory=list)
    terminal: bool = False
    start_errors: list[str] = field(default_factory=list)  # per role: "" or TO, CE
    seconds: float = 0.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)


def _post(host: str, port: int, body: str, timeout: float) -> str:
    """One message on a new connection, GGP-Base's way; the answer's body, trimmed."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        data = body.encode("utf-8")
        connection.request("POST", "/", body=data, headers={
            "Content-Type": "text/acl", "Accept": "text/delim",
            "Sender": "GAMESERVER", "Receiver": f"{host}:{port}"})
        response = connection.getresponse()
        text = response.read(_MAX_ANSWER).decode("utf-8", "replace").strip()
        if response.status != 200:
            raise ConnectionError(f"HTTP {response.status}: {text[:120]}")
        return text
    finally:
        connection.close()


def _address(player: str) -> tuple[str, int]:
    host, _, port = player.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"a player is HOST:PORT, got {player!r}")
    return host, int(port)


def _ask_all(pool: concurrent.futures.ThreadPoolExecutor, players: Sequence[str],
             bodies: Sequence[str], timeout: float) -> list[tuple[str, str, float]]:
    """Send each player its message at once; per player (answer, error, milliseconds):
    error "" with the answer, "TO" past the timeout, "CE" for a failed connection."""
    start = time.monotonic()
    futures = [pool.submit(_post, *_address(p), body, timeout + 1.0)
               for p, body in zip(players, bodies, strict=True)]
    results = []
    for future in futures:
        remaining = max(start + timeout - time.monotonic(), 0.0)
        try:
            text = future.result(timeout=remaining)
            results.append((text, "", (time.monotonic() - start) * 1e3))
        except TimeoutError:  # the wait's, or the socket's (concurrent.futures' is this one)
            results.append(("", "TO", timeout * 1e3))
        except (OSError, http.client.HTTPException) as error:
            results.append((f"{type(error).__name__}: {error}"[:200], "CE",
                            (time.monotonic() - start) * 1e3))
    return results


def run_match(game: Game, rules: str, players: Sequence[str], *, match_id: str,
              start_clock: float, play_clock: float, game_name: str = "",
              record_states: bool = False, max_steps: int = 1000, seed: int = 0,
              on_step: Callable[[MatchRecord], None] | None = None) -> MatchRecord:
    """Play one match: ``players[r]`` (host:port) plays ``game.roles[r]``.

    Args:
        game: The game, for legality and states (the manager's own reasoner).
        rules: The rules as sent to the players.
        start_clock, play_clock: Seconds.
        record_states: Keep each state's fluents in the record.
        max_steps: Joint moves after which the match is stopped unfinished.
        seed: Seeds the random moves that replace failed answers.
    """
    if len(players) != len(game.roles):
        raise ValueError(f"the game has {len(game.roles)} roles but {len(players)} players "
                         "were given")
    rng = random.Random(f"{seed}/{match_id}")
    record = MatchRecord(match_id, game_name, list(game.roles), list(players), start_clock,
                         play_clock, states=[] if record_states else None)
    began = time.monotonic()
    state, info = game.initial()
    with concurrent.futures.ThreadPoolExecutor(2 * len(players)) as pool:
        starts = [write_message("start", match_id, role=role, rules=rules,
                                start_clock=start_clock, play_clock=play_clock)
                  for role in game.roles]
        record.start_errors = [error for _, error, _ in
                               _ask_all(pool, players, starts, start_clock + LATE_SECONDS)]
        last: tuple[str, ...] | None = None
        while not info.terminal and len(record.moves) < max_steps:
            if record.states is not None:
                record.states.append(sorted(state.fluents))
            body = write_message("play", match_id, moves=last)
            answers = _ask_all(pool, players, [body] * len(players),
                               play_clock + LATE_SECONDS)
            joint, texts, errors, said, times = [], [], [], [], []
            for r, (answer, error, ms) in enumerate(answers):
                legal = info.legal[r]
                move = _legal_move(game, r, answer, legal) if not error else None
                if move is None:
                    error = error or "IL"
                    move = rng.choice(legal)
                joint.append(move)
                texts.append(game.move_texts[move])
                errors.append(error)
                said.append(answer[:200])
                times.append(round(ms, 1))
            record.moves.append(texts)
            record.errors.append(errors)
            record.answers.append(said)
            record.answer_ms.append(times)
            state, info = game.step(state, tuple(joint), check_legal=False)
            last = tuple(texts)
            if on_step is not None:
                on_step(record)
        if record.states is not None:
            record.states.append(sorted(state.fluents))
        record.goals = [info.goal(r) for r in range(len(game.roles))]
        record.terminal = info.terminal
        _ask_all(pool, players, [write_message("stop", match_id, moves=last)] * len(players),
                 play_clock)
    record.seconds = round(time.monotonic() - began, 3)
    return record


def _legal_move(game: Game, role: int, answer: str, legal: Sequence[int]) -> int | None:
    """The legal move an answer names (its first term), or None."""
    try:
        move = game.move_id(game.roles[role], first_term(answer))
    except (ProtocolError, ReasonerError):
        return None
    return move if move in legal else None


@dataclass
class PlayerTally:
    """One player's results over matches."""

    player: str
    matches: int = 0
    goal_sum: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    errors: int = 0  # moves replaced (IL, TO, CE), and failed starts

    @property
    def mean_goal(self) -> float:
        return self.goal_sum / self.matches if self.matches else 0.0


def tally(records: Sequence[MatchRecord]) -> list[PlayerTally]:
    """Each player's results over the records, in the order players first appear."""
    found: dict[str, PlayerTally] = {}
    for record in records:
        for seat, player in enumerate(record.players):
            entry = found.setdefault(player, PlayerTally(player))
            entry.matches += 1
            goal = record.goals[seat]
            entry.goal_sum += goal if goal is not None else 0
            ended = outcome(record.goals, seat)
            entry.wins += ended == Outcome.WIN
            entry.draws += ended == Outcome.DRAW
            entry.losses += ended == Outcome.LOSS
            entry.errors += sum(1 for step in record.errors if step[seat])
            entry.errors += bool(record.start_errors and record.start_errors[seat])
    return list(found.values())


def save(record: MatchRecord, folder: Path) -> Path:
    """Write a record as ``folder/MATCHID.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record.match_id}.json"
    path.write_text(record.to_json() + "\n", encoding="utf-8")
    return path


def seats(players: Sequence[str], match: int) -> list[str]:
    """The player of each role in match ``match`` (from 0): seats rotate."""
    n = len(players)
    return [players[(r + match) % n] for r in range(n)]


def ping(player: str, timeout: float = 5.0) -> str:
    """A player's status from ``(info)``: ``available``, ``busy``, or what it said; an
    old player's bare ``available`` is read too."""
    text = _post(*_address(player), write_message("info"), timeout)
    lowered = text.lower()
    for status in ("available", "busy"):
        if lowered == status or f"(status {status})" in " ".join(lowered.split()):
            return status
    return text[:80]

