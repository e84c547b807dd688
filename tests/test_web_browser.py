"""The web page in a real browser: Debian's headless Chromium driven through
chromium-driver by Selenium (``make test`` installs both), on the page served over a real
reasoner service. Clicks play tic-tac-toe against a player, chess's board is read back
square by square against the state, a match record is replayed, and a syntax error is
shown at its line. The click-to-drawn times of the moves are written to
``build/test-reports/web-move-times.txt`` (figures, not asserted: the machines are shared).
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web_support import Page, open_page

selenium = pytest.importorskip("selenium")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402

from reasoner.web.browser import browser  # noqa: E402

pytestmark = [pytest.mark.needs_tools, pytest.mark.slow]

if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
    pytest.skip("Debian's chromium and chromium-driver are not installed (make test installs "
                "them)", allow_module_level=True)

TIMES: dict[str, list[float]] = {}


@pytest.fixture(scope="module")
def driver() -> Iterator[WebDriver]:
    with browser() as opened:
        yield opened


@pytest.fixture(scope="module")
def page(corpus: Path) -> Iterator[Page]:
    with open_page([("ggp-repository", corpus / "ggp-repository")]) as served:
        yield served


def _until(driver: WebDriver, check: Callable[[WebDriver], Any], seconds: float = 60) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        try:
            found = check(driver)
        except Exception:  # an element replaced while it was read: look again
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, "the page did not get there in time"
        time.sleep(0.02)


def _click(driver: WebDriver, selector: str) -> None:
    """Click the first element that matches ``selector`` (again when the page redrew it
    between finding and clicking)."""
    def clicked(d: WebDriver) -> bool:
        d.find_elements(By.CSS_SELECTOR, selector)[0].click()
        return True
    _until(driver, clicked, 10)


def _index(driver: WebDriver) -> int:
    return int(driver.find_element(By.ID, "board").get_attribute("data-index") or -1)


def _past(index: int) -> Callable[[WebDriver], bool]:
    """A wait's condition: the page shows a position after ``index``, or the goals."""
    def moved(driver: WebDriver) -> bool:
        return _index(driver) > index or bool(driver.find_element(By.ID, "goals").text)
    return moved


def _show(driver: WebDriver, page: Page, match: str) -> None:
    driver.get(f"{page.base}/#/match/{match}")
    _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR,
                                             f"#board[data-match='{match}'] .sq"))
    driver.execute_script("window.moveTimings = []")


def test_a_person_plays_a_whole_tictactoe_game_by_clicks(driver: WebDriver,
                                                         page: Page) -> None:
    """xplayer clicks an empty square at each turn against the random player until the
    page shows the goals; the moves on record are the squares clicked."""
    match = page.ok("POST", "/api/matches", {"game": "games/tictactoe",
                                             "seats": ["human", "random"], "clock": 0.1})
    _show(driver, page, match["id"])
    clicked = 0
    while not driver.find_element(By.ID, "goals").text:
        index = _index(driver)
        playable = driver.find_elements(By.CSS_SELECTOR, "#board .sq.playable")
        if not playable:
            _until(driver, _past(index))
            continue
        _click(driver, "#board .sq.playable")
        clicked += 1
        _until(driver, _past(index))
    assert driver.find_element(By.ID, "goals").text.startswith("Game over: xplayer")
    end = page.ok("GET", f"/api/matches/{match['id']}/positions/last")
    assert end["terminal"] and clicked == sum(
        1 for step in range(1, end["index"] + 1)
        if page.ok("GET", f"/api/matches/{match['id']}/positions/{step}")["moves"][0] != "noop")
    TIMES["tictactoe"] = driver.execute_script("return window.moveTimings")


