"""The heuristics the service computes, by name, with their parameters and checks.

Every heuristic evaluates a state for one role. Parameters arrive as text (a gRPC map, a
command line ``name=value``), are checked against their ranges here, and an unknown name or
a value out of range is a :class:`reasoner.errors.HeuristicError` that lists what is
allowed. :class:`GameHeuristics` keeps, per loaded game, what the heuristics build once (the
relaxed view, fuzzy formulas, detected structures) and evaluates batches of states.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reasoner.engine.game import Game
from reasoner.engine.values import State
from reasoner.errors import HeuristicError
from reasoner.heuristics.distances import GoalDistances, PlanStep
from reasoner.heuristics.relaxed import (
    DEFAULT_VIEW_BOUNDS,
    RelaxedGame,
    ViewBounds,
    relaxed_network,
)
from reasoner.propnet.network import Network

if TYPE_CHECKING:
    from reasoner.heuristics.analysis import GameAnalysis
    from reasoner.heuristics.fuzzy import FuzzyEvaluator

__all__ = ["HEURISTICS", "Evaluation", "GameHeuristics", "Heuristic", "Parameter",
           "parse_parameters"]

Value = int | float | str


@dataclass(frozen=True)
class Parameter:
    """A heuristic's parameter: its type, default, and the range it must lie in."""

    name: str
    kind: type[int] | type[float] | type[str]
    default: Value | None  # None: the heuristic decides (e.g. the role's highest goal)
    allowed: str  # the range in words, for error messages and help
    check: Callable[[Value], bool] = lambda value: True

    def parse(self, heuristic: str, text: str) -> Value:
        try:
            value: Value = self.kind(text)
        except ValueError:
            raise HeuristicError(
                f"parameter {self.name} of heuristic {heuristic} must be {self.allowed}, "
                f"got {text!r}") from None
        if (isinstance(value, float) and not math.isfinite(value)) or not self.check(value):
            raise HeuristicError(
                f"parameter {self.name} of heuristic {heuristic} must be {self.allowed}, "
                f"got {text}")
        return value


@dataclass(frozen=True)
class Heuristic:
    """A named heuristic: what it computes, its parameters, whether it can show a plan."""

    name: str
    summary: str
    parameters: tuple[Parameter, ...] = ()
    plans: bool = False
    lower_is_better: bool = False  # a distance: the smaller, the closer to the goal


def _probability(value: Value) -> bool:
    return isinstance(value, float) and 0.5 < value < 1.0


_GOAL = Parameter("goal", int, None, "a goal value of the role (default: its highest)",
                  lambda v: isinstance(v, int) and 0 <= v <= 100)
_WORLD = Parameter("world_cost", int, 0, "0 or 1", lambda v: v in (0, 1))

HEURISTICS: dict[str, Heuristic] = {h.name: h for h in (
    Heuristic("hmax", "relaxed distance to the goal: the cost of its costliest fact",
              (_GOAL, _WORLD), lower_is_better=True),
    Heuristic("hadd", "relaxed distance to the goal: the summed costs of its facts",
              (_GOAL, _WORLD), lower_is_better=True),
    Heuristic("hff", "relaxed distance to the goal: the cost of an extracted relaxed plan",
              (_GOAL, _WORLD), plans=True, lower_is_better=True),
    Heuristic("fjo", "Aldinger's f_JO: goal values shifted to -50..50, each divided by its "
              "h_FF distance, summed (g - 50 in a terminal state)", (_WORLD,), plans=True),
    Heuristic("extended-ff", "Bercher's two-player FF: plies until the goal with the players "
              "moving in turn", (_GOAL, _WORLD,
                                 Parameter("mover", str, None,
                                           "a role of the game (default: the role to move)")),
              plans=True, lower_is_better=True),
    Heuristic("fuzzy", "Schiffel & Thielscher's fuzzy goal evaluation, 0..1", (
        Parameter("p", float, 0.8, "a number with 0.5 < p < 1 and t <= p", _probability),
        Parameter("t", float, 0.65, "a number with 0.5 < t < 1 and t <= p", _probability),
        Parameter("q", float, 10.0, "a number >= 1",
                  lambda v: isinstance(v, float) and v >= 1.0),
        Parameter("structures", int, 1, "0 or 1 (refine atoms by detected structures)",
                  lambda v: v in (0, 1)),
    )),
    Heuristic("feature", "a Kuhlmann feature as an evaluation in R- + 1 .. R+ - 1 "
              "(see AnalyzeGame for the names)", (
                  Parameter("name", str, None, "a feature name that AnalyzeGame lists"),
                  Parameter("direction", str, "max", "max or min",
                            lambda v: v in ("max", "min")))),
    Heuristic("mobility", "the role's legal moves, scaled to 0..1",
              (Parameter("relative", int, 0, "0 or 1 (1: minus the opponents' moves)",
                         lambda v: v in (0, 1)),)),
    Heuristic("inverse-mobility", "1 - mobility",
              (Parameter("relative", int, 0, "0 or 1 (1: minus the opponents' moves)",
                         lambda v: v in (0, 1)),)),
    Heuristic("novelty", "the fraction of fluents that changed since the previous state "
              "(0 without one)"),
)}


