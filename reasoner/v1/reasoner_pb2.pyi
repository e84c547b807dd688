from google.protobuf import any_pb2 as _any_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_KIND_UNSPECIFIED: _ClassVar[ErrorKind]
    ERROR_KIND_INTERNAL: _ClassVar[ErrorKind]
    ERROR_KIND_REQUEST: _ClassVar[ErrorKind]
    ERROR_KIND_GDL: _ClassVar[ErrorKind]
    ERROR_KIND_GDL_SYNTAX: _ClassVar[ErrorKind]
    ERROR_KIND_GDL_VALIDATION: _ClassVar[ErrorKind]
    ERROR_KIND_UNSUPPORTED_GDL: _ClassVar[ErrorKind]
    ERROR_KIND_ILLEGAL_MOVE: _ClassVar[ErrorKind]
    ERROR_KIND_INVALID_STATE: _ClassVar[ErrorKind]
    ERROR_KIND_HEURISTIC: _ClassVar[ErrorKind]
    ERROR_KIND_NO_LEGAL_MOVE: _ClassVar[ErrorKind]
    ERROR_KIND_GOAL: _ClassVar[ErrorKind]
    ERROR_KIND_UNKNOWN_GAME: _ClassVar[ErrorKind]
    ERROR_KIND_RESOURCE_LIMIT: _ClassVar[ErrorKind]
    ERROR_KIND_DEADLINE_EXCEEDED: _ClassVar[ErrorKind]
    ERROR_KIND_REFERENCE_FAILURE: _ClassVar[ErrorKind]
    ERROR_KIND_REASONER: _ClassVar[ErrorKind]
ERROR_KIND_UNSPECIFIED: ErrorKind
ERROR_KIND_INTERNAL: ErrorKind
ERROR_KIND_REQUEST: ErrorKind
ERROR_KIND_GDL: ErrorKind
ERROR_KIND_GDL_SYNTAX: ErrorKind
ERROR_KIND_GDL_VALIDATION: ErrorKind
ERROR_KIND_UNSUPPORTED_GDL: ErrorKind
ERROR_KIND_ILLEGAL_MOVE: ErrorKind
ERROR_KIND_INVALID_STATE: ErrorKind
ERROR_KIND_HEURISTIC: ErrorKind
ERROR_KIND_NO_LEGAL_MOVE: ErrorKind
ERROR_KIND_GOAL: ErrorKind
ERROR_KIND_UNKNOWN_GAME: ErrorKind
ERROR_KIND_RESOURCE_LIMIT: ErrorKind
ERROR_KIND_DEADLINE_EXCEEDED: ErrorKind
ERROR_KIND_REFERENCE_FAILURE: ErrorKind
ERROR_KIND_REASONER: ErrorKind

class SessionRequest(_message.Message):
    __slots__ = ("tag", "get_game", "initial_state", "query", "next", "expand", "simulate", "evaluate", "lookup_moves", "sample_information_set", "more")
    TAG_FIELD_NUMBER: _ClassVar[int]
    GET_GAME_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    EXPAND_FIELD_NUMBER: _ClassVar[int]
    SIMULATE_FIELD_NUMBER: _ClassVar[int]
    EVALUATE_FIELD_NUMBER: _ClassVar[int]
    LOOKUP_MOVES_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_INFORMATION_SET_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    tag: int
    get_game: GetGameRequest
    initial_state: InitialStateRequest
    query: QueryRequest
    next: NextRequest
    expand: ExpandRequest
    simulate: SimulateRequest
    evaluate: EvaluateRequest
    lookup_moves: LookupMovesRequest
    sample_information_set: SampleInformationSetRequest
    more: _containers.RepeatedCompositeFieldContainer[SessionRequest]
    def __init__(self, tag: _Optional[int] = ..., get_game: _Optional[_Union[GetGameRequest, _Mapping]] = ..., initial_state: _Optional[_Union[InitialStateRequest, _Mapping]] = ..., query: _Optional[_Union[QueryRequest, _Mapping]] = ..., next: _Optional[_Union[NextRequest, _Mapping]] = ..., expand: _Optional[_Union[ExpandRequest, _Mapping]] = ..., simulate: _Optional[_Union[SimulateRequest, _Mapping]] = ..., evaluate: _Optional[_Union[EvaluateRequest, _Mapping]] = ..., lookup_moves: _Optional[_Union[LookupMovesRequest, _Mapping]] = ..., sample_information_set: _Optional[_Union[SampleInformationSetRequest, _Mapping]] = ..., more: _Optional[_Iterable[_Union[SessionRequest, _Mapping]]] = ...) -> None: ...

