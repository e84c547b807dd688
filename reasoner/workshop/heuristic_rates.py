"""Heuristic rates: how fast the heuristics evaluate, and whether they help a player
(``bench-heuristics``).

* :func:`evaluation_rate`: evaluations per second of one heuristic over a fixed sample of
  states from seeded random playouts, the median of several runs; the baseline measured in
  the same run is the value estimate a player gets without heuristics, one random playout
  per state (:func:`playout_rate`).
* :func:`greedy_against_random`: a one-ply greedy player (:class:`GreedyPlayer`: it
  evaluates the successor of each of its legal moves and plays the best, ties broken at
  random) against random players, seats alternating, played by the one match loop
  (:func:`client.match.play_match`, through :mod:`reasoner.console.players`); the baseline
  measured in the same run is a random player in the same seats.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reasoner.console.players import Player, RandomPlayer, play_match
from reasoner.core.game_view import GameView
from reasoner.core.outcome import Outcome, outcome
from reasoner.core.values import State, StateInfo
from reasoner.core.walk import random_playout
from reasoner.engine.game import Game
from reasoner.heuristics.game_heuristics import GameHeuristics
from reasoner.heuristics.table import heuristic

__all__ = ["GreedyPlayer", "MatchTally", "evaluation_rate", "greedy_against_random",
           "playout_rate"]


def _median_rate(work: Callable[[], object], count: int, runs: int) -> float:
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        rates.append(count / (time.perf_counter() - start))
    return statistics.median(rates)


def evaluation_rate(heuristics: GameHeuristics, name: str, role: str, states: list[State],
                    parameters: dict[str, str] | None = None, runs: int = 5) -> float:
    """Median evaluations per second of heuristic ``name`` over ``states`` (one batch per
    run; what the heuristic builds once is built before timing)."""
    heuristics.evaluate(name, role, states[:1], parameters)
    return _median_rate(lambda: heuristics.evaluate(name, role, states, parameters),
                        len(states), runs)


def playout_rate(game: Game, states: list[State], runs: int = 5, seed: int = 0) -> float:
    """Median single-playout value estimates per second over ``states`` (the baseline)."""
    rng = random.Random(seed)

    def work() -> None:
        for state in states:
            random_playout(game, state, rng, 1000)

    return _median_rate(work, len(states), runs)


class GreedyPlayer:
    """Plays the legal move whose successor a heuristic values best for its role, the
    other roles playing their first legal move (their only one in a turn-taking game);
    ties are broken by its seeded random generator."""

    name = "greedy"

    def __init__(self, heuristics: GameHeuristics, heuristic_name: str, rng: random.Random,
                 parameters: dict[str, str] | None = None) -> None:
        self._heuristics = heuristics
        self._name = heuristic_name
        self._sign = -1.0 if heuristic(heuristic_name).lower_is_better else 1.0
        self._rng = rng
        self._parameters = parameters
        self._role = 0

    def start(self, game: GameView[Any], role_index: int) -> None:
        del game
        self._role = role_index

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        game = self._heuristics.game
        legal = info.legal[self._role]
        others = [moves[0] for moves in info.legal]
        successors = []
        for move in legal:
            others[self._role] = move
            successors.append(game.step(state, tuple(others), check_legal=False)[0])
        found = self._heuristics.evaluate(self._name, game.roles[self._role], successors,
                                          self._parameters, previous=state)
        values = [self._sign * e.value for e in found]
        best = max(values)
        return self._rng.choice([m for m, v in zip(legal, values, strict=True) if v == best])


@dataclass(frozen=True)
class MatchTally:
    """Results of one player over several matches, from its own seat's goal values."""

    matches: int
    wins: int  # see reasoner.core.outcome.outcome
    draws: int
    losses: int
    mean_goal: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


def greedy_against_random(heuristics: GameHeuristics, name: str | None, matches: int,
                          seed: int = 0, parameters: dict[str, str] | None = None,
                          max_steps: int = 500) -> MatchTally:
    """``matches`` matches of a greedy player on heuristic ``name`` (None: a random
    player, the baseline) against random players; match ``i`` seats it as role
    ``i mod roles``."""
    game = heuristics.game
    wins = draws = losses = 0
    total = 0.0
    for match in range(matches):
        index = match % len(game.roles)
        players: list[Player] = [RandomPlayer(random.Random(f"{seed}/{match}/{seat}"))
                                 for seat in range(len(game.roles))]
        if name is not None:
            players[index] = GreedyPlayer(heuristics, name,
                                          random.Random(f"{seed}/{match}/greedy"), parameters)
        result = play_match(game, players, max_steps=max_steps)
        goal = result.goals[index]
        total += 0 if goal is None else goal
        ended = outcome(result.goals, index)
        wins += ended == Outcome.WIN
        draws += ended == Outcome.DRAW
        losses += ended == Outcome.LOSS
    return MatchTally(matches, wins, draws, losses, total / matches if matches else 0.0)
