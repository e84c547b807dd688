"""Relaxed-reachability supersets (docs/semantics/instantiation.md): every fluent, move and
auxiliary atom that could ever hold."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from reasoner import Game
from reasoner.instantiate.supersets import supersets
from tests.conftest import BUNDLED, ROOT

FOUR_CELLS = """
(role robot)
(init (cell a))
(adjacent a b) (adjacent b c) (adjacent c d) (adjacent d a)
(legal robot move)
(<= (next (cell ?y)) (does robot move) (true (cell ?x)) (adjacent ?x ?y))
(<= terminal (true (cell d)))
(goal robot 100)
"""


def test_four_cell_example_has_the_domain_a_to_d() -> None:
    """The worked example of docs/semantics/instantiation.md: the domain of cell is exactly {a, b,
    c, d}."""
    found = supersets(FOUR_CELLS)
    assert found.fluents == ("(cell a)", "(cell b)", "(cell c)", "(cell d)")
    assert found.moves == (("robot", "move"),)


def test_tictactoe_superset_sizes(corpus: Path) -> None:
    """ggp.org's tic-tac-toe: 27 cell fluents, 2 control fluents, 9 marks and a noop per role."""
    found = supersets((corpus / "ggp-repository" / "ticTacToe.kif").read_text())
    cells = [f for f in found.fluents if f.startswith("(cell ")]
    controls = [f for f in found.fluents if f.startswith("(control ")]
    assert (len(cells), len(controls), len(found.fluents)) == (27, 2, 29)
    for role in ("xplayer", "oplayer"):
        moves = [m for r, m in found.moves if r == role]
        assert len(moves) == 10
        assert sum(m.startswith("(mark ") for m in moves) == 9 and "noop" in moves


def test_auxiliary_atoms_are_included() -> None:
    """Auxiliary relations read only by goal or terminal are in the superset too."""
    found = supersets((ROOT / "games" / "tictactoe.kif").read_text())
    assert found.atoms[("line", 1)] == ("(line o)", "(line x)")
    assert ("goal", 2) in found.atoms and ("terminal", 0) in found.atoms


def test_negation_is_relaxed_away() -> None:
    """Dropping negative literals over-approximates: b is in the superset although the rule
    that makes it can never fire."""
    text = """(role r) (init a) (legal r go)
              (<= (next b) (true a) (not (true a))) (<= (next a) (true a))
              (<= terminal (true b)) (goal r 0)"""
    assert supersets(text).fluents == ("a", "b")
    game = Game.from_gdl(text)
    state = game.next_state(game.initial_state, {"r": "go"})
    assert state.fluents == {"a"}


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_playouts_stay_inside_the_superset(path: Path) -> None:
    """Every fluent and move seen along seeded random playouts is in the superset."""
    text = path.read_text()
    found = supersets(text)
    fluents, moves = set(found.fluents), set(found.moves)
    game = Game.from_gdl(text)
    rng = random.Random(5)
    for _ in range(10):
        state = game.initial_state
        while True:
            assert state.fluents <= fluents
            if game.is_terminal(state):
                break
            joint = {role: rng.choice(game.legal_moves(state, role)) for role in game.roles}
            assert {(role, move.text) for role, move in joint.items()} <= moves
            state = game.next_state(state, joint)


def test_supersets_command_prints_json() -> None:
    """`gdl-reasoner supersets --json` prints every atom grouped by relation."""
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "supersets", "--json", "games/nim.kif"],
        cwd=ROOT, capture_output=True, text=True, check=True)
    record = json.loads(result.stdout)
    assert record["game"] == "nim"
    assert len(record["fluents"]) == len(record["atoms"]["true/1"])
    assert record["size"] == sum(len(v) for v in record["atoms"].values())


