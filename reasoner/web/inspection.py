"""A position inspected: heuristic values per legal move, random playouts' outcomes, and
the rule that made a fluent or a move true (:mod:`reasoner.asp.support`)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from starlette.requests import Request

from reasoner.asp.support import Support, supporting_rules
from reasoner.web.requests import (
    HttpError,
    WebState,
    integer,
    match_of,
    position_of,
    read_json,
)

__all__ = ["MAX_PLAYOUTS", "heuristic_values", "playouts", "support"]

MAX_PLAYOUTS = 10_000


async def heuristic_values(request: Request, state: WebState) -> Any:
    """A heuristic's value, for ``role``, of the position each of its legal moves leads to
    (the other roles playing their first legal move)."""
    match = match_of(state, request)
    _, position = position_of(match, request)
    body = await read_json(request)
    role, heuristic = body.get("role"), body.get("heuristic")
    game = match.game
    if not isinstance(role, str) or role not in game.roles:
        raise HttpError(400, f"role: one of {', '.join(game.roles)}")
    if not isinstance(heuristic, str) or heuristic not in match.opened.heuristics:
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
    match = match_of(state, request)
    _, position = position_of(match, request)
    body = await read_json(request)
    count = integer(body.get("count", 100), "count")
    if not 1 <= count <= MAX_PLAYOUTS:
        raise HttpError(400, f"count: 1 to {MAX_PLAYOUTS:,} playouts")
    seed = integer(body.get("seed", 0), "seed")
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
    match = match_of(state, request)
    index, position = position_of(match, request)
    body = await read_json(request)
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
    opened = match.opened

    def find() -> list[Support]:
        return supporting_rules(opened.description, target, at, joint)

    found = await asyncio.to_thread(find)
    return {"target": target, "supports": [
        {"rule": s.rule, "line": s.line, "instance": s.instance} for s in found]}


def _order(value: str) -> int:
    return int(value) if value.isdigit() else -1
