"""``serve --processes N``: N server processes share one port (SO_REUSEPORT), connections
spread over them, each process with its own cache, and all of them end with the first."""

from __future__ import annotations

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
