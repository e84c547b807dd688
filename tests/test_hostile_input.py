"""Hostile text gets a documented error with its position, never a crash or a long stall
(issue 15): halves of surrogate pairs, names and integers of any length, bodies whose ors
multiply out, messages that would quote a megabyte."""

from __future__ import annotations

import pickle
from pathlib import Path

import grpc
import pytest

from reasoner import Game
from reasoner.errors import (
    GdlSyntaxError,
    GdlValidationError,
    GoalValueError,
    ReasonerError,
    ResourceLimitError,
    shortened,
)
from reasoner.gdl.normal_form import MAX_ALTERNATIVES, alternatives
from reasoner.gdl.parser import MAX_NAME, parse_gdl
from reasoner.v1 import reasoner_pb2 as pb
from tests.service_support import (
    Server,
    expect_detail,
    failed_call,
    game_text,
    running_server,
)

# A one-role game whose fluent argument, role name or goal value the tests replace.
GAME = """(role p)
(init (c 0))
(<= (legal p (go ?x)) (true (c ?x)))
(<= (next (c ?x)) (does p (go ?x)))
(<= terminal (true (c 1)))
(goal p 100)
"""


def _ors(count: int) -> str:
    """GAME with a terminal rule of ``count`` two-way ors (2**count rules multiplied out)."""
    ors = " ".join(f"(or (true (c {i})) (true (c {i + 1})))" for i in range(count))
    return GAME.replace("(<= terminal (true (c 1)))", f"(<= terminal {ors})")


@pytest.mark.parametrize("where", ["(c 0)", "(role p)"])
def test_half_a_surrogate_pair_is_a_syntax_error_at_its_place(where: str) -> None:
    """A lone surrogate (which Python strings hold and UTF-8 cannot) is refused by the
    parser with its line and column, not by clingo with a UnicodeEncodeError."""
    text = GAME.replace(where, where[:-1] + "\udc80)")
    with pytest.raises(GdlSyntaxError) as caught:
        Game.from_gdl(text)
    assert (caught.value.reason, caught.value.symbols) == ("surrogate", ("U+DC80",))
    (line,) = [n for n, row in enumerate(text.splitlines(), 1) if "\udc80" in row]
    column = text.splitlines()[line - 1].index("\udc80") + 1
    assert (caught.value.line, caught.value.column) == (line, column)


def test_a_name_longer_than_the_bound_is_a_syntax_error() -> None:
    """A name of a million characters is refused at once, with its position and length
    (the length as the message says it, the output under test: the message is short)."""
    text = GAME.replace("(c 0)", "(c " + "a" * 1_000_000 + ")")
    with pytest.raises(GdlSyntaxError) as caught:
        parse_gdl(text)
    assert caught.value.reason == "long-name"
    assert (caught.value.line, caught.value.column) == (2, 10)
    assert "a name of 1,000,000 characters" in caught.value.message


def test_a_name_at_the_bound_still_loads() -> None:
    """A name of exactly MAX_NAME characters is a name like any other."""
    game = Game.from_gdl(GAME.replace("(c 0)", "(c " + "a" * MAX_NAME + ")"))
    assert len(game.fluents[0]) > MAX_NAME


@pytest.mark.parametrize("digits", [12, 4_000])
def test_a_long_integer_is_a_constant_not_a_crash(digits: int) -> None:
    """An integer past clingo's 32 bits (and one Python's int would refuse to read) is an
    ordinary constant: the game loads and plays it."""
    number = "9" * digits
    game = Game.from_gdl(GAME.replace("(c 0)", f"(c {number})"))
    assert game.fluents == (f"(c {number})",)
    (move,) = game.legal_moves(game.initial_state, "p")
    assert move.text == f"(go {number})"


def test_a_long_goal_value_is_a_validation_error_at_its_place() -> None:
    """A goal value of 4,000 digits is out of 0..100, said with its position."""
    text = GAME.replace("(goal p 100)", "(goal p " + "1" * 4_000 + ")")
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(text)
    assert (caught.value.reason, caught.value.symbols) == ("goal-value", ("1" * 4_000,))
    assert caught.value.line == 6


@pytest.mark.parametrize("digit", ["\u00b2", "\u0663"])
def test_a_goal_value_of_other_digits_is_a_validation_error(digit: str) -> None:
    """Characters Python calls digits but int() reads otherwise or not at all (superscript
    two, Arabic-Indic three) are no goal value."""
    with pytest.raises(GdlValidationError) as caught:
        Game.from_gdl(GAME.replace("(goal p 100)", f"(goal p {digit})"))
    assert (caught.value.reason, caught.value.symbols) == ("goal-value", (digit,))


# A goal value that only the ground rules reveal: ?x is bound to the constant "of" (the
# corpus fuzz met it in a mutant of gt_attrition, tokens swapped in a body).
GROUND_GOAL = """(role a) (init s) (v of) (legal a go) (<= (next s) (true s))
(<= terminal (true s))
(<= (goal a ?x)
    (v ?x))"""


@pytest.mark.parametrize("backend", ["auto", "clingo", "position",
                                     pytest.param("topdown", marks=pytest.mark.needs_tools)])
def test_a_goal_value_met_on_the_ground_level_names_its_rule(backend: str) -> None:
    """A goal value out of 0..100 that appears only when the rules are ground is refused,
    on every backend, with the position of the goal rule that gives it and the value and
    role named (the message, which quotes the rule, is output under test too)."""
    with pytest.raises(GoalValueError) as caught:
        Game.from_gdl(GROUND_GOAL, backend=backend)
    error = caught.value
    assert (error.line, error.column, error.role, error.value) == (3, 1, "a", "of")
    assert error.message == ("goal value 'of' of role a is not an integer in 0..100 in rule "
                             "at 3:1 (<= (goal a ?x) (v ?x))")


