"""``ReasonerClient``: typed access to a reasoner service.

>>> with ReasonerClient("127.0.0.1:50051") as reasoner:          # doctest: +SKIP
...     game = reasoner.load_game(open("games/tictactoe.kif").read())
...     state = game.initial_state()
...     info = game.info(state)
...     state, info = game.step(state, (info.legal[0][0], info.legal[1][0]))

Games are named by content hash, so a client that still has a game's text reloads it
transparently when the server does not know the id (a restarted or evicting server).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from client.errors import ServerUnreachable, UnreadableCertificate, error_from_rpc
from client.game_session import GameSession
from client.question import Question
from client.session import SessionStream
from client.values import (
    Analysis,
    Board,
    Chain,
    Feature,
    GddlFiles,
    HeuristicInfo,
    HeuristicParameter,
    Order,
    Quantity,
    StepCounter,
)
from reasoner.arguments import ArgumentError
from reasoner.core.backend_reason import BackendReason, ReasonStep
from reasoner.core.evaluation import Evaluation, PlanStep
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import State, StateInfo, move_key
from reasoner.core.walk import Simulation, StepPercepts
from reasoner.errors import IllegalMoveError, UnknownGameError
from reasoner.v1 import reasoner_pb2 as pb
from reasoner.v1 import reasoner_pb2_grpc as pb_grpc

__all__ = ["GameSummary", "ReasonerClient", "RemoteGame", "TlsRoot", "read_tls_root"]

T = TypeVar("T")
# How often a call reloads its game and is tried again after NOT_FOUND (once per replica
# that may not hold it yet).
_RELOADS = 4
_MAX_MESSAGE = 64 * 1024 * 1024
# What a client's tls_root may be: the PEM bytes, or the path of a file that holds them.
TlsRoot = bytes | str | os.PathLike[str]


def _count(name: str, value: int) -> int:
    """``value`` as a uint32 field, or a ValueError naming it (protobuf's own says only
    "Value out of range"); the server checks the field's real range."""
    if not 0 <= value < 2**32:
        raise ArgumentError(f"{name} must be from 0 to {2**32 - 1}, got {value}",
                            argument=name, value=value, allowed=range(2**32))
    return value


def _info(message: pb.StateInfo) -> StateInfo:
    return StateInfo(
        legal=tuple(tuple(m.ids) for m in message.legal),
        terminal=message.terminal,
        goals=tuple(tuple(g.values) for g in message.goals),
    )


def _recorded_percepts(lengths: Sequence[int], roles: int, counts: Sequence[int],
                       ids: Sequence[int]) -> list[tuple[StepPercepts, ...]]:
    """Per playout, per joint move, per role: the percept ids of PlayoutColumns'
    percept_counts and percept_ids (empty for every role where the game sent none, a
    plain GDL game).

    >>> _recorded_percepts([2, 0], 2, [1, 0, 0, 2], [5, 3, 4])
    [(((5,), ()), ((), (3, 4))), ()]
    """
    if not counts:
        nothing = tuple(() for _ in range(roles))
        return [tuple(nothing for _ in range(length)) for length in lengths]
    found: list[tuple[StepPercepts, ...]] = []
    count_at = id_at = 0
    for length in lengths:
        steps = []
        for _ in range(length):
            seen = []
            for count in counts[count_at:count_at + roles]:
                seen.append(tuple(ids[id_at:id_at + count]))
                id_at += count
            count_at += roles
            steps.append(tuple(seen))
        found.append(tuple(steps))
    return found


def _summaries(r: pb.SimulateResponse) -> list[PlayoutSummary]:
    return [PlayoutSummary(
        playouts=s.playouts, terminal=s.terminal, total_length=s.total_length,
        goal_counts=tuple(dict(zip(g.values, g.playouts, strict=True)) for g in s.goals),
        updates=s.updates) for s in r.summaries]


def _message(state: State) -> pb.State:
    """A state as the service reads it: the ids of the fluents that hold."""
    return pb.State(fluents=state.fluent_ids())


