"""``bench``: random-playout state updates per second and load time of every backend
(the measurements themselves are in :mod:`reasoner.workshop.playout_rates`, those over
gRPC in :mod:`reasoner.workshop.service_latency`).

A game too large to ground once (chess) loads only position by position: one bounded load
under ``auto`` tells, and the ground-once backends (clingo and the network) are then
reported as not loading within the bounds instead of being tried.

Each row is printed as soon as it is measured (a game with every backend takes a minute or
more); on a terminal a line on stderr names what is being measured meanwhile. In text, the
backends not measured come after a game's rows, one line per reason (backends refused for
the same reason share it); ``--json`` keeps one object per backend.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from reasoner.console.common import (
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    failure,
    limit_options,
    limits,
    read,
)
from reasoner.console.numbers import SEED, at_least, seconds
from reasoner.errors import ReasonerError, ResourceLimitError

__all__ = ["BENCH_BACKENDS", "register"]

BENCH_BACKENDS = ("clingo", "propnet", "propnet-batch-64", "propnet-batch-1024", "native",
                  "native-one-state", "native-batch", "native-batch-2p", "gpu-batch",
                  "position", "compiled", "compiled-batch", "topdown", "grpc-simulate",
                  "reference")
# The backends that answer position by position.
_BY_POSITION = ("position", "compiled", "topdown")
# Of those, the ones too slow for the service's rounds of 1,000 playouts.
_SLOW = ("position", "topdown")
# The backends that ground the game's program once, over its superset.
_GROUND_ONCE = ("clingo", "propnet", "propnet-batch-64", "propnet-batch-1024", "native",
                "native-one-state", "native-batch", "native-batch-2p", "gpu-batch")
# The backends on the game's network.
_NETWORK = ("propnet", "native", "gpu")


def register(commands: Commands) -> None:
    """Add ``bench``."""
    p = commands.add_parser("bench", help="random-playout state updates per second")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--runs", type=at_least(1), default=3, help="runs per game (median reported)")
    p.add_argument("--backends", default=",".join(BENCH_BACKENDS),
                   help="comma-separated, of: " + ", ".join(BENCH_BACKENDS) +
                        " (default: all; the network's size comes with any propnet one)")
    p.add_argument("--seconds", type=seconds(), default=2.0, help="playout time per run")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per game and backend")
    p.add_argument("--grpc", action="store_true",
                   help="also measure Query/Next latency over loopback gRPC")
    limit_options(p)
    p.set_defaults(run=_bench)


def _bench(args: argparse.Namespace) -> int:
    wanted = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in wanted if b not in BENCH_BACKENDS]
    if unknown:
        raise UsageError(f"unknown backend {unknown[0]!r}; the backends are "
                         f"{', '.join(BENCH_BACKENDS)}")
    status = EXIT_OK
    progress = _Progress(sys.stderr)
    for path in args.games:
        # The backends not measured, by reason: in text, one line per reason and game.
        refused: dict[str, list[str]] = {}
        try:
            for result in _measure(path, read(path), wanted, args, progress):
                progress.clear()
                if args.json:
                    print(json.dumps(result.as_dict()), flush=True)
                elif _is_skipped(result):
                    refused.setdefault(result.reason, []).append(result.backend)
                else:
                    print(_line(result), flush=True)
        except (ReasonerError, CommandError) as error:
            progress.clear()
            status = failure(error, path)
        game = Path(path).stem
        for reason, backends in refused.items():
            print(f"{game:<16} {', '.join(backends) + ':':<20} {reason}", flush=True)
    return status


class _Progress:
    """On a terminal, one line on ``stream`` naming what is being measured, cleared before
    each row is printed; nothing elsewhere (a pipe or a file gets the rows alone)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._shown = False
        try:
            self._enabled = stream.isatty()
        except ValueError:  # a closed stream
            self._enabled = False

    def show(self, text: str) -> None:
        if self._enabled:
            self._stream.write("\r\x1b[K" + text)
            self._stream.flush()
            self._shown = True

    def clear(self) -> None:
        if self._shown:
            self._stream.write("\r\x1b[K")
            self._stream.flush()
            self._shown = False


def _is_skipped(result: Any) -> bool:
    from reasoner.workshop.playout_rates import Skipped

    return isinstance(result, Skipped)


