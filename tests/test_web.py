"""The web page's HTTP side (``gdl-reasoner web``): the library, checking a pasted game,
played matches, undo, replayed records, a position's inspection and bad requests, against
a real reasoner service and the page served by uvicorn on a free port."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from reasoner.web.library import MAX_GAME_BYTES
from tests.conftest import GAMES
from tests.web_support import Page, open_page

TICTACTOE = "games/tictactoe"


@pytest.fixture(scope="module")
def page() -> Iterator[Page]:
    with open_page() as served:
        yield served


def _wait(check: Callable[[], Any], seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.02)


def _last(page: Page, match: str) -> dict[str, Any]:
    answer: dict[str, Any] = page.ok("GET", f"/api/matches/{match}/positions/last")
    return answer


def _wait_past(page: Page, match: str, index: int) -> None:
    """Wait until the match has a position after ``index`` (or is over)."""
    def moved() -> bool:
        last = _last(page, match)
        return bool(last["index"] > index or last["terminal"])
    _wait(moved)


def _play_out(page: Page, match: str, role: int, choose: int = 0) -> dict[str, Any]:
    """Play ``role``'s ``choose``-th legal move whenever it has a choice, to the end."""
    while True:
        position = _last(page, match)
        if position["terminal"]:
            return position
        legal = position["legal"][role]
        if len(legal) > 1:
            index = position["index"]
            page.ok("POST", f"/api/matches/{match}/move",
                    {"role": ["xplayer", "oplayer"][role],
                     "move": legal[min(choose, len(legal) - 1)]["text"]})
            _wait_past(page, match, index)
        else:
            _wait_past(page, match, position["index"])


def test_the_library_lists_the_bundled_games_and_finds_them_by_name(page: Page) -> None:
    """Every bundled game is listed with its roles; a search keeps the ones that match."""
    games = page.ok("GET", "/api/games")["games"]
    assert len(games) == len(list(GAMES.glob("*.kif")))
    found = page.ok("GET", "/api/games?q=tictac")["games"]
    assert [g["id"] for g in found] == ["games/blindtictactoe", TICTACTOE]
    assert found[1]["roles"] == ["xplayer", "oplayer"]
    # breakthrough's rules also read (role ?r): a variable is no role.
    assert page.ok("GET", "/api/games?q=breakthrough")["games"][0]["roles"] == ["white",
                                                                                 "black"]


def test_an_opened_game_has_its_board_backend_and_load_time(page: Page) -> None:
    """Opening tic-tac-toe loads it on the service: roles, backend, load time and a 3 by 3
    board of ``cell`` whose empty content is ``b``."""
    game = page.ok("POST", f"/api/games/open/{TICTACTOE}")
    assert game["roles"] == ["xplayer", "oplayer"]
    assert game["backend"] and game["load_ms"] > 0
    board = game["board"]
    assert board["function"] == "cell"
    assert (board["columns"], board["rows"]) == (["1", "2", "3"], ["3", "2", "1"])
    assert board["styles"]["b"]["empty"] and not board["styles"]["x"]["empty"]
    listed = next(g for g in page.ok("GET", "/api/games?q=tictactoe")["games"]
                  if g["id"] == TICTACTOE)
    assert listed["backend"] == game["backend"]


def test_a_pasted_game_with_a_syntax_error_is_answered_with_its_line_and_column(
        page: Page) -> None:
    """A text with an unbalanced parenthesis on line 3 is refused (422) at that line."""
    status, answer = page.call("POST", "/api/check",
                               text="(role a)\n(init (p))\n(<= (legal a (go)) (true (p))\n")
    assert status == 422
    assert answer["line"] == 3 and answer["column"] >= 1
    assert answer["kind"] == "GdlSyntaxError"
    assert not [g for g in page.ok("GET", "/api/games")["games"] if g["folder"] == "pasted"]