def _analysis(message: pb.AnalyzeGameResponse) -> Analysis:
    return Analysis(
        successors=tuple(Chain(c.relation, tuple(c.elements)) for c in message.successors),
        orders=tuple(Order(o.relation, o.pairs, o.successor) for o in message.orders),
        step_counters=tuple(StepCounter(c.function, c.successor)
                            for c in message.step_counters),
        boards=tuple(Board(b.function, b.arity, tuple(b.inputs), tuple(b.outputs),
                           tuple(b.orderings), b.cells, tuple(b.markers), tuple(b.pieces))
                     for b in message.boards),
        quantities=tuple(Quantity(q.function, q.arity, q.position, q.successor)
                         for q in message.quantities),
        turn_taking=message.turn_taking,
        noop_moves={n.role: tuple(n.moves) for n in message.noop_moves},
        teams=tuple(tuple(t.roles) for t in message.teams),
        features=tuple(Feature(f.name, f.description) for f in message.features),
        heuristics=tuple(HeuristicInfo(
            h.name, h.summary,
            tuple(HeuristicParameter(p.name, p.default, p.allowed) for p in h.parameters),
            h.plans) for h in message.heuristics),
        states_seen=message.states_seen,
        terminal_states_seen=message.terminal_states_seen,
        elapsed_ms=message.elapsed_ms)


def read_tls_root(tls_root: TlsRoot) -> bytes:
    """The PEM bytes of a ``tls_root``: bytes as they are, a path's file read.

    Raises:
        UnreadableCertificate: the file cannot be read, or holds no PEM certificate (the
            message names it).
    """
    if isinstance(tls_root, bytes):
        return tls_root
    path = os.fspath(tls_root)
    try:
        with open(path, "rb") as file:
            pem = file.read()
    except OSError as error:
        raise UnreadableCertificate(path, error.strerror or type(error).__name__) from None
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        raise UnreadableCertificate(path, "it holds no PEM certificate")
    return pem


