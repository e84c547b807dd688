"""The Node.js example client (client/node, @grpc/grpc-js and @grpc/proto-loader from the
npm registry) against a real server: random playouts on one Session stream, a request that
fails on its own tag while the stream goes on, and a move chosen by flat Monte Carlo with
one batched Simulate."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reasoner.server.app import create_server
from tests.conftest import ROOT
from tests.service_support import Server, running_server

NODE = ROOT / "client" / "node"
# The guide that quotes the example's command line and its output.
GUIDE = ROOT / "docs" / "guides" / "other-languages.md"

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
    assert report["badRequest"] == {
        "sent": "query without a state", "refusedAsExpected": True, "code": 3,
        "message": "InvalidStateError: QueryRequest.state is missing (or states): a state is "
                   "required"}
    assert report["children"] == 9 and report["simulatedPlayouts"] == 90
    assert report["bestMove"].startswith("(mark ")


def test_the_node_example_shows_a_gdl2_game_s_percepts(srv: Server) -> None:
    """On Monty Hall (GDL-II) the example also prints one random game's percepts per joint
    move: the candidate perceives its own move each turn and, after the second, the door
    that random's move opened; tic-tac-toe's output has no such key."""
    if shutil.which("node") is None:
        pytest.fail("Node.js is missing: `make test` installs the example's packages with npm")
    done = subprocess.run(
        ["node", "example.js", srv.target, str(ROOT / "games" / "montyhall.kif"),
         "--playouts", "4", "--in-flight", "2", "--mc", "2"],
        cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["randomRole"] == "random"
    first, second, _ = report["perceived"]
    assert first["percepts"]["candidate"] == [f"(did candidate {first['moves'][0]})"]
    opened = second["moves"][1]
    assert opened.startswith("(open_door ")
    assert sorted(second["percepts"]["candidate"]) == sorted(["(did candidate noop)", opened])


def _shape(value: Any) -> Any:
    """A JSON value's shape: an object's keys in order with their values' shapes, a list's
    first element's shape, else the type's name (an int and a float are both "number")."""
    if isinstance(value, dict):
        return [(key, _shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_shape(value[0])] if value else []
    if isinstance(value, bool):
        return "bool"
    return "number" if isinstance(value, int | float) else type(value).__name__


def test_the_guide_quotes_the_example_s_output_as_it_prints_it(srv: Server) -> None:
    """The command line the guide quotes, run against a server, prints one JSON line of the
    shape the guide shows (the same keys, in order, nested alike) and, the run being
    seeded, the guide's best move, children, playouts and refused bad request: the guide
    and the example do not drift apart unnoticed."""
    lines = GUIDE.read_text(encoding="utf-8").splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.startswith("$ node client/node/")]
    _, _, _, game, *options = shlex.split(lines[at].removeprefix("$ "))
    quoted = json.loads(lines[at + 1])
    done = subprocess.run(["node", "example.js", srv.target, str(ROOT / game), *options],
                          cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (printed,) = done.stdout.splitlines()
    report = json.loads(printed)
    assert _shape(report) == _shape(quoted)
    timed = ("seconds", "stepsPerSec", "steps")  # the clock's, and the playouts' interleaving
    assert {k: v for k, v in report.items() if k not in timed} == \
        {k: v for k, v in quoted.items() if k not in timed}


def test_the_example_over_tls_to_an_ip_address_prints_no_warning(tmp_path: Path) -> None:
    """Over TLS to 127.0.0.1, with a certificate for localhost and 127.0.0.1, the example
    plays and writes nothing on stderr: it names the server "localhost" in the handshake
    rather than by its address (grpc-js's default, which made Node warn DEP0123)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"),
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60)
    tls = ((tmp_path / "cert.pem").read_bytes(), (tmp_path / "key.pem").read_bytes())
    server, port, _ = create_server("127.0.0.1:0", limits=None, tls=tls)
    try:
        done = subprocess.run(
            ["node", "example.js", f"127.0.0.1:{port}", str(ROOT / "games" / "tictactoe.kif"),
             "--playouts", "4", "--in-flight", "2", "--mc", "2",
             "--tls-root", str(tmp_path / "cert.pem")],
            cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    finally:
        server.stop(None)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["simulatedPlayouts"] == 18
    assert done.stderr == ""


# A Node.js client of its own, in the example's folder (its packages, its loader options):
# it loads a game, asks for the instantiated game and prints the statistics it read.
INSTANTIATE_SCRIPT = """
const path = require("path");
const fs = require("fs");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const root = path.join(__dirname, "..", "..", "proto");
const definition = protoLoader.loadSync(path.join(root, "reasoner", "v1", "reasoner.proto"),
  { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true,
    includeDirs: [root] });
const reasoner = grpc.loadPackageDefinition(definition).reasoner.v1;
const client = new reasoner.Reasoner(process.argv[1], grpc.credentials.createInsecure());
client.LoadGame({ gdl: fs.readFileSync(process.argv[2], "utf8") }, (error, loaded) => {
  if (error) throw error;
  client.Instantiate({ gameId: loaded.game.gameId }, (failed, answer) => {
    if (failed) throw failed;
    const s = answer.statistics;
    console.log(JSON.stringify({ rules: s.rules, relations: s.relations,
                                 tries: s.tries.map((t) => [t.program, t.stopped]) }));
    client.close();
  });
});
"""


def test_a_node_client_reads_the_instantiated_game_s_relation_sizes(srv: Server) -> None:
    """A Node.js client of @grpc/grpc-js and @grpc/proto-loader reads the ``Instantiate``
    statistics' relation sizes and tries: the same relations, rules and facts as the
    library counts, and the one whole try of a game that fits."""
    from reasoner.instantiate.ground_game import instantiate

    game = ROOT / "games" / "breakthrough.kif"
    done = subprocess.run(["node", "-e", INSTANTIATE_SCRIPT, srv.target, str(game)],
                          cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    expected = instantiate(game.read_text()).statistics
    assert read["rules"] == expected.rules
    assert read["relations"] == [
        {"name": s.name, "arity": s.arity, "rules": s.rules, "facts": s.facts}
        for s in expected.relations]
    assert read["tries"] == [["whole", ""]]
