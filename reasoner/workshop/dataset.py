"""Positions for learning players: rows sampled along seeded random playouts, each a
position with its fluents, its legal moves, its goals where terminal and, when asked, the
outcome statistics of random playouts from it and heuristic values (``gdl-reasoner
dataset``; the schema and its guarantees are in docs/guides/datasets.md).

Sampling: playout ``k`` of a game draws every joint move with ``random.Random(f"{seed}/
{game}/{k}")``, one legal move per role (among its legal move ids in ascending order), from
the initial state until a terminal state, a role without a legal move, or ``max_steps``
joint moves; every position along it, the initial and the last included, is a row; the
playouts go on (k = 0, 1, ...) until ``positions`` rows are collected, so the last playout
may be cut short. The same game, seed and options (on the same backend and version) give
the same rows.

>>> from reasoner.engine.game import Game
>>> game = Game.from_file("games/tictactoe.kif")
>>> rows = list(sample_rows(game, "tictactoe", positions=3, seed=0))
>>> [(row["playout"], row["step"]) for row in rows]
[(0, 0), (0, 1), (0, 2)]
>>> list(rows[0]) == list(COLUMNS)
True
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.errors import GoalError, HeuristicError

__all__ = ["COLUMNS", "arrow_schema", "batch_rows", "estimate_row_bytes", "playout_rows",
           "row_json", "sample_rows"]

# Every row's keys, in this order (a JSON Lines row's keys, a Parquet file's columns).
COLUMNS = ("game", "playout", "step", "roles", "fluents", "fluent_ids", "legal", "terminal",
           "goals", "playouts", "playout_terminal", "playout_mean_goal",
           "playout_goal_counts", "heuristics")

# Row is one JSON object: the values are JSON's (str, int, float, bool, None, lists, dicts).
Row = dict[str, Any]


def sample_rows(game: Game, name: str, positions: int, seed: int, *, playouts: int = 0,
                heuristics: Sequence[str] = (), max_steps: int = 1000) -> Iterator[Row]:
    """``positions`` rows of ``game`` (called ``name`` in them), sampled as the module says;
    with ``playouts`` > 0 the statistics of that many random playouts (of at most
    ``max_steps`` joint moves) from each position, with ``heuristics`` each one's value for
    each role.

    Raises:
        ReasonerError: the game cannot answer a position (a heuristic that gives no value
            is a null instead).
    """
    rows = (row for playout in itertools.count()
            for row in playout_rows(game, name, playout, seed, playouts=playouts,
                                    heuristics=heuristics, max_steps=max_steps))
    return itertools.islice(rows, positions)


def playout_rows(game: Game, name: str, playout: int, seed: int, *, playouts: int = 0,
                 heuristics: Sequence[str] = (), max_steps: int = 1000) -> Iterator[Row]:
    """The rows of sampled playout number ``playout`` (see :func:`sample_rows`), every
    position along it, whole: :func:`sample_rows` is these, playout after playout, cut at
    its count."""
    rng = random.Random(f"{seed}/{name}/{playout}")
    state, info = game.initial()
    step = 0
    while True:
        yield _row(game, name, playout, step, state, info.terminal, seed, playouts,
                   heuristics, max_steps)
        if info.terminal or step >= max_steps or any(not legal for legal in info.legal):
            return
        joint = tuple(rng.choice(sorted(legal)) for legal in info.legal)
        state, info = game.step(state, joint, check_legal=False)
        step += 1


def batch_rows(text: str, backend: str, name: str, first: int, count: int, seed: int,
               playouts: int, heuristics: Sequence[str], max_steps: int) -> list[Row]:
    """The rows of sampled playouts ``first`` to ``first + count - 1`` of the game
    ``text`` on ``backend``: one task of ``dataset`` on a cluster (the game is loaded once
    per process)."""
    from reasoner.console.cluster import game_from_text

    game = game_from_text(text, backend)
    return [row for playout in range(first, first + count)
            for row in playout_rows(game, name, playout, seed, playouts=playouts,
                                    heuristics=heuristics, max_steps=max_steps)]


def _row(game: Game, name: str, playout: int, step: int, state: State, terminal: bool,
         seed: int, playouts: int, heuristics: Sequence[str], max_steps: int) -> Row:
    """One position's row (keys in :data:`COLUMNS` order)."""
    info = game.info(state)
    row: Row = {
        "game": name,
        "playout": playout,
        "step": step,
        "roles": list(game.roles),
        "fluents": sorted(state.fluents),
        "fluent_ids": list(state.fluent_ids()),
        "legal": [[game.move_texts[i] for i in sorted(legal)] for legal in info.legal],
        "terminal": terminal,
        "goals": [_goal(game, state, role) for role in game.roles] if terminal else None,
        "playouts": playouts,
        "playout_terminal": None,
        "playout_mean_goal": None,
        "playout_goal_counts": None,
        "heuristics": [],
    }
    if playouts > 0:
        summary_seed = random.Random(f"{seed}/{name}/{playout}/{step}/playouts").getrandbits(63)
        summary = game.summarize(state, playouts=playouts, seed=summary_seed,
                                 max_steps=max_steps)
        row["playout_terminal"] = summary.terminal
        row["playout_mean_goal"] = [summary.mean_goal(r) for r in range(len(game.roles))]
        row["playout_goal_counts"] = [
            [{"goal": value, "count": count} for value, count in sorted(counts.items())]
            for counts in summary.goal_counts]
    row["heuristics"] = [{"name": heuristic,
                          "values": [_value(game, state, role, heuristic)
                                     for role in game.roles]}
                         for heuristic in heuristics]
    return row


