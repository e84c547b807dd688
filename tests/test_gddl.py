"""GDDL output: the instantiated game as multi-actions, rewards, a problem and a partition,
checked by playing it in a separate interpreter (tests/gddl_support.py) beside the engine."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from reasoner import Game
from reasoner.gdl.parser import parse_gdl
from reasoner.instantiate.gddl import GddlGame as Written
from reasoner.instantiate.ground_game import description_gddl, instantiate
from tests.conftest import BUNDLED, CORPUS, GAMES
from tests.gddl_support import GddlGame

CORPUS_GAMES = ["ggp-repository/ticTacToe.kif", "ggp-repository/connectFour.kif",
                "ggp-repository/blocksWorldSerial.kif", "libgdl/joint_button_and_lights.kif"]


def _written(path: Path) -> tuple[Game, Written, GddlGame]:
    text = path.read_text(encoding="utf-8", errors="replace")
    written = description_gddl(parse_gdl(text), path.stem)
    return (Game.from_gdl(text), written,
            GddlGame.read(written.domain, written.problem, written.partition))


def _plays_alike(game: Game, written: Written, gddl: GddlGame, seed: int,
                 playouts: int, max_steps: int = 60) -> int:
    """Seeded random playouts: at every state the GDDL's applicable multi-actions are the
    engine's legal joint moves, terminal and rewards agree, and the multi-action of the
    chosen joint move leads to the engine's successor. Returns the states compared."""
    name = written.names
    rng = random.Random(seed)
    compared = 0
    for _ in range(playouts):
        state = game.initial_state
        here = frozenset(name[f] for f in state.fluents)
        assert here == gddl.init or compared
        for _ in range(max_steps):
            compared += 1
            terminal = game.is_terminal(state)
            assert gddl.terminal(here) == terminal, sorted(state.fluents)
            if terminal:
                assert gddl.goals(here) == {name[r]: {v} for r, v in game.goals(state).items()}
                break
            legal = {tuple(name[str(j[r])] for r in game.roles): j
                     for j in game.legal_joint_moves(state)}
            applicable = {tuple(m.actions[name[r]] for r in game.roles): m
                          for m in gddl.applicable(here)}
            assert set(applicable) == set(legal), sorted(state.fluents)
            joint = rng.choice(sorted(legal))
            engine_joint = legal[joint]
            state = game.next_state(state, engine_joint)
            here = gddl.successor(here, applicable[joint])
            assert here == frozenset(name[f] for f in state.fluents)
    return compared


def test_tictactoe_has_a_multi_action_per_mark_and_turn() -> None:
    """Tic-tac-toe's joint moves that may be legal are a mark by the player in control and a
    noop by the other: 9 + 9 multi-actions; the partition is the 9 cells and the control."""
    _, written, gddl = _written(GAMES / "tictactoe.kif")
    assert written.multi_actions == 18
    assert len(gddl.multi_actions) == 18
    assert all("noop" in m.actions.values() for m in gddl.multi_actions)
    assert sorted(len(group) for group in gddl.groups) == [2] + [3] * 9
    assert gddl.init == {f"cell-{x}-{y}-b" for x in "123" for y in "123"} | {"control-xplayer"}


def test_effects_substitute_the_moves() -> None:
    """In the multi-action where xplayer marks (1 1), the cell is x afterwards if it was
    blank (the mark) or x already (the frame rule), is blank in no case, and the control
    passes."""
    _, _, gddl = _written(GAMES / "tictactoe.kif")
    action = next(m for m in gddl.multi_actions if m.actions["xplayer"] == "mark-1-1")
    effects = {effect: condition for condition, effect in action.effects}
    assert sorted(effects["cell-1-1-x"][1:]) == [["cell-1-1-b"], ["cell-1-1-x"]]
    assert effects["cell-1-1-x"][0] == "or"
    assert "cell-1-1-b" not in effects
    assert effects["control-oplayer"] == ["control-xplayer"]


