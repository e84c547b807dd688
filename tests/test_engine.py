"""The state machine's public surface: Game, State, Move and the errors it raises."""

from __future__ import annotations

import pickle

import pytest

from reasoner import (
    Game,
    GoalError,
    IllegalMoveError,
    InvalidStateError,
    Limits,
    ReasonerError,
    ResourceLimitError,
    State,
)
from reasoner.arguments import ArgumentError
from reasoner.core.values import Move
from reasoner.errors import GoalValueError
from tests.conftest import CORPUS, GAMES, bundled

COUNTER = """
(role you) (init (count 0)) (succ 0 1) (succ 1 2)
(legal you inc)
(<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
(<= terminal (true (count 2)))
(<= (goal you 100) (true (count 2)))
(<= (goal you 0) (not (true (count 2))))
"""


def test_roles_come_in_file_order() -> None:
    """Roles are listed in the order of their role facts, not sorted."""
    game = Game.from_gdl("(role zed) (role alpha) (role mid) (legal zed a) (legal alpha a)"
                         "(legal mid a) (goal zed 0) (goal alpha 0) (goal mid 0) terminal")
    assert game.roles == ("zed", "alpha", "mid")


def test_initial_state_of_tictactoe() -> None:
    """The initial state holds exactly the init facts."""
    game = bundled("tictactoe")
    expected = {f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)}
    expected.add("(control xplayer)")
    assert game.initial_state.fluents == frozenset(expected)


def test_initial_state_from_init_rules() -> None:
    """init may be defined by rules, not only facts (connect four fills its board so)."""
    game = bundled("connectfour")
    assert sum(1 for f in game.initial_state.fluents if f.endswith(" b)")) == 42


def test_legal_moves_per_role() -> None:
    """In tic-tac-toe's first state xplayer has 9 marks and oplayer only noop."""
    game = bundled("tictactoe")
    x_moves = {m.text for m in game.legal_moves(game.initial_state, "xplayer")}
    assert x_moves == {f"(mark {x} {y})" for x in (1, 2, 3) for y in (1, 2, 3)}
    assert [m.text for m in game.legal_moves(game.initial_state, "oplayer")] == ["noop"]


def test_next_state_accepts_text_and_move_objects() -> None:
    """A joint move may name moves by GDL text (any case, any spacing) or by Move."""
    game = bundled("tictactoe")
    s0 = game.initial_state
    mark = game.move("xplayer", "(mark 2 2)")
    by_object = game.next_state(s0, {"xplayer": mark, "oplayer": game.move("oplayer", "noop")})
    by_text = game.next_state(s0, {"xplayer": "( MARK 2   2 )", "oplayer": "NOOP"})
    assert by_object == by_text
    assert "(cell 2 2 x)" in by_text.fluents
    assert "(control oplayer)" in by_text.fluents


def test_terminal_and_goals_after_a_win() -> None:
    """Three x in the first column end the game with 100 for x and 0 for o."""
    game = bundled("tictactoe")
    state = game.initial_state
    for x, o in [("(mark 1 1)", "(mark 2 2)"), ("(mark 2 1)", "(mark 3 3)")]:
        state = game.next_state(state, {"xplayer": x, "oplayer": "noop"})
        state = game.next_state(state, {"xplayer": "noop", "oplayer": o})
    assert not game.is_terminal(state)
    state = game.next_state(state, {"xplayer": "(mark 3 1)", "oplayer": "noop"})
    assert game.is_terminal(state)
    assert game.goals(state) == {"xplayer": 100, "oplayer": 0}
    assert game.goal(state, "oplayer") == 0


def test_illegal_move_raises() -> None:
    """A move that exists in the game but is not legal now raises IllegalMoveError."""
    game = bundled("tictactoe")
    with pytest.raises(IllegalMoveError) as caught:
        game.next_state(game.initial_state, {"xplayer": "(mark 1 1)", "oplayer": "(mark 2 2)"})
    assert caught.value.reason == "not-legal" and caught.value.role == "oplayer"
    assert caught.value.move_id == game.move("oplayer", "(mark 2 2)").id


