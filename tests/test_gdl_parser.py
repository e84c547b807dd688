"""The GDL parser reads KIF as real files write it, and the printer writes it back.

Each test pins one reading rule of docs/semantics/gdl.md ("Reading real files"): case, line ends,
comments, whitespace, nesting, connectives, zero-arity atoms, error positions, and a
parse -> print -> parse round trip over the public corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reasoner.engine.game import Game
from reasoner.errors import GdlError, GdlSyntaxError
from reasoner.gdl.parser import parse_game
from reasoner.gdl.printer import print_game
from reasoner.gdl.syntax import (
    Atom,
    Constant,
    Distinct,
    Function,
    GameDescription,
    Not,
    Or,
    Position,
    Rule,
    Variable,
)

PROJECT = Path(__file__).resolve().parents[1]
GAMES = PROJECT / "games"
CORPUS = PROJECT.parent / "shared" / "corpus"
CORPUS_MISSING = f"GDL corpus not found at {CORPUS} (expected next to the project)"


def syntax_error(text: str, **options: bool) -> GdlSyntaxError:
    """The syntax error the parser raises for ``text`` (the test fails if there is none)."""
    with pytest.raises(GdlSyntaxError) as caught:
        parse_game(text, **options)
    return caught.value


def nested(depth: int, leaf: str = "a") -> str:
    """``(f (f ... (f leaf)))`` with ``depth`` function symbols."""
    return "(f " * depth + leaf + ")" * depth


def term_depth(term: Constant | Variable | Function) -> int:
    """How many function symbols are nested along the leftmost path of ``term``."""
    depth = 0
    while isinstance(term, Function):
        depth += 1
        term = term.args[0]
    return depth


# -- case ---------------------------------------------------------------------------------


def test_upper_case_file_reads_like_lower_case() -> None:
    """A whole game written in upper case parses to the same tree as the lower-case file."""
    text = (GAMES / "tictactoe.kif").read_text(encoding="utf-8")
    assert parse_game(text.upper()) == parse_game(text)


def test_names_are_lower_cased_by_default() -> None:
    """Relation names, constants, function names and variables are read in lower case."""
    game = parse_game("(<= (LEGAL XPlayer (Mark ?X ?Y)) (TRUE (Cell ?X ?Y B)))")
    assert game.rules[0] == Rule(
        Atom("legal", (Constant("xplayer"), Function("mark", (Variable("x"), Variable("y"))))),
        (Atom("true", (Function("cell", (Variable("x"), Variable("y"), Constant("b"))),)),),
    )


def test_case_sensitive_keeps_names_as_written() -> None:
    """With ``case_sensitive=True`` every name keeps its case, keywords included."""
    (rule,) = parse_game("(<= (Legal XPlayer (Mark ?X)) (TRUE (Cell ?X)))",
                         case_sensitive=True).rules
    assert rule == Rule(
        Atom("Legal", (Constant("XPlayer"), Function("Mark", (Variable("X"),)))),
        (Atom("TRUE", (Function("Cell", (Variable("X"),)),)),),
    )


def test_case_sensitive_distinguishes_names_that_differ_in_case() -> None:
    """``N`` and ``n`` are one constant by default and two with ``case_sensitive=True``."""
    text = "(p N)\n(p n)"
    default = parse_game(text)
    sensitive = parse_game(text, case_sensitive=True)
    assert default.rules[0] == default.rules[1]
    assert sensitive.rules[0] != sensitive.rules[1]
    assert [str(r) for r in sensitive.rules] == ["(p N)", "(p n)"]


# -- line ends, comments, whitespace ------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_line_ends_give_correct_line_of_a_stray_paren(newline: str) -> None:
    """LF, CRLF and bare CR each end exactly one line: a stray ')' is reported at 4:13."""
    text = newline.join(["(role a)", "; comment", "", "(init (p 1)))", "(init (p 2))"])
    error = syntax_error(text)
    assert (error.line, error.column) == (4, 13)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_line_ends_give_correct_line_of_an_unclosed_paren(newline: str) -> None:
    """An unclosed '(' is reported at its own line and column whatever the line ends."""
    text = newline.join(["(role a)", "", "  (init (p 1)", "(init (p 2))"])
    error = syntax_error(text)
    assert (error.line, error.column) == (3, 3)


def test_mixed_line_ends_count_each_line_once() -> None:
    """A file mixing CRLF, CR and LF counts one line per line end (CRLF is one, not two)."""
    text = "(role a)\r\n(init x)\r(init y)\n\r\n(init (p 1)"
    error = syntax_error(text)
    assert (error.line, error.column) == (5, 1)


def test_crlf_file_parses_like_lf_file() -> None:
    """The same game with CRLF or bare CR line ends gives the same tree as with LF."""
    text = (GAMES / "tictactoe.kif").read_text(encoding="utf-8")
    lf = parse_game(text)
    assert parse_game(text.replace("\n", "\r\n")) == lf
    assert parse_game(text.replace("\n", "\r")) == lf


def test_semicolon_comments_are_skipped() -> None:
    """A ';' comment runs to the end of its line, even after code and holding parentheses."""
    game = parse_game("; (role ignored)\n(role a) ; (role b\n;; ((((\n(init x);)\n")
    assert game.rules == (
        Rule(Atom("role", (Constant("a"),))),
        Rule(Atom("init", (Constant("x"),))),
    )


def test_comment_with_utf8_is_skipped() -> None:
    """A UTF-8 comment neither breaks parsing nor shifts the next line's position."""
    error = syntax_error("; Spiel für zwei \u2013 \u265f\n(role a)\n)")
    assert (error.line, error.column) == (3, 1)


