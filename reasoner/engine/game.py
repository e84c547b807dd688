"""The public state machine: ``Game.from_gdl(text)`` and everything a player asks of it."""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from reasoner.arguments import ArgumentError
from reasoner.asp.percepts import PerceptOracle, Percepts, PerceptSource
from reasoner.asp.relaxed_layers import RelaxedLayers
from reasoner.asp.superset import PortableSuperset, Superset, compute_superset
from reasoner.asp.translate import Translation, translate
from reasoner.core.backend_reason import BackendReason
from reasoner.core.evaluation import Evaluation, StateHeuristics, heuristics_of
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import JointMove, Move, State, StateInfo, move_key
from reasoner.core.walk import Simulation
from reasoner.engine.backend import (
    Backend,
    BuiltMachine,
    StateMachine,
    build_machine,
    check_backend,
    network_machine,
)
from reasoner.engine.information_set import Turn, sample_information_set
from reasoner.engine.layers import game_layers
from reasoner.engine.limits import BoundedWork, Limits
from reasoner.errors import (
    GdlSyntaxError,
    GoalError,
    GoalValueError,
    IllegalMoveError,
    InvalidStateError,
    ResourceLimitError,
)
from reasoner.gdl.collector import paused_collector
from reasoner.gdl.parser import parse_gdl, parse_term
from reasoner.gdl.syntax import RANDOM_ROLE, GameDescription
from reasoner.gdl.validation import UNSTRATIFIED_RELATIONS, located_goal_value, validate
from reasoner.gdl.validation import Warning as RuleWarning
from reasoner.propnet.native import NativeMachine
from reasoner.propnet.network import Network, NetworkBounds, NetworkSize

__all__ = ["Game", "LoadStatistics", "ProbedLoad", "ValidatedRules", "validate_rules"]

# The most steps a playout may take: the kernel counts them in a C int.
_MOST_STEPS = 2**31 - 1

# A joint move written by a person: each role's move as a Move or as GDL text.
MoveChoice = Mapping[str, Move | str]


@dataclass(frozen=True)
class LoadStatistics:
    """Sizes and timings of one load (milliseconds; a bounded load adds each stage's time in
    its child to its time here)."""

    parse_ms: float
    validate_ms: float
    translate_ms: float
    superset_ms: float
    ground_ms: float
    fluents: int
    moves: int
    rules: int
    ground_atoms: int
    backend: Backend = Backend.CLINGO  # the backend that answers: CLINGO, PROPNET or POSITION
    # Why "auto" settled for this backend (no steps where its first choice answers).
    backend_reason: BackendReason = field(default_factory=BackendReason)
    network_ms: float = 0.0  # of ground_ms: building the network (or trying to)
    network: NetworkSize | None = None

    @property
    def backend_note(self) -> str:
        """:attr:`backend_reason` in words (empty where the first choice answers)."""
        return str(self.backend_reason)

    @property
    def total_ms(self) -> float:
        return (self.parse_ms + self.validate_ms + self.translate_ms + self.superset_ms
                + self.ground_ms)


@dataclass(frozen=True)
class ProbedLoad:
    """What a load in a bounded child sends back, so that the load in its parent repeats
    none of the grounding: the statistics (with the backend "auto" settled for), the
    relaxed superset and, where one was built, the network (plain data, both)."""

    statistics: LoadStatistics
    superset: PortableSuperset
    network: Network | None


