"""``BestFirstPlayer``: best-first search for single-player games (Aldinger 3.2.1).

The open list is ordered by a heuristic value of the player's role, Aldinger's f_JO by
default (``fjo``: the sum over the role's goal values q of (q - 50) / h_FF-distance), the
highest first. Every state is expanded at most once; the successors of one expansion are
valued in one ``Evaluate`` call. The best terminal state found is kept: a terminal state
with the highest goal value that the role can get (the highest value its goal rules
mention) ends the search at once.

When the budget is spent (the deadline, or ``nodes`` expansions) the player plays the first
move on the path to the best terminal found, or, with none found (or only worse than the
best open state's estimate), to the best open state. A path to a terminal of the highest
value is kept as a plan and followed in the moves after, without searching again.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
import time
from collections.abc import Hashable, Mapping
from typing import Any

from client.players.heuristic_values import HeuristicValues
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

__all__ = ["BestFirstPlayer"]

State = Hashable


class BestFirstPlayer:
    """Greedy best-first search over one role's heuristic value (see the module)."""

    name = "bestfirst"

    def __init__(self, rng: random.Random, *, heuristic: str = "fjo",
                 parameters: Mapping[str, object] | None = None, seconds: float = 1.0,
                 nodes: int = 0, best_goal: int = 100) -> None:
        """Args:
            rng: Seeded random generator (the order of equal states).
            heuristic: The service's heuristic ordering the open list.
            parameters: Its parameters.
            seconds: Time per move when ``choose`` is given no deadline.
            nodes: Expansions per move (0: no bound but the time).
            best_goal: A terminal of this goal value ends the search.
        """
        self.values = HeuristicValues(heuristic, parameters)
        self.seconds = seconds
        self.nodes = nodes
        self.best_goal = best_goal
        self._rng = rng
        self._game: GameView[Any] | None = None
        self._role = 0
        self._plan: dict[State, int] = {}
        # What the choices did (for logs and tests): expansions of the last search, and
        # searches since the player was made.
        self.expanded = 0
        self.searches = 0
        self.best_terminal: int | None = None

    def start(self, game: GameView[Any], role_index: int) -> None:
        self._game = game
        self._role = role_index
        self._plan = {}

    def choose(self, state: State, info: StateInfo, deadline: float | None = None) -> int:
        legal = info.legal[self._role]
        planned = self._plan.get(state)
        if planned is not None and planned in legal:
            return planned
        if len(legal) == 1:
            return legal[0]
        game = self._game
        assert game is not None
        end = deadline if deadline is not None else time.monotonic() + self.seconds
        # parent[s] = (the state before s, the player's move there); the root has none.
        parent: dict[State, tuple[State, int] | None] = {state: None}
        tie = itertools.count()
        opened: list[tuple[float, float, int, State]] = []
        heapq.heappush(opened, (0.0, self._rng.random(), next(tie), state))
        best_end: tuple[int, State] | None = None  # (goal, terminal state)
        best_open = (-math.inf, state)
        self.expanded = 0
        self.searches += 1
        while opened:
            if self.expanded and time.monotonic() >= end:
                break
            if self.nodes and self.expanded >= self.nodes:
                break
            _, _, _, current = heapq.heappop(opened)
            _, children = game.expand(current)
            self.expanded += 1
            fresh = []
            for joint, child, child_info in children:
                if child in parent:
                    continue
                parent[child] = (current, joint[self._role])
                if child_info.terminal:
                    goal = child_info.goal(self._role)
                    goal = -1 if goal is None else goal
                    if best_end is None or goal > best_end[0]:
                        best_end = (goal, child)
                else:
                    fresh.append((child, child_info))
            if best_end is not None and best_end[0] >= self.best_goal:
                break
            if fresh:
                for (child, _), value in zip(fresh, self.values(game, self._role, fresh),
                                             strict=True):
                    heapq.heappush(opened, (-value, self._rng.random(), next(tie), child))
                    if value > best_open[0]:
                        best_open = (value, child)
        target = best_open[1]
        if best_end is not None and (best_end[0] / 100.0 >= best_open[0] or
                                     best_end[0] >= self.best_goal):
            target = best_end[1]
        self.best_terminal = best_end[0] if best_end is not None else None
        path = self._path(parent, target)
        if not path:
            return self._rng.choice(legal)
        if best_end is not None and target == best_end[1] and best_end[0] >= self.best_goal:
            self._plan = dict(path)
        return path[0][1]

    @staticmethod
    def _path(parent: Mapping[State, tuple[State, int] | None],
              target: State) -> list[tuple[State, int]]:
        """The (state, move) steps from the root to ``target``."""
        steps = []
        link = parent.get(target)
        while link is not None:
            steps.append(link)
            link = parent[link[0]]
        return steps[::-1]

    def __repr__(self) -> str:
        return f"BestFirstPlayer({self.values!r})"
