"""The ``reasoner.v1.Reasoner`` servicer: requests in, domain calls, responses out."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError, Message

from reasoner.asp.growth import Program
from reasoner.asp.superset import AtomSuperset
from reasoner.asp.translate import translate
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import State, StateInfo
from reasoner.core.walk import Simulation
from reasoner.engine.backend import BACKENDS
from reasoner.engine.game import Game
from reasoner.engine.information_set import Turn, sample_information_set
from reasoner.engine.layers import game_layers
from reasoner.errors import InvalidStateError, ResourceLimitError
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import GameDescription
from reasoner.gdl.validation import validate
from reasoner.heuristics.analysis import GameAnalysis
from reasoner.heuristics.game_heuristics import GameHeuristics
from reasoner.heuristics.relaxed import DEFAULT_VIEW_BOUNDS, ViewBounds
from reasoner.heuristics.table import HEURISTICS
from reasoner.instantiate.gddl import GddlGame
from reasoner.instantiate.ground_game import (
    InstantiatedGame,
    description_gddl,
    instantiate_description,
)
from reasoner.instantiate.supersets import description_supersets
from reasoner.server.admission import HeavyGate, costly_gate
from reasoner.server.encoded import field, playouts_answer
from reasoner.server.registry import GameRegistry, LoadedGame
from reasoner.server.status import DeadlineExceeded, RequestError, abort, rich_status_of
from reasoner.session_batches import joined
from reasoner.v1 import reasoner_pb2 as pb
from reasoner.v1 import reasoner_pb2_grpc as pb_grpc

__all__ = ["ReasonerService"]

log = logging.getLogger("gdl-reasoner")

T = TypeVar("T")
M = TypeVar("M", bound=Message)
Request = TypeVar("Request")
Response = TypeVar("Response")
Handler = Callable[[Any, Request, grpc.ServicerContext], Response]

MAX_PLAYOUTS = 1_000_000
MAX_EXPAND_CHILDREN = 100_000
MAX_NEXT_JOINT_MOVES = 100_000
MAX_EVALUATE_STATES = 10_000
MAX_QUERY_STATES = 100_000
MAX_LOOKUP_TEXTS = 100_000
# SampleInformationSet: the most states one request may ask for, the largest budget of joint
# moves tried (0 asks for the default), and the longest history (the search recurses once
# per turn, so a history must stay well inside the interpreter's recursion limit).
MAX_SAMPLE_COUNT = 10_000
MAX_SAMPLE_NODES = 10_000_000
DEFAULT_SAMPLE_NODES = 100_000
MAX_HISTORY_TURNS = 500
DEFAULT_MAX_STEPS = 1000
# Calls whose cost grows with their arguments run in a pool of their own past these sizes
# (see ReasonerService._costly): playouts of a Simulate, children of an Expand, states of a
# Query or joint moves of a Next, states of an Evaluate, joint moves a SampleInformationSet
# may try.
COSTLY_PLAYOUTS = 1_000
COSTLY_CHILDREN = 1_000
COSTLY_STATES = 1_000
COSTLY_EVALUATIONS = 100
COSTLY_SAMPLE_NODES = 1_000
# The nice value of the threads that run costly calls: a short Query waiting for a core gets
# it before them (the kernel's own threads for playouts inherit it).
COSTLY_NICENESS = 10
# StreamSupersets: the atoms' text in one message, and in the whole answer of the bounded
# child that computes them (chess: about 230 MiB as a pickle).
SUPERSET_PART_BYTES = 1 << 20
SUPERSET_BYTES = 1 << 30
# The most steps a Simulate playout may be asked for: a game that never ends would
# otherwise play (and, with trajectories, record) for as long as the client lets it.
MAX_STEPS = 100_000
# What a recorded joint move costs an answer at least, per role (a move id's varint and
# its share of the JointMove around it), for the estimate made before a Simulate runs.
_TRAJECTORY_BYTES_PER_MOVE = 2


def _rpc(method: Handler[Request, Response]) -> Handler[Request, Response]:
    """Map every error a handler raises to its status (see :mod:`reasoner.server.status`);
    never leak a traceback."""

    @functools.wraps(method)
    def wrapper(self: Any, request: Request, context: grpc.ServicerContext) -> Response:
        _start_call(self.max_call_seconds)
        try:
            return method(self, request, context)
        except Exception as error:
            if rich_status_of(error).code == grpc.StatusCode.INTERNAL.value[0]:
                log.exception("internal error in %s", method.__name__)
            abort(context, error)

    return wrapper


def _instantiation(description: GameDescription, inline_aux: bool, gddl: bool,
                   max_bytes: int, limit: str, keep_static: bool = False
                   ) -> tuple[InstantiatedGame, str, GddlGame | None]:
    """The work of Instantiate, run in a bounded child: the instantiation (without its
    rules), its GDL text and its GDDL. A text past ``max_bytes`` is refused here, as soon
    as it passes them (``limit`` says what the bound is): a game of millions of ground
    rules is neither made into one string nor sent back to the server."""
    found = instantiate_description(description, inline_aux=inline_aux or gddl,
                                    keep_static=keep_static)
    lines: list[str] = []
    size = 0
    for line in found.lines():
        size += len(line)
        if size > max_bytes:
            raise ResourceLimitError(
                f"the instantiated game ({found.statistics.rules:,} rules) takes more "
                f"than an answer may ({limit}); gdl-reasoner ground writes it to a file",
                "size", reason="answer-size")
        lines.append(line)
    return (dataclasses.replace(found, rules=()), "".join(lines),
            description_gddl(description, "game") if gddl else None)


def _yield_the_cores() -> None:
    """Lower this thread's priority to :data:`COSTLY_NICENESS` (Linux sets a thread's nice
    value of its own; elsewhere nothing changes)."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), COSTLY_NICENESS)


def _text_bytes(found: AtomSuperset) -> int:
    """About what a game's supersets take in memory: their atoms' text."""
    return sum(len(atom) + 50 for atoms in found.atoms.values() for atom in atoms)


