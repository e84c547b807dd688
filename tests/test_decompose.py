"""Rule decomposition (:mod:`reasoner.gdl.decompose`): a wide body split into joins over
fewer variables must define exactly the relations the rules define, with fewer ground
instances, and never touch a narrow rule."""

from __future__ import annotations

import random
from pathlib import Path

import clingo
import pytest

from reasoner import Game
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import _rule_text, translate
from reasoner.engine.backend import Backend
from reasoner.gdl.decompose import WIDE, decompose_rules
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import Literal, Rule, literal_variables
from reasoner.gdl.validation import validate
from reasoner.propnet.network import build_network
from tests.conftest import GAMES

# A race on a track: a move is legal when the cell reached from the player's position with
# the new velocity is on the track (racer's legal_speed, nine body variables).
WIDE_RULE = """
(<= (reachable ?p ?nx ?ny)
    (vx ?p ?dx) (vy ?p ?dy) (near ?dx ?nx) (near ?dy ?ny)
    (px ?p ?x0) (py ?p ?y0) (add ?x0 ?nx ?x) (add ?y0 ?ny ?y) (track ?x ?y)
    (not (blocked ?x ?y)) (distinct ?nx ?ny))
"""


def _flats(text: str) -> list[Rule]:
    return [flat for rule in parse_gdl(text).rules for flat in flat_rules(rule)]


def _random_facts(rng: random.Random) -> str:
    values = range(4)
    facts = [f"vx(p{p},{rng.choice(values)})." for p in range(2)]
    facts += [f"vy(p{p},{rng.choice(values)})." for p in range(2)]
    facts += [f"px(p{p},{rng.choice(values)})." for p in range(2)]
    facts += [f"py(p{p},{rng.choice(values)})." for p in range(2)]
    facts += [f"near({a},{b})." for a in values for b in values if abs(a - b) <= 1]
    facts += [f"add({a},{b},{(a + b) % 4})." for a in values for b in values]
    facts += [f"track({x},{y})." for x in values for y in values if rng.random() < 0.6]
    facts += [f"blocked({x},{y})." for x in values for y in values if rng.random() < 0.2]
    return "\n".join(facts) + "\n"


def _answers(rules: list[Rule], facts: str) -> set[str]:
    """The atoms of ``reachable`` that clingo derives."""
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join(_rule_text(rule) for rule in rules) + "\n" + facts)
    ctl.ground([("base", [])])
    return {str(a.symbol) for a in ctl.symbolic_atoms.by_signature("reachable", 3)}


def test_a_wide_rule_is_split_into_narrower_rules() -> None:
    """Racer's nine-variable legal_speed shape becomes rules of at most four variables,
    each new relation named after the head."""
    (rule,) = _flats(WIDE_RULE)
    split = decompose_rules([rule])
    assert len(split) > 1
    assert split[0].head == rule.head
    assert all(r.head.name.startswith("reachable_part") for r in split[1:])
    widths = [len({v for lit in r.body for v in _variables(lit)}) for r in split]
    assert max(widths) <= 4


def test_the_split_rules_define_what_the_rule_defines() -> None:
    """On random facts (positions, velocities, a random track with blocked cells), the split
    rules derive exactly the atoms the wide rule derives."""
    rules = _flats(WIDE_RULE)
    split = decompose_rules(rules)
    rng = random.Random(7)
    derived = 0
    for _ in range(25):
        facts = _random_facts(rng)
        whole = _answers(rules, facts)
        assert _answers(split, facts) == whole
        derived += len(whole)
    assert derived > 25  # the samples derive something to compare


def test_narrow_rules_are_left_as_they_are() -> None:
    """Every rule of tic-tac-toe (at most five variables) comes back unchanged."""
    rules = _flats((GAMES / "tictactoe.kif").read_text())
    assert all(len({v for lit in r.body for v in _variables(lit)}) < WIDE for r in rules)
    assert decompose_rules(rules) == rules


def test_new_names_never_collide_with_the_games() -> None:
    """A game that already uses the name the split would take gets a different one."""
    text = WIDE_RULE + "(reachable_part1 a) (reachable_part2 b)"
    split = decompose_rules(_flats(text))
    new = {r.head.name for r in split} - {"reachable", "reachable_part1", "reachable_part2"}
    assert new and all(name.startswith("reachable_") for name in new)
    assert [r for r in split if r.head.name == "reachable_part1"] == _flats(
        "(reachable_part1 a)")


def test_the_disjuncts_of_an_or_share_their_split() -> None:
    """The two flat rules of one ``or`` share the relations split from their common
    literals instead of defining each its own copy."""
    text = WIDE_RULE.replace("(distinct ?nx ?ny))", "(or (distinct ?nx 0) (distinct ?ny 0)))")
    split = decompose_rules(_flats(text))
    names = [r.head.name for r in split if r.head.name != "reachable"]
    assert len(names) == len(set(names))


@pytest.mark.corpus
def test_racer_grounds_once_and_gets_a_network(corpus: Path) -> None:
    """Racer (corpus), whose whole program joins too many variables in legal_speed to ground
    over its superset, gets a network from its split program (the network backend, within
    its own bounds), its moves as before."""
    game = Game.from_file(corpus / "ggp-repository" / "racer.kif", backend="propnet")
    assert game.backend is Backend.PROPNET
    assert len(game.roles) == 2 and game.statistics.moves == 4545


def _variables(literal: Literal) -> set[str]:
    return {v.name for v in literal_variables(literal)}


def test_a_program_that_grounds_whole_is_not_split() -> None:
    """Connect four's line rules are wide, but its whole program grounds within the bounds:
    its network is built from the whole program, which is smaller than the split one."""
    description = parse_gdl((GAMES / "connectfour.kif").read_text())
    validate(description)
    translation = translate(description)
    assert translation.split is not None
    superset = compute_superset(translation)
    whole = build_network(translation, superset, description.roles).size.gates
    split = build_network(translation.split, superset, description.roles).size.gates
    assert split > whole
    network = Game.from_file(GAMES / "connectfour.kif").statistics.network
    assert network is not None and network.gates == whole
