"""``gdl-reasoner bench-players``: each searching player against random and MCTS players
at equal time per move, or alone in a one-role game, one row per pairing."""

from __future__ import annotations

import json

import pytest

from reasoner.cli.app import main
from tests.conftest import ROOT


def test_bench_players_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """On tic-tac-toe, alpha-beta meets random and MCTS, MCTS meets random (best-first
    plays only one-role games); on the maze every player and random play alone. Each row
    has the mean goal within 0..100, its interval, and wins + draws + losses = matches;
    alpha-beta never loses a tic-tac-toe match."""
    status = main(["bench-players", str(ROOT / "games" / "tictactoe.kif"),
                   str(ROOT / "games" / "maze.kif"), "--matches", "2", "--seconds", "0.05",
                   "--json"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0
    assert [(r["game"], r["player"], r["opponent"]) for r in rows] == [
        ("tictactoe", "alphabeta", "random"), ("tictactoe", "alphabeta", "mcts"),
        ("tictactoe", "mcts", "random"),
        ("maze", "alphabeta", "alone"), ("maze", "mcts", "alone"),
        ("maze", "bestfirst", "alone"), ("maze", "random", "alone")]
    for row in rows:
        assert 0 <= row["mean_goal"] <= 100 and row["ci95"] >= 0
        assert row["wins"] + row["draws"] + row["losses"] == 2
    assert all(r["losses"] == 0 for r in rows if r["player"] == "alphabeta")


def test_an_unknown_player_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--players naming no player of the list exits 2 naming it and the players."""
    status = main(["bench-players", str(ROOT / "games" / "maze.kif"), "--players", "oracle"])
    assert status == 2
    assert "unknown player oracle" in capsys.readouterr().err
