"""Every heuristic on a seeded sample of the public corpus (every file with
GDL_CORPUS_FULL=1): each file's fate is printed; a heuristic may refuse cleanly (the game is
too large for it, or it does not apply) but never crash."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from reasoner.engine.limits import BoundedCrash, Limits, run_bounded
from reasoner.errors import ReasonerError
from reasoner.heuristics.survey import check_file_heuristics
from tests.test_crosscheck import _pool

FULL = os.environ.get("GDL_CORPUS_FULL") == "1"
SAMPLE = 12


def _selection(corpus: Path) -> list[Path]:
    if FULL:
        return sorted(corpus.glob("*/*.kif"))
    return sorted(random.Random(707).sample(_pool(corpus), SAMPLE))


@pytest.mark.corpus
@pytest.mark.timeout(1200)
def test_heuristics_on_corpus_files(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Load each file in a bounded child and evaluate every heuristic for every role on a
    few states; a file may be rejected (invalid, GDL-II, over the bound) and a heuristic may
    refuse, but no file may crash."""
    crashed: list[str] = []
    lines: list[str] = []
    for path in _selection(corpus):
        name = str(path.relative_to(corpus))
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            fates = run_bounded(check_file_heuristics, (text,), Limits(60, 4096))
        except BoundedCrash as error:
            crashed.append(name)
            lines.append(f"{name}: FAILED {error}")
            continue
        except ReasonerError as error:
            lines.append(f"{name}: rejected: {type(error).__name__}: {str(error)[:80]}")
            continue
        refused = {k: v for k, v in fates.items() if v.startswith("refused")}
        shown = "; ".join(f"{k} {v[9:60]}" for k, v in refused.items())
        lines.append(f"{name}: evaluated ({fates['analysis']})"
                     + (f"; refused: {shown}" if refused else ""))
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert not crashed, crashed
    assert sum(line.split(": ")[1].startswith("evaluated") for line in lines) >= len(lines) // 2
