"""Several replicas behind one client: gRPC's round_robin spreads the calls over them, a
replica that stops in the middle of a run costs no request (the client's retry policy for
UNAVAILABLE, and a reload where a replica does not hold the game)."""

from __future__ import annotations

import time
from contextlib import ExitStack

from client import ReasonerClient
from reasoner.server.app import create_server
from tests.service_support import CALL_TIMEOUT, game_text


def test_three_replicas_lose_no_request_when_one_stops() -> None:
    """Three servers, one balanced client: queries go to every server (each loads the game
    on its first call there), then the second server stops, and the next 200 queries are
    all answered by the other two."""
    with ExitStack() as stack:
        servers = []
        for _ in range(3):
            server, port, registry = create_server("127.0.0.1:0", limits=None)
            stack.callback(server.stop, None)
            servers.append((server, port, registry))
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
