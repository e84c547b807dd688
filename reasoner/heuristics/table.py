"""The heuristics the service computes: one table, one entry per heuristic.

An entry (:class:`Heuristic`) holds everything about a heuristic: its name and summary, its
parameters as a small frozen dataclass (:class:`Settings`: one field per parameter, with
its type, default, range and check, and the checks across fields), whether it can show a
relaxed plan, and its builder (what evaluates states with it, given what a game's
heuristics build once (:class:`Prepared`), a role and the parsed settings).

To add a heuristic, add one entry to :data:`HEURISTICS` (and, when its parameters are new,
their dataclass). Everything else reads the table: parsing and checking the parameters
that arrive as text (a gRPC map, a command line ``name=value``), ``Evaluate``,
``AnalyzeGame``'s listing, the command line's help (:func:`names_in_words`,
:func:`parameters_in_words`); a test checks the proto's comments against it.

Parameters arrive as text; an unknown name or a value out of range is a
:class:`reasoner.errors.HeuristicError` that lists what is allowed.

This module imports nothing heavy at import time (the command line builds its help from
it); the builders import what they evaluate with when they run. It is the one registry:
:class:`reasoner.heuristics.game_heuristics.GameHeuristics`, which builds per game and
evaluates by name, reads it from above.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar

from reasoner.core.evaluation import Evaluation
from reasoner.errors import HeuristicError

if TYPE_CHECKING:
    from reasoner.core.values import State
    from reasoner.engine.game import Game
    from reasoner.heuristics.analysis import GameAnalysis
    from reasoner.heuristics.distances import GoalDistances
    from reasoner.heuristics.fuzzy import FuzzyEvaluator

__all__ = ["HEURISTICS", "Heuristic", "Parameter", "Prepared", "Settings",
           "heuristic", "names_in_words", "parameter", "parameters_in_words",
           "parse_parameters", "value_heuristics"]

Value = int | float | str


# What a builder returns: the value of a state, given the state before it (or None).
Evaluate: TypeAlias = "Callable[[State, State | None], Evaluation]"


class Prepared(Protocol):
    """What a builder is given: one game and what its heuristics build once, kept and
    shared between requests (:class:`reasoner.heuristics.game_heuristics.GameHeuristics`)."""

    @property
    def game(self) -> Game: ...

    def distances(self, world_cost: int = 0) -> GoalDistances:
        """The goal distances on the relaxed view with this cost of the world's changes."""
        ...

    def analysis(self) -> GameAnalysis:
        """Structures and features, detected once."""
        ...

    def fuzzy(self, p: float, t: float, q: float, structures: bool) -> FuzzyEvaluator:
        """The fuzzy evaluator with these parameters."""
        ...


# -- parameters ---------------------------------------------------------------------------


def _anything(value: Value) -> bool:
    del value
    return True


@dataclass(frozen=True)
class Parameter:
    """A heuristic's parameter: its type, default, and the range it must lie in."""

    name: str
    kind: type[int] | type[float] | type[str]
    default: Value | None  # None: the heuristic decides (e.g. the role's highest goal)
    allowed: str  # the range in words, for error messages and help
    check: Callable[[Value], bool] = _anything

    def parse(self, heuristic: str, text: str) -> Value:
        """The value ``text`` gives this parameter of ``heuristic``.

        Raises:
            HeuristicError: not of the parameter's type, or out of its range.
        """
        try:
            value: Value = self.kind(text)
        except ValueError:
            raise HeuristicError(
                f"parameter {self.name} of heuristic {heuristic} must be {self.allowed}, "
                f"got {text!r}", heuristic=heuristic, parameter=self.name, value=text,
                reason="out-of-range") from None
        if (isinstance(value, float) and not math.isfinite(value)) or not self.check(value):
            raise HeuristicError(
                f"parameter {self.name} of heuristic {heuristic} must be {self.allowed}, "
                f"got {text}", heuristic=heuristic, parameter=self.name, value=text,
                reason="out-of-range")
        return value


_SPEC = "reasoner.heuristics.parameter"


def parameter(kind: type[int] | type[float] | type[str], default: Value | None, allowed: str,
              check: Callable[[Value], bool] = _anything) -> Any:
    """A field of a :class:`Settings` dataclass that is a parameter: its type (what the
    text is read as), default (None: the heuristic decides), range in words, and check.

    Use as ``p: float = parameter(float, 0.8, "a number with 0.5 < p < 1", check)``."""
    return field(default=default, metadata={_SPEC: (kind, allowed, check)})