def _measure(path: str, text: str, wanted: list[str], args: argparse.Namespace,
             progress: _Progress) -> Iterator[Any]:
    """Every figure of one game, each as soon as it is measured: the measurements of
    ``wanted`` (a :class:`Skipped` for a backend the game does not load on), then those
    over gRPC."""
    from reasoner.propnet.native import native_refusal
    from reasoner.workshop.playout_rates import (
        NATIVE_MODES,
        Skipped,
        bench_batch,
        bench_compiled_batch,
        bench_game,
        bench_native,
        bench_reference,
        network_figures,
        probe_load,
    )
    from reasoner.workshop.service_latency import bench_service

    bounds = limits(args)
    common = {"runs": args.runs, "seconds": args.seconds, "seed": args.seed}
    grpc = args.grpc or "grpc-simulate" in wanted
    game = Path(path).stem
    # One bounded load tells which backends the game loads on: auto settles for the
    # network, else clingo, else position by position (a program too large to ground once).
    answered, note = "", ""
    if any(b in _GROUND_ONCE for b in wanted) or grpc:
        progress.show(f"{game}: loading under auto")
        answered, note = probe_load(text, "auto", bounds)
    network_refused = ""  # why the network does not load, once known
    if answered in _BY_POSITION:
        network_refused = note
    elif answered == "clingo" and any(b.startswith(_NETWORK) for b in wanted):
        try:  # over auto's bounds, the network may still load within its own
            progress.show(f"{game}: loading the network")
            probe_load(text, "propnet", bounds)
        except ResourceLimitError as error:
            network_refused = str(error)

    def skipped(backend: str, reason: str) -> Skipped:
        return Skipped(game, backend, f"does not load within bounds ({reason})")

    for number, backend in enumerate(wanted, 1):
        progress.show(f"{game}: measuring {backend} ({number}/{len(wanted)})")
        if backend == "clingo" and answered in _BY_POSITION:
            yield skipped(backend, note)
        elif backend.startswith(_NETWORK) and network_refused:
            yield skipped(backend, network_refused)
        elif backend.startswith(("native", "gpu")) and native_refusal():
            yield Skipped(game, backend, native_refusal())
        elif backend in NATIVE_MODES:
            yield from bench_native(path, text, backend, **common)
        elif backend in ("clingo", "propnet", "native", *_BY_POSITION):
            yield bench_game(path, text, backend=backend, **common)
        elif backend == "compiled-batch":
            yield bench_compiled_batch(path, text, **common)
        elif backend.startswith("propnet-batch-"):
            lanes = int(backend.rsplit("-", 1)[1])
            yield bench_batch(path, text, lanes, **common)
        elif backend == "reference":
            yield bench_reference(path, text, **common)
    if any(b.startswith("propnet") for b in wanted) and not network_refused:
        progress.show(f"{game}: measuring the network's size")
        yield network_figures(path, text, runs=args.runs)
    if grpc and answered in _SLOW:
        yield Skipped(game, "grpc-simulate", "the game answers position by position: the "
                      "service's 1,000-playout rounds would take hours (see the position "
                      "column)")
    elif grpc:
        progress.show(f"{game}: measuring over gRPC")
        yield from (s for s in bench_service(path, text, seconds=args.seconds,
                                             seed=args.seed, latency=args.grpc)
                    if args.grpc or s.backend.startswith("grpc-simulate"))


def _line(result: Any) -> str:
    """One measured figure as a line of text (those not measured are grouped by reason)."""
    if result.backend == "gpu-check":
        verdict = "agree" if result.agree else "DISAGREE"
        return (f"{result.game:<16} {'gpu-check':<20} {verdict} on {result.device}: "
                f"{result.playouts:,} playouts each, first role's goals GPU "
                f"{result.gpu_shares} / CPU {result.cpu_shares}, mean length "
                f"{result.gpu_mean_length} / {result.cpu_mean_length}")
    if result.backend == "propnet-size":
        return (f"{result.game:<16} {'network':<20} {result.propositions:,} propositions, "
                f"{result.gates:,} gates, {result.edges:,} edges; built in "
                f"{result.build_ms:.1f} ms; {result.resident_mb:.1f} MB resident")
    if result.backend.startswith("grpc-simulate"):
        ratio = result.updates_per_sec / result.in_process_updates_per_sec
        return (f"{result.game:<16} {result.backend:<20} {result.updates_per_sec:>10,.0f} "
                f"updates/s over gRPC, {result.in_process_updates_per_sec:,.0f} in process "
                f"({ratio:.0%})")
    if result.backend.startswith("grpc-"):
        return (f"{result.game:<16} {result.backend:<20} {result.threads} thread(s): median "
                f"{result.latency_median_ms:.3f} ms, p99 {result.latency_p99_ms:.3f} ms, "
                f"{result.updates_per_sec:,.0f} calls/s")
    return (f"{result.game:<16} {result.backend:<20} {result.updates_per_sec:>10,.0f} "
            f"updates/s (median of {result.runs}: "
            f"{', '.join(f'{r:,.0f}' for r in result.rates)})  load {result.load_ms:.1f} ms")
