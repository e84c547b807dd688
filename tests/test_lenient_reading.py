"""The default reading of what real game servers ran (issue 14, item 6).

Games that Dresden's game server offered, and GGP-Base runs, load by default with a warning
that says what was read how: a keyword's name used as a function symbol inside a term
(``(contains 1 (not 18))``, as the SAT and QBF games list their clauses), ``base`` and
``input`` written flat by old files (``(base cell 1 2)``), one name with two arities.
``strict=True`` (``--strict``) refuses them as before; unsafe rules and unstratified
negation are refused either way. Every game here is loaded for real (clingo grounds it).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from reasoner import Game
from reasoner.errors import GdlSyntaxError, GdlValidationError
from reasoner.gdl.parser import parse_game, parse_term
from reasoner.gdl.printer import print_game
from reasoner.gdl.syntax import Atom, Constant, Function, Not
from reasoner.server.registry import GameRegistry, game_id
from tests.conftest import ROOT

# A one-player SAT game whose clauses are facts with (not v) literals, as Dresden's SAT
# games write them: the solver picks one literal of each clause in turn and wins if no two
# picks conflict. The literals reach moves and fluents: (pick (not 1)), (chosen (not 1)).
SAT = """\
(role solver)
(var 1) (var 2)
(contains 1 (not 1)) (contains 1 2)
(contains 2 1) (contains 2 (not 2))
(following 1 2) (following 2 3)
(init (clause 1))
(<= (legal solver (pick ?l)) (true (clause ?c)) (contains ?c ?l))
(<= (next (chosen ?l)) (does solver (pick ?l)))
(<= (next (chosen ?l)) (true (chosen ?l)))
(<= (next (clause ?d)) (true (clause ?c)) (following ?c ?d))
(<= (complement ?v (not ?v)) (var ?v))
(<= conflict (true (chosen ?l)) (true (chosen ?m)) (complement ?l ?m))
(<= terminal (true (clause 3)))
(<= (goal solver 100) (not conflict))
(<= (goal solver 0) conflict)
"""

# A valid one-player game of five lines; rules added by a test start on line 6.
SKELETON = """\
(role robot)
(init (cell 1))
(<= (legal robot go) (true (cell 1)))
(<= (next (cell 2)) (does robot go))
(<= terminal (true (cell 2)))
"""


def game_text(*extra: str) -> str:
    """The skeleton with ``extra`` lines appended (the first on line 6) and its goal."""
    return SKELETON + "".join(line + "\n" for line in extra) + "(goal robot 100)\n"


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m reasoner.cli ARGS`` from the project root."""
    return subprocess.run([sys.executable, "-m", "reasoner.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


# -- keywords' names inside terms ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [("(contains 1 (not 18))", "not"), ("(clause (or a b))", "or"),
     ("(f (distinct 1 2))", "distinct"), ("(holds (true x))", "true"),
     ("(seen (does r m))", "does")],
    ids=["not", "or", "distinct", "true", "does"],
)
def test_a_keyword_inside_a_term_parses_as_a_function_term(text: str, name: str) -> None:
    """An argument position holds terms only, so ``(not 18)`` there is the function term
    not(18), never a negation; likewise ``or``, ``distinct``, ``true`` and ``does``."""
    (rule,) = parse_game(text).rules
    argument = rule.head.args[-1]
    assert isinstance(argument, Function)
    assert argument.name == name
    assert str(rule) == text


def test_a_connective_alone_in_a_term_is_a_constant() -> None:
    """``(p not or distinct)``: the three names are constants."""
    (rule,) = parse_game("(p not or distinct)").rules
    assert rule.head.args == (Constant("not"), Constant("or"), Constant("distinct"))


def test_negation_in_a_body_keeps_its_meaning_around_a_not_term() -> None:
    """``(not (r (not ?x)))`` in a body: the outer ``not`` negates, the inner one is data."""
    (rule,) = parse_game("(<= (p ?x) (q ?x) (not (r (not ?x))))").rules
    negated = rule.body[1]
    assert isinstance(negated, Not) and isinstance(negated.literal, Atom)
    assert negated.literal.args == (Function("not", (parse_term("?x"),)),)


def test_the_rule_arrow_is_never_a_term() -> None:
    """``<=`` inside a term is still a syntax error, at its column."""
    with pytest.raises(GdlSyntaxError) as caught:
        parse_game("(p (<= a b))")
    assert (caught.value.reason, caught.value.symbols) == ("not-a-function", ("<=",))
    assert (caught.value.line, caught.value.column) == (1, 5)


def test_a_game_with_not_terms_loads_with_one_warning_per_name() -> None:
    """The SAT game loads; its two ``(not v)`` clauses and the rule's ``(not ?v)`` give one
    warning, naming the name and the atom it was read in."""
    game = Game.from_gdl(SAT)
    assert game.warnings == ("3:1: read 'not' in (contains 1 (not 1)) as a function symbol "
                             "(a keyword's name inside a term is data, not a literal)",)


