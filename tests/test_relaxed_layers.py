"""Relaxed layers (docs/semantics/heuristics.md, the RelaxedLayers rpc): every atom's first
layer counted out of the ground relaxed program in one pass, in full or demand-driven."""

from __future__ import annotations

import json
from pathlib import Path

import grpc
import numpy as np
import pytest

from reasoner import Game
from reasoner.asp import relaxed_layers as layers_module
from reasoner.asp.atom_layers import NEVER, Program, first_layers
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import ROOT
from tests.service_support import expect_detail, running_server


def _program(rules: list[tuple[int, list[int]]], atoms: int) -> Program:
    return Program(np.array([head for head, _ in rules], dtype=np.int64),
                   np.array([len(body) for _, body in rules], dtype=np.int64),
                   np.array([atom for _, body in rules for atom in body], dtype=np.int64),
                   atoms)


def _ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_a_carried_atom_holds_one_layer_later() -> None:
    """next(b) derived from true(a) in layer 0 makes true(b) hold in layer 1, and what true(b)
    derives holds there too; nothing new after that is a fixpoint."""
    # 1 true(a), 2 next(b), 3 true(b), 4 q
    found = first_layers(_program([(2, [1]), (4, [3])], 4), _ints(1), _ints(2), _ints(3), 10)
    assert list(found.first[1:]) == [0, 0, 1, 1]
    assert (found.count, found.fixpoint) == (2, True)


def test_a_rule_waits_for_its_last_body_atom() -> None:
    """A rule of two body atoms fires in the layer of the later one."""
    # 1 true(a), 2 next(b), 3 true(b), 4 both
    found = first_layers(_program([(2, [1]), (4, [1, 3])], 4), _ints(1), _ints(2), _ints(3), 10)
    assert found.first[4] == 1


def test_layers_stop_at_the_cap_without_a_fixpoint() -> None:
    """A chain a -> b -> c cut at two layers: c never holds and there is no fixpoint."""
    # 1 true(a), 2 next(b), 3 true(b), 4 next(c), 5 true(c)
    found = first_layers(_program([(2, [1]), (4, [3])], 5), _ints(1), _ints(2, 4),
                         _ints(3, 5), 2)
    assert found.first[5] == NEVER
    assert (found.count, found.fixpoint) == (2, False)


def test_facts_hold_from_the_first_layer() -> None:
    """A rule with an empty body holds in layer 0 whatever the state."""
    found = first_layers(_program([(1, []), (2, [1])], 2), _ints(), _ints(), _ints(), 5)
    assert list(found.first[1:]) == [0, 0]


def test_a_negative_body_literal_is_refused() -> None:
    """The count-down reads positive programs only."""
    with pytest.raises(ValueError, match="negative"):
        first_layers(_program([(2, [-1])], 2), _ints(), _ints(), _ints(), 5)


