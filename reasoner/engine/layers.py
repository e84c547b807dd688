"""The relaxed layers of a game by whichever means fits: ground, else compiled.

The layers are counted out of the ground relaxed program (:mod:`reasoner.asp.relaxed_layers`)
wherever one of its programs grounds within :data:`GROUND_RULES` rules: chess and alexChess,
whose programs by demand hold 4 and 7.6 million, stay there. A game whose relaxed program
grows past that (chessAlex's ``between/4``, mummymaze1p's ``direction-from/5``) has its
layers evaluated by compiled rules instead, one evaluation per layer
(:mod:`reasoner.compiled.layers`), over the engine's fluent table. Without a C compiler the
ground program is the only means, and it is tried without a bound of its own.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence

from reasoner.asp.ground_rules import GroundingStopped
from reasoner.asp.relaxed_layers import RelaxedLayers, layers_translation, relaxed_layers
from reasoner.asp.superset import compute_superset
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import translate
from reasoner.compiled import build
from reasoner.compiled.layers import compiled_layers
from reasoner.gdl.syntax import GameDescription

__all__ = ["COMPILED_SECONDS", "GROUND_RULES", "game_layers"]

# The last ground program may grow to this many rules before the compiled rules take over
# (alexChess's program by demand: 7,641,952 rules, a count that does not vary from run to
# run; chessAlex's and mummymaze1p's pass 8 million in about 30 s).
GROUND_RULES = 8_000_000
# The compiled layers' own bound; the caller's bounds (a bounded child) hold besides.
COMPILED_SECONDS = 300.0


def game_layers(description: GameDescription, fluents: Iterable[str] | None,
                max_layers: int = 100, atoms_of: Collection[str] | None = None,
                fluent_table: Sequence[str] | None = None) -> RelaxedLayers:
    """The relaxed layers of a validated game from a state given as fluent texts (None: the
    initial state), every relation kept (goal and terminal too, so that the layers show
    when a goal value first becomes reachable), until nothing new appears or
    ``max_layers``; ``atoms_of``: the relations (names) whose atoms to keep, None for every
    relation's, an empty collection for none; ``fluent_table``: the engine's fluent table,
    if the game is loaded (else it is computed where the compiled rules need it).

    Raises:
        ResourceLimitError: the compiled layers ran past their bounds.
    """
    start = time.perf_counter()
    state = None if fluents is None else list(fluents)
    try:
        return relaxed_layers(layers_translation(description, atoms_of), state,
                              max_layers, atoms_of,
                              last_rules=GROUND_RULES if build.can_compile() else None)
    except GroundingStopped:  # past GROUND_RULES, which only a compiler sets
        pass
    if fluent_table is None:
        fluent_table = [symbol_to_gdl(fluent)
                        for fluent in compute_superset(translate(description)).fluents]
    found = compiled_layers(description, fluent_table, state, max_layers, atoms_of,
                            seconds=COMPILED_SECONDS)
    return RelaxedLayers(found.fluents, found.moves, found.atoms, found.count,
                         found.fixpoint, time.perf_counter() - start)