class SessionResponse(_message.Message):
    __slots__ = ("tag", "get_game", "initial_state", "query", "next", "expand", "simulate", "evaluate", "lookup_moves", "sample_information_set", "error", "more")
    TAG_FIELD_NUMBER: _ClassVar[int]
    GET_GAME_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    NEXT_FIELD_NUMBER: _ClassVar[int]
    EXPAND_FIELD_NUMBER: _ClassVar[int]
    SIMULATE_FIELD_NUMBER: _ClassVar[int]
    EVALUATE_FIELD_NUMBER: _ClassVar[int]
    LOOKUP_MOVES_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_INFORMATION_SET_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    tag: int
    get_game: GetGameResponse
    initial_state: InitialStateResponse
    query: QueryResponse
    next: NextResponse
    expand: ExpandResponse
    simulate: SimulateResponse
    evaluate: EvaluateResponse
    lookup_moves: LookupMovesResponse
    sample_information_set: SampleInformationSetResponse
    error: RequestStatus
    more: _containers.RepeatedCompositeFieldContainer[SessionResponse]
    def __init__(self, tag: _Optional[int] = ..., get_game: _Optional[_Union[GetGameResponse, _Mapping]] = ..., initial_state: _Optional[_Union[InitialStateResponse, _Mapping]] = ..., query: _Optional[_Union[QueryResponse, _Mapping]] = ..., next: _Optional[_Union[NextResponse, _Mapping]] = ..., expand: _Optional[_Union[ExpandResponse, _Mapping]] = ..., simulate: _Optional[_Union[SimulateResponse, _Mapping]] = ..., evaluate: _Optional[_Union[EvaluateResponse, _Mapping]] = ..., lookup_moves: _Optional[_Union[LookupMovesResponse, _Mapping]] = ..., sample_information_set: _Optional[_Union[SampleInformationSetResponse, _Mapping]] = ..., error: _Optional[_Union[RequestStatus, _Mapping]] = ..., more: _Optional[_Iterable[_Union[SessionResponse, _Mapping]]] = ...) -> None: ...

class RequestStatus(_message.Message):
    __slots__ = ("code", "message", "details")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    details: _containers.RepeatedCompositeFieldContainer[_any_pb2.Any]
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., details: _Optional[_Iterable[_Union[_any_pb2.Any, _Mapping]]] = ...) -> None: ...

class LoadOptions(_message.Message):
    __slots__ = ("case_sensitive", "lenient", "backend", "strict")
    CASE_SENSITIVE_FIELD_NUMBER: _ClassVar[int]
    LENIENT_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    STRICT_FIELD_NUMBER: _ClassVar[int]
    case_sensitive: bool
    lenient: bool
    backend: str
    strict: bool
    def __init__(self, case_sensitive: _Optional[bool] = ..., lenient: _Optional[bool] = ..., backend: _Optional[str] = ..., strict: _Optional[bool] = ...) -> None: ...

class LoadGameRequest(_message.Message):
    __slots__ = ("gdl", "options")
    GDL_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    gdl: str
    options: LoadOptions
    def __init__(self, gdl: _Optional[str] = ..., options: _Optional[_Union[LoadOptions, _Mapping]] = ...) -> None: ...

class LoadGameResponse(_message.Message):
    __slots__ = ("game", "already_loaded")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ALREADY_LOADED_FIELD_NUMBER: _ClassVar[int]
    game: GameInfo
    already_loaded: bool
    def __init__(self, game: _Optional[_Union[GameInfo, _Mapping]] = ..., already_loaded: _Optional[bool] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class GetGameResponse(_message.Message):
    __slots__ = ("game",)
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: GameInfo
    def __init__(self, game: _Optional[_Union[GameInfo, _Mapping]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummary]
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummary, _Mapping]]] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "roles", "fluents", "moves", "backend")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    roles: _containers.RepeatedScalarFieldContainer[str]
    fluents: int
    moves: int
    backend: str
    def __init__(self, game_id: _Optional[str] = ..., roles: _Optional[_Iterable[str]] = ..., fluents: _Optional[int] = ..., moves: _Optional[int] = ..., backend: _Optional[str] = ...) -> None: ...

class LookupMovesRequest(_message.Message):
    __slots__ = ("game_id", "role", "texts")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    role: str
    texts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., role: _Optional[str] = ..., texts: _Optional[_Iterable[str]] = ...) -> None: ...

class LookupMovesResponse(_message.Message):
    __slots__ = ("move_ids",)
    MOVE_IDS_FIELD_NUMBER: _ClassVar[int]
    move_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, move_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("game_id", "roles", "fluents", "moves", "role_moves", "warnings", "statistics", "gdl2", "random_role", "percepts")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    ROLE_MOVES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    GDL2_FIELD_NUMBER: _ClassVar[int]
    RANDOM_ROLE_FIELD_NUMBER: _ClassVar[int]
    PERCEPTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    roles: _containers.RepeatedScalarFieldContainer[str]
    fluents: _containers.RepeatedScalarFieldContainer[str]
    moves: _containers.RepeatedCompositeFieldContainer[MoveEntry]
    role_moves: _containers.RepeatedCompositeFieldContainer[RoleMoves]
    warnings: _containers.RepeatedScalarFieldContainer[str]
    statistics: LoadStatistics
    gdl2: bool
    random_role: str
    percepts: _containers.RepeatedCompositeFieldContainer[PerceptEntry]
    def __init__(self, game_id: _Optional[str] = ..., roles: _Optional[_Iterable[str]] = ..., fluents: _Optional[_Iterable[str]] = ..., moves: _Optional[_Iterable[_Union[MoveEntry, _Mapping]]] = ..., role_moves: _Optional[_Iterable[_Union[RoleMoves, _Mapping]]] = ..., warnings: _Optional[_Iterable[str]] = ..., statistics: _Optional[_Union[LoadStatistics, _Mapping]] = ..., gdl2: _Optional[bool] = ..., random_role: _Optional[str] = ..., percepts: _Optional[_Iterable[_Union[PerceptEntry, _Mapping]]] = ...) -> None: ...

