"""Relaxed layers by compiled rules (reasoner.compiled.layers): one evaluation of the relaxed
rules per layer, for the games whose relaxed program grounds past every bound; and the
engine's choice between the ground program and the compiled rules (reasoner.engine.layers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoner import Game
from reasoner.asp import relaxed_layers as ground_module
from reasoner.asp.relaxed_layers import description_layers
from reasoner.compiled.layers import compiled_layers
from reasoner.engine import layers as engine_layers
from reasoner.gdl.parser import parse_game
from reasoner.gdl.validation import validate
from tests.conftest import ROOT

GAMES = sorted(path.stem for path in (ROOT / "games").glob("*.kif"))

# A counter that the engine's fluent table stops at 2 (it keeps the negation of the static
# max), while the relaxed layers, which drop every negation, count on to 3.
_COUNTER = """
    (role r) (init (count 0)) (succ 0 1) (succ 1 2) (succ 2 3) (max 2) (legal r tick)
    (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y) (not (max ?x)))
    (<= terminal (true (count 3))) (goal r 100)"""


@pytest.mark.parametrize("name", GAMES)
def test_compiled_layers_are_the_ground_programs_layers(name: str) -> None:
    """On every bundled game, from the initial state, each fluent, move and atom of every
    relation has the first layer the ground relaxed program gives it, and the layers end
    alike."""
    game = Game.from_file(ROOT / "games" / f"{name}.kif")
    ground = description_layers(game.description, game.initial_state.fluents, 100, None)
    compiled = compiled_layers(game.description, game.fluents, game.initial_state.fluents,
                               100, None)
    assert (compiled.fluents, compiled.moves, compiled.atoms) == \
        (ground.fluents, ground.moves, ground.atoms)
    assert (compiled.count, compiled.fixpoint) == (ground.count, ground.fixpoint)


def test_compiled_layers_start_from_any_state() -> None:
    """From a state two moves into breakthrough, and cut at two layers, the compiled layers
    are the ground ones."""
    game = Game.from_file(ROOT / "games" / "breakthrough.kif")
    state = game.initial_state
    for _ in range(2):
        state = game.next_state(state, {role: game.legal_moves(state, role)[0]
                                        for role in game.roles})
    ground = description_layers(game.description, state.fluents, 2, ["legal", "goal"])
    compiled = compiled_layers(game.description, game.fluents, state.fluents, 2,
                               ["legal", "goal"])
    assert (compiled.fluents, compiled.moves, compiled.atoms) == \
        (ground.fluents, ground.moves, ground.atoms)
    assert (compiled.count, compiled.fixpoint) == (ground.count, ground.fixpoint) == (2, False)


def test_fluents_beyond_the_engines_table_are_compiled_in() -> None:
    """The relaxed layers reach (count 3), which the engine's table (negation of static
    relations kept) does not hold: the code is compiled again with it, and the layers are
    the ground ones."""
    game = Game.from_gdl(_COUNTER)
    assert "(count 3)" not in game.fluents
    compiled = compiled_layers(game.description, game.fluents, None, 100, ["terminal"])
    ground = description_layers(game.description, None, 100, ["terminal"])
    assert compiled.fluents == ground.fluents == \
        {"(count 0)": 0, "(count 1)": 1, "(count 2)": 2, "(count 3)": 3}
    assert compiled.atoms == ground.atoms == {"terminal": 3}


def test_atoms_of_leaves_other_relations_out() -> None:
    """An empty atoms_of gives no atoms, and the fluents and moves stay those of every
    relation's layers."""
    game = Game.from_file(ROOT / "games" / "minichess.kif")
    every = compiled_layers(game.description, game.fluents, None, 100, None)
    none = compiled_layers(game.description, game.fluents, None, 100, ())
    assert none.atoms is None and every.atoms
    assert (none.fluents, none.moves, none.count) == (every.fluents, every.moves, every.count)


def test_the_engine_turns_to_compiled_rules_past_the_ground_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With every ground relaxed program over its bound, a game's layers come from the
    compiled rules, and are the same."""
    game = Game.from_file(ROOT / "games" / "minichess.kif")
    ground = game.relaxed_layers(game.initial_state, atoms_of=["goal", "terminal"])
    monkeypatch.setattr(ground_module, "FULL_RULES", 0)
    monkeypatch.setattr(ground_module, "FIRST_TRY_RULES", 0)
    monkeypatch.setattr(engine_layers, "GROUND_RULES", 0)
    compiled = game.relaxed_layers(game.initial_state, atoms_of=["goal", "terminal"])
    assert ground.demanded and compiled.demanded == ()  # demand-driven, then compiled
    assert (compiled.fluents, compiled.moves, compiled.atoms, compiled.count) == \
        (ground.fluents, ground.moves, ground.atoms, ground.count)


def test_layers_keep_the_atoms_of_relations_the_translation_would_unfold() -> None:
    """blindtictactoe's ``line``, ``row`` and ``column`` are unfolded into their callers
    when the game is ground for play; the layers of every relation still list their atoms."""
    game = Game.from_file(ROOT / "games" / "blindtictactoe.kif")
    found = game.relaxed_layers(game.initial_state)
    assert found.atoms is not None
    assert {"(line x)", "(line o)", "(column 1 x)"} <= found.atoms.keys()


@pytest.mark.slow  # about 65 s: 53 layers of compiled rules over 1,786 fluents
@pytest.mark.corpus
def test_mummymaze_layers_come_from_the_compiled_rules(
        corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mummymaze1p, whose relaxed program grounds past every bound (``direction-from/5``),
    gets its layers from the compiled rules: 53 layers to a fixpoint, 1,786 fluents and 5
    moves. (The ground attempt is stopped at a million rules, not the engine's 8 million,
    to spare the suite the 30 s it takes to get there; `gdl-reasoner layers` on this file
    takes 78 s with the engine's bound, within the command's 120 s.)"""
    monkeypatch.setattr(engine_layers, "GROUND_RULES", 1_000_000)
    description = parse_game((corpus / "ggp-repository" / "mummymaze1p.kif").read_text())
    validate(description)
    found = engine_layers.game_layers(description, None, 100, ["goal", "terminal"])
    assert (found.count, found.fixpoint) == (53, True)
    assert (len(found.fluents), len(found.moves)) == (1786, 5)
