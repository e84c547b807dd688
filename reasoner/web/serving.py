"""The page's server: uvicorn on a socket of the page's own."""

from __future__ import annotations

import socket
from typing import Any

import uvicorn
from starlette.applications import Starlette

from reasoner.web.requests import WebState

__all__ = ["PageServer", "listening_socket"]


def listening_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket for the page. Made with the protocol named, so that asyncio
    sets TCP_NODELAY on the connections it accepts (it does only for sockets whose protocol
    is TCP): without it a response's body waited for the browser's delayed acknowledgement
    of its headers, 40 ms a request on a reused connection.

    Raises:
        OSError: the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(128)
    except OSError:
        listening.close()
        raise
    return listening


class PageServer(uvicorn.Server):
    """uvicorn's server that ends the page's event streams first when it stops (else they
    would be cancelled mid-wait, and logged as failures)."""

    def __init__(self, app: Starlette, **options: Any) -> None:
        # No lifespan events: the application has none, and uvicorn's lifespan task
        # logged a traceback when Ctrl-C stopped the server.
        super().__init__(uvicorn.Config(app, log_level="warning", lifespan="off",
                                        timeout_graceful_shutdown=2, **options))
        self.web: WebState = app.state.web

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.web.closing = True
        super().handle_exit(sig, frame)

    def stop(self) -> None:
        """Stop from another thread."""
        self.web.closing = True
        self.should_exit = True
