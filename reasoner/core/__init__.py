"""What every layer above the GDL reader speaks: the value types (states, moves, joint
moves, state infos, simulations), the one seeded random walk, and the state cache.

Every backend (:mod:`reasoner.asp`, :mod:`reasoner.propnet`, :mod:`reasoner.topdown`), the
engine's :class:`reasoner.engine.game.Game` above them, the heuristics, the service and the
client build on these; this package imports nothing of theirs.
"""