class Game:
    """A GDL game's state machine, answered by one of the backends (see
    :mod:`reasoner.engine.backend`).

    Build one with :meth:`from_gdl` or :meth:`from_file`. Roles, fluents and moves are GDL
    text at this surface (lower case, single spaces); states and moves are cheap values.
    A game is safe to share between threads (queries are serialised).
    """

    def __init__(
        self,
        description: GameDescription,
        translation: Translation | None,
        machine: StateMachine,
        warnings: tuple[str, ...],
        statistics: LoadStatistics,
        case_sensitive: bool,
        percepts: PerceptSource | None = None,
    ) -> None:
        self.description = description
        self._translation = translation
        self.warnings = warnings
        self.statistics = statistics
        self.machine = machine
        self._case_sensitive = case_sensitive
        self.backend = statistics.backend
        self.roles: tuple[str, ...] = machine.roles
        self._role_index = {role: i for i, role in enumerate(self.roles)}
        self.fluents: tuple[str, ...] = machine.fluent_texts
        self._fluent_index = {text: i for i, text in enumerate(self.fluents)}
        self._moves = tuple(
            Move(i, self.roles[r], text)
            for i, (r, text) in enumerate(zip(machine.move_role, machine.move_texts, strict=True))
        )
        self._move_index = {(m.role, m.text): m for m in self._moves}
        self.move_texts: tuple[str, ...] = machine.move_texts
        self._move_role = machine.move_role
        self._transition = machine.transition  # bound once: step is the playouts' hot path
        self.initial_state = State(machine.init_bits, self.fluents)
        self._heuristics: StateHeuristics | None = None  # built on the first evaluate
        self._heuristics_lock = threading.Lock()
        # GDL-II: what answers the percepts (None in a plain GDL game).
        self._percepts = percepts
        self.is_gdl2 = percepts is not None
        self.random_role: str | None = (RANDOM_ROLE if self.is_gdl2 and RANDOM_ROLE in self.roles
                                        else None)
        self.percept_table: tuple[tuple[str, str], ...] = (
            tuple((self.roles[r], text) for r, text in
                  zip(percepts.percept_role, percepts.percept_texts, strict=True))
            if percepts is not None else ())

    @property
    def translation(self) -> Translation:
        """The game's ASP programs (see :func:`reasoner.asp.translate.translate`); where
        the load took its machine from a bounded child, made on first use."""
        found = self._translation
        if found is None:
            found = self._translation = translate(self.description)
        return found

    # -- construction --------------------------------------------------------------------

    @classmethod
    def from_gdl(cls, text: str, *, case_sensitive: bool = False, strict: bool = False,
                 limits: Limits | None = None, backend: Backend | str = Backend.AUTO) -> Game:
        """Parse, validate, translate and ground a game.

        Args:
            text: GDL rules.
            case_sensitive: Read names case-sensitively (GGP-Base's reading).
            strict: Refuse what the default reading takes with a warning in
                :attr:`warnings` (a name used with two arities, read as two symbols; a
                connective's name inside a term, read as a function symbol; an old flat
                ``(base cell 1 2)``, read as ``(base (cell 1 2))``), as the GDL
                specification does; see :mod:`reasoner.gdl.validation`.
            limits: Time and memory bounds for loading. The load runs first in a
                bounded child process (clingo's grounder cannot be interrupted); a load
                that fits sends back its superset and network, so the load here grounds
                nothing again (it reads, validates and translates the rules, and compiles
                the network; where "auto" settled for top-down or position it takes that
                backend straight away).
            backend: "clingo" (queries are clingo solves), "native" (a compiled
                propositional network that the native kernel interprets; refused with
                ResourceLimitError when it exceeds its bounds or the kernel's),
                "propnet" (the same network as generated Python), "position" (each
                position ground as it is asked, for games too large to ground once),
                "compiled" (the rules compiled to C, each position evaluated as it is
                asked), "topdown" (each position answered by SWI-Prolog's resolution) or
                "auto" (the network when it builds within its bounds, on the kernel where
                it is built, else clingo when the program grounds within them, else
                compiled or topdown, whichever walks a few steps sooner, else position;
                :attr:`LoadStatistics.backend_note` says why).

        Raises:
            GdlSyntaxError: malformed text, with line and column.
            GdlValidationError: invalid GDL, naming the rule.
            ResourceLimitError: loading exceeded ``limits``; the message names the bound
                and the relation whose rules grew most.
            ValueError: an unknown backend.
        """
        backend = check_backend(backend)
        if limits is None:
            t0 = time.perf_counter()
            description = parse_gdl(text, case_sensitive=case_sensitive)
            return cls.from_description(description, case_sensitive=case_sensitive,
                                        strict=strict,
                                        parse_ms=(time.perf_counter() - t0) * 1e3,
                                        backend=backend)
        # The child loads the game, grounding and all; meanwhile this process reads and
        # validates the rules, which it needs whatever the child sends back (merrills's
        # instantiated game: 13 s of a 51 s check that did them after the child).
        with BoundedWork(probe_load, (text, case_sensitive, strict, backend),
                         limits) as work:
            t0 = time.perf_counter()
            with paused_collector():
                description = parse_gdl(text, case_sensitive=case_sensitive)
            parse_ms = (time.perf_counter() - t0) * 1e3
            validated = validate_rules(description, strict)
            try:
                probed = work.result()
            except ResourceLimitError as error:
                from reasoner.engine.overrun import explain_overrun

                raise explain_overrun(error, text, limits,
                                      case_sensitive=case_sensitive) from None
        return cls.from_description(description, case_sensitive=case_sensitive, strict=strict,
                                    parse_ms=parse_ms, backend=backend, probed=probed,
                                    validated=validated)

    @classmethod
    def from_description(cls, description: GameDescription, *, case_sensitive: bool = False,
                         strict: bool = False, parse_ms: float = 0.0,
                         backend: Backend | str = Backend.AUTO,
                         network_bounds: NetworkBounds | None = None,
                         probed: ProbedLoad | None = None,
                         validated: ValidatedRules | None = None) -> Game:
        """Validate, translate and ground an already parsed game (see :meth:`from_gdl`);
        ``network_bounds`` replace the network's own bounds ("propnet") or auto's
        (:data:`reasoner.engine.backend.AUTO_BOUNDS`). ``probed``: the same load done in a
        bounded child (with the same backend and reading); its superset and network are
        taken instead of grounding again, and where "auto" settled there for a backend
        without a network, this load takes it straight away and keeps the child's
        reason. ``validated``: :func:`validate_rules` of this description with the same
        ``strict``, done already (while the child worked), and not done again."""
        loaded = _load(description, strict, check_backend(backend), network_bounds, probed,
                       validated)
        return cls(description, loaded.translation, loaded.built.machine, loaded.warnings,
                   loaded.statistics(parse_ms, probed), case_sensitive, loaded.percepts)

    @classmethod
    def from_file(cls, path: str | Path, *, case_sensitive: bool = False,
                  strict: bool = False, limits: Limits | None = None,
                  backend: Backend | str = Backend.AUTO) -> Game:
        """Load a game from a ``.kif`` file (UTF-8; undecodable bytes are replaced).

        >>> game = Game.from_file("games/tictactoe.kif")
        >>> game.roles
        ('xplayer', 'oplayer')
        >>> sorted(move.text for move in game.legal_moves(game.initial_state, "xplayer"))[:3]
        ['(mark 1 1)', '(mark 1 2)', '(mark 1 3)']
        >>> [move.text for move in game.legal_moves(game.initial_state, "oplayer")]
        ['noop']
        """
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        return cls.from_gdl(text, case_sensitive=case_sensitive, strict=strict, limits=limits,
                            backend=backend)

    @property
    def network(self) -> Network | None:
        """The compiled network when the propnet backend answers."""
        return self.machine.network

    # -- tables --------------------------------------------------------------------------

    def moves(self, role: str) -> tuple[Move, ...]:
        """Every move the role could ever make (the relaxed superset), in table order."""
        self._role(role)
        return tuple(m for m in self._moves if m.role == role)

    @property
    def all_moves(self) -> tuple[Move, ...]:
        """The whole move table: move ``i`` has id ``i``."""
        return self._moves

    def move(self, role: str, text: str) -> Move:
        """The move of ``role`` written as GDL text, e.g. ``game.move("xplayer", "(mark 1 1)")``.

        Raises:
            IllegalMoveError: the role can never make such a move.
        """
        self._role(role)
        key = move_key(role, text, case_sensitive=self._case_sensitive)
        move = self._move_index.get((role, key))
        if move is None:
            raise IllegalMoveError(f"{role} can never play {key} in this game", role=role,
                                   reason="never-legal")
        return move

    def move_id(self, role: str, text: str) -> int:
        """The id of ``role``'s move written as GDL text (see :meth:`move`); the name the
        client's :meth:`client.RemoteGame.move_id` has, so players look moves up alike on
        both.

        Raises:
            IllegalMoveError: the role can never make such a move.
        """
        return self.move(role, text).id

    def state_from_fluents(self, fluents: Iterable[str]) -> State:
        """A state from fluents written as GDL text.

        Raises:
            InvalidStateError: a fluent is malformed or can never hold in this game.
        """
        bits = 0
        for text in fluents:
            # A fluent written as the game writes it (a state's own fluents, handed back)
            # is its own key: parsing it again would give the same text.
            index = self._fluent_index.get(text)
            if index is not None:
                bits |= 1 << index
                continue
            try:
                key = str(parse_term(text, case_sensitive=self._case_sensitive))
            except GdlSyntaxError as error:
                raise InvalidStateError(f"malformed fluent {text!r}: {error}",
                                        reason="malformed") from error
            index = self._fluent_index.get(key)
            if index is None:
                raise InvalidStateError(f"{key} can never hold in this game",
                                        reason="never-holds")
            bits |= 1 << index
        return State(bits, self.fluents)

    def state_from_ids(self, ids: Iterable[int]) -> State:
        """A state from fluent ids (indices into :attr:`fluents`)."""
        bits = 0
        for index in ids:
            if not 0 <= index < len(self.fluents):
                raise InvalidStateError(f"fluent id {index} is not in the fluent table",
                                        reason="unknown-fluent")
            bits |= 1 << index
        return State(bits, self.fluents)

    # -- queries -------------------------------------------------------------------------

    def legal_moves(self, state: State, role: str) -> tuple[Move, ...]:
        """The legal moves of ``role`` in ``state``."""
        index = self._role(role)
        moves = self._moves
        return tuple(moves[i] for i in self._info(state).legal[index])

    def legal_joint_moves(self, state: State) -> list[JointMove]:
        """Every combination of one legal move per role, in role order."""
        info = self._info(state)
        moves = self._moves
        per_role = [[moves[i] for i in ids] for ids in info.legal]
        return [JointMove(combo) for combo in itertools.product(*per_role)]

    def is_terminal(self, state: State) -> bool:
        """Whether the state is terminal."""
        return self._info(state).terminal

    def goals(self, state: State) -> dict[str, int]:
        """The goal value of every role.

        Raises:
            GoalError: a role has no goal value, or several, in this state.
        """
        info = self._info(state)
        return {role: self._single_goal(role, values)
                for role, values in zip(self.roles, info.goals, strict=True)}

    def goal(self, state: State, role: str) -> int:
        """The goal value of one role (see :meth:`goals`)."""
        return self._single_goal(role, self._info(state).goals[self._role(role)])

    def next_state(self, state: State, joint_move: MoveChoice) -> State:
        """The successor of ``state`` when every role plays its move of ``joint_move``
        (role to :class:`Move` or GDL text; a :class:`JointMove` is one), legality checked.

        Raises:
            IllegalMoveError: a role is missing or unknown, or a move is not legal.
        """
        return self.step(state, self._joint_ids(joint_move))[0]

    def step(self, state: State, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[State, StateInfo]:
        """The successor under a joint move given as move ids (one per role, role order),
        with the successor's info, from a single solve. Search loops that play only legal
        moves pass ``check_legal=False`` and save the state's own query.

        Raises:
            IllegalMoveError: a wrong number of moves, a move id of another role or outside
                the move table, or (with ``check_legal``) a move that is not legal.
            InvalidStateError: the state is not one of this game's.
        """
        self._check_state(state)
        move_role = self._move_role
        if len(joint) != len(self.roles):
            raise IllegalMoveError(f"a joint move needs one move per role ({len(self.roles)}), "
                                   f"got {len(joint)}", reason="joint-move")
        for index, move in enumerate(joint):
            if not 0 <= move < len(move_role) or move_role[move] != index:
                raise IllegalMoveError(f"move id {move} is not a move of role "
                                       f"{self.roles[index]} in this game",
                                       role=self.roles[index], move_id=move,
                                       reason="unknown-move")
        info, next_bits, next_info = self._transition(state.bits, joint, check_legal)
        if info is not None:
            for role_index, move in enumerate(joint):
                if move not in info.legal[role_index]:
                    raise IllegalMoveError(
                        f"{self._moves[move].text} is not legal for {self.roles[role_index]} "
                        "in this state", role=self.roles[role_index], move_id=move,
                        reason="not-legal")
        return State(next_bits, self.fluents), next_info

    def sees(self, state: State, joint_move: MoveChoice) -> dict[str, tuple[str, ...]]:
        """GDL-II: what each role perceives when ``joint_move`` (role to :class:`Move` or
        GDL text) is played in ``state``, legality checked: per role, its percepts as GDL
        text, sorted (none for every role in a plain GDL game).

        >>> game = Game.from_file("games/montyhall.kif")
        >>> state = game.next_state(game.initial_state, {"candidate": "(choose 1)",
        ...                                               "random": "(hide_car 3)"})
        >>> game.sees(state, {"candidate": "noop", "random": "(open_door 2)"})["candidate"]
        ('(did candidate noop)', '(open_door 2)')

        Raises:
            IllegalMoveError: a role is missing or unknown, or a move is not legal.
        """
        joint = self._joint_ids(joint_move)
        self.step(state, joint)  # the legality check
        percepts = self.percept_ids(state, joint)
        return {role: tuple(sorted(self.percept_table[i][1] for i in ids))
                for role, ids in zip(self.roles, percepts, strict=True)}

    @property
    def percept_source(self) -> str:
        """GDL-II: what answers the percepts: ``"network"`` (outputs of the native kernel's
        network, read in its evaluation of the joint move), ``"clingo"`` (the rules that
        ``sees`` reads, ground once, :mod:`reasoner.asp.percepts`); ``""`` for a plain
        game."""
        return "" if self._percepts is None else self._percepts.source

    def percept_ids(self, state: State, joint: tuple[int, ...]) -> Percepts:
        """GDL-II: per role (role order), the ids of its percepts (indices into
        :attr:`percept_table`) when ``joint`` (move ids) is played in ``state``; legality is
        not checked (see :meth:`step`)."""
        self._check_state(state)
        if self._percepts is None:
            return tuple(() for _ in self.roles)
        return self._percepts.percepts(state.bits, joint)

    def percepts(self, state: State, joint: tuple[int, ...], *,
                 check_legal: bool = True) -> Percepts:
        """GDL-II: :meth:`percept_ids`, with ``check_legal`` the joint move's legality
        checked first (see :meth:`step`); the signature :meth:`client.RemoteGame.percepts`
        has, so that players ask both alike."""
        if check_legal:
            self.step(state, joint)
        return self.percept_ids(state, joint)

    def sample_information_set(self, role: str, history: Sequence[tuple[str, Sequence[str]]],
                               count: int = 1, *, seed: int = 0, max_nodes: int = 0
                               ) -> tuple[list[State], int, bool]:
        """GDL-II: up to ``count`` states consistent with ``role``'s history of (move,
        percepts) per turn, the joint moves tried, and whether the budget ran out (see
        :func:`reasoner.engine.information_set.sample_information_set`; ``max_nodes`` 0:
        its default); the signature :meth:`client.RemoteGame.sample_information_set` has."""
        turns = [Turn(move, tuple(percepts)) for move, percepts in history]
        found = sample_information_set(self, role, turns, count, seed=seed,
                                       max_nodes=max_nodes or 100_000)
        return list(found.states), found.nodes, found.exhausted

    # -- the game view of players and search loops (ids) ---------------------------------

    def initial(self) -> tuple[State, StateInfo]:
        """The initial state and what it answers."""
        return self.initial_state, self._info(self.initial_state)

    def relaxed_layers(self, state: State, max_layers: int = 100,
                       atoms_of: Collection[str] | None = None) -> RelaxedLayers:
        """The relaxed layers from ``state`` until nothing new appears (or ``max_layers``):
        every relation kept, so that the layers show when a goal value first becomes
        reachable; ``atoms_of``: only these relations' atoms (empty: none; see
        :mod:`reasoner.asp.relaxed_layers`)."""
        return game_layers(self.description, state.fluents, max_layers, atoms_of,
                           self.fluents)

    def info(self, state: State) -> StateInfo:
        """Legal move ids per role, terminal, goal values per role, in one call."""
        return self._info(state)

    def expand(self, state: State, *, max_children: int | None = None,
               check: Callable[[], None] | None = None
               ) -> tuple[StateInfo, list[tuple[tuple[int, ...], State, StateInfo]]]:
        """The state's info and every legal joint move (ids) with its successor; ``check``
        is called after every 256 successors and may raise to stop.

        Raises:
            ResourceLimitError: the state has more than ``max_children`` joint moves.
        """
        info = self._info(state)
        count = math.prod(len(legal) for legal in info.legal)
        if max_children is not None and count > max_children:
            raise ResourceLimitError(f"the state has {count} joint moves; Expand returns at "
                                     f"most {max_children} (use Query and Next)", bound="size",
                                     limit=max_children, reason="children")
        children = []
        for child in self.children(state, info):
            children.append(child)
            if check is not None and len(children) % 256 == 0:
                check()
        return info, children

    def children(self, state: State, info: StateInfo
                 ) -> Iterator[tuple[tuple[int, ...], State, StateInfo]]:
        """Every legal joint move (ids) of ``state`` (whose answers are ``info``) with its
        successor and the successor's answers, one at a time."""
        for joint in itertools.product(*info.legal):
            successor, following = self.step(state, joint, check_legal=False)
            yield joint, successor, following

    def simulate(self, state: State, playouts: int = 1, seed: int = 0, max_steps: int = 1000,
                 *, record: bool = False,
                 check: Callable[[], None] | None = None) -> Simulation:
        """``playouts`` seeded random playouts from ``state`` (see
        :meth:`reasoner.core.game_view.GameView.simulate`): the kernel's lanes on the
        native backend (on a GPU with ``GDL_REASONER_GPU`` set), bit-parallel batches on
        the Python network, :func:`reasoner.core.walk.simulate_sequentially` on
        clingo, top-down and position; ``check`` is called between steps, playouts or
        chunks of playouts and may raise to stop. A playout stops after ``max_steps``
        joint moves (0: the start alone); the seed is taken modulo 2**64, as the service's
        unsigned 64-bit seeds, so every backend takes any int.

        Raises:
            ValueError: ``playouts`` below 0, or ``max_steps`` outside 0..2**31-1.
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        self._check_playouts(state, playouts, max_steps)
        start = time.perf_counter()
        run = self.machine.simulate(state.bits, playouts, seed % 2**64, max_steps, record,
                                    check)
        return replace(run, elapsed_ms=(time.perf_counter() - start) * 1e3)

    def evaluate(self, states: Sequence[State], role: str, heuristic: str,
                 parameters: Mapping[str, object] | None = None, *, plan: bool = False,
                 previous: State | None = None) -> list[Evaluation]:
        """A heuristic's values of ``states`` for ``role`` (the heuristics and their
        parameters are :data:`reasoner.heuristics.table.HEURISTICS`), as
        :meth:`client.RemoteGame.evaluate` answers them on a service; the game's
        heuristics are built on the first call and kept.

        >>> game = Game.from_file("games/tictactoe.kif")
        >>> [e.value for e in game.evaluate([game.initial_state], "xplayer", "mobility")]
        [0.9]

        Raises:
            HeuristicError: an unknown heuristic, parameter or role, a value out of range,
                or a heuristic that does not apply to this game or state.
            ResourceLimitError: the game is too large for the heuristic's structures.
        """
        with self._heuristics_lock:
            if self._heuristics is None:
                self._heuristics = heuristics_of(self)
            heuristics = self._heuristics
        text = {name: str(value) for name, value in (parameters or {}).items()}
        return heuristics.evaluate(heuristic, role, states, text, plan=plan, previous=previous)

    def summarize(self, state: State, playouts: int = 1, seed: int = 0, max_steps: int = 1000,
                  *, check: Callable[[], None] | None = None) -> PlayoutSummary:
        """The totals of :meth:`simulate`'s playouts (the same playouts and arguments):
        how often each role ended with each goal value, how many ended terminal, how many
        joint moves they made. On the native backend the columns are never built, and on
        a GPU only the totals leave it.

        Raises:
            ValueError: ``playouts`` below 0, or ``max_steps`` outside 0..2**31-1.
            NoLegalMoveError: a role has no legal move in a non-terminal state.
        """
        summarize = getattr(self.machine, "summarize", None)
        if summarize is None:
            run = self.simulate(state, playouts, seed, max_steps, check=check)
            return PlayoutSummary.from_columns(run.lengths, run.terminal, run.flat_goals(),
                                               len(self.roles), run.updates)
        self._check_playouts(state, playouts, max_steps)
        summary: PlayoutSummary = summarize(state.bits, playouts, seed % 2**64, max_steps,
                                            check)
        return summary

    # -- internals -----------------------------------------------------------------------

    def _check_playouts(self, state: State, playouts: int, max_steps: int) -> None:
        """What simulate and summarize check before they play: the counts and the state."""
        if playouts < 0:
            raise ArgumentError(f"playouts must be at least 0, got {playouts}",
                                argument="playouts", value=playouts)
        if not 0 <= max_steps <= _MOST_STEPS:
            raise ArgumentError(f"max_steps must be from 0 to {_MOST_STEPS}, got {max_steps}",
                                argument="max_steps", value=max_steps,
                                allowed=range(_MOST_STEPS + 1))
        self._check_state(state)

    def _check_state(self, state: State) -> None:
        if state.__class__ is not State:
            raise InvalidStateError(f"expected a State, got {type(state).__name__}",
                                    reason="not-a-state")
        table = state.table
        if table is not self.fluents and table != self.fluents:
            raise InvalidStateError("the state is not one of this game's (its fluent table "
                                    "differs)", reason="other-game")
        if state.bits >> len(table):
            raise InvalidStateError("the state names fluent ids outside this game's table",
                                    reason="unknown-fluent")

    def _info(self, state: State) -> StateInfo:
        self._check_state(state)
        return self.machine.info(state.bits)

    def _role(self, role: str) -> int:
        index = self._role_index.get(role)
        if index is None:
            raise IllegalMoveError(f"unknown role {role!r}; the roles are {list(self.roles)}",
                                   role=role, reason="unknown-role")
        return index

    def _single_goal(self, role: str, values: tuple[int, ...]) -> int:
        if len(values) == 1:
            return values[0]
        if not values:
            raise GoalError(f"role {role} has no goal value in this state", role=role,
                            values=(), reason="no-goal-value")
        raise GoalError(f"role {role} has several goal values in this state: "
                        f"{sorted(values)}", role=role, values=tuple(sorted(values)),
                        reason="several-goal-values")

    def _joint_ids(self, joint_move: MoveChoice) -> tuple[int, ...]:
        unknown = [role for role in joint_move if role not in self._role_index]
        if unknown:
            raise IllegalMoveError(f"unknown role {unknown[0]!r} in the joint move; the roles "
                                   f"are {list(self.roles)}", role=unknown[0],
                                   reason="unknown-role")
        ids = []
        for role in self.roles:
            if role not in joint_move:
                raise IllegalMoveError(f"the joint move has no move for role {role}",
                                       role=role, reason="missing-role")
            move = joint_move[role]
            if isinstance(move, Move):
                if move.role != role or self._moves[move.id] != move:
                    raise IllegalMoveError(f"{move!r} is not a move of {role} in this game",
                                           role=role, reason="unknown-move")
                ids.append(move.id)
            else:
                ids.append(self.move(role, move).id)
        return tuple(ids)

    def __repr__(self) -> str:
        return (f"<Game roles={list(self.roles)} fluents={len(self.fluents)} "
                f"moves={len(self._moves)} backend={self.backend}>")


def _percept_source(machine: StateMachine, translation: Translation | None, superset: Superset,
                    description: GameDescription) -> PerceptSource | None:
    """What answers a GDL-II game's percepts (None for a plain game): its network on the
    native kernel, where the ``sees`` atoms are nodes, else clingo over the rules ``sees``
    reads."""
    if not description.is_gdl2:
        return None
    if isinstance(machine, NativeMachine):
        return machine.percepts()
    assert translation is not None, "_loaded translates where an oracle reads the rules"
    return PerceptOracle(translation, superset, description.roles)


@dataclass(frozen=True)
class _Loaded:
    """The parts of a load, before they become a :class:`Game`."""

    warnings: tuple[str, ...]
    translation: Translation | None  # None: the machine came from the child (see _loaded)
    rules: int  # flat rules, counted here or in the child
    superset: Superset
    built: BuiltMachine
    milliseconds: tuple[float, float, float, float]  # validate, translate, superset, ground
    percepts: PerceptSource | None = None  # GDL-II's percepts

    def statistics(self, parse_ms: float, probed: ProbedLoad | None) -> LoadStatistics:
        machine = self.built.machine
        network = self.built.network
        validate_ms, translate_ms, superset_ms, ground_ms = self.milliseconds
        settled = probed.statistics if probed else None  # keeps the child's reasons
        if settled:  # each stage's time is what it took in the child and here
            parse_ms += settled.parse_ms
            validate_ms += settled.validate_ms
            translate_ms += settled.translate_ms
            superset_ms += settled.superset_ms
            ground_ms += settled.ground_ms
        return LoadStatistics(
            parse_ms=parse_ms, validate_ms=validate_ms, translate_ms=translate_ms,
            superset_ms=superset_ms, ground_ms=ground_ms, fluents=len(machine.fluent_texts),
            moves=len(machine.move_texts), rules=self.rules,
            ground_atoms=machine.ground_atom_count, backend=self.built.backend,
            backend_reason=settled.backend_reason if settled else self.built.note,
            network_ms=settled.network_ms if settled else self.built.network_ms,
            network=network.size if network is not None else None)


@dataclass(frozen=True)
class ValidatedRules:
    """What validating a game's rules found (see :func:`validate_rules`)."""

    warnings: tuple[RuleWarning, ...]
    strict: bool
    milliseconds: float


