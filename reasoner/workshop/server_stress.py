"""Server stress: a steady client's Query latency on a server alone, then while blow-ups
run (``stress``).

The server runs in its own process with its default bounds (as ``serve`` starts it). One
client asks Query on sampled tic-tac-toe states for the whole measurement, first alone, then
while ``--blowups`` threads send requests that blow up, in turn: loads of games whose
grounding explodes (each a new game), translations of megabytes of rules, Expand of a state
with 90,000 children and Simulate of a million playouts, each with a deadline; a blow-up
refused with RESOURCE_EXHAUSTED is sent again after half a second. The figures
are the steady client's median, p99 and worst latency in both phases, the status codes the
blow-ups got, and the server's resident memory.
"""

from __future__ import annotations

import itertools
import multiprocessing
import statistics
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from reasoner.workshop.service_latency import percentile

__all__ = ["measure_stress"]

_NUMBERS = " ".join(f"(n {i})" for i in range(60))
# A client that is refused with RESOURCE_EXHAUSTED waits this long before it sends again, as
# gRPC's retry policies do (the refusal is the server telling it to come back later).
_BACKOFF_SECONDS = 0.5


def _exploding(number: int) -> str:
    """A new game each time with 60^5 legal moves: its grounding runs to the server's
    time or memory bound."""
    return (f"(role r) {_NUMBERS} (init (s {number})) "
            "(<= (legal r (go ?a ?b ?c ?d ?e)) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e)) "
            "(<= (next (s ?x)) (true (s ?x))) (<= terminal (true (s 0))) (goal r 0)")


def _large_rules(number: int) -> str:
    """About 2 MB of rules: many facts, read and translated in full."""
    facts = " ".join(f"(f {number} {i} {i + 1})" for i in range(100_000))
    return f"(role r) {facts} (init s) (legal r go) (<= (next s) (true s)) " \
        "(<= terminal (true t)) (goal r 0)"


_WIDE = (f"(role a) (role b) {' '.join(f'(k {i})' for i in range(300))} "
         "(<= (legal ?r (m ?x)) (role ?r) (k ?x)) (init s) (<= (next s) (true s)) "
         "(<= terminal (true t)) (<= (goal ?r 0) (role ?r))")


def _serve(ports: Any, stop: Any, max_heavy: int, max_costly: int) -> None:
    """A server with the defaults of ``serve`` on a free loopback port, until ``stop``."""
    import os

    from reasoner.server.app import create_server, for_serving

    for_serving()  # as serve does
    server, port, _ = create_server("127.0.0.1:0", max_heavy=max_heavy,
                                    max_costly=max_costly)
    ports.put((port, os.getpid()))
    stop.wait()
    server.stop(None)


def _play(ports: Any, stop: Any, seconds: float) -> None:
    """An HTTP player with the defaults of ``player`` on a free loopback port, until
    ``stop``: its games load in its own process, as ``gdl-reasoner player`` loads them,
    within ``seconds`` (the blow-ups' deadline; ``player``'s default is 60 s)."""
    import os

    from reasoner.console.players import GgpPlayer, serve_player

    player = GgpPlayer("random", load_seconds=seconds)
    server = serve_player(player, "127.0.0.1", 0)
    ports.put((server.server_address[1], os.getpid()))
    stop.wait()
    server.shutdown()
    player.close()


