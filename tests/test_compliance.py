"""The compliance suite: every game in games/ passes the same checks.

A game that is added to games/ is picked up automatically.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reasoner import Game
from tests.conftest import BUNDLED, bundled

PLAYOUTS = 20
MAX_STEPS = 500

pytestmark = pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])


def _playout(game: Game, seed: int) -> list[tuple[str, ...]]:
    """One seeded random playout by the public API; returns the joint moves' texts."""
    rng = random.Random(seed)
    state = game.initial_state
    trail: list[tuple[str, ...]] = []
    for _ in range(MAX_STEPS):
        if game.is_terminal(state):
            return trail
        joint = {role: rng.choice(game.legal_moves(state, role)) for role in game.roles}
        trail.append(tuple(joint[r].text for r in game.roles))
        state = game.next_state(state, joint)
    raise AssertionError(f"no terminal state within {MAX_STEPS} steps")


def test_game_has_a_rules_header(path: Path) -> None:
    """The file opens with a comment block that states the rules and their source."""
    head = path.read_text(encoding="utf-8").lstrip().splitlines()[:40]
    assert head and head[0].startswith(";")
    assert any("source" in line.lower() or "rules" in line.lower() for line in head)


def test_game_loads_without_warnings(path: Path) -> None:
    """Our own games are clean GDL: no validator warnings."""
    game = bundled(path.stem)
    assert game.warnings == ()
    assert game.roles


def test_initial_state_is_not_terminal(path: Path) -> None:
    """The game has a non-empty initial state from which play starts."""
    game = bundled(path.stem)
    assert len(game.initial_state) > 0
    assert not game.is_terminal(game.initial_state)


def test_every_role_can_move_in_non_terminal_states(path: Path) -> None:
    """Along seeded random playouts, every role has a legal move in every non-terminal state."""
    game = bundled(path.stem)
    rng = random.Random(7)
    for _ in range(PLAYOUTS):
        state = game.initial_state
        while not game.is_terminal(state):
            joint = {}
            for role in game.roles:
                moves = game.legal_moves(state, role)
                assert moves, f"{role} has no legal move in {state!r}"
                joint[role] = rng.choice(moves)
            state = game.next_state(state, joint)


def test_terminal_states_give_one_goal_per_role(path: Path) -> None:
    """Every terminal state reached gives each role exactly one goal value in 0..100."""
    game = bundled(path.stem)
    rng = random.Random(11)
    for _ in range(PLAYOUTS):
        state = game.initial_state
        info = game.info(state)
        while not info.terminal:
            state, info = game.step(state, tuple(rng.choice(m) for m in info.legal))
        goals = game.goals(state)  # raises GoalError on a missing or double value
        assert set(goals) == set(game.roles)
        assert all(0 <= v <= 100 for v in goals.values())


def test_playouts_are_deterministic_under_a_seed(path: Path) -> None:
    """The same seed gives the same playout, also on a freshly loaded copy of the game."""
    game = bundled(path.stem)
    fresh = Game.from_file(path)
    for seed in range(3):
        assert _playout(game, seed) == _playout(fresh, seed)


def test_fast_path_agrees_with_the_public_api(path: Path) -> None:
    """game.step/game.info (ids) and next_state/legal_moves (text) describe the same play."""
    game = bundled(path.stem)
    rng = random.Random(3)
    state = game.initial_state
    info = game.info(state)
    while not info.terminal:
        joint_ids = tuple(rng.choice(m) for m in info.legal)
        joint = {role: game.all_moves[i] for role, i in zip(game.roles, joint_ids, strict=True)}
        following, info = game.step(state, joint_ids)
        assert game.next_state(state, joint) == following
        for index, role in enumerate(game.roles):
            assert [m.id for m in game.legal_moves(following, role)] == list(info.legal[index])
        assert game.is_terminal(following) == info.terminal
        state = following


def test_heuristics_evaluate_the_initial_state(path: Path) -> None:
    """Every heuristic of the catalogue that applies to the game evaluates the initial
    state for every role: distances are >= 0 with h_max <= h_FF, f_JO lies in -50..50,
    fuzzy and mobility in 0..1; only extended FF may refuse (not two players, or not one
    role to move)."""
    from reasoner.errors import HeuristicError
    from reasoner.heuristics.game_heuristics import GameHeuristics
    from reasoner.heuristics.table import HEURISTICS

    game = bundled(path.stem)
    heuristics = GameHeuristics(game)
    state = game.initial_state
    for role in game.roles:
        values: dict[str, float] = {}
        for name in HEURISTICS:
            if name == "feature":
                continue
            try:
                values[name] = heuristics.evaluate(name, role, [state])[0].value
            except HeuristicError as error:
                assert name == "extended-ff", error
                assert error.reason in ("roles", "movers")
        assert 0 <= values["hmax"] <= values["hff"], role
        assert values["hadd"] >= values["hmax"]
        assert -50 <= values["fjo"] <= 50
        assert 0 <= values["fuzzy"] <= 1 and 0 <= values["mobility"] <= 1
        for feature in heuristics.analysis().features:
            value = heuristics.evaluate("feature", role, [state], {"name": feature.name})[0]
            low, high = heuristics.analysis().goal_ranges[role]
            assert min(low, high) <= value.value <= max(low, high)