def test_joint_move_with_missing_role_raises() -> None:
    """A joint move must name every role."""
    game = bundled("tictactoe")
    with pytest.raises(IllegalMoveError) as caught:
        game.next_state(game.initial_state, {"xplayer": "(mark 1 1)"})
    assert (caught.value.reason, caught.value.role) == ("missing-role", "oplayer")


def test_joint_move_with_unknown_role_raises() -> None:
    """A joint move naming a role the game lacks is refused, naming the role."""
    game = bundled("tictactoe")
    with pytest.raises(IllegalMoveError) as caught:
        game.next_state(game.initial_state,
                        {"xplayer": "(mark 1 1)", "oplayer": "noop", "zplayer": "noop"})
    assert (caught.value.reason, caught.value.role) == ("unknown-role", "zplayer")


def test_move_that_can_never_happen_raises() -> None:
    """A move outside the game's move table is refused before any solving."""
    game = bundled("tictactoe")
    with pytest.raises(IllegalMoveError) as caught:
        game.move("xplayer", "(mark 4 4)")
    assert (caught.value.reason, caught.value.role) == ("never-legal", "xplayer")


def test_malformed_move_text_raises() -> None:
    """Unparsable move text is an IllegalMoveError, not a crash."""
    game = bundled("tictactoe")
    with pytest.raises(IllegalMoveError) as caught:
        game.move("xplayer", "(mark 1")
    assert (caught.value.reason, caught.value.role) == ("malformed", "xplayer")


def test_move_of_another_role_raises() -> None:
    """A Move object of one role cannot be played by another."""
    game = bundled("tictactoe")
    mark = game.move("xplayer", "(mark 1 1)")
    with pytest.raises(IllegalMoveError):
        game.next_state(game.initial_state, {"xplayer": mark, "oplayer": mark})


def test_state_from_unknown_fluent_raises() -> None:
    """A state naming a fluent the game can never have is an InvalidStateError."""
    game = bundled("tictactoe")
    with pytest.raises(InvalidStateError) as caught:
        game.state_from_fluents(["(cell 9 9 x)"])
    assert caught.value.reason == "never-holds"


def test_state_with_foreign_fluent_ids_raises() -> None:
    """Fluent ids beyond the table are refused."""
    game = bundled("tictactoe")
    with pytest.raises(InvalidStateError):
        game.state_from_ids([len(game.fluents)])
    with pytest.raises(InvalidStateError):
        game.is_terminal(State(1 << 500, game.fluents))


def test_state_round_trips_through_fluent_texts() -> None:
    """A state rebuilt from its fluent texts equals the original."""
    game = bundled("connectfour")
    state = game.next_state(game.initial_state, {"red": "(drop 4)", "black": "noop"})
    assert game.state_from_fluents(state.fluents) == state


def test_states_are_hashable_values_with_a_readable_repr() -> None:
    """Equal states hash equally, can key dicts and pickle; repr is the state's GDL text."""
    game = Game.from_gdl(COUNTER)
    s1 = game.next_state(game.initial_state, {"you": "inc"})
    s1_again = game.next_state(game.initial_state, {"you": "inc"})
    assert s1 == s1_again and hash(s1) == hash(s1_again)
    assert {s1: "one"}[s1_again] == "one"
    assert repr(s1) == "State((true (count 1)))"
    assert pickle.loads(pickle.dumps(s1)) == s1
    assert len(s1) == 1 and "(count 1)" in s1


def test_moves_have_a_readable_repr() -> None:
    """A move's repr is the constructor call: its id, role and GDL text."""
    game = bundled("tictactoe")
    move = game.move("xplayer", "(mark 1 2)")
    assert repr(move) == f"Move({move.id}, 'xplayer', '(mark 1 2)')"
    assert eval(repr(move), {"Move": Move}) == move
    assert str(game.move("oplayer", "noop")) == "noop"


