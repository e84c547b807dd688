"""The instantiation's statistics say how large each relation of the ground game grew."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

import reasoner.instantiate.ground_game as ground_game
from reasoner.asp.instantiation import AUXILIARY_RELATION, RelationSize, text_signature
from reasoner.gdl.parser import parse_game
from reasoner.instantiate.ground_game import InstantiatedGame, instantiate
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import ROOT
from tests.service_support import CALL_TIMEOUT, running_server


def _game(name: str) -> str:
    return (ROOT / "games" / name).read_text()


def _counted_from_text(found: InstantiatedGame) -> dict[tuple[str, int], tuple[int, int]]:
    """Per relation, the rules and facts of the written game, read back by the parser (the
    grounder's own atoms taken together, as the statistics take them)."""
    rules: Counter[tuple[str, int]] = Counter()
    facts: Counter[tuple[str, int]] = Counter()
    for rule in parse_game(found.gdl()).rules:
        name, arity = rule.head.signature
        if name.startswith("gdl-reasoner-aux-"):
            name, arity = AUXILIARY_RELATION, 0
        (rules if rule.body else facts)[name, arity] += 1
    return {sig: (rules[sig], facts[sig]) for sig in rules.keys() | facts.keys()}


def _counted_from_statistics(found: InstantiatedGame
                             ) -> dict[tuple[str, int], tuple[int, int]]:
    return {(size.name, size.arity): (size.rules, size.facts)
            for size in found.statistics.relations}


@pytest.mark.parametrize("name", ["tictactoe.kif", "breakthrough.kif", "blindtictactoe.kif",
                                  "hanoi.kif", "montyhall.kif"])
def test_each_relation_has_the_rules_and_facts_the_written_game_holds(name: str) -> None:
    """Per relation, the statistics count exactly the rules and facts that the written
    game holds, as the parser reads them back; together they are the totals."""
    found = instantiate(_game(name))
    assert _counted_from_statistics(found) == _counted_from_text(found)
    stats = found.statistics
    assert sum(size.rules for size in stats.relations) == stats.rules
    assert sum(size.facts for size in stats.relations) == stats.facts


def test_tictactoe_relations_are_listed_largest_first() -> None:
    """Tic-tac-toe's instantiated game: ``next/1`` holds the most rules (74), ``base/1``
    the most facts (29), and the list runs from the largest relation to the smallest."""
    sizes = instantiate(_game("tictactoe.kif")).statistics.relations
    assert sizes[0] == RelationSize("next", 1, 74, 0)
    assert RelationSize("base", 1, 0, 29) in sizes
    totals = [size.rules + size.facts for size in sizes]
    assert totals == sorted(totals, reverse=True)


@pytest.mark.parametrize("program", ["demand", "narrow"])
def test_programs_by_demand_and_narrow_count_what_they_write(
        program: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the whole program is past its bound, the program by demand (magic relations
    stripped, adorned copies written once) and the narrow one (relations ``<head>_partN``)
    are counted as written too."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 50)
    if program == "narrow":
        monkeypatch.setattr(ground_game, "DEMAND_RULES", 50)
    found = instantiate(_game("connectfour.kif"))
    assert found.statistics.program == program
    assert _counted_from_statistics(found) == _counted_from_text(found)
    names = {size.name for size in found.statistics.relations}
    assert not any("magic" in name for name in names)
    assert any("_part" in name for name in names) == (program == "narrow")


def test_inlined_game_counts_its_inlined_rules() -> None:
    """With auxiliary atoms inlined the counts are of the inlined rules: tic-tac-toe's
    goal holds 34 rules then (the lines written out), not 6."""
    found = instantiate(_game("tictactoe.kif"), inline_aux=True)
    assert _counted_from_statistics(found) == _counted_from_text(found)
    assert RelationSize("goal", 2, 34, 0) in found.statistics.relations


@pytest.mark.parametrize(("text", "signature"), [
    ("terminal", ("terminal", 0)),
    ("(cell 1 2 x)", ("cell", 3)),
    ("(legal white (move wk e 1 g 1))", ("legal", 2)),
    ("(f (g (h 1)) 2 (k))", ("f", 3)),
    ("(next (step 1))", ("next", 1)),
])
def test_an_atom_text_names_its_relation(text: str, signature: tuple[str, int]) -> None:
    """An atom's relation is read from its text, each function argument one argument."""
    assert text_signature(text) == signature


def test_ground_command_stats_list_the_largest_relations() -> None:
    """``ground --stats`` prints, after its summary, the relations that grew most with
    their rules and facts, and how many more there are."""
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", "games/breakthrough.kif", "--stats"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    lines = result.stderr.splitlines()
    at = lines.index("largest relations (2 more):")
    assert lines[at + 1] == "  vacated/2: 208 rules, 0 facts"
    assert len(lines) - at - 1 == 10


def test_instantiate_rpc_sends_the_relation_sizes() -> None:
    """The ``Instantiate`` rpc's statistics carry the same sizes, relation by relation, as
    the library's instantiation of the game."""
    with running_server() as server:
        game = server.load("breakthrough")
        response = server.stub.Instantiate(pb.InstantiateRequest(game_id=game.game_id),
                                           timeout=CALL_TIMEOUT)
    sent = [RelationSize(size.name, size.arity, size.rules, size.facts)
            for size in response.statistics.relations]
    assert sent == list(instantiate(_game("breakthrough.kif")).statistics.relations)
    assert sum(size.rules for size in sent) == response.statistics.rules
    assert [(t.program, t.stopped) for t in response.statistics.tries] == [("whole", "")]


def test_ground_command_json_holds_every_relation_size() -> None:
    """``ground --format json`` holds every relation's size in its statistics, each with
    its name, arity, rules and facts, as the library counts them."""
    result = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "ground", "games/tictactoe.kif",
         "--format", "json"], cwd=ROOT, capture_output=True, text=True, timeout=120,
        check=True)
    sent = [RelationSize(**size) for size in json.loads(result.stdout)["statistics"]["relations"]]
    assert sent == list(instantiate(_game("tictactoe.kif")).statistics.relations)


