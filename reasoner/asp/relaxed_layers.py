"""Relaxed layers from a state: what becomes reachable after 1, 2, ... relaxed steps.

Layer 0 is the state itself. From the fluents of layer k, the relaxed rules (negation
dropped) derive every atom they can, every legal move is taken as played, and the ``next``
fluents join the fluents of layer k + 1. The layers grow until nothing new appears: the
planning graph that relaxed-planning heuristics are built on.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from reasoner.asp.superset import Superset, compute_superset, new_control
from reasoner.asp.symbols import atom_to_gdl, symbol_to_gdl
from reasoner.asp.translate import Translation, translate
from reasoner.gdl.syntax import GameDescription

__all__ = ["RelaxedLayer", "RelaxedLayers", "description_layers", "relaxed_layers"]


@dataclass(frozen=True)
class RelaxedLayer:
    """One layer: the fluents that hold in it, and what they let derive."""

    fluents: tuple[str, ...]
    # (role, move) pairs legal in the relaxed sense.
    moves: tuple[tuple[str, str], ...]
    # Every other derived atom (auxiliary relations, legal, goal, terminal...), as GDL.
    atoms: tuple[str, ...]


@dataclass(frozen=True)
class RelaxedLayers:
    """The layers from a state until the fixpoint (or the layer cap)."""

    layers: tuple[RelaxedLayer, ...]
    fixpoint: bool
    seconds: float


def relaxed_layers(translation: Translation, superset: Superset, state: Iterable[str],
                   max_layers: int = 100) -> RelaxedLayers:
    """Compute the relaxed layers from a state given as fluent texts of the superset."""
    start = time.perf_counter()
    texts = {symbol_to_gdl(f): f for f in superset.fluents}
    externals = [f"#external true({f})." for f in superset.fluents]
    ctl = new_control()
    ctl.add("base", [], translation.relaxed_step_program + "\n".join(externals) + "\n")
    ctl.ground([("base", [])])
    current = set(state)
    layers: list[RelaxedLayer] = []
    fixpoint = False
    shown: list[clingo.Symbol] = []

    def on_model(model: clingo.Model) -> None:
        shown[:] = model.symbols(atoms=True)

    for _ in range(max_layers):
        for text in current:
            ctl.assign_external(clingo.Function("true", [texts[text]]), True)
        ctl.solve(on_model=on_model)
        following = set(current)
        moves: list[tuple[str, str]] = []
        atoms: list[str] = []
        for symbol in shown:
            name = str(symbol.name)
            if name == "next" and len(symbol.arguments) == 1:
                following.add(symbol_to_gdl(symbol.arguments[0]))
            elif name == "does" and len(symbol.arguments) == 2:
                moves.append((symbol_to_gdl(symbol.arguments[0]),
                              symbol_to_gdl(symbol.arguments[1])))
            elif name not in ("true",) and not name.startswith("_"):
                atoms.append(atom_to_gdl(symbol))
        layers.append(RelaxedLayer(tuple(sorted(current)), tuple(sorted(moves)),
                                   tuple(sorted(atoms))))
        if following == current:
            fixpoint = True
            break
        current = following
    return RelaxedLayers(tuple(layers), fixpoint, time.perf_counter() - start)


def description_layers(description: GameDescription, fluents: Iterable[str],
                       max_layers: int = 100) -> RelaxedLayers:
    """The relaxed layers of a validated game from a state given as fluent texts, every
    relation kept (goal and terminal too, so that the layers show when a goal value first
    becomes reachable), until nothing new appears or ``max_layers``."""
    translation = translate(description, relaxed_everything=True)
    return relaxed_layers(translation, compute_superset(translation), fluents, max_layers)
