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
import itertools
import json
import secrets
import socket
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from reasoner.asp.support import Support, supporting_rules
from reasoner.console.players import STRATEGIES, ReasonerClient
from reasoner.errors import GdlError, ReasonerError, ResourceLimitError
from reasoner.gdl.parser import parse_gdl
from reasoner.web.library import MAX_GAME_BYTES, GameLibrary, OpenedGame
from reasoner.web.matches import HUMAN, Match, MatchError, Position, describe, replayed

__all__ = ["MAX_RECORD_BYTES", "PageServer", "WebState", "create_app", "listening_socket"]

# The largest match record the page replays or a manager publishes.
MAX_RECORD_BYTES = 8 << 20
MAX_PLAYOUTS = 10_000
MAX_CLOCK = 60.0
# How long an events stream waits before it sends a keep-alive line.
_KEEP_ALIVE = 15.0
# How often an events stream looks whether the server is stopping.
_WAKE = 0.5


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

    def new_id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids)}-{secrets.token_hex(3)}"


Handler = Callable[[Request, WebState], Awaitable[Any]]


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


async def _body(request: Request, cap: int) -> bytes:
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


async def _json(request: Request, cap: int = 64 << 10) -> dict[str, Any]:
    raw = await _body(request, cap)
    try:
        value = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise HttpError(400, f"the body is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise HttpError(400, "the body is not a JSON object")
    return value


def _match(state: WebState, request: Request) -> Match:
    match = state.matches.get(request.path_params["match"])
    if match is None:
        raise HttpError(404, "no such match")
    return match


def _position(match: Match, request: Request) -> tuple[int, Position]:
    raw = request.path_params["step"]
    index = len(match.positions) - 1 if raw == "last" else _int(raw, "step")
    if not 0 <= index < len(match.positions):
        raise HttpError(404, f"the match has positions 0 to {len(match.positions) - 1}")
    return index, match.positions[index]


def _int(value: object, what: str) -> int:
    if isinstance(value, bool):
        raise HttpError(400, f"{what} is not an integer")
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError):
        raise HttpError(400, f"{what} is not an integer") from None


def _opened(match: Match, state: WebState) -> OpenedGame | None:
    return next((o for o in state.library.opened.values() if o.game is match.game), None)