def test_ors_that_multiply_past_the_bound_are_refused_before_expanding() -> None:
    """Sixteen two-way ors in one body (65,536 rules) are refused at once naming the rule's
    relation, its position and the count (the position as the message shows it: a
    ResourceLimitError has no line field)."""
    with pytest.raises(ResourceLimitError) as caught:
        Game.from_gdl(_ors(16))
    assert (caught.value.reason, caught.value.limit) == ("ors", MAX_ALTERNATIVES)
    assert caught.value.relation == "terminal/0"
    assert str(caught.value).startswith("line 5, column 1: ")


def test_ors_within_the_bound_still_load() -> None:
    """Eight two-way ors (256 rules, the bound itself) load and answer."""
    (terminal,) = [r for r in parse_gdl(_ors(8)).rules if r.head.name == "terminal"]
    assert alternatives(terminal.body) == MAX_ALTERNATIVES
    game = Game.from_gdl(_ors(8), backend="clingo")
    assert not game.is_terminal(game.initial_state)


def test_ors_are_counted_through_negation() -> None:
    """A negated or is a conjunction and a negated and of ors multiplies: the count follows
    De Morgan without expanding."""
    body = parse_gdl("(role p) (<= q (not (or a b)) (or c (not (or d e))))").rules[1].body
    assert alternatives(body) == 2


@pytest.mark.corpus
def test_no_corpus_rule_comes_near_the_bound_on_ors(corpus: Path) -> None:
    """The bound on ors is far above every real game's: no rule of the corpus has more than
    a twentieth of it."""
    largest = 0
    for path in sorted(corpus.rglob("*.kif")):
        try:
            description = parse_gdl(path.read_text(encoding="utf-8", errors="replace"))
        except ReasonerError:
            continue
        largest = max([largest, *(alternatives(rule.body) for rule in description.rules)])
    assert 1 < largest <= MAX_ALTERNATIVES / 20


def test_a_message_quotes_a_long_word_only_in_part() -> None:
    """An error quoting a 100,000-character symbol keeps a short head of it and says how
    long it was; the position prefix stays."""
    error = GdlValidationError("unknown " + "x" * 100_000 + " here", 3, 4)
    assert str(error).startswith("line 3, column 4: unknown xxx")
    assert "...(100,000 characters) here" in str(error)
    assert len(str(error)) < 200 and error.message in str(error)


def test_a_long_message_is_cut_and_shortening_twice_changes_nothing() -> None:
    """A message of thousands of short words is cut to the bound; errors that cross a
    process boundary (pickled) arrive with the same text."""
    message = shortened(" ".join(["word"] * 3_000))
    assert len(message) <= 2_000 and message.endswith("(14,999 characters in all)")
    assert shortened(message) == message
    error = ResourceLimitError("grew " + "r" * 9_000, "size", "r/1")
    assert str(pickle.loads(pickle.dumps(error))) == str(error)


@pytest.fixture(scope="module")
def srv() -> object:
    with running_server() as server:
        yield server


@pytest.mark.parametrize("field", ["heuristic", "role", "parameter"])
def test_an_error_quoting_a_huge_request_field_keeps_its_code(srv: Server, field: str) -> None:
    """An Evaluate whose error quotes a 100,000-character heuristic, role or parameter name
    arrives as INVALID_ARGUMENT with its ErrorDetail (a heuristic error) and a short message
    quoting its head, not as RESOURCE_EXHAUSTED "Stream removed" (a status past gRPC's
    metadata limit): the message's length and its cut word are the output under test."""
    ttt = srv.stub.LoadGame(pb.LoadGameRequest(gdl=game_text("tictactoe"))).game
    huge = "h" * 100_000
    request = pb.EvaluateRequest(game_id=ttt.game_id, role="xplayer", heuristic="fuzzy",
                                 states=[pb.State()])
    if field == "heuristic":
        request.heuristic = huge
    elif field == "role":
        request.role = huge
    else:
        request.parameters[huge] = "1"
    code, details, detail = failed_call(srv.stub.Evaluate, request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert detail.kind == pb.ERROR_KIND_HEURISTIC
    assert detail.reason == {"heuristic": "unknown-heuristic", "role": "unknown-role",
                             "parameter": "unknown-parameter"}[field]
    assert "characters)" in details and len(details) < 400


@pytest.mark.parametrize("method", ["Query", "Next"])
def test_an_id_past_32_bits_is_refused_not_cut(srv: Server, method: str) -> None:
    """A fluent or move id of 2**40 is out of the table (INVALID_ARGUMENT: an unknown fluent,
    or an unknown move whose detail names the id), not read as id 0 as a 32-bit field
    would."""
    info = srv.stub.LoadGame(pb.LoadGameRequest(gdl=GAME)).game
    if method == "Query":
        detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, srv.stub.Query,
                               pb.QueryRequest(game_id=info.game_id,
                                               state=pb.State(fluents=[2**40])))
        assert (detail.kind, detail.reason) == (pb.ERROR_KIND_INVALID_STATE, "unknown-fluent")
        assert f"fluent id {2**40} " in detail.message  # the id has no field of its own
    else:
        detail = expect_detail(grpc.StatusCode.INVALID_ARGUMENT, srv.stub.Next,
                               pb.NextRequest(game_id=info.game_id, state=pb.State(fluents=[0]),
                                              joint_moves=[pb.JointMove(moves=[2**40])]))
        assert (detail.kind, detail.reason) == (pb.ERROR_KIND_ILLEGAL_MOVE, "unknown-move")
        assert f"move id {2**40} " in detail.message  # past 32 bits: no move_id field