def _goal(game: Game, state: State, role: str) -> int | None:
    """The role's goal value in ``state``, None where it has none or several."""
    try:
        return game.goal(state, role)
    except GoalError:
        return None


def _value(game: Game, state: State, role: str, heuristic: str) -> float | None:
    """The heuristic's value of ``state`` for ``role``, None where it gives none."""
    try:
        return float(game.evaluate([state], role, heuristic)[0].value)
    except HeuristicError:
        return None


def row_json(row: Row) -> str:
    """A row as one line of JSON Lines (no newline), compact, keys in :data:`COLUMNS`
    order."""
    return json.dumps(row, separators=(",", ":"))


def estimate_row_bytes(game: Game, name: str, *, playouts: int = 0,
                       heuristics: Sequence[str] = ()) -> int:
    """A rough size of one of ``game``'s rows: twice its initial position's JSON line (a
    game's positions may hold more fluents than its first), with about 100 bytes per role
    for the playout statistics and 30 per role and heuristic for the values."""
    state, info = game.initial()
    row = _row(game, name, 0, 0, state, info.terminal, 0, 0, (), 0)
    roles = len(game.roles)
    extra = (100 * roles if playouts > 0 else 0) + 30 * roles * len(heuristics) \
        + sum(len(h) + 20 for h in heuristics)
    return 2 * (len(row_json(row)) + 1 + extra)


def arrow_schema(pa: Any) -> Any:
    """The rows' Parquet schema, built with the ``pyarrow`` module ``pa``."""
    strings = pa.list_(pa.string())
    return pa.schema([
        ("game", pa.string()),
        ("playout", pa.int64()),
        ("step", pa.int64()),
        ("roles", strings),
        ("fluents", strings),
        ("fluent_ids", pa.list_(pa.int64())),
        ("legal", pa.list_(strings)),
        ("terminal", pa.bool_()),
        ("goals", pa.list_(pa.int64())),
        ("playouts", pa.int64()),
        ("playout_terminal", pa.int64()),
        ("playout_mean_goal", pa.list_(pa.float64())),
        ("playout_goal_counts", pa.list_(pa.list_(pa.struct([("goal", pa.int64()),
                                                             ("count", pa.int64())])))),
        ("heuristics", pa.list_(pa.struct([("name", pa.string()),
                                           ("values", pa.list_(pa.float64()))]))),
    ])