def test_a_state_cannot_be_changed_in_place() -> None:
    """Assigning to a state's bits raises, so a state keying a dict keeps its entry."""
    game = bundled("tictactoe")
    table = {game.initial_state: "start"}
    with pytest.raises(AttributeError):
        game.initial_state.bits = 0
    assert table[game.initial_state] == "start"


def test_values_are_frozen() -> None:
    """Moves, joint moves and state infos refuse assignment too."""
    game = bundled("tictactoe")
    info = game.info(game.initial_state)
    (joint, *_) = game.legal_joint_moves(game.initial_state)
    with pytest.raises(AttributeError):
        info.terminal = True
    with pytest.raises(AttributeError):
        joint.moves[0].text = "(mark 3 3)"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        joint._moves = ()


def test_states_of_two_games_are_not_equal() -> None:
    """The same bits over two games' fluent tables are two different states, and a game
    refuses the other's state."""
    ttt, nim = bundled("tictactoe"), bundled("nim")
    foreign = State(ttt.initial_state.bits, nim.fluents)
    assert foreign != ttt.initial_state
    with pytest.raises(InvalidStateError):
        ttt.info(foreign)


def test_joint_moves_read_as_mappings_and_gdl() -> None:
    """A legal joint move maps roles to moves, gives its ids for ``step`` and prints as
    ``does`` facts."""
    game = bundled("tictactoe")
    joint = game.legal_joint_moves(game.initial_state)[0]
    assert list(joint) == ["xplayer", "oplayer"]
    assert joint["oplayer"].text == "noop"
    assert repr(joint) == "JointMove((does xplayer (mark 1 1)) (does oplayer noop))"
    assert game.step(game.initial_state, joint.ids)[0] == game.next_state(game.initial_state,
                                                                         joint)


def test_step_checks_legality_unless_asked_not_to() -> None:
    """``step`` on ids refuses an illegal move by default and plays it when told not to
    check (search loops that draw from the legal moves save the query)."""
    game = bundled("tictactoe")
    noop, mark = game.move("xplayer", "noop").id, game.move("oplayer", "(mark 1 1)").id
    with pytest.raises(IllegalMoveError):
        game.step(game.initial_state, (noop, mark))
    state, _ = game.step(game.initial_state, (noop, mark), check_legal=False)
    assert "(cell 1 1 o)" in state


def test_missing_goal_is_an_error_not_a_guess() -> None:
    """A role without a goal value in a state raises GoalError."""
    game = Game.from_gdl("(role a) (init s) (legal a go) (<= terminal (true s)) "
                         "(<= (goal a 100) (true t))")
    with pytest.raises(GoalError) as caught:
        game.goals(game.initial_state)
    assert (caught.value.role, caught.value.values) == ("a", ())


def test_double_goal_is_an_error_not_a_guess() -> None:
    """A role with two goal values in a state raises GoalError listing both."""
    game = Game.from_gdl("(role a) (init s) (legal a go) (<= terminal (true s)) "
                         "(<= (goal a 100) (true s)) (goal a 50)")
    with pytest.raises(GoalError) as caught:
        game.goals(game.initial_state)
    assert (caught.value.role, caught.value.values) == ("a", (50, 100))


def test_goal_values_from_rules_are_checked_after_grounding() -> None:
    """A goal value computed by a rule must still be an integer in 0..100."""
    with pytest.raises(GoalValueError) as caught:
        Game.from_gdl("(role a) (val 200) (init s) (legal a go) terminal "
                      "(<= (goal a ?v) (val ?v))")
    assert (caught.value.role, caught.value.value) == ("a", "200")


def test_legal_joint_moves_is_the_product_in_role_order() -> None:
    """Rock-paper-scissors has 9 joint moves, each naming both roles."""
    game = bundled("rps")
    joints = game.legal_joint_moves(game.initial_state)
    assert len(joints) == 9
    assert all(list(j) == list(game.roles) for j in joints)


