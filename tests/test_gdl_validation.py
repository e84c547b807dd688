"""Validation: which GDL texts are games, and what the reasoner says about those that are not.

One test per rule of docs/semantics/gdl.md (safety, stratification, recursion restriction, the
keyword restrictions, arities, goal values, GDL-II), each on a small game built from a
valid skeleton, plus the corpus files that exercise a rule in the wild.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from reasoner.engine.game import Game
from reasoner.engine.limits import Limits
from reasoner.errors import GdlSyntaxError, GdlValidationError, GoalValueError
from reasoner.gdl.parser import parse_game
from reasoner.gdl.validation import UNSTRATIFIED_RELATIONS, Warning, validate

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT.parent / "shared" / "corpus"
CORPUS_MISSING = f"GDL corpus not found at {CORPUS} (expected next to the project)"

# A valid one-player game of seven lines; rules added by a test start on line 8.
SKELETON = """\
(role robot)
(init (cell 1))
(<= (legal robot go) (true (cell 1)))
(<= (next (cell 2)) (does robot go))
(<= terminal (true (cell 2)))
(<= (goal robot 100) (true (cell 2)))
(<= (goal robot 0) (true (cell 1)))
"""


def game_text(*extra: str) -> str:
    """The skeleton game with ``extra`` lines appended (the first on line 8)."""
    return SKELETON + "".join(line + "\n" for line in extra)


def check(*extra: str, strict: bool = False) -> list[Warning]:
    """Parse and validate the skeleton plus ``extra`` (by default as the library does); the
    warnings."""
    return validate(parse_game(game_text(*extra)), strict=strict)


def rejection(*extra: str, strict: bool = False) -> GdlValidationError:
    """The validation error for the skeleton plus ``extra`` (the test fails if none)."""
    with pytest.raises(GdlValidationError) as caught:
        check(*extra, strict=strict)
    return caught.value


def corpus_file(relative: str) -> Path:
    """A corpus file, or skip the test with the reason when the corpus is absent."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(CORPUS_MISSING if not CORPUS.is_dir() else f"{relative} not in corpus")
    return path


def test_skeleton_is_valid_and_plays() -> None:
    """The skeleton itself validates without warnings and plays go -> terminal, 100."""
    assert check() == []
    game = Game.from_gdl(game_text())
    state = game.next_state(game.initial_state, {"robot": "go"})
    assert state.fluents == {"(cell 2)"}
    assert game.is_terminal(state)
    assert game.goals(state) == {"robot": 100}


# -- safety -------------------------------------------------------------------------------


def test_unsafe_head_variable_is_rejected() -> None:
    """A head variable that no positive body literal binds makes the rule unsafe."""
    error = rejection("(<= (p ?x) (q a))", "(q a)")
    assert (error.reason, error.symbols) == ("unsafe-head", ("?x",))


def test_unsafe_variable_in_not_is_rejected() -> None:
    """A variable occurring only inside ``not`` makes the rule unsafe."""
    error = rejection("(<= p (q a) (not (r ?x)))", "(q a)", "(r b)")
    assert (error.reason, error.symbols) == ("unsafe-negative", ("?x",))


def test_unsafe_variable_in_distinct_is_rejected() -> None:
    """A variable occurring only inside ``distinct`` makes the rule unsafe."""
    error = rejection("(<= p (q ?x) (distinct ?x ?y))", "(q a)")
    assert (error.reason, error.symbols) == ("unsafe-negative", ("?y",))


def test_safety_is_checked_per_or_branch() -> None:
    """``(or (q ?x) (r a))`` leaves ?x unbound in the second branch: unsafe."""
    error = rejection("(<= (p ?x) (or (q ?x) (r a)))", "(q a)", "(r a)")
    assert (error.reason, error.symbols) == ("unsafe-head", ("?x",))


def test_or_with_every_branch_binding_is_safe() -> None:
    """``(or (q ?x) (r ?x))`` binds ?x in every branch: safe, no warnings."""
    assert check("(<= (p ?x) (or (q ?x) (r ?x)))", "(q a)", "(r b)") == []


# -- stratification -----------------------------------------------------------------------

NEGATIVE_CYCLE = ("(<= p (not q))", "(<= q (not p))", "(<= (legal robot go) p)")
# The same cycle, active only in the successor state (cell 2) and read by terminal.
LATER_NEGATIVE_CYCLE = (
    "(<= p (true (cell 2)) (not q))", "(<= q (true (cell 2)) (not p))", "(<= terminal p)",
)