def _service_config(balance: bool) -> dict[str, Any]:
    """The channel's service config: retries of UNAVAILABLE calls, round_robin on demand."""
    config: dict[str, Any] = {"methodConfig": [{
        "name": [{"service": "reasoner.v1.Reasoner"}],
        "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.05s", "maxBackoff": "1s",
                        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
    if balance:
        config["loadBalancingConfig"] = [{"round_robin": {}}]
    return config


class _Bearer(grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
              grpc.StreamStreamClientInterceptor):  # type: ignore[misc]
    """Adds ``authorization: Bearer <token>`` to every call."""

    def __init__(self, token: str) -> None:
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details: Any) -> Any:
        metadata = [*(details.metadata or ()), self._header]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any,
                              request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_stream(self, continuation: Callable[..., Any], details: Any,
                                requests: Any) -> Any:
        return continuation(self._details(details), requests)


@dataclass(frozen=True)
class GameSummary:
    """A game a server holds (see :meth:`ReasonerClient.list_games`)."""

    id: str
    roles: tuple[str, ...]
    fluents: int
    moves: int
    backend: str


class ReasonerClient:
    """A connection to a reasoner service."""

    def __init__(self, target: str, *, timeout: float | None = 60.0,
                 tls_root: TlsRoot | None = None, token: str | None = None,
                 balance: bool = False, connect_timeout: float | None = 5.0) -> None:
        """Args:
            target: host:port of the service, or several replicas as gRPC names them
                (``ipv4:127.0.0.1:50051,127.0.0.1:50052``, or a DNS name with several
                addresses).
            timeout: Deadline in seconds for each call (None: no deadline).
            tls_root: PEM root certificate(s) to trust, as bytes or as the path of a file
                (str or os.PathLike) that holds them: the channel speaks TLS (b"" trusts
                the system's roots). A file that cannot be read raises
                :class:`client.errors.UnreadableCertificate`, naming it.
            connect_timeout: Seconds to wait for a connection before the first call, and
                again after a call that found the server gone (a server that restarts
                within it is waited for); past it, the call raises
                :class:`client.errors.ServerUnreachable`, naming the target. None: as long
                as ``timeout``. At most ``timeout`` either way.
            token: Sent with every call as ``authorization: Bearer <token>``.
            balance: Spread calls over every address of ``target`` (gRPC's round_robin
                policy) instead of keeping to the first that answers. Either way, a call
                that meets an unavailable replica is tried again on another (a retry policy
                for UNAVAILABLE: every call of the service can be repeated), and a game
                that a replica does not hold is loaded there again.
        """
        self.target = target
        self.timeout = timeout
        # How many replicas the target names ("ipv4:a,b,c"), 1 for a plain host:port.
        scheme, _, addresses = target.partition(":")
        self.replicas = addresses.count(",") + 1 if scheme in ("ipv4", "ipv6") else 1
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", _MAX_MESSAGE),
            ("grpc.max_send_message_length", _MAX_MESSAGE),
            ("grpc.enable_retries", 1),
            ("grpc.service_config", json.dumps(_service_config(balance)))]
        self.tls = tls_root is not None
        self.connect_timeout = connect_timeout
        if tls_root is not None:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=read_tls_root(tls_root) or None)
            self._bare = grpc.secure_channel(target, credentials, options=options)
        else:
            self._bare = grpc.insecure_channel(target, options=options)
        # Whether the channel has been seen connected since it last lost the server (read
        # and written without a lock: at worst two threads both wait for the connection).
        self._connected = False
        self._channel = self._bare
        if token is not None:
            self._channel = grpc.intercept_channel(self._bare, _Bearer(token))
        self._stub = pb_grpc.ReasonerStub(self._channel)  # type: ignore[no-untyped-call]

    def __enter__(self) -> ReasonerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    def connect(self) -> None:
        """Wait for a connection to the server, up to the connect timeout (at once when
        the channel is known to be connected).

        Raises:
            ServerUnreachable: no connection within the connect timeout.
        """
        if self._connected:
            return
        wait = self.connect_timeout if self.connect_timeout is not None else self.timeout
        if wait is not None and self.timeout is not None:
            wait = min(wait, self.timeout)
        ready = grpc.channel_ready_future(self._bare)
        try:
            ready.result(timeout=wait)
        except grpc.FutureTimeoutError:
            ready.cancel()  # stops watching the channel
            raise ServerUnreachable(self.target, wait, self.tls) from None
        self._connected = True

    def call(self, method: str, request: Any) -> Any:
        """One call, once the server is reachable (see :meth:`connect`); a call that finds
        the server gone (UNAVAILABLE, past the channel's own retries) waits for it as
        long again and is made once more. A failed call raises the matching
        :mod:`reasoner.errors` class."""
        return self._reached(lambda: getattr(self._stub, method)(request,
                                                                  timeout=self.timeout))

    def collect(self, method: str, request: Any) -> list[Any]:
        """Every message of a server-streaming call, in order, with :meth:`call`'s wait
        for the server and its errors."""
        return self._reached(lambda: list(getattr(self._stub, method)(request,
                                                                       timeout=self.timeout)))

    def _reached(self, make: Callable[[], T]) -> T:
        """``make()``, after :meth:`connect`, and again after a new :meth:`connect` when it
        met UNAVAILABLE (every call of the service can be repeated)."""
        self.connect()
        try:
            return make()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise error_from_rpc(error) from None
        self._connected = False
        self.connect()
        try:
            return make()
        except grpc.RpcError as error:
            raise error_from_rpc(error) from None

    def load_game(self, gdl: str, *, case_sensitive: bool = False,
                  lenient: bool = False, backend: str = "auto",
                  strict: bool = False) -> RemoteGame:
        """Load a game (idempotent) and return a handle with its tables.

        ``backend`` is "clingo", "native" (the network on the compiled kernel), "propnet"
        (the network as Python), "position" (each position ground as it is asked, for games
        too large to ground once), "compiled" (the rules compiled to C, position by
        position), "topdown" (each position answered by SWI-Prolog) or "auto" (the network
        when it builds within its bounds, on the kernel where it is built, else clingo,
        else compiled or topdown, else position); :attr:`RemoteGame.backend` says
        which one answers.
        ``strict`` refuses what the default reading accepts with a warning (a name with two
        arities, a connective inside a term, a flat base fact).
        """
        options = pb.LoadOptions(case_sensitive=case_sensitive, lenient=lenient,
                                 backend=backend, strict=strict)
        response = self.call("LoadGame", pb.LoadGameRequest(gdl=gdl, options=options))
        return RemoteGame(self, response.game, gdl, options)

    def session(self, *, timeout: float | None = None, batch: int = 256) -> SessionStream:
        """Open a Session stream (many requests in flight on one call, up to ``batch`` of
        those waiting sent in one message; see :class:`client.session.SessionStream`);
        close it, or use it in a ``with``.

        Raises:
            ServerUnreachable: as :meth:`connect`.
        """
        self.connect()
        return SessionStream(self._channel, timeout=timeout, batch=batch)

    def list_games(self) -> list[GameSummary]:
        """The games the server holds now, least recently used first."""
        response = self.call("ListGames", pb.ListGamesRequest())
        return [GameSummary(g.game_id, tuple(g.roles), g.fluents, g.moves, g.backend)
                for g in response.games]

    def translate(self, gdl: str, *, relaxed: bool = False) -> str:
        """The ASP program of a GDL text."""
        response = self.call("Translate", pb.TranslateRequest(gdl=gdl, relaxed=relaxed))
        return str(response.program) + str(response.relaxed_program)


