"""A game without variables is read into a ground program without clingo: the numbered
rules give the same superset and a network that plays like clingo's machine."""

from __future__ import annotations

import clingo
import pytest

from reasoner import Game
from reasoner.asp.superset import compute_atom_superset, compute_superset
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation, translate
from reasoner.asp.variable_free import VariableFreeProgram, counted_superset
from reasoner.crosscheck.agreement import first_disagreement
from reasoner.errors import ResourceLimitError
from reasoner.gdl.parser import parse_game
from reasoner.gdl.validation import validate
from reasoner.instantiate.ground_game import instantiate
from reasoner.propnet.network import NetworkBounds, build_network
from tests.conftest import GAMES

# A ground game with a distinct that holds and one that fails, and a rule whose body
# can never hold (its fluent is never made).
_SMALL = """
(role p)
(init on)
(<= (legal p flip) (true on) (distinct a b))
(<= (legal p stay) (true on) (distinct a a))
(<= (legal p wait) (true never))
(<= (next off) (does p flip))
(<= (next on) (does p wait))
(<= terminal (true off))
(<= (goal p 100) (true off))
(<= (goal p 0) (not (true off)))
"""


def _translation(text: str) -> Translation:
    description = parse_game(text)
    validate(description)
    return translate(description)


def test_a_distinct_is_decided_while_the_rules_are_numbered() -> None:
    """A rule whose ``distinct`` holds keeps its other literals; one whose ``distinct``
    fails is dropped, so no rule makes ``(legal p stay)``."""
    program = VariableFreeProgram(parse_game(_SMALL).rules)
    legal_flip = program.atom("legal", *_symbols("p", "flip"))
    assert [body for (head,), body in program.rules if head == legal_flip] == [
        (program.atom("true", *_symbols("on")),)]
    assert program.atom("legal", *_symbols("p", "stay")) < 0  # no rule names it


def test_the_superset_counts_out_what_init_and_next_can_give() -> None:
    """Fluents come from init and next, moves from legal; a move whose fluent is never made
    (``wait``) and a rule dropped by its ``distinct`` (``stay``) give none."""
    found = counted_superset(_translation(_SMALL).relaxed_flats)
    assert found is not None
    fluents, moves, _ = found
    assert [symbol_to_gdl(f) for f in fluents] == ["off", "on"]
    assert [(symbol_to_gdl(r), symbol_to_gdl(m)) for r, m in moves] == [("p", "flip")]


@pytest.mark.parametrize("name", ["tictactoe", "breakthrough", "nim", "montyhall"])
def test_an_instantiated_game_has_the_superset_clingo_grounds(name: str) -> None:
    """The superset of an instantiated bundled game, counted without clingo, holds the
    fluents and moves that clingo's grounding of the relaxed program holds."""
    translation = translate(parse_game(instantiate((GAMES / f"{name}.kif").read_text()).gdl()))
    assert translation.ground
    found = compute_superset(translation)
    grounded = compute_atom_superset(translation)
    assert grounded is not None
    assert sorted(symbol_to_gdl(f) for f in found.fluents) == sorted(grounded.fluents)
    assert sorted((symbol_to_gdl(r), symbol_to_gdl(m)) for r, m in found.moves) == sorted(
        grounded.moves)


def test_static_negation_is_left_to_clingo() -> None:
    """Where the relaxed rules keep a negative literal (of a static relation), the count
    of positive rules gives way and clingo grounds the superset."""
    text = _SMALL + "(<= (legal p rest) (true on) (not blocked))\n"
    translation = _translation(text)
    assert counted_superset(translation.relaxed_flats) is None
    moves = {symbol_to_gdl(m) for _, m in compute_superset(translation).moves}
    assert moves == {"flip", "rest"}


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "blindtictactoe"])
def test_a_network_of_numbered_rules_plays_like_clingo(name: str) -> None:
    """The instantiated game's network, built from its numbered rules, agrees with the
    clingo machine state by state (percepts included for the GDL-II game)."""
    gdl = instantiate((GAMES / f"{name}.kif").read_text()).gdl()
    native = Game.from_gdl(gdl, backend="native")
    clingo = Game.from_gdl(gdl, backend="clingo")
    assert first_disagreement(clingo, native, seed=5, playouts=4, max_steps=100) is None


def test_a_variable_free_game_over_the_rule_bound_gets_no_network() -> None:
    """The network's rule bound holds for a variable-free game too: past it the build is
    refused as a size overrun, as clingo's grounding would be."""
    translation = translate(parse_game(instantiate((GAMES / "tictactoe.kif").read_text())
                                       .gdl()))
    superset = compute_superset(translation)
    with pytest.raises(ResourceLimitError, match="more than 100 rules") as raised:
        build_network(translation, superset, ("xplayer", "oplayer"),
                      NetworkBounds(rules=100))
    assert raised.value.bound == "size"


def _symbols(*names: str) -> list[clingo.Symbol]:
    return [clingo.Function(name) for name in names]
