"""Shared fixtures: the bundled games and the public corpus beside the project.

Test tiers: every test that reads ../shared/corpus carries the ``corpus`` mark, the ones
asking for the ``corpus`` fixture automatically (:func:`pytest_collection_modifyitems`), the
others explicitly; a test that runs SWI-Prolog (the reference, the top-down backend), nginx
or the Node.js client carries ``needs_tools``; one that takes about a second or more carries
``slow``. ``make test-fast`` runs ``-n 2 -m "not corpus and not slow and not needs_tools"``
and installs nothing beyond the Python environment; ``make test`` installs the tools and
runs everything, in two processes too (``-n 2 --dist loadgroup``): a corpus sample and the
test that counts its outcomes share an ``xdist_group``, so that the count reuses the
outcomes cached in that process instead of computing them again. A test that opens a corpus
file without the mark fails, naming the file, so the fast tier cannot quietly start
depending on the corpus.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Generator
from pathlib import Path

import pytest

from reasoner import Game

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "games"
CORPUS = ROOT.parent / "shared" / "corpus"
BUNDLED = sorted(GAMES.glob("*.kif"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The public corpus folder; tests that need it skip visibly when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(f"the public GDL corpus is not at {CORPUS}")
    return CORPUS


def corpus_params(names: list[str]) -> list[object]:
    """``pytest.param`` per corpus file (relative path), each with that path as its id; one
    visibly skipped parameter when the corpus is absent (collection never fails on it)."""
    if not CORPUS.is_dir():
        return [pytest.param(None, id="absent",
                             marks=pytest.mark.skip(reason=f"the public GDL corpus is not at "
                                                           f"{CORPUS}"))]
    return [pytest.param(name, id=name) for name in names]


# Where tests write the tables they make (a sweep's fates): build/ is not tracked.
REPORTS = ROOT / "build" / "test-reports"


@pytest.fixture
def report() -> Callable[[str, str], Path]:
    """``report(name, text)``: write a table a test makes to ``build/test-reports/NAME.txt``
    and print it to the captured output, which pytest shows with ``-s`` (``make sweep``) or
    when the test fails; the tiers' output stays the test runner's lines."""

    def write(name: str, text: str) -> Path:
        REPORTS.mkdir(parents=True, exist_ok=True)
        path = REPORTS / f"{name}.txt"
        path.write_text(text + "\n", encoding="utf-8")
        print(f"\n{text}\n(written to {path})")
        return path

    return write


def bundled_params(slow: Collection[str] = ()) -> list[object]:
    """``pytest.param`` per bundled game (its stem as the id), those named in ``slow``
    marked slow (left to ``make test``)."""
    return [pytest.param(path, id=path.stem,
                         marks=[pytest.mark.slow] if path.stem in slow else [])
            for path in BUNDLED]


_loaded: dict[str, Game] = {}


def bundled(name: str) -> Game:
    """A bundled game by file stem, loaded once per test session."""
    if name not in _loaded:
        _loaded[name] = Game.from_file(GAMES / f"{name}.kif")
    return _loaded[name]


# -- the corpus mark -------------------------------------------------------------------------


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that ask for the ``corpus`` fixture are corpus tests."""
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.corpus)


_CORPUS_PREFIX = str(CORPUS) + os.sep
_watching: list[bool] = []  # non-empty while an unmarked test's setup or call runs
_corpus_reads: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    """Note files and folders of the corpus opened or listed while ``_watching``."""
    if not _watching or event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    target = args[0]
    if isinstance(target, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(target))
        if isinstance(path, str) and (path + os.sep).startswith(_CORPUS_PREFIX):
            _corpus_reads.append(path)


sys.addaudithook(_audit)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    _corpus_reads.clear()
    if item.get_closest_marker("corpus") is None:
        _watching.append(True)
    try:
        return (yield)
    finally:
        _watching.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    if item.get_closest_marker("corpus") is None:
        _watching.append(True)
    try:
        result = yield
    finally:
        _watching.clear()
    if _corpus_reads:
        pytest.fail(f"{item.nodeid} reads the corpus ({_corpus_reads[0]}) but is not marked "
                    "corpus: add @pytest.mark.corpus or use the corpus fixture", pytrace=False)
    return result


@pytest.fixture
def without_c_compiler(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No C compiler for the compiled backend (and an empty cache of compiled games), as on
    a machine without one."""
    from reasoner.compiled import build

    def missing() -> str:
        raise build.CompilerMissing("no C compiler (cc or gcc) is installed")

    monkeypatch.setattr(build, "compiler", missing)
    monkeypatch.setenv("GDL_REASONER_CACHE", str(tmp_path / "cache"))
