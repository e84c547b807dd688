"""The server's bounded cache of loaded games, keyed by content hash.

A game's id is the SHA-256 of its canonical GDL (parsed and printed back, so layout,
comments and, when reading case-insensitively, letter case do not matter) together with the
load options. Loading is therefore idempotent, and any replica computes the same id. The
cache is bounded in games and in bytes (each game weighed by
:func:`reasoner.server.footprint.estimated_bytes`, plus what the service keeps for it, such
as its built answer); past either bound the least recently used games are evicted, and a
client that still has the text simply loads it again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

from reasoner.asp.growth import Program
from reasoner.engine.backend import check_backend
from reasoner.engine.game import Game, ProbedLoad, probe_load, validate_rules
from reasoner.engine.limits import BoundedWork, Limits, run_bounded
from reasoner.engine.overrun import explain_overrun
from reasoner.errors import ResourceLimitError, UnknownGameError
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.printer import print_game
from reasoner.gdl.syntax import GameDescription
from reasoner.server.admission import HeavyGate
from reasoner.server.footprint import estimated_bytes

__all__ = ["DEFAULT_CACHE_BYTES", "GameRegistry", "LoadedGame", "game_id"]

T = TypeVar("T")


# How often a load waiting for the same game's load elsewhere asks whether it still lives.
_WAIT_SECONDS = 0.1
# The default bound of the cache in bytes (``serve --cache-mb``).
DEFAULT_CACHE_BYTES = 4096 * 2**20
# A text this long starts its bounded load before it is read here, and is read while the
# child loads it (merrills's instantiated game: 38 MB, read in 10 s); a shorter one is read
# first (within a quarter of a second), so that a malformed text, or a game loaded already
# under another spelling, starts no child.
READ_BESIDE_THE_CHILD = 1 << 20


@dataclass(frozen=True)
class LoadedGame:
    """A game in the registry, with its estimated bytes."""

    id: str
    game: Game
    bytes: int = 0


def _shortened(limits: Limits, seconds: float | None) -> Limits:
    """``limits`` with their time bound shortened to ``seconds`` (a request's deadline)."""
    if seconds is not None and seconds < limits.seconds:
        return dataclasses.replace(limits, seconds=max(seconds, 0.0))
    return limits


def _text_key(text: str, case_sensitive: bool, strict: bool, backend: str) -> str:
    """A hash of a text exactly as sent, with the load options."""
    digest = hashlib.sha256(f"{case_sensitive} {strict} {backend}\n".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def game_id(canonical_gdl: str, case_sensitive: bool, strict: bool = False,
            backend: str = "auto") -> str:
    """The content hash that names a game (with its load options: the same game on two
    backends is two games, as their seeded playouts differ)."""
    digest = hashlib.sha256()
    # "lenient=False" named the default reading when the default was strict; it still names
    # the default, which reads every game that the strict reading takes alike, so that the
    # ids of those games stay as they were.
    options = f"case_sensitive={case_sensitive} " + ("strict=True" if strict
                                                     else "lenient=False")
    if backend != "auto":
        options += f" backend={backend}"
    digest.update(f"gdl-reasoner/v1 {options}\n".encode())
    digest.update(canonical_gdl.encode("utf-8"))
    return digest.hexdigest()


class GameRegistry:
    """Thread-safe LRU cache of loaded games."""

    def __init__(self, max_games: int = 64, limits: Limits | None = None,
                 max_bytes: int = DEFAULT_CACHE_BYTES, gate: HeavyGate | None = None) -> None:
        self.gate = gate  # slots for heavy work (None: no admission control)
        self._max_games = max(1, max_games)
        self._max_bytes = max(1, max_bytes)
        self._limits = limits
        self._games: OrderedDict[str, LoadedGame] = OrderedDict()
        # Bytes the service keeps beside a game, by what they are (its answer, ...).
        self._extra: dict[str, dict[str, int]] = {}
        self._aliases: dict[str, str] = {}  # hash of a text as sent -> the id it gave
        self._lock = threading.Lock()
        # One lock per text being loaded, so that concurrent loads of one text load it once.
        self._loading: dict[str, threading.Lock] = {}

    def load(self, text: str, *, case_sensitive: bool = False, strict: bool = False,
             seconds: float | None = None, backend: str = "auto",
             check: Callable[[], None] | None = None) -> tuple[LoadedGame, bool]:
        """Load a game (or find it loaded); returns it and whether it was already loaded.

        ``seconds`` shortens the time bound for this load (a request's deadline); ``check``
        is called while the bounded load runs and may raise to stop it (a cancelled
        request: the child is killed at once; it is also asked while the load waits for a
        slot of the registry's gate, which a load that is not cached takes); ``strict``
        refuses what the default reading takes with a warning (see :meth:`Game.from_gdl`).

        Raises:
            GdlError: the text is not valid GDL.
            ResourceLimitError: grounding exceeded the registry's limits, the game alone
                would take more than the cache's bytes, or the "propnet" or "native" backend
                was asked for and the network exceeds its bounds (or the kernel's).
            ValueError: an unknown backend.
        """
        check_backend(backend)
        # The same text again is found by its own hash, without reading it; concurrent loads
        # of one text wait for the first, outside the heavy slots.
        raw = _text_key(text, case_sensitive, strict, backend)
        found = self._aliased(raw)
        if found is not None:
            return found, True
        with self._lock:
            gate = self._loading.setdefault(raw, threading.Lock())
        waited = time.monotonic()
        while not gate.acquire(timeout=_WAIT_SECONDS):  # the same text's load, elsewhere
            if check is not None:
                check()  # a waiter that gives up leaves the lock to the load it waits for
        try:
            found = self._aliased(raw)
            if found is not None:
                return found, True
            # Reading the rules is work that grows with them: it takes a slot too.
            with self.admit("LoadGame", check), ExitStack() as stack:
                work: BoundedWork[ProbedLoad] | None = None
                if self._limits is not None and len(text) >= READ_BESIDE_THE_CHILD:
                    work = stack.enter_context(self._start_load(
                        self._limits, text, case_sensitive, strict, backend, seconds, waited))
                start = time.perf_counter()
                description = parse_gdl(text, case_sensitive=case_sensitive)
                parse_ms = (time.perf_counter() - start) * 1e3
                ident = game_id(print_game(description), case_sensitive, strict, backend)
                with self._lock:
                    found = self._touch(ident)
                if found is None:  # (else the child, if one was started, is killed)
                    if self._limits is not None and work is None:
                        work = stack.enter_context(self._start_load(
                            self._limits, text, case_sensitive, strict, backend, seconds, waited))
                    result = self._load(ident, description, text, case_sensitive, strict,
                                        seconds, backend, check, parse_ms, work)
                else:
                    result = found, True
                self._alias(raw, ident)
                return result
        finally:
            with self._lock:
                if self._loading.get(raw) is gate:
                    del self._loading[raw]
            gate.release()

    def _aliased(self, raw: str) -> LoadedGame | None:
        """The loaded game a text with this hash gave, if it is still held."""
        with self._lock:
            ident = self._aliases.get(raw)
            return self._touch(ident) if ident is not None else None

    def _alias(self, raw: str, ident: str) -> None:
        """Remember which game a text gave (forgetting the texts of evicted games)."""
        with self._lock:
            self._aliases[raw] = ident
            if len(self._aliases) > 4 * self._max_games:
                self._aliases = {k: v for k, v in self._aliases.items() if v in self._games}

    @staticmethod
    def _start_load(limits: Limits, text: str, case_sensitive: bool, strict: bool,
                    backend: str, seconds: float | None,
                    waited: float) -> BoundedWork[ProbedLoad]:
        """The bounded child that loads the text (see :func:`probe_load`), under
        ``limits`` shortened to what the waits since ``waited`` left of ``seconds``."""
        if seconds is not None:
            seconds -= time.monotonic() - waited
        return BoundedWork(probe_load, (text, case_sensitive, strict, backend),
                           _shortened(limits, seconds))

    def _load(self, ident: str, description: GameDescription, text: str,
              case_sensitive: bool, strict: bool, seconds: float | None, backend: str,
              check: Callable[[], None] | None, parse_ms: float,
              work: BoundedWork[ProbedLoad] | None) -> tuple[LoadedGame, bool]:
        """The load that the cache did not have (see :meth:`load`): ``work`` is its
        bounded child, None where the registry has no limits (the load here is the
        one). The rules are validated here while the child loads them."""
        probed: ProbedLoad | None = None
        validated = validate_rules(description, strict)
        try:
            if work is not None:
                probed = work.result(check)
        except ResourceLimitError as error:
            # Name the relation that grew, unless the bound was the request's own
            # deadline, which has then passed.
            limits = self._limits
            if limits is None or (seconds is not None and seconds < limits.seconds):
                raise
            raise explain_overrun(error, text, limits, case_sensitive=case_sensitive,
                                  check=check) from None
        game = Game.from_description(description, case_sensitive=case_sensitive,
                                     strict=strict, parse_ms=parse_ms,
                                     backend=backend,
                                     probed=probed, validated=validated)
        weight = estimated_bytes(game, len(text))
        if weight > self._max_bytes:
            raise ResourceLimitError(
                f"the game would take about {weight / 2**20:,.0f} MiB of memory, "
                f"more than the game cache's {self._max_bytes / 2**20:,.0f} MiB "
                "(serve --cache-mb)", "memory", limit=self._max_bytes / 2**20,
                reason="cache-size")
        loaded = LoadedGame(ident, game, weight)
        with self._lock:
            self._games[ident] = loaded
            self._games.move_to_end(ident)
            self._shrink()
        return loaded, False

    def admit(self, what: str,
              check: Callable[[], None] | None = None) -> AbstractContextManager[None]:
        """A slot of the gate for the heavy call ``what`` (see :meth:`HeavyGate.admit`)."""
        return self.gate.admit(what, check) if self.gate is not None else nullcontext()

    def bounded(self, func: Callable[..., T], args: tuple[Any, ...],
                seconds: float | None = None,
                check: Callable[[], None] | None = None,
                max_answer_bytes: int | None = None) -> T:
        """Run grounding work under the registry's limits (shortened to ``seconds``);
        ``check`` may raise to stop it; an answer larger than ``max_answer_bytes`` is
        refused before it is sent here (see :func:`run_bounded`)."""
        limits = self._limits
        return run_bounded(func, args, None if limits is None else _shortened(limits, seconds),
                           check=check, max_answer_bytes=max_answer_bytes)

    def explain(self, error: ResourceLimitError, description: GameDescription,
                check: Callable[[], None] | None = None,
                program: Program = "game") -> ResourceLimitError:
        """An overrun of grounding a loaded game's ``program`` (the game program, as
        instantiating does, or the relaxed one, as the supersets and relaxed layers do) with
        the relation that grew named (see :func:`explain_overrun`); unchanged where the
        registry is unbounded, or the bound was not its own (a request's shorter
        deadline)."""
        limits = self._limits
        if (limits is None or error.reason != "work"
                or error.limit not in (limits.seconds, limits.memory_mb)):
            return error
        return explain_overrun(error, print_game(description), limits, case_sensitive=True,
                               check=check, program=program)

    def get(self, ident: str) -> LoadedGame:
        """A loaded game by id.

        Raises:
            UnknownGameError: the id is not loaded here (never loaded, or evicted).
        """
        with self._lock:
            found = self._touch(ident)
        if found is None:
            shown = ident if len(ident) <= 16 else ident[:16] + "..."
            raise UnknownGameError(
                f"game {shown or '(empty id)'} is not loaded on this server; load it with "
                "LoadGame (games are evicted when the cache is full)", reason="unknown-id")
        return found

    def games(self) -> list[LoadedGame]:
        """The loaded games, least recently used first (listing them uses none)."""
        with self._lock:
            return list(self._games.values())

    def ids(self) -> list[str]:
        """Ids of the loaded games, least recently used first."""
        with self._lock:
            return list(self._games)

    def held_bytes(self) -> int:
        """The estimated bytes of the games held, with what the service keeps for them."""
        with self._lock:
            return self._held()

    def keep_beside(self, ident: str, size: int, what: str = "answer") -> None:
        """Count ``size`` bytes of ``what`` against the game ``ident`` (an answer the
        service keeps for it; its heuristics; a later call for the same ``what``
        replaces the count), evicting others where the cache is then over its bytes."""
        with self._lock:
            if ident in self._games:
                self._extra.setdefault(ident, {})[what] = size
                self._shrink()

    def evict(self, ident: str) -> None:
        """Drop a game (one whose answer could not be sent, say); unknown ids are fine."""
        with self._lock:
            self._games.pop(ident, None)
            self._extra.pop(ident, None)

    def _held(self) -> int:
        return (sum(g.bytes for g in self._games.values())
                + sum(sum(kept.values()) for kept in self._extra.values()))

    def _shrink(self) -> None:
        """Evict the least recently used games past either bound, never the newest one.
        (A game in use by a request stays alive for it; its memory goes with the last.)"""
        while len(self._games) > 1 and (len(self._games) > self._max_games
                                        or self._held() > self._max_bytes):
            ident, _ = self._games.popitem(last=False)
            self._extra.pop(ident, None)

    def _touch(self, ident: str) -> LoadedGame | None:
        found = self._games.get(ident)
        if found is not None:
            self._games.move_to_end(ident)
        return found
