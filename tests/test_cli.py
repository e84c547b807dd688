"""The ``gdl-reasoner`` command line, run as a real subprocess.

The CLI's contract (``reasoner/cli/``): every command prints one clear line on bad input and
exits non-zero, never a traceback; good input prints the documented output and exits 0.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import clingo
import pytest

PROJECT = Path(__file__).resolve().parents[1]
GAMES = PROJECT / "games"
BUNDLED = sorted(GAMES.glob("*.kif"))

MALFORMED = "(role robot)\n(init (cell 1)\n(legal robot go)\n"
INVALID = "(role robot)\n(q a)\n  (<= (p ?x) (q a))\n"


def run_cli(*args: str | Path, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """Run ``python -m reasoner.cli ARGS`` from the project root and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "reasoner.cli", *map(str, args)],
        cwd=PROJECT, capture_output=True, text=True, timeout=timeout, check=False,
    )


def write(folder: Path, name: str, text: str) -> Path:
    """Write a GDL file into ``folder``."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the program ---------------------------------------------------------------------------


def test_version_prints_the_installed_distributions_version() -> None:
    """``--version`` prints "gdl-reasoner X.Y.Z", the version of the installed distribution
    (the one pyproject.toml names), and exits 0."""
    from importlib import metadata

    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"gdl-reasoner {metadata.version('gdl-reasoner')}\n"


def test_help_names_every_backend_not_clingo_alone() -> None:
    """The top-level ``--help`` says which backends answer (clingo, native, propnet,
    compiled, topdown, position, and auto picking) instead of "answered by clingo"."""
    result = run_cli("--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "answered by clingo" not in text
    for backend in ("clingo", "native", "propnet", "compiled", "topdown", "SWI-Prolog",
                    "position", "auto"):
        assert backend in text, backend


# -- check --------------------------------------------------------------------------------


def test_check_bundled_game_prints_ok() -> None:
    """``check games/tictactoe.kif`` prints one ok line with roles and sizes, exit 0."""
    result = run_cli("check", "games/tictactoe.kif")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    (line,) = result.stdout.splitlines()
    assert line.startswith("games/tictactoe.kif: ok: roles xplayer oplayer; ")
    assert "29 fluents, 20 moves" in line


@pytest.mark.slow  # about 1.3 s
def test_check_every_bundled_game_prints_ok() -> None:
    """``check`` over all bundled games prints an ok line for each and exits 0."""
    result = run_cli("check", *(path.relative_to(PROJECT) for path in BUNDLED))
    assert result.returncode == 0, result.stderr
    ok_lines = [line for line in result.stdout.splitlines() if ": ok: " in line]
    assert [line.split(":", 1)[0] for line in ok_lines] == [
        str(path.relative_to(PROJECT)) for path in BUNDLED
    ]


def test_check_malformed_file_prints_one_line_with_position(tmp_path: Path) -> None:
    """A malformed file gives exactly one stderr line with line and column, exit 1."""
    path = write(tmp_path, "malformed.kif", MALFORMED)
    result = run_cli("check", path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line == (f"gdl-reasoner: {path}: GdlSyntaxError: line 2, column 1: "
                    "'(' is never closed")


def test_check_invalid_file_prints_one_line_with_rule(tmp_path: Path) -> None:
    """An invalid (unsafe) game gives one stderr line naming line:column and the rule."""
    path = write(tmp_path, "invalid.kif", INVALID)
    result = run_cli("check", path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"gdl-reasoner: {path}: GdlValidationError: line 3, column 3: ")
    assert "(<= (p ?x) (q a))" in line


def test_check_missing_file_prints_one_clear_line(tmp_path: Path) -> None:
    """A missing file gives one line naming the file and the reason, non-zero exit."""
    path = tmp_path / "no-such-game.kif"
    result = run_cli("check", path)
    assert result.returncode != 0
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert str(path) in line
    assert "No such file" in line


def test_check_reports_warnings_on_stdout(tmp_path: Path) -> None:
    """A game that loads with a warning prints ok and then a warning line, exit 0."""
    text = (GAMES / "tictactoe.kif").read_text(encoding="utf-8") + "\n(foo a)\n(foo a b)\n"
    path = write(tmp_path, "lenient.kif", text)
    result = run_cli("check", path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{path}: ok: roles xplayer oplayer")
    assert len(lines) == 2
    assert lines[1].startswith(f"{path}: warning: ")
    assert "relation 'foo'" in lines[1]


def test_check_deeply_nested_term_prints_no_traceback(tmp_path: Path) -> None:
    """A term nested 1000 deep never makes ``check`` print a traceback."""
    term = "(f " * 1000 + "a" + ")" * 1000
    path = write(tmp_path, "deep.kif", f"(role r)\n(init {term})\n(legal r noop)\n(goal r 1)\n")
    result = run_cli("check", path)
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) <= 1


# -- translate ----------------------------------------------------------------------------


def test_translate_prints_a_program_clingo_grounds(tmp_path: Path) -> None:
    """``translate`` prints ASP that clingo accepts and that derives the initial legal moves."""
    result = run_cli("translate", "games/tictactoe.kif")
    assert result.returncode == 0, result.stderr
    control = clingo.Control(["--warn=none"])
    control.add("base", [], result.stdout + "true(F) :- init(F).\n#show legal/2.\n")
    control.ground([("base", [])])
    models: list[list[clingo.Symbol]] = []
    control.solve(on_model=lambda model: models.append(list(model.symbols(shown=True))))
    assert len(models) == 1
    legal = {str(symbol) for symbol in models[0]}
    assert legal == {f"legal(xplayer,mark({x},{y}))" for x in (1, 2, 3) for y in (1, 2, 3)} | {
        "legal(oplayer,noop)"
    }


def test_translate_relaxed_program_also_grounds() -> None:
    """``translate --relaxed`` appends the relaxed program; clingo grounds the whole text."""
    result = run_cli("translate", "--relaxed", "games/nim.kif")
    assert result.returncode == 0, result.stderr
    assert "does(R,M) :- legal(R,M)." in result.stdout
    control = clingo.Control(["--warn=none"])
    control.add("base", [], result.stdout)
    control.ground([("base", [])])
    assert len(control.symbolic_atoms) > 0


def test_translate_malformed_file_prints_one_line(tmp_path: Path) -> None:
    """``translate`` on a malformed file prints one stderr line with the position, exit 1."""
    path = write(tmp_path, "malformed.kif", MALFORMED)
    result = run_cli("translate", path)
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "line 2, column 1" in line


# -- bench --------------------------------------------------------------------------------


@pytest.mark.slow  # about 1.7 s
def test_bench_json_prints_one_object_per_game() -> None:
    """``bench --json --backends clingo`` prints one JSON object per game, exit 0."""
    result = run_cli("bench", "--json", "--runs", "3", "--seconds", "0.2", "--backends",
                     "clingo", "games/tictactoe.kif", "games/nim.kif")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [record["game"] for record in records] == ["tictactoe", "nim"]
    for record in records:
        assert {"game", "backend", "updates_per_sec", "load_ms"} <= record.keys()
        assert isinstance(record["backend"], str) and record["backend"]
        assert record["updates_per_sec"] > 0
        assert record["load_ms"] > 0


@pytest.mark.needs_tools  # the reference and top-down rows run SWI-Prolog
def test_bench_measures_every_backend_in_one_run() -> None:
    """By default ``bench --json`` reports every backend of a game in one run: clingo, the
    network one state at a time, in batches of 64 and 1024, the native kernel one state at a
    time (through Python and in C), in batches on one core and in two processes, and on a
    GPU where there is one (else the reason it was skipped), position by position (clingo
    and top-down), the reference, Simulate over gRPC beside the same playouts in process,
    and the network's size."""
    result = run_cli("bench", "--json", "--runs", "1", "--seconds", "0.2",
                     "games/tictactoe.kif")
    assert result.returncode == 0, result.stderr
    records = {record["backend"]: record
               for record in map(json.loads, result.stdout.splitlines())}
    assert set(records) == {"clingo", "propnet", "propnet-batch-64", "propnet-batch-1024",
                            "native", "native-one-state", "native-batch", "native-batch-2p",
                            "gpu-batch", "position", "compiled", "compiled-batch", "topdown",
                            "reference", "propnet-size", "grpc-simulate-native"}
    gpu = records.pop("gpu-batch")
    assert gpu.get("updates_per_sec", 0) > 0 or "GPU" in gpu["reason"] or "CuPy" in gpu["reason"]
    assert all(records[b]["updates_per_sec"] > 0 for b in records if b != "propnet-size")
    size = records["propnet-size"]
    assert (size["propositions"], size["gates"], size["edges"]) == (114, 176, 409)
    assert size["build_ms"] > 0 and size["resident_mb"] > 0
    assert records["grpc-simulate-native"]["in_process_updates_per_sec"] > 0


