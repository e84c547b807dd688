from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LoadOptions(_message.Message):
    __slots__ = ("case_sensitive", "lenient", "backend")
    CASE_SENSITIVE_FIELD_NUMBER: _ClassVar[int]
    LENIENT_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    case_sensitive: bool
    lenient: bool
    backend: str
    def __init__(self, case_sensitive: _Optional[bool] = ..., lenient: _Optional[bool] = ..., backend: _Optional[str] = ...) -> None: ...

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

class GameInfo(_message.Message):
    __slots__ = ("game_id", "roles", "fluents", "moves", "role_moves", "warnings", "statistics")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    ROLE_MOVES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    roles: _containers.RepeatedScalarFieldContainer[str]
    fluents: _containers.RepeatedScalarFieldContainer[str]
    moves: _containers.RepeatedCompositeFieldContainer[MoveEntry]
    role_moves: _containers.RepeatedCompositeFieldContainer[RoleMoves]
    warnings: _containers.RepeatedScalarFieldContainer[str]
    statistics: LoadStatistics
    def __init__(self, game_id: _Optional[str] = ..., roles: _Optional[_Iterable[str]] = ..., fluents: _Optional[_Iterable[str]] = ..., moves: _Optional[_Iterable[_Union[MoveEntry, _Mapping]]] = ..., role_moves: _Optional[_Iterable[_Union[RoleMoves, _Mapping]]] = ..., warnings: _Optional[_Iterable[str]] = ..., statistics: _Optional[_Union[LoadStatistics, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("parse_ms", "validate_ms", "translate_ms", "superset_ms", "ground_ms", "total_ms", "fluents", "moves", "rules", "ground_atoms", "backend", "backend_note", "network_ms", "network_propositions", "network_gates", "network_edges")
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
    def __init__(self, parse_ms: _Optional[float] = ..., validate_ms: _Optional[float] = ..., translate_ms: _Optional[float] = ..., superset_ms: _Optional[float] = ..., ground_ms: _Optional[float] = ..., total_ms: _Optional[float] = ..., fluents: _Optional[int] = ..., moves: _Optional[int] = ..., rules: _Optional[int] = ..., ground_atoms: _Optional[int] = ..., backend: _Optional[str] = ..., backend_note: _Optional[str] = ..., network_ms: _Optional[float] = ..., network_propositions: _Optional[int] = ..., network_gates: _Optional[int] = ..., network_edges: _Optional[int] = ...) -> None: ...

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
    __slots__ = ("game_id", "state")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ...) -> None: ...

class QueryResponse(_message.Message):
    __slots__ = ("info",)
    INFO_FIELD_NUMBER: _ClassVar[int]
    info: StateInfo
    def __init__(self, info: _Optional[_Union[StateInfo, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("state", "info")
    STATE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    state: State
    info: StateInfo
    def __init__(self, state: _Optional[_Union[State, _Mapping]] = ..., info: _Optional[_Union[StateInfo, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("game_id", "state", "playouts", "seed", "max_steps", "record_trajectories", "columns")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    RECORD_TRAJECTORIES_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    playouts: int
    seed: int
    max_steps: int
    record_trajectories: bool
    columns: bool
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., playouts: _Optional[int] = ..., seed: _Optional[int] = ..., max_steps: _Optional[int] = ..., record_trajectories: _Optional[bool] = ..., columns: _Optional[bool] = ...) -> None: ...

class SimulateResponse(_message.Message):
    __slots__ = ("playouts", "columns", "updates", "elapsed_ms")
    PLAYOUTS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    UPDATES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    playouts: _containers.RepeatedCompositeFieldContainer[Playout]
    columns: PlayoutColumns
    updates: int
    elapsed_ms: float
    def __init__(self, playouts: _Optional[_Iterable[_Union[Playout, _Mapping]]] = ..., columns: _Optional[_Union[PlayoutColumns, _Mapping]] = ..., updates: _Optional[int] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

class PlayoutColumns(_message.Message):
    __slots__ = ("lengths", "terminal", "goals", "trajectory_moves")
    LENGTHS_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    GOALS_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_MOVES_FIELD_NUMBER: _ClassVar[int]
    lengths: _containers.RepeatedScalarFieldContainer[int]
    terminal: _containers.RepeatedScalarFieldContainer[bool]
    goals: _containers.RepeatedScalarFieldContainer[int]
    trajectory_moves: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, lengths: _Optional[_Iterable[int]] = ..., terminal: _Optional[_Iterable[bool]] = ..., goals: _Optional[_Iterable[int]] = ..., trajectory_moves: _Optional[_Iterable[int]] = ...) -> None: ...

class Playout(_message.Message):
    __slots__ = ("goals", "length", "terminal", "trajectory")
    GOALS_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_FIELD_NUMBER: _ClassVar[int]
    goals: _containers.RepeatedCompositeFieldContainer[GoalValues]
    length: int
    terminal: bool
    trajectory: _containers.RepeatedCompositeFieldContainer[JointMove]
    def __init__(self, goals: _Optional[_Iterable[_Union[GoalValues, _Mapping]]] = ..., length: _Optional[int] = ..., terminal: _Optional[bool] = ..., trajectory: _Optional[_Iterable[_Union[JointMove, _Mapping]]] = ...) -> None: ...

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
    __slots__ = ("relations", "size", "elapsed_ms")
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    relations: _containers.RepeatedCompositeFieldContainer[RelationAtoms]
    size: int
    elapsed_ms: float
    def __init__(self, relations: _Optional[_Iterable[_Union[RelationAtoms, _Mapping]]] = ..., size: _Optional[int] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

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
    __slots__ = ("game_id", "state", "max_layers")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MAX_LAYERS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: State
    max_layers: int
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[State, _Mapping]] = ..., max_layers: _Optional[int] = ...) -> None: ...

class RelaxedLayersResponse(_message.Message):
    __slots__ = ("layers", "fixpoint", "elapsed_ms")
    LAYERS_FIELD_NUMBER: _ClassVar[int]
    FIXPOINT_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    layers: _containers.RepeatedCompositeFieldContainer[RelaxedLayer]
    fixpoint: bool
    elapsed_ms: float
    def __init__(self, layers: _Optional[_Iterable[_Union[RelaxedLayer, _Mapping]]] = ..., fixpoint: _Optional[bool] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

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
    __slots__ = ("game_id", "inline_aux", "gddl")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    INLINE_AUX_FIELD_NUMBER: _ClassVar[int]
    GDDL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    inline_aux: bool
    gddl: bool
    def __init__(self, game_id: _Optional[str] = ..., inline_aux: _Optional[bool] = ..., gddl: _Optional[bool] = ...) -> None: ...

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
    __slots__ = ("fluents", "moves", "rules", "facts", "elapsed_ms", "peak_memory_mb")
    FLUENTS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    PEAK_MEMORY_MB_FIELD_NUMBER: _ClassVar[int]
    fluents: int
    moves: int
    rules: int
    facts: int
    elapsed_ms: float
    peak_memory_mb: float
    def __init__(self, fluents: _Optional[int] = ..., moves: _Optional[int] = ..., rules: _Optional[int] = ..., facts: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., peak_memory_mb: _Optional[float] = ...) -> None: ...
