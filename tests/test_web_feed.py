"""``gdl-reasoner manage --web URL``: a match played between real HTTP players is published
to the web page (``POST URL/api/feed``) at its start, after every step and at its end, and
the page shows it as a watched match that ends as the manager's record does; a page that
cannot be reached costs one warning line and never the match."""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reasoner.cli.app import main
from reasoner.console.players import ReasonerClient
from reasoner.server.app import create_server
from reasoner.web.app import create_app
from reasoner.web.browser import page_server
from reasoner.web.library import GameLibrary
from reasoner.web.requests import WebState
from tests.conftest import ROOT
from tests.ggp_support import http_player

TOKEN = "feed-secret"
TICTACTOE = str(ROOT / "games" / "tictactoe.kif")


@pytest.fixture(scope="module")
def page() -> Iterator[str]:
    """The web page over a reasoner service in this process, with a token; its base URL."""
    server, port, _ = create_server("127.0.0.1:0", games=None)
    client = ReasonerClient(f"127.0.0.1:{port}")
    try:
        library = GameLibrary([("games", ROOT / "games")], client)
        app = create_app(WebState(library, client, token=TOKEN))
        with page_server(app) as base:
            yield base
    finally:
        client.close()
        server.stop(None)


def _get(base: str, path: str) -> Any:
    request = urllib.request.Request(f"{base}{path}", headers={"X-Token": TOKEN})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as response:
        return json.loads(response.read())


def _manage(record_dir: Path, *web: str) -> int:
    with http_player("alphabeta") as (a, _), http_player("random") as (b, _):
        return main(["manage", TICTACTOE, "--player", a, "--player", b, "--startclock", "2",
                     "--playclock", "1", "--record", str(record_dir), *web])


@pytest.mark.slow  # about 2 s
def test_a_managed_match_is_watched_on_the_page_to_its_end(
        page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``manage --web BASE --web-token TOKEN`` between two real players: the page lists a
    watched match of the record's id with as many steps as the record, over, its seats the
    record's players, one change per message (the start, each step, the end), and its last
    position terminal with the record's goals; nothing is warned."""
    status = _manage(tmp_path, "--web", page, "--web-token", TOKEN)
    assert status == 0
    assert "cannot publish" not in capsys.readouterr().err
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["terminal"] and record["moves"]
    matches = {m["id"]: m for m in _get(page, "/api/matches")["matches"]}
    watched = matches[f"watch-{record['match_id']}"]
    assert watched["kind"] == "watch"
    assert watched["steps"] == len(record["moves"])
    assert watched["status"] == "over"
    assert watched["seats"] == record["players"]
    assert watched["version"] == len(record["moves"]) + 2
    last = _get(page, f"/api/matches/{watched['id']}/positions/last")
    assert last["terminal"] is True
    assert last["goals"] == record["goals"]
    assert last["moves"] == record["moves"][-1]


def _closed_port() -> int:
    """A loopback port that nothing listens on (bound, then closed)."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port: int = sock.getsockname()[1]
    return port


@pytest.mark.slow  # about 2 s
def test_a_page_that_cannot_be_reached_costs_one_warning_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--web`` at a closed port: the match is played to its end (exit 0, the record
    written) and stderr has one warning line, naming the feed's URL and the refusal,
    though every step's message failed."""
    url = f"http://127.0.0.1:{_closed_port()}"
    status = _manage(tmp_path, "--web", url)
    err = capsys.readouterr().err
    assert status == 0
    (path,) = tmp_path.glob("*.json")
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["terminal"] and len(record["moves"]) >= 5
    warned = [line for line in err.splitlines() if "cannot publish" in line]
    assert len(warned) == 1, err
    assert f"{url}/api/feed" in warned[0] and "refused" in warned[0].lower()


@pytest.mark.slow  # about 2 s
def test_a_page_that_refuses_the_messages_is_one_warning_with_its_reason(
        page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--web`` at a page with a token, given none: the match is played to its end and
    the one warning line gives the page's status and error message."""
    status = _manage(tmp_path, "--web", page)
    err = capsys.readouterr().err
    assert status == 0
    assert len(list(tmp_path.glob("*.json"))) == 1
    warned = [line for line in err.splitlines() if "cannot publish" in line]
    assert len(warned) == 1, err
    assert "HTTP 401: this page needs its token" in warned[0]