@pytest.mark.needs_tools  # the reference runs SWI-Prolog
def test_bench_measures_the_position_backend_beside_the_reference() -> None:
    """``bench --backends clingo,position,reference`` measures position by position like
    clingo (load time, updates per second, over the same tables) in the run that measures
    the reference, and prints a line for each."""
    result = run_cli("bench", "--json", "--runs", "1", "--seconds", "0.2", "--backends",
                     "clingo,position,reference", "games/tictactoe.kif")
    assert result.returncode == 0, result.stderr
    records = {record["backend"]: record
               for record in map(json.loads, result.stdout.splitlines())}
    assert list(records) == ["clingo", "position", "reference"]
    position = records["position"]
    assert position["updates_per_sec"] > 0 and position["load_ms"] > 0
    assert position["runs"] == 1 and position["updates_per_run"][0] > 0
    assert (position["fluents"], position["moves"]) == (records["clingo"]["fluents"],
                                                        records["clingo"]["moves"])
    text = run_cli("bench", "--runs", "1", "--seconds", "0.1", "--backends",
                   "position,reference", "games/tictactoe.kif")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["tictactoe", "position"],
                                                    ["tictactoe", "reference"]]
    assert all("updates/s" in line for line in lines)


@pytest.mark.slow  # the network's grounding runs to auto's bound, twice: about 30 s
@pytest.mark.needs_tools  # top-down runs SWI-Prolog
def test_bench_reports_ground_once_backends_that_do_not_load(tmp_path: Path) -> None:
    """On a game too large to ground once, ``bench`` measures position, the compiled
    rules and topdown and reports clingo and the network as not measured, with the reason,
    instead of trying them; Simulate over gRPC is measured where auto settled for the
    compiled rules, else reported as too slow; exit 0."""
    from tests.test_position_backend import EXPLODING

    path = write(tmp_path, "exploding.kif", EXPLODING)
    result = run_cli("bench", "--json", "--runs", "1", "--seconds", "0.2", "--backends",
                     "clingo,propnet,position,compiled,topdown,grpc-simulate", path,
                     timeout=180)
    assert result.returncode == 0, result.stderr
    records = {record["backend"]: record
               for record in map(json.loads, result.stdout.splitlines())}
    (grpc,) = (name for name in records if name.startswith("grpc-simulate"))
    assert list(records) == ["clingo", "propnet", "position", "compiled", "topdown", grpc]
    for backend in ("clingo", "propnet"):
        assert records[backend]["reason"].startswith("does not load within bounds (")
        assert "each position is evaluated as it is asked" in records[backend]["reason"]
    assert (records[grpc].get("updates_per_sec", 0) > 0
            or "position by position" in records[grpc]["reason"])
    for backend in ("position", "compiled", "topdown"):
        assert records[backend]["updates_per_sec"] > 0


