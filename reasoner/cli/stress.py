"""``stress``: a steady client's Query latency on a server alone, then while blow-ups run.

The server runs in its own process with its default bounds (as ``serve`` starts it). One
client asks Query on sampled tic-tac-toe states for the whole measurement, first alone, then
while ``--blowups`` threads send requests that blow up, in turn: loads of games whose
grounding explodes (each a new game), translations of megabytes of rules, Expand of a state
with 90,000 children and Simulate of a million playouts, each with a deadline. The figures
are the steady client's median, p99 and worst latency in both phases, the status codes the
blow-ups got, and the server's resident memory.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import statistics
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from reasoner.cli.common import EXIT_OK, Commands
from reasoner.cli.numbers import at_least, seconds

__all__ = ["register"]

_NUMBERS = " ".join(f"(n {i})" for i in range(60))


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


def register(commands: Commands) -> None:
    """Add ``stress``."""
    p = commands.add_parser(
        "stress", help="a steady client's Query latency alone and while blow-ups run")
    p.add_argument("--seconds", type=seconds(), default=30.0, help="length of each phase")
    p.add_argument("--blowups", type=at_least(0), default=8, help="threads sending blow-ups")
    p.add_argument("--deadline", type=seconds(), default=15.0,
                   help="seconds each blow-up request may take")
    p.add_argument("--max-heavy", type=at_least(1), default=2, help="the server's --max-heavy")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_stress)


def _serve(ports: Any, stop: Any, max_heavy: int) -> None:
    """A server with the defaults of ``serve`` on a free loopback port, until ``stop``."""
    import os

    from reasoner.server.app import create_server

    server, port, _ = create_server("127.0.0.1:0", max_heavy=max_heavy)
    ports.put((port, os.getpid()))
    stop.wait()
    server.stop(None)


def _resident_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0



def _stress(args: argparse.Namespace) -> int:
    import grpc

    from reasoner.cli.benchmarks import percentile
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
    child = context.Process(target=_serve, args=(ports, stop, args.max_heavy))
    child.start()
    port, pid = ports.get(timeout=120)
    figures: dict[str, Any] = {"max_heavy": args.max_heavy, "blowups": args.blowups}
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
            deadline = time.perf_counter() + args.seconds
            for fluents in itertools.cycle(states):
                if time.perf_counter() >= deadline:
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
                                     timeout=args.deadline)
                    elif kind == "translate":
                        own.Translate(pb.TranslateRequest(gdl=_large_rules(number)),
                                      timeout=args.deadline)
                    elif kind == "expand":
                        own.Expand(pb.ExpandRequest(game_id=wide.game_id, state=wide_state),
                                   timeout=args.deadline)
                    else:
                        own.Simulate(pb.SimulateRequest(
                                         from_initial=True, game_id=c4, playouts=1_000_000,
                                                        seed=number), timeout=args.deadline)
                    code = "OK"
                except grpc.RpcError as error:
                    code = error.code().name
                with lock:
                    codes[f"{kind} {code}"] += 1

        threads = [threading.Thread(target=blow_up, args=(k,), daemon=True)
                   for k in range(args.blowups)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # the blow-ups under way
        loaded, loaded_errors = steady()
        figures["resident_mb_peak_phase"] = round(_resident_mb(pid))
        running.clear()
        for thread in threads:
            thread.join(args.deadline + 30)
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
        child.join(10)
        if child.is_alive():
            child.kill()
    if args.json:
        print(json.dumps(figures))
        return EXIT_OK
    print(f"steady Query on tic-tac-toe, {args.seconds:g} s per phase, server with "
          f"--max-heavy {args.max_heavy}:")
    for name in ("alone", "blowups"):
        f = figures[name]
        label = "alone" if name == "alone" else f"with {args.blowups} blow-ups"
        print(f"  {label:18} {f['queries']:>7,} queries  median {f['median_ms']:6.2f} ms  "
              f"p99 {f['p99_ms']:7.2f} ms  max {f['max_ms']:8.1f} ms  errors {f['errors']}")
    print("  blow-ups answered: " + ", ".join(f"{k} {v}" for k, v in
                                             figures["blowup_codes"].items()))
    print(f"  server resident memory: {figures['resident_mb_before']:,} MiB before, "
          f"{figures['resident_mb_peak_phase']:,} MiB at the end of the blow-ups, "
          f"{figures['resident_mb_after']:,} MiB after")
    return EXIT_OK