@pytest.mark.parametrize("backend", ["clingo", "propnet"])
def test_not_terms_reach_moves_and_fluents_and_print_back(backend: str) -> None:
    """``(not 1)`` travels through clingo (as the string-named tuple ("not",1)) and comes
    back as GDL text in moves and fluents, on both backends; the game plays to its goals."""
    game = Game.from_gdl(SAT, backend=backend)
    state = game.initial_state
    assert {m.text for m in game.legal_moves(state, "solver")} == {"(pick (not 1))", "(pick 2)"}
    state = game.next_state(state, {"solver": "(pick (not 1))"})
    assert state.fluents == {"(clause 2)", "(chosen (not 1))"}
    assert {m.text for m in game.legal_moves(state, "solver")} == {"(pick 1)", "(pick (not 2))"}
    lost = game.next_state(state, {"solver": "(pick 1)"})
    won = game.next_state(state, {"solver": "(pick (not 2))"})
    assert game.is_terminal(lost) and game.is_terminal(won)
    assert game.info(lost).goals == ((0,),)
    assert game.info(won).goals == ((100,),)
    assert game.move("solver", "( pick ( NOT 2 ) )").text == "(pick (not 2))"


def test_not_terms_survive_printing_and_reading_back() -> None:
    """The printer writes ``(contains 1 (not 1))`` back, and the printed game reads as the
    same rules (the game's canonical text, whose hash names it on a server)."""
    game = parse_game(SAT)
    printed = print_game(game)
    assert "(contains 1 (not 1))\n" in printed
    assert "(<= (complement ?v (not ?v)) (var ?v))\n" in printed
    assert parse_game(printed) == game


def test_the_asp_program_holds_not_as_data() -> None:
    """In the ASP program ``(not 1)`` is the tuple ("not",1): clingo's ``not`` never
    appears as a function name, so no GDL term becomes a negation."""
    program = Game.from_gdl(SAT).translation.game_program
    assert 'contains(1,("not",1)).' in program
    assert "not(" not in program


def test_strict_reading_refuses_a_connective_in_a_term() -> None:
    """With strict=True, ``(not 1)`` in a term is refused, naming the atom and the rule."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(SAT, strict=True)
    assert caught.value.line == 3
    assert (caught.value.reason, caught.value.symbols) == ("connective", ("not",))


def test_a_relation_keyword_inside_a_term_warns_in_both_readings() -> None:
    """``(true x)`` inside a term is data too (accepted before, as now); the warning says
    so, strict or not."""
    text = game_text("(holds (true x))", "(holds (true y))")
    for strict in (False, True):
        game = Game.from_gdl(text, strict=strict)
        assert game.warnings == ("6:1: read 'true' in (holds (true x)) as a function symbol "
                                 "(a keyword's name inside a term is data, not a literal)",)


# -- flat base and input ------------------------------------------------------------------


def test_a_flat_base_fact_declares_one_fluent() -> None:
    """``(base cell 1)`` reads as ``(base (cell 1))``, with one warning saying so; the
    declared fluent is the game's own ``(cell 1)``."""
    game = Game.from_gdl(game_text("(base cell 1)", "(base cell 2)"))
    assert {"(base (cell 1))", "(base (cell 2))"} <= {str(r) for r in game.description.rules}
    assert game.warnings == ("6:1: 'base' with 2 arguments (an old file's flat declaration) "
                             "read as declaring one fluent: (base cell 1) as (base (cell 1))",)


def test_a_flat_base_rule_is_read_in_its_head_and_its_bodies() -> None:
    """A rule ``(<= (base cell ?x) (index ?x))`` and a body literal ``(base cell ?x)`` of
    the same relation are both read as declaring ``(cell ?x)``."""
    game = parse_game(game_text("(index 1)", "(<= (base cell ?x) (index ?x))",
                                "(<= (declared ?x) (base cell ?x))"))
    printed = {str(rule) for rule in game.rules}
    assert "(<= (base (cell ?x)) (index ?x))" in printed
    assert "(<= (declared ?x) (base (cell ?x)))" in printed
    assert len(game.readings) == 1


def test_a_flat_input_declares_one_move() -> None:
    """``(input robot move 1 2)`` reads as ``(input robot (move 1 2))``; the two-argument
    ``(input robot go)`` is the normal form and stays as it is."""
    game = Game.from_gdl(game_text("(input robot go)", "(input robot move 1 2)"))
    rules = {str(rule) for rule in game.description.rules}
    assert {"(input robot go)", "(input robot (move 1 2))"} <= rules
    assert game.warnings == ("7:1: 'input' with 4 arguments (an old file's flat declaration) "
                             "read as declaring one move: (input robot move 1 2) as "
                             "(input robot (move 1 2))",)