class RemoteGame:
    """A game loaded on the service: its tables, and the state queries."""

    def __init__(self, client: ReasonerClient, info: pb.GameInfo, gdl: str | None,
                 options: pb.LoadOptions | None = None) -> None:
        self._client = client
        self._gdl = gdl
        self._options = options or pb.LoadOptions()
        self._demanded: tuple[str, ...] | None = None  # of the supersets, once streamed
        self.id: str = info.game_id
        self.roles: tuple[str, ...] = tuple(info.roles)
        self.fluents: tuple[str, ...] = tuple(info.fluents)
        self.move_texts: tuple[str, ...] = tuple(m.text for m in info.moves)
        self.move_role: tuple[int, ...] = tuple(m.role for m in info.moves)
        self.warnings: tuple[str, ...] = tuple(info.warnings)
        # The backend that answers ("native", "clingo", "propnet", "compiled", "topdown" or
        # "position") and why auto chose another than the network on the kernel.
        self.backend: str = info.statistics.backend
        self.backend_note: str = info.statistics.backend_note
        self.backend_reason = BackendReason(tuple(
            ReasonStep(step.backend, step.reason, step.then, step.bound, step.relation)
            for step in info.statistics.backend_steps))
        self._by_text = {(self.roles[r], t): i
                         for i, (r, t) in enumerate(zip(self.move_role, self.move_texts,
                                                        strict=True))}
        # GDL-II: whether the game has sees rules or nature, nature's role name (None when
        # there is none), and the percept table (percept id i: the role that perceives it
        # and its GDL text).
        self.is_gdl2: bool = info.gdl2
        self.random_role: str | None = info.random_role or None
        self.percept_table: tuple[tuple[str, str], ...] = tuple(
            (self.roles[p.role], p.text) for p in info.percepts)

    # -- tables --------------------------------------------------------------------------

    def role_index(self, role: str) -> int:
        return self.roles.index(role)

    def move_id(self, role: str, text: str) -> int:
        """The id of a move given as GDL text, read as the game was loaded (names
        case-insensitively unless it was loaded case-sensitively; spacing is free), as
        ``Game.move`` reads it in the engine.

        Raises:
            IllegalMoveError: an unknown role, a malformed text, or a move the role can
                never make (``role`` is set).
        """
        if role not in self.roles:
            raise IllegalMoveError(f"unknown role {role!r}; the roles are {list(self.roles)}",
                                   role=role, reason="unknown-role")
        key = move_key(role, text, case_sensitive=self._options.case_sensitive)
        found = self._by_text.get((role, key))
        if found is None:
            raise IllegalMoveError(f"{role} can never play {key} in this game", role=role,
                                   reason="never-legal")
        return found

    def describe_state(self, state: State) -> list[str]:
        """The fluents that hold in ``state``, as GDL text, in table order."""
        return [self.fluents[i] for i in state.fluent_ids()]

    def describe_joint(self, joint: tuple[int, ...]) -> list[str]:
        """The moves of a joint move (ids, role order) as GDL text."""
        return [self.move_texts[i] for i in joint]

    def _state(self, message: pb.State) -> State:
        """A state the service sent, over this game's fluent table."""
        bits = 0
        for index in message.fluents:
            bits |= 1 << index
        return State(bits, self.fluents)

    # -- queries -------------------------------------------------------------------------

    def _call(self, method: str, make: Callable[[], Any], *, stream: bool = False) -> Any:
        """One call of this game (``stream``: a server-streaming one, its messages as a
        list), the game loaded again where the server no longer holds it."""
        send = self._client.collect if stream else self._client.call
        for attempt in range(1, _RELOADS + 1):
            try:
                return send(method, make())
            except UnknownGameError:
                if self._gdl is None:
                    raise
                # The server restarted or evicted the game, or this call went to another
                # replica: load it again, then retry. Behind round_robin the loads and the
                # calls take turns over the replicas, so the game is loaded once for each
                # replica named in the target (a load per turn reaches every one; one load
                # would land on the same other replica each time); where the target does
                # not say how many there are (a proxy), twice and once more on each attempt.
                for _ in range(max(attempt + 1, self._client.replicas)):
                    self._client.call("LoadGame", pb.LoadGameRequest(gdl=self._gdl,
                                                                     options=self._options))
        return send(method, make())

    def _ask(self, question: Question[T]) -> T:
        """A question asked as its own call."""
        return question.answer(self._call(question.method, question.request))

    def session(self, *, timeout: float | None = None, batch: int = 256) -> GameSession:
        """A Session stream on which this game's questions are asked with many in flight:
        :class:`client.game_session.GameSession` (its methods are this game's, each
        returning a future of the same answer); close it, or use it in a ``with``."""
        return GameSession(self, self.stream(timeout=timeout, batch=batch))

    def stream(self, *, timeout: float | None = None, batch: int = 256) -> SessionStream:
        """A bare Session stream on this game's client (requests as protobuf messages: see
        :class:`client.session.SessionStream`)."""
        return self._client.session(timeout=timeout, batch=batch)

    def initial_state(self) -> State:
        return self.initial()[0]

    def initial(self) -> tuple[State, StateInfo]:
        """The initial state and what it answers."""
        return self._ask(self.initial_question())

    def info(self, state: State) -> StateInfo:
        """Legal moves per role, terminal status and goals of a state."""
        return self._ask(self.info_question(state))

    def info_many(self, states: Sequence[State]) -> list[StateInfo]:
        """The answers of many states in one call, in order."""
        return self._ask(self.info_many_question(states))

    def step(self, state: State, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[State, StateInfo]:
        """The successor under one joint move (move ids in role order) and its info."""
        return self._ask(self.step_question(state, joint, check_legal=check_legal))

    def step_many(self, state: State, joints: Sequence[tuple[int, ...]], *,
                  check_legal: bool = True) -> list[tuple[State, StateInfo]]:
        """Successors under several joint moves, in one call."""
        return self._ask(self.step_many_question(state, joints, check_legal=check_legal))

    def percepts(self, state: State, joint: tuple[int, ...], *,
                 check_legal: bool = True) -> tuple[tuple[int, ...], ...]:
        """GDL-II: per role (role order), the ids (into :attr:`percept_table`) of the
        percepts that role receives when ``joint`` (move ids) is played in ``state``, as
        :meth:`reasoner.Game.percept_ids` answers in process; none for any role of a plain
        game. One Next call.

        Raises:
            IllegalMoveError: with ``check_legal``, a move that is not legal in ``state``.
        """
        return self._ask(self.percepts_question(state, joint, check_legal=check_legal))

    def sample_information_set(self, role: str,
                               history: Sequence[tuple[str, Sequence[str]]],
                               count: int = 1, *, seed: int = 0, max_nodes: int = 0
                               ) -> tuple[list[State], int, bool]:
        """GDL-II: up to ``count`` states of ``role``'s information set after ``history``
        (per turn, the move it played as GDL text and the percepts it received after it),
        found by the server's seeded search (see ``reasoner.engine.information_set``)
        within ``max_nodes`` joint moves tried (0: the server's default, 100,000); with the
        joint moves tried and whether the budget ran out before ``count`` states were found.

        Raises:
            IllegalMoveError: an unknown role, or a move the role can never make.
            InvalidStateError: no state explains the history (the message names the turn).
            ResourceLimitError: the budget ran out before any state was found.
            ValueError: ``count`` or ``max_nodes`` negative or out of the field's range.
        """
        return self._ask(self.sample_information_set_question(
            role, history, count, seed=seed, max_nodes=max_nodes))

    def expand(self, state: State
               ) -> tuple[StateInfo, list[tuple[tuple[int, ...], State, StateInfo]]]:
        """The state's info and every legal joint move with its successor."""
        return self._ask(self.expand_question(state))

    def simulate(self, state: State | None = None, playouts: int = 1, seed: int = 0,
                 max_steps: int = 1000, *, record: bool = False,
                 record_percepts: bool = False) -> Simulation:
        """Seeded random playouts run inside the server (from the initial state by
        default), as :meth:`reasoner.Game.simulate` plays them in process (see
        :meth:`reasoner.core.game_view.GameView.simulate`): the same arguments, the same
        seed taken modulo 2**64, the same :class:`~reasoner.core.walk.Simulation`;
        ``elapsed_ms`` is the server's. ``max_steps`` 0 is the service's default (1,000).

        GDL-II: with ``record`` and ``record_percepts``, ``percepts[i][k][r]`` (and each
        :class:`~reasoner.core.walk.Playout`'s ``percepts``) are the percept ids (into
        :attr:`percept_table`) role ``r`` received after joint move ``k`` of playout ``i``;
        in a plain game every role's are empty. The playouts are those without it (the
        random role's moves drawn uniformly, as every role's).

        Raises:
            ValueError: ``playouts`` or ``max_steps`` negative or past 32 bits, or
                ``record_percepts`` without ``record``.
        """
        return self._ask(self.simulate_question(state, playouts, seed, max_steps,
                                                record=record,
                                                record_percepts=record_percepts))

    def summarize(self, state: State | None = None, playouts: int = 1, seed: int = 0,
                  max_steps: int = 1000) -> PlayoutSummary:
        """The totals of seeded random playouts run inside the server from ``state`` (the
        initial state by default): the same playouts as :meth:`simulate`'s with the same
        arguments, as one :class:`reasoner.core.playout_summary.PlayoutSummary` (the type
        ``Game.summarize`` returns in process). The answer is a few hundred bytes for any
        number of playouts: the way to ask for a million at once.

        Raises:
            ValueError: ``playouts`` or ``max_steps`` negative or past 32 bits.
        """
        return self._ask(self.summarize_question(state, playouts, seed, max_steps))

    def summarize_many(self, starts: Sequence[tuple[State, int]], *, seed: int = 0,
                       max_steps: int = 1000) -> list[PlayoutSummary]:
        """:meth:`summarize` for many states in one call: ``(state, count)`` each, start
        ``i`` with the seed ``seed + i`` (as :meth:`simulate_many`); one summary per start."""
        return self._ask(self.summarize_many_question(starts, seed=seed, max_steps=max_steps))

    def simulate_many(self, starts: Sequence[tuple[State, int]], *, seed: int = 0,
                      max_steps: int = 1000, record: bool = False) -> Simulation:
        """Playouts from many states in one call: ``(state, count)`` each, start ``i`` with
        the seed ``seed + i``; the result holds every start's playouts in order (flat Monte
        Carlo over the children of a position is one call). Seeds and counts as
        :meth:`simulate`'s."""
        return self._ask(self.simulate_many_question(starts, seed=seed, max_steps=max_steps,
                                                     record=record))

    def evaluate(self, states: Sequence[State], role: str, heuristic: str,
                 parameters: Mapping[str, object] | None = None, *, plan: bool = False,
                 previous: State | None = None) -> list[Evaluation]:
        """A heuristic's values of ``states`` for ``role`` (see ``EvaluateRequest`` in the
        proto for the heuristics and their parameters), in one call: what
        :meth:`reasoner.Game.evaluate` answers in process."""
        return self._ask(self.evaluate_question(states, role, heuristic, parameters,
                                                plan=plan, previous=previous))

    # -- the questions: each query's request and how its answer reads -------------------
    # (asked as calls by the methods above, and on a Session stream by GameSession)

    def initial_question(self) -> Question[tuple[State, StateInfo]]:
        return Question("InitialState", "initial_state",
                        lambda: pb.InitialStateRequest(game_id=self.id),
                        lambda r: (self._state(r.state), _info(r.info)))

    def info_question(self, state: State) -> Question[StateInfo]:
        return Question("Query", "query",
                        lambda: pb.QueryRequest(game_id=self.id, state=_message(state)),
                        lambda r: _info(r.info))

    def info_many_question(self, states: Sequence[State]) -> Question[list[StateInfo]]:
        return Question("Query", "query",
                        lambda: pb.QueryRequest(game_id=self.id,
                                                states=[_message(s) for s in states]),
                        lambda r: [_info(info) for info in r.infos])

    def step_question(self, state: State, joint: tuple[int, ...], *,
                      check_legal: bool = True) -> Question[tuple[State, StateInfo]]:
        many = self.step_many_question(state, [joint], check_legal=check_legal)
        return Question(many.method, many.field, many.request,
                        lambda r: many.answer(r)[0])

    def step_many_question(self, state: State, joints: Sequence[tuple[int, ...]], *,
                           check_legal: bool = True
                           ) -> Question[list[tuple[State, StateInfo]]]:
        return Question("Next", "next",
                        lambda: pb.NextRequest(
                            game_id=self.id, state=_message(state),
                            joint_moves=[pb.JointMove(moves=j) for j in joints],
                            check_legal=check_legal),
                        lambda r: [(self._state(s.state), _info(s.info))
                                   for s in r.successors])

    def percepts_question(self, state: State, joint: tuple[int, ...], *,
                          check_legal: bool = True) -> Question[tuple[tuple[int, ...], ...]]:
        roles = len(self.roles)

        def answer(r: pb.NextResponse) -> tuple[tuple[int, ...], ...]:
            (successor,) = r.successors
            if not successor.percepts:  # a plain game: nobody perceives anything
                return tuple(() for _ in range(roles))
            return tuple(tuple(p.percept_ids) for p in successor.percepts)

        return Question("Next", "next",
                        lambda: pb.NextRequest(game_id=self.id, state=_message(state),
                                               joint_moves=[pb.JointMove(moves=joint)],
                                               check_legal=check_legal),
                        answer)

    def sample_information_set_question(
            self, role: str, history: Sequence[tuple[str, Sequence[str]]], count: int = 1,
            *, seed: int = 0, max_nodes: int = 0) -> Question[tuple[list[State], int, bool]]:
        _count("count", count)
        if not 0 <= max_nodes < 2**64:
            raise ArgumentError(f"max_nodes must be from 0 to {2**64 - 1}, got {max_nodes}",
                                argument="max_nodes", value=max_nodes,
                                allowed=range(2**64))
        turns = [pb.HistoryTurn(move=move, percepts=list(percepts))
                 for move, percepts in history]
        return Question("SampleInformationSet", "sample_information_set",
                        lambda: pb.SampleInformationSetRequest(
                            game_id=self.id, role=role, history=turns, count=count,
                            seed=seed % 2**64, max_nodes=max_nodes),
                        lambda r: ([self._state(s) for s in r.states], int(r.nodes),
                                   bool(r.exhausted)))

    def expand_question(self, state: State) -> Question[
            tuple[StateInfo, list[tuple[tuple[int, ...], State, StateInfo]]]]:
        return Question("Expand", "expand",
                        lambda: pb.ExpandRequest(game_id=self.id, state=_message(state)),
                        lambda r: (_info(r.info),
                                   [(tuple(c.joint_move.moves), self._state(c.successor.state),
                                     _info(c.successor.info)) for c in r.children]))

    def simulate_question(self, state: State | None, playouts: int, seed: int,
                          max_steps: int, *, record: bool = False,
                          record_percepts: bool = False) -> Question[Simulation]:
        _count("playouts", playouts)
        _count("max_steps", max_steps)
        if record_percepts and not record:
            raise ArgumentError("record_percepts needs record=True: percepts are recorded "
                                "per joint move of each trajectory",
                                argument="record_percepts", value=True,
                                reason="conflicting-arguments")

        def request() -> pb.SimulateRequest:
            message = pb.SimulateRequest(game_id=self.id, playouts=playouts, seed=seed % 2**64,
                                         max_steps=max_steps, record_trajectories=record,
                                         record_percepts=record_percepts, columns=True)
            if state is None:
                message.from_initial = True
            else:
                message.state.CopyFrom(_message(state))
            return message

        return Question("Simulate", "simulate", request,
                        lambda r: self._simulation(r, record, record_percepts))

    def simulate_many_question(self, starts: Sequence[tuple[State, int]], *, seed: int,
                               max_steps: int, record: bool) -> Question[Simulation]:
        _count("max_steps", max_steps)
        for index, (_, count) in enumerate(starts):
            _count(f"starts[{index}] count", count)

        def request() -> pb.SimulateRequest:
            return pb.SimulateRequest(
                game_id=self.id, seed=seed % 2**64, max_steps=max_steps,
                record_trajectories=record,
                columns=True, starts=[pb.SimulateStart(state=_message(s),
                                                       playouts=count)
                                      for s, count in starts])

        return Question("Simulate", "simulate", request,
                        lambda r: self._simulation(r, record))

    def summarize_question(self, state: State | None, playouts: int, seed: int,
                           max_steps: int) -> Question[PlayoutSummary]:
        _count("playouts", playouts)
        _count("max_steps", max_steps)

        def request() -> pb.SimulateRequest:
            message = pb.SimulateRequest(game_id=self.id, playouts=playouts, seed=seed % 2**64,
                                         max_steps=max_steps, summary=True)
            if state is None:
                message.from_initial = True
            else:
                message.state.CopyFrom(_message(state))
            return message

        return Question("Simulate", "simulate", request, lambda r: _summaries(r)[0])

    def summarize_many_question(self, starts: Sequence[tuple[State, int]], *, seed: int,
                                max_steps: int) -> Question[list[PlayoutSummary]]:
        _count("max_steps", max_steps)
        for index, (_, count) in enumerate(starts):
            _count(f"starts[{index}] count", count)

        def request() -> pb.SimulateRequest:
            return pb.SimulateRequest(
                game_id=self.id, seed=seed % 2**64, max_steps=max_steps, summary=True,
                starts=[pb.SimulateStart(state=_message(s), playouts=count)
                        for s, count in starts])

        return Question("Simulate", "simulate", request, _summaries)

    def evaluate_question(self, states: Sequence[State], role: str, heuristic: str,
                          parameters: Mapping[str, object] | None = None, *,
                          plan: bool = False, previous: State | None = None
                          ) -> Question[list[Evaluation]]:
        def request() -> pb.EvaluateRequest:
            message = pb.EvaluateRequest(
                game_id=self.id, role=role, heuristic=heuristic,
                parameters={k: str(v) for k, v in (parameters or {}).items()},
                states=[_message(s) for s in states], plan=plan)
            if previous is not None:
                message.previous.CopyFrom(_message(previous))
            return message

        return Question("Evaluate", "evaluate", request,
                        lambda r: [Evaluation(e.value, tuple(self._plan_step(p)
                                                             for p in e.plan))
                                   for e in r.evaluations])

    def _simulation(self, r: pb.SimulateResponse, record: bool,
                    record_percepts: bool = False) -> Simulation:
        columns = r.columns
        lengths = list(columns.lengths)
        roles = len(self.roles)
        trajectories: list[tuple[tuple[int, ...], ...]] = []
        if record:
            moves = list(columns.trajectory_moves)
            paths = []
            at = 0
            for length in lengths:
                paths.append(tuple(tuple(moves[at + k * roles:at + (k + 1) * roles])
                                   for k in range(length)))
                at += length * roles
            trajectories = paths
        percepts: list[tuple[StepPercepts, ...]] = []
        if record and record_percepts:
            percepts = _recorded_percepts(lengths, roles, columns.percept_counts,
                                          columns.percept_ids)
        return Simulation.of_columns(lengths, columns.terminal, columns.goals, roles,
                                     trajectories, r.updates, r.elapsed_ms, percepts)

    def supersets(self) -> dict[tuple[str, int], tuple[str, ...]]:
        """Every atom that could ever hold, as GDL text, by relation (name, arity); sent
        in parts (StreamSupersets), so that it works for chess's 2.9 million atoms too.
        :meth:`demanded` says which relations hold only the instances their callers ask
        for."""
        return self._stream_supersets()

    def demanded(self) -> tuple[str, ...]:
        """The relations ("name/arity") of :meth:`supersets` that hold only the instances
        their callers ask for (the game was too large to ground relaxed in full); empty:
        every relation in full. Known without a call after :meth:`supersets`."""
        if self._demanded is None:
            self._stream_supersets()
        assert self._demanded is not None
        return self._demanded

    def _stream_supersets(self) -> dict[tuple[str, int], tuple[str, ...]]:
        """The supersets' parts joined (and their demanded relations kept)."""
        parts = self._call("StreamSupersets", lambda: pb.SupersetsRequest(game_id=self.id),
                           stream=True)
        atoms: dict[tuple[str, int], list[str]] = {}
        for part in parts:
            for relation in part.relations:
                atoms.setdefault((relation.name, relation.arity), []).extend(relation.atoms)
        self._demanded = tuple(parts[-1].demanded) if parts else ()
        return {key: tuple(found) for key, found in atoms.items()}

    def relaxed_layers(self, state: State | None = None, *, max_layers: int = 0,
                       without_atoms: bool = False, atoms_of: Sequence[str] = ()
                       ) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...]]]:
        """Per relaxed layer from ``state`` (default: the initial state): fluent ids, move
        ids and the other derived atoms as GDL text (none ``without_atoms``; with
        ``atoms_of``, only those relations')."""
        def request() -> pb.RelaxedLayersRequest:
            message = pb.RelaxedLayersRequest(game_id=self.id, max_layers=max_layers,
                                              without_atoms=without_atoms,
                                              atoms_of=list(atoms_of))
            if state is None:
                message.from_initial = True
            else:
                message.state.CopyFrom(_message(state))
            return message

        r = self._call("RelaxedLayers", request)
        return [(tuple(layer.fluents), tuple(layer.moves), tuple(layer.atoms))
                for layer in r.layers]

    def instantiate(self, *, inline_aux: bool = False, keep_static: bool = False) -> str:
        """The instantiated game as variable-free GDL (``keep_static``: with the facts of
        the game's own static relations, which no ground rule reads)."""
        r = self._call("Instantiate", lambda: pb.InstantiateRequest(
            game_id=self.id, inline_aux=inline_aux, keep_static=keep_static))
        return str(r.gdl)

    def gddl(self) -> GddlFiles:
        """The instantiated game as GDDL: domain, problem and partition texts, and the
        GDDL name of every GDL text."""
        r = self._call("Instantiate", lambda: pb.InstantiateRequest(game_id=self.id,
                                                                    gddl=True))
        g = r.gddl
        return GddlFiles(str(g.domain), str(g.problem), str(g.partition),
                         int(g.multi_actions), {str(k): str(v) for k, v in g.names.items()})

    def _plan_step(self, message: pb.PlanStep) -> PlanStep:
        """A relaxed plan's step as the engine writes it (a move's text from the table)."""
        if not message.HasField("move_id"):
            return PlanStep(message.layer, message.cost, message.text, message.role)
        return PlanStep(message.layer, message.cost, message.text, message.role,
                        self.move_texts[message.move_id], message.move_id)

    def analyze(self) -> Analysis:
        """What the heuristics see in the game: structures, turn-taking, teams, features
        and the catalogue of heuristics."""
        return _analysis(self._call("AnalyzeGame",
                                    lambda: pb.AnalyzeGameRequest(game_id=self.id)))

    def __repr__(self) -> str:
        return f"<RemoteGame {self.id[:12]} roles={list(self.roles)}>"
