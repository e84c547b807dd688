"""What every layer above the GDL reader speaks: the value types (states, moves, joint
moves, state infos, simulations: :mod:`~reasoner.core.values`, :mod:`~reasoner.core.walk`),
the one seeded random walk, the state cache, the game view that an in-process game and a
game on a service both satisfy (:mod:`~reasoner.core.game_view`), and a match's outcome for
a role (:mod:`~reasoner.core.outcome`).

Every backend (:mod:`reasoner.asp`, :mod:`reasoner.propnet`, :mod:`reasoner.topdown`), the
engine's :class:`reasoner.engine.game.Game` above them, the heuristics, the service and the
client build on these; this package imports nothing of theirs.
"""
