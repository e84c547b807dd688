"""Every heuristic on a seeded sample of the public corpus (every file with
GDL_CORPUS_FULL=1): each file is its own test (its id is the file's path in the corpus) and
each file's fate is printed; a heuristic may refuse cleanly (the game is too large for it, or
it does not apply) but never crash."""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from reasoner.engine.limits import BoundedCrash, Limits, run_bounded
from reasoner.errors import ReasonerError
from reasoner.heuristics.survey import check_file_heuristics
from tests.conftest import CORPUS, corpus_params
from tests.test_crosscheck import _pool

FULL = os.environ.get("GDL_CORPUS_FULL") == "1"
SAMPLE = 12


def _selection(corpus: Path) -> list[Path]:
    if FULL:
        return sorted(corpus.glob("*/*.kif"))
    return sorted(random.Random(707).sample(_pool(corpus), SAMPLE))


SELECTED = [str(p.relative_to(CORPUS)) for p in _selection(CORPUS)] if CORPUS.is_dir() else []


@functools.cache
def _fate(name: str) -> tuple[str, bool]:
    """Load the file in a bounded child and evaluate every heuristic for every role on a few
    states: the line that reports the file's fate, and whether it crashed (once per file;
    shared with the summary)."""
    text = (CORPUS / name).read_text(encoding="utf-8", errors="replace")
    try:
        fates = run_bounded(check_file_heuristics, (text,), Limits(60, 4096))
    except BoundedCrash as error:
        return f"{name}: FAILED {error}", True
    except ReasonerError as error:
        return f"{name}: rejected: {type(error).__name__}: {str(error)[:80]}", False
    refused = {k: v for k, v in fates.items() if v.startswith("refused")}
    shown = "; ".join(f"{k} {v[9:60]}" for k, v in refused.items())
    return (f"{name}: evaluated ({fates['analysis']})"
            + (f"; refused: {shown}" if refused else "")), False


@pytest.mark.xdist_group("heuristics-corpus")
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", corpus_params(SELECTED))
def test_heuristics_on_corpus_files(corpus: Path, name: str) -> None:
    """A file may be rejected (invalid, GDL-II, over the bound) and a heuristic may refuse,
    but no file may crash."""
    line, crashed = _fate(name)
    assert not crashed, line


@pytest.mark.xdist_group("heuristics-corpus")
@pytest.mark.timeout(1200)
def test_heuristics_evaluate_at_least_half_the_files(
        corpus: Path, report: Callable[[str, str], Path]) -> None:
    """Every file's fate, written to build/test-reports/heuristics-corpus.txt; at least half
    the files get every heuristic evaluated (the fates of the test above; a file whose test
    did not run is checked here)."""
    lines = [_fate(name)[0] for name in SELECTED]
    report("heuristics-corpus", "\n".join(lines))
    assert sum(line.split(": ")[1].startswith("evaluated") for line in lines) >= len(lines) // 2
