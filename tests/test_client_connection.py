"""The Python client and a server it cannot reach: a call fails within the client's connect
timeout with an error that names the target and says what to check, not at the call's
deadline; and a server that restarts within that timeout is waited for. (A TLS port spoken
to without TLS, and TLS settings, are in ``test_security.py``.)"""

from __future__ import annotations

import socket
import threading
import time

import grpc
import pytest

from client import ReasonerClient
from client.errors import ServerUnreachable
from reasoner.server.app import create_server
from tests.service_support import CALL_TIMEOUT, running_server

# Past the connect timeout, the most an unreachable server may add on a loaded machine.
MARGIN = 3.0


def test_a_port_with_nothing_listening_fails_within_the_connect_timeout() -> None:
    """A call to a port where nothing listens raises ServerUnreachable after about the
    connect timeout (not the call's 60 s deadline), its message naming the target and
    asking whether the server runs and whether it uses TLS."""
    with socket.socket() as taken:  # bound, never listening: connections are refused
        taken.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{taken.getsockname()[1]}"
        with ReasonerClient(target, connect_timeout=1.0) as client:
            started = time.monotonic()
            with pytest.raises(ServerUnreachable) as caught:
                client.list_games()
            waited = time.monotonic() - started
    assert 1.0 <= waited < 1.0 + MARGIN
    assert str(caught.value) == (
        f"cannot reach {target} within 1 s: is the server running, and does it use TLS "
        "(then give tls_root)?")
    assert isinstance(caught.value, ConnectionError)
    assert (caught.value.target, caught.value.reason) == (target, "unreachable")


def test_a_server_restarted_between_two_calls_answers_the_second() -> None:
    """A client whose server stops after a call, and starts again on the same port while
    the next call waits (longer than the channel's own retries), gets that call answered."""
    with running_server() as first:
        port = first.port
        client = ReasonerClient(first.target, timeout=CALL_TIMEOUT, connect_timeout=20.0)
        assert client.list_games() == []
    restarted: list[grpc.Server] = []

    def restart() -> None:
        time.sleep(2.0)
        restarted.append(create_server(f"127.0.0.1:{port}", limits=None)[0])

    thread = threading.Thread(target=restart)
    thread.start()
    try:
        with client:
            assert client.list_games() == []
    finally:
        thread.join()
        for server in restarted:
            server.stop(None)


def test_match_with_an_unreachable_server_fails_in_one_line() -> None:
    """`match --server` naming a port where nothing listens exits 1 after about
    `--connect-timeout`, with one line that names the target and the option for TLS."""
    from tests.test_cli import run_cli

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{taken.getsockname()[1]}"
        result = run_cli("match", "games/tictactoe.kif", "--players", "random,random",
                         "--server", target, "--connect-timeout", "1")
    assert result.returncode == 1
    assert result.stderr == (
        f"gdl-reasoner: cannot reach {target} within 1 s: is the server running, and does "
        "it use TLS (then give --tls-root)?\n")
