"""Why a load settled on its backend, as data: the same steps in process, in the load's
statistics and over the service, whose words are the backend note that the command line
and the service print."""

from __future__ import annotations

import pytest

from client import ReasonerClient
from reasoner.core.backend_reason import BackendReason, ReasonStep
from reasoner.engine.game import Game
from reasoner.propnet import native as native_module
from tests.service_support import GAMES, game_text, running_server


def test_a_reason_reads_as_its_steps_words_joined() -> None:
    """A reason's words are its steps' words, joined with semicolons; a step already taken
    is not added twice."""
    first = ReasonStep("network", "no network: more than 50 gates", bound="size")
    then = ReasonStep("topdown", "SWI-Prolog is not installed", "clingo grounds them")
    reason = BackendReason().then(first).then(then).then(first)
    assert reason.steps == (first, then)
    assert str(reason) == ("no network: more than 50 gates; SWI-Prolog is not installed, so "
                           "clingo grounds them")
    assert not BackendReason() and str(BackendReason()) == ""


def test_the_service_sends_the_steps_that_the_load_took(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A network the kernel cannot take (a block's table bound lowered to 1 KiB) settles
    auto on the Python network; the client reads the same steps the load took in process,
    and the note's words are theirs."""
    monkeypatch.setattr(native_module, "MAX_TABLE_BYTES", 1024)
    local = Game.from_file(GAMES / "tictactoe.kif")
    with running_server() as srv, ReasonerClient(srv.target) as client:
        remote = client.load_game(game_text("tictactoe"))
    assert remote.backend == local.backend == "propnet"
    assert remote.backend_reason == local.statistics.backend_reason
    assert [step.backend for step in remote.backend_reason.steps] == ["native"]
    assert remote.backend_note == str(remote.backend_reason) == local.statistics.backend_note
