"""Several replicas behind one client: gRPC's round_robin spreads the calls over them, a
replica that stops in the middle of a run costs no request (the client's retry policy for
UNAVAILABLE, and a reload where a replica does not hold the game)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
import pytest

from client import ReasonerClient, RemoteError
from reasoner.server.app import create_server
from reasoner.server.registry import GameRegistry
from tests.service_support import CALL_TIMEOUT, game_text


def _three_servers(stack: ExitStack) -> list[tuple[grpc.Server, int, GameRegistry]]:
    """Three servers on free ports, stopped when ``stack`` closes."""
    servers = []
    for _ in range(3):
        server, port, registry = create_server("127.0.0.1:0", limits=None)
        stack.callback(server.stop, None)
        servers.append((server, port, registry))
    return servers


def test_three_replicas_lose_no_request_when_one_stops() -> None:
    """Three servers, one balanced client: queries go to every server (each loads the game
    on its first call there), then the second server stops, and the next 200 queries are
    all answered by the other two."""
    with ExitStack() as stack:
        servers = _three_servers(stack)
        target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for _, port, _ in servers)
        with ReasonerClient(target, timeout=CALL_TIMEOUT, balance=True) as client:
            game = client.load_game(game_text("tictactoe"))
            state, expected = game.initial()
            answers = []
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:  # until every replica has the game
                answers.append(game.info(state))
                if all(registry.ids() == [game.id] for _, _, registry in servers):
                    break
                time.sleep(0.01)
            assert [registry.ids() for _, _, registry in servers] == [[game.id]] * 3
            servers[1][0].stop(None)
            answers += [game.info(state) for _ in range(200)]
        assert answers == [expected] * len(answers)


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
_CONFIG = """
daemon off;
master_process off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    upstream reasoner {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port} http2;
        location / {{
            grpc_pass grpc://reasoner;
            grpc_next_upstream error timeout;
        }}
    }}
}}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.needs_tools  # Debian's nginx, which `make test` installs
def test_replicas_behind_nginx_lose_no_request_when_one_stops(tmp_path: Path) -> None:
    """Debian's nginx as a gRPC proxy in front of three servers: a client that only knows
    nginx loads a game and makes 300 queries, all answered, though the second server stops
    after the first 100 (nginx passes each call to the next server; the client reloads the
    game where a server does not hold it)."""
    assert Path(NGINX).exists(), "nginx is missing: `make test` installs Debian's nginx-light"
    with ExitStack() as stack:
        servers = _three_servers(stack)
        port = _free_port()
        config = tmp_path / "nginx.conf"
        config.write_text(_CONFIG.format(
            folder=tmp_path, port=port,
            servers="\n".join(f"        server 127.0.0.1:{p};" for _, p, _ in servers)))
        proxy = subprocess.Popen([NGINX, "-c", str(config), "-p", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stack.callback(proxy.wait, 10)
        stack.callback(proxy.terminate)
        with ReasonerClient(f"127.0.0.1:{port}", timeout=CALL_TIMEOUT) as client:
            deadline = time.monotonic() + 30
            while True:  # until nginx listens
                try:
                    game = client.load_game(game_text("tictactoe"))
                    break
                except RemoteError:
                    assert time.monotonic() < deadline, (tmp_path / "error.log").read_text()
                    time.sleep(0.1)
            state, expected = game.initial()
            answers = []
            for number in range(300):
                if number == 100:
                    servers[1][0].stop(None)
                answers.append(game.info(state))
        assert answers == [expected] * 300
        assert [registry.ids() != [] for _, _, registry in servers] == [True] * 3
