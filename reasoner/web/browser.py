"""The page in a real browser: Debian's ``chromium`` through ``chromium-driver``, headless,
driven with Selenium (``pip install selenium``; the tests' environment has it). The page's
server runs on a thread of this process on a free loopback port.

:func:`screenshots` writes a PNG of each named game's board: the game opened, a match of
people started, the initial position drawn.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from reasoner.web.serving import PageServer, listening_socket

__all__ = ["BrowserMissing", "browser", "page_server", "screenshots"]


class BrowserMissing(Exception):
    """No headless Chromium to drive (the message says what to install)."""


@contextmanager
def page_server(app: Starlette) -> Iterator[str]:
    """Serve ``app`` on a free loopback port on a thread; yields its base URL."""
    listening = listening_socket("127.0.0.1", 0)
    port = listening.getsockname()[1]
    server = PageServer(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]},
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        thread.join(10)
        listening.close()


@contextmanager
def browser(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium under Selenium (a ``selenium.webdriver.Chrome``).

    Raises:
        BrowserMissing: Selenium, chromium or chromium-driver is not installed.
    """
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise BrowserMissing("the browser needs Selenium: pip install selenium") from None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        raise BrowserMissing("the browser needs Debian's chromium and chromium-driver: "
                             "apt-get install chromium chromium-driver (make test does)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu",
                 "--disable-dev-shm-usage", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def screenshots(app: Starlette, folder: Path, games: Sequence[str],
                seconds: float = 120.0) -> list[Path]:
    """A PNG of the initial board of each game of the library named in ``games`` (by id
    or name; names the library lacks are skipped), written into ``folder``.

    Raises:
        BrowserMissing: as :func:`browser`.
    """
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    library = app.state.web.library
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with page_server(app) as base, browser() as driver:
        for name in games:
            entry = library.by_name(name)
            if entry is None:
                continue
            opened = library.open(entry.id)
            seats = ["human"] * len(opened.game.roles)
            match = _post(base, "/api/matches", {"game": entry.id, "seats": seats})
            driver.get(f"{base}/#/match/{match['id']}")
            drawn = f"#board[data-match='{match['id']}']"
            WebDriverWait(driver, seconds).until(_found(By.CSS_SELECTOR, drawn))
            path = folder / f"{entry.name}.png"
            driver.save_screenshot(str(path))
            written.append(path)
    return written


def _found(by: str, selector: str) -> Any:
    """A wait's condition: an element matches ``selector``."""
    def condition(driver: Any) -> bool:
        return bool(driver.find_elements(by, selector))
    return condition


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    import json
    import urllib.request

    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer
