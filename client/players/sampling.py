"""A player for GDL-II games: Monte Carlo over states sampled from its information set.

A GDL-II role does not see the state. This player keeps a set of *particles*, states that
agree with everything it has seen (its own moves and percepts), from turn to turn, as
Hyperplay does (Schofield, Cerexhe and Thielscher 2012):

* after each turn, each particle is advanced by a joint move with the player's own move
  fixed that gives the player exactly the percepts it received, drawn uniformly among the
  joint moves that do (all of them where there are at most :attr:`SamplingPlayer.tries`,
  else that many drawn at random), and weighted by their share: how likely the percepts
  were from that particle, the other roles (``random`` among them) moving uniformly; a
  particle from which none does is dropped;
* the particles are then drawn again in proportion to their weights (a particle filter),
  so that in Monty Hall, after the host opened a door, the car is behind the other closed
  door in about two particles of three, as its chance is;
* where none is left, the set is filled with fresh states from the game's own search of
  the information set (``sample_information_set``), which replays the whole history
  (unweighted); where that search finds none within its budget, the player goes on with
  the particles it kept (with none, the search's ``ResourceLimitError`` stands).

Its legal moves are those legal in every particle (a well-formed GDL-II game makes a
role's legal moves the same throughout an information set). Where a game's legality
depends on what the role cannot see (blind breakthrough), a move legal in every particle
may still be refused by the manager, which then executes another: told so, the player
drops the particles that allowed the refused move. Until its deadline it plays
each of them once from each particle, the others' moves drawn at random, followed by a
random playout, and answers the move with the best mean goal (determinised flat Monte
Carlo: each particle is treated as if it were the true state, which overrates moves that
only pay off when one knows the state).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from reasoner.core.values import StateInfo
from reasoner.errors import NoLegalMoveError, ResourceLimitError

__all__ = ["InformationGame", "SamplingPlayer"]

History = Sequence[tuple[str, Sequence[str]]]


class InformationGame(Protocol):
    """What the player asks of a GDL-II game (an in-process game or a remote one)."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    @property
    def percept_table(self) -> tuple[tuple[str, str], ...]: ...

    def move_id(self, role: str, text: str) -> int: ...

    def info(self, state: Any) -> StateInfo: ...

    def step(self, state: Any, joint: tuple[int, ...], *,
             check_legal: bool = True) -> tuple[Any, StateInfo]: ...

    def percepts(self, state: Any, joint: tuple[int, ...], *,
                 check_legal: bool = True) -> tuple[tuple[int, ...], ...]: ...

    def simulate(self, state: Any, playouts: int = 1, seed: int = 0,
                 max_steps: int = 1000) -> Any: ...

    def sample_information_set(self, role: str, history: History, count: int = 1, *,
                               seed: int = 0, max_nodes: int = 0
                               ) -> tuple[list[Any], int, bool]: ...