@pytest.mark.slow  # about 3 s
def test_bench_prints_each_row_as_it_is_measured() -> None:
    """``bench`` prints a backend's row as soon as that backend is measured: the first row
    (clingo's) arrives while propnet is still measured for its second, not when the run
    ends; and with its output a pipe, nothing but rows (no progress line)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "reasoner.cli", "bench", "--runs", "1", "--seconds", "1",
         "--backends", "clingo,propnet", "games/tictactoe.kif"],
        cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        first_at = time.monotonic()
        still_running = process.poll() is None
        rest = process.stdout.read()
        ended_at = time.monotonic()
        errors = process.stderr.read()
        process.wait(timeout=60)
    finally:
        process.kill()
    assert first.split()[:2] == ["tictactoe", "clingo"] and "updates/s" in first
    assert still_running and ended_at - first_at > 0.8
    assert process.returncode == 0 and errors == ""
    assert [line.split()[1] for line in rest.splitlines()] == ["propnet", "network"]


@pytest.mark.slow  # the network's grounding runs to auto's bound first: about 8 s
def test_bench_names_a_reason_shared_by_several_backends_once(tmp_path: Path) -> None:
    """On a game too large to ground once, clingo, propnet and native are not measured
    for one reason: the text output prints it once, on one line naming the three."""
    from tests.test_position_backend import EXPLODING

    path = write(tmp_path, "exploding.kif", EXPLODING)
    result = run_cli("bench", "--runs", "1", "--seconds", "0.2", "--backends",
                     "clingo,propnet,native,position", path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["position", "clingo,"]
    assert lines[1].split(":")[0].split(None, 1)[1] == "clingo, propnet, native"
    assert result.stdout.count("does not load within bounds") == 1


def test_bench_refuses_an_unknown_backend() -> None:
    """``bench --backends gpu`` names the backends it knows and exits 2."""
    result = run_cli("bench", "--backends", "clingo,gpu", "games/nim.kif")
    assert result.returncode == 2
    assert "unknown backend 'gpu'" in result.stderr and "propnet-batch-64" in result.stderr


def test_bench_missing_file_prints_one_clear_line(tmp_path: Path) -> None:
    """``bench`` on a missing file prints one line and exits non-zero, no traceback."""
    result = run_cli("bench", "--runs", "1", "--seconds", "0.1", tmp_path / "missing.kif")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_bench_malformed_file_prints_one_line(tmp_path: Path) -> None:
    """``bench`` on a malformed file prints one line with the position, exit 1."""
    path = write(tmp_path, "malformed.kif", MALFORMED)
    result = run_cli("bench", "--runs", "1", "--seconds", "0.1", path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "line 2, column 1" in line


# -- manage -------------------------------------------------------------------------------


def test_the_records_folder_of_the_guide_is_ignored_by_git() -> None:
    """``manage --record records/`` run at the repository's root (as the matches guide does)
    writes into a folder git ignores, so the records never show as untracked files."""
    if shutil.which("git") is None or not (PROJECT / ".git").exists():
        pytest.skip("not a git checkout")
    assert "--record records/" in (PROJECT / "docs" / "guides" / "matches.md").read_text(
        encoding="utf-8")
    ignored = subprocess.run(["git", "check-ignore", "-q", "records/tictactoe.1.0.json"],
                             cwd=PROJECT, check=False, timeout=30)
    assert ignored.returncode == 0


# -- sweep --------------------------------------------------------------------------------


def test_sweep_reports_loaded_and_rejected(tmp_path: Path) -> None:
    """``sweep`` over good, malformed and invalid games prints their fates, exit 0."""
    write(tmp_path, "good.kif", (GAMES / "nim.kif").read_text(encoding="utf-8"))
    write(tmp_path, "malformed.kif", MALFORMED)
    write(tmp_path, "invalid.kif", INVALID)
    result = run_cli("sweep", tmp_path, "--timeout", "30", "--playouts", "1")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines()
            if line.endswith(".kif") or ".kif " in line}
    assert rows == {"good.kif": "loaded", "malformed.kif": "rejected", "invalid.kif": "rejected"}
    assert "total: 1 loaded, 2 rejected, 0 defect, 0 limit, 0 failed of 3 files" in result.stdout


def test_sweep_json_prints_one_fate_per_file(tmp_path: Path) -> None:
    """``sweep --json`` prints one JSON fate per file with the rejection reason."""
    write(tmp_path, "invalid.kif", INVALID)
    write(tmp_path, "good.kif", (GAMES / "nim.kif").read_text(encoding="utf-8"))
    result = run_cli("sweep", tmp_path, "--json", "--timeout", "30", "--playouts", "1")
    assert result.returncode == 0, result.stderr
    fates = {Path(f["path"]).name: f for f in map(json.loads, result.stdout.splitlines())}
    assert fates.keys() == {"good.kif", "invalid.kif"}
    assert fates["good.kif"]["fate"] == "loaded"
    assert fates["good.kif"]["roles"] == 2
    assert fates["invalid.kif"]["fate"] == "rejected"
    assert "line 3, column 3" in fates["invalid.kif"]["reason"]


def test_an_instantiation_sweep_reports_how_long_each_check_took(tmp_path: Path) -> None:
    """``sweep --instantiate --json`` gives each checked file the playout check's own time
    (the two games loaded and played), apart from the instantiation's, and the table sums
    them up."""
    write(tmp_path, "good.kif", (GAMES / "nim.kif").read_text(encoding="utf-8"))
    write(tmp_path, "invalid.kif", INVALID)
    result = run_cli("sweep", tmp_path, "--instantiate", "--json", "--timeout", "30",
                     "--playouts", "1")
    assert result.returncode == 0, result.stderr
    fates = {Path(f["path"]).name: f for f in map(json.loads, result.stdout.splitlines())}
    assert fates["good.kif"]["fate"] == "instantiated"
    assert fates["good.kif"]["reason"] == ""
    assert fates["good.kif"]["check_seconds"] > 0
    assert fates["invalid.kif"]["check_seconds"] == 0
    table = run_cli("sweep", tmp_path, "--instantiate", "--timeout", "30", "--playouts", "1")
    assert "playout checks: 1, seconds median" in table.stdout


def test_sweep_on_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    """``sweep`` on a folder that does not exist prints one line and exits 2."""
    result = run_cli("sweep", tmp_path / "nowhere")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert "is not a folder" in line


@pytest.mark.slow  # about 1.8 s
def test_check_names_the_backend_that_answers() -> None:
    """``check`` names the backend that answers: by default the native kernel (where it is
    built, else the Python network) with the network's size, the Python network or clingo
    when asked for."""
    from reasoner.propnet.native import native_refusal

    default = run_cli("check", "games/nim.kif")
    python = run_cli("check", "--backend", "propnet", "games/nim.kif")
    clingo = run_cli("check", "--backend", "clingo", "games/nim.kif")
    assert default.returncode == python.returncode == clingo.returncode == 0
    chosen = "propnet" if native_refusal() else "native"
    assert f"; backend {chosen} (" in default.stdout and " gates, " in default.stdout
    assert "; backend propnet (" in python.stdout and " gates, " in python.stdout
    assert clingo.stdout.rstrip().endswith("ms; backend clingo")
