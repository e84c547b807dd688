"""``AlphaBetaPlayer``: iterative-deepening alpha-beta over the service's heuristics.

Values are the player's own, in 0..1: a terminal state is worth its goal / 100, a state at
the search's depth the heuristic's value (:class:`HeuristicValues`, ``fuzzy`` by default).
In a two-player game a leaf is worth ``(h_me + 1 - h_other) / 2``, a zero-sum value, so the
opponent that minimises it maximises its own heuristic value: each mover maximises its own
view, as docs/semantics/search.md says, and this is minimax. With more players the search is
*paranoid*: the others are taken to minimise the player's own value ``h_me``.

A node's joint moves are grouped by the player's own move: the player picks its move
(max), then the other roles pick theirs knowing it (min), which is alpha-beta for
turn-taking games (only one role has a choice at a node) and a cautious reading of
simultaneous moves. The leaves under a node are valued in one ``Evaluate`` call.

Iterative deepening runs depth 1, 2, ... until the deadline; a depth that the deadline
interrupts is dropped and the best move of the last finished depth is played. A
transposition table keyed by state keeps each node's value with its bound and depth and
its best move, which is tried first at the next depth (move ordering from the previous
iteration); it is kept from one move of the match to the next. An iteration whose value
took no heuristic value (every line it searched ends in a terminal state) is the game's
value, and stops the deepening.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from client.players.heuristic_values import HeuristicValues
from reasoner.core.game_view import GameView
from reasoner.core.values import StateInfo

__all__ = ["AlphaBetaPlayer"]

State = Hashable
Joint = tuple[int, ...]

_EXACT, _LOWER, _UPPER = 0, 1, 2


class _OutOfTime(Exception):
    """The deadline passed inside a depth's search."""


@dataclass(slots=True)
class _Entry:
    depth: int
    value: float
    bound: int
    best: int | None  # the player's own best move (id) at this node
    # True when no heuristic value went into it (every line searched ends in a terminal
    # state): then it holds at any depth.
    exact: bool