def test_tabs_are_whitespace_and_count_one_column() -> None:
    """Tabs separate tokens and count as one column in error positions."""
    assert parse_game("(init\t(cell\t1\t2))") == parse_game("(init (cell 1 2))")
    error = syntax_error("(role a)\n\t\t(init (p 1)")
    assert (error.line, error.column) == (2, 3)


def test_spaces_inside_parentheses() -> None:
    """``( INIT ( MONEY ALICE 25 ) )`` is the fact ``(init (money alice 25))``."""
    (rule,) = parse_game("( INIT ( MONEY ALICE 25 ) )").rules
    assert rule == Rule(
        Atom("init", (Function("money", (Constant("alice"), Constant("25"))),))
    )


# -- terms and literals -------------------------------------------------------------------


def test_function_terms_nest_fifty_deep() -> None:
    """A function term nested 50 deep parses into 50 nested Function nodes."""
    (rule,) = parse_game(f"(init {nested(50)})").rules
    term = rule.head.args[0]
    assert term_depth(term) == 50
    while isinstance(term, Function):
        assert term.name == "f" and len(term.args) == 1
        term = term.args[0]
    assert term == Constant("a")


def test_function_terms_nest_a_thousand_deep() -> None:
    """A function term nested 1000 deep parses (docs/semantics/gdl.md: any depth)."""
    (rule,) = parse_game(f"(init {nested(1000)})").rules
    assert term_depth(rule.head.args[0]) == 1000


def test_or_not_distinct_parse_into_their_node_types() -> None:
    """``or``, ``not`` and ``distinct`` become Or, Not and Distinct nodes, not atoms."""
    (rule,) = parse_game(
        "(<= (p ?x) (q ?x) (or (r ?x) (not (s ?x))) (not (t ?x)) (distinct ?x a))"
    ).rules
    x = Variable("x")
    assert rule.body == (
        Atom("q", (x,)),
        Or((Atom("r", (x,)), Not(Atom("s", (x,))))),
        Not(Atom("t", (x,))),
        Distinct(x, Constant("a")),
    )


def test_not_of_distinct_and_nested_not_parse() -> None:
    """``(not (distinct a b))`` and ``(not (not p))`` keep their structure."""
    (rule,) = parse_game("(<= p (not (distinct a b)) (not (not q)))").rules
    assert rule.body == (
        Not(Distinct(Constant("a"), Constant("b"))),
        Not(Not(Atom("q"))),
    )


def test_base_and_input_parse_as_ordinary_atoms() -> None:
    """``base`` and ``input`` facts and rules parse into Atom nodes with those names."""
    game = parse_game(
        "(base (cell 1 b))\n(input robot noop)\n"
        "(<= (base (cell ?x b)) (index ?x))\n(<= (input robot (mark ?x)) (index ?x))"
    )
    x = Variable("x")
    assert [r.head for r in game.rules] == [
        Atom("base", (Function("cell", (Constant("1"), Constant("b"))),)),
        Atom("input", (Constant("robot"), Constant("noop"))),
        Atom("base", (Function("cell", (x, Constant("b"))),)),
        Atom("input", (Constant("robot"), Function("mark", (x,)))),
    ]
    assert game.rules[2].body == (Atom("index", (x,)),)


def test_zero_arity_head_with_and_without_parentheses() -> None:
    """``terminal`` and ``(terminal)`` as a rule head are the same atom."""
    bare = parse_game("(<= terminal (true done))")
    wrapped = parse_game("(<= (terminal) (true done))")
    assert bare == wrapped
    assert bare.rules[0].head == Atom("terminal", ())


def test_zero_arity_body_atom_with_and_without_parentheses() -> None:
    """``(open2)`` and ``open2`` in a body are the same zero-arity atom."""
    bare = parse_game("(<= (legal x go) open2)")
    wrapped = parse_game("(<= (legal x go) (open2))")
    assert bare == wrapped
    assert bare.rules[0].body == (Atom("open2", ()),)


def test_zero_arity_fact_with_and_without_parentheses() -> None:
    """A zero-arity fact ``(started)`` equals the bare fact ``started``."""
    assert parse_game("(started)") == parse_game("started")
    assert parse_game("started").rules == (Rule(Atom("started", ())),)