def _superset_parts(found: AtomSuperset, elapsed_ms: float,
                    part_bytes: int) -> Iterator[pb.SupersetsResponse]:
    """The supersets as messages of about ``part_bytes`` of atoms each (at least one
    atom), a relation continued across messages; the last carries the totals."""
    part = pb.SupersetsResponse()
    held = 0
    for (name, arity), atoms in found.atoms.items():
        group: pb.RelationAtoms | None = None
        for atom in atoms:
            if held and held + len(atom) > part_bytes:
                yield part
                part, group, held = pb.SupersetsResponse(), None, 0
            if group is None:
                group = part.relations.add(name=name, arity=arity)
            group.atoms.append(atom)
            held += len(atom) + 2
        if group is None:  # a relation without atoms is listed all the same
            part.relations.add(name=name, arity=arity)
    part.size = found.size
    part.elapsed_ms = elapsed_ms
    part.demanded.extend(found.demanded)
    yield part


def _simulate_starts(game: Game, request: pb.SimulateRequest) -> list[tuple[State, int]]:
    """The states a Simulate plays from, each with its count of playouts."""
    if not request.starts:
        if not 1 <= request.playouts <= MAX_PLAYOUTS:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"playouts must be between 1 and {MAX_PLAYOUTS}, "
                               f"got {request.playouts}", reason="playout-count")
        return [(_request_state(game, request), request.playouts)]
    if request.HasField("state") or request.from_initial or request.playouts:
        raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                           "SimulateRequest sets starts and state, from_initial or playouts: "
                           "with starts, each start has its state and playouts",
                           reason="conflicting-fields")
    starts = []
    for number, start in enumerate(request.starts):
        field = f"SimulateRequest.starts[{number}]"
        if not start.HasField("state"):
            raise InvalidStateError(f"{field}.state is missing: a state is required",
                                    reason="missing-state")
        if start.playouts < 1:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"{field}.playouts must be at least 1, got {start.playouts}",
                               reason="playout-count")
        starts.append((_state(game, start.state, f"{field}.state"), start.playouts))
    total = sum(count for _, count in starts)
    if total > MAX_PLAYOUTS:
        raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                           f"at most {MAX_PLAYOUTS:,} playouts in all, got {total:,} in "
                           f"{len(starts):,} starts", reason="playout-count")
    return starts


def _summary_message(summary: PlayoutSummary) -> pb.PlayoutSummary:
    """A playout summary as the service sends it."""
    return pb.PlayoutSummary(
        playouts=summary.playouts, terminal=summary.terminal,
        total_length=summary.total_length, updates=summary.updates,
        goals=[pb.GoalCounts(values=list(counts), playouts=list(counts.values()))
               for counts in summary.goal_counts])


def _joined(runs: list[Simulation]) -> Simulation:
    """The playouts of several runs, one run after another."""
    if len(runs) == 1:
        return runs[0]
    return Simulation(
        lengths=[x for run in runs for x in run.lengths],
        terminal=[x for run in runs for x in run.terminal],
        goals=[x for run in runs for x in run.goals],
        trajectories=[x for run in runs for x in run.trajectories],
        updates=sum(run.updates for run in runs), batched=all(run.batched for run in runs),
        goal_table=[x for run in runs for x in run.flat_goals()],
        percepts=[x for run in runs for x in run.percepts])


def _with_percepts(game: Game, start: State, run: Simulation,
                   check: Callable[[], None]) -> Simulation:
    """GDL-II: ``run`` (recorded playouts from ``start``) with what each role perceived
    after each joint move, found by replaying each trajectory (the playouts themselves are
    the backend's, as without percepts); ``check`` is called before each playout."""
    percepts = []
    for path in run.trajectories:
        check()
        state = start
        steps = []
        for joint in path:
            steps.append(game.percept_ids(state, joint))  # each role's ids, ascending
            state, _ = game.step(state, joint, check_legal=False)
        percepts.append(tuple(steps))
    return replace(run, percepts=percepts)


def _translation(text: str, case_sensitive: bool, strict: bool,
                 relaxed: bool) -> tuple[str, str, list[str]]:
    """The work of Translate, run in a bounded child: the programs and the warnings."""
    description = parse_gdl(text, case_sensitive=case_sensitive)
    warnings = validate(description, strict=strict)  # as LoadGame reads
    translation = translate(description)
    return (translation.game_program, translation.relaxed_program if relaxed else "",
            [str(w) for w in warnings])


def _state_message(state: State) -> pb.State:
    return pb.State(fluents=list(state.fluent_ids()))


def _info_message(info: StateInfo) -> pb.StateInfo:
    return pb.StateInfo(
        legal=[pb.MoveIds(ids=ids) for ids in info.legal],
        terminal=info.terminal,
        goals=[pb.GoalValues(values=values) for values in info.goals],
    )


def _percepts_message(percepts: tuple[tuple[int, ...], ...]) -> list[pb.RolePercepts]:
    """GDL-II: the percept ids each role receives after one joint move, in role order."""
    return [pb.RolePercepts(percept_ids=ids) for ids in percepts]  # ascending already


def _successor_message(game: Game, state: State, joint: tuple[int, ...], following: State,
                       info: StateInfo) -> pb.Successor:
    """The successor of ``state`` under ``joint``, with what it answers and, in a GDL-II
    game, what each role perceives (plain games skip the percepts' solve)."""
    message = pb.Successor(state=_state_message(following), info=_info_message(info))
    if game.is_gdl2:
        message.percepts.extend(_percepts_message(game.percept_ids(state, joint)))
    return message


def _game_message(loaded: LoadedGame) -> pb.GameInfo:
    game = loaded.game
    s = game.statistics
    role_index = {role: i for i, role in enumerate(game.roles)}
    return pb.GameInfo(
        gdl2=game.is_gdl2,
        random_role=game.random_role or "",
        percepts=[pb.PerceptEntry(role=role_index[role], text=text)
                  for role, text in game.percept_table],
        game_id=loaded.id,
        roles=list(game.roles),
        fluents=list(game.fluents),
        moves=[pb.MoveEntry(role=role_index[m.role], text=m.text) for m in game.all_moves],
        role_moves=[pb.RoleMoves(role=role, move_ids=[m.id for m in game.moves(role)])
                    for role in game.roles],
        warnings=list(game.warnings),
        statistics=pb.LoadStatistics(
            parse_ms=s.parse_ms, validate_ms=s.validate_ms, translate_ms=s.translate_ms,
            superset_ms=s.superset_ms, ground_ms=s.ground_ms, total_ms=s.total_ms,
            fluents=s.fluents, moves=s.moves, rules=s.rules, ground_atoms=s.ground_atoms,
            backend=s.backend, backend_note=s.backend_note, network_ms=s.network_ms,
            network_propositions=s.network.propositions if s.network else 0,
            network_gates=s.network.gates if s.network else 0,
            network_edges=s.network.edges if s.network else 0,
            backend_steps=[pb.BackendStep(backend=step.backend, reason=step.reason,
                                          then=step.then, bound=step.bound,
                                          relation=step.relation)
                           for step in s.backend_reason.steps],
        ),
    )


