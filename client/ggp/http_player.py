"""A GGP player over HTTP: answers a game manager's messages (docs/semantics/match-protocol.md) with
a search player of :mod:`client.players` behind it.

:class:`GgpPlayer` holds the matches and answers each message's text (no transport);
:func:`serve_player` puts it behind an HTTP server that speaks as GGP-Base's GameServer and
Dresden's GameController expect (``POST /`` with the message as the body, the answer as
``text/acl``; CORS for managers in a browser).

What it does with each message:

* ``start``: reads the rules with the project's GDL reader (upper-case and scrambled games
  included), in process within bounds of time and memory or on a reasoner service, starts
  the player, and spends what is left of the start clock searching the initial state (the
  search's tables are kept for the match). Rules that cannot be read: a log line and
  HTTP 400 naming the error. A second match while one runs: ``busy``, unless the one
  running has heard nothing for its clocks and ten seconds more (a manager that never sent
  ``stop``): then it is dropped and the new one starts.
* ``play``: applies the last joint move, draws a legal move at random *before* the search
  starts, and answers the search's move when it comes within the play clock minus the
  margin, else the drawn one (a log line says so). Moves are answered in the spelling the
  rules use (GGP-Base compares them case-sensitively).
* ``preview``: loads the rules as ``start`` does (the same bounds of time and memory), one
  preview at a time and only while no match runs; another meanwhile answers ``busy`` at once.
* ``stop`` and ``abort`` end the match and log its goals.

A GDL-II game (``sees`` rules or a ``random`` role) is played from what the role knows: the
GDL-II forms of ``play`` and ``stop`` bring its last move and percepts, which the match
keeps as its history, and the move comes from states sampled consistent with that history
(:class:`client.players.sampling.SamplingPlayer`, whatever the strategy). A GDL message for
a GDL-II match, or the reverse, is answered with HTTP 400 and the reason.

The HTTP side bounds what connections may hold: a listen backlog that absorbs a manager's
bursts (:data:`LISTEN_BACKLOG`), a deadline for each request's headers and body to arrive
(:data:`REQUEST_SECONDS`; past it ``408`` and the connection is closed), and a cap on the
connections served at once (:data:`MAX_CONNECTIONS`; past it, once no place frees within
about a second, a new connection is answered ``503`` and closed).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import io
import itertools
import logging
import math
import random
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from client.ggp.messages import Message, ProtocolError, read_message
from client.players.player import Player
from client.players.sampling import InformationGame, SamplingPlayer
from client.players.strategies import STRATEGIES, make_player
from client.reasoner_client import ReasonerClient
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo
from reasoner.errors import ReasonerError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["LISTEN_BACKLOG", "MAX_CONNECTIONS", "REQUEST_SECONDS", "STRATEGIES", "GgpPlayer",
           "make_player", "serve_player"]

log = logging.getLogger("gdl-reasoner.player")

# A match that has heard nothing for its clocks and this many seconds more is dropped when
# another starts (its manager never sent stop).
STALE_SECONDS = 10.0
# The largest message read (a game's rules; the corpus's largest is about 0.3 MB).
MAX_BODY = 16 * 2**20
_GAMES_KEPT = 8
# Ended matches remembered (so that a late message for one is answered as such).
_ENDED_KEPT = 256
# Connections the kernel queues before they are accepted (a manager's burst: the old 5
# dropped connections, which then waited for TCP's retries, 1 s, 3 s, 7 s...).
LISTEN_BACKLOG = 512
# Seconds a request's line, headers and body have to arrive in (a manager sends a message at
# once; a connection that drips it would hold its thread).
REQUEST_SECONDS = 10.0
# Connections served at once (a thread each).
MAX_CONNECTIONS = 64
# How long a new connection past the cap waits for a place before its 503 (a burst of quick
# messages frees places at once; connections held to their deadline do not).
_FULL_WAIT = 1.0


class _Spelling:
    """The names of a game as its rules write them, by their lower-case form: a move that
    the reader lower-cased is answered as the rules spell it."""

    def __init__(self, rules: str) -> None:
        self._names: dict[str, str] = {}
        for name in re.findall(r"[^\s();]+", re.sub(r";[^\n]*", " ", rules)):
            if not name.startswith("?"):
                self._names.setdefault(name.lower(), name)

    def __call__(self, text: str) -> str:
        return re.sub(r"[^\s()]+", lambda m: self._names.get(m.group(0), m.group(0)), text)


@dataclass
class _Match:
    """One match as this player sees it (an ended match keeps its id, so that a late
    message for it is answered as such)."""

    id: str
    role: str
    start_clock: float
    play_clock: float
    last_seen: float
    game: GameView[Any] | None = None
    role_index: int = 0
    player: Player | None = None
    state: Any = None
    info: StateInfo | None = None
    spelling: _Spelling | None = None
    finished: bool = False
    steps: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Set once the game is loaded and the player started; the moves of plays that came
    # before wait in ``pending``.
    ready: threading.Event = field(default_factory=threading.Event)
    pending: list[tuple[str, ...] | None] = field(default_factory=list)
    search: concurrent.futures.ThreadPoolExecutor = field(
        default_factory=lambda: concurrent.futures.ThreadPoolExecutor(1))
    log_file: Path | None = None
    # GDL-II: the game is one, and the role's (move, percepts) per turn so far.
    gdl2: bool = False
    history: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    sampler: SamplingPlayer | None = None  # its particles live as long as the match
    answered: dict[int, str] = field(default_factory=dict)  # per turn, the move answered
    refused: dict[int, str] = field(default_factory=dict)  # per turn, one the manager replaced

    def end(self) -> None:
        """The match is over (stopped, aborted, dropped or never started): its search
        thread goes, after the search in progress, if any."""
        self.finished = True
        self.search.shutdown(wait=False, cancel_futures=True)
        self.player = None  # its search tables (a tree, a transposition table) go with it

    def note(self, line: str, level: int = logging.INFO) -> None:
        log.log(level, "match %s: %s", self.id, line)
        if self.log_file is not None:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
            with self.log_file.open("a", encoding="utf-8") as out:
                out.write(f"{stamp} {line}\n")


class GgpPlayer:
    """The matches of one player program, and its answer to each message."""

    def __init__(self, strategy: str = "mcts", *, server: str | None = None,
                 seed: int = 0, margin: float = 0.5, name: str = "gdl-reasoner",
                 max_matches: int = 1, log_dir: Path | None = None,
                 load_memory_mb: int = 4096, load_seconds: float = 60.0,
                 stale_seconds: float = STALE_SECONDS,
                 players: Callable[[str, random.Random], Player] = make_player,
                 loader: Callable[[str, float], GameView[Any]] | None = None) -> None:
        """Args:
            strategy: One of :data:`STRATEGIES`.
            server: A reasoner service (host:port) to play through; None: in process.
            seed: Seeds each match's player (with the match id).
            margin: Seconds before the end of a clock by which the answer is sent
                (at most a quarter of the clock).
            name: The name ``info`` answers.
            max_matches: Matches played at once; one more start is answered ``busy``.
            log_dir: A folder for one log file per match (besides the logger).
            load_memory_mb: Memory bound of an in-process load.
            load_seconds: Time bound of a load when the start clock is shorter (a load
                may outlast the start clock: plays before it ends are refused and their
                moves kept).
            stale_seconds: A match silent for its clocks and this long is dropped when
                another starts.
            players: Makes the player of a strategy (for other strategies than these).
            loader: Loads the game of a text within seconds (default: the reasoner in
                process, or on ``server``).
        """
        make_player(strategy, random.Random(0))  # refuses an unknown strategy now
        self.strategy = strategy
        self.seed = seed
        self.margin = margin
        self.name = name
        self.max_matches = max_matches
        self.log_dir = log_dir
        self.load_memory_mb = load_memory_mb
        self.load_seconds = load_seconds
        self.stale_seconds = stale_seconds
        self._players = players
        self._loader = loader
        self._client = ReasonerClient(server, timeout=None) if server else None
        self._matches: dict[str, _Match] = {}
        self._games: OrderedDict[str, GameView[Any]] = OrderedDict()
        self._lock = threading.Lock()
        self._previewing = threading.Lock()  # held by the one preview that loads

    def close(self) -> None:
        with self._lock:
            for match in self._matches.values():
                match.end()
        if self._client is not None:
            self._client.close()

    # -- answers ---------------------------------------------------------------------------

    def answer(self, body: str) -> tuple[int, str]:
        """The HTTP status and answer to one message's text."""
        received = time.monotonic()
        try:
            message = read_message(body)
        except ProtocolError as error:
            log.warning("refused a message: %s (%r)", error, body[:200])
            return 400, f"error: {error}"
        try:
            if message.kind == "info":
                status = "busy" if self._busy() else "available"
                return 200, f"((name {self.name}) (status {status}))"
            if message.kind == "preview":
                return self._preview(message)
            if message.kind == "start":
                return self._start(message, received)
            if message.kind == "play":
                return self._play(message, received)
            if message.kind == "stop":
                return self._stop(message)
            return self._abort(message)
        except (ReasonerError, ProtocolError) as error:
            log.warning("%s %s: %s: %s", message.kind, message.match_id,
                        type(error).__name__, error)
            return 400, f"error: {type(error).__name__}: {error}"

    def _busy(self) -> bool:
        with self._lock:
            return self._running() >= self.max_matches

    def _running(self) -> int:
        """Matches running (the lock held); drops those whose manager went silent."""
        now = time.monotonic()
        for match in self._matches.values():
            silent = now - match.last_seen
            if not match.finished and silent > (match.start_clock + match.play_clock
                                                 + self.stale_seconds):
                match.end()
                match.note(f"dropped: no message for {silent:.0f} s (the manager sent no "
                           "stop)", logging.WARNING)
        return sum(not m.finished for m in self._matches.values())

    def _clock_margin(self, clock: float) -> float:
        return min(self.margin, clock / 4)

    def _load_bound(self, clock: float) -> float:
        """Seconds a load may take: the clock less the margin, and ``load_seconds`` at
        least (a load may outlast a short clock)."""
        return max(clock - self._clock_margin(clock), self.load_seconds)

    def _preview(self, message: Message) -> tuple[int, str]:
        """Load the rules as a start would (the same bounds), one preview at a time and
        only while no match runs; otherwise ``busy`` at once (three previews of games that
        explode when grounded once loaded together, 5.5 GB)."""
        if self._busy() or not self._previewing.acquire(blocking=False):
            log.info("preview: busy (a match or another preview is under way); not loaded")
            return 200, "busy"
        try:
            self._game_for(message.rules, self._load_bound(message.start_clock))
        finally:
            self._previewing.release()
        return 200, "ready"

    def _start(self, message: Message, received: float) -> tuple[int, str]:
        match = _Match(message.match_id, message.role, message.start_clock,
                       message.play_clock, received)
        with self._lock:
            known = self._matches.get(message.match_id)
            if known is not None and not known.finished:
                return 200, "ready"  # the same start again
            if self._running() >= self.max_matches:
                log.info("busy: refused match %s", message.match_id)
                return 200, "busy"
            self._matches[match.id] = match  # holds the place while the game loads
            ended = [m.id for m in self._matches.values() if m.finished]
            for old in ended[:max(len(ended) - _ENDED_KEPT, 0)]:
                del self._matches[old]
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            safe = re.sub(r"[^A-Za-z0-9._-]", "_", message.match_id)[:100]
            match.log_file = self.log_dir / f"{safe}.log"
        try:
            self._begin(match, message, received)
        except Exception as error:
            match.end()
            match.note(f"not started: {type(error).__name__}: {error}", logging.WARNING)
            raise
        return 200, "ready"

    def _begin(self, match: _Match, message: Message, received: float) -> None:
        margin = self._clock_margin(message.start_clock)
        match.note(f"start as {message.role}, start clock {message.start_clock:g} s, "
                   f"play clock {message.play_clock:g} s, strategy {self.strategy}")
        game = self._game_for(message.rules, self._load_bound(message.start_clock))
        roles = {role.lower(): i for i, role in enumerate(game.roles)}
        index = roles.get(message.role.lower())
        if index is None:
            raise ProtocolError(f"role {message.role!r} is not a role of the game "
                                f"({', '.join(game.roles)})")
        match.game, match.role_index = game, index
        match.spelling = _Spelling(message.rules)
        digest = hashlib.sha256(f"{self.seed}/{match.id}".encode()).hexdigest()
        match.gdl2 = bool(getattr(game, "is_gdl2", False))
        if match.gdl2:
            match.sampler = SamplingPlayer(random.Random(digest))
            with match.lock:
                match.state, match.info = game.initial()
                match.ready.set()
            match.note(f"ready: a GDL-II game, played from sampled states "
                       f"({time.monotonic() - received:.2f} s)")
            return
        match.player = self._players(self.strategy, random.Random(digest))
        match.player.start(game, index)
        with match.lock:
            match.state, match.info = game.initial()
            for moves in match.pending:  # plays that came while the game loaded
                self._apply(match, moves)
            match.pending.clear()
            match.ready.set()
        deadline = received + message.start_clock - margin
        if len(match.info.legal[index]) > 1 and deadline - time.monotonic() > 0.2:
            # Analysis: the search's tables (a tree, a transposition table, a plan) are kept.
            future = match.search.submit(match.player.choose, match.state, match.info,
                                         deadline)
            try:
                future.result(timeout=max(deadline - time.monotonic(), 0) + margin / 2)
            except concurrent.futures.TimeoutError:
                match.note("the search of the start clock ran late", logging.WARNING)
        match.note(f"ready ({time.monotonic() - received:.2f} s)")

    def _game_for(self, rules: str, seconds: float) -> GameView[Any]:
        """The game of ``rules``: loaded once, kept for the next matches."""
        key = hashlib.sha256(rules.encode("utf-8", "replace")).hexdigest()
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
                return found
        game: GameView[Any]
        if self._loader is not None:
            game = self._loader(rules, seconds)
        elif self._client is not None:
            game = self._client.load_game(rules)
        else:
            from reasoner.engine.game import Game
            from reasoner.engine.limits import Limits

            game = Game.from_gdl(rules, limits=Limits(
                seconds=seconds, memory_mb=self.load_memory_mb, start_method="forkserver"))
        with self._lock:
            self._games[key] = game
            while len(self._games) > _GAMES_KEPT:
                self._games.popitem(last=False)
        return game

    def _match(self, message: Message) -> _Match | None:
        with self._lock:
            match = self._matches.get(message.match_id)
        if match is not None:
            match.last_seen = time.monotonic()
        return match

    def _apply(self, match: _Match, moves: tuple[str, ...] | None) -> None:
        """Play the joint move the manager applied."""
        if moves is None:
            return
        game = match.game
        assert game is not None and match.info is not None
        if len(moves) != len(game.roles):
            raise ProtocolError(f"{len(moves)} moves for {len(game.roles)} roles")
        joint = tuple(game.move_id(role, text)
                      for role, text in zip(game.roles, moves, strict=True))
        match.state, match.info = game.step(match.state, joint)
        match.steps += 1

    def _play(self, message: Message, received: float) -> tuple[int, str]:
        match = self._match(message)
        if match is None:
            log.warning("play for unknown match %s", message.match_id)
            return 400, f"error: no match {message.match_id}"
        if match.finished:
            match.note("play after the match ended", logging.WARNING)
            return 400, f"error: match {message.match_id} has ended"
        margin = self._clock_margin(match.play_clock)
        deadline = received + match.play_clock - margin
        match.ready.wait(max(deadline - time.monotonic(), 0))
        if match.ready.is_set() and match.gdl2 != message.gdl2:
            return self._wrong_protocol(match, message)
        if match.gdl2:
            return self._play_gdl2(match, message, received, deadline)
        with match.lock:
            if not match.ready.is_set():
                # The game still loads (its start clock was too short for it): keep the
                # moves for when it is loaded; the manager plays a move for this one.
                match.pending.append(message.moves)
                match.note("a play while the game still loads", logging.WARNING)
                return 400, f"error: the game of match {message.match_id} is still loading"
            player = match.player
            if match.finished or player is None:
                return 400, f"error: match {message.match_id} has ended"
            self._apply(match, message.moves)
            info, game = match.info, match.game
            assert info is not None and game is not None and match.spelling is not None
            if info.terminal:
                match.note("play in a terminal state", logging.WARNING)
                return 400, f"error: match {message.match_id} is in a terminal state"
            legal = info.legal[match.role_index]
            if not legal:
                match.note("no legal move in a non-terminal state", logging.WARNING)
                return 400, "error: no legal move"
            fallback = random.Random(f"{match.id}/{match.steps}").choice(legal)
            move = fallback
            if len(legal) > 1:
                try:
                    future = match.search.submit(player.choose, match.state, info,
                                                 deadline - margin / 2)
                    move = future.result(timeout=max(deadline - time.monotonic(), 0))
                except concurrent.futures.TimeoutError:
                    match.note(f"step {match.steps + 1}: the search ran past the clock; "
                               "played the move drawn before it", logging.WARNING)
                except Exception as error:  # the search failed: the drawn move stands
                    match.note(f"step {match.steps + 1}: the search failed "
                               f"({type(error).__name__}: {error}); played the move drawn "
                               "before it", logging.WARNING)
                if move not in legal:
                    match.note(f"step {match.steps + 1}: the search chose an illegal move",
                               logging.WARNING)
                    move = fallback
            text = match.spelling(game.move_texts[move])
            match.note(f"step {match.steps + 1}: {text} "
                       f"({time.monotonic() - received:.2f} s)")
            return 200, text

    def _wrong_protocol(self, match: _Match, message: Message) -> tuple[int, str]:
        said = "GDL-II's" if message.gdl2 else "GDL's"
        wanted = ("(play MATCHID TURN LASTMOVE PERCEPTS)" if match.gdl2
                  else "(play MATCHID MOVES)")
        reason = (f"a {message.kind} in {said} form for a "
                  f"{'GDL-II' if match.gdl2 else 'GDL'} match: expected {wanted}")
        match.note(reason, logging.WARNING)
        return 400, f"error: {reason}"

    def _remember(self, match: _Match, message: Message) -> str | None:
        """Take a GDL-II message's last move and percepts into the history; the reason
        where its turn does not follow the history."""
        turn = message.turn or 0
        if turn == len(match.history) + 1 and message.last_move is not None:
            played = len(match.history)
            mine = match.answered.get(played)
            if mine is not None and mine.lower() != message.last_move.lower():
                match.refused[played] = mine
                match.note(f"turn {played}: the manager executed {message.last_move}, not "
                           f"{mine}: the true state did not allow it", logging.WARNING)
            match.history.append((message.last_move, message.percepts))
        elif turn != len(match.history):
            return f"turn {turn} after {len(match.history)} turns"
        return None

    def _play_gdl2(self, match: _Match, message: Message, received: float,
                   deadline: float) -> tuple[int, str]:
        with match.lock:
            if not match.ready.is_set():
                return 400, f"error: the game of match {message.match_id} is still loading"
            if match.finished:
                return 400, f"error: match {message.match_id} has ended"
            wrong = self._remember(match, message)
            if wrong is not None:
                match.note(wrong, logging.WARNING)
                return 400, f"error: {wrong}"
            game, chooser = match.game, match.sampler
            assert game is not None and chooser is not None and match.spelling is not None
            future = match.search.submit(chooser.choose, cast(InformationGame, game),
                                         match.role_index, list(match.history),
                                         deadline - self.margin / 2, dict(match.refused))
            try:
                move = future.result(timeout=max(deadline - time.monotonic(), 0) + 0.05)
            except concurrent.futures.TimeoutError:
                match.note(f"turn {len(match.history)}: the search ran past the clock",
                           logging.WARNING)
                return 400, "error: no move within the play clock"
            except ReasonerError as error:
                match.note(f"turn {len(match.history)}: {error}", logging.WARNING)
                return 400, f"error: {type(error).__name__}: {error}"
            match.steps = len(match.history)
            match.answered[match.steps] = game.move_texts[move]
            text = match.spelling(game.move_texts[move])
            match.note(f"turn {match.steps}: {text} ({time.monotonic() - received:.2f} s)")
            return 200, text

    def _stop(self, message: Message) -> tuple[int, str]:
        match = self._match(message)
        if match is None:
            log.warning("stop for unknown match %s", message.match_id)
            return 200, "done"
        if match.gdl2 or message.gdl2:
            with match.lock:
                if match.gdl2 and message.gdl2 and not match.finished:
                    self._remember(match, message)
                    match.note(f"stopped after {len(match.history)} turns (GDL-II: the "
                               "goals are the manager's to tell)")
                match.end()
            return 200, "done"
        with match.lock:
            if not match.finished and match.game is not None:
                try:
                    self._apply(match, message.moves)
                except (ReasonerError, ProtocolError) as error:
                    match.note(f"the last moves could not be applied: {error}",
                               logging.WARNING)
                assert match.info is not None
                goals = ", ".join(f"{role} {match.info.goal(i)}"
                                  for i, role in enumerate(match.game.roles))
                match.note(f"stopped after {match.steps} steps: {goals}")
            match.end()
        return 200, "done"

    def _abort(self, message: Message) -> tuple[int, str]:
        match = self._match(message)
        if match is None:
            log.warning("abort for unknown match %s", message.match_id)
        else:
            match.end()
            match.note(f"aborted after {match.steps} steps")
        return 200, "aborted"