@dataclass(frozen=True)
class Settings:
    """A heuristic's parameters: subclass as a frozen dataclass whose fields are
    :func:`parameter` fields, in the order they are listed."""

    def problem(self) -> str | None:
        """What is wrong across fields, as the end of "parameters of heuristic H ...",
        or None; each field on its own was checked already."""
        return None


def _parameters_of(settings: type[Settings]) -> tuple[Parameter, ...]:
    found = []
    for one in dataclasses.fields(settings):
        kind, allowed, check = one.metadata[_SPEC]
        default = one.default
        if default is dataclasses.MISSING:
            raise TypeError(f"parameter {one.name} of {settings.__name__} has no default")
        found.append(Parameter(one.name, kind, default, allowed, check))
    return tuple(found)


def _zero_or_one(value: Value) -> bool:
    return value in (0, 1)


def _goal() -> Any:
    return parameter(int, None, "a goal value of the role (default: its highest)",
                     lambda v: isinstance(v, int) and 0 <= v <= 100)


def _world_cost() -> Any:
    return parameter(int, 0, "0 or 1", _zero_or_one)


def _probability(value: Value) -> bool:
    return isinstance(value, float) and 0.5 < value < 1.0


@dataclass(frozen=True)
class NoSettings(Settings):
    """A heuristic without parameters."""


@dataclass(frozen=True)
class DistanceSettings(Settings):
    """h_max, h_add, h_FF: which goal value, and whether the world's changes cost."""

    goal: int | None = _goal()
    world_cost: int = _world_cost()


@dataclass(frozen=True)
class WorldCostSettings(Settings):
    """f_JO: whether the world's changes cost."""

    world_cost: int = _world_cost()


@dataclass(frozen=True)
class ExtendedSettings(Settings):
    """Extended FF: which goal value, the world's cost, and who moves first."""

    goal: int | None = _goal()
    world_cost: int = _world_cost()
    mover: str | None = parameter(str, None, "a role of the game (default: the role to move)")


@dataclass(frozen=True)
class FuzzySettings(Settings):
    """Fuzzy evaluation: atom value p, threshold t, Yager exponent q, refinements or not."""

    p: float = parameter(float, 0.8, "a number with 0.5 < p < 1 and t <= p", _probability)
    t: float = parameter(float, 0.65, "a number with 0.5 < t < 1 and t <= p", _probability)
    q: float = parameter(float, 10.0, "a number >= 1",
                         lambda v: isinstance(v, float) and v >= 1.0)
    structures: int = parameter(int, 1, "0 or 1 (refine atoms by detected structures)",
                                _zero_or_one)

    def problem(self) -> str | None:
        if self.t > self.p:
            return f"must have 0.5 < t <= p < 1, got t={self.t} > p={self.p}"
        return None


@dataclass(frozen=True)
class FeatureSettings(Settings):
    """A Kuhlmann feature: its name, and whether more of it is better."""

    name: str | None = parameter(str, None, "a feature name that AnalyzeGame lists")
    direction: str = parameter(str, "max", "max or min", lambda v: v in ("max", "min"))


@dataclass(frozen=True)
class MobilitySettings(Settings):
    """Mobility: the role's moves alone, or minus the opponents'."""

    relative: int = parameter(int, 0, "0 or 1 (1: minus the opponents' moves)", _zero_or_one)


# -- entries ------------------------------------------------------------------------------


S = TypeVar("S", bound=Settings)