def test_a_pasted_valid_game_joins_the_library(page: Page) -> None:
    """A valid pasted text is loaded and listed under ``pasted``."""
    text = (GAMES / "tictactoe.kif").read_text()
    game = page.ok("POST", "/api/check?name=my%20ttt.kif", text=text)
    assert game["roles"] == ["xplayer", "oplayer"]
    assert game["id"].startswith("pasted/my_ttt-")
    assert page.ok("GET", "/api/games?q=pasted")["games"][0]["id"] == game["id"]


def test_a_paste_over_the_cap_is_refused_unread(page: Page) -> None:
    """A body declared over the 1 MiB cap answers 413 before any of it is sent (the
    answer comes while the client still holds the body back)."""
    host, port = page.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.putrequest("POST", "/api/check")
        connection.putheader("Content-Type", "text/plain")
        connection.putheader("Content-Length", str(MAX_GAME_BYTES + 1))
        connection.endheaders()
        response = connection.getresponse()
        assert response.status == 413 and "cap" in json.loads(response.read())["error"]
    finally:
        connection.close()


def test_a_streamed_paste_over_the_cap_is_refused(page: Page) -> None:
    """A body sent without a length (chunked) is refused once it passes the cap."""
    host, port = page.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    chunk = b";" * 65536
    try:
        connection.putrequest("POST", "/api/check")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        try:
            for _ in range(MAX_GAME_BYTES // len(chunk) + 2):
                connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.send(b"0\r\n\r\n")
        except OSError:  # the server answered and closed before the rest was sent
            pass
        response = connection.getresponse()
        assert response.status == 413
    finally:
        connection.close()


def test_unknown_games_and_matches_are_404(page: Page) -> None:
    """An id the library never made, or a match that does not exist, is 404; a path in
    a game id reaches no file."""
    assert page.call("POST", "/api/games/open/../../etc/passwd")[0] == 404
    assert page.call("GET", "/api/matches/nope")[0] == 404
    assert page.call("GET", "/api/matches/nope/positions/0")[0] == 404


def test_a_person_plays_tictactoe_against_the_random_player_to_the_end(page: Page) -> None:
    """xplayer clicks, oplayer is the random player; the match ends with goals that sum
    to 100 and every move on record."""
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE,
                                             "seats": ["human", "random"], "clock": 0.2})
    assert match["status"] == "xplayer to move"
    end = _play_out(page, match["id"], 0)
    assert end["terminal"] and sum(end["goals"]) == 100
    summary = page.ok("GET", f"/api/matches/{match['id']}")
    assert summary["status"] == "over" and summary["steps"] == end["index"]
    first = page.ok("GET", f"/api/matches/{match['id']}/positions/1")
    assert first["moves"][0].startswith("(mark")


def test_undo_takes_back_to_the_persons_last_choice(page: Page) -> None:
    """After xplayer's move and the player's answer, undo returns to the position before
    xplayer's move."""
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE,
                                             "seats": ["human", "random"], "clock": 0.2})
    page.ok("POST", f"/api/matches/{match['id']}/move",
            {"role": "xplayer", "move": "(mark 2 2)"})
    _wait(lambda: _last(page, match["id"])["index"] == 2)
    page.ok("POST", f"/api/matches/{match['id']}/undo")
    position = _last(page, match["id"])
    assert position["index"] == 0 and position["status"] == "xplayer to move"


def test_illegal_and_malformed_moves_are_refused_and_the_match_goes_on(page: Page) -> None:
    """A move that is not legal is 409, one of a player's role 409, a malformed body 400;
    the match still takes a legal move afterwards."""
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE,
                                             "seats": ["human", "random"], "clock": 0.2})
    path = f"/api/matches/{match['id']}/move"
    assert page.call("POST", path, {"role": "xplayer", "move": "(mark 9 9)"})[0] == 409
    assert page.call("POST", path, {"role": "oplayer", "move": "(mark 1 1)"})[0] == 409
    assert page.call("POST", path, {"role": "xplayer", "move": "(mark 1 1"})[0] == 409
    assert page.call("POST", path, {"role": 3})[0] == 400
    assert page.call("POST", path, text="{not json")[0] == 400
    page.ok("POST", path, {"role": "xplayer", "move": "(mark 1 1)"})
    _wait(lambda: _last(page, match["id"])["index"] >= 1)


