"""The client library's players, matches and remote games, as the commands use them.

This is the one module of the command line (and of the workshop, :mod:`reasoner.workshop`)
that imports the client library (``client``): ``match``, ``player``, ``manage``, ``prove``,
``bench-players``, ``bench-heuristics``, ``bench --grpc`` and ``bench-service`` take the
players, the match loop, the GGP game manager and the remote client from here. The commands
import it inside the function that runs them, so that building the parser (``--help``) does
not load the client and gRPC.
"""

from __future__ import annotations

from client import ReasonerClient
from client.ggp.game_manager import ping, run_match, save, seats, tally
from client.ggp.http_player import GgpPlayer, serve_player
from client.match import MatchStep, play_match
from client.players import HeuristicEvaluator, MctsPlayer, Player, RandomPlayer
from client.players.aostar import prove
from client.players.heuristic_values import VALUE_HEURISTICS
from client.players.strategies import STRATEGIES, make_player

__all__ = [
    "STRATEGIES",
    "VALUE_HEURISTICS",
    "GgpPlayer",
    "HeuristicEvaluator",
    "MatchStep",
    "MctsPlayer",
    "Player",
    "RandomPlayer",
    "ReasonerClient",
    "make_player",
    "ping",
    "play_match",
    "prove",
    "run_match",
    "save",
    "seats",
    "serve_player",
    "tally",
]
