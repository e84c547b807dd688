"""Matches from elsewhere: a match record replayed, and the matches that ``gdl-reasoner
manage --web`` publishes, followed as they are played."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request

from reasoner.web.library import MAX_GAME_BYTES
from reasoner.web.matches import Match, Position, describe, replayed
from reasoner.web.requests import HttpError, WebState, read_json

__all__ = ["MAX_RECORD_BYTES", "feed", "replay"]

# The largest match record the page replays or a manager publishes.
MAX_RECORD_BYTES = 8 << 20


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
    body = await read_json(request, MAX_RECORD_BYTES)
    match_id, moves, errors, players, game_name = _record(body)
    entry = state.library.by_name(request.query_params.get("game") or game_name)
    if entry is None:
        raise HttpError(404, f"the record's game {game_name!r} is not in the library; "
                             "open the game first or name it with ?game=ID")
    opened = await asyncio.to_thread(state.library.open, entry.id)
    positions = await asyncio.to_thread(replayed, opened.game, moves, errors)
    seats = tuple(players) if len(players) == len(opened.game.roles) \
        else ("",) * len(opened.game.roles)
    match = Match(state.new_id("replay"), "replay", opened, seats, positions,
                  message=f"record {match_id}" if match_id else "", finished=True)
    state.add(match)
    return describe(match)


async def feed(request: Request, state: WebState) -> Any:
    """What ``manage --web`` publishes: ``{"record": ..., "rules": ...}`` after each step;
    the first message of a match carries the rules."""
    body = await read_json(request, MAX_RECORD_BYTES + MAX_GAME_BYTES)
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
        match = Match(key, "watch", opened, tuple(players), [Position(initial, info)])
        state.add(match)
    done = len(match.positions) - 1
    if len(moves) > done:
        more = await asyncio.to_thread(replayed, match.game, moves[done:], errors[done:],
                                       match.positions[-1])
        match.positions.extend(more[1:])
    if body.get("final") or record.get("terminal"):
        match.finished = True
    match.touch()
    return {"steps": len(match.positions) - 1}
