"""The heuristics come from one table (reasoner.heuristics.table): typed parameters with
their checks, builders, and everything that lists heuristics (the proto's comments, the
command line's help) agreeing with it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from reasoner.arguments import ArgumentError
from reasoner.core.evaluation import Evaluation
from reasoner.core.values import State
from reasoner.errors import HeuristicError
from reasoner.heuristics.game_heuristics import GameHeuristics
from reasoner.heuristics.table import (
    HEURISTICS,
    FuzzySettings,
    Heuristic,
    Prepared,
    Settings,
    heuristic,
    names_in_words,
    parameter,
    parameters_in_words,
    parse_parameters,
)
from tests.conftest import bundled

PROJECT = Path(__file__).resolve().parent.parent
PROTO = PROJECT / "proto" / "reasoner" / "v1" / "reasoner.proto"


def _field_comment(message: str, field: str) -> str:
    """The comment lines right above ``field`` in ``message`` of the proto, joined."""
    text = PROTO.read_text(encoding="utf-8")
    body = re.search(r"\nmessage " + message + r" \{\n(.*?)\n\}", text, re.S)
    assert body is not None, message
    lines = body.group(1).splitlines()
    at = next(i for i, line in enumerate(lines)
              if re.match(r"\s*[\w.<>, ]+ " + field + r" = \d+;", line))
    comment: list[str] = []
    for line in reversed(lines[:at]):
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        comment.insert(0, stripped[2:].strip())
    return " ".join(comment)


def _by_heuristic(listing: str) -> dict[str, list[str]]:
    """Parameters per heuristic from "a, b: x, y; c: z; none for d"."""
    found: dict[str, list[str]] = {}
    for part in (p.strip() for p in listing.split(";")):
        if part.startswith("none for "):
            for name in part.removeprefix("none for ").split(","):
                found[name.strip()] = []
            continue
        names, parameters = part.split(":")
        for name in names.split(","):
            found[name.strip()] = [p.strip() for p in parameters.split(",")]
    return found


def _table_parameters() -> dict[str, list[str]]:
    return {name: [p.name for p in h.parameters] for name, h in HEURISTICS.items()}


def test_the_proto_names_exactly_the_tables_heuristics_and_parameters() -> None:
    """EvaluateRequest.heuristic's comment lists every heuristic of the table, in order,
    with its parameters; the plan field's comment names the heuristics with plans; the
    example parameters parse."""
    comment = _field_comment("EvaluateRequest", "heuristic")
    names = re.findall(r'"([a-z-]+)"', comment.split("Parameters by heuristic:")[0])
    assert names == list(HEURISTICS)
    listing = comment.split("Parameters by heuristic:")[1].strip().removesuffix(".")
    assert _by_heuristic(listing) == _table_parameters()

    plan = _field_comment("EvaluateRequest", "plan")
    found = re.search(r"\(([^)]*)\)", plan)
    assert found is not None
    assert [n.strip() for n in found.group(1).split(",")] == [
        h.name for h in HEURISTICS.values() if h.plans]

    examples = _field_comment("EvaluateRequest", "parameters")
    for example in re.findall(r"\{[^}]*\}", examples):
        given = dict(re.findall(r'"(\w+)": "([^"]*)"', example))
        assert given
        assert any(set(given) <= {p.name for p in h.parameters} and h.parse(given)
                   for h in HEURISTICS.values()), example


def test_the_command_lines_help_comes_from_the_table() -> None:
    """``evaluate --help`` names every heuristic, every heuristic's parameters, and the
    heuristics with plans."""
    done = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "evaluate", "--help"], cwd=PROJECT,
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "COLUMNS": "2000"})
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()
             if line.strip().startswith("--")}
    assert names_in_words() in lines["--heuristic"]
    assert names_in_words() == ", ".join(list(HEURISTICS)[:-1]) + " or novelty"
    assert parameters_in_words() in lines["--param"]
    assert _by_heuristic(parameters_in_words()) == _table_parameters()
    plans = ", ".join(h.name for h in HEURISTICS.values() if h.plans)
    assert f"({plans})" in lines["--plan"]


def test_parameters_are_typed_and_checked_across_fields() -> None:
    """Parsing gives the heuristic's settings dataclass with typed values and defaults;
    the fuzzy heuristic's t <= p is checked across its fields, with the same words."""
    settings = heuristic("fuzzy").parse({"p": "0.9"})
    assert settings == FuzzySettings(p=0.9, t=0.65, q=10.0, structures=1)
    assert isinstance(settings.q, float) and isinstance(settings.structures, int)
    assert parse_parameters("hff", {"world_cost": "1"}) == {"goal": None, "world_cost": 1}
    with pytest.raises(HeuristicError) as caught:
        heuristic("fuzzy").parse({"p": "0.6", "t": "0.7"})
    assert (caught.value.heuristic, caught.value.reason) == ("fuzzy", "inconsistent")
    with pytest.raises(HeuristicError) as caught:
        parse_parameters("fuzzy", {"p": "x"})
    assert (caught.value.heuristic, caught.value.parameter, caught.value.value,
            caught.value.reason) == ("fuzzy", "p", "x", "out-of-range")
    with pytest.raises(HeuristicError) as caught:
        parse_parameters("novelty", {"p": "1"})
    assert (caught.value.heuristic, caught.value.parameter, caught.value.reason) == (
        "novelty", "p", "unknown-parameter")
    assert heuristic("novelty").parameters == ()
    with pytest.raises(HeuristicError) as caught:
        heuristic("h")
    assert (caught.value.heuristic, caught.value.reason) == ("h", "unknown-heuristic")