class AlphaBetaPlayer:
    """Iterative-deepening alpha-beta with a transposition table (see the module)."""

    name = "alphabeta"

    def __init__(self, rng: random.Random, *, heuristic: str = "fuzzy",
                 parameters: Mapping[str, object] | None = None, max_depth: int = 64,
                 seconds: float = 1.0, max_nodes: int = 500_000) -> None:
        """Args:
            rng: Seeded random generator (the order of equal moves).
            heuristic: The service's heuristic that values the leaves (see
                :data:`client.players.heuristic_values.VALUE_HEURISTICS`).
            parameters: Its parameters.
            max_depth: Deepest iteration (joint moves below the root).
            seconds: Time per move when ``choose`` is given no deadline.
            max_nodes: Size of the transposition table at which it is cleared before a
                move (a bound on memory in long matches).
        """
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, got {max_depth}")
        self.values = HeuristicValues(heuristic, parameters)
        self.max_depth = max_depth
        self.seconds = seconds
        self.max_nodes = max_nodes
        self._rng = rng
        self._game: GameView[Any] | None = None
        self._role = 0
        self._table: dict[State, _Entry] = {}
        self._children: dict[State, dict[int, list[tuple[Joint, State, StateInfo]]]] = {}
        self._leaves: dict[State, float] = {}
        self._deadline = math.inf
        self._guesses = 0  # heuristic values used by the current iteration
        # What the last choice reached (for logs and tests).
        self.last_depth = 0
        self.last_value = 0.0
        self.nodes = 0

    def start(self, game: GameView[Any], role_index: int) -> None:
        self._game = game
        self._role = role_index
        self._table = {}
        self._children = {}
        self._leaves = {}

    def choose(self, state: State, info: StateInfo, deadline: float | None = None) -> int:
        legal = info.legal[self._role]
        if len(legal) == 1:
            return legal[0]
        if len(self._table) + len(self._children) > self.max_nodes:
            self._table, self._children, self._leaves = {}, {}, {}
        self._deadline = deadline if deadline is not None else time.monotonic() + self.seconds
        best = self._rng.choice(legal)  # ready before the search starts
        self.last_depth, self.nodes = 0, 0
        for depth in range(1, self.max_depth + 1):
            self._guesses = 0
            try:
                value = self._search(state, info, depth, -math.inf, math.inf)
            except _OutOfTime:
                break
            entry = self._table[state]
            if entry.best is not None:
                best = entry.best
            self.last_depth, self.last_value = depth, value
            if self._guesses == 0:
                break  # proven: no heuristic value went into it, deeper changes nothing
        return best

    # -- the search ------------------------------------------------------------------------

    def _search(self, state: State, info: StateInfo, depth: int, alpha: float,
                beta: float) -> float:
        """The player's value of ``state`` searched ``depth`` joint moves deep, within
        (alpha, beta) (a fail-hard bound outside it)."""
        if info.terminal:
            goal = info.goal(self._role)
            return 0.0 if goal is None else goal / 100.0
        entry = self._table.get(state)
        if entry is not None and (entry.depth >= depth or entry.exact):
            usable = (entry.bound == _EXACT
                      or (entry.bound == _LOWER and entry.value >= beta)
                      or (entry.bound == _UPPER and entry.value <= alpha))
            if usable:
                self._guesses += not entry.exact
                return entry.value
        if time.monotonic() >= self._deadline:
            raise _OutOfTime
        self.nodes += 1
        before = self._guesses
        groups = self._groups(state)
        if depth == 1:
            self._value_leaves(groups)
        order = list(groups)
        if entry is not None and entry.best in groups:
            order.remove(entry.best)
            order.insert(0, entry.best)
        floor = alpha
        best_value, best_move = -math.inf, order[0]
        for move in order:
            worst = math.inf
            for _, child, child_info in groups[move]:
                if child_info.terminal:
                    value = self._search(child, child_info, 0, floor, worst)
                elif depth == 1:
                    value = self._leaves[child]
                    self._guesses += 1
                else:
                    value = self._search(child, child_info, depth - 1, floor, min(beta, worst))
                worst = min(worst, value)
                if worst <= floor:
                    break  # this move cannot beat one already found
            if worst > best_value:
                best_value, best_move = worst, move
            floor = max(floor, best_value)
            if best_value >= beta:
                break
        bound = (_UPPER if best_value <= alpha else _LOWER if best_value >= beta else _EXACT)
        self._table[state] = _Entry(depth, best_value, bound, best_move,
                                    self._guesses == before)
        return best_value

    def _groups(self, state: State) -> dict[int, list[tuple[Joint, State, StateInfo]]]:
        """The successors of ``state`` by the player's own move (one Expand, kept)."""
        found = self._children.get(state)
        if found is None:
            assert self._game is not None
            _, children = self._game.expand(state)
            found = {}
            for joint, child, child_info in children:
                found.setdefault(joint[self._role], []).append((joint, child, child_info))
            self._children[state] = found
        return found

    def _value_leaves(self, groups: dict[int, list[tuple[Joint, State, StateInfo]]]) -> None:
        """Value every non-terminal child not valued yet, in one call per role asked."""
        assert self._game is not None
        fresh: dict[State, StateInfo] = {}
        for children in groups.values():
            for _, child, child_info in children:
                if not child_info.terminal and child not in self._leaves:
                    fresh[child] = child_info
        if not fresh:
            return
        pairs = list(fresh.items())
        mine = self.values(self._game, self._role, pairs)
        if len(self._game.roles) == 2:
            theirs = self.values(self._game, 1 - self._role, pairs)
            mine = [(m + 1.0 - t) / 2.0 for m, t in zip(mine, theirs, strict=True)]
        for (child, _), value in zip(pairs, mine, strict=True):
            self._leaves[child] = value

    def __repr__(self) -> str:
        return f"AlphaBetaPlayer({self.values!r}, max_depth={self.max_depth})"
