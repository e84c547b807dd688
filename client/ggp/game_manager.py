"""A game manager: runs matches between GGP players over HTTP (docs/semantics/match-protocol.md), as
GGP-Base's GameServer does, and records them.

Each message is one POST on a new connection, written as GGP-Base writes it. A player's
answer to ``play`` is the first term of its body; one that is not a legal move (``IL``),
comes after the play clock and one second (``TO``) or not at all (``CE``: refused, closed,
an HTTP error) is replaced by a random legal move, and the error is recorded with the
step. ``play`` and ``stop`` carry the moves actually applied. Seats rotate over matches:
in match ``k`` (from 0) role ``r`` is played by the player ``(r + k) mod n``. A player's
wins, draws and losses are :func:`reasoner.core.outcome.outcome`'s.

A GDL-II game (``sees`` rules or a ``random`` role) is played as GDL-II's protocol has it:
the manager plays ``random`` itself (uniformly, seeded), players seat only the other roles,
and each player is told its own last move and its own percepts, never the joint move
(``(play MATCHID TURN LASTMOVE PERCEPTS)``, see :mod:`client.ggp.messages`).

A :class:`WebPublisher` shows the matches on the web page (``gdl-reasoner web``) as they are
played: ``manage --web URL`` publishes each match's record at its start, after every step
and at its end.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from client.ggp.messages import ProtocolError, first_term, write_message
from reasoner.core.game_view import seated_roles
from reasoner.core.outcome import Outcome, outcome
from reasoner.engine.game import Game
from reasoner.errors import ReasonerError

__all__ = ["RANDOM_SEAT", "MatchRecord", "PlayerTally", "WebPublisher", "ping", "run_match",
           "save", "seated_roles", "seats", "tally"]

# The player recorded for GDL-II's random role, which the manager plays itself.
RANDOM_SEAT = "random (the manager)"

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
              on_start: Callable[[MatchRecord], object] | None = None,
              on_step: Callable[[MatchRecord], object] | None = None) -> MatchRecord:
    """Play one match: ``players[r]`` (host:port) plays ``game.roles[r]``.

    Args:
        game: The game, for legality and states (the manager's own reasoner).
        rules: The rules as sent to the players.
        start_clock, play_clock: Seconds.
        record_states: Keep each state's fluents in the record.
        max_steps: Joint moves after which the match is stopped unfinished.
        seed: Seeds the random moves that replace failed answers.
        on_start: Called with the record before the players are sent ``start`` (no moves
            yet).
        on_step: Called with the record after every joint move.
    """
    seated = seated_roles(game)
    if len(players) != len(seated):
        raise ValueError(f"the game has {len(seated)} roles to seat but {len(players)} players "
                         "were given")
    gdl2 = game.is_gdl2
    by_role = dict(zip(seated, players, strict=True))
    everyone = [by_role.get(r, RANDOM_SEAT) for r in range(len(game.roles))]
    rng = random.Random(f"{seed}/{match_id}")
    record = MatchRecord(match_id, game_name, list(game.roles), everyone, start_clock,
                         play_clock, states=[] if record_states else None)
    began = time.monotonic()
    state, info = game.initial()
    if on_start is not None:
        on_start(record)
    seated_players = [by_role[r] for r in seated]
    with concurrent.futures.ThreadPoolExecutor(2 * len(players) + 1) as pool:
        starts = [write_message("start", match_id, role=game.roles[r], rules=rules,
                                start_clock=start_clock, play_clock=play_clock)
                  for r in seated]
        started = _ask_all(pool, seated_players, starts, start_clock + LATE_SECONDS)
        found = dict(zip(seated, (error for _, error, _ in started), strict=True))
        record.start_errors = [found.get(r, "") for r in range(len(game.roles))]
        last: tuple[str, ...] | None = None
        seen: list[tuple[str, ...]] = [() for _ in game.roles]  # GDL-II: last percepts
        while not info.terminal and len(record.moves) < max_steps:
            if record.states is not None:
                record.states.append(sorted(state.fluents))
            turn = len(record.moves)
            bodies = [_play_message("play", match_id, last, turn, r, seen, gdl2)
                      for r in seated]
            asked = dict(zip(seated, _ask_all(pool, seated_players, bodies,
                                             play_clock + LATE_SECONDS), strict=True))
            joint, texts, errors, said, times = [], [], [], [], []
            for r in range(len(game.roles)):
                legal = info.legal[r]
                if r not in asked:  # random: the manager's uniform draw
                    move = rng.choice(legal)
                    answer, error, ms = game.move_texts[move], "", 0.0
                else:
                    answer, error, ms = asked[r]
                    named = _legal_move(game, r, answer, legal) if not error else None
                    if named is None:
                        error = error or "IL"
                        named = rng.choice(legal)
                    move = named
                joint.append(move)
                texts.append(game.move_texts[move])
                errors.append(error)
                said.append(answer[:200])
                times.append(round(ms, 1))
            record.moves.append(texts)
            record.errors.append(errors)
            record.answers.append(said)
            record.answer_ms.append(times)
            if gdl2:
                percepts = game.percept_ids(state, tuple(joint))
                table = game.percept_table
                seen = [tuple(table[i][1] for i in ids) for ids in percepts]
            state, info = game.step(state, tuple(joint), check_legal=False)
            last = tuple(texts)
            if on_step is not None:
                on_step(record)
        if record.states is not None:
            record.states.append(sorted(state.fluents))
        record.goals = [info.goal(r) for r in range(len(game.roles))]
        record.terminal = info.terminal
        stops = [_play_message("stop", match_id, last, len(record.moves), r, seen, gdl2)
                 for r in seated]
        _ask_all(pool, seated_players, stops, play_clock)
    record.seconds = round(time.monotonic() - began, 3)
    return record


def _play_message(kind: str, match_id: str, last: tuple[str, ...] | None, turn: int,
                  role: int, seen: Sequence[tuple[str, ...]], gdl2: bool) -> str:
    """Play or stop for the player of ``role``: GDL's with the joint move, or GDL-II's with
    its own last move and percepts only."""
    if not gdl2:
        return write_message(kind, match_id, moves=last)
    return write_message(kind, match_id, turn=turn,
                         last_move=None if last is None else last[role],
                         percepts=seen[role])


class WebPublisher:
    """Publishes matches to the web page's feed (``POST URL/api/feed``, :mod:`reasoner.web`):
    ``{"record": ..., "rules": ..., "final": ...}``, the record as :func:`dataclasses.asdict`
    writes it.

    A message carries the rules until the page has taken one of its match (and again after
    a failure, so that a page started or restarted meanwhile learns the game). A failure
    (refused, an HTTP error, past ``timeout``) never stops the match: the first is one
    warning line on stderr, naming the URL and the reason; later ones pass quietly, and
    each message is tried again as it comes. The page is reached directly, never through a
    proxy of the environment, as the players are.
    """

    def __init__(self, url: str, token: str | None = None, timeout: float = 5.0) -> None:
        """Args:
            url: The page's base URL (``http://127.0.0.1:8080``).
            token: The page's token, sent as ``X-Token``.
            timeout: Seconds a message may take (each of its connection's waits).

        Raises:
            ValueError: ``url`` is not an http or https URL with a host.
        """
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the page's URL is http://HOST:PORT, got {url!r}")
        self.url = url.rstrip("/") + "/api/feed"
        self.token = token
        self.timeout = timeout
        self.sent = 0  # messages the page took
        self.failures = 0
        self._taken: set[str] = set()  # match ids the page has taken a message of
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def publish(self, record: MatchRecord, rules: str, final: bool = False) -> bool:
        """Send the record as it stands (``final``: the match is over); whether the page
        took it."""
        message: dict[str, object] = {"record": asdict(record), "final": final}
        if record.match_id not in self._taken:
            message["rules"] = rules
        headers = {"Content-Type": "application/json"}
        if self.token is not None:
            headers["X-Token"] = self.token
        request = urllib.request.Request(self.url, data=json.dumps(message).encode("utf-8"),
                                         headers=headers, method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                response.read(_MAX_ANSWER)
        except urllib.error.HTTPError as error:
            self._failed(record, f"HTTP {error.code}: {_said(error)}")
            return False
        except urllib.error.URLError as error:
            self._failed(record, str(error.reason))
            return False
        except (OSError, http.client.HTTPException, ValueError) as error:
            self._failed(record, f"{type(error).__name__}: {error}")
            return False
        self._taken.add(record.match_id)
        self.sent += 1
        return True

    def _failed(self, record: MatchRecord, reason: str) -> None:
        self._taken.discard(record.match_id)
        self.failures += 1
        if self.failures == 1:
            print(f"cannot publish to {self.url}: {reason[:200]} (the matches go on; later "
                  "failures are not shown)", file=sys.stderr, flush=True)


def _said(error: urllib.error.HTTPError) -> str:
    """The page's error message (its JSON's ``error``), or the start of the body."""
    try:
        text = error.read(_MAX_ANSWER).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return str(error.reason)
    try:
        said = json.loads(text).get("error")
    except (ValueError, AttributeError):
        said = None
    return str(said) if said else (text.strip()[:120] or str(error.reason))


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
            if player == RANDOM_SEAT:
                continue
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