@dataclass(frozen=True)
class _Window(Settings):
    low: int = parameter(int, 0, "an integer >= 0", lambda v: isinstance(v, int) and v >= 0)
    high: int = parameter(int, 9, "an integer >= 0", lambda v: isinstance(v, int) and v >= 0)

    def problem(self) -> str | None:
        return f"must have low <= high, got {self.low} > {self.high}" \
            if self.low > self.high else None


def _count_in_window(heuristics: Prepared, role: str, settings: _Window,
                     plan: bool) -> Callable[[State, State | None], Evaluation]:
    def evaluate(state: State, before: State | None) -> Evaluation:
        count = bin(state.bits).count("1")
        return Evaluation(float(settings.low <= count <= settings.high))
    return evaluate


def test_adding_a_heuristic_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """One entry in the table: Evaluate runs it, its parameters are parsed and checked
    (across fields too), and the listings name it."""
    entry = Heuristic("window", "whether the state has low..high fluents", _Window,
                      _count_in_window)
    monkeypatch.setitem(HEURISTICS, "window", entry)
    game = bundled("tictactoe")
    heuristics = GameHeuristics(game)
    (found,) = heuristics.evaluate("window", "xplayer", [game.initial_state],
                                   {"low": "1", "high": "20"})
    assert found.value == 1.0
    with pytest.raises(HeuristicError) as caught:
        heuristics.evaluate("window", "xplayer", [game.initial_state],
                            {"low": "3", "high": "2"})
    assert (caught.value.heuristic, caught.value.reason) == ("window", "inconsistent")
    with pytest.raises(HeuristicError) as caught:
        heuristics.evaluate("window", "xplayer", [game.initial_state], {"low": "-1"})
    assert (caught.value.heuristic, caught.value.parameter, caught.value.value,
            caught.value.reason) == ("window", "low", "-1", "out-of-range")
    assert [(p.name, p.default) for p in entry.parameters] == [("low", 0), ("high", 9)]
    assert names_in_words().endswith("novelty or window")
    assert "window: low, high" in parameters_in_words()


def test_a_search_reads_a_heuristics_range_from_its_entry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A heuristic whose entry maps its values into 0..1 (as_value) is one a search can
    value states with: the client's HeuristicValues takes the map from the table, in
    process as on a service; one without it (a distance) is refused."""
    from client.players.heuristic_values import VALUE_HEURISTICS, HeuristicValues
    from reasoner.heuristics.table import value_heuristics

    assert value_heuristics() == VALUE_HEURISTICS
    entry = Heuristic("window", "whether the state has low..high fluents", _Window,
                      _count_in_window, as_value=lambda v: v / 4)
    monkeypatch.setitem(HEURISTICS, "window", entry)
    game = bundled("tictactoe")
    state, info = game.initial()
    values = HeuristicValues("window", {"low": "1", "high": "20"})
    assert values(game, 0, [(state, info)]) == [0.25]
    with pytest.raises(ArgumentError) as caught:
        HeuristicValues("hff")
    assert (caught.value.argument, caught.value.value) == ("heuristic", "hff")
    assert caught.value.allowed == tuple(value_heuristics())


def test_a_sweep_of_parameters_keeps_only_the_recent_evaluators() -> None:
    """Evaluating with 20 distinct fuzzy p values keeps at most KEPT_PER_GAME fuzzy
    evaluators (a client sweeping a float parameter grew a server by 400 MB); one built
    again answers alike."""
    from reasoner.heuristics.game_heuristics import KEPT_PER_GAME

    game = bundled("tictactoe")
    heuristics = GameHeuristics(game)
    state = [game.initial_state]
    first = heuristics.evaluate("fuzzy", "xplayer", state, {"p": "0.7"})[0].value
    for step in range(20):
        heuristics.evaluate("fuzzy", "xplayer", state, {"p": f"0.{71 + step}"})
    assert heuristics.held == KEPT_PER_GAME
    assert heuristics.evaluate("fuzzy", "xplayer", state, {"p": "0.7"})[0].value == first
