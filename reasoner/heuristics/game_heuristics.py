"""One game's heuristics: what they build once, and batched evaluation by name.

:class:`GameHeuristics` keeps, per loaded game, what the heuristics build once (the relaxed
view, fuzzy formulas, detected structures) and evaluates batches of states with the
builders of the one registry, :data:`reasoner.heuristics.table.HEURISTICS` (which knows
this class only as :class:`~reasoner.heuristics.table.Prepared`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from reasoner.core.evaluation import Evaluation
from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.errors import HeuristicError
from reasoner.heuristics.distances import GoalDistances
from reasoner.heuristics.relaxed import (
    DEFAULT_VIEW_BOUNDS,
    RelaxedGame,
    ViewBounds,
    relaxed_network,
)
from reasoner.heuristics.table import HEURISTICS, heuristic
from reasoner.propnet.network import Network

if TYPE_CHECKING:
    from reasoner.heuristics.analysis import GameAnalysis
    from reasoner.heuristics.fuzzy import FuzzyEvaluator

__all__ = ["KEPT_PER_GAME", "GameHeuristics"]


# Built views and evaluators kept per game, per kind: each distinct parameter value builds
# one (a fuzzy evaluator of a large game holds megabytes), so a client sweeping a float
# parameter must not grow the server without bound. The least recently used go first.
KEPT_PER_GAME = 8
# Estimates of what built heuristics hold (see GameHeuristics.held_bytes).
_BYTES_PER_EDGE = 1536
_BYTES_PER_CHARACTER = 20


K = TypeVar("K")
V = TypeVar("V")


def _keep_recent(built: OrderedDict[K, V], used: K) -> None:
    """Mark ``used`` as just used and drop the least recently used past KEPT_PER_GAME."""
    built.move_to_end(used)
    while len(built) > KEPT_PER_GAME:
        built.popitem(last=False)


class GameHeuristics:
    """What one game's heuristics build once, and batched evaluation.

    Safe to share between threads: building is serialised, evaluation reads only.
    """

    def __init__(self, game: Game, bounds: ViewBounds = DEFAULT_VIEW_BOUNDS,
                 analysis_playouts: int = 20, seed: int = 0,
                 analysis_seconds: float | None = 10.0) -> None:
        """Args:
            bounds: How large the relaxed view may get.
            analysis_playouts, seed: The seeded playouts structure detection checks its
                hypotheses on.
            analysis_seconds: Cut the playouts short after this long (on large games on
                the clingo backend); None: no bound, the result depends on the seed alone.
        """
        self.game = game
        self._bounds = bounds
        self._analysis_seconds = analysis_seconds
        self._playouts = analysis_playouts
        self._seed = seed
        self._lock = threading.Lock()
        self._distances: OrderedDict[int, GoalDistances] = OrderedDict()
        self._fuzzy: OrderedDict[tuple[float, float, float, int], FuzzyEvaluator] = \
            OrderedDict()
        self._analysis: GameAnalysis | None = None
        self._network: Network | None = None

    # -- what is built once ----------------------------------------------------------------

    def distances(self, world_cost: int = 0) -> GoalDistances:
        """The goal distances on the relaxed view with this cost of the world's changes.

        Raises:
            ResourceLimitError: the game is too large for the relaxed view.
        """
        with self._lock:
            found = self._distances.get(world_cost)
            if found is None:
                view = RelaxedGame(self._game_network(), world_cost=world_cost,
                                   max_rules=self._bounds.rules)
                found = self._distances[world_cost] = GoalDistances(self.game, view)
            _keep_recent(self._distances, world_cost)
            return found

    def held_bytes(self) -> int:
        """The estimated memory of what is built and kept: the relaxed network and the
        compiled fuzzy evaluations (measured: 6 to 19 bytes a character of their source,
        44.6 MiB for eight of checkers)."""
        with self._lock:
            network = self._network
            edges = network.size.edges if network is not None else 0
            return (_BYTES_PER_EDGE * edges
                    + _BYTES_PER_CHARACTER * sum(len(e.source) for e in self._fuzzy.values()))

    def _game_network(self) -> Network:
        """The game's network, built once for a game on the clingo backend (call with the
        lock held)."""
        if self._network is None:
            self._network = relaxed_network(self.game, self._bounds)
        return self._network

    def analysis(self) -> GameAnalysis:
        """Structures and features, detected once (seeded simulation)."""
        from reasoner.heuristics.analysis import analyze_game

        with self._lock:
            if self._analysis is None:
                self._analysis = analyze_game(self.game, playouts=self._playouts,
                                              seed=self._seed,
                                              time_limit=self._analysis_seconds)
            return self._analysis

    def fuzzy(self, p: float, t: float, q: float, structures: bool) -> FuzzyEvaluator:
        """The fuzzy evaluator with these parameters (structure refinements or not)."""
        from reasoner.heuristics.fuzzy import FuzzyEvaluator, FuzzyParameters

        found_structures = self.analysis().structures if structures else None
        key = (p, t, q, int(structures))
        with self._lock:
            found = self._fuzzy.get(key)
            if found is None:
                found = FuzzyEvaluator(self.game, FuzzyParameters(p=p, t=t, q=q),
                                       found_structures, network=self._game_network())
                self._fuzzy[key] = found
            _keep_recent(self._fuzzy, key)
            return found

    @property
    def held(self) -> int:
        """How many relaxed views and fuzzy evaluators are kept (at most
        :data:`KEPT_PER_GAME` of each)."""
        with self._lock:
            return len(self._distances) + len(self._fuzzy)

    # -- evaluation ----------------------------------------------------------------------

    def evaluate(self, name: str, role: str, states: Sequence[State],
                 parameters: Mapping[str, str] | None = None, *, plan: bool = False,
                 previous: State | None = None,
                 check: Callable[[], None] = lambda: None) -> list[Evaluation]:
        """Evaluate ``states`` for ``role`` with heuristic ``name``.

        Args:
            parameters: The heuristic's parameters as text (see :data:`HEURISTICS`).
            plan: Return the relaxed plan with each value (h_FF, f_JO, extended FF).
            previous: The state before the first one (novelty compares with it; each
                later state is compared with the one before it in ``states``).
            check: Called between states (a request's deadline check).

        Raises:
            HeuristicError: unknown heuristic, parameter or role, a value out of range,
                or a heuristic that does not apply to this game or state.
            ResourceLimitError: the game is too large for the heuristic's structures.
        """
        entry = heuristic(name)
        settings = entry.parse(parameters or {})
        if role not in self.game.roles:
            raise HeuristicError(f"unknown role {role!r}; the roles are "
                                 f"{', '.join(self.game.roles)}", heuristic=name,
                                 reason="unknown-role")
        if plan and not entry.plans:
            plans = ", ".join(h.name for h in HEURISTICS.values() if h.plans)
            raise HeuristicError(f"heuristic {name} has no plan; the heuristics with plans "
                                 f"are {plans}", heuristic=name, reason="no-plan")
        one = entry.build(self, role, settings, plan)
        results: list[Evaluation] = []
        before = previous
        for state in states:
            check()
            try:
                results.append(one(state, before))
            except ValueError as error:
                if isinstance(error, HeuristicError):
                    raise
                raise HeuristicError(str(error),
                                     reason=getattr(error, "reason", None)) from None
            before = state
        return results