def validate_rules(description: GameDescription, strict: bool) -> ValidatedRules:
    """Validate the rules ahead of their load (while a bounded child loads them), for
    :meth:`Game.from_description`'s ``validated``.

    Raises:
        GdlValidationError: invalid GDL, naming the rule.
    """
    t0 = time.perf_counter()
    with paused_collector():
        found = validate(description, strict=strict)
    return ValidatedRules(tuple(found), strict, (time.perf_counter() - t0) * 1e3)


def _load(description: GameDescription, strict: bool, backend: Backend,
          network_bounds: NetworkBounds | None, probed: ProbedLoad | None,
          validated: ValidatedRules | None = None) -> _Loaded:
    """Validate, translate and ground (see :meth:`Game.from_description`)."""
    if validated is None:
        validated = validate_rules(description, strict)
    elif validated.strict != strict:
        raise ValueError("the rules were validated with another strictness")
    # A load makes millions of objects without cycles, most of them kept: the cyclic
    # collector, left on between the phases that pause it themselves, walked them all again
    # (atariGo_7x7's instantiated game: a bounded load 31.3 s, 21.6 s with it paused).
    with paused_collector():
        return _loaded(description, backend, network_bounds, probed, validated)


def _loaded(description: GameDescription, backend: Backend,
            network_bounds: NetworkBounds | None, probed: ProbedLoad | None,
            validated: ValidatedRules) -> _Loaded:
    """:func:`_load`'s work."""
    found = validated.warnings
    t2 = time.perf_counter()
    built = _probed_machine(probed, backend) if probed else None
    translation: Translation | None = None
    if probed and built:
        # The child's network: nothing here needs the ASP programs. Game.translation makes
        # them when first asked for, which saves seconds of every bounded load of a large
        # instantiated game (atariGo_7x7's: 4.6 s).
        rules = probed.statistics.rules
        t3 = time.perf_counter()
        superset = probed.superset.superset()
        t4 = time.perf_counter()
    else:
        translation = translate(description)
        rules = translation.flat_rule_count
        t3 = time.perf_counter()
        superset = probed.superset.superset() if probed else compute_superset(translation)
        t4 = time.perf_counter()
        if (probed and backend == Backend.AUTO
                and probed.statistics.backend in (Backend.COMPILED, Backend.TOPDOWN,
                                                  Backend.POSITION)):
            backend = probed.statistics.backend  # the network is not tried twice
        try:
            built = build_machine(
                translation, superset, description.roles, backend,
                check_stratification=any(w.kind == UNSTRATIFIED_RELATIONS for w in found),
                bounds=network_bounds, description=description)
        except GoalValueError as error:
            raise located_goal_value(description, error) from None
    if translation is None and description.is_gdl2 and \
            not isinstance(built.machine, NativeMachine):
        # The percept oracle reads the rules: made once here, and kept for Game.translation.
        translation = translate(description)
    percepts = _percept_source(built.machine, translation, superset, description)
    t5 = time.perf_counter()
    return _Loaded(tuple(map(str, found)), translation, rules, superset, built,
                   (validated.milliseconds, (t3 - t2) * 1e3, (t4 - t3) * 1e3, (t5 - t4) * 1e3),
                   percepts)


def probe_load(text: str, case_sensitive: bool, strict: bool,
               backend: Backend | str) -> ProbedLoad:
    """Load a game (in a bounded child) and return what its parent needs to load it again
    without grounding (see :class:`ProbedLoad`)."""
    t0 = time.perf_counter()
    description = parse_gdl(text, case_sensitive=case_sensitive)
    parse_ms = (time.perf_counter() - t0) * 1e3
    loaded = _load(description, strict, check_backend(backend), None, None)
    return ProbedLoad(loaded.statistics(parse_ms, None), loaded.superset.portable(),
                      loaded.built.network)


def _probed_machine(probed: ProbedLoad, backend: Backend) -> BuiltMachine | None:
    """The machine of a probed load that can be had without grounding: the child's network,
    compiled here (None where the child built none)."""
    network = probed.network
    if network is None or backend not in (Backend.AUTO, Backend.PROPNET, Backend.NATIVE):
        return None
    return network_machine(network, backend, probed.statistics.network_ms,
                           probed.statistics.backend_reason)