# Minichess's GDDL takes 5 s to write (33,000 ground rules once inlined, then its mutex
# groups): too slow for `make test-fast`, run by `make test`.
@pytest.mark.parametrize("path", [
    pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem == "minichess" else [])
    for p in BUNDLED])
def test_bundled_game_plays_alike_in_gddl(path: Path) -> None:
    """Every game in games/ played from its GDDL alone agrees with the engine, state by
    state, on seeded random playouts (a seed other than the mutex groups' own)."""
    game, written, gddl = _written(path)
    assert _plays_alike(game, written, gddl, seed=7, playouts=3) > 3


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_GAMES)
def test_corpus_game_plays_alike_in_gddl(name: str) -> None:
    """Corpus games played from their GDDL agree with the engine too."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip("corpus not present")
    game, written, gddl = _written(path)
    assert _plays_alike(game, written, gddl, seed=11, playouts=2) > 2


def test_names_are_safe_and_distinct() -> None:
    """Names keep only letters, digits, _ and -: other characters are spelled out, a name
    that would start with a digit gets a prefix, and two texts never share a name."""
    game = ("(role r) (init (p 1)) (init (p a.b)) (init (|x| 2)) (legal r (go +)) "
            "(<= (next (p 1)) (true (p 1))) (<= terminal (true (p 2))) (goal r 0)")
    found = instantiate(game, inline_aux=True).gddl("odd")
    names = found.names
    assert names["(p 1)"] == "p-1"
    assert names["(p a.b)"] == "p-a_x2e_b"
    assert names["(go +)"] == "go-_x2b_"
    assert len(set(names.values())) == len(names)
    assert all(n[0].isalpha() for n in names.values())


def test_does_read_through_an_auxiliary_is_expanded_per_multi_action() -> None:
    """An auxiliary atom that reads does, used under negation in a next rule, is replaced
    in each multi-action by its value under that joint move."""
    game = ("(role r) (init s) (legal r a) (legal r b) (<= (moved) (does r a)) "
            "(<= (next t) (not (moved))) (<= (next s) (moved)) "
            "(<= terminal (true t)) (goal r 100)")
    found = instantiate(game, inline_aux=True).gddl("g")
    gddl = GddlGame.read(found.domain, found.problem, found.partition)
    by_move = {m.actions["r"]: {effect for _, effect in m.effects} for m in gddl.multi_actions}
    assert by_move == {"a": {"s"}, "b": {"t"}}


def test_recursion_through_does_takes_the_least_fixpoint() -> None:
    """An auxiliary atom that depends on itself through does is expanded to its least
    fixpoint: under move a, (m) has only itself to derive it and is false."""
    game = ("(role r) (init s) (legal r a) (legal r b) (<= (m) (does r b)) "
            "(<= (m) (m) (does r a)) (<= (next t) (not (m))) (<= terminal (true t)) "
            "(goal r 0)")
    found = instantiate(game, inline_aux=True).gddl("g")
    gddl = GddlGame.read(found.domain, found.problem, found.partition)
    by_move = {m.actions["r"]: {effect for _, effect in m.effects} for m in gddl.multi_actions}
    assert by_move == {"a": {"t"}, "b": set()}


def test_ground_command_writes_three_gddl_files(tmp_path: Path) -> None:
    """`ground --format gddl -o STEM` writes STEM.domain.gddl, STEM.problem.gddl and
    STEM.partition.gddl, which the interpreter reads."""
    stem = tmp_path / "ttt.gddl"
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", str(GAMES / "tictactoe.kif"),
         "--format", "gddl", "-o", str(stem), "--stats"],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "18 multi-actions" in result.stderr
    files = {p.name for p in tmp_path.iterdir()}
    assert files == {"ttt.domain.gddl", "ttt.problem.gddl", "ttt.partition.gddl"}
    gddl = GddlGame.read(*((tmp_path / f"ttt.{part}.gddl").read_text()
                           for part in ("domain", "problem", "partition")))
    assert len(gddl.multi_actions) == 18