def test_a_game_that_fits_whole_is_ground_in_one_try() -> None:
    """Tic-tac-toe fits its whole program: the statistics list that one try, kept."""
    tries = instantiate(_game("tictactoe.kif")).statistics.tries
    assert [(t.program, t.stopped) for t in tries] == [("whole", "")]
    assert tries[0].seconds > 0


def test_each_program_given_up_is_listed_with_its_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the whole and demand bounds forced to 50 rules, connect four is tried whole,
    then by demand, and kept narrow: the tries list them in that order, each one given up
    with the bound it passed, the narrow one kept."""
    monkeypatch.setattr(ground_game, "WHOLE_RULES", 50)
    monkeypatch.setattr(ground_game, "DEMAND_RULES", 50)
    tries = instantiate(_game("connectfour.kif")).statistics.tries
    assert tries[0].program == "whole" and tries[-1].program == "narrow"
    assert all(t.program.startswith("demand") for t in tries[1:-1]) and len(tries) > 2
    assert all(t.stopped == "the ground program has more than 50 rules" for t in tries[:-1])
    assert tries[-1].stopped == ""


def test_a_whole_program_of_too_many_records_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole program given up for its rules and facts together says that bound, not a
    bound on rules."""
    monkeypatch.setattr(ground_game, "WHOLE_RECORDS", 10)
    tries = instantiate(_game("tictactoe.kif")).statistics.tries
    assert tries[0] == ground_game.ProgramTry(
        "whole", tries[0].seconds, "the ground program has more than 10 rules and facts")
    assert tries[-1].program == "demand" or tries[-1].program.startswith("demand ")


def test_an_instantiated_game_instantiated_again_is_one_whole_try() -> None:
    """A game without variables (an instantiated one) is ground once, whole, and that is
    its one try; its relations are those of the game it was made from."""
    first = instantiate(_game("tictactoe.kif"))
    again = instantiate(first.gdl())
    assert [(t.program, t.stopped) for t in again.statistics.tries] == [("whole", "")]
    assert {(s.name, s.arity) for s in again.statistics.relations} == {
        (s.name, s.arity) for s in first.statistics.relations}