def test_negation_through_recursion_is_a_validator_warning() -> None:
    """``p :- not q. q :- not p.`` gives one unstratified-relations warning per rule."""
    warnings = check(*NEGATIVE_CYCLE)
    kinds = [w.kind for w in warnings]
    assert kinds == [UNSTRATIFIED_RELATIONS, UNSTRATIFIED_RELATIONS]
    assert [w.pos.line for w in warnings] == [8, 9]
    assert "'p' depends negatively on 'q'" in warnings[0].message
    assert "'q' depends negatively on 'p'" in warnings[1].message


def test_engine_rejects_negative_cycle_of_the_initial_state_at_load() -> None:
    """Game.from_gdl raises GdlValidationError when the initial state has two answer sets."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text(*NEGATIVE_CYCLE))
    assert caught.value.reason == "unstratified"


def test_engine_rejects_self_negation_at_load() -> None:
    """``(<= p (not p))`` (no answer set at all) is refused at load."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text("(<= p (not p))", "(<= (legal robot go) p)"))
    assert caught.value.reason == "unstratified"


def test_engine_rejects_unstratified_ground_program_at_load() -> None:
    """A negative cycle that bites only in a reachable later state is refused at load."""
    with pytest.raises(GdlValidationError):
        Game.from_gdl(game_text(*LATER_NEGATIVE_CYCLE))


def test_unstratified_game_never_answers_a_query() -> None:
    """A game whose successor state has two answer sets never yields that successor."""
    with pytest.raises(GdlValidationError) as caught:
        game = Game.from_gdl(game_text(*LATER_NEGATIVE_CYCLE))
        game.next_state(game.initial_state, {"robot": "go"})
    assert caught.value.reason == "unstratified"


@pytest.mark.corpus
def test_goal_not_goal_pattern_warns_but_loads() -> None:
    """ggp.org's ``(<= (goal robot 100) (not (goal robot 0)))`` warns in the validator only."""
    path = corpus_file("ggp-repository/queens08lg.kif")
    warnings = validate(parse_game(path.read_text(encoding="utf-8")))
    assert [(w.kind, w.pos.line) for w in warnings] == [(UNSTRATIFIED_RELATIONS, 122)]
    assert "'goal' depends negatively on 'goal'" in warnings[0].message


@pytest.mark.corpus
def test_queens_with_goal_not_goal_plays() -> None:
    """queens08lg loads; its goal is 100 until the robot quits, then 0 and terminal."""
    game = Game.from_file(corpus_file("ggp-repository/queens08lg.kif"))
    start = game.initial_state
    assert not game.is_terminal(start)
    assert game.goals(start) == {"robot": 100}
    quit_state = game.next_state(start, {"robot": "quit"})
    assert game.is_terminal(quit_state)
    assert game.goals(quit_state) == {"robot": 0}


FUTOSHIKI_SOLUTION = ("1 3 4 2", "4 2 3 1", "2 4 1 3", "3 1 2 4")  # from the file's header


@pytest.mark.corpus
def test_futoshiki_with_goal_not_goal_plays_its_solution_to_100() -> None:
    """futoshiki4 loads; placing the solution from its header ends the game with goal 100."""
    game = Game.from_file(corpus_file("ggp-repository/futoshiki4.kif"))
    state = game.initial_state
    assert game.goals(state) == {"robot": 0}
    for row, numbers in enumerate(FUTOSHIKI_SOLUTION, start=1):
        for col, n in enumerate(numbers.split(), start=1):
            if (row, col) == (2, 2):
                continue  # given in the initial state
            assert not game.is_terminal(state)
            state = game.next_state(state, {"robot": f"(place {row} {col} {n})"})
    assert game.is_terminal(state)
    assert game.goals(state) == {"robot": 100}


@pytest.mark.corpus
def test_futoshiki_random_playouts_have_one_goal_each() -> None:
    """Seeded random playouts of futoshiki4 end in terminal states with exactly one goal."""
    game = Game.from_file(corpus_file("ggp-repository/futoshiki4.kif"))
    rng = random.Random(7)
    for _ in range(5):
        state = game.initial_state
        for _ in range(20):
            if game.is_terminal(state):
                break
            state = game.next_state(state, {"robot": rng.choice(game.legal_moves(state, "robot"))})
        assert game.is_terminal(state)
        assert game.goal(state, "robot") in (0, 100)


