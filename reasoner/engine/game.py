"""The public state machine: ``Game.from_gdl(text)`` and everything a player asks of it."""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from reasoner.asp.machine import StateInfo
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import Translation, translate
from reasoner.engine.backend import StateMachine, build_machine, check_backend
from reasoner.engine.limits import Limits, run_bounded
from reasoner.engine.values import Move, State
from reasoner.errors import (
    GdlSyntaxError,
    GoalError,
    IllegalMoveError,
    InvalidStateError,
    ResourceLimitError,
    UnsupportedGdlError,
)
from reasoner.gdl.parser import parse_game, parse_term
from reasoner.gdl.syntax import GameDescription
from reasoner.gdl.validation import UNSTRATIFIED_RELATIONS, validate
from reasoner.propnet.machine import PropnetMachine
from reasoner.propnet.network import Network, NetworkSize

__all__ = ["Game", "JointMove", "LoadStatistics"]

JointMove = Mapping[str, Move | str]
_SEES = re.compile(r"[(\s]sees[\s)]", re.IGNORECASE)


@dataclass(frozen=True)
class LoadStatistics:
    """Sizes and timings of one load (milliseconds)."""

    parse_ms: float
    validate_ms: float
    translate_ms: float
    superset_ms: float
    ground_ms: float
    fluents: int
    moves: int
    rules: int
    ground_atoms: int
    backend: str = "clingo"  # the backend that answers: "clingo" or "propnet"
    backend_note: str = ""  # why "auto" settled for clingo
    network_ms: float = 0.0  # of ground_ms: building the network (or trying to)
    network: NetworkSize | None = None

    @property
    def total_ms(self) -> float:
        return (self.parse_ms + self.validate_ms + self.translate_ms + self.superset_ms
                + self.ground_ms)