def test_bad_match_requests_say_what_is_wrong(page: Page) -> None:
    """Seats that do not fit the roles, an unknown strategy and a clock out of range are
    400 with the reason."""
    for body, word in (({"game": TICTACTOE, "seats": ["human"]}, "seats"),
                       ({"game": TICTACTOE, "seats": ["human", "deep-blue"]}, "unknown seat"),
                       ({"game": TICTACTOE, "seats": ["human", "random"], "clock": 0},
                        "clock")):
        status, answer = page.call("POST", "/api/matches", body)
        assert status == 400 and word in answer["error"]


def test_a_gdl2_game_is_not_played_on_the_page(page: Page) -> None:
    """Monty Hall (GDL-II) cannot be played on the page, where every seat would see the
    whole state: 409 with the reason, and no match is made."""
    monty = next(g["id"] for g in page.ok("GET", "/api/games?q=montyhall")["games"])
    before = len(page.ok("GET", "/api/matches")["matches"])
    status, answer = page.call("POST", "/api/matches",
                               {"game": monty, "seats": ["human", "random"]})
    assert status == 409 and "GDL-II" in answer["error"]
    assert len(page.ok("GET", "/api/matches")["matches"]) == before


def _record(moves: list[list[str]], errors: list[list[str]]) -> dict[str, Any]:
    return {"match_id": "m1", "game": "tictactoe", "roles": ["xplayer", "oplayer"],
            "players": ["127.0.0.1:1", "127.0.0.1:2"], "start_clock": 1, "play_clock": 1,
            "moves": moves, "errors": errors, "goals": [100, 0], "terminal": True}


WIN = [["(mark 1 1)", "noop"], ["noop", "(mark 2 1)"], ["(mark 1 2)", "noop"],
       ["noop", "(mark 2 2)"], ["(mark 1 3)", "noop"]]


def test_a_match_record_replays_with_its_errors_marked(page: Page) -> None:
    """A record as ``manage`` writes it replays position by position; the step whose move
    was replaced carries its error code."""
    errors = [["", ""], ["", "TO"], ["", ""], ["", ""], ["", ""]]
    match = page.ok("POST", "/api/records", _record(WIN, errors))
    assert match["kind"] == "replay" and match["steps"] == 5
    second = page.ok("GET", f"/api/matches/{match['id']}/positions/2")
    # (mark 2 1): column "2" is the second column, row "1" the bottom (third) row.
    assert second["errors"] == ["", "TO"] and second["board"]["1,2"] == "o"
    end = page.ok("GET", f"/api/matches/{match['id']}/positions/5")
    assert end["terminal"] and end["goals"] == [100, 0]


def test_a_record_with_an_illegal_move_is_refused_at_its_step(page: Page) -> None:
    """A record whose third step is not legal is refused (409), naming the step."""
    moves = [*WIN[:2], ["(mark 1 1)", "noop"]]
    status, answer = page.call("POST", "/api/records", _record(moves, []))
    assert status == 409 and "step 3" in answer["error"]


def test_heuristic_values_come_per_legal_move(page: Page) -> None:
    """A heuristic of the game's table values each of xplayer's nine opening moves."""
    game = page.ok("POST", f"/api/games/open/{TICTACTOE}")
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE, "seats": ["human", "human"]})
    answer = page.ok("POST", f"/api/matches/{match['id']}/positions/0/heuristic",
                     {"role": "xplayer", "heuristic": game["heuristics"][0]})
    assert len(answer["values"]) == 9
    assert all(isinstance(v["value"], float | int) for v in answer["values"])
    status, _ = page.call("POST", f"/api/matches/{match['id']}/positions/0/heuristic",
                          {"role": "xplayer", "heuristic": "no-such"})
    assert status == 400


def test_playouts_from_a_position_count_every_outcome(page: Page) -> None:
    """200 playouts from the start: per role the counts of its goal values add up to 200,
    and the same seed gives the same counts."""
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE, "seats": ["human", "human"]})
    path = f"/api/matches/{match['id']}/positions/0/playouts"
    first = page.ok("POST", path, {"count": 200, "seed": 3})
    assert all(sum(t.values()) == 200 for t in first["outcomes"].values())
    assert page.ok("POST", path, {"count": 200, "seed": 3})["outcomes"] == first["outcomes"]
    assert page.call("POST", path, {"count": 0})[0] == 400