# -- recursion restriction and keyword restrictions ---------------------------------------


def test_recursion_restriction_violation_is_rejected() -> None:
    """``(reach ?y)`` in the body of ``(reach ?x)``, ?y bound by nothing outside the cycle."""
    error = rejection("(<= (reach ?x) (reach ?y) (succ ?x ?z))", "(succ 1 2)", "(reach 1)")
    assert (error.reason, error.symbols) == ("recursion-restriction", ("(reach ?y)",))


def test_recursion_with_bound_arguments_is_accepted() -> None:
    """Transitive closure over a static relation obeys the recursion restriction."""
    assert check("(<= (reach ?y) (reach ?x) (succ ?x ?y))", "(succ 1 2)", "(reach 1)") == []


@pytest.mark.parametrize(
    ("rules", "keyword"),
    [
        (("(<= (legal robot stay) (does robot go))",), "legal"),
        (("(<= (goal robot 50) (does robot go))",), "goal"),
        (("(<= moved (does robot go))", "(<= terminal moved)"), "terminal"),
        (("(<= moved (does robot go))", "(<= (helper ?x) moved (val ?x))", "(val 1)",
          "(<= (legal robot (pick ?x)) (helper ?x))"), "legal"),
    ],
    ids=["legal-direct", "goal-direct", "terminal-through-aux", "legal-through-two-aux"],
)
def test_does_in_a_legal_goal_or_terminal_dependency_is_rejected(
    rules: tuple[str, ...], keyword: str
) -> None:
    """``legal``, ``goal`` and ``terminal`` may not depend on ``does``, even indirectly."""
    error = rejection(*rules)
    assert (error.reason, error.symbols) == ("forbidden-dependency", (keyword, "does"))


@pytest.mark.parametrize(
    ("rule", "keyword"),
    [("(<= (true (cell 3)) (true (cell 1)))", "true"), ("(does robot go)", "does")],
)
def test_true_or_does_in_a_head_is_rejected(rule: str, keyword: str) -> None:
    """``true`` and ``does`` may only appear in rule bodies."""
    error = rejection(rule)
    assert (error.reason, error.symbols) == ("body-only", (keyword,))
    assert error.line == 8


def test_next_in_a_body_is_rejected() -> None:
    """``next`` may only appear in rule heads."""
    error = rejection("(<= (legal robot stay) (next (cell 2)))")
    assert (error.reason, error.symbols) == ("head-only", ("next",))


def test_role_with_a_body_is_rejected() -> None:
    """``role`` may only be stated as a fact."""
    error = rejection("(<= (role other) (true (cell 1)))")
    assert error.reason == "role-not-fact"


def test_game_without_role_is_rejected() -> None:
    """A game that declares no role is not a game."""
    with pytest.raises(GdlValidationError) as caught:
        validate(parse_game("(init (cell 1))\n(<= terminal (true (cell 1)))"))
    assert caught.value.reason == "no-role"


def test_role_declared_twice_is_rejected() -> None:
    """Declaring the same role twice is an error naming the role."""
    error = rejection("(role robot)")
    assert (error.reason, error.symbols) == ("role-twice", ("robot",))


# -- arities ------------------------------------------------------------------------------

ARITY_CASES = [
    (("(foo bar)", "(foo bar bar)"), "relation 'foo' is used with 2 argument(s)"),
    (("(foo (a 1))", "(foo (a 1 2))"), "function 'a' is used with 2 argument(s)"),
]


@pytest.mark.parametrize(("rules", "fragment"), ARITY_CASES, ids=["relation", "function"])
def test_two_arities_are_rejected_in_strict_mode(rules: tuple[str, ...], fragment: str) -> None:
    """A relation or function name used with two arities is an error when validating
    strictly."""
    error = rejection(*rules, strict=True)
    kind, name = fragment.split()[:2]  # "relation", "'foo'"
    assert (error.reason, error.symbols) == (f"{kind}-arity", (name.strip("'"),))
    assert (error.line, error.column) == (9, 1)


