"""``--resume FILE``: a run that was interrupted takes the results of the tasks it finished
from its journal, in their place, and runs only the others (reasoner/console/journal.py).

To show that a result came from the journal and was not computed again, the tests change a
kept result by hand: the command prints the changed one.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reasoner.cli.app import main
from tests.conftest import ROOT

GAMES = ("tictactoe.kif", "nim.kif", "maze.kif")
TICTACTOE = ROOT / "games" / "tictactoe.kif"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Three bundled games in a folder of their own (links)."""
    games = tmp_path / "games"
    games.mkdir()
    for name in GAMES:
        (games / name).symlink_to(ROOT / "games" / name)
    return games


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _sweep(capsys: pytest.CaptureFixture[str], folder: Path, journal: Path,
           *more: str) -> list[dict[str, Any]]:
    """`sweep FOLDER --json --resume JOURNAL`'s rows."""
    assert main(["sweep", str(folder), "--json", "--playouts", "1", "--resume", str(journal),
                 *more]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_sweep_keeps_every_finished_file_in_its_journal(
        capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path) -> None:
    """The journal holds a header naming the run, then each file's row as it finished."""
    journal = tmp_path / "sweep.journal"
    rows = _sweep(capsys, folder, journal)
    header, *kept = _lines(journal)
    assert header["run"]["command"] == "sweep" and header["run"]["seed"] == 0
    assert [entry["key"] for entry in kept] == [str(folder / name) for name in sorted(GAMES)]
    assert [entry["result"] for entry in kept] == rows


def test_an_interrupted_sweep_resumes_without_repeating_finished_files(
        capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path) -> None:
    """Cut after its first file (and in the middle of the second's line), the sweep run
    again prints the first file's kept row, in its place, and checks the other two."""
    journal = tmp_path / "sweep.journal"
    full = _sweep(capsys, folder, journal)
    header, first, second, _ = journal.read_text().splitlines()
    kept = json.loads(first)
    kept["result"]["reason"] = "kept in the journal"
    journal.write_text("\n".join([header, json.dumps(kept), second[:40]]))
    rows = _sweep(capsys, folder, journal)
    assert rows[0] == {**full[0], "reason": "kept in the journal"}
    assert [row["path"] for row in rows] == [row["path"] for row in full]
    assert [row["fate"] for row in rows[1:]] == ["loaded", "loaded"]
    assert len(_lines(journal)) == 4  # the header and three files, the cut line dropped


def test_a_journal_of_another_run_is_refused(
        capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path) -> None:
    """A journal written with other options is a usage error that names the option, and
    is left as it was."""
    journal = tmp_path / "sweep.journal"
    _sweep(capsys, folder, journal)
    before = journal.read_bytes()
    assert main(["sweep", str(folder), "--json", "--playouts", "1", "--seed", "4",
                 "--resume", str(journal)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"gdl-reasoner: --resume {journal}: written by another run (seed: 0 there, 4 now); "
        "give another file, or remove it to start again")
    assert journal.read_bytes() == before


def test_a_file_that_is_not_a_journal_is_refused(
        capsys: pytest.CaptureFixture[str], folder: Path, tmp_path: Path) -> None:
    """Any other file given to --resume is refused and left untouched."""
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    assert main(["sweep", str(folder), "--resume", str(other)]) == 2
    assert "not a journal of gdl-reasoner" in capsys.readouterr().err
    assert other.read_text() == "my notes\n"


def test_a_resumed_dataset_writes_the_bytes_of_a_plain_run(tmp_path: Path) -> None:
    """`dataset --resume` (its rows made in tasks of whole playouts) writes the same file as
    the plain run, and run again takes every batch from the journal."""
    args = ["dataset", str(TICTACTOE), "--positions", "50", "--seed", "2"]
    plain, first, again = tmp_path / "plain.jsonl", tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    journal = tmp_path / "dataset.journal"
    assert main([*args, "-o", str(plain)]) == 0
    assert main([*args, "-o", str(first), "--resume", str(journal)]) == 0
    assert first.read_bytes() == plain.read_bytes()
    header, *batches = journal.read_text().splitlines()
    changed = []
    for line in batches:
        entry = json.loads(line)
        for row in entry["result"]:
            row["game"] = "from the journal"
        changed.append(json.dumps(entry))
    journal.write_text("\n".join([header, *changed]) + "\n")
    assert main([*args, "-o", str(again), "--resume", str(journal)]) == 0
    assert {row["game"] for row in _lines(again)} == {"from the journal"}


def test_a_resumed_tournament_counts_the_kept_matches(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`bench-players --resume` takes the kept matches' goals and outcomes into its row."""
    journal = tmp_path / "players.journal"
    args = ["bench-players", str(TICTACTOE), "--players", "mcts", "--playouts", "4",
            "--matches", "3", "--json", "--resume", str(journal)]
    assert main(args) == 0
    capsys.readouterr()
    header, *matches = journal.read_text().splitlines()
    assert len(matches) == 3
    won = [json.dumps({**json.loads(line), "result": [100.0, "win"]}) for line in matches]
    journal.write_text("\n".join([header, *won]) + "\n")
    assert main(args) == 0
    row = json.loads(capsys.readouterr().out)
    assert (row["mean_goal"], row["wins"], row["losses"]) == (100.0, 3, 0)


@pytest.mark.slow
def test_a_run_killed_mid_way_resumes_to_the_file_of_an_uninterrupted_run(
        tmp_path: Path) -> None:
    """A dataset run killed (SIGKILL) after some of its tasks finished leaves a journal;
    the same command again runs only the rest and writes the file of a run never stopped."""
    args = [sys.executable, "-m", "reasoner.cli", "dataset", str(TICTACTOE), "--positions",
            "3000", "--playouts", "5", "--seed", "9"]
    plain, resumed = tmp_path / "plain.jsonl", tmp_path / "resumed.jsonl"
    journal = tmp_path / "dataset.journal"
    assert subprocess.run([*args, "-o", str(plain)], cwd=ROOT, timeout=300).returncode == 0
    run = subprocess.Popen([*args, "-o", str(resumed), "--resume", str(journal)], cwd=ROOT,
                           stderr=subprocess.PIPE, text=True)
    assert run.stderr is not None
    for line in run.stderr:  # progress lines: kill after the third finished task
        if line.startswith("[") and len(journal.read_text().splitlines()) - 1 >= 3:
            run.send_signal(signal.SIGKILL)
            break
    run.wait(60)
    assert run.returncode == -signal.SIGKILL
    assert not resumed.exists()
    kept = len(journal.read_text().splitlines()) - 1
    assert kept >= 3
    done = subprocess.run([*args, "-o", str(resumed), "--resume", str(journal)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert resumed.read_bytes() == plain.read_bytes()
    assert len(journal.read_text().splitlines()) - 1 > kept
