"""``fuzz``: a campaign of mutated corpus files through the loader, in process (each in a
bounded child) or over gRPC (a real server on a free port), counted by fate (see
:mod:`reasoner.workshop.gdl_mutants`)."""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections import Counter
from pathlib import Path
from typing import Any

from reasoner.console.common import EXIT_FAILURE, EXIT_OK, Commands, UsageError
from reasoner.console.numbers import MEBIBYTES, SEED, at_least, seconds
from reasoner.workshop.gdl_mutants import (
    DOCUMENTED,
    Mutant,
    load_in_process,
    loads_past_bounds,
    outcomes,
)

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``fuzz``."""
    p = commands.add_parser(
        "fuzz", help="load seeded mutations of corpus files and count crashes and hangs")
    p.add_argument("folder", nargs="?", default="../shared/corpus")
    p.add_argument("--mutations", type=at_least(1), default=1000, help="how many mutants")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--timeout", type=seconds(), default=20.0,
                   help="seconds per mutant; past it the mutant counts as a hang")
    p.add_argument("--memory", type=MEBIBYTES, default=2048, help="MiB per mutant")
    p.add_argument("--max-kb", type=at_least(1), default=16,
                   help="mutate only files up to this size (KiB), to keep a campaign quick")
    p.add_argument("--grpc", action="store_true",
                   help="send each mutant to a real server with LoadGame instead")
    p.add_argument("--jobs", type=at_least(1), default=1,
                   help="mutants loaded at once in process (each in its own bounded child)")
    p.add_argument("--json", action="store_true", help="one JSON object per mutant")
    p.set_defaults(run=_fuzz)


def _resident_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_mb() -> float:
    """This process's resident size now (from /proc), or its peak where /proc is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return _resident_mb()
    return pages * resource.getpagesize() / 2**20


def _fuzz(args: argparse.Namespace) -> int:
    from reasoner.workshop.gdl_mutants import FATES, mutants

    root = Path(args.folder)
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder")
    sources = [(str(p.relative_to(root)), p.read_text(encoding="utf-8", errors="replace"))
               for p in sorted(root.rglob("*.kif")) if p.stat().st_size <= args.max_kb * 1024]
    if not sources:
        raise UsageError(f"no .kif file of at most {args.max_kb} KiB under {root}")
    texts = dict(sources)
    slow_sources: dict[str, bool] = {}  # whether a source itself runs past the bound
    fates: Counter[str] = Counter()
    by_mutation: dict[str, Counter[str]] = {}
    notable: list[dict[str, Any]] = []
    started = time.monotonic()
    server: Any = None
    registry: Any = None
    trace: list[float] = []  # this process's resident MiB after every 100 mutants
    if args.grpc:
        import grpc

        from reasoner.engine.limits import Limits
        from reasoner.server.app import create_server
        from reasoner.v1 import reasoner_pb2 as pb
        from reasoner.v1 import reasoner_pb2_grpc as pb_grpc

        server, port, registry = create_server(
            "127.0.0.1:0", limits=Limits(args.timeout, args.memory, "forkserver"))
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
    memory_before = _current_mb()

    def outcome(mutant: Mutant) -> tuple[str, str]:
        if not args.grpc:
            # Threads (--jobs) forbid a plain fork in this process.
            return load_in_process(mutant.text, args.timeout, args.memory,
                               "forkserver" if args.jobs > 1 else "fork")
        text = mutant.text.encode("utf-8", "replace").decode("utf-8")
        try:
            # The server grounds in its bounded child (the answer may take two bounds: one
            # waiting for a heavy slot, one loading).
            stub.LoadGame(pb.LoadGameRequest(gdl=text), timeout=2 * args.timeout + 10)
            return "accepted", ""
        except grpc.RpcError as error:
            code = error.code().name
            fate = ("refused" if code in DOCUMENTED
                    else "hang" if code == "DEADLINE_EXCEEDED" else "crash")
            return fate, f"{code}: {error.details()}"

    try:
        for mutant, (fate, reason) in outcomes(mutants(sources, args.mutations, args.seed),
                                                outcome, 1 if args.grpc else args.jobs):
            if fate == "hang":
                # The bound is wall-clock time: a load near it can pass it on a busy
                # machine. Only a mutant past it a second time counts (or is slow).
                fate, reason = outcome(mutant)
            if fate == "hang":
                slow = slow_sources.get(mutant.source)
                if slow is None:
                    # A server's threads forbid a plain fork in this process.
                    slow = slow_sources[mutant.source] = loads_past_bounds(
                        texts[mutant.source], args.timeout, args.memory,
                        "forkserver" if args.grpc or args.jobs > 1 else "fork")
                if slow:
                    fate = "slow"
            fates[fate] += 1
            if sum(fates.values()) % 100 == 0:
                trace.append(_current_mb())
            by_mutation.setdefault(mutant.mutation, Counter())[fate] += 1
            record = {"source": mutant.source, "mutation": mutant.mutation, "fate": fate,
                      "reason": reason[:200]}
            if args.json:
                print(json.dumps(record), flush=True)
            if fate in ("crash", "hang"):
                notable.append(record)
    finally:
        if server is not None:
            server.stop(grace=1.0).wait()
    memory_after = _current_mb()
    seconds = time.monotonic() - started
    if not args.json:
        where = "over gRPC" if args.grpc else "in process"
        print(f"{args.mutations:,} mutants of {len(sources)} files {where} in {seconds:.0f} s "
              f"(seed {args.seed}): " + ", ".join(f"{fates[f]:,} {f}" for f in FATES))
        for name, counts in sorted(by_mutation.items()):
            print(f"  {name:13} " + "  ".join(f"{f} {counts[f]:>5,}" for f in FATES))
        print(f"resident memory of this process: {memory_before:,.0f} MiB before, "
              f"{memory_after:,.0f} MiB after")
        if trace:
            print("  after every 100 mutants: " + ", ".join(f"{mb:,.0f}" for mb in trace))
        if registry is not None:
            print(f"the server's game cache: {len(registry.ids())} games, estimated "
                  f"{registry.held_bytes() / 2**20:,.0f} MiB")
        for record in notable:
            print(f"  {record['fate']}: {record['source']} ({record['mutation']}): "
                  f"{record['reason']}")
    return EXIT_FAILURE if notable else EXIT_OK