def test_supersets_over_grpc_match_in_process() -> None:
    """The Supersets rpc returns the in-process supersets, and NOT_FOUND for unknown ids."""
    from client import ReasonerClient
    from reasoner.errors import UnknownGameError
    from reasoner.server import create_server
    from reasoner.v1 import reasoner_pb2 as pb

    text = (ROOT / "games" / "maze.kif").read_text()
    server, port, _ = create_server("127.0.0.1:0", games=None)
    try:
        with ReasonerClient(f"127.0.0.1:{port}") as client:
            remote = client.load_game(text)
            assert remote.supersets() == supersets(text).atoms
            assert remote.supersets() == supersets(text).atoms  # the cached answer
            with pytest.raises(UnknownGameError):
                client.call("Supersets", pb.SupersetsRequest(game_id="0" * 64))
    finally:
        server.stop(None)


def test_streamed_supersets_come_in_parts_that_join_to_the_whole_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """StreamSupersets sends the supersets in messages of about SUPERSET_PART_BYTES of atoms,
    a relation continued across messages under its name, the totals on the last message
    only; joined, they are the Supersets answer."""
    from reasoner.server import create_server, service
    from reasoner.v1 import reasoner_pb2 as pb
    from reasoner.v1 import reasoner_pb2_grpc as pb_grpc

    monkeypatch.setattr(service, "SUPERSET_PART_BYTES", 200)
    server, port, _ = create_server("127.0.0.1:0", games=None)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.ReasonerStub(channel)  # type: ignore[no-untyped-call]
            text = (ROOT / "games" / "connectfour.kif").read_text()
            game = stub.LoadGame(pb.LoadGameRequest(gdl=text), timeout=60).game
            whole = stub.Supersets(pb.SupersetsRequest(game_id=game.game_id), timeout=60)
            parts = list(stub.StreamSupersets(pb.SupersetsRequest(game_id=game.game_id),
                                              timeout=60))
    finally:
        server.stop(None)
    assert len(parts) > 10
    for part in parts[:-1]:
        held = sum(len(atom) + 2 for r in part.relations for atom in r.atoms)
        assert held <= 200 + max(len(a) + 2 for r in part.relations for a in r.atoms)
        assert (part.size, part.elapsed_ms, list(part.demanded)) == (0, 0.0, [])
    assert parts[-1].size == whole.size > 0
    joined: dict[tuple[str, int], list[str]] = {}
    for part in parts:
        for relation in part.relations:
            joined.setdefault((relation.name, relation.arity), []).extend(relation.atoms)
    assert joined == {(r.name, r.arity): list(r.atoms) for r in whole.relations}


