"""A GDL reasoner: game rules in GDL, translated to ASP, answered by clingo.

>>> from reasoner import Game
>>> game = Game.from_gdl('''
...     (role you) (init (count 0)) (succ 0 1) (succ 1 2)
...     (legal you inc)
...     (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
...     (<= terminal (true (count 2)))
...     (<= (goal you 100) (true (count 2)))
...     (<= (goal you 0) (not (true (count 2))))''')
>>> game.roles
('you',)
>>> state = game.next_state(game.initial_state, {"you": "inc"})
>>> state
State((true (count 1)))
>>> game.is_terminal(state), game.goals(game.next_state(state, {"you": "inc"}))
(False, {'you': 100})

This package's face also wires the library together: it names the heuristics
(:class:`reasoner.heuristics.game_heuristics.GameHeuristics`) as what a :class:`Game`
evaluates its states with (see :mod:`reasoner.core.evaluation`), since the engine, below
the heuristics, cannot import them.
"""

from reasoner.core.evaluation import provide_heuristics
from reasoner.core.values import JointMove, Move, State, StateInfo
from reasoner.engine.game import Game, LoadStatistics
from reasoner.engine.limits import Limits
from reasoner.errors import (
    GdlError,
    GdlSyntaxError,
    GdlValidationError,
    GoalError,
    IllegalMoveError,
    InvalidStateError,
    ReasonerError,
    ResourceLimitError,
    UnknownGameError,
    UnsupportedGdlError,
)
from reasoner.heuristics.game_heuristics import GameHeuristics

provide_heuristics(GameHeuristics)

__all__ = [
    "Game",
    "GdlError",
    "GdlSyntaxError",
    "GdlValidationError",
    "GoalError",
    "IllegalMoveError",
    "InvalidStateError",
    "JointMove",
    "Limits",
    "LoadStatistics",
    "Move",
    "ReasonerError",
    "ResourceLimitError",
    "State",
    "StateInfo",
    "UnknownGameError",
    "UnsupportedGdlError",
]