def _state(game: Game, message: pb.State, field: str = "state") -> State:
    """The state of a message, or INVALID_ARGUMENT naming ``field``."""
    try:
        return game.state_from_ids(message.fluents)
    except InvalidStateError as error:
        raise InvalidStateError(f"malformed state in {field}: {error}",
                                reason=error.reason) from None


def _request_state(game: Game, request: Any) -> State:
    """The state a request names: its ``state`` field, which is required, or where the
    request has ``from_initial``, exactly one of the two. A missing field is an error, never
    an empty or initial state: a client that misspells it (proto loaders drop unknown
    fields silently) hears of it."""
    name = type(request).__name__
    initial = bool(getattr(request, "from_initial", False))
    if request.HasField("state"):
        if initial:
            raise InvalidStateError(f"{name} sets both state and from_initial: set one",
                                    reason="conflicting-fields")
        return _state(game, request.state, f"{name}.state")
    if initial:
        return game.initial_state
    alternative = (" (or from_initial)" if hasattr(request, "from_initial")
                   else " (or states)" if hasattr(request, "states") else "")
    raise InvalidStateError(f"{name}.state is missing{alternative}: a state is required",
                            reason="missing-state")


# The longest a call may work when its client sets no shorter deadline (serve
# --max-call-seconds): a Simulate of a million playouts without a deadline ends there.
DEFAULT_CALL_SECONDS = 600.0
# Sessions (streams) a server holds at once by default (serve --max-sessions); each holds
# a thread of its own while it is open.
DEFAULT_SESSIONS = 16
# How long a Session stream may wait for its next request before the server ends it with
# DEADLINE_EXCEEDED (reason "session-idle") and gives its place back (serve
# --session-idle-seconds): a forgotten stream does not hold one of the places for ever.
DEFAULT_SESSION_IDLE_SECONDS = 300.0
# What a session's reader thread passes on when the client's requests end.
_REQUESTS_ENDED = object()
# The rpc that answers each kind of session request.
_SESSION_METHODS = {"get_game": "GetGame", "initial_state": "InitialState", "query": "Query",
                    "next": "Next", "expand": "Expand", "simulate": "Simulate",
                    "evaluate": "Evaluate", "lookup_moves": "LookupMoves",
                    "sample_information_set": "SampleInformationSet"}
# When the call that this thread serves must end by the server's bound (set per call).
_call = threading.local()


def _start_call(seconds: float) -> None:
    """The server's own bound on the call (or session request) this thread starts."""
    _call.ends = time.monotonic() + seconds
    _call.longest = seconds


def _remaining(context: grpc.ServicerContext) -> float:
    """Seconds left to the call: its deadline's, at most what the server's bound leaves."""
    own = getattr(_call, "ends", math.inf) - time.monotonic()
    client = context.time_remaining()
    return own if client is None else min(client, own)


def _check_time(context: grpc.ServicerContext) -> None:
    if not context.is_active():
        raise RequestError(grpc.StatusCode.CANCELLED, "the request was cancelled",
                           reason="cancelled")
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise DeadlineExceeded("the request's deadline passed before the work was done",
                               reason="client-deadline")
    if time.monotonic() > getattr(_call, "ends", math.inf):
        raise DeadlineExceeded(f"the call worked for the server's longest of "
                               f"{_call.longest:g} s (serve --max-call-seconds): set a "
                               "deadline, or ask for less at once", reason="server-deadline")


