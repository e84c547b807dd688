"""Benchmarks: random-playout state updates per second and load time.

One *state update* is what a Monte-Carlo player needs per step: the legal moves of all roles,
a random joint move, the next state and the terminal test. Figures are medians over runs.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.engine.game import Game

__all__ = ["BenchResult", "bench_game", "playout_rate"]


@dataclass(frozen=True)
class BenchResult:
    """The figures for one game and backend."""

    game: str
    backend: str
    updates_per_sec: float
    load_ms: float
    runs: int
    updates_per_run: list[int]
    rates: list[float]
    load_runs_ms: list[float]
    fluents: int
    moves: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def playout_rate(game: Game, seconds: float, seed: int) -> tuple[int, float]:
    """Run seeded random playouts for about ``seconds``; return (updates, updates/s)."""
    rng = random.Random(seed)
    choice = rng.choice
    updates = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.initial_state
        info = game.info(state)
        while not info.terminal:
            state, info = game.step(state, tuple(choice(legal) for legal in info.legal))
            updates += 1
    elapsed = time.perf_counter() - start
    return updates, updates / elapsed


def bench_game(name: str, text: str, runs: int = 3, seconds: float = 2.0,
               seed: int = 0) -> BenchResult:
    """Median load time and playout rate of the clingo backend over ``runs`` runs.

    Args:
        name: The game's file name (its stem names the game in the results).
        text: The GDL rules.
    """
    loads: list[float] = []
    rates: list[float] = []
    counts: list[int] = []
    game = None
    for run in range(runs):
        start = time.perf_counter()
        game = Game.from_gdl(text)
        loads.append((time.perf_counter() - start) * 1e3)
        count, rate = playout_rate(game, seconds, seed + run)
        counts.append(count)
        rates.append(rate)
    assert game is not None
    return BenchResult(
        game=Path(name).stem, backend="clingo", updates_per_sec=round(statistics.median(rates), 1),
        load_ms=round(statistics.median(loads), 2), runs=runs, updates_per_run=counts,
        rates=[round(r, 1) for r in rates], load_runs_ms=[round(x, 2) for x in loads],
        fluents=len(game.fluents), moves=len(game.all_moves),
    )
