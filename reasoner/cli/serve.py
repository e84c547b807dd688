"""``serve``: the gRPC reasoner service."""

from __future__ import annotations

import argparse
from pathlib import Path

from reasoner.console.common import EXIT_OK, CommandError, Commands, UsageError, bundled_games
from reasoner.console.numbers import MEBIBYTES, MESSAGE_MEBIBYTES, PORT, at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``serve``."""
    p = commands.add_parser("serve", help="run the gRPC reasoner service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=PORT, default=50051, help="0 picks a free port")
    p.add_argument("--games", default=_bundled_folder(),
                   help="folder of .kif files to preload (default: the bundled games)")
    p.add_argument("--max-games", type=at_least(1), default=64,
                   help="size of the game cache in games")
    p.add_argument("--cache-mb", type=MEBIBYTES, default=4096,
                   help="size of the game cache in MiB (games weighed by their estimated "
                        "memory); least recently used games are evicted past either size")
    p.add_argument("--max-heavy", type=at_least(1), default=2,
                   help="loads and groundings that run at once, on threads of their own; "
                        "as many more wait, one more is refused with RESOURCE_EXHAUSTED")
    p.add_argument("--max-costly", type=at_least(1), default=2,
                   help="costly calls (a Simulate of over 1,000 playouts, an Expand of over "
                        "1,000 children, a Query or Next of over 1,000 states, an Evaluate "
                        "of over 100 states) that run at once, on threads of their own; as "
                        "many more wait, one more is refused with RESOURCE_EXHAUSTED")
    p.add_argument("--tls-cert", help="PEM certificate chain: the port speaks TLS only")
    p.add_argument("--tls-key", help="the certificate's PEM private key")
    p.add_argument("--token-file",
                   help="a file whose first line is a token every call must carry as "
                        "`authorization: Bearer <token>` (else UNAUTHENTICATED)")
    p.add_argument("--processes", type=at_least(1), default=1,
                   help="server processes sharing the port (SO_REUSEPORT), for every core")
    p.add_argument("--replica-restarts", type=at_least(0), default=5,
                   help="with --processes, a replica that dies is logged and started again, "
                        "this many times within a minute at most; one more death stops the "
                        "service (exit 1)")
    p.add_argument("--max-sessions", type=at_least(1), default=16,
                   help="Session streams open at once, each on a thread of its own")
    p.add_argument("--session-idle-seconds", type=seconds(), default=300.0,
                   help="a Session stream that sends no request for this long ends with "
                        "DEADLINE_EXCEEDED and gives its place back")
    p.add_argument("--max-call-seconds", type=seconds(), default=600.0,
                   help="the longest a call works when its client sets no shorter deadline")
    p.add_argument("--workers", type=at_least(1), default=8, help="threads serving requests")
    p.add_argument("--max-message-mb", type=MESSAGE_MEBIBYTES, default=16,
                   help="largest request or response in MiB")
    p.add_argument("--max-concurrent-rpcs", type=at_least(1), default=256,
                   help="calls in progress or queued at once; one more is refused with "
                        "RESOURCE_EXHAUSTED")
    p.add_argument("--gpu", action="store_true",
                   help="run Simulate's playouts (4,096 or more) on an NVIDIA GPU where CuPy "
                        "finds one (pip install .[gpu]); else, and on any GPU failure, the "
                        "CPU runs them, with a log line")
    p.set_defaults(run=_serve)


def _bundled_folder() -> str | None:
    folder = bundled_games()
    return str(folder) if folder is not None else None


def _serve(args: argparse.Namespace) -> int:
    import logging

    from reasoner.server.app import ReplicaFailure, serve
    from reasoner.server.tls import TlsFileError, check_tls

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if args.gpu:
        import os

        from reasoner.propnet.gpu import GPU_ENV

        os.environ[GPU_ENV] = "1"  # read by every game's machine, here and in --processes
    games = Path(args.games) if args.games else None
    if games is not None and not games.is_dir():
        raise UsageError(f"--games {games} is not a folder")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise UsageError("--tls-cert and --tls-key go together")
    try:  # checked before any game is loaded: a bad pair is one line, exit 2
        tls = check_tls(Path(args.tls_cert), Path(args.tls_key)) if args.tls_cert else None
    except TlsFileError as error:
        raise UsageError(f"TLS: {error}") from None
    try:
        token = (Path(args.token_file).read_text(encoding="utf-8").splitlines() or [""])[0] \
            if args.token_file else None
    except OSError as error:
        raise UsageError(f"cannot read {error.filename}: {error.strerror}") from None
    if token is not None and not token.strip():
        raise UsageError(f"--token-file {args.token_file} has no token on its first line")
    try:
        serve(args.host, args.port, processes=args.processes,
              replica_restarts=args.replica_restarts, games=games,
              max_games=args.max_games,
              workers=args.workers, max_message_mb=args.max_message_mb,
              max_concurrent_rpcs=args.max_concurrent_rpcs, cache_mb=args.cache_mb,
              max_heavy=args.max_heavy, max_costly=args.max_costly,
              max_call_seconds=args.max_call_seconds,
              max_sessions=args.max_sessions,
              session_idle_seconds=args.session_idle_seconds, tls=tls,
              token=token.strip() if token is not None else None)
    except OSError as error:
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {error}") from None
    except ReplicaFailure as error:
        raise CommandError(f"stopped: {error}") from None
    return EXIT_OK
