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


def test_a_pause_that_keeps_many_objects_freezes_them(collecting: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects kept past the bound during a pause are moved out of the collector's sight
    when it ends (its next collections would walk every one of them)."""
    import reasoner.gdl.collector as collector

    monkeypatch.setattr(collector, "FREEZE_AFTER", 1000)
    gc.collect()
    before = gc.get_freeze_count()
    try:
        with paused_collector():
            kept = [[index] for index in range(5000)]
        assert gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()


def test_a_small_pause_freezes_nothing(collecting: None) -> None:
    """A pause that keeps a game's worth of objects leaves them to the collector."""
    gc.collect()
    before = gc.get_freeze_count()
    with paused_collector():
        parse_game((GAMES / "tictactoe.kif").read_text())
    assert gc.get_freeze_count() == before


def test_a_pause_ended_by_an_error_freezes_nothing(collecting: None,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A pause that ends with an exception freezes nothing: its traceback is a cycle that
    may hold the half-built tree."""
    import reasoner.gdl.collector as collector

    monkeypatch.setattr(collector, "FREEZE_AFTER", 1000)
    gc.collect()
    before = gc.get_freeze_count()
    with pytest.raises(ValueError), paused_collector():
        kept = [[index] for index in range(5000)]
        raise ValueError(len(kept))
    assert gc.get_freeze_count() == before
    assert gc.isenabled()