class ReasonerService(pb_grpc.ReasonerServicer):
    """Serves the games of one registry."""

    def __init__(self, registry: GameRegistry,
                 heuristic_bounds: ViewBounds = DEFAULT_VIEW_BOUNDS,
                 max_message_bytes: int = 16 * 1024 * 1024,
                 max_call_seconds: float = DEFAULT_CALL_SECONDS,
                 max_sessions: int = DEFAULT_SESSIONS,
                 costly: HeavyGate | None = None,
                 session_idle_seconds: float = DEFAULT_SESSION_IDLE_SECONDS) -> None:
        self._registry = registry
        # Costly calls (see _costly): a pool of their own, as loads have.
        self.costly = costly if costly is not None else costly_gate()
        # One thread for each slot: an admitted call never waits for one.
        self._costly_threads = ThreadPoolExecutor(
            self.costly.running, thread_name_prefix="reasoner-costly",
            initializer=_yield_the_cores)
        self.max_call_seconds = max_call_seconds
        self.max_sessions = max_sessions
        self.session_idle_seconds = session_idle_seconds
        self._sessions = threading.BoundedSemaphore(max_sessions)
        self._max_message_bytes = max_message_bytes
        self._heuristic_bounds = heuristic_bounds
        self._game_messages: dict[str, pb.GameInfo] = {}
        self._supersets: dict[str, AtomSuperset] = {}
        self._heuristics: dict[str, GameHeuristics] = {}
        self._heuristics_lock = threading.Lock()

    def _info(self, loaded: LoadedGame) -> pb.GameInfo:
        message = self._game_messages.get(loaded.id)
        if message is None:
            message = _game_message(loaded)
            size = message.ByteSize()
            if size > self._answer_bytes:
                # No client could ever be sent this game: it is not kept either.
                self._registry.evict(loaded.id)
                game = loaded.game
                raise ResourceLimitError(
                    f"the game's tables ({len(game.fluents):,} fluents and "
                    f"{len(game.all_moves):,} moves) take {size / 2**20:,.1f} MiB, more "
                    f"than an answer may ({self._answer_limit}, serve --max-message-mb)",
                    "size", reason="answer-size")
            # Keep the built messages of the games the registry still holds, and this one.
            live = set(self._registry.ids())
            self._game_messages = {k: v for k, v in self._game_messages.items() if k in live}
            self._game_messages[loaded.id] = message
            self._registry.keep_beside(loaded.id, size, "tables")
        return message

    @property
    def _answer_bytes(self) -> int:
        """The most bytes an answer's message may have (a little under the transport's
        bound, which also counts the frame)."""
        return self._max_message_bytes - 1024

    @property
    def _answer_limit(self) -> str:
        return f"{self._max_message_bytes / 2**20:,.0f} MiB"

    def _fits(self, message: Any, what: str) -> None:
        """Refuse an answer that is too large to send, naming what made it so."""
        size = message.ByteSize()
        if size > self._answer_bytes:
            raise ResourceLimitError(
                f"{what} takes {size / 2**20:,.1f} MiB, more than an answer may "
                f"({self._answer_limit}, serve --max-message-mb)", "size",
                reason="answer-size")

    def _gathered(self, messages: Iterable[M], context: grpc.ServicerContext,
                  first: Callable[[int], str], advice: str, size: int = 0) -> list[M]:
        """The parts of an answer, made one at a time: refused as soon as they no longer fit
        an answer (``first(n)`` names the first ``n`` of them), and stopped when the
        request's time is up."""
        gathered: list[M] = []
        for message in messages:
            size += message.ByteSize() + 4  # with its tag and length
            if size > self._answer_bytes:
                raise ResourceLimitError(
                    f"{first(len(gathered) + 1)} take more than an answer may "
                    f"({self._answer_limit}): {advice}", "size", reason="answer-size")
            gathered.append(message)
            if len(gathered) % 256 == 0:
                _check_time(context)
        return gathered

    @_rpc
    def LoadGame(self, request: pb.LoadGameRequest,
                 context: grpc.ServicerContext) -> pb.LoadGameResponse:
        backend = request.options.backend or "auto"
        if backend not in BACKENDS:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"unknown backend {backend!r}; the backends are "
                               f"{', '.join(BACKENDS)}", reason="unknown-backend")
        def check() -> None:
            _check_time(context)

        # The default reading takes what it can read unambiguously, with warnings (see
        # reasoner.gdl.validation); options.lenient, which asked for it, is that default now.
        loaded, already = self._registry.load(
            request.gdl, case_sensitive=request.options.case_sensitive,
            strict=request.options.strict, seconds=_remaining(context), backend=backend,
            check=check)
        if not already:
            log.info("loaded game %s (roles %s, %d fluents, %d moves) in %.1f ms on %s%s",
                     loaded.id[:12], " ".join(loaded.game.roles), len(loaded.game.fluents),
                     len(loaded.game.all_moves), loaded.game.statistics.total_ms,
                     loaded.game.backend, f" ({loaded.game.statistics.backend_note})"
                     if loaded.game.statistics.backend_note else "")
        return pb.LoadGameResponse(game=self._info(loaded), already_loaded=already)

    @_rpc
    def GetGame(self, request: pb.GetGameRequest,
                context: grpc.ServicerContext) -> pb.GetGameResponse:
        return pb.GetGameResponse(game=self._info(self._registry.get(request.game_id)))

    @_rpc
    def InitialState(self, request: pb.InitialStateRequest,
                     context: grpc.ServicerContext) -> pb.InitialStateResponse:
        game = self._registry.get(request.game_id).game
        state = game.initial_state
        return pb.InitialStateResponse(state=_state_message(state),
                                       info=_info_message(game.info(state)))

    @_rpc
    def Query(self, request: pb.QueryRequest,
              context: grpc.ServicerContext) -> pb.QueryResponse:
        game = self._registry.get(request.game_id).game
        if not request.states:
            return pb.QueryResponse(info=_info_message(game.info(_request_state(game, request))))
        if request.HasField("state"):
            raise InvalidStateError("QueryRequest sets both state and states: set one",
                                    reason="conflicting-fields")
        if len(request.states) > MAX_QUERY_STATES:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_QUERY_STATES:,} states per request, got "
                               f"{len(request.states):,}", reason="too-many-states")
        total = len(request.states)
        infos = self._costly("Query", total > COSTLY_STATES, context, lambda: self._gathered(
            (_info_message(game.info(_state(game, message, f"QueryRequest.states[{i}]")))
             for i, message in enumerate(request.states)), context,
            lambda n: f"the answers of the first {n:,} of {total:,} states",
            "ask for fewer at once"))
        return pb.QueryResponse(infos=infos)

    @_rpc
    def Next(self, request: pb.NextRequest, context: grpc.ServicerContext) -> pb.NextResponse:
        game = self._registry.get(request.game_id).game
        state = _request_state(game, request)
        if len(request.joint_moves) > MAX_NEXT_JOINT_MOVES:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_NEXT_JOINT_MOVES:,} joint moves per request, got "
                               f"{len(request.joint_moves):,}", reason="too-many-joint-moves")
        check = request.check_legal if request.HasField("check_legal") else True
        total = len(request.joint_moves)

        def successors() -> Iterator[pb.Successor]:
            for joint_move in request.joint_moves:
                joint = tuple(joint_move.moves)
                following, info = game.step(state, joint, check_legal=check)
                yield _successor_message(game, state, joint, following, info)

        return pb.NextResponse(successors=self._costly(
            "Next", total > COSTLY_STATES, context, lambda: self._gathered(
                successors(), context,
                lambda n: f"the successors of the first {n:,} of {total:,} joint moves",
                "ask for fewer at once")))

    @_rpc
    def Expand(self, request: pb.ExpandRequest,
               context: grpc.ServicerContext) -> pb.ExpandResponse:
        game = self._registry.get(request.game_id).game
        state = _request_state(game, request)
        info = game.info(state)
        count = math.prod(len(legal) for legal in info.legal)
        if count > MAX_EXPAND_CHILDREN:
            raise ResourceLimitError(f"the state has {count:,} joint moves; Expand returns "
                                     f"at most {MAX_EXPAND_CHILDREN:,} (use Query and Next)",
                                     "size", limit=MAX_EXPAND_CHILDREN, reason="children")
        # Refused before any work where children the size of this state would not fit.
        head = pb.ExpandResponse(info=_info_message(info))
        like = pb.Child(joint_move=pb.JointMove(moves=[0] * len(game.roles)),
                        successor=pb.Successor(state=_state_message(state), info=head.info))
        estimate = head.ByteSize() + count * (like.ByteSize() + 4)
        if estimate > self._answer_bytes:
            raise ResourceLimitError(
                f"the state's {count:,} children would take about {estimate / 2**20:,.0f} "
                f"MiB, more than an answer may ({self._answer_limit}): use Query and Next",
                "size", reason="answer-size")
        return self._costly("Expand", count > COSTLY_CHILDREN, context,
                            lambda: self._expand(game, state, info, head, count, context))

    def _expand(self, game: Game, state: State, info: StateInfo, head: pb.ExpandResponse,
                count: int, context: grpc.ServicerContext) -> pb.ExpandResponse:
        """Expand's children, once the request is read and admitted."""
        head.children.extend(self._gathered(
            (pb.Child(joint_move=pb.JointMove(moves=joint),
                      successor=_successor_message(game, state, tuple(joint), following,
                                                   child_info))
             for joint, following, child_info in game.children(state, info)), context,
            lambda n: f"the first {n:,} of the state's {count:,} children",
            "use Query and Next", head.ByteSize()))
        return head

    @_rpc
    def Simulate(self, request: pb.SimulateRequest,
                 context: grpc.ServicerContext) -> pb.SimulateResponse | bytes:
        game = self._registry.get(request.game_id).game
        starts = _simulate_starts(game, request)
        playouts = sum(count for _, count in starts)
        max_steps = request.max_steps or DEFAULT_MAX_STEPS
        if max_steps > MAX_STEPS:
            raise ResourceLimitError(f"max_steps may be at most {MAX_STEPS:,} per playout, got "
                                     f"{max_steps:,}", "size", limit=MAX_STEPS,
                                     reason="max-steps")
        if request.record_trajectories:
            # Refused before any work where the recorded moves alone could not be sent.
            least = playouts * max_steps * len(game.roles) * _TRAJECTORY_BYTES_PER_MOVE
            if least > self._max_message_bytes:
                raise ResourceLimitError(
                    f"trajectories of {playouts:,} playouts of up to {max_steps:,} "
                    f"steps could take {least / 2**20:,.0f} MiB, more than the "
                    f"{self._answer_limit} an answer may have: ask "
                    "fewer playouts or steps, or no trajectories", "size",
                    reason="answer-size")
        if request.record_percepts and not request.record_trajectories:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               "record_percepts needs record_trajectories: the percepts are "
                               "recorded per joint move of each trajectory",
                               reason="conflicting-fields")
        if request.summary and request.record_trajectories:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               "a summary holds no trajectories: ask for columns with "
                               "record_trajectories, or for a summary without them",
                               reason="conflicting-fields")
        return self._costly("Simulate", playouts > COSTLY_PLAYOUTS, context,
                            lambda: self._simulate(game, request, starts, playouts,
                                                   max_steps, context))

    def _simulate(self, game: Game, request: pb.SimulateRequest,
                  starts: list[tuple[State, int]], playouts: int, max_steps: int,
                  context: grpc.ServicerContext) -> pb.SimulateResponse | bytes:
        """Simulate's playouts, once the request is read and admitted: one playout at a
        time answered as bytes (see :mod:`reasoner.server.encoded`)."""
        if request.summary:
            start = time.perf_counter()
            summaries = [game.summarize(state, count, request.seed + number, max_steps,
                                        check=lambda: _check_time(context))
                         for number, (state, count) in enumerate(starts)]
            return pb.SimulateResponse(
                summaries=[_summary_message(s) for s in summaries],
                updates=sum(s.updates for s in summaries),
                elapsed_ms=(time.perf_counter() - start) * 1e3)
        start = time.perf_counter()
        # Percepts only where asked for and a GDL-II game has any: plain playouts do no
        # percept work at all.
        percepts = request.record_percepts and game.is_gdl2
        runs = []
        for number, (state, count) in enumerate(starts):
            run = game.simulate(state, count, request.seed + number, max_steps,
                                record=request.record_trajectories,
                                check=lambda: _check_time(context))
            runs.append(_with_percepts(game, state, run, lambda: _check_time(context))
                        if percepts else run)
        run = _joined(runs)
        elapsed_ms = (time.perf_counter() - start) * 1e3
        if request.columns:
            columns = pb.SimulateResponse(
                columns=pb.PlayoutColumns(
                    lengths=run.lengths, terminal=run.terminal,
                    goals=run.flat_goals(),
                    trajectory_moves=[move for path in run.trajectories
                                      for joint in path for move in joint],
                    percept_counts=[len(ids) for steps in run.percepts
                                    for seen in steps for ids in seen],
                    percept_ids=[i for steps in run.percepts
                                 for seen in steps for ids in seen for i in ids]),
                updates=run.updates, elapsed_ms=elapsed_ms)
            self._fits(columns, f"the answer of {playouts:,} playouts")
            return columns
        answer = playouts_answer(run, elapsed_ms)
        if len(answer) > self._answer_bytes:
            raise ResourceLimitError(
                f"the answer of {playouts:,} playouts takes {len(answer) / 2**20:,.1f} MiB, "
                f"more than an answer may ({self._answer_limit}, serve --max-message-mb): "
                "ask for columns or a summary", "size", reason="answer-size")
        return answer

    @_rpc
    def Supersets(self, request: pb.SupersetsRequest,
                  context: grpc.ServicerContext) -> pb.SupersetsResponse:
        found, elapsed_ms = self._atom_superset(request, context)
        response = pb.SupersetsResponse(
            relations=[pb.RelationAtoms(name=name, arity=arity, atoms=atoms)
                       for (name, arity), atoms in found.atoms.items()],
            size=found.size, elapsed_ms=elapsed_ms, demanded=found.demanded)
        self._fits(response, f"the supersets' {found.size:,} atoms (StreamSupersets sends "
                             "them in parts)")
        return response

    @_rpc
    def StreamSupersets(self, request: pb.SupersetsRequest,
                        context: grpc.ServicerContext) -> Iterator[pb.SupersetsResponse]:
        # Computed before the first message, so that every error is the call's status.
        found, elapsed_ms = self._atom_superset(request, context)
        return _superset_parts(found, elapsed_ms, SUPERSET_PART_BYTES)

    def _atom_superset(self, request: pb.SupersetsRequest, context: grpc.ServicerContext
                       ) -> tuple[AtomSuperset, float]:
        """A loaded game's supersets, and the milliseconds they took (0 from the cache)."""
        loaded = self._registry.get(request.game_id)
        cached = self._supersets.get(loaded.id)
        if cached is not None:
            return cached, 0.0
        # The answer comes back whole, however many messages it will take to send.
        found = self._explained(context, "Supersets", description_supersets,
                                (loaded.game.description,), loaded.game.description,
                                "relaxed", max_answer_bytes=SUPERSET_BYTES)
        live = set(self._registry.ids())
        self._supersets = {k: v for k, v in self._supersets.items() if k in live}
        self._supersets[loaded.id] = found
        self._registry.keep_beside(loaded.id, _text_bytes(found), "supersets")
        return found, found.seconds * 1e3

    @_rpc
    def RelaxedLayers(self, request: pb.RelaxedLayersRequest,
                      context: grpc.ServicerContext) -> pb.RelaxedLayersResponse:
        game = self._registry.get(request.game_id).game
        state = _request_state(game, request)
        atoms_of = [] if request.without_atoms else (list(request.atoms_of) or None)
        found = self._explained(context, "RelaxedLayers", game_layers,
                                (game.description, state.fluents, request.max_layers or 100,
                                 atoms_of, game.fluents), game.description, "relaxed")
        # Each layer lists all that holds in it: count before building (chess: 201 layers
        # of over a million atoms each).
        estimate = sum((found.count - first) * (len(text) + 3)
                       for text, first in (found.atoms or {}).items()) + 5 * found.entries()
        if estimate > self._answer_bytes:
            raise ResourceLimitError(
                f"the {found.count:,} relaxed layers would take about "
                f"{estimate / 2**20:,.0f} MiB, more than an answer may "
                f"({self._answer_limit}, serve --max-message-mb): ask without_atoms, or "
                "atoms_of a few relations, or fewer max_layers", "size",
                reason="answer-size")
        fluent_ids = {text: i for i, text in enumerate(game.fluents)}
        move_ids = {(m.role, m.text): m.id for m in game.all_moves}
        response = pb.RelaxedLayersResponse(
            layers=[pb.RelaxedLayer(
                fluents=sorted(fluent_ids[f] for f in layer.fluents if f in fluent_ids),
                moves=sorted(move_ids[m] for m in layer.moves if m in move_ids),
                atoms=layer.atoms) for layer in found.layers],
            fixpoint=found.fixpoint, elapsed_ms=found.seconds * 1e3,
            demanded=found.demanded)
        self._fits(response, "the relaxed layers")
        return response

    @_rpc
    def Instantiate(self, request: pb.InstantiateRequest,
                    context: grpc.ServicerContext) -> pb.InstantiateResponse:
        game = self._registry.get(request.game_id).game
        found, gdl, gddl = self._explained(
            context, "Instantiate", _instantiation,
            (game.description, request.inline_aux, request.gddl, self._answer_bytes,
             f"{self._answer_limit}, serve --max-message-mb", request.keep_static),
            game.description, "game")
        s = found.statistics
        response = pb.InstantiateResponse(
            gdl=gdl, statistics=pb.InstantiationStatistics(
                fluents=s.fluents, moves=s.moves, rules=s.rules, facts=s.facts,
                elapsed_ms=s.seconds * 1e3, peak_memory_mb=s.peak_memory_mb,
                program=s.program, static_facts=s.static_facts,
                relations=[pb.RelationSize(name=size.name, arity=size.arity,
                                           rules=size.rules, facts=size.facts)
                           for size in s.relations],
                tries=[pb.ProgramTry(program=t.program, elapsed_ms=t.seconds * 1e3,
                                     stopped=t.stopped) for t in s.tries]))
        if gddl is not None:
            response.gddl.CopyFrom(pb.GddlFiles(
                domain=gddl.domain, problem=gddl.problem, partition=gddl.partition,
                multi_actions=gddl.multi_actions, names=gddl.names))
        self._fits(response, f"the instantiated game ({s.rules:,} rules)")
        return response

    @_rpc
    def Translate(self, request: pb.TranslateRequest,
                  context: grpc.ServicerContext) -> pb.TranslateResponse:
        program, relaxed, warnings = self._heavy(
            context, "Translate", _translation,
            (request.gdl, request.options.case_sensitive, request.options.strict,
             request.relaxed))
        response = pb.TranslateResponse(program=program, relaxed_program=relaxed,
                                        warnings=warnings)
        self._fits(response, "the translated program")
        return response

    def _costly(self, what: str, costly: bool, context: grpc.ServicerContext,
                work: Callable[[], T]) -> T:
        """What ``work`` returns, done here where the call is not ``costly`` (its arguments
        make it so); a costly one takes a slot of the costly calls' pool (while its slots
        and places to wait are all taken, RESOURCE_EXHAUSTED at once) and runs on one of the
        pool's threads, which yield the cores to the threads that answer short calls
        (:data:`COSTLY_NICENESS`), while this thread waits for it."""
        if not costly:
            return work()
        ends, longest = getattr(_call, "ends", math.inf), getattr(_call, "longest", math.inf)

        def run() -> T:
            _call.ends, _call.longest = ends, longest  # the call's own bound, on that thread
            return work()

        with self.costly.admit(what, lambda: _check_time(context)):
            return self._costly_threads.submit(run).result()

    def _heavy(self, context: grpc.ServicerContext, what: str, func: Callable[..., T],
               args: tuple[Any, ...], max_answer_bytes: int | None = None) -> T:
        """Run grounding work for the call ``what`` in a slot of the heavy gate, in a
        bounded child that dies when the request's deadline passes or it is cancelled.
        The child's answer may take ``max_answer_bytes`` (default: four messages)."""
        def check() -> None:
            _check_time(context)

        with self._registry.admit(what, check):
            # (An answer several times what a message may hold cannot become one.)
            return self._registry.bounded(func, args, seconds=_remaining(context),
                                          check=check,
                                          max_answer_bytes=max_answer_bytes
                                          or 4 * self._max_message_bytes)

    def _explained(self, context: grpc.ServicerContext, what: str, func: Callable[..., T],
                   args: tuple[Any, ...], description: GameDescription, program: Program,
                   max_answer_bytes: int | None = None) -> T:
        """:meth:`_heavy`, an overrun of the registry's own bounds naming the relation of
        the game's ``program`` (its game program or its relaxed one) that grew most."""
        try:
            return self._heavy(context, what, func, args, max_answer_bytes)
        except ResourceLimitError as error:
            raise self._registry.explain(error, description, lambda: _check_time(context),
                                         program=program) from None

    def _game_heuristics(self, loaded: LoadedGame) -> GameHeuristics:
        """The heuristics of a loaded game, built on first use (and dropped with the game)."""
        with self._heuristics_lock:
            found = self._heuristics.get(loaded.id)
            if found is None:
                live = set(self._registry.ids())
                self._heuristics = {k: v for k, v in self._heuristics.items() if k in live}
                found = self._heuristics[loaded.id] = GameHeuristics(
                    loaded.game, self._heuristic_bounds)
            return found

    @_rpc
    def Evaluate(self, request: pb.EvaluateRequest,
                 context: grpc.ServicerContext) -> pb.EvaluateResponse:
        loaded = self._registry.get(request.game_id)
        game = loaded.game
        if len(request.states) > MAX_EVALUATE_STATES:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_EVALUATE_STATES:,} states per request, got "
                               f"{len(request.states):,}", reason="too-many-states")
        if not request.states:
            raise InvalidStateError("EvaluateRequest.states is empty: at least one state is "
                                    "required", reason="missing-state")
        states = [_state(game, message, f"EvaluateRequest.states[{i}]")
                  for i, message in enumerate(request.states)]
        previous = (_state(game, request.previous, "EvaluateRequest.previous")
                    if request.HasField("previous") else None)
        start = time.perf_counter()
        heuristics = self._game_heuristics(loaded)
        try:
            found = self._costly(
                "Evaluate", len(states) > COSTLY_EVALUATIONS, context,
                lambda: heuristics.evaluate(
                    request.heuristic, request.role, states, dict(request.parameters),
                    plan=request.plan, previous=previous,
                    check=lambda: _check_time(context)))
        finally:
            self._registry.keep_beside(loaded.id, heuristics.held_bytes(), "heuristics")
        evaluations = []
        for evaluation in found:
            plan = [pb.PlanStep(layer=step.layer, cost=step.cost, text=step.text,
                                role=step.role, move_id=step.move_id)
                    for step in evaluation.plan]
            value = evaluation.value if not math.isnan(evaluation.value) else 0.0
            evaluations.append(pb.Evaluation(value=value, plan=plan))
        return pb.EvaluateResponse(evaluations=evaluations,
                                   elapsed_ms=(time.perf_counter() - start) * 1e3)

    @_rpc
    def ListGames(self, request: pb.ListGamesRequest,
                  context: grpc.ServicerContext) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(games=[
            pb.GameSummary(game_id=loaded.id, roles=list(loaded.game.roles),
                           fluents=len(loaded.game.fluents),
                           moves=len(loaded.game.all_moves), backend=loaded.game.backend)
            for loaded in self._registry.games()])

    @_rpc
    def LookupMoves(self, request: pb.LookupMovesRequest,
                    context: grpc.ServicerContext) -> pb.LookupMovesResponse:
        game = self._registry.get(request.game_id).game
        if len(request.texts) > MAX_LOOKUP_TEXTS:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_LOOKUP_TEXTS:,} texts per request, got "
                               f"{len(request.texts):,}", reason="too-many-texts")
        return pb.LookupMovesResponse(
            move_ids=[game.move(request.role, text).id for text in request.texts])

    @_rpc
    def SampleInformationSet(self, request: pb.SampleInformationSetRequest,
                             context: grpc.ServicerContext
                             ) -> pb.SampleInformationSetResponse:
        game = self._registry.get(request.game_id).game
        if request.count > MAX_SAMPLE_COUNT:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_SAMPLE_COUNT:,} states per request, got "
                               f"{request.count:,}", reason="too-many-states")
        if request.max_nodes > MAX_SAMPLE_NODES:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"max_nodes may be at most {MAX_SAMPLE_NODES:,}, got "
                               f"{request.max_nodes:,}", reason="max-nodes")
        if len(request.history) > MAX_HISTORY_TURNS:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                               f"at most {MAX_HISTORY_TURNS:,} turns of history, got "
                               f"{len(request.history):,}", reason="history-length")
        history = [Turn(turn.move, tuple(turn.percepts)) for turn in request.history]
        max_nodes = request.max_nodes or DEFAULT_SAMPLE_NODES
        found = self._costly(
            "SampleInformationSet", max_nodes > COSTLY_SAMPLE_NODES, context,
            lambda: sample_information_set(game, request.role, history, request.count,
                                           seed=request.seed, max_nodes=max_nodes,
                                           check=lambda: _check_time(context)))
        response = pb.SampleInformationSetResponse(
            states=[_state_message(state) for state in found.states], nodes=found.nodes,
            seconds=found.seconds, exhausted=found.exhausted)
        self._fits(response, f"{len(found.states):,} states")
        return response

    def Session(self, requests: Iterator[bytes],
                context: grpc.ServicerContext) -> Iterator[bytes]:
        """Answer each request of the stream in turn, each with its tag; a failed request
        answers its own status and the stream goes on (see the proto). The requests of one
        message are answered in one message, or in several where they would not fit. A
        stream that sends nothing for ``session_idle_seconds`` after its last answer ends
        with DEADLINE_EXCEEDED (reason "session-idle") and gives its place back."""
        if not self._sessions.acquire(blocking=False):
            abort(context, ResourceLimitError(
                f"the server holds {self.max_sessions} sessions already (serve "
                "--max-sessions): close one, or use unary calls", "concurrency",
                limit=self.max_sessions, reason="too-many-sessions"))
        try:
            for raw in self._until_idle(requests, context):
                try:
                    request = pb.SessionRequest.FromString(raw)
                except DecodeError as error:
                    abort(context, RequestError(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        f"malformed reasoner.v1.SessionRequest message ({len(raw)} bytes): "
                        f"{error}", reason="malformed-message"))
                yield from self._session_answers(request, context)
        finally:
            self._sessions.release()

    def _until_idle(self, requests: Iterator[bytes],
                    context: grpc.ServicerContext) -> Iterator[bytes]:
        """The stream's requests, one at a time as the session asks for them, until the
        client ends them; a wait longer than ``session_idle_seconds`` ends the call.

        gRPC's request iterator blocks without a timeout, so a reader thread of the
        session's own waits on it and hands over one request each time one is asked for
        (no more is read ahead: the client's flow control still holds). When the call
        ends, gRPC ends the reader's wait too, and the reader stops."""
        wanted: queue.SimpleQueue[bool] = queue.SimpleQueue()
        arrived: queue.SimpleQueue[object] = queue.SimpleQueue()

        def read() -> None:
            while wanted.get():
                try:
                    arrived.put(next(requests))
                except StopIteration:
                    arrived.put(_REQUESTS_ENDED)
                    return
                except BaseException as error:
                    arrived.put(error)
                    return

        threading.Thread(target=read, name="reasoner-session-reader", daemon=True).start()
        try:
            while True:
                wanted.put(True)
                try:
                    item = arrived.get(timeout=self.session_idle_seconds)
                except queue.Empty:
                    abort(context, DeadlineExceeded(
                        f"the session was idle for {self.session_idle_seconds:g} s (serve "
                        "--session-idle-seconds): the server closed it; open another",
                        reason="session-idle"))
                if item is _REQUESTS_ENDED:
                    return
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, bytes)
                yield item
        finally:
            wanted.put(False)

    def _session_answers(self, request: pb.SessionRequest,
                         context: grpc.ServicerContext) -> Iterator[bytes]:
        """The encoded answers to one message of requests: the message's own, then those in
        its ``more``, grouped in as few messages as fit (a client may cancel in between)."""
        group: list[bytes] = []
        size = 0
        for index, item in enumerate((request, *request.more)):
            if index and not context.is_active():
                return
            encoded = self._session_answer(item, context, nested=index > 0)
            # Each answer fits a message (its handler saw to it); a group must fit too.
            if group and size + len(encoded) + 16 > self._answer_bytes:
                yield joined(group)
                group, size = [], 0
            group.append(encoded)
            size += len(encoded) + 16
        yield joined(group)

    def _session_answer(self, request: pb.SessionRequest, context: grpc.ServicerContext,
                        *, nested: bool = False) -> bytes:
        """One request's SessionResponse, encoded (an answer its handler encoded itself,
        as Simulate's playouts, goes in as it is)."""
        response = pb.SessionResponse(tag=request.tag)
        kind = request.WhichOneof("request")
        try:
            if kind is None:
                raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                                   f"session request {request.tag} holds no request",
                                   reason="empty-request")
            if nested and request.more:
                raise RequestError(grpc.StatusCode.INVALID_ARGUMENT,
                                   f"session request {request.tag} is in `more` and has "
                                   "`more` of its own: send the requests of one message "
                                   "side by side", reason="nested-more")
            _start_call(self.max_call_seconds)
            answer = _SESSION_HANDLERS[kind](self, getattr(request, kind), context)
            if isinstance(answer, bytes):
                number = response.DESCRIPTOR.fields_by_name[kind].number
                return response.SerializeToString() + field(number, answer)
            getattr(response, kind).CopyFrom(answer)
        except Exception as error:
            status = rich_status_of(error)
            if status.code == grpc.StatusCode.INTERNAL.value[0]:
                log.exception("internal error in a session's %s", kind)
            response.error.code = status.code
            response.error.message = status.message
            response.error.details.extend(status.details)
        return response.SerializeToString()

    @_rpc
    def AnalyzeGame(self, request: pb.AnalyzeGameRequest,
                    context: grpc.ServicerContext) -> pb.AnalyzeGameResponse:
        loaded = self._registry.get(request.game_id)
        start = time.perf_counter()
        analysis = self._game_heuristics(loaded).analysis()
        response = _analysis_message(analysis)
        response.elapsed_ms = (time.perf_counter() - start) * 1e3
        return response



