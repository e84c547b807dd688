"""Secure when asked: a server given a token refuses calls without it (UNAUTHENTICATED, the
Session stream included), and a server given a certificate speaks TLS only; the Python
client sends both."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from client import ReasonerClient
from client.errors import RemoteError, ServerUnreachable, UnreadableCertificate, error_detail_of
from reasoner.server.app import create_server
from reasoner.v1 import reasoner_pb2 as pb
from reasoner.v1 import reasoner_pb2_grpc as pb_grpc
from tests.service_support import CALL_TIMEOUT, game_text

TOKEN = "s3cret-token"


@contextmanager
def served(**options: Any) -> Iterator[int]:
    server, port, _ = create_server("127.0.0.1:0", limits=None, **options)
    try:
        yield port
    finally:
        server.stop(None)


def test_a_call_without_the_token_is_unauthenticated() -> None:
    """With a token set, a call without metadata, or with another token, ends with
    UNAUTHENTICATED (a request error of reason "unauthenticated"; the message, the output
    under test too, names the header); with it, the call is answered."""
    with served(token=TOKEN) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
        for metadata in ((), (("authorization", "Bearer wrong"),)):
            with pytest.raises(grpc.RpcError) as caught:
                stub.ListGames(pb.ListGamesRequest(), timeout=CALL_TIMEOUT, metadata=metadata)
            error: Any = caught.value
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED
            detail = error_detail_of(error)
            assert detail is not None
            assert (detail.kind, detail.reason) == (pb.ERROR_KIND_REQUEST, "unauthenticated")
            assert "authorization: Bearer <token>" in error.details()
        answered = stub.ListGames(pb.ListGamesRequest(), timeout=CALL_TIMEOUT,
                                  metadata=(("authorization", f"Bearer {TOKEN}"),))
        assert list(answered.games) == []


def test_an_unknown_method_without_the_token_is_unauthenticated() -> None:
    """With a token set, a method the server lacks answers UNAUTHENTICATED to a caller
    without the token (a stranger cannot probe method names) and UNIMPLEMENTED to one with
    it."""
    with served(token=TOKEN) as port, grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        unknown = channel.unary_unary("/reasoner.v1.Reasoner/NoSuchMethod",
                                      request_serializer=None, response_deserializer=None)
        answers = {}
        for name, metadata in (("none", ()), ("wrong", (("authorization", "Bearer no"),)),
                               ("right", (("authorization", f"Bearer {TOKEN}"),))):
            with pytest.raises(grpc.RpcError) as caught:
                unknown(b"", timeout=CALL_TIMEOUT, metadata=metadata)
            error: Any = caught.value
            answers[name] = error.code()
        assert answers == {"none": grpc.StatusCode.UNAUTHENTICATED,
                           "wrong": grpc.StatusCode.UNAUTHENTICATED,
                           "right": grpc.StatusCode.UNIMPLEMENTED}


def test_the_client_sends_the_token_on_calls_and_sessions() -> None:
    """ReasonerClient(token=...) loads, queries and opens a Session on a server that needs
    the token; without it, the client raises a RemoteError with UNAUTHENTICATED and reason
    "unauthenticated"."""
    with served(token=TOKEN) as port:
        target = f"127.0.0.1:{port}"
        with ReasonerClient(target, timeout=CALL_TIMEOUT, token=TOKEN) as client:
            game = client.load_game(game_text("tictactoe"))
            state = game.initial_state()
            with client.session() as session:
                session.send("query", pb.QueryRequest(game_id=game.id,
                                                      state=pb.State(fluents=state.fluent_ids())))
                _, answer = session.receive()
            assert isinstance(answer, pb.QueryResponse) and len(answer.info.legal) == 2
        with ReasonerClient(target, timeout=CALL_TIMEOUT) as stranger, \
                pytest.raises(RemoteError) as caught:
            stranger.list_games()
        assert (caught.value.code, caught.value.reason) == (
            grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """A self-signed certificate for localhost and 127.0.0.1, made with openssl."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder: Path = tmp_path_factory.mktemp("tls")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem"),
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60)
    return (folder / "cert.pem").read_bytes(), (folder / "key.pem").read_bytes()