class Game:
    """A GDL game's state machine, grounded once and queried by propagation.

    Build one with :meth:`from_gdl` or :meth:`from_file`. Roles, fluents and moves are GDL
    text at this surface (lower case, single spaces); states and moves are cheap values.
    A game is safe to share between threads (queries are serialised).
    """

    def __init__(
        self,
        description: GameDescription,
        translation: Translation,
        machine: StateMachine,
        warnings: tuple[str, ...],
        statistics: LoadStatistics,
        case_sensitive: bool,
    ) -> None:
        self.description = description
        self.translation = translation
        self.warnings = warnings
        self.statistics = statistics
        self._machine = machine
        self._case_sensitive = case_sensitive
        self.backend = statistics.backend
        # The network machine when the propnet backend answers (batched playouts use it).
        self.propnet = machine if isinstance(machine, PropnetMachine) else None
        self.roles: tuple[str, ...] = machine.roles
        self._role_index = {role: i for i, role in enumerate(self.roles)}
        self.fluents: tuple[str, ...] = machine.fluent_texts
        self._fluent_index = {text: i for i, text in enumerate(self.fluents)}
        self._moves = tuple(
            Move(i, self.roles[r], text)
            for i, (r, text) in enumerate(zip(machine.move_role, machine.move_texts, strict=True))
        )
        self._move_index = {(m.role, m.text): m for m in self._moves}
        self.initial_state = State(machine.init_bits, self.fluents)

    # -- construction --------------------------------------------------------------------

    @classmethod
    def from_gdl(cls, text: str, *, case_sensitive: bool = False, strict: bool = True,
                 limits: Limits | None = None, backend: str = "auto") -> Game:
        """Parse, validate, translate and ground a game.

        Args:
            text: GDL rules.
            case_sensitive: Read names case-sensitively (GGP-Base's reading).
            strict: Reject a name used with two arities instead of reading them as two
                symbols.
            limits: Time and memory bounds for loading. The load is first tried in a
                bounded child process (clingo's grounder cannot be interrupted), and only
                a load that fits is repeated here, so a bound costs one extra load.
            backend: "clingo" (queries are clingo solves), "propnet" (a compiled
                propositional network; refused with ResourceLimitError when it exceeds
                its bounds) or "auto" (the network when it builds within its bounds,
                else clingo; :attr:`LoadStatistics.backend_note` says why).

        Raises:
            GdlSyntaxError: malformed text, with line and column.
            GdlValidationError: invalid GDL, naming the rule.
            UnsupportedGdlError: GDL-II.
            ResourceLimitError: loading exceeded ``limits``; the message names the bound
                and the relation whose rules grew most.
            ValueError: an unknown backend.
        """
        check_backend(backend)
        if limits is not None:
            try:
                run_bounded(_probe_load, (text, case_sensitive, strict, backend), limits)
            except ResourceLimitError as error:
                from reasoner.engine.overrun import explain_overrun

                raise explain_overrun(error, text, limits,
                                      case_sensitive=case_sensitive) from None
        t0 = time.perf_counter()
        description = parse_gdl(text, case_sensitive=case_sensitive)
        return cls.from_description(description, case_sensitive=case_sensitive, strict=strict,
                                    parse_ms=(time.perf_counter() - t0) * 1e3,
                                    backend=backend)

    @classmethod
    def from_description(cls, description: GameDescription, *, case_sensitive: bool = False,
                         strict: bool = True, parse_ms: float = 0.0,
                         backend: str = "auto") -> Game:
        """Validate, translate and ground an already parsed game (see :meth:`from_gdl`)."""
        t1 = time.perf_counter()
        found = validate(description, strict=strict)
        t2 = time.perf_counter()
        translation = translate(description)
        t3 = time.perf_counter()
        superset = compute_superset(translation)
        t4 = time.perf_counter()
        built = build_machine(
            translation, superset, description.roles, backend,
            check_stratification=any(w.kind == UNSTRATIFIED_RELATIONS for w in found),
        )
        machine = built.machine
        t5 = time.perf_counter()
        statistics = LoadStatistics(
            parse_ms=parse_ms, validate_ms=(t2 - t1) * 1e3,
            translate_ms=(t3 - t2) * 1e3, superset_ms=(t4 - t3) * 1e3,
            ground_ms=(t5 - t4) * 1e3, fluents=len(machine.fluent_texts),
            moves=len(machine.move_texts), rules=translation.flat_rule_count,
            ground_atoms=machine.ground_atom_count, backend=built.backend,
            backend_note=built.note, network_ms=built.network_ms,
            network=built.network.size if built.network is not None else None,
        )
        return cls(description, translation, machine, tuple(map(str, found)), statistics,
                   case_sensitive)

    @classmethod
    def from_file(cls, path: str | Path, *, case_sensitive: bool = False,
                  strict: bool = True, limits: Limits | None = None,
                  backend: str = "auto") -> Game:
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
        return self.propnet.network if self.propnet is not None else None

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
        try:
            key = str(parse_term(text, case_sensitive=self._case_sensitive))
        except GdlSyntaxError as error:
            raise IllegalMoveError(f"malformed move {text!r}: {error}") from error
        move = self._move_index.get((role, key))
        if move is None:
            raise IllegalMoveError(f"{role} can never play {key} in this game")
        return move

    def state_from_fluents(self, fluents: Iterable[str]) -> State:
        """A state from fluents written as GDL text.

        Raises:
            InvalidStateError: a fluent is malformed or can never hold in this game.
        """
        bits = 0
        for text in fluents:
            try:
                key = str(parse_term(text, case_sensitive=self._case_sensitive))
            except GdlSyntaxError as error:
                raise InvalidStateError(f"malformed fluent {text!r}: {error}") from error
            index = self._fluent_index.get(key)
            if index is None:
                raise InvalidStateError(f"{key} can never hold in this game")
            bits |= 1 << index
        return State(bits, self.fluents)

    def state_from_ids(self, ids: Iterable[int]) -> State:
        """A state from fluent ids (indices into :attr:`fluents`)."""
        bits = 0
        for index in ids:
            if not 0 <= index < len(self.fluents):
                raise InvalidStateError(f"fluent id {index} is not in the fluent table")
            bits |= 1 << index
        return State(bits, self.fluents)

    # -- queries -------------------------------------------------------------------------

    def legal_moves(self, state: State, role: str) -> tuple[Move, ...]:
        """The legal moves of ``role`` in ``state``."""
        index = self._role(role)
        moves = self._moves
        return tuple(moves[i] for i in self._info(state).legal[index])

    def legal_joint_moves(self, state: State) -> list[dict[str, Move]]:
        """Every combination of one legal move per role, in role order."""
        info = self._info(state)
        moves = self._moves
        per_role = [[moves[i] for i in ids] for ids in info.legal]
        return [dict(zip(self.roles, combo, strict=True))
                for combo in itertools.product(*per_role)]

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

    def next_state(self, state: State, joint_move: JointMove) -> State:
        """The successor of ``state`` when every role plays its move of ``joint_move``.

        Raises:
            IllegalMoveError: a role is missing or unknown, or a move is not legal.
        """
        return self.successor(state, self._joint_ids(joint_move))[0]

    def successor(self, state: State, joint: tuple[int, ...], *,
                  check_legal: bool = True) -> tuple[State, StateInfo]:
        """The successor under a joint move given as move ids (one per role, role order),
        with the successor's info, from a single solve.

        Raises:
            IllegalMoveError: a wrong number of moves, a move id of another role or outside
                the move table, or (with ``check_legal``) a move that is not legal.
            InvalidStateError: the state names fluent ids outside the table.
        """
        self._check_state(state)
        if len(joint) != len(self.roles):
            raise IllegalMoveError(f"a joint move needs one move per role ({len(self.roles)}), "
                                   f"got {len(joint)}")
        move_role = self._machine.move_role
        for index, move in enumerate(joint):
            if not 0 <= move < len(move_role) or move_role[move] != index:
                raise IllegalMoveError(f"move id {move} is not a move of role "
                                       f"{self.roles[index]} in this game")
        info, next_bits, next_info = self._machine.step(state.bits, joint, current=check_legal)
        if info is not None:
            for role_index, move in enumerate(joint):
                if move not in info.legal[role_index]:
                    raise IllegalMoveError(
                        f"{self._moves[move].text} is not legal for {self.roles[role_index]} "
                        "in this state"
                    )
        return State(next_bits, self.fluents), next_info

    # -- fast paths in ids (players and benchmarks) --------------------------------------

    def info(self, state: State) -> StateInfo:
        """Legal move ids per role, terminal, goal values per role, in one call."""
        return self._info(state)

    def step(self, state: State, joint: tuple[int, ...]) -> tuple[State, StateInfo]:
        """Successor by move ids (one per role, in role order, not checked for legality) and
        the successor's info, from a single solve."""
        _, next_bits, next_info = self._machine.step(state.bits, joint, current=False)
        return State(next_bits, self.fluents), next_info

    # -- internals -----------------------------------------------------------------------

    def _check_state(self, state: State) -> None:
        if not isinstance(state, State):
            raise InvalidStateError(f"expected a State, got {type(state).__name__}")
        if state.bits >> len(self.fluents):
            raise InvalidStateError("the state names fluent ids outside this game's table")

    def _info(self, state: State) -> StateInfo:
        self._check_state(state)
        return self._machine.info(state.bits)

    def _role(self, role: str) -> int:
        index = self._role_index.get(role)
        if index is None:
            raise IllegalMoveError(f"unknown role {role!r}; the roles are {list(self.roles)}")
        return index

    def _single_goal(self, role: str, values: tuple[int, ...]) -> int:
        if len(values) == 1:
            return values[0]
        if not values:
            raise GoalError(f"role {role} has no goal value in this state")
        raise GoalError(f"role {role} has several goal values in this state: "
                        f"{sorted(values)}")

    def _joint_ids(self, joint_move: JointMove) -> tuple[int, ...]:
        unknown = [role for role in joint_move if role not in self._role_index]
        if unknown:
            raise IllegalMoveError(f"unknown role {unknown[0]!r} in the joint move; the roles "
                                   f"are {list(self.roles)}")
        ids = []
        for role in self.roles:
            if role not in joint_move:
                raise IllegalMoveError(f"the joint move has no move for role {role}")
            move = joint_move[role]
            if isinstance(move, Move):
                if move.role != role or self._moves[move.id] != move:
                    raise IllegalMoveError(f"{move!r} is not a move of {role} in this game")
                ids.append(move.id)
            else:
                ids.append(self.move(role, move).id)
        return tuple(ids)

    def __repr__(self) -> str:
        return (f"<Game roles={list(self.roles)} fluents={len(self.fluents)} "
                f"moves={len(self._moves)} backend={self.backend}>")


def parse_gdl(text: str, *, case_sensitive: bool = False) -> GameDescription:
    """Parse GDL text, telling GDL-II apart when the text does not parse as base GDL."""
    try:
        return parse_game(text, case_sensitive=case_sensitive)
    except GdlSyntaxError as error:
        if _SEES.search(text):
            raise UnsupportedGdlError(
                "GDL-II ('sees') is not supported: this reasoner plays base GDL "
                f"(the text also fails to parse as GDL: {error.message})",
                error.line, error.column,
            ) from error
        raise


def _probe_load(text: str, case_sensitive: bool, strict: bool,
                backend: str) -> LoadStatistics:
    return Game.from_gdl(text, case_sensitive=case_sensitive, strict=strict,
                         backend=backend).statistics
