"""Client library for the GDL reasoner service, with players and a match runner.

Players receive :class:`RemoteGame` handles and the value types of :mod:`client.values`
(states, joint moves, state infos and playouts are the engine's own); no protobuf type
reaches them.
"""

from client.errors import RemoteError
from client.game_session import GameSession
from client.match import MatchResult, play_match
from client.players import MctsPlayer, Player, RandomPlayer
from client.reasoner_client import ReasonerClient, RemoteGame
from client.values import (
    Analysis,
    Evaluation,
    GddlFiles,
    JointMove,
    PlanStep,
    Playout,
    Simulation,
    State,
    StateInfo,
)

__all__ = [
    "Analysis",
    "Evaluation",
    "GameSession",
    "GddlFiles",
    "JointMove",
    "MatchResult",
    "MctsPlayer",
    "PlanStep",
    "Player",
    "Playout",
    "RandomPlayer",
    "ReasonerClient",
    "RemoteError",
    "RemoteGame",
    "Simulation",
    "State",
    "StateInfo",
    "play_match",
]