def _resident_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure_stress(seconds: float, blowups: int, deadline: float,
                   max_heavy: int, simulates: int = 0,
                   playouts: int = 300_000, max_costly: int = 2,
                   previews: int = 0) -> dict[str, Any]:
    """The figures of one run (see the module docstring): a steady client's Query latency
    for ``seconds`` alone, then for ``seconds`` while ``blowups`` threads send blow-ups,
    each with a ``deadline``, and ``simulates`` more threads each send connect four
    Simulates of ``playouts`` playouts, to a server with ``--max-heavy max_heavy`` and
    ``--max-costly max_costly`` (a large one: as good as none, for a comparison). The
    server's resident memory is sampled every 0.1 s during the second phase (its peak).
    With ``previews``, an HTTP player runs beside the server, on the same machine, and that
    many threads send it ``preview`` messages of exploding games."""
    import grpc

    from reasoner.core.walk import sample_states
    from reasoner.engine.game import Game
    from reasoner.v1 import reasoner_pb2 as pb
    from reasoner.v1 import reasoner_pb2_grpc as pb_grpc

    games = Path(__file__).resolve().parents[2] / "games"
    tictactoe = (games / "tictactoe.kif").read_text()
    connectfour = (games / "connectfour.kif").read_text()
    local = Game.from_gdl(tictactoe)
    states = [list(state.fluent_ids())
              for state, _ in sample_states(local, local.initial_state, 500, 0)]
    context = multiprocessing.get_context("spawn")
    ports: Any = context.Queue()
    stop: Any = context.Event()
    # Not a daemon: a daemonic process may not start the bounded children of its loads.
    child = context.Process(target=_serve, args=(ports, stop, max_heavy, max_costly))
    child.start()
    port, pid = ports.get(timeout=120)
    player: Any = None
    if previews:
        player = context.Process(target=_play, args=(ports, stop, deadline))
        player.start()
        player_port, _ = ports.get(timeout=120)
    figures: dict[str, Any] = {"max_heavy": max_heavy, "max_costly": max_costly,
                               "blowups": blowups, "previews": previews,
                               "simulates": simulates, "playouts": playouts}
    try:
        target = f"127.0.0.1:{port}"
        channel = grpc.insecure_channel(target)
        stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
        game_id = stub.LoadGame(pb.LoadGameRequest(gdl=tictactoe), timeout=60).game.game_id
        c4 = stub.LoadGame(pb.LoadGameRequest(gdl=connectfour), timeout=60).game.game_id
        wide = stub.LoadGame(pb.LoadGameRequest(gdl=_WIDE), timeout=60).game
        wide_state = stub.InitialState(pb.InitialStateRequest(game_id=wide.game_id),
                                       timeout=60).state
        figures["resident_mb_before"] = round(_resident_mb(pid))

        def steady() -> tuple[list[float], int]:
            latencies: list[float] = []
            errors = 0
            ends = time.perf_counter() + seconds
            for fluents in itertools.cycle(states):
                if time.perf_counter() >= ends:
                    break
                start = time.perf_counter()
                try:
                    stub.Query(pb.QueryRequest(game_id=game_id,
                                               state=pb.State(fluents=fluents)), timeout=10)
                except grpc.RpcError:
                    errors += 1
                latencies.append((time.perf_counter() - start) * 1e3)
            return latencies, errors

        alone, alone_errors = steady()
        codes: Counter[str] = Counter()
        running = threading.Event()
        running.set()
        numbers = itertools.count()
        lock = threading.Lock()

        def tally(key: str, code: str) -> None:
            """Count an answer; a refused client waits before it sends again."""
            with lock:
                codes[f"{key} {code}"] += 1
            if code in ("RESOURCE_EXHAUSTED", "200 busy"):
                time.sleep(_BACKOFF_SECONDS)

        def blow_up(index: int) -> None:
            own = pb_grpc.ReasonerStub(grpc.insecure_channel(target))  # type: ignore[no-untyped-call]
            kinds = ("load", "translate", "expand", "simulate")
            turn = index
            while running.is_set():
                kind = kinds[turn % len(kinds)]
                turn += 1
                with lock:
                    number = next(numbers)
                try:
                    if kind == "load":
                        own.LoadGame(pb.LoadGameRequest(gdl=_exploding(number)),
                                     timeout=deadline)
                    elif kind == "translate":
                        own.Translate(pb.TranslateRequest(gdl=_large_rules(number)),
                                      timeout=deadline)
                    elif kind == "expand":
                        own.Expand(pb.ExpandRequest(game_id=wide.game_id, state=wide_state),
                                   timeout=deadline)
                    else:
                        own.Simulate(pb.SimulateRequest(
                                         from_initial=True, game_id=c4, playouts=1_000_000,
                                                        seed=number), timeout=deadline)
                    code = "OK"
                except grpc.RpcError as error:
                    code = error.code().name
                tally(kind, code)

        def simulate(index: int) -> None:
            # (300,000 playouts answer about 4.6 MiB: more than a channel takes by default)
            wide = grpc.insecure_channel(target, options=[
                ("grpc.max_receive_message_length", 64 * 2**20)])
            own = pb_grpc.ReasonerStub(wide)  # type: ignore[no-untyped-call]
            while running.is_set():
                try:
                    own.Simulate(pb.SimulateRequest(from_initial=True, game_id=c4,
                                                    playouts=playouts, seed=index),
                                 timeout=deadline)
                    code = "OK"
                except grpc.RpcError as error:
                    code = error.code().name
                tally(f"simulate {playouts:,}", code)

        def preview(index: int) -> None:
            import http.client

            while running.is_set():
                with lock:
                    number = next(numbers)
                connection = http.client.HTTPConnection("127.0.0.1", player_port,
                                                        timeout=deadline + 30)
                try:
                    connection.request("POST", "/", body=f"(preview ({_exploding(number)}) "
                                       f"{int(deadline)})".encode(),
                                       headers={"Content-Type": "text/acl"})
                    response = connection.getresponse()
                    text = response.read().decode()
                    code = f"{response.status} {text.split(':')[0][:40]}"
                except OSError as error:
                    code = type(error).__name__
                finally:
                    connection.close()
                tally("preview", code)

        peak = [0.0]

        def sample() -> None:
            while running.is_set():
                peak[0] = max(peak[0], _resident_mb(pid))
                time.sleep(0.1)

        threads = [threading.Thread(target=blow_up, args=(k,), daemon=True)
                   for k in range(blowups)]
        threads += [threading.Thread(target=simulate, args=(k,), daemon=True)
                    for k in range(simulates)]
        threads += [threading.Thread(target=preview, args=(k,), daemon=True)
                    for k in range(previews)]
        threads.append(threading.Thread(target=sample, daemon=True))
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the blow-ups under way
        loaded, loaded_errors = steady()
        figures["resident_mb_peak_phase"] = round(max(peak[0], _resident_mb(pid)))
        running.clear()
        for thread in threads:
            thread.join(deadline + 30)
        time.sleep(1.0)
        figures["resident_mb_after"] = round(_resident_mb(pid))
        for name, values, errors in (("alone", alone, alone_errors),
                                     ("blowups", loaded, loaded_errors)):
            figures[name] = {
                "queries": len(values), "errors": errors,
                "median_ms": round(statistics.median(values), 2),
                "p99_ms": round(percentile(values, 0.99), 2),
                "max_ms": round(max(values), 1)}
        figures["blowup_codes"] = dict(sorted(codes.items()))
        channel.close()
    finally:
        stop.set()
        for process in (child, player):
            if process is None:
                continue
            process.join(10)
            if process.is_alive():
                process.kill()
    return figures
