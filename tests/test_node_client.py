"""The Node.js example client (client/node, @grpc/grpc-js and @grpc/proto-loader from the
npm registry) against a real server: random playouts on one Session stream, a request that
fails on its own tag while the stream goes on, and a move chosen by flat Monte Carlo with
one batched Simulate."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.conftest import ROOT
from tests.service_support import Server, running_server

NODE = ROOT / "client" / "node"

# node and the npm packages that `make install` (and `make test`) fetch.
pytestmark = pytest.mark.needs_tools


@pytest.fixture(scope="module")
def srv() -> object:
    with running_server() as server:
        yield server


def test_the_node_example_plays_through_a_session(srv: Server) -> None:
    """`node example.js` loads tic-tac-toe, plays 40 playouts with 8 in flight on one
    stream, hears INVALID_ARGUMENT for a query without a state, and picks one of xplayer's
    nine first moves from 9 x 10 simulated playouts."""
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: `make test` installs the example's packages with npm")
    assert (NODE / "node_modules" / "@grpc" / "grpc-js").is_dir(), \
        "run `make node` (npm ci in client/node) first"
    done = subprocess.run(
        ["node", "example.js", srv.target, str(ROOT / "games" / "tictactoe.kif"),
         "--playouts", "40", "--in-flight", "8", "--mc", "10"],
        cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["roles"] == ["xplayer", "oplayer"]
    assert 40 * 5 <= report["steps"] <= 40 * 9  # a tic-tac-toe playout takes 5 to 9 moves
    assert report["refused"] == ("InvalidStateError: QueryRequest.state is missing (or "
                                 "states): a state is required")
    assert report["children"] == 9 and report["simulatedPlayouts"] == 90
    assert report["bestMove"].startswith("(mark ")
