"""Simulate over gRPC against ``gdl-reasoner serve`` (``--gpu`` passed through): wall-clock
updates per second of calls of 1,000 to 1,000,000 playouts, answered in columns and as a
summary, with the server's own time.

    python scripts/grpc_simulate.py games/tictactoe.kif [--gpu] [--rounds 5]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client.reasoner_client import ReasonerClient


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("game")
    parser.add_argument("--gpu", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", default="1000,100000,1000000")
    args = parser.parse_args()
    command = [sys.executable, "-m", "reasoner.cli", "serve", "--port", "0"]
    if args.gpu:
        command.append("--gpu")
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)  # noqa: SIM115
    server = subprocess.Popen(command, stdout=log, stderr=log, text=True)
    port = None
    deadline = time.monotonic() + 60
    while port is None and time.monotonic() < deadline and server.poll() is None:
        found = re.search(r"listening on \S*:(\d+)", Path(log.name).read_text())
        if found:
            port = int(found.group(1))
        time.sleep(0.1)
    if port is None:
        print(Path(log.name).read_text(), file=sys.stderr)
        server.kill()
        return 1
    try:
        with ReasonerClient(f"127.0.0.1:{port}") as client:
            game = client.load_game(Path(args.game).read_text())
            for size in [int(s) for s in args.sizes.split(",")]:
                for answer in ("columns", "summary"):
                    call = game.simulate if answer == "columns" else game.summarize
                    call(playouts=size, seed=99)  # warm (the GPU kernel compiles)
                    walls, servers, updates = [], [], 0
                    for round_ in range(args.rounds):
                        began = time.perf_counter()
                        if answer == "columns":
                            result = game.simulate(playouts=size, seed=round_)
                            servers.append(result.elapsed_ms)
                            updates = result.updates
                        else:
                            summary = game.summarize(playouts=size, seed=round_)
                            updates = summary.updates
                        walls.append(time.perf_counter() - began)
                    wall = statistics.median(walls)
                    own = f"server {statistics.median(servers):8.1f} ms" if servers else ""
                    print(f"{Path(args.game).stem} Simulate {size:>9,} playouts, {answer:<7}: "
                          f"{updates:>11,} updates, wall {wall * 1e3:8.2f} ms {own:<20} "
                          f"{updates / wall / 1e6:9.1f} M/s", flush=True)
    finally:
        server.kill()
        server.wait(10)
        print("server log:", Path(log.name).read_text()[-2000:], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