class PerceptEntry(_message.Message):
    __slots__ = ("role", "text")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    role: int
    text: str
    def __init__(self, role: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class MoveEntry(_message.Message):
    __slots__ = ("role", "text")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    role: int
    text: str
    def __init__(self, role: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class RoleMoves(_message.Message):
    __slots__ = ("role", "move_ids")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MOVE_IDS_FIELD_NUMBER: _ClassVar[int]
    role: str
    move_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, role: _Optional[str] = ..., move_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class LoadStatistics(_message.Message):
    __slots__ = ("parse_ms", "validate_ms", "translate_ms", "superset_ms", "ground_ms", "total_ms", "fluents", "moves", "rules", "ground_atoms", "backend", "backend_note", "network_ms", "network_propositions", "network_gates", "network_edges", "backend_steps")
    PARSE_MS_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_MS_FIELD_NUMBER: _ClassVar[int]
    TRANSLATE_MS_FIELD_NUMBER: _ClassVar[int]
    SUPERSET_MS_FIELD_NUMBER: _ClassVar[int]
    GROUND_MS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_MS_FIELD_NUMBER: _ClassVar[int]
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    GROUND_ATOMS_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    BACKEND_NOTE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_MS_FIELD_NUMBER: _ClassVar[int]
    NETWORK_PROPOSITIONS_FIELD_NUMBER: _ClassVar[int]
    NETWORK_GATES_FIELD_NUMBER: _ClassVar[int]
    NETWORK_EDGES_FIELD_NUMBER: _ClassVar[int]
    BACKEND_STEPS_FIELD_NUMBER: _ClassVar[int]
    parse_ms: float
    validate_ms: float
    translate_ms: float
    superset_ms: float
    ground_ms: float
    total_ms: float
    fluents: int
    moves: int
    rules: int
    ground_atoms: int
    backend: str
    backend_note: str
    network_ms: float
    network_propositions: int
    network_gates: int
    network_edges: int
    backend_steps: _containers.RepeatedCompositeFieldContainer[BackendStep]
    def __init__(self, parse_ms: _Optional[float] = ..., validate_ms: _Optional[float] = ..., translate_ms: _Optional[float] = ..., superset_ms: _Optional[float] = ..., ground_ms: _Optional[float] = ..., total_ms: _Optional[float] = ..., fluents: _Optional[int] = ..., moves: _Optional[int] = ..., rules: _Optional[int] = ..., ground_atoms: _Optional[int] = ..., backend: _Optional[str] = ..., backend_note: _Optional[str] = ..., network_ms: _Optional[float] = ..., network_propositions: _Optional[int] = ..., network_gates: _Optional[int] = ..., network_edges: _Optional[int] = ..., backend_steps: _Optional[_Iterable[_Union[BackendStep, _Mapping]]] = ...) -> None: ...

class BackendStep(_message.Message):
    __slots__ = ("backend", "reason", "then", "bound", "relation")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    backend: str
    reason: str
    then: str
    bound: str
    relation: str
    def __init__(self, backend: _Optional[str] = ..., reason: _Optional[str] = ..., then: _Optional[str] = ..., bound: _Optional[str] = ..., relation: _Optional[str] = ...) -> None: ...

class State(_message.Message):
    __slots__ = ("fluents",)
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    fluents: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, fluents: _Optional[_Iterable[int]] = ...) -> None: ...

class JointMove(_message.Message):
    __slots__ = ("moves",)
    MOVES_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, moves: _Optional[_Iterable[int]] = ...) -> None: ...

class StateInfo(_message.Message):
    __slots__ = ("legal", "terminal", "goals")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    GOALS_FIELD_NUMBER: _ClassVar[int]
    legal: _containers.RepeatedCompositeFieldContainer[MoveIds]
    terminal: bool
    goals: _containers.RepeatedCompositeFieldContainer[GoalValues]
    def __init__(self, legal: _Optional[_Iterable[_Union[MoveIds, _Mapping]]] = ..., terminal: _Optional[bool] = ..., goals: _Optional[_Iterable[_Union[GoalValues, _Mapping]]] = ...) -> None: ...

class MoveIds(_message.Message):
    __slots__ = ("ids",)
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, ids: _Optional[_Iterable[int]] = ...) -> None: ...

class GoalValues(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Iterable[int]] = ...) -> None: ...

class InitialStateRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class InitialStateResponse(_message.Message):
    __slots__ = ("state", "info")
    STATE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    state: State
    info: StateInfo
    def __init__(self, state: _Optional[_Union[State, _Mapping]] = ..., info: _Optional[_Union[StateInfo, _Mapping]] = ...) -> None: ...

class QueryRequest(_message.Message):
    __slots__ = ("game_id", "state", "states")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    states: _containers.RepeatedCompositeFieldContainer[State]
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., states: _Optional[_Iterable[_Union[State, _Mapping]]] = ...) -> None: ...

class QueryResponse(_message.Message):
    __slots__ = ("info", "infos")
    INFO_FIELD_NUMBER: _ClassVar[int]
    INFOS_FIELD_NUMBER: _ClassVar[int]
    info: StateInfo
    infos: _containers.RepeatedCompositeFieldContainer[StateInfo]
    def __init__(self, info: _Optional[_Union[StateInfo, _Mapping]] = ..., infos: _Optional[_Iterable[_Union[StateInfo, _Mapping]]] = ...) -> None: ...