def heuristic(name: str) -> Heuristic:
    """The heuristic called ``name``.

    Raises:
        HeuristicError: no such heuristic (the message lists them).
    """
    found = HEURISTICS.get(name)
    if found is None:
        raise HeuristicError(f"unknown heuristic {name!r}; the heuristics are "
                             f"{', '.join(HEURISTICS)}")
    return found


def parse_parameters(name: str, given: Mapping[str, str]) -> dict[str, Value | None]:
    """The parameters of heuristic ``name``: ``given`` (text) checked, defaults filled in.

    Raises:
        HeuristicError: an unknown heuristic or parameter, or a value out of range.
    """
    found = heuristic(name)
    known = {p.name: p for p in found.parameters}
    for key in given:
        if key not in known:
            allowed = ", ".join(known) or "none"
            raise HeuristicError(f"heuristic {name} has no parameter {key!r}; its parameters "
                                 f"are: {allowed}")
    values: dict[str, Value | None] = {
        p.name: p.parse(name, given[p.name]) if p.name in given else p.default
        for p in found.parameters}
    if name == "fuzzy":
        p, t = values["p"], values["t"]
        assert isinstance(p, float) and isinstance(t, float)
        if t > p:
            raise HeuristicError(
                f"parameters of heuristic fuzzy must have 0.5 < t <= p < 1, got t={t} > p={p}")
    return values


@dataclass(frozen=True)
class Evaluation:
    """One state's value, with the relaxed plan's paid rules when asked for."""

    value: float
    plan: tuple[PlanStep, ...] = ()


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
        self._distances: dict[int, GoalDistances] = {}
        self._fuzzy: dict[tuple[float, float, float, int], FuzzyEvaluator] = {}
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
            return found

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
            return found

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
        values = parse_parameters(name, parameters or {})
        if role not in self.game.roles:
            raise HeuristicError(f"unknown role {role!r}; the roles are "
                                 f"{', '.join(self.game.roles)}")
        if plan and not heuristic(name).plans:
            plans = ", ".join(h.name for h in HEURISTICS.values() if h.plans)
            raise HeuristicError(f"heuristic {name} has no plan; the heuristics with plans "
                                 f"are {plans}")
        one = self._evaluator(name, role, values, plan)
        results: list[Evaluation] = []
        before = previous
        for state in states:
            check()
            try:
                results.append(one(state, before))
            except ValueError as error:
                if isinstance(error, HeuristicError):
                    raise
                raise HeuristicError(str(error)) from None
            before = state
        return results

    def _evaluator(self, name: str, role: str, values: Mapping[str, Value | None],
                   plan: bool) -> Callable[[State, State | None], Evaluation]:
        goal = values.get("goal")
        goal_value = goal if isinstance(goal, int) else None
        if name in ("hmax", "hadd", "hff", "fjo", "extended-ff"):
            world = values["world_cost"]
            assert isinstance(world, int)
            distances = self.distances(world)
            try:
                distances.goal_value(role, goal_value)
            except ValueError as error:
                raise HeuristicError(str(error)) from None
        if name in ("hmax", "hadd", "hff"):
            return lambda state, _: Evaluation(*distances.distance(
                state, role, name, goal_value, plan))
        if name == "fjo":
            return lambda state, _: Evaluation(*distances.f_jo(state, role, plan=plan))
        if name == "extended-ff":
            mover = values["mover"]
            if mover is not None and mover not in self.game.roles:
                raise HeuristicError(f"parameter mover of heuristic extended-ff must be a "
                                     f"role of the game ({', '.join(self.game.roles)}), "
                                     f"got {mover!r}")
            mover_role = mover if isinstance(mover, str) else None
            return lambda state, _: Evaluation(*distances.extended(
                state, role, mover=mover_role, value=goal_value, plan=plan))
        if name == "fuzzy":
            p, t, q, refine = values["p"], values["t"], values["q"], values["structures"]
            assert isinstance(p, float) and isinstance(t, float) and isinstance(q, float)
            evaluator = self.fuzzy(p, t, q, bool(refine))
            return lambda state, _: Evaluation(evaluator.value(state, role))
        return self._simple(name, role, values)

    def _simple(self, name: str, role: str, values: Mapping[str, Value | None]
                ) -> Callable[[State, State | None], Evaluation]:
        from reasoner.heuristics import features, mobility

        game = self.game
        if name == "feature":
            analysis = self.analysis()
            wanted = values["name"]
            chosen = analysis.feature(str(wanted))
            if chosen is None:
                names = ", ".join(f.name for f in analysis.features[:20]) or "none"
                raise HeuristicError(f"parameter name of heuristic feature must be a feature "
                                     f"of the game; its features are: {names}")
            low, high = analysis.goal_ranges[role]
            direction: features.Direction = "min" if values["direction"] == "min" else "max"
            return lambda state, _: Evaluation(features.feature_value(
                chosen, state, direction, low, high))
        relative = bool(values.get("relative"))
        if name == "mobility":
            return lambda state, _: Evaluation(mobility.mobility(game, state, role,
                                                                 relative=relative))
        if name == "inverse-mobility":
            return lambda state, _: Evaluation(mobility.inverse_mobility(
                game, state, role, relative=relative))
        return lambda state, before: Evaluation(mobility.novelty(before, state))
