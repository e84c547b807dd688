"""What a loaded game costs the server's memory, estimated from its sizes.

Measured as the resident growth of a bounded load in the server (the grounding runs in the
child; what stays is the game's tables, its network and the network's compiled code):
minichess 12 MiB for 7,847 network edges, hex 343 MiB for 230,580, othello 755 MiB for
538,111; chess on top-down 10 MiB for 9,239 fluents and moves, amazons 79 MiB for 174,264.
The estimate is a little above each of them, so a cache bounded by it stays under its bound.
On the compiled rules the C side's tables stay inside the per-entry allowance: chess 6 MiB
after its load and 20 playouts, amazons 15 MiB (each query is bounded at 2 GiB besides).
"""

from __future__ import annotations

from reasoner.engine.game import Game

__all__ = ["estimated_bytes"]

PER_EDGE = 1536  # a network edge, with its share of the gates and the compiled code
PER_ENTRY = 1024  # a fluent or move: its text, its Move, its place in the indexes
PER_ATOM = 512  # a ground atom held by clingo (the clingo backend's program)
PER_CHARACTER = 64  # a character of the rules: their syntax tree and translation


def estimated_bytes(game: Game, text_length: int) -> int:
    """The bytes ``game`` (read from ``text_length`` characters of GDL) holds in memory."""
    s = game.statistics
    edges = s.network.edges if s.network is not None else 0
    atoms = s.ground_atoms if s.network is None else 0
    return (PER_EDGE * edges + PER_ENTRY * (s.fluents + s.moves) + PER_ATOM * atoms
            + PER_CHARACTER * text_length)