def test_demanded_supersets_over_grpc_name_the_demanded_relations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the full relaxed grounding is over its budget, the rpc answers with the compiled
    evaluation's atoms and names the demanded relations (tic-tac-toe's line/1, forced past
    the budget here; on an unbounded test server the work runs in this process)."""
    from client import ReasonerClient
    from reasoner.instantiate import supersets as module
    from reasoner.server import create_server

    monkeypatch.setattr(module, "FULL_RULES", 0)
    text = (ROOT / "games" / "tictactoe.kif").read_text()
    server, port, _ = create_server("127.0.0.1:0", games=None, limits=None)
    try:
        with ReasonerClient(f"127.0.0.1:{port}") as client:
            remote = client.load_game(text)
            assert "line/1" in remote.demanded()
            assert remote.supersets() == supersets(text, method="demanded").atoms
    finally:
        server.stop(None)


def test_relaxed_layers_of_the_four_cell_example() -> None:
    """From (cell a) the relaxed layers add b, c, d one per layer, then reach a fixpoint."""
    game = Game.from_gdl(FOUR_CELLS)
    found = game.relaxed_layers(game.initial_state)
    assert [layer.fluents for layer in found.layers] == [
        ("(cell a)",), ("(cell a)", "(cell b)"), ("(cell a)", "(cell b)", "(cell c)"),
        ("(cell a)", "(cell b)", "(cell c)", "(cell d)")]
    assert found.fixpoint
    assert "terminal" in found.layers[3].atoms and "terminal" not in found.layers[2].atoms


def test_relaxed_layers_of_the_maze_reach_the_goal() -> None:
    """In the maze, goal 100 first becomes reachable when the gold can lie in a."""
    game = Game.from_file(ROOT / "games" / "maze.kif")
    found = game.relaxed_layers(game.initial_state)
    first = next(i for i, layer in enumerate(found.layers) if "(goal robot 100)" in layer.atoms)
    assert "(gold a)" in found.layers[first].fluents
    assert "(gold a)" not in found.layers[first - 1].fluents
    assert ("robot", "grab") in found.layers[2].moves
    assert ("robot", "grab") not in found.layers[1].moves


def test_layers_and_instantiation_over_grpc() -> None:
    """RelaxedLayers and Instantiate rpcs answer like the in-process functions."""
    from client import ReasonerClient
    from reasoner.instantiate import instantiate
    from reasoner.server import create_server

    text = FOUR_CELLS
    server, port, _ = create_server("127.0.0.1:0", games=None)
    try:
        with ReasonerClient(f"127.0.0.1:{port}") as client:
            remote = client.load_game(text)
            local = Game.from_gdl(text)
            expected = local.relaxed_layers(local.initial_state)
            got = remote.relaxed_layers()
            assert [[remote.fluents[i] for i in fluents] for fluents, _, _ in got] == [
                list(layer.fluents) for layer in expected.layers]
            assert remote.instantiate() == instantiate(text).gdl()
            assert remote.instantiate(inline_aux=True) == instantiate(
                text, inline_aux=True).gdl()
            kept = remote.instantiate(keep_static=True)
            assert kept == instantiate(text, keep_static=True).gdl()
            assert "(adjacent a b)" in kept and "(adjacent a b)" not in remote.instantiate()
    finally:
        server.stop(None)


def test_gddl_over_grpc() -> None:
    """Instantiate with gddl=True returns the same three GDDL texts as the command line's
    pipeline, with the names of the GDL texts."""
    from client import ReasonerClient
    from reasoner.gdl.parser import parse_gdl
    from reasoner.instantiate.ground_game import description_gddl
    from reasoner.server import create_server

    text = (ROOT / "games" / "tictactoe.kif").read_text()
    server, port, _ = create_server("127.0.0.1:0", games=None)
    try:
        with ReasonerClient(f"127.0.0.1:{port}") as client:
            files = client.load_game(text).gddl()
        expected = description_gddl(parse_gdl(text), "game")
        assert (files.domain, files.problem, files.partition) == (
            expected.domain, expected.problem, expected.partition)
        assert files.multi_actions == 18
        assert files.names["(cell 1 1 b)"] == "cell-1-1-b"
    finally:
        server.stop(None)


def test_stand_alone_clingo_grounds_the_relaxed_program_to_the_superset() -> None:
    """`gdl-reasoner translate --relaxed GAME` is a grounding-only run for the stand-alone
    clingo of the clingo package: its ground output holds exactly the superset's fluents."""
    translated = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "translate", "--relaxed", "games/tictactoe.kif"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    grounded = subprocess.run([sys.executable, "-m", "clingo", "--text"], input=translated,
                              capture_output=True, text=True, check=True).stdout
    fluents = {line for line in grounded.splitlines() if line.startswith("true(")}
    assert len(fluents) == len(supersets((ROOT / "games" / "tictactoe.kif").read_text()).fluents)
    assert "true(cell(2,2,x))." in fluents


# -- past the full grounding's budget: the demanded atoms (reasoner.compiled.relaxed) -------


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_demanded_supersets_keep_the_full_ones_where_a_relation_is_used_in_full(
        path: Path) -> None:
    """Evaluated as compiled code with tables, the supersets have the full grounding's
    fluents and moves, every relation that is read in full has all its atoms, and a relation
    called only with bound arguments holds a part of them."""
    text = path.read_text()
    full = supersets(text, method="full")
    demanded = supersets(text, method="demanded")
    assert (demanded.fluents, demanded.moves) == (full.fluents, full.moves)
    assert not full.demanded
    for (name, arity), atoms in full.atoms.items():
        found = set(demanded.atoms.get((name, arity), ()))
        if f"{name}/{arity}" in demanded.demanded:
            assert found <= set(atoms), name
        else:
            assert found == set(atoms), name
    assert set(demanded.atoms) <= set(full.atoms)


