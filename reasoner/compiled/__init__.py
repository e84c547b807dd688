"""The compiled-rules backend: a game's rules compiled to C and loaded in process.

Where a game's ground program is too large for a network (chess, amazons, the ruleDepth
games), nothing is ground: each relation becomes C code per binding pattern
(:mod:`reasoner.compiled.codegen`), whose calls keep their answers in tables while the
state (or, for static relations, the game) stays the same, over a small run-time
(``runtime.h``, ``api.h``). The states and moves are the engine's ids over the same tables
as every other backend.
"""
