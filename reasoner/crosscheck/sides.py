"""The two sides of a cross-check, behind one small interface of GDL texts.

A side answers the state-machine queries with sets of GDL texts, so that any two reasoners
(the clingo engine, the Prolog reference, a recorded trace of another program) compare by
plain set equality.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from reasoner.engine.game import Game

__all__ = ["EngineSide", "Side"]


class Side(Protocol):
    """What a cross-check asks of a reasoner (states are sets of fluent texts)."""

    @property
    def roles(self) -> tuple[str, ...]: ...

    def initial_state(self) -> frozenset[str]: ...

    def legal(self, state: frozenset[str]) -> dict[str, frozenset[str]]: ...

    def next_state(self, state: frozenset[str], joint: Sequence[str]) -> frozenset[str]: ...

    def sees(self, state: frozenset[str], joint: Sequence[str]) -> dict[str, frozenset[str]]:
        """GDL-II: each role's percepts when ``joint`` is played in ``state`` (every role's
        set empty in a plain GDL game)."""
        ...

    def terminal(self, state: frozenset[str]) -> bool: ...

    def goals(self, state: frozenset[str]) -> dict[str, frozenset[int]]: ...


class EngineSide:
    """The clingo engine as a side."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @property
    def roles(self) -> tuple[str, ...]:
        return self.game.roles

    def initial_state(self) -> frozenset[str]:
        return self.game.initial_state.fluents

    def legal(self, state: frozenset[str]) -> dict[str, frozenset[str]]:
        info = self.game.info(self.game.state_from_fluents(state))
        moves = self.game.all_moves
        return {role: frozenset(str(moves[i]) for i in ids)
                for role, ids in zip(self.game.roles, info.legal, strict=True)}

    def next_state(self, state: frozenset[str], joint: Sequence[str]) -> frozenset[str]:
        current = self.game.state_from_fluents(state)
        ids = tuple(self.game.move(role, move).id
                    for role, move in zip(self.game.roles, joint, strict=True))
        return self.game.step(current, ids, check_legal=False)[0].fluents

    def sees(self, state: frozenset[str], joint: Sequence[str]) -> dict[str, frozenset[str]]:
        current = self.game.state_from_fluents(state)
        ids = tuple(self.game.move(role, move).id
                    for role, move in zip(self.game.roles, joint, strict=True))
        table = self.game.percept_table
        return {role: frozenset(table[i][1] for i in found)
                for role, found in zip(self.game.roles, self.game.percept_ids(current, ids),
                                       strict=True)}

    def terminal(self, state: frozenset[str]) -> bool:
        return self.game.info(self.game.state_from_fluents(state)).terminal

    def goals(self, state: frozenset[str]) -> dict[str, frozenset[int]]:
        info = self.game.info(self.game.state_from_fluents(state))
        return {role: frozenset(values)
                for role, values in zip(self.game.roles, info.goals, strict=True)}
