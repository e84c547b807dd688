"""Structures, features and mobility (docs/semantics/structures.md): detection on real games, the
Kuhlmann features' values and the worked Reversi numbers."""

from __future__ import annotations

import json
import time
from functools import cache
from pathlib import Path

import pytest

from reasoner import Game, State
from reasoner.heuristics.analysis import GameAnalysis, analyze_game
from reasoner.heuristics.features import (
    evaluation,
    feature_value,
    game_features,
    goal_ranges,
)
from reasoner.heuristics.mobility import inverse_mobility, mobility, novelty
from reasoner.heuristics.structures import (
    Board,
    Structures,
    detect_structures,
    find_successors,
    is_order_relation,
    successor_chains,
)
from tests.conftest import bundled

_corpus_games: dict[str, Game] = {}
_corpus_analyses: dict[str, GameAnalysis] = {}


@cache
def structures_of(name: str) -> Structures:
    """The structures of a bundled game (default detection), once per session."""
    return detect_structures(bundled(name))


def corpus_game(corpus: Path, name: str) -> Game:
    """A game of the corpus's ggp-repository folder, loaded once per session."""
    if name not in _corpus_games:
        _corpus_games[name] = Game.from_file(corpus / "ggp-repository" / f"{name}.kif")
    return _corpus_games[name]


def corpus_analysis(corpus: Path, name: str) -> GameAnalysis:
    """The default analysis of a corpus game, once per session."""
    if name not in _corpus_analyses:
        _corpus_analyses[name] = analyze_game(corpus_game(corpus, name))
    return _corpus_analyses[name]


def only_board(structures: Structures, function: str) -> Board:
    """The single board of a function (fails when there are none or several)."""
    boards = [b for b in structures.boards if b.function == function]
    assert len(boards) == 1, boards
    return boards[0]


# -- static relations ------------------------------------------------------------------------


def test_successor_chain_of_breakthrough() -> None:
    """Breakthrough's (succ 1 2) ... (succ 4 5) is found as one chain 1..5."""
    chains = [(o.relation, o.elements) for o in structures_of("breakthrough").successors]
    assert chains == [("succ", ("1", "2", "3", "4", "5"))]


def test_cyclic_relation_is_no_successor() -> None:
    """The maze's nextcell (a -> b -> c -> d -> a) is a cycle, so only tick is a chain."""
    assert [o.relation for o in structures_of("maze").successors] == ["tick"]


def test_relation_with_two_chains_gives_two_orderings() -> None:
    """A successor relation made of two separate chains yields one ordering per chain."""
    facts = {"next": frozenset({("a", "b"), ("b", "c"), ("x", "y"), ("y", "z")})}
    assert [o.elements for o in find_successors(facts)] == [("a", "b", "c"), ("x", "y", "z")]


def test_branching_relation_is_no_successor() -> None:
    """A relation in which an element has two successors is not functional."""
    assert successor_chains({("a", "b"), ("a", "c"), ("c", "d")}) is None


def test_order_relation_needs_transitivity() -> None:
    """A chain of two steps without its shortcut is not an order; with it, it is."""
    assert not is_order_relation(frozenset({("1", "2"), ("2", "3")}))
    assert is_order_relation(frozenset({("1", "2"), ("2", "3"), ("1", "3")}))