def test_the_chess_board_shows_the_state_square_by_square(driver: WebDriver,
                                                          page: Page) -> None:
    """Every ``(cell FILE RANK PIECE)`` fluent of chess's initial state is the content of
    the square FILE,RANK on the page, drawn with its chess symbol (the white king on e1);
    empty squares show nothing; clicking e2 then e4 plays the pawn's move."""
    match = page.ok("POST", "/api/matches", {"game": "ggp-repository/chess",
                                             "seats": ["human", "human"]})
    _show(driver, page, match["id"])
    position = page.ok("GET", f"/api/matches/{match['id']}/positions/0")
    expected = {}
    for fluent in position["fluents"]:
        parts = fluent.strip("()").split()
        if parts[0] == "cell":
            expected[f"{parts[1]},{parts[2]}"] = "" if parts[3] == "b" else parts[3]
    # Read in one script, so that a redraw cannot come between two squares.
    shown = driver.execute_script(
        "const found = {};"
        "for (const sq of document.querySelectorAll('#board .sq'))"
        "  found[sq.dataset.square] = [sq.dataset.content, sq.textContent];"
        "return found;")
    assert {square: content for square, (content, _) in shown.items()} == expected
    assert len(shown) == 64
    assert shown["e,1"][1] == "\u2654" and shown["d,8"][1] == "\u265b"
    assert shown["e,4"] == ["", ""]
    for first, second in (("e,2", "e,4"), ("e,7", "e,5"), ("g,1", "f,3"), ("b,8", "c,6")):
        index = _index(driver)
        _click(driver, f"#board .sq[data-square='{first}']")
        _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board .sq.from"))
        _click(driver, f"#board .sq[data-square='{second}']")
        _until(driver, _past(index))
    moved = page.ok("GET", f"/api/matches/{match['id']}/positions/1")
    assert moved["moves"][0] == "(move wp e 2 e 4)"
    times = driver.execute_script("return window.moveTimings")
    assert len(times) == 4
    TIMES["chess"] = times


def test_a_match_record_is_replayed_with_the_slider(driver: WebDriver, page: Page,
                                                    tmp_path: Path) -> None:
    """A record file chosen on the Matches view replays; moving to position 2 shows the
    move replaced after a time-out marked TO, and clicking the fluent that move made shows
    the ground rule that made it."""
    record = {"match_id": "rec-1", "game": "tictactoe", "roles": ["xplayer", "oplayer"],
              "players": ["a:1", "b:2"], "start_clock": 1, "play_clock": 1,
              "moves": [["(mark 1 1)", "noop"], ["noop", "(mark 2 1)"],
                        ["(mark 1 2)", "noop"]],
              "errors": [["", ""], ["", "TO"], ["", ""]], "goals": [], "terminal": False}
    path = tmp_path / "rec-1.json"
    path.write_text(json.dumps(record))
    driver.get(f"{page.base}/#/matches")
    driver.find_element(By.ID, "record-file").send_keys(str(path))
    driver.find_element(By.ID, "record-load").click()
    _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board[data-index='0'] .sq"))
    assert driver.find_element(By.ID, "step-label").text == "position 0 of 3"
    driver.find_element(By.ID, "next").click()
    driver.find_element(By.ID, "next").click()
    _until(driver, lambda d: _index(d) == 2)
    mark = driver.find_element(By.CSS_SELECTOR, "#moves-played [data-error='TO']")
    assert mark.text == "TO"
    assert driver.find_element(By.CSS_SELECTOR, "#board .sq[data-square='2,1']") \
        .get_attribute("data-content") == "o"
    _click(driver, "#fluents li[data-fluent='(cell 2 1 o)']")
    instance = _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR,
                                                        "#support .instance"))[0]
    assert instance.text.startswith("(<= (next (cell 2 1 o)) (does oplayer (mark 2 1))")


def test_a_syntax_error_is_shown_at_its_line(driver: WebDriver, page: Page) -> None:
    """A pasted text with an unbalanced parenthesis on line 3 is answered with the line and
    column, and the listing marks line 3; the text is shown as text, not HTML."""
    driver.get(f"{page.base}/#/check")
    text = "(role a)\n(init (p))\n(<= (legal a (go <b>x</b>)) (true (p))\n"
    area = driver.find_element(By.ID, "gdl-text")
    area.clear()
    area.send_keys(text)
    driver.find_element(By.ID, "check").click()
    error = _until(driver, lambda d: d.find_elements(By.ID, "check-error"))[0]
    assert error.text.startswith("line 3, column")
    marked = driver.find_element(By.CSS_SELECTOR, "#gdl-listing .error-line")
    assert marked.get_attribute("data-line") == "3" and "<b>x</b>" in marked.text
    assert not driver.find_elements(By.CSS_SELECTOR, "#gdl-listing b")