def test_a_flat_base_is_not_wrapped_where_an_atom_has_no_name_there() -> None:
    """When one ``base/3`` atom has a variable where the fluent's name would stand, no
    ``base/3`` atom is wrapped: the relation is read as an ordinary one, with a warning."""
    game = Game.from_gdl(game_text("(index 1)", "(base cell 1 2)",
                                   "(<= (base ?x 1 2) (index ?x))"))
    assert "(base cell 1 2)" in {str(rule) for rule in game.description.rules}
    assert game.warnings == (
        "7:1: 'base' takes 1 argument(s), not 3, in rule at 7:1 (base cell 1 2); read as an "
        "ordinary relation base/3",)


def test_strict_reading_refuses_a_flat_base() -> None:
    """With strict=True a flat ``base`` is refused as before, at its line."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text("(base cell 1 2)"), strict=True)
    assert caught.value.line == 6
    assert (caught.value.reason, caught.value.symbols) == ("keyword-arity", ("base",))


# -- two arities --------------------------------------------------------------------------


def test_a_name_with_two_arities_loads_as_two_symbols_by_default() -> None:
    """``(foo bar)`` and ``(foo bar bar)`` load as two relations, with a warning naming the
    name, both arities and the reading; the game plays."""
    game = Game.from_gdl(game_text("(foo bar)", "(foo bar bar)"))
    assert game.warnings == (
        "7:1: relation 'foo' is used with 2 argument(s) in rule at 7:1 (foo bar bar) but with "
        "1 in the rule at 6:1; read as different symbols, relations foo/1 and foo/2",)
    assert [m.text for m in game.legal_moves(game.initial_state, "robot")] == ["go"]


def test_a_function_with_two_arities_loads_as_two_symbols_by_default() -> None:
    """A function symbol with two arities: two function symbols, with a warning."""
    game = Game.from_gdl(game_text("(foo (a 1))", "(foo (a 1 2))"))
    (warning,) = game.warnings
    assert "function 'a' is used with 2 argument(s)" in warning
    assert warning.endswith("read as different symbols, functions a/1 and a/2")


def test_strict_reading_refuses_two_arities() -> None:
    """strict=True refuses a name with two arities, saying the default reading takes it."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text("(foo bar)", "(foo bar bar)"), strict=True)
    assert (caught.value.reason, caught.value.symbols) == ("relation-arity", ("foo",))


# -- still refused ------------------------------------------------------------------------


def test_an_unsafe_rule_is_still_refused() -> None:
    """The default reading refuses an unsafe rule, as the strict one does."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text("(<= (p ?x) (not (q ?x)))"))
    assert (caught.value.reason, caught.value.symbols) == ("unsafe-head", ("?x",))


def test_unstratified_negation_is_still_refused() -> None:
    """Negation through recursion that the ground program does not stratify is refused."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(SKELETON.replace("(<= terminal (true (cell 2)))", "(<= terminal p)")
                      + "(<= p (not q)) (<= q (not p)) (goal robot 100)\n")
    assert caught.value.reason == "unstratified"


# -- the command line and the server ------------------------------------------------------


@pytest.mark.slow  # about 1.1 s
def test_check_prints_the_warning_and_strict_refuses(tmp_path: Path) -> None:
    """``check`` loads the SAT game and prints its warning; ``--strict`` refuses it in one
    line (exit 1); ``--lenient``, the old flag, is still accepted. The printed lines are
    the output under test."""
    path = tmp_path / "sat.kif"
    path.write_text(SAT, encoding="utf-8")
    result = run_cli("check", path)
    assert result.returncode == 0, result.stderr
    assert (f"{path}: warning: 3:1: read 'not' in (contains 1 (not 1)) as a function "
            "symbol") in result.stdout
    refused = run_cli("check", "--strict", path)
    assert refused.returncode == 1 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert "GdlValidationError: line 3, column 1: the connective 'not'" in line
    assert run_cli("check", "--lenient", path).returncode == 0


def test_the_registry_loads_by_default_and_keeps_ids() -> None:
    """The server's registry loads the SAT game by default and refuses it when strict; the
    default's game ids are what they were when the default was strict (named
    ``lenient=False``), so a game that both readings take keeps its id."""
    registry = GameRegistry()
    loaded, _ = registry.load(SAT)
    assert loaded.game.warnings
    with pytest.raises(GdlValidationError):
        registry.load(SAT, strict=True)
    canonical = print_game(parse_game(SAT))
    before = hashlib.sha256(b"gdl-reasoner/v1 case_sensitive=False lenient=False\n"
                            + canonical.encode()).hexdigest()
    assert loaded.id == game_id(canonical, False) == before
    assert game_id(canonical, False, strict=True) != before
