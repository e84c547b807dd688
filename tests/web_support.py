"""The web page's test bench: a real reasoner service on port 0, the page's application
over it, served by uvicorn on a free loopback port, and JSON requests to it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reasoner.console.players import ReasonerClient
from reasoner.server.app import create_server
from reasoner.web.app import create_app
from reasoner.web.browser import page_server
from reasoner.web.library import GameLibrary
from reasoner.web.requests import WebState
from tests.conftest import GAMES

__all__ = ["Page", "open_page"]


@dataclass
class Page:
    """A served page: its base URL and what it serves."""

    base: str
    state: WebState

    def call(self, method: str, path: str, body: Any = None, *, text: str | None = None,
             token: str | None = None) -> tuple[int, Any]:
        """One request; (status, the JSON answer)."""
        data = None
        headers = {}
        if text is not None:
            data = text.encode()
            headers["Content-Type"] = "text/plain"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["X-Token"] = token
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        """A request that must answer 200; its JSON."""
        status, answer = self.call(method, path, body, **kw)
        assert status == 200, answer
        return answer


@contextmanager
def open_page(folders: list[tuple[str, Path]] | None = None,
              token: str | None = None) -> Iterator[Page]:
    """The page over a service of its own, with the bundled games (and ``folders``)."""
    server, port, _ = create_server("127.0.0.1:0", games=None)
    client = ReasonerClient(f"127.0.0.1:{port}", timeout=300.0)
    try:
        library = GameLibrary([("games", GAMES), *(folders or [])], client)
        state = WebState(library, client, token)
        with page_server(create_app(state)) as base:
            yield Page(base, state)
    finally:
        client.close()
        server.stop(None)