# -- the HTTP side ---------------------------------------------------------------------------

_HEADERS = (("Content-Type", "text/acl"),
            ("Access-Control-Allow-Origin", "*"),
            ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
            ("Access-Control-Allow-Headers", "Content-Type"),
            ("Access-Control-Allow-Age", "86400"))

_requests = itertools.count()


class _DeadlineReader(io.RawIOBase):
    """A connection's socket read against one deadline for a whole request (not each read's
    own timeout, which a byte a second never reaches): past it a read raises TimeoutError."""

    def __init__(self, connection: socket.socket, idle_seconds: float) -> None:
        self._connection = connection
        self._idle_seconds = idle_seconds
        self.deadline = math.inf
        self.expired = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.expired = True
            raise TimeoutError("the request did not arrive in time")
        self._connection.settimeout(min(left, self._idle_seconds))
        try:
            return self._connection.recv_into(buffer)
        except TimeoutError:
            self.expired = self.deadline - time.monotonic() <= 0
            raise


def _handler(player: GgpPlayer, request_seconds: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "gdl-reasoner-player"
        timeout = 30  # a manager that does not read the answer does not hold its thread
        _reader: _DeadlineReader

        def setup(self) -> None:
            super().setup()
            self.rfile.close()
            self._reader = _DeadlineReader(self.connection, self.timeout)
            self.rfile = io.BufferedReader(self._reader)

        def handle_one_request(self) -> None:
            """One request, its line, headers and body read within ``request_seconds``;
            past them a 408 and the connection is closed."""
            self.requestline, self.request_version, self.command = "", "HTTP/1.0", ""
            self._reader.deadline = time.monotonic() + request_seconds
            self._reader.expired = False
            super().handle_one_request()
            if self._reader.expired:
                self.close_connection = True
                log.info("a request from %s did not arrive within %g s: closed (408)",
                         self.client_address[0], request_seconds)
                self.connection.settimeout(1.0)
                self._send(408, f"error: a request must arrive within {request_seconds:g} s")

        def _read(self) -> None:
            """The request has arrived: the answer may take its time (a start's clock)."""
            self._reader.deadline = math.inf
            self.connection.settimeout(self.timeout)

        def _send(self, status: int, text: str) -> None:
            data = text.encode("utf-8")
            try:
                self.send_response(status)
                for name, value in _HEADERS:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                # The manager stopped waiting (its clock ran out) and closed the connection.
                log.info("the manager closed the connection before the answer %r",
                         text[:80])

        def do_POST(self) -> None:
            length = self.headers.get("Content-Length")
            if length is None or not length.strip().isdigit():
                self._read()
                self._send(411, "error: a message needs a Content-Length")
                return
            if int(length) > MAX_BODY:
                self._read()
                self._send(413, f"error: messages are at most {MAX_BODY} bytes")
                return
            body = self.rfile.read(int(length)).decode("utf-8", "replace")
            self._read()
            try:
                status, text = player.answer(body)
            except Exception as error:  # never a dead connection for the manager
                log.exception("request %d failed", next(_requests))
                status, text = 500, f"error: {type(error).__name__}: {error}"
            self._send(status, text)

        def do_OPTIONS(self) -> None:
            self._read()
            self._send(200, "")

        def do_GET(self) -> None:
            self._read()
            self._send(200, player.answer("(info)")[1])

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s " + format, self.address_string(), *args)

    return Handler


_REFUSAL = (b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/acl\r\n"
            b"Content-Length: 27\r\nConnection: close\r\n\r\nerror: too many connections")


class _Server(ThreadingHTTPServer):
    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 max_connections: int) -> None:
        self.max_connections = max_connections
        self._places = threading.Condition()
        self._connections = 0
        self._full_since: float | None = None
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread of its own if one of ``max_connections``
        places is free or frees soon; else a 503 and it is closed."""
        with self._places:
            if self._connections >= self.max_connections:
                now = time.monotonic()
                if self._full_since is None:
                    self._full_since = now
                    log.warning("%d connections at once: new ones wait, then are refused",
                                self._connections)
                self._places.wait_for(lambda: self._connections < self.max_connections,
                                      max(self._full_since + _FULL_WAIT - now, 0))
            admitted = self._connections < self.max_connections
            if admitted:
                self._connections += 1
                self._full_since = None
        if not admitted:
            log.debug("refused a connection from %s (503)", client_address)
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release()

    def _release(self) -> None:
        with self._places:
            self._connections -= 1
            self._places.notify()

    def _refuse(self, request: socket.socket) -> None:
        try:
            request.setblocking(False)
            request.sendall(_REFUSAL)
            while request.recv(65536):  # what the client sent, so that closing is no reset
                pass
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed (a manager gone mid-answer) is a log line, not a
        traceback on stderr."""
        log.info("a connection from %s failed", client_address, exc_info=True)


def serve_player(player: GgpPlayer, host: str = "127.0.0.1", port: int = 9147, *,
                 request_seconds: float = REQUEST_SECONDS,
                 max_connections: int = MAX_CONNECTIONS) -> ThreadingHTTPServer:
    """An HTTP server for ``player``, bound and serving on a thread of its own; stop it
    with ``shutdown()`` (then ``server_close()``). Port 0 picks a free port
    (``server.server_address[1]``).

    Args:
        request_seconds: A request's line, headers and body arrive within this, or the
            connection is answered 408 and closed.
        max_connections: Connections served at once; past them (and about a second) a
            new connection is answered 503 and closed.
    """
    server = _Server((host, port), _handler(player, request_seconds), max_connections)
    threading.Thread(target=server.serve_forever, name="ggp-player", daemon=True).start()
    return server