def test_demanded_supersets_hold_only_the_instances_the_rules_ask_for() -> None:
    """Tic-tac-toe's ``(line ?player)`` is only asked for x and o: the full grounding has
    those two atoms as well, and the demanded supersets list the relation as demanded."""
    found = supersets((ROOT / "games" / "tictactoe.kif").read_text(), method="demanded")
    assert "line/1" in found.demanded
    assert found.atoms[("line", 1)] == ("(line o)", "(line x)")


def test_supersets_ground_in_full_within_the_budget() -> None:
    """Where the full relaxed grounding fits its budget (every bundled game), ``auto`` is the
    full grounding, no relation demanded."""
    text = (ROOT / "games" / "connectfour.kif").read_text()
    found = supersets(text)
    assert found.atoms == supersets(text, method="full").atoms
    assert found.demanded == ()


def test_demanded_supersets_read_a_negated_move_from_the_move_superset() -> None:
    """A rule that reads ``(not (does ...))`` is evaluated over every move at once, the
    negation asked and then ignored as the relaxed reading says."""
    text = FOUR_CELLS + "(<= (next (cell ?x)) (true (cell ?x)) (not (does robot move)))\n"
    assert supersets(text, method="demanded").fluents == supersets(text, method="full").fluents


# near asks far/4 with every argument free: 40^4 answers in one table.
FAR = ("(role a) " + " ".join(f"(n {i})" for i in range(40))
       + " (init s) (legal a go) (<= (next s) (true s)) "
       "(<= (far ?a ?b ?c ?d) (true s) (n ?a) (n ?b) (n ?c) (n ?d)) "
       "(<= near (far ?a ?b ?c ?d)) (<= (goal a 100) near) (<= terminal (not near))")


def test_demanded_supersets_past_their_memory_bound_name_the_relation_that_grew() -> None:
    """Where the compiled evaluation's tables outgrow their bound, the refusal names the
    relation whose tables held the most, with its counts (far/4's one table of 40^4
    answers, cut off before the last), and carries it as the error's relation."""
    from reasoner.compiled.relaxed import demanded_atoms
    from reasoner.errors import ResourceLimitError
    from reasoner.gdl.parser import parse_gdl

    with pytest.raises(ResourceLimitError) as refused:
        demanded_atoms(parse_gdl(FAR), ["s"], [("a", "go")], memory_mib=64)
    assert refused.value.bound is not None and refused.value.bound.value == "memory"
    assert refused.value.relation == "far/4"
    assert str(refused.value).startswith(
        "the compiled rules' tables for the relaxed atoms grew past 64 MiB; the tables of "
        "far/4 grew most (1 table, "), str(refused.value)


def test_demanded_supersets_need_a_c_compiler(without_c_compiler: None) -> None:
    """Without a C compiler, ``demanded`` says so, and ``auto`` grounds in full."""
    from reasoner.compiled.build import CompilerMissing

    with pytest.raises(CompilerMissing):
        supersets(FOUR_CELLS, method="demanded")
    assert not supersets(FOUR_CELLS).demanded


@pytest.mark.slow
def test_chess_supersets_finish_within_the_grounding_bound(corpus: Path) -> None:
    """ggp.org's chess, whose full relaxed superset holds 11 million atoms: ``supersets``
    answers within its default bounds (120 s, 4 GiB) with the threat relations demanded."""
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "supersets",
         str(corpus / "ggp-repository" / "chess.kif")],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "1617 fluents, 7622 moves" in lines[0]
    assert any(line.strip().startswith("threatened_with_capture/7: ")
               and line.endswith(" *") for line in lines)
    assert any(line.strip() == "different_cells/4: 65280" for line in lines)