def test_reversi_lessthan_is_an_order_on_succ(corpus: Path) -> None:
    """Reversi's recursive lessThan is an order relation linked to its succ chain 0..64."""
    orders = corpus_analysis(corpus, "reversi").structures.orders
    assert [(o.relation, len(o.pairs), o.reversed) for o in orders] == [
        ("lessthan", 65 * 64 // 2, False)]
    assert orders[0].ordering is not None
    assert orders[0].ordering.relation == "succ"
    assert len(orders[0].ordering) == 65


def test_greater_is_an_order_against_its_chain() -> None:
    """Rock-paper-scissors' (greater 1 0) ... runs against succ: linked as reversed."""
    orders = structures_of("rps").orders
    assert [(o.relation, o.reversed) for o in orders] == [("greater", True)]
    assert orders[0].ordering is not None and orders[0].ordering.relation == "succ"


# -- step counters and quantities ------------------------------------------------------------


def test_maze_step_is_a_step_counter() -> None:
    """The maze's (step ?n) advanced by tick is a step counter along tick 1..10."""
    counters = structures_of("maze").step_counters
    assert [(c.function, c.ordering.relation, len(c.ordering)) for c in counters] == [
        ("step", "tick", 10)]


def test_counter_that_jumps_is_no_step_counter() -> None:
    """threeplayer's count grows by 1 to 3 per move: a quantity, not a step counter."""
    found = structures_of("threeplayer")
    assert found.step_counters == ()
    assert [(q.function, q.position, q.inputs) for q in found.quantities] == [("count", 0, ())]


def test_nim_heaps_are_quantities() -> None:
    """Each nim heap holds one amount on the succ chain 0..5: a quantity with the heap name
    as input."""
    quantities = structures_of("nim").quantities
    assert [(q.function, q.inputs, q.position, q.ordering.elements) for q in quantities] == [
        ("heap", (0,), 1, ("0", "1", "2", "3", "4", "5"))]


def test_quantity_feature_value() -> None:
    """The nim heap a holds 3 of 0..5 at the start: V = 3/5."""
    game = bundled("nim")
    features = {f.name: f for f in game_features(game, structures_of("nim"))}
    assert features["quantity(heap,a,#)"].value(game.initial_state) == pytest.approx(0.6)
    assert features["quantity(heap,c,#)"].value(game.initial_state) == pytest.approx(1.0)


# -- boards ----------------------------------------------------------------------------------


def test_tictactoe_cell_is_a_board_of_markers() -> None:
    """tic-tac-toe's (cell ?x ?y ?c): two coordinate inputs, markers b/o/x, no pieces,
    9 cells, unordered (no successor relation)."""
    board = only_board(structures_of("tictactoe"), "cell")
    assert (board.inputs, board.outputs, board.cells) == ((0, 1), (2,), 9)
    assert board.markers == ("b", "o", "x")
    assert board.pieces == ()
    assert not board.ordered


def test_breakthrough_board_is_ordered() -> None:
    """Breakthrough's board has both coordinates on the succ chain 1..5."""
    board = only_board(structures_of("breakthrough"), "cell")
    assert board.ordered
    assert [o.elements if o else None for o in board.orderings] == [
        ("1", "2", "3", "4", "5")] * 2
    assert (board.cells, board.markers) == (25, ("black", "white"))


def test_connectfour_board() -> None:
    """Connect four's 7 x 6 board is ordered, with blanks and both colours as markers."""
    board = only_board(structures_of("connectfour"), "cell")
    assert board.ordered and board.cells == 42
    assert board.markers == ("b", "black", "red")


def test_minichess_pieces() -> None:
    """Minichess's (at ?piece ?x ?y) is a board on the coordinates whose three pieces each
    stand on one cell."""
    boards = [b for b in structures_of("minichess").boards if b.inputs == (1, 2)]
    assert len(boards) == 1
    assert boards[0].ordered and boards[0].pieces == ("bk", "wk", "wr")


def test_piece_features_values() -> None:
    """In minichess's initial state bk stands on (2, 4) and wk on (1, 2) of 1..4: the
    coordinates scale by 3 and their Manhattan distance 3 by the largest, 6."""
    game = bundled("minichess")
    features = {f.name: f for f in game_features(game, structures_of("minichess"))}
    state = game.initial_state
    assert features["coordinate(at,bk,#,?)"].value(state) == pytest.approx(1 / 3)
    assert features["coordinate(at,bk,?,#)"].value(state) == pytest.approx(1.0)
    assert features["distance(at,bk,?,?;at,wk,?,?)"].value(state) == pytest.approx(0.5)
    assert features["distance_sum(at,*,?,?)"].value(state) == pytest.approx((3 + 4 + 1) / 18)


def test_set_fluent_is_no_board() -> None:
    """A fluent that is a set of pairs (no argument determines the other) is no board."""
    game = Game.from_gdl("""
        (role p) (init (on a 1)) (init (on a 2)) (init (on b 1))
        (legal p wait) (<= (next (on ?x ?y)) (true (on ?x ?y)))
        (goal p 100) (<= terminal (true (on c 1)))""")
    assert detect_structures(game, playouts=1, max_steps=2).boards == ()


# -- simulation: turn-taking and teams -------------------------------------------------------


def test_tictactoe_is_turn_taking_with_noop() -> None:
    """In tic-tac-toe one role moves at a time; the other's single move is noop."""
    found = structures_of("tictactoe")
    assert found.turn_taking
    assert found.noop_moves == {"xplayer": ("noop",), "oplayer": ("noop",)}


def test_rps_is_simultaneous() -> None:
    """In rock-paper-scissors both roles choose at once: not turn-taking, no noops."""
    found = structures_of("rps")
    assert not found.turn_taking
    assert found.noop_moves == {}


def test_opponents_are_separate_teams() -> None:
    """tic-tac-toe's players do not share their goal values: two singleton teams."""
    assert structures_of("tictactoe").teams == (("xplayer",), ("oplayer",))


def test_cooperating_roles_form_teams(corpus: Path) -> None:
    """In six-player 3-D tic-tac-toe the three x roles and the three o roles share goals."""
    game = corpus_game(corpus, "tictactoe_3d_small_6player")
    assert detect_structures(game).teams == (("xrow", "xcolumn", "xlevel"),
                                             ("orow", "ocolumn", "olevel"))


def test_detection_is_deterministic() -> None:
    """Two detections with the same seed agree; the counts of states seen are positive."""
    game = bundled("connectfour")
    first = detect_structures(game, playouts=5, seed=7)
    assert first == detect_structures(game, playouts=5, seed=7)
    assert first.states_seen > 0 and first.terminal_states_seen > 0


def test_time_limit_stops_the_simulation() -> None:
    """A zero time limit stops after the first state and says so."""
    found = detect_structures(bundled("breakthrough"), time_limit=0.0)
    assert found.time_limited and found.states_seen == 1


def test_detection_of_midsize_games_is_fast() -> None:
    """Connect four and breakthrough are analysed well within a few seconds each."""
    for name in ("connectfour", "breakthrough"):
        game = bundled(name)
        start = time.perf_counter()
        analyze_game(game)
        assert time.perf_counter() - start < 5.0, name


# -- evaluations -----------------------------------------------------------------------------


def reversi_state(game: Game, black: int) -> State:
    """A Reversi state with ``black`` black markers and four red ones, black to move."""
    cells = [(x, y) for x in range(1, 9) for y in range(1, 9)]
    fluents = [f"(cell {x} {y} black)" for x, y in cells[:black]]
    fluents += [f"(cell {x} {y} red)" for x, y in cells[-4:]]
    return game.state_from_fluents([*fluents, "(control black)"])


@pytest.mark.parametrize(("black", "expected"),
                         [(8, 13.25), (12, 19.375), (10, 16.3125), (14, 22.4375)])
def test_reversi_worked_numbers(corpus: Path, black: int, expected: float) -> None:
    """docs/semantics/structures.md: counting black's markers on Reversi's 64 cells with R- = 0, R+
    = 100, maximising: 8 markers give 13.25, 12 give 19.375, 10 give 16.3125, 14 give 22.4375."""
    game = corpus_game(corpus, "reversi")
    analysis = corpus_analysis(corpus, "reversi")
    feature = analysis.feature("count(cell,?,?,black)")
    assert feature is not None and feature.scale == 64
    low, high = analysis.goal_ranges["black"]
    assert (low, high) == (0, 100)
    state = reversi_state(game, black)
    assert feature_value(feature, state, "max", low, high) == pytest.approx(expected)


@pytest.mark.parametrize(("black", "expected"),
                         [(8, 86.75), (12, 80.625), (10, 83.6875), (14, 77.5625)])
def test_suicide_reversi_worked_numbers(corpus: Path, black: int, expected: float) -> None:
    """docs/semantics/structures.md on suicide Reversi (the winner gets 0): the minimising
    evaluation of black's marker count gives 86.75, 80.625, 83.6875, 77.5625 for 8, 12, 10, 14
    markers."""
    game = corpus_game(corpus, "reversiSuicide")
    analysis = corpus_analysis(corpus, "reversiSuicide")
    feature = analysis.feature("count(cell,?,?,black)")
    assert feature is not None
    low, high = analysis.goal_ranges["black"]
    state = reversi_state(game, black)
    assert feature_value(feature, state, "min", low, high) == pytest.approx(expected)


def test_evaluation_stays_inside_the_goal_range() -> None:
    """E(s) lies in [R- + 1, R+ - 1]: V = 0 and V = 1 give the ends, min mirrors max."""
    assert evaluation(0.0, "max", 0, 100) == 1
    assert evaluation(1.0, "max", 0, 100) == 99
    assert evaluation(1.0, "min", 50, 100) == 51
    assert evaluation(0.25, "min", 0, 100) == evaluation(0.75, "max", 0, 100)


def test_goal_ranges_agree_on_both_backends() -> None:
    """Minichess gives white 50 or 100 and black 0 or 50, read from the network or from the
    rules alike."""
    expected = {"white": (50, 100), "black": (0, 50)}
    assert goal_ranges(bundled("minichess")) == expected
    clingo = Game.from_file(Path(__file__).parents[1] / "games" / "minichess.kif",
                            backend="clingo")
    assert goal_ranges(clingo) == expected


def test_analysis_as_dict_is_json() -> None:
    """The analysis of connect four turns into JSON with its board and marker counts."""
    data = json.loads(json.dumps(analyze_game(bundled("connectfour")).as_dict()))
    assert data["structures"]["boards"][0]["function"] == "cell"
    assert "count(cell,?,?,red)" in [f["name"] for f in data["features"]]


# -- mobility and novelty --------------------------------------------------------------------


def test_mobility_of_tictactoe_start() -> None:
    """At the start xplayer has 9 of its 10 moves legal and oplayer 1 of 10; relative
    mobility counts the opponent's against it, inverse mobility is the complement."""
    game = bundled("tictactoe")
    state = game.initial_state
    assert mobility(game, state, "xplayer") == pytest.approx(0.9)
    assert mobility(game, state, "oplayer") == pytest.approx(0.1)
    assert mobility(game, state, "xplayer", relative=True) == pytest.approx(0.9)
    assert mobility(game, state, "oplayer", relative=True) == pytest.approx(0.1)
    assert inverse_mobility(game, state, "xplayer") == pytest.approx(0.1)


def test_novelty_after_a_mark() -> None:
    """Marking (1 1) swaps two of tic-tac-toe's ten fluents: 4 differ of 12 in either state;
    without a previous state, or for the same state, novelty is 0."""
    game = bundled("tictactoe")
    start = game.initial_state
    after = game.next_state(start, {"xplayer": "(mark 1 1)", "oplayer": "noop"})
    assert novelty(start, after) == pytest.approx(4 / 12)
    assert novelty(None, after) == 0.0
    assert novelty(after, after) == 0.0
