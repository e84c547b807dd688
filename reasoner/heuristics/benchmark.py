"""How fast the heuristics evaluate, and whether they help a player (issue 7's benchmark).

* :func:`evaluation_rate`: evaluations per second of one heuristic over a fixed sample of
  states from seeded random playouts, the median of several runs; the baseline measured in
  the same run is the value estimate a player gets without heuristics, one random playout
  per state.
* :func:`greedy_against_random`: a one-ply greedy player (it evaluates the successor of
  each of its legal moves and plays the best, ties broken at random) against random
  players, seats alternating; the baseline measured in the same run is a random player in
  the same seats.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from reasoner.engine.game import Game
from reasoner.engine.values import Move, State
from reasoner.engine.walk import random_playout, sample_states
from reasoner.heuristics.catalogue import GameHeuristics, heuristic

__all__ = ["MatchTally", "check_file_heuristics", "evaluation_rate", "greedy_against_random",
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


@dataclass(frozen=True)
class MatchTally:
    """Results of one player over several matches, from its own seat's goal values."""

    matches: int
    wins: int  # its goal value above every other role's
    draws: int  # equal to the best other role's
    losses: int
    mean_goal: float

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


def _greedy_move(heuristics: GameHeuristics, name: str, role: str, state: State,
                 others: dict[str, Move], rng: random.Random,
                 parameters: dict[str, str] | None) -> Move:
    game = heuristics.game
    moves = game.legal_moves(state, role)
    if len(moves) == 1:
        return moves[0]
    successors = [game.next_state(state, {**others, role: move}) for move in moves]
    values = [e.value for e in heuristics.evaluate(name, role, successors, parameters,
                                                   previous=state)]
    if heuristic(name).lower_is_better:
        values = [-v for v in values]
    best = max(values)
    return rng.choice([m for m, v in zip(moves, values, strict=True) if v == best])


def greedy_against_random(heuristics: GameHeuristics, name: str | None, matches: int,
                          seed: int = 0, parameters: dict[str, str] | None = None,
                          max_steps: int = 500) -> MatchTally:
    """``matches`` matches of a greedy player on heuristic ``name`` (None: a random
    player, the baseline) against random players; match ``i`` seats it as role
    ``i mod roles``."""
    game = heuristics.game
    rng = random.Random(seed)
    wins = draws = losses = 0
    total = 0.0
    for match in range(matches):
        seat = game.roles[match % len(game.roles)]
        state = game.initial_state
        for _ in range(max_steps):
            if game.info(state).terminal:
                break
            joint = {role: rng.choice(game.legal_moves(state, role)) for role in game.roles}
            if name is not None:
                others = {role: move for role, move in joint.items() if role != seat}
                joint[seat] = _greedy_move(heuristics, name, seat, state, others, rng,
                                           parameters)
            state = game.next_state(state, joint)
        values = [found[0] if len(found) == 1 else 0 for found in game.info(state).goals]
        index = game.roles.index(seat)
        mine = values[index]
        best_other = max((v for r, v in enumerate(values) if r != index), default=0)
        total += mine
        if mine > best_other:
            wins += 1
        elif mine == best_other:
            draws += 1
        else:
            losses += 1
    return MatchTally(matches, wins, draws, losses, total / matches if matches else 0.0)


def check_file_heuristics(text: str, states: int = 3, seed: int = 0) -> dict[str, str]:
    """Evaluate every heuristic (except per-feature ones) for every role on the initial
    state and the ``states`` that follow it in a seeded random playout: what a corpus sweep
    runs per file (in a bounded child). Returns per heuristic "ok" or the clean refusal it
    gave
    (``HeuristicError``/``ResourceLimitError``: ``"refused: ..."``); anything else raises.
    """
    from reasoner.errors import HeuristicError, ResourceLimitError
    from reasoner.heuristics.catalogue import HEURISTICS

    game = Game.from_gdl(text)
    heuristics = GameHeuristics(game)
    # The initial state first, then the playout's next states.
    sampled = [state for state, _ in sample_states(game, game.initial_state, states + 1, seed=seed)]
    sampled = sampled or [game.initial_state]
    fates: dict[str, str] = {}
    for name in HEURISTICS:
        if name == "feature":
            continue
        try:
            for role in game.roles:
                found = heuristics.evaluate(name, role, sampled)
                if any(e.value != e.value for e in found):  # NaN
                    raise AssertionError(f"{name} gave NaN for {role}")
            fates[name] = "ok"
        except (HeuristicError, ResourceLimitError) as error:
            fates[name] = f"refused: {type(error).__name__}: {error}"
    analysis = heuristics.analysis()
    fates["analysis"] = f"ok: {len(analysis.features)} feature(s)"
    return fates
