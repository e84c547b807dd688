"""A player for GDL-II games: Monte Carlo over states sampled from its information set.

A GDL-II role does not see the state. Before each move this player asks its game for
states consistent with what it has seen (its own moves and percepts,
``sample_information_set``), takes as its legal moves those legal in every sampled state
(a well-formed GDL-II game makes a role's legal moves the same throughout an information
set), and then, until its deadline, plays each of them once from each sampled state, the
others' moves drawn at random, followed by a random playout; it answers the move with the
best mean goal (determinised flat Monte Carlo: each sample is treated as if it were the
true state, which overrates moves that only pay off when one knows the state).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any, Protocol

from reasoner.core.values import StateInfo

__all__ = ["InformationGame", "SamplingPlayer"]

History = Sequence[tuple[str, Sequence[str]]]


class InformationGame(Protocol):
    """What the player asks of a GDL-II game (an in-process game or a remote one)."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    def info(self, state: Any) -> StateInfo: ...

    def step(self, state: Any, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[Any, StateInfo]: ...

    def simulate(self, state: Any, playouts: int = 1, seed: int = 0,
                 max_steps: int = 1000) -> Any: ...

    def sample_information_set(self, role: str, history: History, count: int = 1, *,
                               seed: int = 0, max_nodes: int = 0
                               ) -> tuple[list[Any], int, bool]: ...


class SamplingPlayer:
    """Chooses a GDL-II move from ``samples`` states of the information set."""

    def __init__(self, rng: random.Random, *, samples: int = 8, max_steps: int = 200) -> None:
        self.rng = rng
        self.samples = samples
        self.max_steps = max_steps

    def choose(self, game: InformationGame, role: int, history: History,
               deadline: float) -> int:
        """The move id to play after ``history`` (this role's (move, percepts) per turn),
        chosen by ``deadline`` (``time.monotonic()``)."""
        states, _, _ = game.sample_information_set(
            game.roles[role], history, self.samples, seed=self.rng.randrange(2**32))
        infos = [game.info(state) for state in states]
        legal = set(infos[0].legal[role])
        for info in infos[1:]:
            legal &= set(info.legal[role])
        moves = sorted(legal) or list(infos[0].legal[role])
        if len(moves) == 1:
            return moves[0]
        totals = dict.fromkeys(moves, 0.0)
        counts = dict.fromkeys(moves, 0)
        while time.monotonic() < deadline:
            for state, info in zip(states, infos, strict=True):
                for move in moves:
                    if time.monotonic() >= deadline:
                        break
                    totals[move] += self._value(game, role, state, info, move)
                    counts[move] += 1
        return max(moves, key=lambda m: (totals[m] / counts[m] if counts[m] else -1.0,
                                         self.rng.random()))

    def _value(self, game: InformationGame, role: int, state: Any, info: StateInfo,
               move: int) -> float:
        rng = self.rng
        joint = tuple(move if r == role else rng.choice(legal) if legal else move
                      for r, legal in enumerate(info.legal))
        following, after = game.step(state, joint, check_legal=False)
        if after.terminal:
            return float(after.goal(role) or 0)
        run = game.simulate(following, 1, rng.randrange(2**63), self.max_steps)
        values = run.goals[0][role] if run.goals else ()
        return float(values[0]) if values else 0.0
