"""An atom's GDL text made from clingo's text of it is the one made by walking its symbol."""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoner.asp.encoding import relation_name
from reasoner.asp.ground_rules import Symbol, ground_rules
from reasoner.asp.superset import compute_superset
from reasoner.asp.symbols import atom_to_gdl, plain_atom_to_gdl
from reasoner.asp.translate import translate
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.validation import validate
from tests.conftest import ROOT

# Names ASP cannot spell as they are: a relation `++`, a negative number, names that differ
# only in case (read case-sensitively), nested functions.
ODD_NAMES = """
(role Red) (role red)
(init (cell 1 (at -1 b)))
(init (score Red 0))
(<= (++ ?x ?y) (succ ?x ?y))
(succ 0 1) (succ 1 2)
(<= (legal ?r (go (to ?x))) (role ?r) (true (score Red ?x)))
(<= (next (score Red ?y)) (does ?r (go (to ?x))) (++ ?x ?y))
(<= (next (cell 1 (at -1 b))) (true (cell 1 (at -1 b))))
(<= terminal (true (score Red 2)))
(<= (goal ?r 100) (role ?r))
"""


def _symbols(text: str, case_sensitive: bool = False) -> list[Symbol]:
    """Every atom that clingo names in the game program ground over the superset."""
    description = parse_gdl(text, case_sensitive=case_sensitive)
    validate(description)
    translation = translate(description)
    superset = compute_superset(translation)
    externals = [f"#external true({f})." for f in superset.fluents]
    externals += [f"#external does({r},{m})." for r, m in superset.moves]
    ground = ground_rules(translation.game_program + "\n".join(externals) + "\n",
                          names=True)
    return [symbol for symbols in ground.names.values() for symbol in symbols]


def _disagreements(symbols: list[Symbol]) -> tuple[list[str], int]:
    """The atoms whose two texts differ, and how many the plain reading made."""
    wrong = []
    made = 0
    for symbol in symbols:
        plain = plain_atom_to_gdl(str(symbol), relation_name)
        if plain is None:
            continue
        made += 1
        if plain != atom_to_gdl(symbol):
            wrong.append(f"{symbol}: {plain} against {atom_to_gdl(symbol)}")
    return wrong, made


@pytest.mark.parametrize("name", ["tictactoe.kif", "minichess.kif", "blindtictactoe.kif"])
def test_plain_atom_texts_agree_with_the_symbol_walk_on_bundled_games(name: str) -> None:
    """On every atom of a bundled game's ground program the two texts are the same, and
    the plain reading makes most of them."""
    symbols = _symbols((ROOT / "games" / name).read_text())
    wrong, made = _disagreements(symbols)
    assert wrong == []
    assert made > len(symbols) // 2


@pytest.mark.parametrize("name", ["ggp-base-legacy/3pConnectFour.kif",
                                  "ggp-base-legacy/asteroids.kif"])
def test_plain_atom_texts_agree_on_corpus_games_with_odd_names(corpus: Path,
                                                               name: str) -> None:
    """Corpus games with a relation named ``++`` or negative numbers: the same texts."""
    text = (corpus / name).read_text(encoding="utf-8", errors="replace")
    wrong, _ = _disagreements(_symbols(text))
    assert wrong == []


def test_atoms_of_names_asp_cannot_spell_are_left_to_the_symbol_walk() -> None:
    """Atoms with a negative number, a relation such as ``++`` or a name read with its
    case are either written as the symbol walk writes them or not made at all."""
    symbols = _symbols(ODD_NAMES, case_sensitive=True)
    wrong, _ = _disagreements(symbols)
    assert wrong == []
    texts = {str(symbol) for symbol in symbols}
    odd = [text for text in texts if "-1" in text or '"' in text or text.startswith("_r_")]
    assert odd  # the game does have such atoms
    for text in odd:
        if "-1" in text or '"' in text:
            assert plain_atom_to_gdl(text, relation_name) is None


def test_plain_atom_text_of_nested_functions() -> None:
    """``cell(1,move(a,f(b)))`` reads as ``(cell 1 (move a (f b)))``; a constant atom as
    its name; tuples and strings are not read."""
    assert plain_atom_to_gdl("cell(1,move(a,f(b)))", relation_name) == \
        "(cell 1 (move a (f b)))"
    assert plain_atom_to_gdl("terminal", relation_name) == "terminal"
    assert plain_atom_to_gdl("p((a,b))", relation_name) is None
    assert plain_atom_to_gdl('p("A")', relation_name) is None
