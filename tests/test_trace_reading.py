"""Reading traces of other reasoners (issue 14, item 7).

``crosscheck --against`` reads what GGP-Base writes: a zero-arity term written ``(p)`` is
``p`` at any depth (docs/semantics/gdl.md), and a playout that ends in a state where a role has no
legal move (an empty list and no joint move) is compared, not refused as malformed. The
traces here are written by hand into ``tmp_path``; the games are real loads.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasoner import Game
from reasoner.crosscheck import EngineSide, TraceError, compare_sides, compare_trace, read_trace
from reasoner.reference import ReferenceSolver
from tests.conftest import GAMES, ROOT

# A one-player game that runs into a state without a legal move before it ends: after
# forward, the robot stands at 2, which is not terminal, and may do nothing.
DEAD_END = """\
(role robot)
(init (at 1))
(<= (legal robot forward) (true (at 1)))
(<= (next (at 2)) (does robot forward))
(<= terminal (true (at 3)))
(goal robot 0)
"""


def write_trace(folder: Path, header: dict[str, Any], *steps: dict[str, Any]) -> Path:
    """A trace file: the header line, then one line per step."""
    path = folder / "trace.jsonl"
    lines = [{"type": "header", **header}, *steps]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def step(playout: int, number: int, state: list[str], legal: dict[str, list[str]],
         joint: list[str] | None, terminal: bool = False,
         goals: dict[str, int | None] | None = None) -> dict[str, Any]:
    """One step line (``joint`` None: left out, as GGP-Base leaves it out)."""
    record: dict[str, Any] = {"playout": playout, "step": number, "state": state,
                              "terminal": terminal, "legal": legal, "goals": goals or {}}
    if joint is not None:
        record["joint"] = joint
    return record


def check(game: Game, trace: Path) -> Any:
    """Read the trace and compare it with the game, step by step."""
    header, steps = read_trace(trace)
    return compare_trace(EngineSide(game), header, steps)


# -- (p) is p -----------------------------------------------------------------------------


def test_zero_arity_terms_in_parentheses_read_as_constants_at_any_depth(tmp_path: Path) -> None:
    """``(p)`` is ``p`` wherever it stands in a text, and spacing does not matter:
    ``( cell (a) 1 ( b ) )`` reads as ``(cell a 1 b)``, the role ``(robot)`` as ``robot``."""
    path = write_trace(tmp_path, {"roles": ["(robot)"],
                                  "init": ["( cell (a) 1 ( b ) )", "(on)", "(f (g (h)))"]})
    header, _ = read_trace(path)
    assert header.roles == ("robot",)
    assert header.init == {"(cell a 1 b)", "on", "(f (g h))"}


def test_a_ggp_base_style_trace_of_rock_paper_scissors_agrees(tmp_path: Path) -> None:
    """A trace of games/rps.kif written as GGP-Base writes terms (``(rock)``, ``(p2)``,
    ``(score (p1) 0)``, in roles, role keys, fluents, legal and joint moves) agrees with the
    engine on every line."""
    game = Game.from_file(GAMES / "rps.kif")
    hands = ["(paper)", "(rock)", "scissors"]
    path = write_trace(
        tmp_path,
        {"roles": ["p1", "(p2)"], "init": ["(score (p1) 0)", "(score p2 (0))", "(round 0)"]},
        step(0, 0, ["(round 0)", "(score (p1) 0)", "(score p2 0)"],
             {"p1": hands, "p2": hands}, ["(rock)", "(scissors)"]),
        step(0, 1, ["(round 1)", "(score (p1) 1)", "(score (p2) 0)"],
             {"p1": hands, "(p2)": hands},
             ["paper", "(paper)"]),
        step(0, 2, ["(round 2)", "(score p1 1)", "(score p2 0)"],
             {"p1": hands, "p2": hands}, ["(paper)", "rock"]),
        step(0, 3, ["(round 3)", "(score p1 2)", "(score p2 0)"], {}, None, terminal=True,
             goals={"p1": 100, "(p2)": 0}),
    )
    result = check(game, path)
    assert result.disagreement is None
    assert (result.playouts, result.states) == (1, 4)


def test_a_normalised_text_still_disagrees_where_it_differs(tmp_path: Path) -> None:
    """Normalising spelling hides no real difference: ``(score (p1) 1)`` in the initial
    state of rps differs from the engine's ``(score p1 0)``."""
    game = Game.from_file(GAMES / "rps.kif")
    path = write_trace(tmp_path, {"roles": ["p1", "p2"],
                                  "init": ["(score (p1) 1)", "(score p2 0)", "(round 0)"]})
    found = check(game, path).disagreement
    assert found is not None and found.aspect == "initial state"
    assert found.theirs - found.ours == {"(score p1 1)"}


