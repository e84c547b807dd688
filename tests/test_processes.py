"""``serve --processes N``: N server processes share one port (SO_REUSEPORT), connections
spread over them, each process with its own cache, and all of them end with the first."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

import grpc
import pytest

from reasoner.v1 import reasoner_pb2 as pb
from reasoner.v1 import reasoner_pb2_grpc as pb_grpc
from tests.service_support import CALL_TIMEOUT, GAMES, game_text
from tests.test_cli import PROJECT


def _read_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


@pytest.mark.slow  # starts two server processes: about 2 s
def test_two_processes_share_the_port_and_end_together(tmp_path: Path) -> None:
    """With --processes 2, both processes log that they listen on the same port; a game
    loaded over one connection is found over some fresh connections and NOT_FOUND over
    others (the other process); SIGTERM to the first ends both."""
    (tmp_path / "nim.kif").write_text((GAMES / "nim.kif").read_text())
    process = subprocess.Popen(
        [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0", "--processes", "2",
         "--games", str(tmp_path)],
        cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stderr, lines), daemon=True).start()
    try:
        log: list[str] = []
        listening: list[re.Match[str]] = []
        deadline = time.monotonic() + 60
        while len(listening) < 2 and time.monotonic() < deadline:
            try:
                log.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
            found = re.search(r"listening on ([\d.]+):(\d+) with 1 games", log[-1])
            if found:
                listening.append(found)
        assert len(listening) == 2, "".join(log)
        port = int(listening[0].group(2))
        assert int(listening[1].group(2)) == port
        target = f"127.0.0.1:{port}"
        with grpc.insecure_channel(target) as channel:
            stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
            game_id = stub.LoadGame(pb.LoadGameRequest(gdl=game_text("tictactoe")),
                                    timeout=CALL_TIMEOUT).game.game_id
        found_codes = set()
        for _ in range(40):  # each fresh connection lands on either process
            options = [("grpc.use_local_subchannel_pool", 1)]
            with grpc.insecure_channel(target, options=options) as channel:
                stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
                try:
                    stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=CALL_TIMEOUT)
                    found_codes.add(grpc.StatusCode.OK)
                except grpc.RpcError as error:
                    found_codes.add(error.code())
            if len(found_codes) == 2:
                break
        assert found_codes == {grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND}
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        with grpc.insecure_channel(target) as channel:  # no process is left on the port
            stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
            try:
                stub.ListGames(pb.ListGamesRequest(), timeout=2)
                served = True
            except grpc.RpcError:
                served = False
        assert not served
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _serve_two(folder: Path, *arguments: str) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    """`serve --port 0 --processes 2 --games FOLDER ARGUMENTS`, its log lines on a queue."""
    process = subprocess.Popen(
        [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0", "--processes", "2",
         "--games", str(folder), *arguments],
        cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stderr, lines), daemon=True).start()
    return process, lines


def _wait_for(lines: queue.Queue[str], log: list[str], pattern: str,
              seconds: float = 60) -> re.Match[str]:
    """The first log line from now on that matches ``pattern`` (all of them kept in
    ``log``); fails with the log when none comes within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            log.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
        except queue.Empty:
            raise AssertionError(f"no line matching {pattern!r} in:\n" + "".join(log)) \
                from None
        found = re.search(pattern, log[-1])
        if found:
            return found


def _replica_of(lines: queue.Queue[str], log: list[str]) -> tuple[int, int]:
    """The pid of the replica and the port, once both processes listen."""
    replica = port = None
    while replica is None or port is None:
        found = _wait_for(lines, log, r"gdl-reasoner (replica (\d+) )?listening on "
                                      r"[\d.]+:(\d+)")
        if found.group(2):
            replica = int(found.group(2))
        else:
            port = int(found.group(3))
    return replica, port


@pytest.mark.slow  # starts three server processes: about 4 s
def test_a_killed_replica_is_logged_and_started_again(tmp_path: Path) -> None:
    """With --processes 2, a replica killed with SIGKILL is logged with its pid and the
    signal, is reaped (no zombie is left), and another replica starts and listens; the
    service still answers a tic-tac-toe Query on the port."""
    (tmp_path / "tictactoe.kif").write_text((GAMES / "tictactoe.kif").read_text())
    process, lines = _serve_two(tmp_path)
    log: list[str] = []
    try:
        replica, port = _replica_of(lines, log)
        os.kill(replica, signal.SIGKILL)
        _wait_for(lines, log, rf"replica 1 \(pid {replica}\) was killed by SIGKILL: "
                              "starting another")
        again = int(_wait_for(lines, log, r"replica (\d+) listening on").group(1))
        assert again != replica
        assert not Path(f"/proc/{replica}").exists()  # reaped, not a zombie
        for _ in range(6):  # fresh connections, to either process
            options = [("grpc.use_local_subchannel_pool", 1)]
            with grpc.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
                stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
                game_id = stub.LoadGame(pb.LoadGameRequest(gdl=game_text("tictactoe")),
                                        timeout=CALL_TIMEOUT).game.game_id
                state = stub.InitialState(pb.InitialStateRequest(game_id=game_id),
                                          timeout=CALL_TIMEOUT).state
                info = stub.Query(pb.QueryRequest(game_id=game_id, state=state),
                                  timeout=CALL_TIMEOUT).info
                assert len(info.legal) == 2
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow  # starts two server processes: about 3 s
def test_replicas_that_die_too_often_stop_the_service(tmp_path: Path) -> None:
    """With --replica-restarts 0, the first replica that dies is not started again: the
    service logs an error naming the replica and the flag, stops, and exits 1 with one
    line saying why."""
    process, lines = _serve_two(tmp_path, "--replica-restarts", "0")
    log: list[str] = []
    try:
        replica, _ = _replica_of(lines, log)
        os.kill(replica, signal.SIGKILL)
        _wait_for(lines, log, rf"ERROR replica 1 \(pid {replica}\) was killed by SIGKILL, "
                              r"and replicas were restarted 0 times .*\(serve "
                              r"--replica-restarts\): stopping the service")
        assert process.wait(timeout=30) == 1
        _wait_for(lines, log, r"^gdl-reasoner: stopped: replica 1 ")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
