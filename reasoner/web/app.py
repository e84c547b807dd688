"""The page's HTTP side: a Starlette application over a reasoner service.

Every answer is JSON (the page's own files aside). Errors are ``{"error": ..., "line":
..., "column": ...}`` with a status that says whose fault it was: 400 a malformed request,
404 an unknown game or match, 409 a move or undo the match cannot take, 413 a body over its
cap, 422 a game that does not load (its line and column when the error has one), 503 the
service's bounds. Blocking calls to the service run on threads; the event loop only routes.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from reasoner.console.players import STRATEGIES
from reasoner.errors import GdlError, ReasonerError, ResourceLimitError
from reasoner.web.inspection import heuristic_values, playouts, support
from reasoner.web.library import MAX_GAME_BYTES
from reasoner.web.matches import HUMAN, Match, MatchError, Position, describe
from reasoner.web.records import feed, replay
from reasoner.web.requests import (
    Handler,
    HttpError,
    WebState,
    integer,
    match_of,
    position_of,
    read_body,
    read_json,
)

__all__ = ["create_app", "position_view"]

# The longest a player may think per move.
MAX_CLOCK = 60.0
# How long an events stream waits before it sends a keep-alive line.
_KEEP_ALIVE = 15.0
# How often an events stream looks whether the server is stopping.
_WAKE = 0.5


def _route(handler: Handler, state: WebState) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        if state.token is not None:
            given = request.headers.get("x-token") or request.query_params.get("token") or ""
            if not hmac.compare_digest(given.encode(), state.token.encode()):
                return JSONResponse({"error": "this page needs its token (?token=...)"},
                                    status_code=401)
        try:
            answer = await handler(request, state)
        except HttpError as error:
            return JSONResponse(error.body, status_code=error.status)
        except ResourceLimitError as error:
            return JSONResponse({"error": str(error)}, status_code=503)
        except GdlError as error:
            return JSONResponse({"error": error.message, "line": error.line,
                                 "column": error.column, "kind": type(error).__name__},
                                status_code=422)
        except MatchError as error:
            return JSONResponse({"error": str(error)}, status_code=409)
        except ReasonerError as error:
            return JSONResponse({"error": str(error), "kind": type(error).__name__},
                                status_code=422)
        if isinstance(answer, Response):
            return answer
        return JSONResponse(answer)
    return endpoint


def position_view(match: Match, index: int) -> dict[str, Any]:
    """A position as the page draws it."""
    position = match.positions[index]
    opened = match.opened
    game = opened.game
    ids = list(position.state.fluent_ids())
    if opened.layout is not None:
        board, others = opened.layout.place(ids)
    else:
        board, others = {}, ids
    info = position.info
    legal = [[{"id": m, "text": game.move_texts[m], "squares": opened.move_squares(m)}
              for m in moves] for moves in info.legal]
    return {"index": index, "last": len(match.positions) - 1, "moves": list(position.moves),
            "errors": list(position.errors), "think_ms": list(position.think_ms),
            "terminal": info.terminal,
            "goals": [info.goal(r) for r in range(len(game.roles))] if info.terminal else None,
            "board": board, "others": [game.fluents[i] for i in others],
            "fluents": [game.fluents[i] for i in ids], "legal": legal,
            "status": match.status, "message": match.message, "version": match.version}


# -- the handlers ----------------------------------------------------------------------------


async def list_games(request: Request, state: WebState) -> Any:
    return {"games": state.library.search(request.query_params.get("q", ""))}


async def open_game(request: Request, state: WebState) -> Any:
    entry_id = request.path_params["game"]
    if entry_id not in state.library.entries:
        raise HttpError(404, f"no game {entry_id!r} in the library")
    opened = await asyncio.to_thread(state.library.open, entry_id)
    return opened.as_dict()


async def check_game(request: Request, state: WebState) -> Any:
    """A pasted or uploaded text: added to the library and opened, or its error."""
    raw = await read_body(request, MAX_GAME_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HttpError(400, "the game is not UTF-8 text") from None
    name = request.query_params.get("name", "pasted")
    entry = state.library.add_text(text, name)
    try:
        opened = await asyncio.to_thread(state.library.open, entry.id)
    except ReasonerError:
        del state.library.entries[entry.id]
        raise
    return opened.as_dict()


async def list_matches(request: Request, state: WebState) -> Any:
    del request
    return {"matches": [describe(m) for m in
                        sorted(state.matches.values(), key=lambda m: -m.created)]}


async def new_match(request: Request, state: WebState) -> Any:
    body = await read_json(request)
    entry_id = str(body.get("game", ""))
    if entry_id not in state.library.entries:
        raise HttpError(404, f"no game {entry_id!r} in the library")
    opened = await asyncio.to_thread(state.library.open, entry_id)
    if opened.game.is_gdl2:
        raise HttpError(409, "a GDL-II game is watched and replayed here, not played: each "
                             "seat would see the whole state, which its role must not (run "
                             "it with manage --web, where each player hears only its own "
                             "moves and percepts)")
    seats = body.get("seats")
    roles = opened.game.roles
    if not isinstance(seats, list) or len(seats) != len(roles):
        raise HttpError(400, f"seats: one per role ({', '.join(roles)})")
    known = (HUMAN, *STRATEGIES)
    for seat in seats:
        if seat not in known:
            raise HttpError(400, f"unknown seat {seat!r} (known: {', '.join(known)})")
    clock = body.get("clock", 1.0)
    if not isinstance(clock, int | float) or isinstance(clock, bool) \
            or not 0.05 <= clock <= MAX_CLOCK:
        raise HttpError(400, f"clock: seconds per move from 0.05 to {MAX_CLOCK:g}")
    initial, info = await asyncio.to_thread(opened.game.initial)
    match = Match(state.new_id("play"), "play", opened, tuple(seats),
                  [Position(initial, info)], clock=float(clock))
    state.add(match)
    match.start(seed=integer(body.get("seed", 0), "seed"))
    return describe(match)


async def get_match(request: Request, state: WebState) -> Any:
    match = match_of(state, request)
    answer = describe(match)
    answer["game_info"] = match.opened.as_dict()
    return answer


async def get_position(request: Request, state: WebState) -> Any:
    match = match_of(state, request)
    index, _ = position_of(match, request)
    return position_view(match, index)


async def play_move(request: Request, state: WebState) -> Any:
    match = match_of(state, request)
    body = await read_json(request)
    role, move = body.get("role"), body.get("move")
    if not isinstance(role, str) or not isinstance(move, str):
        raise HttpError(400, "a move is {\"role\": ..., \"move\": ...} (GDL text)")
    match.click(role, move)
    return {"accepted": True}


async def undo(request: Request, state: WebState) -> Any:
    match = match_of(state, request)
    await match.undo()
    return describe(match)


async def events(request: Request, state: WebState) -> Any:
    match = match_of(state, request)

    async def stream() -> AsyncIterator[str]:
        version = -1
        quiet = 0.0
        while not state.closing:
            seen = await match.changed(version, _WAKE)
            if await request.is_disconnected():
                return
            if seen == version:
                quiet += _WAKE
                if quiet >= _KEEP_ALIVE:
                    quiet = 0.0
                    yield ": keep-alive\n\n"
                continue
            version = seen
            quiet = 0.0
            yield f"data: {json.dumps(describe(match))}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


async def index(request: Request, state: WebState) -> Any:
    del request, state
    return FileResponse(str(_static() / "index.html"))


def _static() -> Path:
    return Path(str(resources.files("reasoner.web") / "static"))


def create_app(state: WebState) -> Starlette:
    """The application serving ``state``."""
    def r(path: str, handler: Handler, methods: tuple[str, ...] = ("GET",)) -> Route:
        return Route(path, _route(handler, state), methods=list(methods))

    app = Starlette(routes=[
        r("/", index),
        r("/api/games", list_games),
        r("/api/games/open/{game:path}", open_game, ("POST",)),
        r("/api/check", check_game, ("POST",)),
        r("/api/matches", list_matches),
        r("/api/matches", new_match, ("POST",)),
        r("/api/records", replay, ("POST",)),
        r("/api/feed", feed, ("POST",)),
        r("/api/matches/{match}", get_match),
        r("/api/matches/{match}/events", events),
        r("/api/matches/{match}/move", play_move, ("POST",)),
        r("/api/matches/{match}/undo", undo, ("POST",)),
        r("/api/matches/{match}/positions/{step}", get_position),
        r("/api/matches/{match}/positions/{step}/heuristic", heuristic_values, ("POST",)),
        r("/api/matches/{match}/positions/{step}/playouts", playouts, ("POST",)),
        r("/api/matches/{match}/positions/{step}/support", support, ("POST",)),
        Mount("/static", StaticFiles(directory=str(_static())), name="static"),
    ])
    app.state.web = state
    return app
