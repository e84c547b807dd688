"""Real HTTP players on free ports for the match-protocol tests: ours (``GgpPlayer`` behind
``serve_player``), and small peers that misbehave as real players do (garbage, silence, a
closed connection, the old bare ``available``)."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from client.ggp.http_player import MAX_CONNECTIONS, REQUEST_SECONDS, GgpPlayer, serve_player

__all__ = ["http_player", "peer", "post", "raw_post"]


@contextmanager
def http_player(strategy: str = "random", *, request_seconds: float = REQUEST_SECONDS,
                max_connections: int = MAX_CONNECTIONS,
                **options: Any) -> Iterator[tuple[str, GgpPlayer]]:
    """Our player on a free port: its host:port and the GgpPlayer behind it (``options``
    are the GgpPlayer's, the others the HTTP server's)."""
    player = GgpPlayer(strategy, **options)
    server = serve_player(player, "127.0.0.1", 0, request_seconds=request_seconds,
                          max_connections=max_connections)
    try:
        yield f"127.0.0.1:{server.server_address[1]}", player
    finally:
        server.shutdown()
        server.server_close()
        player.close()


def post(address: str, body: str, timeout: float = 60.0) -> tuple[int, str]:
    """One message as a manager sends it; the status and the answer's body."""
    host, _, port = address.rpartition(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request("POST", "/", body=body.encode(), headers={
            "Content-Type": "text/acl"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def raw_post(address: str, request: bytes, timeout: float = 60.0) -> bytes:
    """Bytes written on a new connection as they are, and everything read back until the
    player closes it."""
    host, _, port = address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def peer(answer: Callable[[str], str | None]) -> Iterator[str]:
    """A player that answers each message with ``answer(body)``; None closes the connection
    without a word. Its host:port."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            text = answer(body)
            if text is None:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            data = text.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``condition`` held within ``seconds`` (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