@pytest.mark.parametrize("game", ["minichess", "breakthrough", "maze"])
@pytest.mark.parametrize("budgets", ["demand, bindings passed on", "demand, constants only"])
def test_demand_driven_layers_agree_with_the_full_program(
        game: str, budgets: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the full relaxed program over its budget (and the first demand-driven one too),
    the layers of fluents, moves, legal, goal and terminal are those of the full program."""
    loaded = Game.from_file(ROOT / "games" / f"{game}.kif")
    wanted = ["legal", "goal", "terminal"]
    full = loaded.relaxed_layers(loaded.initial_state, atoms_of=wanted)
    monkeypatch.setattr(layers_module, "FULL_RULES", 0)
    if budgets == "demand, constants only":
        monkeypatch.setattr(layers_module, "FIRST_TRY_RULES", 0)
    demanded = loaded.relaxed_layers(loaded.initial_state, atoms_of=wanted)
    assert (demanded.fluents, demanded.moves, demanded.atoms) == \
        (full.fluents, full.moves, full.atoms)
    assert (demanded.count, demanded.fixpoint) == (full.count, full.fixpoint)


def test_atoms_of_keeps_only_the_named_relations() -> None:
    """atoms_of=("goal",) lists goal atoms alone, an empty atoms_of none at all, and neither
    changes the fluents and moves of a layer."""
    maze = Game.from_file(ROOT / "games" / "maze.kif")
    every = maze.relaxed_layers(maze.initial_state)
    goals = maze.relaxed_layers(maze.initial_state, atoms_of=("goal",))
    none = maze.relaxed_layers(maze.initial_state, atoms_of=())
    assert goals.atoms == {"(goal robot 0)": 0, "(goal robot 100)": 4}
    assert none.atoms is None and none.layer(3).atoms == ()
    assert (goals.fluents, goals.moves) == (none.fluents, none.moves) == \
        (every.fluents, every.moves)


def test_relations_with_names_asp_cannot_spell_are_kept() -> None:
    """A relation whose GDL name is no ASP identifier (``++``) keeps its atoms in the layers
    (they were left out as internal names before)."""
    game = Game.from_gdl("""
        (role r) (init (at 1)) (++ 1 2) (++ 2 3) (legal r go)
        (<= (next (at ?y)) (true (at ?x)) (++ ?x ?y))
        (<= terminal (true (at 3))) (goal r 100)""")
    found = game.relaxed_layers(game.initial_state)
    assert found.atoms is not None and found.atoms["(++ 1 2)"] == 0
    assert found.atoms["terminal"] == 2


def test_rpc_refuses_layers_larger_than_an_answer(corpus: Path) -> None:
    """Six-disk Hanoi's 64 layers list 2.7 MB of atoms: over a 1 MiB server's answer, the
    rpc says RESOURCE_EXHAUSTED and how to ask for less; without_atoms and atoms_of answer."""
    with running_server(max_message_mb=1) as server:
        info = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=(corpus / "ggp-repository" / "hanoi_6_disks.kif").read_text()),
            timeout=60).game
        ask = pb.RelaxedLayersRequest(game_id=info.game_id, from_initial=True)
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.RelaxedLayers,
                               ask)
        assert "more than an answer may" in detail.message
        assert "without_atoms" in detail.message
        bare = server.stub.RelaxedLayers(pb.RelaxedLayersRequest(
            game_id=info.game_id, from_initial=True, without_atoms=True), timeout=60)
        goals = server.stub.RelaxedLayers(pb.RelaxedLayersRequest(
            game_id=info.game_id, from_initial=True, atoms_of=["goal", "terminal"]),
            timeout=60)
    assert bare.fixpoint and len(bare.layers) == 64
    assert all(not layer.atoms for layer in bare.layers)
    assert [list(layer.fluents) for layer in goals.layers] == \
        [list(layer.fluents) for layer in bare.layers]
    assert all(atom.startswith("(goal ") or atom == "terminal"
               for atom in goals.layers[-1].atoms)
    assert "terminal" in goals.layers[-1].atoms


@pytest.mark.slow  # about 50 s: chess's demand-driven relaxed program, 6 million rules
@pytest.mark.corpus
def test_chess_layers_reach_their_fixpoint_within_the_bounds(corpus: Path) -> None:
    """Chess, whose relaxed program does not ground in full (11 million atoms), has its 201
    layers (its step counter adds one a layer) of fluents and moves, demand-driven."""
    from reasoner.asp.relaxed_layers import description_layers
    from reasoner.asp.superset import new_control
    from reasoner.asp.symbols import symbol_to_gdl
    from reasoner.asp.translate import translate
    from reasoner.gdl.parser import parse_gdl
    from reasoner.gdl.validation import validate

    description = parse_gdl((corpus / "ggp-repository" / "chess.kif").read_text())
    validate(description)
    control = new_control()
    control.add("base", [], translate(description).init_program)
    control.ground([("base", [])])
    initial = [symbol_to_gdl(atom.symbol.arguments[0])
               for atom in control.symbolic_atoms.by_signature("init", 1)]
    found = description_layers(description, initial, 300, ())
    assert found.fixpoint and found.count == 201
    assert found.moves[("white", "(move wp e 2 e 4)")] == 0
    assert found.moves[("black", "(move bp e 7 e 5)")] == 1
    assert found.fluents["(cell e 4 wp)"] == 1


def test_layers_command_prints_each_layer_and_the_first_goal() -> None:
    """``gdl-reasoner layers`` on the maze: ten layers to a fixpoint, goal 100 and terminal
    first reachable in layer 4, also as JSON."""
    from tests.test_cli import run_cli

    shown = run_cli("layers", "games/maze.kif", "--list")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("games/maze.kif: 10 relaxed layers in ")
    assert "then a fixpoint: 19 fluents, 3 moves, 3 atoms of goal, terminal" in shown.stdout
    assert "    4 (goal robot 100)" in shown.stdout.splitlines()
    found = json.loads(run_cli("layers", "games/maze.kif", "--json", "--atoms-of").stdout)
    assert (found["layers"], found["fixpoint"], found["atoms"]) == (10, True, {})
    assert found["fluents"]["(gold a)"] == 4


def test_layers_command_names_a_malformed_file_in_one_line(tmp_path: Path) -> None:
    """Malformed GDL: exit status 1, one line with the position, no traceback."""
    from tests.test_cli import run_cli

    path = tmp_path / "bad.kif"
    path.write_text("(role robot)\n(init (cell 1)\n")
    failed = run_cli("layers", path)
    assert failed.returncode != 0
    assert "line " in failed.stderr and "Traceback" not in failed.stderr