class NextRequest(_message.Message):
    __slots__ = ("game_id", "state", "joint_moves", "check_legal")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    JOINT_MOVES_FIELD_NUMBER: _ClassVar[int]
    CHECK_LEGAL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    joint_moves: _containers.RepeatedCompositeFieldContainer[JointMove]
    check_legal: bool
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., joint_moves: _Optional[_Iterable[_Union[JointMove, _Mapping]]] = ..., check_legal: _Optional[bool] = ...) -> None: ...

class NextResponse(_message.Message):
    __slots__ = ("successors",)
    SUCCESSORS_FIELD_NUMBER: _ClassVar[int]
    successors: _containers.RepeatedCompositeFieldContainer[Successor]
    def __init__(self, successors: _Optional[_Iterable[_Union[Successor, _Mapping]]] = ...) -> None: ...

class Successor(_message.Message):
    __slots__ = ("state", "info", "percepts")
    STATE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    PERCEPTS_FIELD_NUMBER: _ClassVar[int]
    state: State
    info: StateInfo
    percepts: _containers.RepeatedCompositeFieldContainer[RolePercepts]
    def __init__(self, state: _Optional[_Union[State, _Mapping]] = ..., info: _Optional[_Union[StateInfo, _Mapping]] = ..., percepts: _Optional[_Iterable[_Union[RolePercepts, _Mapping]]] = ...) -> None: ...

class RolePercepts(_message.Message):
    __slots__ = ("percept_ids",)
    PERCEPT_IDS_FIELD_NUMBER: _ClassVar[int]
    percept_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, percept_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class ExpandRequest(_message.Message):
    __slots__ = ("game_id", "state")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ...) -> None: ...

class ExpandResponse(_message.Message):
    __slots__ = ("info", "children")
    INFO_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    info: StateInfo
    children: _containers.RepeatedCompositeFieldContainer[Child]
    def __init__(self, info: _Optional[_Union[StateInfo, _Mapping]] = ..., children: _Optional[_Iterable[_Union[Child, _Mapping]]] = ...) -> None: ...

class Child(_message.Message):
    __slots__ = ("joint_move", "successor")
    JOINT_MOVE_FIELD_NUMBER: _ClassVar[int]
    SUCCESSOR_FIELD_NUMBER: _ClassVar[int]
    joint_move: JointMove
    successor: Successor
    def __init__(self, joint_move: _Optional[_Union[JointMove, _Mapping]] = ..., successor: _Optional[_Union[Successor, _Mapping]] = ...) -> None: ...

class SimulateRequest(_message.Message):
    __slots__ = ("game_id", "state", "from_initial", "starts", "playouts", "seed", "max_steps", "record_trajectories", "columns", "summary", "record_percepts")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FROM_INITIAL_FIELD_NUMBER: _ClassVar[int]
    STARTS_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    RECORD_TRAJECTORIES_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    RECORD_PERCEPTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    from_initial: bool
    starts: _containers.RepeatedCompositeFieldContainer[SimulateStart]
    playouts: int
    seed: int
    max_steps: int
    record_trajectories: bool
    columns: bool
    summary: bool
    record_percepts: bool
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., from_initial: _Optional[bool] = ..., starts: _Optional[_Iterable[_Union[SimulateStart, _Mapping]]] = ..., playouts: _Optional[int] = ..., seed: _Optional[int] = ..., max_steps: _Optional[int] = ..., record_trajectories: _Optional[bool] = ..., columns: _Optional[bool] = ..., summary: _Optional[bool] = ..., record_percepts: _Optional[bool] = ...) -> None: ...

class SimulateStart(_message.Message):
    __slots__ = ("state", "playouts")
    STATE_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    state: State
    playouts: int
    def __init__(self, state: _Optional[_Union[State, _Mapping]] = ..., playouts: _Optional[int] = ...) -> None: ...

class SimulateResponse(_message.Message):
    __slots__ = ("playouts", "columns", "updates", "elapsed_ms", "summaries")
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    playouts: _containers.RepeatedCompositeFieldContainer[Playout]
    columns: PlayoutColumns
    updates: int
    elapsed_ms: float
    summaries: _containers.RepeatedCompositeFieldContainer[PlayoutSummary]
    def __init__(self, playouts: _Optional[_Iterable[_Union[Playout, _Mapping]]] = ..., columns: _Optional[_Union[PlayoutColumns, _Mapping]] = ..., updates: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., summaries: _Optional[_Iterable[_Union[PlayoutSummary, _Mapping]]] = ...) -> None: ...

class PlayoutSummary(_message.Message):
    __slots__ = ("playouts", "terminal", "total_length", "goals", "updates")
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_LENGTH_FIELD_NUMBER: _ClassVar[int]
    GOALS_FIELD_NUMBER: _ClassVar[int]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    playouts: int
    terminal: int
    total_length: int
    goals: _containers.RepeatedCompositeFieldContainer[GoalCounts]
    updates: int
    def __init__(self, playouts: _Optional[int] = ..., terminal: _Optional[int] = ..., total_length: _Optional[int] = ..., goals: _Optional[_Iterable[_Union[GoalCounts, _Mapping]]] = ..., updates: _Optional[int] = ...) -> None: ...

