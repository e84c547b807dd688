"""What a role knows in a GDL-II game: states consistent with its own moves and percepts.

In GDL-II a role sees neither the state nor the others' moves; after each joint move it is
told its own move and its percepts (``sees``). Its *information set* after ``k`` turns is
every state reached from the initial one by ``k`` joint moves in which, at each turn, its own
move was the one it played (and legal) and the percepts it would have received are the ones
it did receive.

:func:`sample_information_set` finds members of it by a randomised depth-first search over
the histories: at each turn the other roles' legal moves (``random``'s among them) are tried
in a random order, a joint move is kept when it gives the role exactly its percepts, and the
search backs up from a turn that no joint move explains. Each sample is one such search with
its own random order, so the samples are spread over the information set but not uniform:
a state reached by many histories, or through turns with few consistent joint moves, comes
more often than under uniform sampling.

A search that goes deep down a wrong early choice is cut off and begun again with another
random order and twice the joint moves (restarts cut the long tail of a randomised search);
a (turn, state) pair from which a complete search found nothing is remembered and never
searched again, so that histories that reach one state by several orders of moves (marks
on a board) cost one search.

The cost is bounded by ``max_nodes``, the joint moves tried (one percept solve each, and one
step for those that explain the percepts) over all samples. A search that tries every joint
move of every turn without finding a state proves the history inconsistent with the rules:
an :class:`~reasoner.errors.InvalidStateError` that names the turn no joint move explained.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from reasoner.arguments import ArgumentError
from reasoner.core.values import Move, State, StateInfo
from reasoner.errors import IllegalMoveError, InvalidStateError, ResourceLimitError
from reasoner.gdl.parser import parse_term


class PerceivedGame(Protocol):
    """What the search asks of a game (:class:`reasoner.engine.game.Game` answers it)."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def initial_state(self) -> State: ...

    @property
    def percept_table(self) -> tuple[tuple[str, str], ...]: ...

    def move(self, role: str, text: str) -> Move: ...

    def info(self, state: State) -> StateInfo: ...

    def step(self, state: State, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[State, StateInfo]: ...

    def percept_ids(self, state: State, joint: tuple[int, ...]) -> tuple[tuple[int, ...], ...]: ...

__all__ = ["InformationSample", "PerceivedGame", "Turn", "sample_information_set"]

# The most joint moves one turn is enumerated over before its combinations are drawn at
# random instead (a turn with more is not searched exhaustively).
_ENUMERATED = 4096
# The joint moves a first attempt at one sample may try, per turn of the history.
_FIRST_ATTEMPT = 64


@dataclass(frozen=True)
class Turn:
    """One turn as a role saw it: the move it played and the percepts it received after the
    joint move (GDL text, in any order)."""

    move: str
    percepts: tuple[str, ...] = ()


@dataclass(frozen=True)
class InformationSample:
    """States of a role's information set (``states``; one per sample, so a state may come
    more than once), the joint moves tried (``nodes``), the time taken, and whether the
    budget ran out before every sample was found (``exhausted``)."""

    states: tuple[State, ...]
    nodes: int
    seconds: float
    exhausted: bool


class _Budget(Exception):
    pass


class _Attempt(Exception):
    pass


def sample_information_set(game: PerceivedGame, role: str, history: Sequence[Turn],
                           count: int = 1, *, seed: int = 0, max_nodes: int = 100_000,
                           check: Callable[[], None] | None = None) -> InformationSample:
    """Up to ``count`` states consistent with ``role``'s ``history`` (the turns played so far,
    in order), found by a seeded randomised search (see the module's text) within
    ``max_nodes`` joint moves tried; ``check`` is called every 256 and may raise to stop.

    >>> from reasoner.engine.game import Game
    >>> game = Game.from_file("games/montyhall.kif")
    >>> history = [Turn("(choose 1)", ("(did candidate (choose 1))",)),
    ...            Turn("noop", ("(did candidate noop)", "(open_door 2)"))]
    >>> found = sample_information_set(game, "candidate", history, count=20, seed=1)
    >>> sorted({f for state in found.states for f in state.fluents if f.startswith("(car")})
    ['(car 1)', '(car 3)']

    Raises:
        IllegalMoveError: an unknown role, or a move the role can never make.
        InvalidStateError: no state explains the history (the message names the turn), or a
            percept the role can never receive.
        ArgumentError: ``count`` or ``max_nodes`` below 0.
    """
    if count < 0:
        raise ArgumentError(f"count must be at least 0, got {count}", argument="count",
                            value=count)
    if max_nodes < 0:
        raise ArgumentError(f"max_nodes must be at least 0, got {max_nodes}",
                            argument="max_nodes", value=max_nodes)
    index = game.roles.index(role) if role in game.roles else -1
    if index < 0:
        raise IllegalMoveError(f"unknown role {role!r}; the roles are {list(game.roles)}",
                               role=role, reason="unknown-role")
    moves = [game.move(role, turn.move).id for turn in history]
    percept_ids = {text: i for i, (owner, text) in enumerate(game.percept_table)
                   if owner == role}
    wanted: list[tuple[int, ...]] = []
    for number, turn in enumerate(history):
        ids = []
        for text in turn.percepts:
            found = percept_ids.get(_normal(text))
            if found is None:
                raise InvalidStateError(f"no state explains turn {number}: {role} can never "
                                        f"perceive {text}", reason="inconsistent-history")
            ids.append(found)
        wanted.append(tuple(sorted(set(ids))))
    start = time.perf_counter()
    rng = random.Random(seed)
    search = _Search(game, index, moves, wanted, max_nodes, check)
    states: list[State] = []
    exhausted = False
    try:
        for _ in range(count):
            state = search.sample(game.initial_state, rng)
            if state is None and search.sampled:  # not every joint move was tried: no proof
                raise _Budget
            if state is None:
                deepest = search.deepest
                raise InvalidStateError(
                    f"no state explains turn {deepest} of {role}'s history: no joint move with "
                    f"{role}'s move {history[deepest].move} gives it the percepts it received"
                    if deepest < len(history) else f"no state explains {role}'s history",
                    reason="inconsistent-history")
            states.append(state)
    except _Budget:
        exhausted = True
        if not states:
            raise ResourceLimitError(
                f"no state of {role}'s information set found within {max_nodes} joint moves "
                "tried", "size", limit=max_nodes, reason="information-set") from None
    return InformationSample(tuple(states), search.nodes, time.perf_counter() - start,
                             exhausted)


def _normal(text: str) -> str:
    """A percept's text as the table writes it (a term read and printed again)."""
    try:
        return str(parse_term(text))
    except ValueError:
        return text


class _Search:
    """One role's randomised depth-first search over histories (see the module's text)."""

    def __init__(self, game: PerceivedGame, role: int, moves: list[int],
                 wanted: list[tuple[int, ...]], max_nodes: int,
                 check: Callable[[], None] | None) -> None:
        self.game, self.role, self.moves, self.wanted = game, role, moves, wanted
        self.max_nodes, self.check = max_nodes, check
        self.nodes = 0
        self.deepest = 0  # the furthest turn the search reached
        self.sampled = False  # a turn's joint moves were drawn, not all tried
        self.left = 0  # joint moves the attempt under way may still try
        # (turn, state) pairs from which no joint moves explain the rest of the history,
        # found by a search that tried all of them: never searched again.
        self.dead: set[tuple[int, int]] = set()

    def sample(self, initial: State, rng: random.Random) -> State | None:
        """One state of the information set, or None where a search that tried every joint
        move found none. A search that goes deep down a wrong early choice is cut off and
        begun again with another random order, with twice the joint moves each time (the
        last attempt has what is left of the budget), as restarts cut the long tail of a
        randomised search."""
        cap = _FIRST_ATTEMPT * (len(self.moves) + 1)
        while True:
            self.left = min(cap, self.max_nodes - self.nodes)
            try:
                return self.run(initial, 0, rng)
            except _Attempt:
                if self.nodes >= self.max_nodes:
                    raise _Budget from None
                cap *= 2

    def run(self, state: State, turn: int, rng: random.Random) -> State | None:
        self.deepest = max(self.deepest, turn)
        if turn == len(self.moves):
            return state
        if (turn, state.bits) in self.dead:
            return None
        game = self.game
        info = game.info(state)
        own = self.moves[turn]
        if info.terminal or own not in info.legal[self.role]:
            self.dead.add((turn, state.bits))
            return None
        outer, self.sampled = self.sampled, False
        for joint in self._joints(info.legal, own, rng):
            self.nodes += 1
            self.left -= 1
            if self.left < 0:
                raise _Attempt
            if self.check is not None and self.nodes % 256 == 0:
                self.check()
            if game.percept_ids(state, joint)[self.role] != self.wanted[turn]:
                continue
            following, _ = game.step(state, joint, check_legal=False)
            found = self.run(following, turn + 1, rng)
            if found is not None:
                self.sampled = outer or self.sampled
                return found
        if not self.sampled:
            self.dead.add((turn, state.bits))
        self.sampled = outer or self.sampled
        return None

    def _joints(self, legal: Sequence[Sequence[int]], own: int,
                rng: random.Random) -> list[tuple[int, ...]]:
        choices = [[own] if r == self.role else list(ids) for r, ids in enumerate(legal)]
        total = 1
        for ids in choices:
            total *= len(ids)
        if total <= _ENUMERATED:
            joints = list(itertools.product(*choices))
            rng.shuffle(joints)
            return joints
        self.sampled = True
        return [tuple(rng.choice(ids) for ids in choices) for _ in range(_ENUMERATED)]