def test_a_text_that_is_no_term_names_its_line(tmp_path: Path) -> None:
    """A fluent text that does not parse as a GDL term is a TraceError naming the line and
    the field."""
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]},
                       step(0, 0, ["(at 1"], {"robot": ["forward"]}, ["forward"]))
    with pytest.raises(TraceError) as caught:
        check(Game.from_gdl(DEAD_END), path)
    assert (caught.value.line, caught.value.field, caught.value.reason) == (
        2, "state", "not-a-term")


# -- a role without a legal move ----------------------------------------------------------


def test_a_playout_ending_without_a_legal_move_is_compared(tmp_path: Path) -> None:
    """The trace's last step lists no legal move for the robot and no joint move; the
    engine finds none either, so the trace agrees (two states compared)."""
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]},
                       step(0, 0, ["(at 1)"], {"robot": ["forward"]}, ["forward"]),
                       step(0, 1, ["(at 2)"], {"robot": []}, None))
    result = check(Game.from_gdl(DEAD_END), path)
    assert result.disagreement is None
    assert (result.playouts, result.states) == (1, 2)


def test_no_legal_move_in_the_trace_but_one_in_the_engine_disagrees(tmp_path: Path) -> None:
    """A trace that claims the robot has no legal move in the initial state disagrees with
    the engine, which has forward there: the report names the role and the line."""
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]},
                       step(0, 0, ["(at 1)"], {"robot": []}, None))
    found = check(Game.from_gdl(DEAD_END), path).disagreement
    assert found is not None
    assert found.aspect == "legal moves of robot (trace line 2)"
    assert (found.ours, found.theirs) == ({"forward"}, frozenset())


def test_a_playout_that_goes_on_after_a_dead_end_is_malformed(tmp_path: Path) -> None:
    """A step of the same playout after the step without legal moves is a TraceError
    naming both lines; a new playout after it is fine."""
    dead_end = [step(0, 0, ["(at 1)"], {"robot": ["forward"]}, ["forward"]),
                step(0, 1, ["(at 2)"], {"robot": []}, None)]
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]}, *dead_end,
                       step(0, 2, ["(at 2)"], {"robot": []}, None))
    with pytest.raises(TraceError) as caught:
        check(Game.from_gdl(DEAD_END), path)
    assert (caught.value.line, caught.value.other_line, caught.value.reason) == (
        4, 3, "no-legal-move")
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]}, *dead_end,
                       *[{**line, "playout": 1} for line in dead_end])
    assert check(Game.from_gdl(DEAD_END), path).playouts == 2


def test_a_missing_joint_move_is_still_malformed_where_every_role_can_move(
        tmp_path: Path) -> None:
    """A non-terminal step without a joint move where every role has a legal move is
    still refused, naming the line."""
    path = write_trace(tmp_path, {"roles": ["robot"], "init": ["(at 1)"]},
                       step(0, 0, ["(at 1)"], {"robot": ["forward"]}, None))
    with pytest.raises(TraceError) as caught:
        check(Game.from_gdl(DEAD_END), path)
    assert (caught.value.line, caught.value.field, caught.value.reason) == (2, "joint", "missing")


@pytest.mark.needs_tools
def test_a_recorded_dead_end_replays_clean(tmp_path: Path) -> None:
    """Cross-checking the game against the Prolog reference records the dead end as a last
    step without a joint move; that trace replays clean, through the command too."""
    game_path = tmp_path / "dead_end.kif"
    game_path.write_text(DEAD_END, encoding="utf-8")
    trace = tmp_path / "recorded.jsonl"
    with trace.open("w") as out, ReferenceSolver.from_gdl(DEAD_END) as reference:
        assert compare_sides(EngineSide(Game.from_gdl(DEAD_END)), reference, playouts=2,
                             record=out).agree
    last = json.loads(trace.read_text().splitlines()[-1])
    assert last["legal"] == {"robot": []} and "joint" not in last
    assert check(Game.from_gdl(DEAD_END), trace).disagreement is None
    result = subprocess.run([sys.executable, "-m", "reasoner.cli", "crosscheck", game_path,
                             "--against", trace], cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the trace agrees: 2 playouts, 4 states" in result.stdout