class GoalCounts(_message.Message):
    __slots__ = ("values", "playouts")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    playouts: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, values: _Optional[_Iterable[int]] = ..., playouts: _Optional[_Iterable[int]] = ...) -> None: ...

class PlayoutColumns(_message.Message):
    __slots__ = ("lengths", "terminal", "goals", "trajectory_moves", "percept_counts", "percept_ids")
    LENGTHS_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    GOALS_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_MOVES_FIELD_NUMBER: _ClassVar[int]
    PERCEPT_COUNTS_FIELD_NUMBER: _ClassVar[int]
    PERCEPT_IDS_FIELD_NUMBER: _ClassVar[int]
    lengths: _containers.RepeatedScalarFieldContainer[int]
    terminal: _containers.RepeatedScalarFieldContainer[bool]
    goals: _containers.RepeatedScalarFieldContainer[int]
    trajectory_moves: _containers.RepeatedScalarFieldContainer[int]
    percept_counts: _containers.RepeatedScalarFieldContainer[int]
    percept_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, lengths: _Optional[_Iterable[int]] = ..., terminal: _Optional[_Iterable[bool]] = ..., goals: _Optional[_Iterable[int]] = ..., trajectory_moves: _Optional[_Iterable[int]] = ..., percept_counts: _Optional[_Iterable[int]] = ..., percept_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class Playout(_message.Message):
    __slots__ = ("goals", "length", "terminal", "trajectory", "percepts")
    GOALS_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_FIELD_NUMBER: _ClassVar[int]
    PERCEPTS_FIELD_NUMBER: _ClassVar[int]
    goals: _containers.RepeatedCompositeFieldContainer[GoalValues]
    length: int
    terminal: bool
    trajectory: _containers.RepeatedCompositeFieldContainer[JointMove]
    percepts: _containers.RepeatedCompositeFieldContainer[StepPercepts]
    def __init__(self, goals: _Optional[_Iterable[_Union[GoalValues, _Mapping]]] = ..., length: _Optional[int] = ..., terminal: _Optional[bool] = ..., trajectory: _Optional[_Iterable[_Union[JointMove, _Mapping]]] = ..., percepts: _Optional[_Iterable[_Union[StepPercepts, _Mapping]]] = ...) -> None: ...

class StepPercepts(_message.Message):
    __slots__ = ("roles",)
    ROLES_FIELD_NUMBER: _ClassVar[int]
    roles: _containers.RepeatedCompositeFieldContainer[RolePercepts]
    def __init__(self, roles: _Optional[_Iterable[_Union[RolePercepts, _Mapping]]] = ...) -> None: ...

class TranslateRequest(_message.Message):
    __slots__ = ("gdl", "options", "relaxed")
    GDL_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RELAXED_FIELD_NUMBER: _ClassVar[int]
    gdl: str
    options: LoadOptions
    relaxed: bool
    def __init__(self, gdl: _Optional[str] = ..., options: _Optional[_Union[LoadOptions, _Mapping]] = ..., relaxed: _Optional[bool] = ...) -> None: ...

class TranslateResponse(_message.Message):
    __slots__ = ("program", "relaxed_program", "warnings")
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    RELAXED_PROGRAM_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    program: str
    relaxed_program: str
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, program: _Optional[str] = ..., relaxed_program: _Optional[str] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class SupersetsRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class SupersetsResponse(_message.Message):
    __slots__ = ("relations", "size", "elapsed_ms", "demanded")
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    DEMANDED_FIELD_NUMBER: _ClassVar[int]
    relations: _containers.RepeatedCompositeFieldContainer[RelationAtoms]
    size: int
    elapsed_ms: float
    demanded: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, relations: _Optional[_Iterable[_Union[RelationAtoms, _Mapping]]] = ..., size: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., demanded: _Optional[_Iterable[str]] = ...) -> None: ...

class RelationAtoms(_message.Message):
    __slots__ = ("name", "arity", "atoms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARITY_FIELD_NUMBER: _ClassVar[int]
    ATOMS_FIELD_NUMBER: _ClassVar[int]
    name: str
    arity: int
    atoms: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., arity: _Optional[int] = ..., atoms: _Optional[_Iterable[str]] = ...) -> None: ...

class RelaxedLayersRequest(_message.Message):
    __slots__ = ("game_id", "state", "from_initial", "max_layers", "without_atoms", "atoms_of")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FROM_INITIAL_FIELD_NUMBER: _ClassVar[int]
    MAX_LAYERS_FIELD_NUMBER: _ClassVar[int]
    WITHOUT_ATOMS_FIELD_NUMBER: _ClassVar[int]
    ATOMS_OF_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    from_initial: bool
    max_layers: int
    without_atoms: bool
    atoms_of: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., from_initial: _Optional[bool] = ..., max_layers: _Optional[int] = ..., without_atoms: _Optional[bool] = ..., atoms_of: _Optional[_Iterable[str]] = ...) -> None: ...