@pytest.mark.corpus
def test_corpus_test_case_3a_reads_open2_both_ways() -> None:
    """ggp-base test_case_3a defines ``(open2)`` and reads ``open2``: only correct_correct."""
    path = CORPUS / "ggp-base-tests" / "test_case_3a.kif"
    if not path.exists():
        pytest.skip(CORPUS_MISSING)
    game = Game.from_file(path)
    legal = {m.text for m in game.legal_moves(game.initial_state, "xplayer")}
    assert legal == {"(move correct_correct)"}


# -- syntax errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "fields"),
    [
        ("(role a)\n(init (p 1)", 2, 1, ("unclosed", ())),
        ("(role a)\n(init (p 1)))", 2, 13, ("unmatched-close", ())),
        ("(role a)\n(<= ?x (p a))", 2, 5, ("variable-literal", ("?x",))),
        ("(role a)\n(<= (?x a) (p a))", 2, 6, ("variable-head", ("?x",))),
        ("(role a)\n()", 2, 1, ("empty-parentheses", ())),
        ("(role a)\n(<= p (q ()))", 2, 10, ("empty-parentheses", ())),
        ("(role a)\n(<= p (not a b))", 2, 7, ("not-arity", ())),
        ("(role a)\n(<= p (q a) (distinct a))", 2, 13, ("distinct-arity", ())),
    ],
    ids=[
        "unclosed-paren", "stray-paren", "variable-head", "variable-functor",
        "empty-parens-fact", "empty-parens-term", "not-two-args", "distinct-one-arg",
    ],
)
def test_syntax_error_carries_line_and_column(
    text: str, line: int, column: int, fields: tuple[str, tuple[str, ...]]
) -> None:
    """Each malformed text raises GdlSyntaxError at the offending line:column, which its
    message shows first (the text, as a person reads it)."""
    error = syntax_error(text)
    assert (error.line, error.column) == (line, column)
    assert (error.reason, error.symbols) == fields
    assert str(error).startswith(f"line {line}, column {column}: ")


def test_syntax_error_is_a_gdl_error_and_value_error() -> None:
    """Syntax errors belong to the reasoner's hierarchy, catchable as GdlError/ValueError."""
    error = syntax_error("(role a")
    assert isinstance(error, GdlError)
    assert isinstance(error, ValueError)


# -- trees --------------------------------------------------------------------------------


def test_positions_are_recorded() -> None:
    """Every node records the 1-based line and column where it starts."""
    (rule,) = parse_game("\n  (<= (p ?x)\n\t(q ?x))").rules
    assert rule.pos == Position(2, 3)
    assert rule.head.pos == Position(2, 7)
    assert rule.body[0].pos == Position(3, 2)


def test_positions_take_no_part_in_equality_or_hash() -> None:
    """The same rule at different positions is equal and hashes equal."""
    first = parse_game("(<= (p ?x) (q ?x))").rules[0]
    second = parse_game("\n\n      (<=   (p ?x)\n (q ?x))").rules[0]
    assert first.pos != second.pos
    assert first == second
    assert hash(first) == hash(second)
    assert Constant("a", Position(1, 1)) == Constant("a", Position(9, 9))


def test_print_then_parse_gives_the_same_tree() -> None:
    """Printing a bundled game and parsing the text again gives an equal tree."""
    game = parse_game((GAMES / "tictactoe.kif").read_text(encoding="utf-8"))
    assert parse_game(print_game(game)) == game
    assert len(game) > 0


def test_printer_writes_zero_arity_atoms_bare() -> None:
    """The printer writes one rule per line, zero-arity atoms without parentheses."""
    game = parse_game("(<= (terminal) (open2) (not (distinct ?x ?x)) (or a (b ?x)))")
    assert print_game(game) == "(<= terminal open2 (not (distinct ?x ?x)) (or a (b ?x)))\n"


def _corpus_files() -> list[object]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_MISSING), id="absent")]
    root = CORPUS
    return [pytest.param(p, id=str(p.relative_to(root))) for p in sorted(root.rglob("*.kif"))]


@pytest.mark.corpus
@pytest.mark.parametrize("path", _corpus_files())
def test_corpus_round_trip(path: Path) -> None:
    """Every corpus file that parses prints to text that parses back to the same tree."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        game = parse_game(text)
    except GdlSyntaxError as error:
        pytest.skip(f"does not parse (not a round-trip case): {error}")
    printed = print_game(game)
    again = parse_game(printed)
    assert isinstance(again, GameDescription)
    assert len(again) == len(game), f"{len(game)} rules printed, {len(again)} read back"
    for index, (before, after) in enumerate(zip(game.rules, again.rules, strict=True)):
        assert before == after, f"rule {index} at {before.pos} changed: {before} -> {after}"