def test_a_server_with_a_certificate_speaks_tls(certificate: tuple[bytes, bytes]) -> None:
    """A server given a certificate answers a client that trusts it over TLS; a plain
    channel to the same port gets no answer (UNAVAILABLE)."""
    cert, _ = certificate
    with served(tls=certificate, token=TOKEN) as port:
        with ReasonerClient(f"localhost:{port}", timeout=CALL_TIMEOUT, tls_root=cert,
                            token=TOKEN) as client:
            assert client.list_games() == []
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
            with pytest.raises(grpc.RpcError) as caught:
                stub.ListGames(pb.ListGamesRequest(), timeout=5)
            error: Any = caught.value
            assert error.code() == grpc.StatusCode.UNAVAILABLE


def test_a_tls_port_spoken_to_without_tls_fails_within_the_connect_timeout(
        certificate: tuple[bytes, bytes]) -> None:
    """A client without tls_root, on a port that speaks TLS only, raises ServerUnreachable
    after about the connect timeout (not the call's deadline), asking whether the server
    uses TLS."""
    with served(tls=certificate) as port, \
            ReasonerClient(f"127.0.0.1:{port}", connect_timeout=1.0) as client:
        started = time.monotonic()
        with pytest.raises(ServerUnreachable) as caught:
            client.list_games()
        waited = time.monotonic() - started
    assert 1.0 <= waited < 4.0
    assert str(caught.value) == (
        f"cannot reach 127.0.0.1:{port} within 1 s: is the server running, and does it use "
        "TLS (then give tls_root)?")


def test_tls_root_takes_the_path_of_a_pem_file(certificate: tuple[bytes, bytes],
                                               tmp_path: Path) -> None:
    """tls_root given as the path of the CA's PEM file, a str or a Path, is read: the
    client speaks TLS to the server as with the file's bytes."""
    cert, _ = certificate
    (tmp_path / "ca.pem").write_bytes(cert)
    with served(tls=certificate) as port:
        for root in (str(tmp_path / "ca.pem"), tmp_path / "ca.pem"):
            with ReasonerClient(f"localhost:{port}", timeout=CALL_TIMEOUT,
                                tls_root=root) as client:
                assert client.list_games() == []


@pytest.mark.parametrize("name, content, why", [
    ("missing.pem", None, "No such file or directory"),
    ("key.txt", b"not a certificate\n", "it holds no PEM certificate"),
])
def test_a_tls_root_file_that_cannot_serve_is_named(tmp_path: Path, name: str,
                                                    content: bytes | None, why: str) -> None:
    """A tls_root path to a missing file, or to a file without a PEM certificate, raises
    UnreadableCertificate naming the file and why, before any connection."""
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(UnreadableCertificate) as caught:
        ReasonerClient("localhost:1", tls_root=path)
    assert str(caught.value) == f"cannot read the TLS root certificate {path}: {why}"
    assert caught.value.path == str(path)


def test_serve_refuses_half_a_certificate(tmp_path: Path) -> None:
    """`serve --tls-cert` without `--tls-key` is a usage error, before anything listens."""
    from tests.test_cli import run_cli

    result = run_cli("serve", "--port", "0", "--tls-cert", tmp_path / "cert.pem")
    assert result.returncode == 2
    assert "--tls-cert and --tls-key go together" in result.stderr


def test_match_plays_through_a_server_with_tls_and_a_token(certificate: tuple[bytes, bytes],
                                                           tmp_path: Path) -> None:
    """`match --server` with `--tls-root CA.pem` and `--token` plays a tic-tac-toe match on a
    server that needs both, printing the result."""
    from tests.test_cli import run_cli

    cert, _ = certificate
    (tmp_path / "ca.pem").write_bytes(cert)
    with served(tls=certificate, token=TOKEN) as port:
        result = run_cli("match", "games/tictactoe.kif", "--players", "random,random",
                         "--server", f"localhost:{port}", "--tls-root", tmp_path / "ca.pem",
                         "--token", TOKEN)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("result: xplayer ")