def position_view(match: Match, opened: OpenedGame | None, index: int) -> dict[str, Any]:
    """A position as the page draws it."""
    position = match.positions[index]
    game = match.game
    ids = list(position.state.fluent_ids())
    layout = opened.layout if opened else None
    if layout is not None:
        board, others = layout.place(ids)
    else:
        board, others = {}, ids
    info = position.info
    legal = [[{"id": m, "text": game.move_texts[m],
               "squares": layout.move_squares(game.move_texts[m]) if layout else []}
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
    raw = await _body(request, MAX_GAME_BYTES)
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
    body = await _json(request)
    entry_id = str(body.get("game", ""))
    if entry_id not in state.library.entries:
        raise HttpError(404, f"no game {entry_id!r} in the library")
    opened = await asyncio.to_thread(state.library.open, entry_id)
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
    match = Match(state.new_id("play"), "play", opened.game, opened.entry.name, tuple(seats),
                  [Position(initial, info)], clock=float(clock))
    state.matches[match.id] = match
    match.start(seed=_int(body.get("seed", 0), "seed"))
    return describe(match)


async def get_match(request: Request, state: WebState) -> Any:
    match = _match(state, request)
    answer = describe(match)
    opened = _opened(match, state)
    answer["game_info"] = opened.as_dict() if opened else None
    return answer


async def get_position(request: Request, state: WebState) -> Any:
    match = _match(state, request)
    index, _ = _position(match, request)
    return position_view(match, _opened(match, state), index)


async def play_move(request: Request, state: WebState) -> Any:
    match = _match(state, request)
    body = await _json(request)
    role, move = body.get("role"), body.get("move")
    if not isinstance(role, str) or not isinstance(move, str):
        raise HttpError(400, "a move is {\"role\": ..., \"move\": ...} (GDL text)")
    match.click(role, move)
    return {"accepted": True}


async def undo(request: Request, state: WebState) -> Any:
    match = _match(state, request)
    await match.undo()
    return describe(match)


async def events(request: Request, state: WebState) -> Any:
    match = _match(state, request)

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


def _record(body: dict[str, Any]) -> tuple[str, list[list[str]], list[list[str]],
                                           list[str], str]:
    """A match record's match id, moves, errors, players and game name, checked."""
    moves, errors = body.get("moves", []), body.get("errors", [])
    if not isinstance(moves, list) or not all(
            isinstance(step, list) and all(isinstance(m, str) for m in step) for step in moves):
        raise HttpError(400, "moves: a list of steps, each a list of GDL texts")
    if not isinstance(errors, list) or not all(
            isinstance(step, list) and all(isinstance(e, str) for e in step)
            for step in errors):
        raise HttpError(400, "errors: a list of steps, each a list of codes")
    players = body.get("players", [])
    if not isinstance(players, list):
        raise HttpError(400, "players: a list")
    return (str(body.get("match_id", "")), moves, errors, [str(p) for p in players],
            str(body.get("game", "")))


async def replay(request: Request, state: WebState) -> Any:
    """A match record (as ``manage --record`` writes it) replayed on a library game (the
    record's ``game``, or ``?game=ID``)."""
    body = await _json(request, MAX_RECORD_BYTES)
    match_id, moves, errors, players, game_name = _record(body)
    entry = state.library.by_name(request.query_params.get("game") or game_name)
    if entry is None:
        raise HttpError(404, f"the record's game {game_name!r} is not in the library; "
                             "open the game first or name it with ?game=ID")
    opened = await asyncio.to_thread(state.library.open, entry.id)
    positions = await asyncio.to_thread(replayed, opened.game, moves, errors)
    seats = tuple(players) if len(players) == len(opened.game.roles) \
        else ("",) * len(opened.game.roles)
    match = Match(state.new_id("replay"), "replay", opened.game, entry.name, seats, positions,
                  message=f"record {match_id}" if match_id else "", finished=True)
    state.matches[match.id] = match
    return describe(match)


async def feed(request: Request, state: WebState) -> Any:
    """What ``manage --web`` publishes: ``{"record": ..., "rules": ...}`` after each step;
    the first message of a match carries the rules."""
    body = await _json(request, MAX_RECORD_BYTES + MAX_GAME_BYTES)
    record = body.get("record")
    if not isinstance(record, dict):
        raise HttpError(400, "record: a match record")
    match_id, moves, errors, players, game_name = _record(record)
    if not match_id:
        raise HttpError(400, "record: match_id is missing")
    key = f"watch-{match_id}"
    match = state.matches.get(key)
    if match is None:
        rules = body.get("rules")
        if not isinstance(rules, str):
            raise HttpError(400, "the first message of a match carries its rules")
        if len(rules.encode()) > MAX_GAME_BYTES:
            raise HttpError(413, f"the rules are over their cap of {MAX_GAME_BYTES:,} bytes")
        entry = state.library.add_text(rules, game_name or "published")
        opened = await asyncio.to_thread(state.library.open, entry.id)
        initial, info = await asyncio.to_thread(opened.game.initial)
        match = Match(key, "watch", opened.game, game_name or entry.name, tuple(players),
                      [Position(initial, info)])
        state.matches[key] = match
    done = len(match.positions) - 1
    if len(moves) > done:
        more = await asyncio.to_thread(replayed, match.game, moves[done:], errors[done:],
                                       None, match.positions[-1])
        match.positions.extend(more[1:])
    if record.get("goals") and (record.get("terminal") or len(moves) < done + 1):
        match.finished = True
    if body.get("final"):
        match.finished = True
    match.touch()
    return {"steps": len(match.positions) - 1}


async def heuristic_values(request: Request, state: WebState) -> Any:
    """A heuristic's value, for ``role``, of the position each of its legal moves leads to
    (the other roles playing their first legal move)."""
    match = _match(state, request)
    _, position = _position(match, request)
    body = await _json(request)
    role, heuristic = body.get("role"), body.get("heuristic")
    game = match.game
    if role not in game.roles or not isinstance(role, str):
        raise HttpError(400, f"role: one of {', '.join(game.roles)}")
    opened = _opened(match, state)
    if not isinstance(heuristic, str) or (opened and heuristic not in opened.heuristics):
        raise HttpError(400, "heuristic: one of the game's heuristics")
    info = position.info
    if info.terminal:
        return {"values": []}
    r = game.roles.index(role)
    joints = [tuple(m if i == r else info.legal[i][0] for i in range(len(game.roles)))
              for m in info.legal[r]]

    def values() -> list[float]:
        children = game.step_many(position.state, joints, check_legal=False)
        return [e.value for e in game.evaluate([s for s, _ in children], role, heuristic)]

    found = await asyncio.to_thread(values)
    return {"values": [{"id": m, "text": game.move_texts[m], "value": v}
                       for m, v in zip(info.legal[r], found, strict=True)]}


async def playouts(request: Request, state: WebState) -> Any:
    """``count`` seeded random playouts from the position: per role, how often each goal
    value came out."""
    match = _match(state, request)
    _, position = _position(match, request)
    body = await _json(request)
    count = _int(body.get("count", 100), "count")
    if not 1 <= count <= MAX_PLAYOUTS:
        raise HttpError(400, f"count: 1 to {MAX_PLAYOUTS:,} playouts")
    seed = _int(body.get("seed", 0), "seed")
    run = await asyncio.to_thread(match.game.simulate, position.state, count, seed)
    roles = match.game.roles
    tallies: list[Counter[str]] = [Counter() for _ in roles]
    for goals in run.goals:
        for r, values in enumerate(goals):
            tallies[r][str(values[0]) if len(values) == 1 else "none"] += 1
    unfinished = sum(1 for t in run.terminal if not t)
    return {"count": count, "unfinished": unfinished, "updates": run.updates,
            "ms": round(run.elapsed_ms, 1),
            "outcomes": {role: dict(sorted(t.items(), key=lambda kv: _order(kv[0])))
                         for role, t in zip(roles, tallies, strict=True)}}


async def support(request: Request, state: WebState) -> Any:
    """The ground rules that made a fluent of the position (``{"fluent": ...}``: its
    ``next`` rules in the position before, under the joint move played, or its ``init``
    rules at the start) or a legal move (``{"role": ..., "move": ...}``) true."""
    match = _match(state, request)
    index, position = _position(match, request)
    body = await _json(request)
    opened = _opened(match, state)
    if opened is None:
        raise HttpError(404, "the match's game is not open on the page")
    game = match.game
    fluent, role, move = body.get("fluent"), body.get("role"), body.get("move")
    joint: list[tuple[str, str]] = []
    if isinstance(fluent, str):
        if fluent not in position.state.fluents:
            raise HttpError(400, f"{fluent} does not hold in position {index}")
        if index == 0:
            target, at = f"(init {fluent})", []
        else:
            before = match.positions[index - 1]
            target, at = f"(next {fluent})", game.describe_state(before.state)
            joint = list(zip(game.roles, position.moves, strict=True))
    elif isinstance(role, str) and isinstance(move, str):
        if role not in game.roles:
            raise HttpError(400, f"role: one of {', '.join(game.roles)}")
        target, at = f"(legal {role} {move})", game.describe_state(position.state)
    else:
        raise HttpError(400, "ask for {\"fluent\": ...} or {\"role\": ..., \"move\": ...}")
    text = opened.entry.read()

    def find() -> list[Support]:
        description = parse_gdl(text)
        return supporting_rules(description, target, at, joint)

    found = await asyncio.to_thread(find)
    return {"target": target, "supports": [
        {"rule": s.rule, "line": s.line, "instance": s.instance} for s in found]}


def _order(value: str) -> int:
    return int(value) if value.isdigit() else -1


async def index(request: Request, state: WebState) -> Any:
    del request, state
    return FileResponse(str(_static() / "index.html"))


def _static() -> Path:
    return Path(str(resources.files("reasoner.web") / "static"))


def listening_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket for the page. Made with the protocol named, so that asyncio
    sets TCP_NODELAY on the connections it accepts (it does only for sockets whose protocol
    is TCP): without it a response's body waited for the browser's delayed acknowledgement
    of its headers, 40 ms a request on a reused connection.

    Raises:
        OSError: the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(128)
    except OSError:
        listening.close()
        raise
    return listening


class PageServer(uvicorn.Server):
    """uvicorn's server that ends the page's event streams first when it stops (else they
    would be cancelled mid-wait, and logged as failures)."""

    def __init__(self, app: Starlette, **options: Any) -> None:
        # No lifespan events: the application has none, and uvicorn's lifespan task
        # logged a traceback when Ctrl-C stopped the server.
        super().__init__(uvicorn.Config(app, log_level="warning", lifespan="off",
                                        timeout_graceful_shutdown=2, **options))
        self.web: WebState = app.state.web

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.web.closing = True
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.web.closing = True
        self.should_exit = True


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
