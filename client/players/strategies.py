"""The players by name, as the command line and the HTTP player choose them."""

from __future__ import annotations

import random

from client.players.alphabeta import AlphaBetaPlayer
from client.players.bestfirst import BestFirstPlayer
from client.players.mcts import MctsPlayer
from client.players.player import Player
from client.players.random_player import RandomPlayer

__all__ = ["STRATEGIES", "make_player"]

STRATEGIES = ("mcts", "alphabeta", "bestfirst", "random")


def make_player(strategy: str, rng: random.Random, *, playouts: int = 100,
                seconds: float = 1.0) -> Player:
    """A fresh player of a strategy. Given a deadline, a search answers by it; without one,
    MCTS runs ``playouts`` iterations, alpha-beta and best-first ``seconds``."""
    if strategy == "mcts":
        return MctsPlayer(rng, playouts=playouts)
    if strategy == "alphabeta":
        return AlphaBetaPlayer(rng, seconds=seconds)
    if strategy == "bestfirst":
        return BestFirstPlayer(rng, seconds=seconds)
    if strategy == "random":
        return RandomPlayer(rng)
    raise ValueError(f"unknown strategy {strategy!r}; the strategies are "
                     f"{', '.join(STRATEGIES)}")