@pytest.mark.parametrize(("rules", "fragment"), ARITY_CASES, ids=["relation", "function"])
def test_two_arities_only_warn_by_default(rules: tuple[str, ...], fragment: str) -> None:
    """By default the same text validates with one warning and the game loads; strict=True
    refuses it."""
    warnings = check(*rules)
    assert len(warnings) == 1
    assert fragment in warnings[0].message
    assert "read as different symbols" in warnings[0].message
    game = Game.from_gdl(game_text(*rules))
    assert len(game.warnings) == 1
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(game_text(*rules), strict=True)
    assert caught.value.reason == f"{fragment.split()[0]}-arity"


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("relative", "fragment"),
    [
        ("ggp-base-tests/test_invalid_function_arities_differ.kif",
         "function 'a' is used with 2 argument(s) here but with 1"),
        ("ggp-base-tests/test_invalid_sentence_arities_differ.kif",
         "relation 'foo' is used with 2 argument(s) here but with 1"),
    ],
    ids=["function-arities", "sentence-arities"],
)
def test_ggp_base_invalid_files_are_rejected(relative: str, fragment: str) -> None:
    """The two ggp-base ``test_invalid_*`` files are rejected when read strictly, naming the
    arity problem; the default reading loads them with that warning."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_file(corpus_file(relative), strict=True)
    kind, name = fragment.split()[:2]  # "relation", "'foo'"
    assert (caught.value.reason, caught.value.symbols) == (f"{kind}-arity", (name.strip("'"),))
    named = fragment.split(" is used")[0]  # "relation 'foo'"
    assert any(named in warning and "read as different symbols" in warning
               for warning in Game.from_file(corpus_file(relative)).warnings)


# -- goal values --------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["101", "-1", "x", "50.5", "(f 1)", "1000"])
def test_goal_value_outside_0_to_100_or_not_an_integer_is_rejected(value: str) -> None:
    """A goal value must be an integer between 0 and 100."""
    error = rejection(f"(goal robot {value})")
    assert (error.reason, error.symbols) == ("goal-value", (value,))
    assert error.line == 8


@pytest.mark.parametrize("value", ["0", "100", "50"])
def test_goal_values_at_the_bounds_are_accepted(value: str) -> None:
    """0, 100 and values between are valid goal values."""
    assert check(f"(<= (goal robot {value}) (true (cell 3)))") == []


def test_goal_value_computed_out_of_range_is_rejected_at_load() -> None:
    """A goal value bound through a variable to 200 is caught when the game is grounded."""
    text = game_text("(<= (goal robot ?v) (true (cell 1)) (val ?v))", "(val 200)")
    with pytest.raises(GoalValueError) as caught:
        Game.from_gdl(text)
    assert (caught.value.reason, caught.value.value) == ("goal-value", "200")


# -- GDL-II -------------------------------------------------------------------------------


def test_sees_rules_are_valid_gdl_ii() -> None:
    """A ``sees`` rule that reads the state and the joint move, as ``next`` does, is valid
    GDL-II, and the game says it is GDL-II."""
    assert check("(<= (sees robot (cell ?x)) (true (cell ?x)))",
                 "(<= (sees robot (did ?m)) (does robot ?m))") == []
    assert parse_game(game_text("(<= (sees robot (did ?m)) (does robot ?m))")).is_gdl2
    assert not parse_game(game_text()).is_gdl2


def test_sees_in_a_rule_body_is_refused_with_its_position() -> None:
    """``sees`` may only be a rule's head: read in a body, it is refused at its line."""
    error = rejection("(<= (sees robot (cell ?x)) (true (cell ?x)))",
                      "(<= (goal robot 50) (sees robot (cell 1)))")
    assert (error.reason, error.line, error.column) == ("head-only", 9, 1)


def test_sees_for_an_undeclared_role_is_refused_with_its_position() -> None:
    """A percept for a role the game does not declare is refused, naming it and its line."""
    error = rejection("(<= (sees ghost (cell ?x)) (true (cell ?x)))")
    assert (error.reason, error.line, error.column, error.symbols) == (
        "sees-role", 8, 1, ("ghost",))


def test_unsafe_sees_rule_is_refused() -> None:
    """A ``sees`` rule obeys the safety rules of every rule: a head variable must be bound."""
    error = rejection("(<= (sees robot (cell ?x)) (true (cell 1)))")
    assert (error.reason, error.line) == ("unsafe-head", 8)


