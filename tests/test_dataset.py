"""``gdl-reasoner dataset``: positions sampled along seeded random playouts, written as JSON
Lines or Parquet (docs/guides/datasets.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from reasoner.cli.app import main
from reasoner.engine.game import Game
from reasoner.workshop.dataset import COLUMNS
from tests.conftest import ROOT

TICTACTOE = ROOT / "games" / "tictactoe.kif"
CONNECTFOUR = ROOT / "games" / "connectfour.kif"


def _lines(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    """The rows `gdl-reasoner dataset ARGS` prints on standard output."""
    assert main(["dataset", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_the_same_command_writes_the_same_bytes(tmp_path: Path) -> None:
    """The same command twice writes byte-identical files."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (first, second):
        assert main(["dataset", str(TICTACTOE), str(CONNECTFOUR), "--positions", "30",
                     "--seed", "7", "--output", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert len(first.read_text().splitlines()) == 60
    assert not list(tmp_path.glob("*.partial"))


def test_another_seed_writes_other_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """A different seed gives different rows."""
    one = _lines(capsys, str(CONNECTFOUR), "--positions", "20", "--seed", "1")
    two = _lines(capsys, str(CONNECTFOUR), "--positions", "20", "--seed", "2")
    assert len(one) == len(two) == 20
    assert [row["fluents"] for row in one] != [row["fluents"] for row in two]


def test_rows_have_the_documented_keys_and_the_games_legal_moves(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every row has the documented keys in order, and its legal moves are what
    ``Game.legal_moves`` answers for the state its fluents (and fluent ids) name."""
    rows = _lines(capsys, str(TICTACTOE), "--positions", "25")
    game = Game.from_file(TICTACTOE)
    assert [(row["playout"], row["step"]) for row in rows[:2]] == [(0, 0), (0, 1)]
    for row in rows:
        assert list(row) == list(COLUMNS)
        assert row["game"] == "tictactoe" and row["roles"] == list(game.roles)
        state = game.state_from_fluents(row["fluents"])
        assert state == game.state_from_ids(row["fluent_ids"])
        assert row["fluents"] == sorted(row["fluents"])
        assert row["legal"] == [sorted((m.text for m in game.legal_moves(state, role)),
                                       key=lambda text: game.move_id(role, text))
                                for role in game.roles]
        assert row["terminal"] == game.is_terminal(state)


def test_terminal_rows_have_goals(capsys: pytest.CaptureFixture[str]) -> None:
    """A terminal row holds every role's goal value; a row that is not terminal holds none."""
    rows = _lines(capsys, str(TICTACTOE), "--positions", "40")
    terminal = [row for row in rows if row["terminal"]]
    assert terminal, "40 positions of tic-tac-toe end at least one playout"
    game = Game.from_file(TICTACTOE)
    for row in terminal:
        goals = game.goals(game.state_from_fluents(row["fluents"]))
        assert row["goals"] == [goals[role] for role in game.roles]
    assert all(row["goals"] is None for row in rows if not row["terminal"])


def test_playouts_give_counts_per_role_summing_to_m(
        capsys: pytest.CaptureFixture[str]) -> None:
    """With ``--playouts M`` each row holds per role goal counts summing to M, and a mean goal
    that agrees with them."""
    rows = _lines(capsys, str(TICTACTOE), "--positions", "6", "--playouts", "12")
    for row in rows:
        assert row["playouts"] == 12 and row["playout_terminal"] == 12
        for counts, mean in zip(row["playout_goal_counts"], row["playout_mean_goal"],
                                strict=True):
            assert sum(entry["count"] for entry in counts) == 12
            assert mean == pytest.approx(
                sum(e["goal"] * e["count"] for e in counts) / 12)


def test_heuristic_values_lie_in_zero_to_one(capsys: pytest.CaptureFixture[str]) -> None:
    """``--heuristic`` (repeatable) gives each named heuristic's value per role, each in
    0..1 for the heuristics valued so (fuzzy, mobility)."""
    rows = _lines(capsys, str(TICTACTOE), "--positions", "5", "--heuristic", "fuzzy",
                  "--heuristic", "mobility")
    for row in rows:
        assert [h["name"] for h in row["heuristics"]] == ["fuzzy", "mobility"]
        for entry in row["heuristics"]:
            assert len(entry["values"]) == 2
            assert all(0.0 <= value <= 1.0 for value in entry["values"])


def test_parquet_reads_back_as_the_json_lines_rows(tmp_path: Path) -> None:
    """A Parquet file reads back, with PyArrow and with pandas, to the rows of the JSON Lines
    file the same command writes."""
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")
    pd = pytest.importorskip("pandas", reason="pandas is not installed")
    common = [str(TICTACTOE), "--positions", "12", "--playouts", "3", "--heuristic", "fuzzy"]
    lines, parquet = tmp_path / "rows.jsonl", tmp_path / "rows.parquet"
    assert main(["dataset", *common, "--output", str(lines)]) == 0
    assert main(["dataset", *common, "--format", "parquet", "--output", str(parquet)]) == 0
    expected = [json.loads(line) for line in lines.read_text().splitlines()]
    assert pq.read_table(parquet).to_pylist() == expected
    frame = pd.read_parquet(parquet)
    assert list(frame.columns) == list(COLUMNS)
    assert frame["fluent_ids"].map(list).tolist() == [row["fluent_ids"] for row in expected]
    assert pd.read_json(lines, lines=True)["step"].tolist() == frame["step"].tolist()


def test_an_output_past_the_size_bound_is_refused(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    """Positions whose estimated output passes the bound are refused before any row is
    written, with the estimate in the message."""
    out = tmp_path / "big.jsonl"
    assert main(["dataset", str(CONNECTFOUR), "--positions", "10000000",
                 "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "would take about" in err and "GiB" in err
    assert not out.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("positions", ["0", "-3", "10000001", "many"])
def test_bad_positions_are_refused(capsys: pytest.CaptureFixture[str],
                                   positions: str) -> None:
    """``--positions`` below 1, over 10,000,000 or not a number is a usage error."""
    with pytest.raises(SystemExit) as exit_:
        main(["dataset", str(TICTACTOE), "--positions", positions])
    assert exit_.value.code == 2
    assert "--positions" in capsys.readouterr().err


def test_unknown_heuristic_and_bad_game_are_one_line_errors(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An unknown heuristic is a usage error, and a game that cannot be read or parsed gives
    the usual one line; none prints a row."""
    assert main(["dataset", str(TICTACTOE), "--positions", "2", "--heuristic", "nope"]) == 2
    assert "unknown heuristic 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.kif"
    bad.write_text("(role x", encoding="utf-8")
    assert main(["dataset", str(bad), "--positions", "2"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and str(bad) in captured.err
    assert main(["dataset", str(tmp_path / "none.kif"), "--positions", "2"]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_parquet_needs_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    """Parquet to standard output is a usage error."""
    assert main(["dataset", str(TICTACTOE), "--positions", "2", "--format", "parquet"]) == 2
    assert "--output" in capsys.readouterr().err


def test_parquet_without_pyarrow_says_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """Without pyarrow, ``--format parquet`` is a usage error naming the extra to install."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    assert main(["dataset", str(TICTACTOE), "--positions", "2", "--format", "parquet",
                 "--output", str(tmp_path / "rows.parquet")]) == 2
    assert "pip install '.[dataset]'" in capsys.readouterr().err