class SamplingPlayer:
    """Chooses a GDL-II move from particles of its information set (see the module's
    text); one per match, as it keeps the particles from turn to turn."""

    def __init__(self, rng: random.Random, *, samples: int = 16, tries: int = 64,
                 max_steps: int = 200) -> None:
        self.rng = rng
        self.samples = samples
        self.tries = tries
        self.max_steps = max_steps
        self.particles: list[Any] = []
        self.refused: dict[int, str] = {}
        self._turns = 0  # the turns the particles stand after

    def choose(self, game: InformationGame, role: int, history: History,
               deadline: float, refused: Mapping[int, str] | None = None) -> int:
        """The move id to play after ``history`` (this role's (move, percepts) per turn),
        chosen by ``deadline`` (``time.monotonic()``). ``refused``: per turn, a move this
        player answered that the manager replaced (it executed another, so the true state
        did not allow it): the particles that allow it are dropped at that turn."""
        self.refused = dict(refused or {})
        # Half the time left at most for the particles (each advance costs up to tries
        # percept evaluations), the rest for the playouts.
        self._update(game, role, history, time.monotonic() + (deadline - time.monotonic()) / 2)
        states, infos = self._playable(game, role)
        if not states:  # none can be the true state: drawn again from the history
            self._update(game, role, history, deadline)
            states, infos = self._playable(game, role)
        if not states:
            raise NoLegalMoveError(f"{game.roles[role]} has no legal move in the states it "
                                   "thinks possible (the match is over, or the history is "
                                   "not of this game)", role=game.roles[role])
        legal = set(infos[0].legal[role])
        for info in infos[1:]:
            legal &= set(info.legal[role])
        moves = sorted(legal) or list(infos[0].legal[role])
        if len(moves) == 1:
            return moves[0]
        totals = dict.fromkeys(moves, 0.0)
        counts = dict.fromkeys(moves, 0)
        while time.monotonic() < deadline:
            for state, info in zip(states, infos, strict=True):
                for move in moves:
                    if time.monotonic() >= deadline:
                        break
                    totals[move] += self._value(game, role, state, info, move)
                    counts[move] += 1
        return max(moves, key=lambda m: (totals[m] / counts[m] if counts[m] else -1.0,
                                         self.rng.random()))

    def _update(self, game: InformationGame, role: int, history: History,
                until: float = math.inf) -> None:
        """Bring the particles up to ``history``: advance them by its new turns (from the
        start where they stand ahead of it, as in a new match), resampling them by how
        likely each made the percepts, and top them up where none is left. Past ``until``
        the particles not yet advanced are left out of the resampling (at least one is
        advanced)."""
        if self._turns > len(history) or not self.particles:
            self.particles, self._turns = [], len(history)
        name = game.roles[role]
        ids = {text.lower(): i for i, (owner, text) in enumerate(game.percept_table)
               if owner == name}
        for turn, (move_text, percepts) in enumerate(history[self._turns:], self._turns):
            move = game.move_id(name, move_text)
            wanted = tuple(sorted({ids.get(text.lower(), -1) for text in percepts}))
            if turn in self.refused:  # the true state did not allow that move
                wrong = game.move_id(name, self.refused[turn])
                self.particles = [state for state in self.particles
                                  if wrong not in game.info(state).legal[role]]
            advanced: list[tuple[Any | None, float]] = []
            for particle in self.particles:
                if advanced and time.monotonic() > until:
                    break
                advanced.append(self._advance(game, role, particle, move, wanted))
            kept = [(state, weight) for state, weight in advanced if state is not None]
            self.particles = self._resample(kept)
        self._turns = len(history)
        missing = self.samples - len(self.particles)
        if missing > 0:
            try:
                found, _, _ = game.sample_information_set(
                    name, history, missing, seed=self.rng.randrange(2**32))
            except ResourceLimitError:  # none within the search's budget
                if not self.particles:
                    raise
                return  # plays from the particles it kept
            self.particles.extend(found)

    def _playable(self, game: InformationGame, role: int) -> tuple[list[Any], list[StateInfo]]:
        """The particles this role may move in, with their answers; the others are dropped.
        The player is asked for a move, so the true state is not terminal and allows it one:
        a particle that does not (blind breakthrough's, whose hidden board left this role's
        pieces blocked) is not the true state, however well it explained the percepts."""
        kept = [(state, info) for state in self.particles
                for info in (game.info(state),)
                if not info.terminal and info.legal[role]]
        self.particles = [state for state, _ in kept]
        return self.particles, [info for _, info in kept]

    def _resample(self, weighted: list[tuple[Any, float]]) -> list[Any]:
        """:attr:`samples` particles drawn from ``weighted`` in proportion to the weights
        (systematic resampling): a particle that explains the percepts more likely is kept
        more often."""
        total = sum(weight for _, weight in weighted)
        if not weighted or total <= 0:
            return []
        step = total / self.samples
        point = self.rng.random() * step
        chosen: list[Any] = []
        reached = 0.0
        for state, weight in weighted:
            reached += weight
            while point < reached and len(chosen) < self.samples:
                chosen.append(state)
                point += step
        return chosen

    def _advance(self, game: InformationGame, role: int, state: Any, move: int,
                 wanted: tuple[int, ...]) -> tuple[Any | None, float]:
        """The particle's successor by a joint move with ``move`` for this role that gives
        it the percepts ``wanted``, drawn uniformly among those that do, and the share of
        the joint moves tried that do (how likely the percepts were from this particle,
        the others moving uniformly): every joint move where there are at most
        :attr:`tries`, else :attr:`tries` drawn at random. (None, 0.0) where none does."""
        info = game.info(state)
        if info.terminal or move not in info.legal[role]:
            return None, 0.0
        choices = [[move] if r == role else list(ids) for r, ids in enumerate(info.legal)]
        if any(not ids for ids in choices):
            return None, 0.0
        total = 1
        for ids in choices:
            total *= len(ids)
        rng = self.rng
        if total <= self.tries:
            joints = list(itertools.product(*choices))
        else:
            joints = [tuple(rng.choice(ids) for ids in choices) for _ in range(self.tries)]
        matching = [joint for joint in joints
                    if game.percepts(state, joint, check_legal=False)[role] == wanted]
        if not matching:
            return None, 0.0
        following = game.step(state, rng.choice(matching), check_legal=False)[0]
        return following, len(matching) / len(joints)

    def _value(self, game: InformationGame, role: int, state: Any, info: StateInfo,
               move: int) -> float:
        rng = self.rng
        joint = tuple(move if r == role else rng.choice(legal) if legal else move
                      for r, legal in enumerate(info.legal))
        following, after = game.step(state, joint, check_legal=False)
        if after.terminal:
            return float(after.goal(role) or 0)
        run = game.simulate(following, 1, rng.randrange(2**63), self.max_steps)
        values = run.goals[0][role] if run.goals else ()
        return float(values[0]) if values else 0.0
