"""The narrow program a network falls back on (:attr:`Translation.split`): static
relations that project variables away unfolded into the rules that read the state
(:func:`reasoner.gdl.unfolding.unfold_projections`), then every body that an elimination
makes narrower split. It must define what the game's rules define, and it is tried only
where the whole program's network is over its bounds."""

from __future__ import annotations

import random
from pathlib import Path

import clingo
import pytest

from reasoner import Game
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import NARROW, _rule_text, translate
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.engine.backend import Backend, build_machine
from reasoner.gdl.decompose import decompose_rules
from reasoner.gdl.normal_form import flat_rules
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import Atom, Not, Rule, literal_variables
from reasoner.gdl.unfolding import unfold_projections
from reasoner.gdl.validation import validate
from reasoner.propnet.network import NetworkBounds
from tests.conftest import GAMES

# Quarto's shape: a line of four cells whose pieces share one bit. ``same`` is static and
# projects the bit away, so bottom-up it is a table of every quadruple of pieces that share
# a bit, and ``line`` grounds once per row of it.
LINES = """
(<= (same ?p1 ?p2 ?p3 ?p4)
    (bit ?n) (value ?b)
    (has ?n ?p1 ?b) (has ?n ?p2 ?b) (has ?n ?p3 ?b) (has ?n ?p4 ?b))
(<= (line ?y)
    (row ?y)
    (true (cell 1 ?y ?p1)) (true (cell 2 ?y ?p2))
    (true (cell 3 ?y ?p3)) (true (cell 4 ?y ?p4))
    (same ?p1 ?p2 ?p3 ?p4))
"""
PIECES = range(16)


def _flats(text: str) -> list[Rule]:
    return [flat for rule in parse_gdl(text).rules for flat in flat_rules(rule)]


def _calls(rules: list[Rule], name: str) -> int:
    """How many body literals, negated or not, read ``name``."""
    inners = [lit.literal if isinstance(lit, Not) else lit for rule in rules for lit in rule.body]
    return sum(1 for inner in inners if isinstance(inner, Atom) and inner.name == name)


def _lines(rules: list[Rule], board: dict[tuple[int, int], int]) -> set[str]:
    """The ``line`` atoms clingo derives for a board (cell -> piece)."""
    facts = [f"bit({n})." for n in range(4)] + ["value(0).", "value(1)."]
    facts += [f"row({y})." for y in range(1, 5)]
    facts += [f"has({n},{p},{p >> n & 1})." for n in range(4) for p in PIECES]
    facts += [f"true(cell({x},{y},{p}))." for (x, y), p in board.items()]
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], "\n".join(_rule_text(rule) for rule in rules) + "\n".join(facts))
    ctl.ground([("base", [])])
    return {str(a.symbol) for a in ctl.symbolic_atoms.by_signature("line", 1)}


def test_a_static_projection_is_unfolded_into_the_rule_that_reads_the_state() -> None:
    """``same``, whose bit and value occur only in its body, is replaced in ``line`` by its
    body, and its own rule is gone."""
    unfolded = unfold_projections(_flats(LINES))
    assert [rule.head.name for rule in unfolded] == ["line"]
    assert _calls(unfolded, "same") == 0
    assert _calls(unfolded, "has") == 4


def test_the_narrow_rules_define_what_the_rules_define() -> None:
    """On random boards, the unfolded and split rules derive exactly the lines the game's
    rules derive, and the line's rule joins at most one cell and four variables (the row,
    the bit, its value and one piece)."""
    rules = _flats(LINES)
    narrow = decompose_rules(unfold_projections(rules), wide=NARROW)
    line = next(rule for rule in narrow if rule.head.name == "line")
    assert _calls([line], "true") == 1  # the other cells' joins went into rules of their own
    assert len({v.name for lit in line.body for v in literal_variables(lit)}) == 4
    rng = random.Random(3)
    derived = 0
    for _ in range(40):
        # Pieces drawn from a few so that some rows share a bit and some do not.
        board = {(x, y): rng.choice((0, 5, 10, 15, 3))
                 for x in range(1, 5) for y in range(1, 5) if rng.random() < 0.9}
        whole = _lines(rules, board)
        assert _lines(narrow, board) == whole
        derived += len(whole)
    assert derived > 10  # the samples have lines to compare


