"""The position-by-position backend and the demand-driven rules it grounds (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

import reasoner.asp.position as position
from reasoner import Game
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.engine.backend import Backend, build_machine
from reasoner.errors import ResourceLimitError
from reasoner.gdl.demand import demand_rules
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_gdl
from reasoner.propnet.network import NetworkBounds
from tests.conftest import GAMES

# A helper relation over five arguments, each of twelve numbers: 248,832 instances in full,
# while legal only ever asks for the one whose arguments the state binds.
PADDED = """
(role p)
(init (at 0 1 2 3 4))
(n 0) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9) (n 10) (n 11)
(<= (fits ?a ?b ?c ?d ?e) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e))
(<= (legal p (go ?a)) (true (at ?a ?b ?c ?d ?e)) (fits ?a ?b ?c ?d ?e))
(<= (legal p stay) (true (at ?a ?b ?c ?d ?e)) (not (fits ?e ?d ?c ?b ?a)))
(<= (next (at ?b ?c ?d ?e ?a)) (does p (go ?a)) (true (at ?a ?b ?c ?d ?e)))
(<= terminal (true (at 4 0 1 2 3)))
(goal p 100)
"""


@pytest.mark.parametrize("name", ["tictactoe.kif", "connectfour.kif", "breakthrough.kif",
                                  "threeplayer.kif", "nim.kif"])
def test_position_backend_agrees_with_clingo(name: str) -> None:
    """Every state of seeded playouts answers alike (legal moves, successor, terminal,
    goals) whether clingo grounds the game once or each position anew."""
    text = (GAMES / name).read_text()
    once = Game.from_gdl(text, backend="clingo")
    anew = Game.from_gdl(text, backend="position")
    assert anew.backend is Backend.POSITION
    assert first_disagreement(once, anew, playouts=2, seed=3) is None


def test_position_backend_keeps_the_tables() -> None:
    """Roles, fluent table, move table and initial state are those of the other backends, so
    a state or a move id means the same whichever backend answers."""
    text = (GAMES / "tictactoe.kif").read_text()
    once, anew = Game.from_gdl(text, backend="clingo"), Game.from_gdl(text, backend="position")
    assert (anew.roles, anew.fluents, anew.move_texts) == (once.roles, once.fluents,
                                                           once.move_texts)
    assert anew.initial_state.bits == once.initial_state.bits


def test_auto_grounds_position_by_position_when_the_program_is_too_large() -> None:
    """When the game's program does not ground within the network's bounds, auto answers
    position by position and says why."""
    description = parse_gdl(PADDED)
    translation = translate(description)
    built = build_machine(translation, compute_superset(translation), description.roles,
                          "auto", check_stratification=False,
                          bounds=NetworkBounds(seconds=10.0, rules=20_000, gates=200_000))
    assert built.backend is Backend.POSITION
    assert ("clingo", "each position is evaluated as it is asked") in [
        (step.backend, step.then) for step in built.note.steps]


def test_demand_grounds_only_the_instances_a_position_asks_for() -> None:
    """The padded helper relation gets a handful of ground atoms per position, not its
    248,832 instances, and the game plays to its end."""
    game = Game.from_gdl(PADDED, backend="position")
    state, steps = game.initial_state, 0
    while not game.is_terminal(state):
        moves = game.legal_moves(state, "p")
        assert [m.text[:4] for m in moves] == ["(go "]
        state = game.next_state(state, {"p": moves[0]})
        steps += 1
    assert steps == 4
    assert game.machine.ground_atom_count < 100


def test_a_position_too_large_is_refused_naming_the_relation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A position that grows past its bound is a ResourceLimitError naming the relation
    that grew, not a hang."""
    monkeypatch.setattr(position, "POSITION_RULES", 1_000)
    text = PADDED.replace("(<= (legal p (go ?a)) (true (at ?a ?b ?c ?d ?e)) "
                          "(fits ?a ?b ?c ?d ?e))",
                          "(<= (legal p (go ?a)) (true (at ?a ?x ?y ?z ?w)) "
                          "(fits ?a ?b ?c ?d ?e))")
    with pytest.raises(ResourceLimitError) as caught:
        Game.from_gdl(text, backend="position")
    assert caught.value.relation == "fits"


def test_adorned_relations_never_collide_with_the_game_s_own() -> None:
    """The rewrite's relation names hold a space, which no GDL name can: a game that has a
    relation spelled like an adorned one keeps it apart."""
    rules = [flat for rule in parse_gdl(PADDED).rules for flat in flat_rules(rule)]
    names = {rule.head.name for rule in demand_rules(rules, queries=[("legal", 2)],
                                                     base=[("true", 1), ("does", 2)])}
    assert "fits bbbbb" in names and "fits bbbbb magic" in names
    assert all(" " in name for name in names - {"legal", "n", "role", "init", "next",
                                                 "terminal", "goal"})


def test_a_relation_needed_in_full_is_used_in_full_everywhere() -> None:
    """When some call asks a helper relation with no argument bound, every call uses the
    whole relation rather than an adorned copy beside it."""
    text = PADDED + "(<= (goal p 50) (fits ?a ?b ?c ?d ?e))"
    rules = [flat for rule in parse_gdl(text).rules for flat in flat_rules(rule)]
    out = demand_rules(rules, queries=[("legal", 2), ("goal", 2)],
                       base=[("true", 1), ("does", 2)])
    assert not any(rule.head.name.startswith("fits ") for rule in out)


def test_negation_through_recursion_is_not_introduced() -> None:
    """A game whose helper is both called under negation and feeds the calling context
    still answers like the clingo backend (the rewrite gives up what would not stratify)."""
    text = """
    (role p)
    (init (c 0))
    (s 0 1) (s 1 2) (s 2 3)
    (<= (reach ?x ?y) (s ?x ?y))
    (<= (reach ?x ?z) (s ?x ?y) (reach ?y ?z))
    (<= (blocked ?x) (true (c ?x)) (not (reach ?x 3)))
    (<= (legal p (go ?y)) (true (c ?x)) (reach ?x ?y) (not (blocked ?y)))
    (<= (next (c ?y)) (does p (go ?y)))
    (<= terminal (true (c 3)))
    (goal p 100)
    """
    assert first_disagreement(Game.from_gdl(text, backend="clingo"),
                              Game.from_gdl(text, backend="position"), playouts=3) is None


@pytest.mark.corpus
@pytest.mark.slow
def test_chess_loads_and_plays_position_by_position(corpus: Path) -> None:
    """GGP chess, whose program does not ground once, loads on the position backend
    (clingo grounding each position) and plays legal moves from its initial position."""
    game = Game.from_file(corpus / "ggp-repository" / "chess.kif", backend="position")
    assert game.backend is Backend.POSITION
    assert len(game.legal_moves(game.initial_state, "white")) == 20
    run = game.simulate(game.initial_state, playouts=1, seed=1, max_steps=10)
    assert run.updates == 10


def test_rules_with_two_answer_sets_are_refused_as_on_clingo() -> None:
    """Rules unstratified on the ground level are refused at load on the position backend,
    as on clingo, instead of answering from whichever answer set comes first."""
    from reasoner.errors import GdlValidationError

    text = "(role a) (legal a go) (<= p (not q)) (<= q (not p)) (<= terminal p) (goal a 0)"
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(text, backend="position")
    assert caught.value.reason == "unstratified"