def test_recursive_rules_are_evaluated_to_their_fixpoint() -> None:
    """Transitive closure through recursion works inside a single query."""
    game = Game.from_gdl("""
        (role r) (edge a b) (edge b c) (edge c d) (init (at a))
        (<= (reach ?x ?y) (edge ?x ?y))
        (<= (reach ?x ?z) (edge ?x ?y) (reach ?y ?z))
        (<= (legal r (go ?y)) (true (at ?x)) (reach ?x ?y))
        (<= (next (at ?y)) (does r (go ?y)))
        (<= terminal (true (at d))) (goal r 100)""")
    moves = {m.text for m in game.legal_moves(game.initial_state, "r")}
    assert moves == {"(go b)", "(go c)", "(go d)"}


def test_unstratified_ground_program_is_rejected_at_load() -> None:
    """Negation through recursion that really cycles on ground atoms is refused at load."""
    with pytest.raises(ReasonerError) as caught:
        Game.from_gdl("(role a) (legal a go) (<= p (not q)) (<= q (not p)) "
                      "(<= terminal p) (goal a 0)")
    assert caught.value.reason == "unstratified"


def test_ground_stratified_negative_cycle_loads() -> None:
    """ggp.org's (<= (goal robot 100) (not (goal robot 0))) pattern loads and answers."""
    game = Game.from_gdl("(role robot) (init s) (legal robot go) (<= terminal (true s)) "
                         "(<= (goal robot 0) (true t)) (<= (goal robot 100) (not (goal robot 0)))")
    assert game.goals(game.initial_state) == {"robot": 100}
    assert any("negation through recursion" in w for w in game.warnings)


def test_two_games_do_not_share_state() -> None:
    """Interleaved queries on two loaded games give each its own answers."""
    ttt, c4 = bundled("tictactoe"), bundled("connectfour")
    assert len(ttt.legal_moves(ttt.initial_state, "xplayer")) == 9
    assert len(c4.legal_moves(c4.initial_state, "red")) == 7
    assert len(ttt.legal_moves(ttt.initial_state, "xplayer")) == 9


# 60^5 possible fluents: the relaxed grounding cannot finish.
EXPLODING = ("(role a) " + " ".join(f"(n {i})" for i in range(60))
             + " (init s) (legal a go) terminal (goal a 0) "
             "(<= (next (big ?a ?b ?c ?d ?e)) (true s) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e))")


@pytest.mark.slow  # grounds to the time bound: about 4 s
def test_grounding_explosion_stops_at_the_time_bound() -> None:
    """A game whose grounding explodes fails with ResourceLimitError naming the bound and
    the relation whose rules grew."""
    with pytest.raises(ResourceLimitError) as caught:
        Game.from_gdl(EXPLODING, limits=Limits(seconds=2, memory_mb=4096))
    assert (caught.value.bound, caught.value.limit, caught.value.reason) == ("time", 2, "work")
    assert caught.value.relation == "next/1"


@pytest.mark.slow  # about 1.7 s
def test_grounding_explosion_stops_at_the_memory_bound() -> None:
    """The same explosion under a small memory bound fails naming the memory bound, and
    the relation that grew."""
    with pytest.raises(ResourceLimitError) as caught:
        Game.from_gdl(EXPLODING, limits=Limits(seconds=120, memory_mb=300))
    assert (caught.value.bound, caught.value.limit, caught.value.reason) == (
        "memory", 300, "work")
    assert caught.value.relation == "next/1"


def test_bounded_load_of_a_small_game_works() -> None:
    """Bounds do not get in the way of a game that fits them."""
    game = Game.from_gdl(COUNTER, limits=Limits(seconds=30, memory_mb=2048))
    assert game.roles == ("you",)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason="the public corpus is not beside the project")
