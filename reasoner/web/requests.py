"""What every request of the page shares: the page's state, the error answer, bodies
read under a cap, and the match and position a path names."""

from __future__ import annotations

import itertools
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from reasoner.console.players import ReasonerClient
from reasoner.web.library import GameLibrary
from reasoner.web.matches import Match, Position

__all__ = ["MAX_MATCHES", "Handler", "HttpError", "WebState", "integer", "match_of",
           "position_of", "read_body", "read_json"]


# The matches the page keeps at once (played, watched and replayed).
MAX_MATCHES = 200


class HttpError(Exception):
    """An answer other than 200, with its JSON body."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": message, **extra}


@dataclass
class WebState:
    """What the application serves: the library, the service's client and the matches."""

    library: GameLibrary
    client: ReasonerClient
    token: str | None = None
    matches: dict[str, Match] = field(default_factory=dict)
    closing: bool = False  # the server is stopping: event streams end
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def add(self, match: Match) -> None:
        """Keep a new match; past :data:`MAX_MATCHES`, the oldest that is over (else the
        oldest) is dropped, its task stopped."""
        self.matches[match.id] = match
        while len(self.matches) > MAX_MATCHES:
            ordered = sorted(self.matches.values(), key=lambda m: m.created)
            gone = next((m for m in ordered if m.finished or m.positions[-1].info.terminal),
                        ordered[0])
            gone.stop()
            del self.matches[gone.id]

    def new_id(self, kind: str) -> str:
        """A match id no one can guess from another (``play-3-9f2a1c``)."""
        return f"{kind}-{next(self._ids)}-{secrets.token_hex(3)}"


# What answers one route: its JSON (or a response of its own), or an HttpError.
Handler = Callable[[Request, WebState], Awaitable[Any]]


async def read_body(request: Request, cap: int) -> bytes:
    """The request's body, refused past ``cap`` bytes (before it is read, where the
    length is given)."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > cap:
        raise HttpError(413, f"the body is over its cap of {cap:,} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise HttpError(413, f"the body is over its cap of {cap:,} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, cap: int = 64 << 10) -> dict[str, Any]:
    """The request's body as a JSON object (400 otherwise), read under ``cap``."""
    raw = await read_body(request, cap)
    try:
        value = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise HttpError(400, f"the body is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise HttpError(400, "the body is not a JSON object")
    return value


def match_of(state: WebState, request: Request) -> Match:
    """The match the path names (404 when there is none)."""
    match = state.matches.get(request.path_params["match"])
    if match is None:
        raise HttpError(404, "no such match")
    return match


def position_of(match: Match, request: Request) -> tuple[int, Position]:
    """The position the path names, by index or ``last`` (404 past the match's end)."""
    raw = request.path_params["step"]
    index = len(match.positions) - 1 if raw == "last" else integer(raw, "step")
    if not 0 <= index < len(match.positions):
        raise HttpError(404, f"the match has positions 0 to {len(match.positions) - 1}")
    return index, match.positions[index]


def integer(value: object, what: str) -> int:
    """``value`` as an integer (400 naming ``what`` when it is none; not a boolean)."""
    if isinstance(value, bool):
        raise HttpError(400, f"{what} is not an integer")
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError):
        raise HttpError(400, f"{what} is not an integer") from None
