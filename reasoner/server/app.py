"""Start the service: ``create_server`` for tests and embedding, ``serve`` for the CLI."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent import futures
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import Any

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from reasoner.engine.limits import Limits, die_with_parent
from reasoner.errors import ReasonerError
from reasoner.heuristics.relaxed import DEFAULT_VIEW_BOUNDS, ViewBounds
from reasoner.server.admission import DEFAULT_HEAVY, HeavyGate, costly_gate
from reasoner.server.auth import TokenCheck
from reasoner.server.registry import DEFAULT_CACHE_BYTES, GameRegistry
from reasoner.server.service import (
    DEFAULT_CALL_SECONDS,
    DEFAULT_SESSION_IDLE_SECONDS,
    DEFAULT_SESSIONS,
    ReasonerService,
)
from reasoner.server.status import RequestError, abort
from reasoner.v1 import reasoner_pb2 as pb

__all__ = ["DEFAULT_LIMITS", "DEFAULT_REPLICA_RESTARTS", "ReplicaFailure", "create_server",
           "serve"]

log = logging.getLogger("gdl-reasoner")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Reasoner"].full_name
# Calls in progress or waiting for a thread: past this, a call is refused at once
# (RESOURCE_EXHAUSTED) rather than queued behind work it cannot see the end of.
DEFAULT_CONCURRENT_RPCS = 256
DEFAULT_LIMITS = Limits(seconds=60.0, memory_mb=4096, start_method="forkserver")


# Connection settings (see the README): at most 100 calls at once on one connection; a ping
# every 60 s on an idle connection, which is dropped when no answer comes within 20 s;
# clients may ping every 10 s, with or without calls.
KEEPALIVE: tuple[tuple[str, int], ...] = (
    ("grpc.max_concurrent_streams", 100),
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
)


def _handlers(service: ReasonerService) -> grpc.GenericRpcHandler:
    """Method handlers that decode requests themselves, so that garbage or truncated bytes
    get INVALID_ARGUMENT with the message type named (gRPC's own decoding answers INTERNAL).
    """
    descriptor = pb.DESCRIPTOR.services_by_name["Reasoner"]
    handlers = {}
    for method in descriptor.methods:
        request_class = getattr(pb, method.input_type.name)
        response_class = getattr(pb, method.output_type.name)
        behaviour = getattr(service, method.name)
        if method.client_streaming:  # Session decodes and encodes its messages itself
            handlers[method.name] = grpc.stream_stream_rpc_method_handler(
                behaviour, request_deserializer=None, response_serializer=None)
            continue
        # StreamSupersets answers a stream: its behaviour returns an iterator of messages.
        make = (grpc.unary_stream_rpc_method_handler if method.server_streaming
                else grpc.unary_unary_rpc_method_handler)
        handlers[method.name] = make(
            _decoding(behaviour, request_class),
            request_deserializer=None,
            response_serializer=_encoder(response_class),
        )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


def _encoder(response_class: Any) -> Callable[[Any], bytes]:
    """A method's answer as bytes: a message serialised, or bytes the service encoded
    itself (see :mod:`reasoner.server.encoded`) as they are."""
    serialize = response_class.SerializeToString

    def encode(answer: Any) -> bytes:
        return answer if isinstance(answer, bytes) else serialize(answer)

    return encode


def _decoding(behaviour: Callable[[Any, grpc.ServicerContext], Any],
              request_class: Any) -> Callable[[bytes, grpc.ServicerContext], Any]:
    def handle(raw: bytes, context: grpc.ServicerContext) -> Any:
        try:
            request = request_class.FromString(raw)
        except DecodeError as error:
            abort(context, RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                                        f"malformed {request_class.DESCRIPTOR.full_name} "
                                        f"message ({len(raw)} bytes): {error}",
                                        reason="malformed-message"))
        return behaviour(request, context)

    return handle


def preload(registry: GameRegistry, folder: Path) -> list[str]:
    """Load every ``.kif`` file of a folder; a file that fails is logged and skipped."""
    ids = []
    for path in sorted(folder.glob("*.kif")):
        try:
            loaded, _ = registry.load(path.read_text(encoding="utf-8", errors="replace"))
        except (ReasonerError, OSError) as error:
            log.warning("not serving %s: %s", path.name, error)
            continue
        log.info("serving %-20s %s", path.stem, loaded.id)
        ids.append(loaded.id)
    return ids


def create_server(
    address: str = "127.0.0.1:0",
    *,
    games: Path | None = None,
    max_games: int = 64,
    workers: int = 8,
    max_message_mb: int = 16,
    max_concurrent_rpcs: int = DEFAULT_CONCURRENT_RPCS,
    limits: Limits | None = DEFAULT_LIMITS,
    heuristic_bounds: ViewBounds = DEFAULT_VIEW_BOUNDS,
    cache_mb: int = DEFAULT_CACHE_BYTES // 2**20,
    max_heavy: int = DEFAULT_HEAVY,
    max_costly: int = DEFAULT_HEAVY,
    max_call_seconds: float = DEFAULT_CALL_SECONDS,
    max_sessions: int = DEFAULT_SESSIONS,
    session_idle_seconds: float = DEFAULT_SESSION_IDLE_SECONDS,
    tls: tuple[bytes, bytes] | None = None,
    token: str | None = None,
    reuse_port: bool = False,
) -> tuple[grpc.Server, int, GameRegistry]:
    """Build and start a server; returns it, the bound port and its game registry.

    Args:
        address: host:port to bind; port 0 picks a free port.
        games: A folder of ``.kif`` files to preload.
        max_games: Size of the game cache in games (least recently used games are
            evicted past it or past ``cache_mb``).
        workers: Threads answering requests; heavy calls have threads of their own
            besides (see ``max_heavy``).
        max_message_mb: Largest request or response in MiB (larger: RESOURCE_EXHAUSTED).
        max_concurrent_rpcs: Calls in progress or queued for a thread at once; one more
            is refused at once with RESOURCE_EXHAUSTED instead of waiting behind them.
        limits: Time and memory bounds for loading one game (None: unbounded). Bounded
            loads run in child processes of a fork server, so a script that calls this
            needs Python's `if __name__ == "__main__":` guard (multiprocessing's rule).
        heuristic_bounds: How large a game's relaxed view may get (Evaluate answers
            RESOURCE_EXHAUSTED beyond it).
        cache_mb: Size of the game cache in MiB (games weighed by their estimated
            memory, with the answers kept for them).
        max_heavy: Loads and groundings (LoadGame of a game not cached, Translate,
            Supersets, RelaxedLayers, Instantiate) that run at once; as many more wait,
            and one more is refused with RESOURCE_EXHAUSTED.
        max_costly: Costly calls (a Simulate of over 1,000 playouts, an Expand of over
            1,000 children, a Query or Next of over 1,000 states or joint moves, an Evaluate
            of over 100 states) that run at once, on threads of their own; as many more
            wait, and one more is refused with RESOURCE_EXHAUSTED.
        max_call_seconds: The longest a call works when its client sets no shorter
            deadline (then DEADLINE_EXCEEDED).
        max_sessions: Session streams open at once, each on a thread of its own; one more
            is refused with RESOURCE_EXHAUSTED.
        session_idle_seconds: A Session stream that sends no request for this long after
            its last answer ends with DEADLINE_EXCEEDED (reason "session-idle"), and its
            place is free again.
        tls: A PEM certificate chain and its private key: the port then speaks TLS only.
        token: Every call must carry ``authorization: Bearer <token>`` (else
            UNAUTHENTICATED; see :mod:`reasoner.server.auth`).
        reuse_port: Share the port with other processes that ask for it too (see
            :func:`serve`); off, a port in use is an error.
    """
    gate = HeavyGate(max_heavy)
    costly = costly_gate(max_costly)
    registry = GameRegistry(max_games=max_games, limits=limits,
                            max_bytes=cache_mb * 2**20, gate=gate)
    if games is not None:
        preload(registry, games)
    size = max_message_mb * 1024 * 1024
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers + gate.threads + costly.threads
                                   + max_sessions,
                                   thread_name_prefix="reasoner"),
        maximum_concurrent_rpcs=max_concurrent_rpcs,
        interceptors=[TokenCheck(token)] if token is not None else None,
        options=[("grpc.max_receive_message_length", size),
                 ("grpc.max_send_message_length", size),
                 ("grpc.so_reuseport", 1 if reuse_port else 0),
                 *KEEPALIVE],
    )
    service = ReasonerService(registry, heuristic_bounds, max_message_bytes=size,
                              max_call_seconds=max_call_seconds, max_sessions=max_sessions,
                              costly=costly,
                              session_idle_seconds=session_idle_seconds)
    server.add_generic_rpc_handlers((_handlers(service),))
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
         reflection.SERVICE_NAME), server)
    try:
        if tls is not None:
            chain, key = tls
            port = server.add_secure_port(address,
                                          grpc.ssl_server_credentials([(key, chain)]))
        else:
            port = server.add_insecure_port(address)
    except RuntimeError as error:  # gRPC's "Failed to bind to address"
        raise OSError(f"cannot bind {address}: {error}") from None
    if port == 0:
        raise OSError(f"cannot bind {address}")
    server.start()
    return server, port, registry


# A replica that dies is restarted, at most this many times within REPLICA_WINDOW seconds;
# one more death within the window stops the service (serve --replica-restarts).
DEFAULT_REPLICA_RESTARTS = 5
REPLICA_WINDOW = 60.0


class ReplicaFailure(RuntimeError):
    """The replicas of ``serve --processes`` died more often than they may be restarted."""


class _Replica:
    """One more server process on the port, with the pipe whose end tells it that this
    process has gone."""

    def __init__(self, context: Any, address: str, options: dict[str, Any]) -> None:
        alive, self._alive_here = context.Pipe(duplex=False)
        self.process = context.Process(target=_replica, args=(address, options, alive),
                                       name="gdl-reasoner-replica")
        self.process.start()
        alive.close()

    def close(self) -> None:
        self.process.join(10)
        self._alive_here.close()


# The interpreter's thread switch interval in a serving process (Python's default: 5 ms).
# A short call waits for the interpreter's lock behind a costly call's Python work (encoding
# playouts, say) once or more; 1 ms keeps that wait short (stress: a steady Query's p99 40 ms
# against 53 ms at 5 ms, one run each).
SWITCH_SECONDS = 0.001


def for_serving() -> None:
    """Tune this process for serving: :data:`SWITCH_SECONDS`."""
    sys.setswitchinterval(SWITCH_SECONDS)


def serve(host: str = "127.0.0.1", port: int = 50051, *, processes: int = 1,
          replica_restarts: int = DEFAULT_REPLICA_RESTARTS, **options: Any) -> None:
    """Run the service until SIGINT or SIGTERM, then shut down gracefully. ``options`` are
    :func:`create_server`'s; with ``processes`` above 1, that many server processes share
    the port (SO_REUSEPORT: the kernel spreads connections over them, each process with its
    own cache; a client meeting NOT_FOUND loads its game again), and the others end with
    this one. A replica that dies (a crash, the OOM killer, ``kill -9``) is logged with its
    exit status or signal and started again, at most ``replica_restarts`` times within a
    minute: one more death stops the service with a logged error (:class:`ReplicaFailure`).
    """
    for_serving()
    server, bound, registry = create_server(f"{host}:{port}", reuse_port=processes > 1,
                                            **options)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        del frame
        log.info("received %s, shutting down", signal.Signals(signum).name)
        stopping.set()

    # Before the line that says it listens: the server already answers, and a signal right
    # after that line must find the handler.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    log.info("gdl-reasoner listening on %s:%d with %d games loaded (%s)", host, bound,
             len(registry.ids()), _security(options))
    context = multiprocessing.get_context("spawn")
    address = f"{host}:{bound}"
    replicas = [_Replica(context, address, options) for _ in range(processes - 1)]
    failure: ReplicaFailure | None = None
    restarts: list[float] = []
    while not stopping.wait(0.5 if replicas else None):
        for index, replica in enumerate(replicas):
            if replica.process.is_alive():  # (is_alive reaps a replica that has ended)
                continue
            replica.close()
            now = time.monotonic()
            restarts = [moment for moment in restarts if now - moment < REPLICA_WINDOW]
            how = _exit_text(replica.process.exitcode)
            if len(restarts) >= replica_restarts:
                log.error("replica %d (pid %d) %s, and replicas were restarted %d times "
                          "within %g s already (serve --replica-restarts): stopping the "
                          "service", index + 1, replica.process.pid, how, len(restarts),
                          REPLICA_WINDOW)
                failure = ReplicaFailure(
                    f"replica {index + 1} (pid {replica.process.pid}) {how}, after "
                    f"{len(restarts)} restarts within {REPLICA_WINDOW:g} s")
                stopping.set()
                break
            log.warning("replica %d (pid %d) %s: starting another", index + 1,
                        replica.process.pid, how)
            restarts.append(now)
            replicas[index] = _Replica(context, address, options)
    for replica in replicas:
        if replica.process.is_alive():
            replica.process.terminate()
    server.stop(grace=5.0).wait()
    for replica in replicas:
        replica.close()
    if failure is not None:
        log.error("stopped: %s", failure)
        raise failure
    log.info("stopped")


def _exit_text(code: int | None) -> str:
    """How a process ended, from its exit code: its status, or the signal that ended it."""
    if code is None:
        return "ended"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _security(options: dict[str, Any]) -> str:
    """What the startup log says of TLS and the token, so that an operator sees at once
    whether the port is open to anyone."""
    tls = "TLS on" if options.get("tls") is not None else "TLS off"
    token = "token required" if options.get("token") is not None else "no token"
    return f"{tls}, {token}"


def _replica(address: str, options: dict[str, Any], alive: Connection) -> None:
    """One more server process on the same port, until SIGTERM or its parent's end."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    die_with_parent(alive)
    for_serving()
    server, _, registry = create_server(address, reuse_port=True, **options)
    log.info("gdl-reasoner replica %d listening on %s with %d games loaded (%s)",
             os.getpid(), address, len(registry.ids()), _security(options))
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it
    stopping.wait()
    server.stop(grace=5.0).wait()