@pytest.mark.parametrize("text", [
    # Read under negation.
    LINES.replace("(same ?p1 ?p2 ?p3 ?p4))", "(not (same ?p1 ?p2 ?p3 ?p4)))"),
    # Defined by two rules.
    LINES + "(<= (same ?p1 ?p2 ?p3 ?p4) (row ?p1) (row ?p2) (row ?p3) (row ?p4))",
    # Projecting nothing away.
    LINES.replace("(same ?p1 ?p2 ?p3 ?p4)\n    (bit", "(same ?n ?b ?p1 ?p2 ?p3 ?p4)\n    (bit")
         .replace("(same ?p1 ?p2 ?p3 ?p4))", "(same ?n ?b ?p1 ?p2 ?p3 ?p4))"),
    # Read by no rule that depends on the state.
    LINES.replace("(true (cell 1 ?y ?p1))", "(board 1 ?y ?p1)")
         .replace("(true (cell 2 ?y ?p2))", "(board 2 ?y ?p2)")
         .replace("(true (cell 3 ?y ?p3))", "(board 3 ?y ?p3)")
         .replace("(true (cell 4 ?y ?p4))", "(board 4 ?y ?p4)"),
], ids=["negated", "two rules", "no projection", "static caller"])
def test_other_relations_are_left_alone(text: str) -> None:
    """A relation read under negation, defined by several rules, projecting nothing away, or
    read only by static rules keeps its rules and its calls."""
    rules = _flats(text)
    assert unfold_projections(rules) == rules


def test_auto_says_why_neither_program_gives_a_network() -> None:
    """With bounds that neither connect four's whole program nor its narrow one meets,
    ``auto`` falls back on clingo (the whole program did ground) and its note names both
    refusals."""
    description = parse_gdl((GAMES / "connectfour.kif").read_text())
    validate(description)
    translation = translate(description)
    assert translation.split is not None
    built = build_machine(translation, compute_superset(translation), description.roles,
                          Backend.AUTO, check_stratification=True,
                          bounds=NetworkBounds(seconds=10.0, gates=50))
    assert built.backend is Backend.CLINGO
    (step,) = built.note.steps
    assert (step.backend, step.bound, step.then) == ("network", "size", "")
    # The words name both refusals: the whole program's and the narrow one's.
    assert str(built.note) == "no network: more than 50 gates (split: more than 50 gates)"


@pytest.mark.corpus
def test_quarto_gets_a_small_network_that_agrees_with_clingo(corpus: Path) -> None:
    """Quarto (corpus), whose lines of pieces sharing a bit make its whole network some
    281,000 gates (within ``auto``'s bounds, but past the size at which the narrow program
    is tried too), gets the narrow program's few thousand under ``auto``, and it plays as
    clingo does over seeded playouts."""
    path = corpus / "ggp-repository" / "quarto.kif"
    game = Game.from_file(path)
    assert game.backend is Backend.NATIVE
    assert game.statistics.network is not None and game.statistics.network.gates < 10_000
    assert first_disagreement(game, Game.from_file(path, backend="clingo"), playouts=2,
                              max_steps=40) is None


def test_no_new_rule_is_made_of_static_relations_alone() -> None:
    """A rule whose variables can be projected away from a static literal alone (the
    colour ``?c`` of the cell ``?w`` a link leads through): with the static relations named,
    every new rule reads the move or the state, and without them one reads ``colour`` only.
    In checkers such a rule joined static tables over every pair of moves per cell."""
    text = """
    (<= (next (mark ?x))
        (true (cell ?x))
        (does ?player (put ?y))
        (link ?x ?y ?w)
        (colour ?w ?c))
    """

    def static_only(rules: list[Rule]) -> list[Rule]:
        return [rule for rule in rules[1:]
                if all(isinstance(lit, Atom) and lit.name in ("link", "colour")
                       for lit in rule.body)]

    rules = _flats(text)
    assert static_only(decompose_rules(rules, wide=NARROW))
    split = decompose_rules(rules, wide=NARROW, static={"link", "colour"})
    assert len(split) > 1 and not static_only(split)
