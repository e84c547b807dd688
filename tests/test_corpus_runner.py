"""The runner over a folder of games (reasoner.corpus), shared by the sweep and the corpus
cross-check: which files, each one's work bounded, and each one's fate."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from reasoner.corpus import Fate, game_files, run_folder
from reasoner.crosscheck.run import FATES as CROSSCHECK_FATES
from reasoner.engine.limits import Limits
from reasoner.errors import GdlSyntaxError
from reasoner.workshop.corpus_sweep import FATES as SWEEP_FATES


@dataclass(frozen=True)
class Record:
    path: str
    fate: Fate
    reason: str = ""
    seconds: float = 0.0


def _ended(path: str, fate: Fate, reason: str, seconds: float) -> Record:
    return Record(path, fate, reason, seconds)


def _work(path: str, how: str) -> Record:
    """Per file: its name says what the work does."""
    name = Path(path).stem
    if name == "slow":
        time.sleep(30)
    if name == "raises":
        raise GdlSyntaxError("no game here", 1, 2)
    if name == "crashes":
        raise RuntimeError("a bug")
    return Record(path, Fate.LOADED, how)


def _folder(tmp_path: Path, *names: str) -> Path:
    (tmp_path / "sub").mkdir()
    for name in names:
        (tmp_path / name).write_text("(role r)\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a game\n", encoding="utf-8")
    return tmp_path


def test_the_fates_print_as_the_words_sweep_and_crosscheck_always_printed() -> None:
    """Each tool's fates, in its order, are the words its tables and JSON lines show."""
    assert [str(f) for f in SWEEP_FATES] == [
        "loaded", "instantiated", "rejected", "defect", "limit", "failed"]
    assert [f"{f}" for f in CROSSCHECK_FATES] == [
        "agree", "disagree", "reference failed", "engine failed", "GDL-II", "limit"]
    assert json.dumps({"fate": Fate.REFERENCE_FAILED}) == '{"fate": "reference failed"}'
    assert Fate("GDL-II") is Fate.GDL_II and str(Fate.LIMIT) == "limit"


def test_game_files_are_sorted_and_a_sample_is_seeded(tmp_path: Path) -> None:
    """Every .kif file at any depth, sorted; a sample is the same for the same seed."""
    folder = _folder(tmp_path, "b.kif", "a.kif", "sub/c.kif", "sub/d.kif", "e.kif")
    every = game_files(folder)
    assert [str(p.relative_to(folder)) for p in every] == [
        "a.kif", "b.kif", "e.kif", "sub/c.kif", "sub/d.kif"]
    drawn = game_files(folder, sample=3, seed=7)
    assert len(drawn) == 3 and drawn == sorted(drawn) and set(drawn) <= set(every)
    assert drawn == game_files(folder, sample=3, seed=7)
    assert game_files(folder, sample=99) == every


@pytest.mark.slow  # runs files to their bounds: about 3 s
def test_each_file_gets_its_fate_and_the_run_goes_on(tmp_path: Path) -> None:
    """A file's result comes back; one over the time bound, one that raises and one that
    crashes end with their fates and reasons, and the files after them still run."""
    folder = _folder(tmp_path, "a.kif", "crashes.kif", "raises.kif", "slow.kif", "z.kif")
    records = list(run_folder(game_files(folder), _work, ("played",),
                              limits=Limits(3.0, 1024), ended=_ended))
    by_name = {Path(r.path).stem: r for r in records}
    assert list(by_name) == ["a", "crashes", "raises", "slow", "z"]
    assert by_name["a"] == Record(str(folder / "a.kif"), Fate.LOADED, "played")
    assert by_name["z"].fate is Fate.LOADED
    assert by_name["slow"].fate is Fate.LIMIT
    assert "time bound of 3 s" in by_name["slow"].reason
    assert 2.5 < by_name["slow"].seconds < 20
    assert by_name["raises"].fate is Fate.FAILED
    assert by_name["raises"].reason == "GdlSyntaxError: line 1, column 2: no game here"
    assert by_name["crashes"].fate is Fate.FAILED
    assert by_name["crashes"].reason.startswith("RuntimeError: a bug")


@pytest.mark.slow  # about 2 s
def test_the_caller_names_a_crashs_fate_and_a_limits_reason(tmp_path: Path) -> None:
    """The cross-check calls a crash ``engine failed``; a sweep explains a limit."""
    folder = _folder(tmp_path, "raises.kif", "slow.kif")
    records = list(run_folder(game_files(folder), _work, ("x",), limits=Limits(2.0, 1024),
                              ended=_ended, crashed=Fate.ENGINE_FAILED,
                              limit_reason=lambda path, error: f"{path.name}: {error.bound}"))
    assert [(r.fate, r.reason) for r in records] == [
        (Fate.ENGINE_FAILED, "GdlSyntaxError: line 1, column 2: no game here"),
        (Fate.LIMIT, "slow.kif: time")]


def test_without_limits_the_work_runs_here(tmp_path: Path) -> None:
    """``limits=None`` runs each file's work in this process (work that bounds its own
    parts, like the instantiation sweep's); what it lets out still becomes a fate."""
    folder = _folder(tmp_path, "a.kif", "raises.kif")
    records = list(run_folder(game_files(folder), _work, ("here",), limits=None,
                              ended=_ended))
    assert [(Path(r.path).name, r.fate) for r in records] == [
        ("a.kif", Fate.LOADED), ("raises.kif", Fate.FAILED)]


GAMES = Path(__file__).resolve().parent.parent / "games"


def test_a_sweep_stops_playing_at_its_time_and_still_counts_the_game_as_loaded() -> None:
    """A game that loads but whose playouts would outlast the file's time is ``loaded``: the
    playouts stop at the time given, and the reason says how far they got."""
    from reasoner.workshop.corpus_sweep import check_file

    whole = check_file(str(GAMES / "connectfour.kif"), playouts=3, max_steps=200)
    assert whole.fate == "loaded" and whole.reason == "" and whole.steps > 3
    cut = check_file(str(GAMES / "connectfour.kif"), playouts=3, max_steps=200,
                     seconds=0.0)  # the time is up as soon as the game has loaded
    assert cut.fate == "loaded"
    assert cut.steps == 0
    assert cut.reason == "played 0 steps (0 whole playouts) before the time bound"


def test_the_sweep_table_counts_backends_and_load_times() -> None:
    """The sweep's table says how many loaded files run on each backend, and the load time
    distribution."""
    from reasoner.workshop.corpus_sweep import SweepResult, format_table

    fates = [SweepResult("a.kif", Fate.LOADED, load_ms=100.0, backend="propnet"),
             SweepResult("b.kif", Fate.LOADED, load_ms=9000.0, backend="position"),
             SweepResult("c.kif", Fate.LOADED, load_ms=2000.0, backend="propnet"),
             SweepResult("d.kif", Fate.LIMIT, "over")]
    table = format_table(fates)
    assert "backends of the 3 files that loaded: 2 propnet, 1 position" in table
    assert "load seconds: median 2.00" in table and "max 9.00" in table