# The handler of each kind of session request: its rpc's, without the wrapper that turns an
# error into the call's status (a session answers it on the request's tag instead).
_SESSION_HANDLERS: dict[str, Handler[Any, Any]] = {
    kind: getattr(ReasonerService, name).__wrapped__ for kind, name in _SESSION_METHODS.items()}


def _analysis_message(analysis: GameAnalysis) -> pb.AnalyzeGameResponse:
    """The analysis of a game, with the catalogue of heuristics."""
    found = analysis.structures
    message = pb.AnalyzeGameResponse
    return message(
        successors=[message.Chain(relation=o.relation, elements=o.elements)
                    for o in found.successors],
        orders=[message.Order(relation=o.relation, pairs=len(o.pairs),
                              successor=o.ordering.relation if o.ordering else "")
                for o in found.orders],
        step_counters=[message.StepCounter(function=c.function,
                                           successor=c.ordering.relation)
                       for c in found.step_counters],
        boards=[message.Board(function=b.function, arity=b.arity, inputs=b.inputs,
                              outputs=b.outputs,
                              orderings=[o.relation if o else "" for o in b.orderings],
                              cells=b.cells, markers=b.markers, pieces=b.pieces)
                for b in found.boards],
        quantities=[message.Quantity(function=q.function, arity=q.arity,
                                     position=q.position, successor=q.ordering.relation)
                    for q in found.quantities],
        turn_taking=found.turn_taking,
        noop_moves=[message.RoleNoops(role=role, moves=moves)
                    for role, moves in found.noop_moves.items()],
        teams=[message.Team(roles=team) for team in found.teams],
        features=[message.Feature(name=f.name, description=f.description)
                  for f in analysis.features],
        heuristics=[message.Heuristic(
            name=h.name, summary=h.summary, plans=h.plans,
            parameters=[message.Parameter(name=p.name, allowed=p.allowed,
                                          default="" if p.default is None else str(p.default))
                        for p in h.parameters])
            for h in HEURISTICS.values()],
        states_seen=found.states_seen, terminal_states_seen=found.terminal_states_seen)