@dataclass(frozen=True)
class Heuristic(Generic[S]):
    """A named heuristic: what it computes, its parameters, whether it can show a plan,
    and its builder.

    ``build(heuristics, role, settings, plan)`` runs once per request, after the settings
    and the role were checked; it may raise :class:`HeuristicError` for what depends on the
    game (a goal value or feature it lacks) and returns what evaluates each state."""

    name: str
    summary: str
    settings: type[S]
    build: Callable[[Prepared, str, S, bool], Evaluate]
    plans: bool = False
    lower_is_better: bool = False  # a distance: the smaller, the closer to the goal
    # Its values mapped into 0..1 as a search's value of a state (the higher, the better
    # for the role); None for a heuristic that values no state (a distance, novelty).
    as_value: Callable[[float], float] | None = None
    parameters: tuple[Parameter, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", _parameters_of(self.settings))

    def parse(self, given: Mapping[str, str]) -> S:
        """The settings that ``given`` (text) sets, defaults filled in, every check done.

        Raises:
            HeuristicError: an unknown parameter, or a value out of range.
        """
        known = {p.name: p for p in self.parameters}
        for key in given:
            if key not in known:
                allowed = ", ".join(known) or "none"
                raise HeuristicError(f"heuristic {self.name} has no parameter {key!r}; its "
                                     f"parameters are: {allowed}", heuristic=self.name,
                                     parameter=key, reason="unknown-parameter")
        values = {p.name: p.parse(self.name, given[p.name])
                  for p in self.parameters if p.name in given}
        settings = self.settings(**values)
        problem = settings.problem()
        if problem is not None:
            raise HeuristicError(f"parameters of heuristic {self.name} {problem}",
                                 heuristic=self.name, reason="inconsistent")
        return settings


# -- builders -----------------------------------------------------------------------------


def _distances(heuristics: Prepared, role: str, world_cost: int,
               goal: int | None) -> GoalDistances:
    """The goal distances with this world cost, once the role is known to have ``goal``."""
    distances = heuristics.distances(world_cost)
    try:
        distances.goal_value(role, goal)
    except ValueError as error:
        raise HeuristicError(str(error), reason=getattr(error, "reason", None)) from None
    return distances


def _relaxed_distance(kind: str) -> Callable[[Prepared, str, DistanceSettings, bool],
                                             Evaluate]:
    def build(heuristics: Prepared, role: str, settings: DistanceSettings,
              plan: bool) -> Evaluate:
        goal = settings.goal
        distances = _distances(heuristics, role, settings.world_cost, goal)
        return lambda state, _: Evaluation(*distances.distance(state, role, kind, goal, plan))
    return build


def _f_jo(heuristics: Prepared, role: str, settings: WorldCostSettings,
          plan: bool) -> Evaluate:
    distances = _distances(heuristics, role, settings.world_cost, None)
    return lambda state, _: Evaluation(*distances.f_jo(state, role, plan=plan))


def _extended_ff(heuristics: Prepared, role: str, settings: ExtendedSettings,
                 plan: bool) -> Evaluate:
    goal = settings.goal
    distances = _distances(heuristics, role, settings.world_cost, goal)
    mover = settings.mover
    roles = heuristics.game.roles
    if mover is not None and mover not in roles:
        raise HeuristicError(f"parameter mover of heuristic extended-ff must be a role of "
                             f"the game ({', '.join(roles)}), got {mover!r}",
                             heuristic="extended-ff", parameter="mover", value=mover,
                             reason="out-of-range")
    return lambda state, _: Evaluation(*distances.extended(
        state, role, mover=mover, value=goal, plan=plan))


def _fuzzy(heuristics: Prepared, role: str, settings: FuzzySettings,
           plan: bool) -> Evaluate:
    evaluator = heuristics.fuzzy(settings.p, settings.t, settings.q, bool(settings.structures))
    return lambda state, _: Evaluation(evaluator.value(state, role))


def _feature(heuristics: Prepared, role: str, settings: FeatureSettings,
             plan: bool) -> Evaluate:
    from reasoner.heuristics import features

    analysis = heuristics.analysis()
    chosen = analysis.feature(str(settings.name))
    if chosen is None:
        names = ", ".join(f.name for f in analysis.features[:20]) or "none"
        raise HeuristicError(f"parameter name of heuristic feature must be a feature of the "
                             f"game; its features are: {names}", heuristic="feature",
                             parameter="name", value=str(settings.name),
                             reason="out-of-range")
    low, high = analysis.goal_ranges[role]
    direction: features.Direction = "min" if settings.direction == "min" else "max"
    return lambda state, _: Evaluation(features.feature_value(
        chosen, state, direction, low, high))


def _mobility(heuristics: Prepared, role: str, settings: MobilitySettings,
              plan: bool) -> Evaluate:
    from reasoner.heuristics.mobility import mobility

    game, relative = heuristics.game, bool(settings.relative)
    return lambda state, _: Evaluation(mobility(game, state, role, relative=relative))


def _inverse_mobility(heuristics: Prepared, role: str, settings: MobilitySettings,
                      plan: bool) -> Evaluate:
    from reasoner.heuristics.mobility import inverse_mobility

    game, relative = heuristics.game, bool(settings.relative)
    return lambda state, _: Evaluation(inverse_mobility(game, state, role, relative=relative))


def _novelty(heuristics: Prepared, role: str, settings: NoSettings,
             plan: bool) -> Evaluate:
    from reasoner.heuristics.mobility import novelty

    return lambda state, before: Evaluation(novelty(before, state))


# -- the table ----------------------------------------------------------------------------


def _as_it_is(value: float) -> float:
    return value


HEURISTICS: dict[str, Heuristic[Any]] = {h.name: h for h in (
    Heuristic("hmax", "relaxed distance to the goal: the cost of its costliest fact",
              DistanceSettings, _relaxed_distance("hmax"), lower_is_better=True),
    Heuristic("hadd", "relaxed distance to the goal: the summed costs of its facts",
              DistanceSettings, _relaxed_distance("hadd"), lower_is_better=True),
    Heuristic("hff", "relaxed distance to the goal: the cost of an extracted relaxed plan",
              DistanceSettings, _relaxed_distance("hff"), plans=True, lower_is_better=True),
    Heuristic("fjo", "Aldinger's f_JO: goal values shifted to -50..50, each divided by its "
              "h_FF distance, summed (g - 50 in a terminal state)", WorldCostSettings, _f_jo,
              plans=True, as_value=lambda v: (v + 50.0) / 100.0),
    Heuristic("extended-ff", "Bercher's two-player FF: plies until the goal with the players "
              "moving in turn", ExtendedSettings, _extended_ff, plans=True,
              lower_is_better=True),
    Heuristic("fuzzy", "Schiffel & Thielscher's fuzzy goal evaluation, 0..1", FuzzySettings,
              _fuzzy, as_value=_as_it_is),
    Heuristic("feature", "a Kuhlmann feature as an evaluation in R- + 1 .. R+ - 1 "
              "(see AnalyzeGame for the names)", FeatureSettings, _feature,
              as_value=lambda v: v / 100.0),  # about 1..99, in goal units
    Heuristic("mobility", "the role's legal moves, scaled to 0..1", MobilitySettings,
              _mobility, as_value=_as_it_is),
    Heuristic("inverse-mobility", "1 - mobility", MobilitySettings, _inverse_mobility,
              as_value=_as_it_is),
    Heuristic("novelty", "the fraction of fluents that changed since the previous state "
              "(0 without one)", NoSettings, _novelty),
)}


def heuristic(name: str) -> Heuristic[Any]:
    """The heuristic called ``name``.

    Raises:
        HeuristicError: no such heuristic (the message lists them).
    """
    found = HEURISTICS.get(name)
    if found is None:
        raise HeuristicError(f"unknown heuristic {name!r}; the heuristics are "
                             f"{', '.join(HEURISTICS)}", heuristic=name,
                             reason="unknown-heuristic")
    return found


def parse_parameters(name: str, given: Mapping[str, str]) -> dict[str, Value | None]:
    """The parameters of heuristic ``name``: ``given`` (text) checked, defaults filled in.

    Raises:
        HeuristicError: an unknown heuristic or parameter, or a value out of range.
    """
    settings = heuristic(name).parse(given)
    return {p.name: getattr(settings, p.name) for p in heuristic(name).parameters}


def value_heuristics() -> dict[str, Callable[[float], float]]:
    """The heuristics that value states, each with the map of its values into 0..1 (what a
    search maximises), in table order.

    >>> sorted(value_heuristics())
    ['feature', 'fjo', 'fuzzy', 'inverse-mobility', 'mobility']
    >>> value_heuristics()["fjo"](-50.0), value_heuristics()["feature"](99.0)
    (0.0, 0.99)
    """
    return {name: entry.as_value for name, entry in HEURISTICS.items()
            if entry.as_value is not None}


# -- in words, for help texts ------------------------------------------------------------


def names_in_words() -> str:
    """The heuristics' names, e.g. "hmax, hadd, ... or novelty"."""
    names = list(HEURISTICS)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def parameters_in_words() -> str:
    """The parameters by heuristic, heuristics with the same parameters together, e.g.
    "hmax, hadd, hff: goal, world_cost; fjo: world_cost; ...; none for novelty"."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for entry in HEURISTICS.values():
        groups.setdefault(tuple(p.name for p in entry.parameters), []).append(entry.name)
    parts = [f"{', '.join(names)}: {', '.join(parameters)}"
             for parameters, names in groups.items() if parameters]
    parts += [f"none for {', '.join(names)}" for parameters, names in groups.items()
              if not parameters]
    return "; ".join(parts)
