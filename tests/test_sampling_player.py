"""The GDL-II sampling player (client.players.sampling): what it does with particles that
cannot be the true state."""

from __future__ import annotations

import random
import time

from client.players.sampling import SamplingPlayer
from reasoner.engine.game import Game

# random hides a coin; p sees nothing. With the coin on b the player has no move although
# the game goes on (the rules' own defect, as a hidden board that blocks every piece is
# blind breakthrough's): such a state cannot be the one a manager asks p to move in.
HIDDEN_COIN = """
(role random) (role p)
(init (step 0))
(<= (legal random (pick a)) (true (step 0)))
(<= (legal random (pick b)) (true (step 0)))
(<= (legal random noop) (not (true (step 0))))
(<= (legal p wait) (true (step 0)))
(<= (legal p go) (true (coin a)))
(<= (next (coin ?c)) (does random (pick ?c)))
(<= (next (coin ?c)) (true (coin ?c)))
(<= (next (step 1)) (true (step 0)))
(<= (next done) (does p go))
(<= terminal (true done))
(goal p 100) (goal random 0)
"""


def test_particles_where_the_player_has_no_move_are_dropped() -> None:
    """After the hidden pick, half of the information set has the coin on b, where p has
    no legal move: those particles are dropped rather than answered from, and p plays
    the move of the states it can be in (go), on every seed."""
    game = Game.from_gdl(HIDDEN_COIN)
    role = game.roles.index("p")
    go = game.move_id("p", "go")
    for seed in range(8):
        player = SamplingPlayer(random.Random(seed), samples=8)
        move = player.choose(game, role, [("wait", ())], time.monotonic() + 0.5)
        assert move == go, seed
        assert player.particles
        assert all(go in game.info(state).legal[role] for state in player.particles)
