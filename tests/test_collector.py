"""Reading, validating and translating a game pause the cyclic garbage collector, and leave
it as they found it, whether they succeed or raise (reasoner/gdl/collector.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasoner.asp.translate import translate
from reasoner.errors import GdlSyntaxError, GdlValidationError
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.parser import parse_game
from reasoner.gdl.validation import validate

GAMES = Path(__file__).resolve().parent.parent / "games"


@pytest.fixture
def collecting() -> Iterator[None]:
    """The collector running, as in any program that did not turn it off."""
    running = gc.isenabled()
    gc.enable()
    yield
    if not running:
        gc.disable()


def test_a_pause_turns_the_collector_off_and_back_on(collecting: None) -> None:
    """Inside a pause the collector is off; after it, on again."""
    with paused_collector():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_resume_only_at_the_outermost(collecting: None) -> None:
    """An inner pause ending (a translation inside a load) does not restart the collector
    while the outer pause lasts."""
    with paused_collector():
        with paused_collector():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_program_stays_off() -> None:
    """A program that runs without the collector does not find it running after a load."""
    running = gc.isenabled()
    gc.disable()
    try:
        with paused_collector():
            pass
        assert not gc.isenabled()
    finally:
        if running:
            gc.enable()


def test_the_whole_front_end_leaves_the_collector_running(collecting: None) -> None:
    """Parsing, validating and translating a real game end with the collector on."""
    game = parse_game((GAMES / "tictactoe.kif").read_text(encoding="utf-8"))
    validate(game)
    translate(game)
    assert gc.isenabled()


def test_a_syntax_error_leaves_the_collector_running(collecting: None) -> None:
    """A parse that raises restores the collector."""
    with pytest.raises(GdlSyntaxError):
        parse_game("(role robot) (<= (terminal) (true done)")
    assert gc.isenabled()


def test_a_validation_error_leaves_the_collector_running(collecting: None) -> None:
    """A validation that raises (an unsafe rule) restores the collector."""
    with pytest.raises(GdlValidationError):
        validate(parse_game("(role robot) (<= (goal robot ?x) (true done))"))
    assert gc.isenabled()