def test_the_events_stream_tells_of_each_move(page: Page) -> None:
    """The server-sent events of a match carry its summary after a move."""
    import urllib.request

    match = page.ok("POST", "/api/matches", {"game": TICTACTOE, "seats": ["human", "human"]})
    with urllib.request.urlopen(f"{page.base}/api/matches/{match['id']}/events",
                                timeout=30) as stream:
        first = json.loads(stream.readline().decode().removeprefix("data: "))
        assert first["steps"] == 0
        page.ok("POST", f"/api/matches/{match['id']}/move",
                {"role": "xplayer", "move": "(mark 1 1)"})
        line = b""
        while not line.startswith(b"data:"):
            line = stream.readline()
        assert json.loads(line.decode().removeprefix("data: "))["steps"] == 1


def test_a_page_with_a_token_refuses_requests_without_it() -> None:
    """With a token every request must carry it (header or ``?token=``)."""
    with open_page(token="s3cret") as guarded:
        assert guarded.call("GET", "/api/games")[0] == 401
        assert guarded.call("GET", "/api/games", token="wrong")[0] == 401
        assert guarded.call("GET", "/api/games", token="s3cret")[0] == 200
        assert guarded.call("GET", "/api/games?token=s3cret")[0] == 200


def test_the_rule_that_made_a_fluent_or_a_move_true_is_found(page: Page) -> None:
    """After xplayer's (mark 1 1), (cell 1 1 x) holds by the ``next`` rule that reads the
    move; at the start, (mark 2 2) is legal by the ``legal`` rule; a fluent that does not
    hold is 400."""
    match = page.ok("POST", "/api/matches", {"game": TICTACTOE, "seats": ["human", "human"]})
    page.ok("POST", f"/api/matches/{match['id']}/move", {"role": "xplayer", "move": "(mark 1 1)"})
    _wait_past(page, match["id"], 0)
    path = f"/api/matches/{match['id']}/positions"
    found = page.ok("POST", f"{path}/1/support", {"fluent": "(cell 1 1 x)"})
    assert found["target"] == "(next (cell 1 1 x))"
    assert "(does xplayer (mark 1 1))" in found["supports"][0]["instance"]
    legal = page.ok("POST", f"{path}/0/support", {"role": "xplayer", "move": "(mark 2 2)"})
    assert legal["supports"][0]["instance"].startswith("(<= (legal xplayer (mark 2 2))")
    assert page.call("POST", f"{path}/1/support", {"fluent": "(cell 1 1 o)"})[0] == 400


def test_the_pages_connections_send_without_delay() -> None:
    """Connections accepted on the page's listening socket have TCP_NODELAY set (else a
    response's body waits for the browser's delayed acknowledgement, 40 ms a request)."""
    import asyncio
    import socket

    from reasoner.web.serving import listening_socket

    async def accepted_nodelay() -> int:
        found: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Record(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                found.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        listening = listening_socket("127.0.0.1", 0)
        server = await asyncio.get_running_loop().create_server(Record, sock=listening)
        port = listening.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        value = await asyncio.wait_for(found, 10)
        writer.close()
        server.close()
        return value

    assert asyncio.run(accepted_nodelay()) != 0


def test_the_page_keeps_a_bounded_number_of_matches(page: Page) -> None:
    """Past the cap, the oldest finished match is dropped first; the new one is kept."""
    from reasoner.web.requests import MAX_MATCHES

    record = {"match_id": "r", "game": "tictactoe", "moves": [], "errors": []}
    first = page.ok("POST", "/api/records", record)
    for _ in range(MAX_MATCHES):
        last = page.ok("POST", "/api/records", record)
    kept = {m["id"] for m in page.ok("GET", "/api/matches")["matches"]}
    assert len(kept) == MAX_MATCHES and last["id"] in kept and first["id"] not in kept