@pytest.mark.parametrize("command", [["match", "games/tictactoe.kif", "--players",
                                      "random,random"], ["player", "--port", "0"]])
def test_a_command_without_the_token_fails_in_one_line(certificate: tuple[bytes, bytes],
                                                       tmp_path: Path,
                                                       command: list[str]) -> None:
    """`match --server` and `player --server` with `--tls-root` but without `--token`, on a
    server that needs one, exit 1 with one line on stderr that says what the server wants
    and which option gives it (no traceback), before playing or listening."""
    from tests.test_cli import run_cli

    cert, _ = certificate
    (tmp_path / "ca.pem").write_bytes(cert)
    with served(tls=certificate, token=TOKEN) as port:
        result = run_cli(*command, "--server", f"localhost:{port}",
                         "--tls-root", tmp_path / "ca.pem")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"gdl-reasoner: localhost:{port} refuses the call: this server needs the metadata "
        "`authorization: Bearer <token>` (give --token)\n")


def test_player_plays_through_a_server_with_tls_and_a_token(
        certificate: tuple[bytes, bytes], tmp_path: Path) -> None:
    """`player --server` with `--tls-root CA.pem` and `--token` loads a match's rules on a
    server that needs both, and answers a play with a legal move."""
    import re
    import signal
    import sys

    from client.ggp.messages import write_message
    from tests.ggp_support import post
    from tests.test_cli import PROJECT

    cert, _ = certificate
    (tmp_path / "ca.pem").write_bytes(cert)
    with served(tls=certificate, token=TOKEN) as port:
        player = subprocess.Popen(
            [sys.executable, "-m", "reasoner.cli", "player", "--port", "0", "--strategy",
             "random", "--server", f"localhost:{port}", "--tls-root",
             str(tmp_path / "ca.pem"), "--token", TOKEN],
            cwd=PROJECT, stderr=subprocess.PIPE, text=True)
        try:
            assert player.stderr is not None
            listening = re.search(r"listening on (\S+:\d+)", player.stderr.readline())
            assert listening is not None
            address = listening.group(1)
            assert post(address, write_message(
                "start", "tls", role="xplayer", rules=game_text("tictactoe"),
                start_clock=10, play_clock=5)) == (200, "ready")
            status, move = post(address, "(play tls nil)")
            assert status == 200 and re.fullmatch(r"\(mark [123] [123]\)", move)
        finally:
            player.send_signal(signal.SIGTERM)
            player.communicate(timeout=30)


def test_tls_root_and_token_go_with_server() -> None:
    """`match --token` without `--server` (the match would run on a server of its own) is
    a usage error, exit 2."""
    from tests.test_cli import run_cli

    result = run_cli("match", "games/tictactoe.kif", "--players", "random,random",
                     "--token", TOKEN)
    assert result.returncode == 2
    assert result.stderr == "gdl-reasoner: --tls-root and --token go with --server\n"


