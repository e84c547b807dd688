"""The parser's one-pass reading gives the tree of its two-pass reading, or leaves the text
to it.

Well-formed ASCII text is read in one pass (reasoner.gdl.parser._read_in_one_pass), each list
built into its term, atom, literal or rule as it closes; anything else (every error above
all) is read by the two passes, which report it with its line and column. These tests hold
the one pass to the two: the same rules, the same source position on every node, the same
note of an old flat declaration, and never an answer where the two passes refuse the text.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from reasoner.errors import GdlError, GdlSyntaxError
from reasoner.gdl.parser import (
    _Converter,
    _Irregular,
    _read_in_one_pass,
    _read_sexprs,
    parse_game,
)
from reasoner.gdl.syntax import Position, Rule
from tests.conftest import BUNDLED

# Pieces that mutated texts get: the connectives, variables, parentheses in the wrong
# places, comments, upper case and a character outside ASCII.
_PIECES = ("(", ")", "?", "?x", "<=", "not", "or", "distinct", "base", "input", " ", "\n",
           ";c\n", "(not", "(or", "(distinct", "(<=", "()", "(base a b c)", "X", "\u00c9")


def two_passes(text: str, case_sensitive: bool) -> tuple[tuple[Rule, ...], bool]:
    """The two-pass reading: the S-expression tree, then its conversion."""
    converter = _Converter(case_sensitive)
    rules = tuple(converter.rule(node) for node in _read_sexprs(text))
    return rules, converter.flat_declarations


def positions(node: object) -> list[tuple[str, Position | None]]:
    """Every node of a tree with its source position, in order (equality leaves them out)."""
    found: list[tuple[str, Position | None]] = []

    def walk(item: object) -> None:
        if isinstance(item, tuple):
            for part in item:
                walk(part)
            return
        found.append((type(item).__name__, getattr(item, "pos", None)))
        for child in ("head", "body", "args", "literal", "left", "right", "disjuncts"):
            if hasattr(item, child):
                walk(getattr(item, child))

    walk(node)
    return found


def assert_same_reading(text: str, case_sensitive: bool) -> None:
    """Where the one pass answers, the two passes read the same rules, positions and note."""
    try:
        fast = _read_in_one_pass(text, case_sensitive)
    except _Irregular:
        return
    try:
        slow = two_passes(text, case_sensitive)
    except GdlError as error:
        pytest.fail(f"the one pass read text that the two passes refuse: {error}\n{text}")
    assert fast == slow
    assert positions(fast[0]) == positions(slow[0])


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
@pytest.mark.parametrize("case_sensitive", [False, True], ids=["lower", "as-written"])
def test_every_bundled_game_reads_alike_in_one_pass(path: Path, case_sensitive: bool) -> None:
    """Each game of games/ is read in one pass, to the two-pass tree and positions."""
    text = path.read_text(encoding="utf-8")
    if not text.isascii():
        pytest.skip("not ASCII: read in two passes")
    fast = _read_in_one_pass(text, case_sensitive)
    slow = two_passes(text, case_sensitive)
    assert fast == slow
    assert positions(fast[0]) == positions(slow[0])


def test_corpus_files_read_alike_in_one_pass(corpus: Path) -> None:
    """A seeded sample of 60 corpus files, read both ways and both cases, read alike."""
    files = sorted(corpus.rglob("*.kif"))
    for path in random.Random(31).sample(files, 60):
        text = path.read_text(encoding="utf-8", errors="replace")
        for case_sensitive in (False, True):
            assert_same_reading(text, case_sensitive)


def test_mutated_texts_are_read_alike_or_left_to_the_two_passes() -> None:
    """Bundled games cut short and mutated at random (seeded): wherever the one pass gives
    an answer, it is the two passes' answer; where they refuse the text, it does too."""
    rng = random.Random(7)
    texts = [path.read_text(encoding="utf-8") for path in BUNDLED]
    answered = 0
    for _ in range(3000):
        text = rng.choice(texts)[:rng.randrange(100, 1200)]
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(text))
            if rng.random() < 0.5:
                text = text[:at] + rng.choice(_PIECES) + text[at:]
            else:
                text = text[:at] + text[at + rng.randrange(1, 4):]
        case_sensitive = rng.random() < 0.3
        try:
            _read_in_one_pass(text, case_sensitive)
            answered += 1
        except _Irregular:
            pass
        assert_same_reading(text, case_sensitive)
    assert 1000 < answered < 3000  # both ways are taken


@pytest.mark.parametrize("text", [
    "(role a) (<= (legal a (b ?x)) (not))",
    "(role a) (<= (terminal) (<= x))",
    "(role a) (<= (f (?x)) (true a))",
    "(role a) (<= (legal a (<= 1)) (true a))",
    "(role a) (<= (terminal) (distinct ?x))",
    "(role a) ((f) 1)",
    "(role a) (or)",
    "(role a) (f 1",
])
def test_malformed_text_is_left_to_the_two_passes(text: str) -> None:
    """Text the two passes refuse is irregular to the one pass, and parse_game reports the
    two passes' error with its line and column."""
    with pytest.raises(_Irregular):
        _read_in_one_pass(text, False)
    with pytest.raises(GdlSyntaxError) as caught:
        parse_game(text)
    assert caught.value.line == 1 and caught.value.column is not None


def test_text_outside_ascii_is_read_in_two_passes_with_names_lowered() -> None:
    """Non-ASCII text goes to the two passes, which lower each name as it is read."""
    text = "(role \u00c9QUIPE) (init (Caf\u00c9 1))"
    with pytest.raises(_Irregular):
        _read_in_one_pass(text, False)
    assert [str(rule) for rule in parse_game(text).rules] == ["(role \u00e9quipe)",
                                                              "(init (caf\u00e9 1))"]


def test_an_old_flat_declaration_is_noted_in_one_pass() -> None:
    """``(base cell 1 2)`` read in one pass sets the note that makes the parser read it as
    ``(base (cell 1 2))``, as the two passes do."""
    text = "(role a) (base cell 1 2) (<= (next (cell 1 2)) (true (cell 1 2)))"
    assert _read_in_one_pass(text, False)[1] is True
    assert str(parse_game(text).rules[1]) == "(base (cell 1 2))"
