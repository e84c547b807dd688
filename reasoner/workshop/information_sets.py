"""GDL-II measurements (``bench-gdl2``): how fast a role's information set is sampled, and
how strong the sampling player is against random play.

**Sampling.** For each turn asked, a seeded random game is played that far (every role's
move drawn uniformly from its legal ones, ``random``'s too), and the first role that a
player seats keeps its history: its own moves and the percepts :meth:`Game.percept_ids`
gives it. :func:`reasoner.engine.information_set.sample_information_set` is then asked for
``samples`` states within a million joint moves tried: the row gives the consistent states
found per second, the joint moves tried per state and how many of the samples are distinct
states (none found within the budget: a row of 0 states).

**Strength.** ``matches`` matches per seated role: the sampling player
(:class:`client.players.sampling.SamplingPlayer`, ``seconds`` per move) in that seat, every
other seat a random player and ``random`` moved uniformly; then the same matches, same
seeds, with a random player in its seat, for the baseline. A random player draws from the
legal moves of the true state, which a GDL-II role's legal moves are in a well-formed game
(they are the same throughout its information set). Each row gives both mean goals with a
95% interval (1.96 standard errors), and how many of the sampling player's moves were
replaced by a random legal move, as the manager replaces them: moves not legal in the true
state (in a game whose legality depends on what the role cannot see, a move legal in all
its particles may not be) and moves it could not give (no state of its information set
found within the search's budget).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import TYPE_CHECKING, Any

from reasoner.errors import ReasonerError, ResourceLimitError

if TYPE_CHECKING:
    from reasoner.engine.game import Game

__all__ = ["sampling_rate", "strength_against_random"]

# The joint moves one sampling row may try.
_BUDGET = 1_000_000


def _walk(game: Game, role: int, turns: int, rng: random.Random
          ) -> list[tuple[str, tuple[str, ...]]]:
    """A seeded random game of up to ``turns`` joint moves; ``role``'s history in it."""
    state, info = game.initial()
    history: list[tuple[str, tuple[str, ...]]] = []
    table = game.percept_table
    while not info.terminal and len(history) < turns:
        joint = tuple(rng.choice(legal) for legal in info.legal)
        seen = game.percept_ids(state, joint)[role]
        history.append((game.move_texts[joint[role]], tuple(table[i][1] for i in seen)))
        state, info = game.step(state, joint, check_legal=False)
    return history


def sampling_rate(game: Game, stem: str, turn: int, samples: int, seed: int
                  ) -> dict[str, Any] | None:
    """One row of the sampling table (None where the game ends before ``turn``)."""
    from reasoner.core.game_view import seated_roles
    from reasoner.engine.information_set import Turn, sample_information_set

    role = seated_roles(game)[0]
    history = _walk(game, role, turn, random.Random(f"{seed}/{stem}"))
    if len(history) < turn:
        return None
    turns = [Turn(move, percepts) for move, percepts in history]
    began = time.perf_counter()
    try:
        found = sample_information_set(game, game.roles[role], turns, samples, seed=seed,
                                       max_nodes=_BUDGET)
    except ResourceLimitError:  # not one state within the budget: a row that says so
        spent = time.perf_counter() - began
        return {"game": stem, "role": game.roles[role], "turn": turn, "states": 0,
                "percepts": game.percept_source,
                "distinct": 0, "states_per_second": 0.0, "nodes_per_state": None,
                "seconds": round(spent, 3), "exhausted": True}
    distinct = len({state.bits for state in found.states})
    seconds = max(found.seconds, 1e-9)
    return {"game": stem, "role": game.roles[role], "turn": turn,
            "percepts": game.percept_source, "states": len(found.states), "distinct": distinct,
            "states_per_second": round(len(found.states) / seconds, 1),
            "nodes_per_state": round(found.nodes / max(len(found.states), 1), 1),
            "seconds": round(found.seconds, 3), "exhausted": found.exhausted}


def _match(game: Game, seat: int, sampling: bool, seconds: float, seed: str,
           max_steps: int = 200) -> tuple[float, int]:
    """One match; the goal of ``seat``, played by the sampling player or at random, and the
    moves of the sampling player that were not legal in the true state, or that it could
    not give (no state of its information set found within the search's budget): each is
    replaced by a random legal move, as the manager replaces them. In a game whose legality
    depends on what the role cannot see, its particles may allow a move the true state
    does not."""
    from reasoner.console.players import SamplingPlayer

    rng = random.Random(seed)
    player = SamplingPlayer(random.Random(f"{seed}/player")) if sampling else None
    state, info = game.initial()
    history: list[tuple[str, tuple[str, ...]]] = []
    table = game.percept_table
    steps = illegal = 0
    refused: dict[int, str] = {}  # per turn, the move the player was refused
    while not info.terminal and steps < max_steps:
        joint = [rng.choice(legal) for legal in info.legal]
        if player is not None and len(info.legal[seat]) > 1:
            try:
                chosen = player.choose(game, seat, history, time.monotonic() + seconds,
                                       refused)
            except ReasonerError:  # no state of its information set found: no move
                chosen = -1
            if chosen in info.legal[seat]:
                joint[seat] = chosen
            else:
                illegal += 1
                if chosen >= 0:  # told, as the manager's next play tells it
                    refused[steps] = game.move_texts[chosen]
        seen = game.percept_ids(state, tuple(joint))[seat]
        history.append((game.move_texts[joint[seat]], tuple(table[i][1] for i in seen)))
        state, info = game.step(state, tuple(joint))
        steps += 1
    values = info.goals[seat]
    return (float(values[0]) if info.terminal and len(values) == 1 else 0.0), illegal


def strength_against_random(game: Game, stem: str, seat: int, matches: int, seconds: float,
                            seed: int) -> dict[str, Any]:
    """One row of the strength table: the sampling player's mean goal in ``seat`` over
    ``matches`` matches against random play, and a random player's in the same matches."""
    rows: dict[str, list[float]] = {"sampling": [], "random": []}
    illegal = 0
    for k in range(matches):
        for kind in rows:
            goal, wrong = _match(game, seat, kind == "sampling", seconds,
                                 f"{seed}/{stem}/{seat}/{k}")
            rows[kind].append(goal)
            illegal += wrong

    def summary(goals: list[float]) -> tuple[float, float]:
        mean = statistics.fmean(goals)
        half = (1.96 * statistics.stdev(goals) / math.sqrt(len(goals))
                if len(goals) > 1 else 0.0)
        return round(mean, 1), round(half, 1)

    (mean, half), (base, base_half) = summary(rows["sampling"]), summary(rows["random"])
    return {"game": stem, "role": game.roles[seat], "matches": matches,
            "seconds_per_move": seconds, "sampling_mean": mean, "sampling_ci95": half,
            "random_mean": base, "random_ci95": base_half, "replaced_moves": illegal}
