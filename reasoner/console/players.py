"""The client library's players, matches and remote games, as the commands use them.

This is the one module of the command line (and of the workshop, :mod:`reasoner.workshop`)
that imports the client library (``client``): ``match``, ``player``, ``manage``, ``prove``,
``bench-players``, ``bench-gdl2``, ``bench-heuristics``, ``bench --grpc``,
``bench-service`` and ``web`` (:mod:`reasoner.web`) take the players, the match loop, the
GGP game manager and the remote client from here. The commands
import it inside the function that runs them, so that building the parser (``--help``) does
not load the client and gRPC.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

import grpc

from client import ReasonerClient, RemoteGame
from client.errors import RemoteError, ServerUnreachable, UnreadableCertificate
from client.ggp.game_manager import (
    MatchRecord,
    WebPublisher,
    ping,
    run_match,
    save,
    seated_roles,
    seats,
    tally,
)
from client.ggp.http_player import GgpPlayer, serve_player
from client.match import MatchStep, play_match
from client.players import HeuristicEvaluator, MctsPlayer, Player, RandomPlayer
from client.players.aostar import prove
from client.players.heuristic_values import VALUE_HEURISTICS
from client.players.sampling import SamplingPlayer
from client.players.strategies import STRATEGIES, make_player
from reasoner.console.common import CommandError, UsageError

__all__ = [
    "STRATEGIES",
    "VALUE_HEURISTICS",
    "GgpPlayer",
    "HeuristicEvaluator",
    "MatchRecord",
    "MatchStep",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "ReasonerClient",
    "RemoteGame",
    "SamplingPlayer",
    "WebPublisher",
    "make_player",
    "open_service",
    "ping",
    "play_match",
    "prove",
    "run_match",
    "save",
    "seated_roles",
    "seats",
    "serve_player",
    "service_client",
    "tally",
]


def open_service(args: argparse.Namespace, *, timeout: float | None = 60.0
                 ) -> ReasonerClient | None:
    """The client of a command's ``--server`` with its ``--tls-root``, ``--token`` and
    ``--connect-timeout`` (:func:`reasoner.console.common.server_options`), after one call
    that shows the server reachable and the token taken; None without ``--server``.

    Raises:
        UsageError: ``--tls-root`` or ``--token`` without ``--server``.
        CommandError: the server cannot be reached, the certificate file read, or the
            server refuses the token (one line that says which).
    """
    if args.server is None:
        if args.tls_root is not None or args.token is not None:
            raise UsageError("--tls-root and --token go with --server")
        return None
    try:
        client = ReasonerClient(args.server, timeout=timeout, tls_root=args.tls_root,
                                token=args.token, connect_timeout=args.connect_timeout)
    except UnreadableCertificate as error:
        raise UsageError(f"--tls-root: {error}") from None
    try:
        client.list_games()
    except ServerUnreachable as error:
        client.close()
        said = ServerUnreachable(error.target, error.seconds, error.tls, "--tls-root")
        raise CommandError(str(said)) from None
    except RemoteError as error:
        client.close()
        if error.code != grpc.StatusCode.UNAUTHENTICATED:
            raise
        hint = ("give --token" if args.token is None
                else "--token is not the one it was started with")
        raise CommandError(f"{args.server} refuses the call: {error.text} ({hint})") from None
    return client


@contextmanager
def service_client(args: argparse.Namespace, *, timeout: float | None = 60.0
                   ) -> Iterator[ReasonerClient]:
    """The client of a command's ``--server`` (:func:`open_service`), else of a reasoner
    service started in this process on a free loopback port; at the end the client is
    closed and that service stopped.

    Raises:
        UsageError, CommandError: as :func:`open_service`; or the service cannot start.
    """
    client = open_service(args, timeout=timeout)
    server = None
    if client is None:
        from reasoner.server.app import create_server

        try:
            server, port, _ = create_server("127.0.0.1:0", games=None)
        except OSError as error:
            raise CommandError(f"cannot start a reasoner service: {error}") from None
        client = ReasonerClient(f"127.0.0.1:{port}", timeout=timeout)
    try:
        yield client
    finally:
        client.close()
        if server is not None:
            server.stop(None)
