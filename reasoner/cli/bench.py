"""``bench``: random-playout state updates per second and load time of every backend
(the measurements themselves are in :mod:`reasoner.cli.benchmarks`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from reasoner.cli.common import (
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    failure,
    limit_options,
    limits,
    read,
)
from reasoner.errors import ReasonerError

__all__ = ["BENCH_BACKENDS", "register"]

BENCH_BACKENDS = ("clingo", "propnet", "propnet-batch-64", "propnet-batch-1024",
                  "grpc-simulate", "reference")


def register(commands: Commands) -> None:
    """Add ``bench``."""
    p = commands.add_parser("bench", help="random-playout state updates per second")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--runs", type=int, default=3, help="runs per game (median reported)")
    p.add_argument("--backends", default=",".join(BENCH_BACKENDS),
                   help="comma-separated, of: " + ", ".join(BENCH_BACKENDS) +
                        " (default: all; the network's size comes with any propnet one)")
    p.add_argument("--seconds", type=float, default=2.0, help="playout time per run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per game and backend")
    p.add_argument("--grpc", action="store_true",
                   help="also measure Query/Next latency over loopback gRPC")
    limit_options(p)
    p.set_defaults(run=_bench)


def _bench(args: argparse.Namespace) -> int:
    from reasoner.cli.benchmarks import (
        bench_batch,
        bench_game,
        bench_reference,
        bench_service,
        network_figures,
    )
    from reasoner.engine.game import Game

    wanted = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in wanted if b not in BENCH_BACKENDS]
    if unknown:
        raise UsageError(f"unknown backend {unknown[0]!r}; the backends are "
                         f"{', '.join(BENCH_BACKENDS)}")
    status = EXIT_OK
    for path in args.games:
        results: list[Any] = []
        services: list[Any] = []
        try:
            text = read(path)
            bounds = limits(args)
            if bounds is not None:  # refuse a game that cannot be loaded within the bounds
                Game.from_gdl(text, limits=bounds, backend="clingo")
            common = {"runs": args.runs, "seconds": args.seconds, "seed": args.seed}
            for backend in wanted:
                if backend in ("clingo", "propnet"):
                    results.append(bench_game(path, text, backend=backend, **common))
                elif backend.startswith("propnet-batch-"):
                    lanes = int(backend.rsplit("-", 1)[1])
                    results.append(bench_batch(path, text, lanes, **common))
                elif backend == "reference":
                    results.append(bench_reference(path, text, **common))
            if any(b.startswith("propnet") for b in wanted):
                results.append(network_figures(path, text, runs=args.runs))
            if args.grpc or "grpc-simulate" in wanted:
                services = [s for s in bench_service(path, text, seconds=args.seconds,
                                                     seed=args.seed, latency=args.grpc)
                            if args.grpc or s.backend.startswith("grpc-simulate")]
        except (ReasonerError, CommandError) as error:
            status = failure(error, path)
            continue
        if args.json:
            for result in [*results, *services]:
                print(json.dumps(result.as_dict()), flush=True)
            continue
        for result in results:
            if result.backend == "propnet-size":
                print(f"{result.game:<16} {'network':<20} {result.propositions:,} "
                      f"propositions, {result.gates:,} gates, {result.edges:,} edges; built "
                      f"in {result.build_ms:.1f} ms; {result.resident_mb:.1f} MB resident",
                      flush=True)
                continue
            print(f"{result.game:<16} {result.backend:<20} {result.updates_per_sec:>10,.0f} "
                  f"updates/s (median of {result.runs}: "
                  f"{', '.join(f'{r:,.0f}' for r in result.rates)})  load "
                  f"{result.load_ms:.1f} ms", flush=True)
        for service in services:
            if service.backend.startswith("grpc-simulate"):
                ratio = service.updates_per_sec / service.in_process_updates_per_sec
                print(f"{service.game:<16} {service.backend:<20} "
                      f"{service.updates_per_sec:>10,.0f} updates/s over gRPC, "
                      f"{service.in_process_updates_per_sec:,.0f} in process "
                      f"({ratio:.0%})", flush=True)
            else:
                print(f"{service.game:<16} {service.backend:<20} {service.threads} thread(s): "
                      f"median {service.latency_median_ms:.3f} ms, p99 "
                      f"{service.latency_p99_ms:.3f} ms, {service.updates_per_sec:,.0f} "
                      "calls/s", flush=True)
    return status