class RelaxedLayersResponse(_message.Message):
    __slots__ = ("layers", "fixpoint", "elapsed_ms", "demanded")
    LAYERS_FIELD_NUMBER: _ClassVar[int]
    FIXPOINT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    DEMANDED_FIELD_NUMBER: _ClassVar[int]
    layers: _containers.RepeatedCompositeFieldContainer[RelaxedLayer]
    fixpoint: bool
    elapsed_ms: float
    demanded: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, layers: _Optional[_Iterable[_Union[RelaxedLayer, _Mapping]]] = ..., fixpoint: _Optional[bool] = ..., elapsed_ms: _Optional[float] = ..., demanded: _Optional[_Iterable[str]] = ...) -> None: ...

class RelaxedLayer(_message.Message):
    __slots__ = ("fluents", "moves", "atoms")
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    ATOMS_FIELD_NUMBER: _ClassVar[int]
    fluents: _containers.RepeatedScalarFieldContainer[int]
    moves: _containers.RepeatedScalarFieldContainer[int]
    atoms: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, fluents: _Optional[_Iterable[int]] = ..., moves: _Optional[_Iterable[int]] = ..., atoms: _Optional[_Iterable[str]] = ...) -> None: ...

class InstantiateRequest(_message.Message):
    __slots__ = ("game_id", "inline_aux", "gddl", "keep_static")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    INLINE_AUX_FIELD_NUMBER: _ClassVar[int]
    GDDL_FIELD_NUMBER: _ClassVar[int]
    KEEP_STATIC_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    inline_aux: bool
    gddl: bool
    keep_static: bool
    def __init__(self, game_id: _Optional[str] = ..., inline_aux: _Optional[bool] = ..., gddl: _Optional[bool] = ..., keep_static: _Optional[bool] = ...) -> None: ...

class InstantiateResponse(_message.Message):
    __slots__ = ("gdl", "statistics", "gddl")
    GDL_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    GDDL_FIELD_NUMBER: _ClassVar[int]
    gdl: str
    statistics: InstantiationStatistics
    gddl: GddlFiles
    def __init__(self, gdl: _Optional[str] = ..., statistics: _Optional[_Union[InstantiationStatistics, _Mapping]] = ..., gddl: _Optional[_Union[GddlFiles, _Mapping]] = ...) -> None: ...

class GddlFiles(_message.Message):
    __slots__ = ("domain", "problem", "partition", "multi_actions", "names")
    class NamesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    PARTITION_FIELD_NUMBER: _ClassVar[int]
    MULTI_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    domain: str
    problem: str
    partition: str
    multi_actions: int
    names: _containers.ScalarMap[str, str]
    def __init__(self, domain: _Optional[str] = ..., problem: _Optional[str] = ..., partition: _Optional[str] = ..., multi_actions: _Optional[int] = ..., names: _Optional[_Mapping[str, str]] = ...) -> None: ...

class InstantiationStatistics(_message.Message):
    __slots__ = ("fluents", "moves", "rules", "facts", "elapsed_ms", "peak_memory_mb", "program", "static_facts", "relations", "tries")
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    PEAK_MEMORY_MB_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    STATIC_FACTS_FIELD_NUMBER: _ClassVar[int]
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    TRIES_FIELD_NUMBER: _ClassVar[int]
    fluents: int
    moves: int
    rules: int
    facts: int
    elapsed_ms: float
    peak_memory_mb: float
    program: str
    static_facts: int
    relations: _containers.RepeatedCompositeFieldContainer[RelationSize]
    tries: _containers.RepeatedCompositeFieldContainer[ProgramTry]
    def __init__(self, fluents: _Optional[int] = ..., moves: _Optional[int] = ..., rules: _Optional[int] = ..., facts: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., peak_memory_mb: _Optional[float] = ..., program: _Optional[str] = ..., static_facts: _Optional[int] = ..., relations: _Optional[_Iterable[_Union[RelationSize, _Mapping]]] = ..., tries: _Optional[_Iterable[_Union[ProgramTry, _Mapping]]] = ...) -> None: ...

class ProgramTry(_message.Message):
    __slots__ = ("program", "elapsed_ms", "stopped")
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    STOPPED_FIELD_NUMBER: _ClassVar[int]
    program: str
    elapsed_ms: float
    stopped: str
    def __init__(self, program: _Optional[str] = ..., elapsed_ms: _Optional[float] = ..., stopped: _Optional[str] = ...) -> None: ...