@pytest.mark.needs_tools  # node and the npm packages
def test_the_node_example_speaks_tls_with_a_token(certificate: tuple[bytes, bytes],
                                                 tmp_path: Path) -> None:
    """The Node example, given the CA and the token, plays on a server that needs both."""
    from tests.test_node_client import NODE

    cert, _ = certificate
    (tmp_path / "ca.pem").write_bytes(cert)
    with served(tls=certificate, token=TOKEN) as port:
        done = subprocess.run(
            ["node", "example.js", f"localhost:{port}", str(NODE.parents[1] / "games" /
                                                           "tictactoe.kif"),
             "--playouts", "4", "--in-flight", "2", "--mc", "2", "--token", TOKEN,
             "--tls-root", str(tmp_path / "ca.pem")],
            cwd=NODE, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert '"simulatedPlayouts":18' in done.stdout


# -- serve: TLS files checked before anything is loaded, and the startup log -----------------


@pytest.fixture(scope="module")
def tls_files(certificate: tuple[bytes, bytes],
              tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of certificate and key files, good and bad: cert.pem and key.pem (a pair),
    other-key.pem (another key), expired.pem (key.pem's certificate, expired a day ago),
    garbage.pem (random bytes) and empty.pem."""
    folder: Path = tmp_path_factory.mktemp("tls-files")
    cert, key = certificate
    (folder / "cert.pem").write_bytes(cert)
    (folder / "key.pem").write_bytes(key)
    subprocess.run(["openssl", "genrsa", "-out", str(folder / "other-key.pem"), "2048"],
                   check=True, capture_output=True, timeout=60)
    subprocess.run(["openssl", "x509", "-in", str(folder / "cert.pem"), "-signkey",
                    str(folder / "key.pem"), "-days", "-1", "-out", str(folder / "expired.pem")],
                   check=True, capture_output=True, timeout=60)
    (folder / "garbage.pem").write_bytes(bytes(range(256)) * 4)
    (folder / "empty.pem").write_bytes(b"")
    return folder


@pytest.mark.parametrize(("cert", "key", "problem"), [
    ("garbage.pem", "key.pem", "no PEM certificate"),
    ("empty.pem", "key.pem", "empty"),
    ("missing.pem", "key.pem", "No such file"),
    ("cert.pem", "garbage.pem", "no PEM private key"),
    ("cert.pem", "empty.pem", "empty"),
    ("cert.pem", "other-key.pem", "does not match the certificate"),
    ("expired.pem", "key.pem", "expired on"),
])
def test_serve_refuses_a_bad_certificate_or_key_before_loading(
        tls_files: Path, cert: str, key: str, problem: str) -> None:
    """`serve` with a garbage, empty, missing, mismatched or expired certificate or key
    exits 2 with one stderr line naming the file at fault and the problem, no traceback,
    before any game of --games is loaded (no "serving" log line)."""
    from tests.test_cli import run_cli

    started = time.monotonic()
    result = run_cli("serve", "--port", "0", "--games", "games",
                     "--tls-cert", tls_files / cert, "--tls-key", tls_files / key)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    at_fault = key if cert in ("cert.pem",) else cert
    assert str(tls_files / at_fault) in line and problem in line, line
    assert "Traceback" not in result.stderr and "serving" not in result.stderr
    assert took < 20, took


def _startup_line(*arguments: str | Path) -> str:
    """Start `serve --port 0` with no games and these arguments, return its "listening"
    log line, and stop it with SIGTERM."""
    from tests.test_cli import PROJECT

    with tempfile.TemporaryDirectory() as empty:
        process = subprocess.Popen(
            [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0", "--games", empty,
             *map(str, arguments)],
            cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert process.stderr is not None
        try:
            seen = []
            for line in process.stderr:
                seen.append(line)
                if "listening on" in line:
                    return line
            raise AssertionError("no listening line: " + "".join(seen))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            process.stderr.close()


def test_serve_logs_that_tls_and_the_token_are_on(tls_files: Path, tmp_path: Path) -> None:
    """Given a certificate and a token file, `serve` says so where it says it listens:
    "(TLS on, token required)"."""
    (tmp_path / "token.txt").write_text(TOKEN + "\n")
    line = _startup_line("--tls-cert", tls_files / "cert.pem", "--tls-key",
                         tls_files / "key.pem", "--token-file", tmp_path / "token.txt")
    assert "(TLS on, token required)" in line, line


def test_serve_logs_that_tls_and_the_token_are_off() -> None:
    """Without a certificate or a token file, `serve` says the port is plain and open:
    "(TLS off, no token)"."""
    line = _startup_line()
    assert "(TLS off, no token)" in line, line
