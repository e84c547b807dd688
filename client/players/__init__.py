"""Players: a search loop behind one small protocol.

A :class:`Player` is started with a game (a :class:`~client.RemoteGame` or a
:class:`reasoner.Game`, seen alike through :class:`reasoner.core.game_view.GameView`) and its
role, then asked for a move id in each state where it has a choice;
:func:`client.match.play_match` runs the match. Players receive the game, a seeded
:class:`random.Random` and (for search) an :class:`Evaluator`; they never see protobuf types.

>>> import random
>>> from client.players import MctsPlayer, RandomPlayer
>>> players = [MctsPlayer(random.Random(1), playouts=100), RandomPlayer(random.Random(2))]
>>> [p.name for p in players]
['mcts', 'random']
"""

from client.players.alphabeta import AlphaBetaPlayer
from client.players.bestfirst import BestFirstPlayer
from client.players.evaluator import Evaluator, SimulateEvaluator, goal_values
from client.players.heuristic_values import HeuristicEvaluator, HeuristicValues
from client.players.mcts import MctsPlayer
from client.players.player import Player
from client.players.random_player import RandomPlayer

__all__ = [
    "AlphaBetaPlayer",
    "BestFirstPlayer",
    "Evaluator",
    "HeuristicEvaluator",
    "HeuristicValues",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "SimulateEvaluator",
    "goal_values",
]