def test_a_position_is_inspected_on_the_board(driver: WebDriver, page: Page) -> None:
    """At tic-tac-toe's start, a heuristic's values of xplayer's nine moves are laid over
    the nine squares with the table of values, and 300 random playouts are drawn as one
    bar per goal value for each role, the counts adding up to 300."""
    match = page.ok("POST", "/api/matches", {"game": "games/tictactoe",
                                             "seats": ["human", "human"]})
    _show(driver, page, match["id"])
    _click(driver, "#overlay")
    _until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .sq .value")) == 9)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#values tr")) == 9
    count = driver.find_element(By.ID, "playouts-count")
    count.clear()
    count.send_keys("300")
    _click(driver, "#playouts")
    tables = _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#chart table"))
    assert [t.get_attribute("data-role") for t in tables] == ["xplayer", "oplayer"]
    for table in tables:
        rows = table.find_elements(By.CSS_SELECTOR, "tr[data-goal]")
        assert sum(int(r.find_elements(By.TAG_NAME, "td")[2].text) for r in rows) == 300
        assert all(r.find_elements(By.CSS_SELECTOR, ".bar") for r in rows)


def test_a_published_match_is_followed_live(driver: WebDriver, page: Page) -> None:
    """A match published to the feed step by step (as ``manage --web`` does) is listed
    under Matches and, opened, follows each new step without a reload."""
    rules = (Path(__file__).resolve().parent.parent / "games" / "tictactoe.kif").read_text()
    record: dict[str, Any] = {"match_id": "live-1", "game": "tictactoe",
                              "roles": ["xplayer", "oplayer"], "players": ["a:1", "b:2"],
                              "start_clock": 1, "play_clock": 1, "moves": [], "errors": [],
                              "goals": [], "terminal": False}
    page.ok("POST", "/api/feed", {"record": record, "rules": rules})
    driver.get(f"{page.base}/#/matches")
    _click(driver, "#matches tr[data-id='watch-live-1']")
    _until(driver, lambda d: d.find_elements(By.CSS_SELECTOR,
                                             "#board[data-match='watch-live-1'] .sq"))
    for moves in (["(mark 2 2)", "noop"], ["noop", "(mark 1 1)"]):
        index = _index(driver)
        record["moves"].append(moves)
        record["errors"].append(["", ""])
        page.ok("POST", "/api/feed", {"record": record})
        _until(driver, _past(index))
    assert _index(driver) == 2
    assert driver.find_element(By.CSS_SELECTOR, "#board .sq[data-square='1,1']") \
        .get_attribute("data-content") == "o"


def _click_moves(driver: WebDriver, page: Page, game: str, moves: int,
                 rng: random.Random) -> list[float]:
    """Play ``moves`` moves of a match of people by clicks, each a random legal move
    clicked square by square; the page's click-to-drawn times."""
    match = page.ok("POST", "/api/matches", {"game": game, "seats": ["human", "human"]})
    _show(driver, page, match["id"])
    for _ in range(moves):
        position = page.ok("GET", f"/api/matches/{match['id']}/positions/last")
        if position["terminal"]:
            break
        role = next(r for r, legal in enumerate(position["legal"]) if len(legal) > 1)
        move = rng.choice([m for m in position["legal"][role] if m["squares"]])
        for column, row in move["squares"]:
            _click(driver, f"#board .sq[data-col='{column}'][data-row='{row}']")
        _until(driver, _past(position["index"]))
    times: list[float] = driver.execute_script("return window.moveTimings")
    return times


def test_many_moves_are_timed(driver: WebDriver, page: Page) -> None:
    """Random legal moves clicked on tic-tac-toe (five games) and chess (30 moves) are all
    played and timed, one time per move."""
    rng = random.Random(7)
    ttt: list[float] = []
    for _ in range(5):
        ttt += _click_moves(driver, page, "games/tictactoe", 9, rng)
    chess = _click_moves(driver, page, "ggp-repository/chess", 30, rng)
    assert len(ttt) >= 25 and len(chess) == 30
    TIMES["tictactoe, 5 games"] = ttt
    TIMES["chess, 30 moves"] = chess


def test_the_move_times_are_reported(report: Callable[[str, str], Path]) -> None:
    """The click-to-drawn times of the games above, as a table (median and 90th
    percentile)."""
    if not TIMES:
        pytest.skip("the games above did not run")
    rows = ["game                 moves  median ms  p90 ms"]
    for game, times in TIMES.items():
        ordered = sorted(times)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
        rows.append(f"{game:<20} {len(times):>5}  {statistics.median(times):>9.1f}  "
                    f"{p90:>6.1f}")
    report("web-move-times", "\n".join(rows))
