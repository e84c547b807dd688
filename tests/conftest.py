"""Shared fixtures: the bundled games and the public corpus beside the project."""

from __future__ import annotations

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


_loaded: dict[str, Game] = {}


def bundled(name: str) -> Game:
    """A bundled game by file stem, loaded once per test session."""
    if name not in _loaded:
        _loaded[name] = Game.from_file(GAMES / f"{name}.kif")
    return _loaded[name]