def test_role_random_makes_a_game_gdl_ii() -> None:
    """A role named ``random`` is GDL-II's nature player: the game is GDL-II without
    ``sees`` rules, and loads without a warning."""
    text = SKELETON.replace("(role robot)", "(role robot)\n(role random)").replace(
        "(<= (goal robot 0) (true (cell 1)))",
        "(<= (goal robot 0) (true (cell 1)))\n(legal random noop)\n(goal random 0)")
    assert parse_game(text).is_gdl2
    game = Game.from_gdl(text)
    assert game.random_role == "random" and game.warnings == ()


def _sees_files() -> list[object]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=CORPUS_MISSING), id="absent")]
    with manifest.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [pytest.param(row["file"], id=row["file"]) for row in rows
            if "GDL-II:sees" in row["notes"]]


# GDL-II files of the corpus that are not valid GDL-II, and why (read 2026-11-27): a syntax
# error, a rule written without its arrow, unsafe rules, ``sees`` read by a goal rule.
INVALID_GDL2 = {
    "uwa-gamecontroller-gdl2/7wonders.kif": "a function term cannot start with the variable",
    "uwa-gamecontroller-gdl2/bigMoney.kif": "unsafe rule: head variable ?p",
    "uwa-gamecontroller-gdl2/dominion.kif": "unsafe rule: head variable ?p",
    "uwa-gamecontroller-gdl2/oneCardGame.kif": "unsafe rule: head variable ?player",
    "uwa-gamecontroller-gdl2/sushi_go.kif": "unsafe rule: variable ?p of a negative literal",
    "uwa-gamecontroller-gdl2/mastermind2x3.kif": "'sees' may only appear in rule heads",
    "uwa-gamecontroller-gdl2/mastermind__mastermind.kif": "'sees' may only appear in rule heads",
}
# Over the sweep's bound of 60 s: its grounding grows past it (next/1 first).
SLOW_GDL2 = {"uwa-gamecontroller-gdl2/small_dominion.kif"}


@pytest.mark.corpus
@pytest.mark.parametrize("relative", _sees_files())
def test_corpus_gdl_ii_files_load_as_gdl_ii(relative: str) -> None:
    """Every corpus file that uses ``sees`` loads as a GDL-II game with a percept table, or
    is refused for the error listed in INVALID_GDL2 (with its line and column)."""
    expected = INVALID_GDL2.get(relative)
    if expected is not None:
        with pytest.raises((GdlSyntaxError, GdlValidationError)) as caught:
            Game.from_file(corpus_file(relative))
        assert expected in str(caught.value) and caught.value.line is not None
        return
    if relative in SLOW_GDL2:
        pytest.skip("over the sweep's bound of 60 s")
    game = Game.from_file(corpus_file(relative), limits=Limits(60, 4096))
    assert game.is_gdl2 and game.percept_table


@pytest.mark.corpus
def test_role_named_random_is_gdl_ii_nature() -> None:
    """beatMania (no ``sees``, a role named random) loads as GDL-II with ``random`` as its
    nature player, no warning, and no percepts."""
    game = Game.from_file(corpus_file("ggp-repository/beatMania.kif"))
    assert game.roles == ("random", "player")
    assert (game.is_gdl2, game.random_role, game.percept_table) == (True, "random", ())
    assert game.warnings == ()
    assert {m.text for m in game.legal_moves(game.initial_state, "random")} >= {"(place 1)"}


# -- messages -----------------------------------------------------------------------------


def test_error_message_carries_line_column_and_rule_text() -> None:
    """An error names line:column of the rule and quotes the rule as GDL text (the message
    is the output under test: what a person reads)."""
    text = game_text("", "  ; an indented rule", "   (<= (P ?X)", "       (Q A))", "(q a)")
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(text)
    error = caught.value
    assert (error.line, error.column) == (10, 4)
    assert str(error).startswith("line 10, column 4: ")
    assert "rule at 10:4 (<= (p ?x) (q a))" in str(error)


def test_error_position_survives_crlf_line_ends() -> None:
    """With CRLF line ends the reported line is still the rule's own line."""
    text = game_text("(<= (p ?x) (q a))", "(q a)").replace("\n", "\r\n")
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(text)
    assert (caught.value.line, caught.value.column) == (8, 1)


def test_warning_text_carries_line_and_column() -> None:
    """A warning prints as ``line:column: message``."""
    (warning,) = check("(foo bar)", "   (foo bar bar)")
    assert str(warning).startswith("9:4: relation 'foo'")