class RelationSize(_message.Message):
    __slots__ = ("name", "arity", "rules", "facts")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARITY_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    arity: int
    rules: int
    facts: int
    def __init__(self, name: _Optional[str] = ..., arity: _Optional[int] = ..., rules: _Optional[int] = ..., facts: _Optional[int] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("game_id", "role", "heuristic", "parameters", "states", "plan", "previous")
    class ParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HEURISTIC_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    role: str
    heuristic: str
    parameters: _containers.ScalarMap[str, str]
    states: _containers.RepeatedCompositeFieldContainer[State]
    plan: bool
    previous: State
    def __init__(self, game_id: _Optional[str] = ..., role: _Optional[str] = ..., heuristic: _Optional[str] = ..., parameters: _Optional[_Mapping[str, str]] = ..., states: _Optional[_Iterable[_Union[State, _Mapping]]] = ..., plan: _Optional[bool] = ..., previous: _Optional[_Union[State, _Mapping]] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("evaluations", "elapsed_ms")
    EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    evaluations: _containers.RepeatedCompositeFieldContainer[Evaluation]
    elapsed_ms: float
    def __init__(self, evaluations: _Optional[_Iterable[_Union[Evaluation, _Mapping]]] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

class Evaluation(_message.Message):
    __slots__ = ("value", "plan")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    value: float
    plan: _containers.RepeatedCompositeFieldContainer[PlanStep]
    def __init__(self, value: _Optional[float] = ..., plan: _Optional[_Iterable[_Union[PlanStep, _Mapping]]] = ...) -> None: ...

class PlanStep(_message.Message):
    __slots__ = ("layer", "cost", "text", "role", "move_id")
    LAYER_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    layer: int
    cost: int
    text: str
    role: str
    move_id: int
    def __init__(self, layer: _Optional[int] = ..., cost: _Optional[int] = ..., text: _Optional[str] = ..., role: _Optional[str] = ..., move_id: _Optional[int] = ...) -> None: ...

class AnalyzeGameRequest(_message.Message):
    __slots__ = ("game_id",)
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    def __init__(self, game_id: _Optional[str] = ...) -> None: ...

class AnalyzeGameResponse(_message.Message):
    __slots__ = ("successors", "orders", "step_counters", "boards", "quantities", "turn_taking", "noop_moves", "teams", "features", "heuristics", "states_seen", "terminal_states_seen", "elapsed_ms")
    class Chain(_message.Message):
        __slots__ = ("relation", "elements")
        RELATION_FIELD_NUMBER: _ClassVar[int]
        ELEMENTS_FIELD_NUMBER: _ClassVar[int]
        relation: str
        elements: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, relation: _Optional[str] = ..., elements: _Optional[_Iterable[str]] = ...) -> None: ...
    class Order(_message.Message):
        __slots__ = ("relation", "pairs", "successor")
        RELATION_FIELD_NUMBER: _ClassVar[int]
        PAIRS_FIELD_NUMBER: _ClassVar[int]
        SUCCESSOR_FIELD_NUMBER: _ClassVar[int]
        relation: str
        pairs: int
        successor: str
        def __init__(self, relation: _Optional[str] = ..., pairs: _Optional[int] = ..., successor: _Optional[str] = ...) -> None: ...
    class StepCounter(_message.Message):
        __slots__ = ("function", "successor")
        FUNCTION_FIELD_NUMBER: _ClassVar[int]
        SUCCESSOR_FIELD_NUMBER: _ClassVar[int]
        function: str
        successor: str
        def __init__(self, function: _Optional[str] = ..., successor: _Optional[str] = ...) -> None: ...
    class Board(_message.Message):
        __slots__ = ("function", "arity", "inputs", "outputs", "orderings", "cells", "markers", "pieces")
        FUNCTION_FIELD_NUMBER: _ClassVar[int]
        ARITY_FIELD_NUMBER: _ClassVar[int]
        INPUTS_FIELD_NUMBER: _ClassVar[int]
        OUTPUTS_FIELD_NUMBER: _ClassVar[int]
        ORDERINGS_FIELD_NUMBER: _ClassVar[int]
        CELLS_FIELD_NUMBER: _ClassVar[int]
        MARKERS_FIELD_NUMBER: _ClassVar[int]
        PIECES_FIELD_NUMBER: _ClassVar[int]
        function: str
        arity: int
        inputs: _containers.RepeatedScalarFieldContainer[int]
        outputs: _containers.RepeatedScalarFieldContainer[int]
        orderings: _containers.RepeatedScalarFieldContainer[str]
        cells: int
        markers: _containers.RepeatedScalarFieldContainer[str]
        pieces: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, function: _Optional[str] = ..., arity: _Optional[int] = ..., inputs: _Optional[_Iterable[int]] = ..., outputs: _Optional[_Iterable[int]] = ..., orderings: _Optional[_Iterable[str]] = ..., cells: _Optional[int] = ..., markers: _Optional[_Iterable[str]] = ..., pieces: _Optional[_Iterable[str]] = ...) -> None: ...
    class Quantity(_message.Message):
        __slots__ = ("function", "arity", "position", "successor")
        FUNCTION_FIELD_NUMBER: _ClassVar[int]
        ARITY_FIELD_NUMBER: _ClassVar[int]
        POSITION_FIELD_NUMBER: _ClassVar[int]
        SUCCESSOR_FIELD_NUMBER: _ClassVar[int]
        function: str
        arity: int
        position: int
        successor: str
        def __init__(self, function: _Optional[str] = ..., arity: _Optional[int] = ..., position: _Optional[int] = ..., successor: _Optional[str] = ...) -> None: ...
    class RoleNoops(_message.Message):
        __slots__ = ("role", "moves")
        ROLE_FIELD_NUMBER: _ClassVar[int]
        MOVES_FIELD_NUMBER: _ClassVar[int]
        role: str
        moves: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, role: _Optional[str] = ..., moves: _Optional[_Iterable[str]] = ...) -> None: ...
    class Team(_message.Message):
        __slots__ = ("roles",)
        ROLES_FIELD_NUMBER: _ClassVar[int]
        roles: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, roles: _Optional[_Iterable[str]] = ...) -> None: ...
    class Feature(_message.Message):
        __slots__ = ("name", "description")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        name: str
        description: str
        def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
    class Parameter(_message.Message):
        __slots__ = ("name", "default", "allowed")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_FIELD_NUMBER: _ClassVar[int]
        ALLOWED_FIELD_NUMBER: _ClassVar[int]
        name: str
        default: str
        allowed: str
        def __init__(self, name: _Optional[str] = ..., default: _Optional[str] = ..., allowed: _Optional[str] = ...) -> None: ...
    class Heuristic(_message.Message):
        __slots__ = ("name", "summary", "parameters", "plans")
        NAME_FIELD_NUMBER: _ClassVar[int]
        SUMMARY_FIELD_NUMBER: _ClassVar[int]
        PARAMETERS_FIELD_NUMBER: _ClassVar[int]
        PLANS_FIELD_NUMBER: _ClassVar[int]
        name: str
        summary: str
        parameters: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Parameter]
        plans: bool
        def __init__(self, name: _Optional[str] = ..., summary: _Optional[str] = ..., parameters: _Optional[_Iterable[_Union[AnalyzeGameResponse.Parameter, _Mapping]]] = ..., plans: _Optional[bool] = ...) -> None: ...
    SUCCESSORS_FIELD_NUMBER: _ClassVar[int]
    ORDERS_FIELD_NUMBER: _ClassVar[int]
    STEP_COUNTERS_FIELD_NUMBER: _ClassVar[int]
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    QUANTITIES_FIELD_NUMBER: _ClassVar[int]
    TURN_TAKING_FIELD_NUMBER: _ClassVar[int]
    NOOP_MOVES_FIELD_NUMBER: _ClassVar[int]
    TEAMS_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    HEURISTICS_FIELD_NUMBER: _ClassVar[int]
    STATES_SEEN_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_STATES_SEEN_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    successors: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Chain]
    orders: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Order]
    step_counters: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.StepCounter]
    boards: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Board]
    quantities: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Quantity]
    turn_taking: bool
    noop_moves: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.RoleNoops]
    teams: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Team]
    features: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Feature]
    heuristics: _containers.RepeatedCompositeFieldContainer[AnalyzeGameResponse.Heuristic]
    states_seen: int
    terminal_states_seen: int
    elapsed_ms: float
    def __init__(self, successors: _Optional[_Iterable[_Union[AnalyzeGameResponse.Chain, _Mapping]]] = ..., orders: _Optional[_Iterable[_Union[AnalyzeGameResponse.Order, _Mapping]]] = ..., step_counters: _Optional[_Iterable[_Union[AnalyzeGameResponse.StepCounter, _Mapping]]] = ..., boards: _Optional[_Iterable[_Union[AnalyzeGameResponse.Board, _Mapping]]] = ..., quantities: _Optional[_Iterable[_Union[AnalyzeGameResponse.Quantity, _Mapping]]] = ..., turn_taking: _Optional[bool] = ..., noop_moves: _Optional[_Iterable[_Union[AnalyzeGameResponse.RoleNoops, _Mapping]]] = ..., teams: _Optional[_Iterable[_Union[AnalyzeGameResponse.Team, _Mapping]]] = ..., features: _Optional[_Iterable[_Union[AnalyzeGameResponse.Feature, _Mapping]]] = ..., heuristics: _Optional[_Iterable[_Union[AnalyzeGameResponse.Heuristic, _Mapping]]] = ..., states_seen: _Optional[int] = ..., terminal_states_seen: _Optional[int] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

class SampleInformationSetRequest(_message.Message):
    __slots__ = ("game_id", "role", "history", "count", "seed", "max_nodes")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_NODES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    role: str
    history: _containers.RepeatedCompositeFieldContainer[HistoryTurn]
    count: int
    seed: int
    max_nodes: int
    def __init__(self, game_id: _Optional[str] = ..., role: _Optional[str] = ..., history: _Optional[_Iterable[_Union[HistoryTurn, _Mapping]]] = ..., count: _Optional[int] = ..., seed: _Optional[int] = ..., max_nodes: _Optional[int] = ...) -> None: ...

class HistoryTurn(_message.Message):
    __slots__ = ("move", "percepts")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PERCEPTS_FIELD_NUMBER: _ClassVar[int]
    move: str
    percepts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, move: _Optional[str] = ..., percepts: _Optional[_Iterable[str]] = ...) -> None: ...

class SampleInformationSetResponse(_message.Message):
    __slots__ = ("states", "nodes", "seconds", "exhausted")
    STATES_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    EXHAUSTED_FIELD_NUMBER: _ClassVar[int]
    states: _containers.RepeatedCompositeFieldContainer[State]
    nodes: int
    seconds: float
    exhausted: bool
    def __init__(self, states: _Optional[_Iterable[_Union[State, _Mapping]]] = ..., nodes: _Optional[int] = ..., seconds: _Optional[float] = ..., exhausted: _Optional[bool] = ...) -> None: ...

class ErrorDetail(_message.Message):
    __slots__ = ("kind", "message", "line", "column", "bound", "relation", "network", "role", "move_id", "reason")
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    MOVE_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    kind: ErrorKind
    message: str
    line: int
    column: int
    bound: str
    relation: str
    network: bool
    role: str
    move_id: int
    reason: str
    def __init__(self, kind: _Optional[_Union[ErrorKind, str]] = ..., message: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., bound: _Optional[str] = ..., relation: _Optional[str] = ..., network: _Optional[bool] = ..., role: _Optional[str] = ..., move_id: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...