def test_corpus_tictactoe_matches_the_bundled_one() -> None:
    """ggp.org's tic-tac-toe and ours agree on the first moves' successor sizes."""
    theirs = Game.from_file(CORPUS / "ggp-repository" / "ticTacToe.kif")
    assert len(theirs.legal_joint_moves(theirs.initial_state)) == 9


def test_bounds_and_backends_are_named_by_enums() -> None:
    """A resource error's bound and a game's backend are enum members that still read and
    compare as their words."""
    from reasoner.engine.backend import Backend
    from reasoner.errors import Bound

    error = ResourceLimitError("over", bound="time")
    assert error.bound is Bound.TIME and str(error.bound) == "time"
    assert pickle.loads(pickle.dumps(error)).bound is Bound.TIME
    game = Game.from_gdl(COUNTER, backend="clingo")
    assert game.backend is Backend.CLINGO and f"{game.backend}" == "clingo"
    with pytest.raises(ArgumentError) as refused:
        Game.from_gdl(COUNTER, backend="prolog")
    assert (refused.value.argument, refused.value.value) == ("backend", "prolog")
    assert refused.value.allowed == (
        "clingo", "native", "propnet", "position", "compiled", "topdown", "auto")


@pytest.mark.parametrize("backend", ["native", "propnet", "clingo"])
def test_simulate_refuses_counts_outside_their_domain_on_every_backend(backend: str) -> None:
    """A negative number of playouts, a negative step bound or one past a C int is a
    ValueError naming the argument on every backend (the kernel used to answer a negative
    bound with "buffers too small", the Python network to play it as no bound)."""
    game = Game.from_file(GAMES / "tictactoe.kif", backend=backend)
    start = game.initial_state
    with pytest.raises(ArgumentError) as caught:
        game.simulate(start, -1, 0, 10)
    assert (caught.value.argument, caught.value.value) == ("playouts", -1)
    for steps in (-1, 2**31):
        with pytest.raises(ArgumentError) as caught:
            game.simulate(start, 3, 0, steps)
        assert (caught.value.argument, caught.value.value) == ("max_steps", steps)
        assert caught.value.allowed == range(2147483648)
    assert game.simulate(start, 3, 0, 0).lengths == [0, 0, 0]


@pytest.mark.parametrize("backend", ["native", "propnet", "clingo"])
def test_simulate_takes_any_int_as_a_seed_modulo_2_to_the_64(backend: str) -> None:
    """Seeds are the service's unsigned 64-bit numbers: -1 plays as 2**64 - 1 and 2**64 + 5
    as 5, on every backend (the Python network used to refuse a negative seed)."""
    game = Game.from_file(GAMES / "tictactoe.kif", backend=backend)
    start = game.initial_state

    def lengths(seed: int) -> list[int]:
        return list(game.simulate(start, 20, seed, 100).lengths)

    assert lengths(-1) == lengths(2**64 - 1)
    assert lengths(2**64 + 5) == lengths(5)


def test_the_successor_layer_reads_next_through_one_copy() -> None:
    """The clingo backend answers legal, terminal and goal of the successor in the same
    solve as the step, from a copy of its rules over the successor's fluents; those rules
    read the fluents through one copy of next/1, never next/1 itself, which clingo grounds
    several times slower (docs/benchmarks/corpus-checks.md, loading ground games)."""
    from reasoner.asp.translate import translate
    from reasoner.gdl.parser import parse_game

    layer = translate(parse_game(COUNTER)).next_layer_program
    rules = [line for line in layer.splitlines() if ":-" in line]
    assert "_n_true(F) :- next(F)." in rules
    assert [rule for rule in rules if "next(" in rule.split(":-")[1]] == [
        "_n_true(F) :- next(F)."]
    game = Game.from_gdl(COUNTER, backend="clingo")
    state = game.next_state(game.initial_state, {"you": "inc"})
    assert not game.is_terminal(state)
    last = game.next_state(state, {"you": "inc"})
    assert game.is_terminal(last)
    assert game.goals(last) == {"you": 100}
