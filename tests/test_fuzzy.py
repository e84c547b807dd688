"""Fuzzy goal evaluation (docs/semantics/fuzzy.md, Schiffel & Thielscher 2007): the operators, the
guarantee that true formulas score >= t and false ones <= 1 - t, the whole evaluation h(s),
and the structure-aware refinements (ordered boards, quantities, order relations)."""

from __future__ import annotations

import math
import random
from functools import cache

import pytest

from reasoner import Game
from reasoner.arguments import ArgumentError
from reasoner.core.values import State
from reasoner.errors import ResourceLimitError
from reasoner.heuristics.fuzzy import (
    FuzzyEvaluator,
    FuzzyParameters,
    board_atom_value,
    chain_of_total_order,
    fuzzy_and,
    fuzzy_or,
    order_atom_value,
    quantity_atom_value,
    s_prime,
    t_norm,
    t_prime,
)
from reasoner.heuristics.structures import (
    Board,
    Ordering,
    OrderRelation,
    Quantity,
    Structures,
    detect_structures,
)
from reasoner.propnet.network import FALSE, TRUE
from tests.conftest import CORPUS, GAMES

PARAMETER_SETS = [
    FuzzyParameters(),
    FuzzyParameters(p=0.9, t=0.7, q=2.0),
    FuzzyParameters(p=0.6, t=0.6, q=1.0),
    FuzzyParameters(p=0.75, t=0.55, q=30.0),
]

# A counting game whose goal reads an order relation: goal 100 once the count exceeds 3.
COUNTER = """
(role counter)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (less ?x ?y) (succ ?x ?y))
(<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
(init (count 0))
(legal counter up)
(legal counter stay)
(<= (next (count ?y)) (does counter up) (true (count ?x)) (succ ?x ?y))
(<= (next (count ?x)) (does counter stay) (true (count ?x)))
(<= (goal counter 100) (true (count ?n)) (less 3 ?n))
(<= (goal counter 0) (true (count ?n)) (not (less 3 ?n)))
(<= terminal (true (count 5)))
"""


@cache
def _game(path: str) -> Game:
    return Game.from_file(path, backend="propnet")


def _bundled(name: str) -> Game:
    return _game(str(GAMES / f"{name}.kif"))


def _random_states(game: Game, count: int, seed: int) -> list[State]:
    """``count`` states of seeded random playouts (terminal ones included)."""
    rng = random.Random(seed)
    states: list[State] = []
    while len(states) < count:
        state = game.initial_state
        while len(states) < count:
            states.append(state)
            info = game.info(state)
            if info.terminal:
                break
            state, _ = game.step(state, tuple(rng.choice(ids) for ids in info.legal))
    return states


def _violations(game: Game, evaluator: FuzzyEvaluator, states: list[State]) -> list[str]:
    """Every goal or terminal formula whose value is on the wrong side of the threshold."""
    t = evaluator.parameters.t
    wrong: list[str] = []
    for state in states:
        info = game.info(state)
        values = evaluator.evaluate(state)
        checks = [("terminal", values.terminal, info.terminal)]
        for role, per_role, held in zip(game.roles, values.goals, info.goals, strict=True):
            checks += [(f"goal {role} {gv}", value, gv in held) for gv, value in per_role]
        for name, value, holds in checks:
            if (holds and value < t - 1e-9) or (not holds and value > 1 - t + 1e-9):
                wrong.append(f"{name} holds={holds} value={value} in {state}")
    return wrong


# -- parameters and operators -------------------------------------------------------------


@pytest.mark.parametrize(("p", "t", "q"), [
    (0.5, 0.6, 2.0), (1.0, 0.6, 2.0), (0.8, 0.5, 2.0), (0.8, 0.9, 2.0), (0.8, 0.65, 0.5),
    (0.8, 1.0, 2.0), (float("nan"), 0.6, 2.0),
])
def test_invalid_parameters_are_refused_with_the_ranges(p: float, t: float, q: float) -> None:
    """Parameters outside 0.5 < t <= p < 1, q >= 1 raise ValueError naming the range."""
    with pytest.raises(ArgumentError) as caught:
        FuzzyParameters(p=p, t=t, q=q)
    expected = ("p, t, q", "not-finite") if math.isnan(p) else (
        ("q", "out-of-range") if 0.5 < t <= p < 1 else ("p, t", "out-of-range"))
    assert (caught.value.argument, caught.value.reason) == expected


def test_valid_parameter_edges_are_accepted() -> None:
    """t == p and q == 1 are allowed."""
    assert FuzzyParameters(p=0.7, t=0.7, q=1.0).t == 0.7


def test_t_prime_and_s_prime_on_hand_computed_numbers() -> None:
    """T' and S' with q = 2, t = 0.65 give the values computed by hand."""
    params = FuzzyParameters(p=0.8, t=0.65, q=2.0)
    # T(0.8, 0.8) = 1 - sqrt(0.2^2 + 0.2^2) = 0.717157 (> t, kept)
    assert t_prime(0.8, 0.8, params) == pytest.approx(1 - math.sqrt(0.08))
    # T(0.7, 0.7) = 1 - sqrt(0.18) = 0.575736 < t, both > 0.5: raised to t
    assert t_norm(0.7, 0.7, 2.0) == pytest.approx(0.5757359)
    assert t_prime(0.7, 0.7, params) == pytest.approx(0.65)
    # one argument below 0.5: plain T = 1 - sqrt(0.2^2 + 0.7^2) = 0.271989
    assert t_prime(0.8, 0.3, params) == pytest.approx(0.2719890)
    # S'(0.2, 0.3) = S = sqrt(0.13) = 0.360555 > 1 - t with both < 0.5: lowered to 0.35
    assert s_prime(0.2, 0.3, params) == pytest.approx(0.35)
    assert s_prime(0.1, 0.2, params) == pytest.approx(math.sqrt(0.05))
    assert s_prime(0.8, 0.3, params) == pytest.approx(math.sqrt(0.73))
    assert s_prime(0.8, 0.9, params) == 1.0  # S is capped at 1
    # n-ary folds pairwise from the left
    assert fuzzy_and([0.8, 0.8, 0.3], params) == pytest.approx(
        t_prime(t_prime(0.8, 0.8, params), 0.3, params))
    assert fuzzy_or([0.2, 0.1, 0.9], params) == pytest.approx(
        s_prime(s_prime(0.2, 0.1, params), 0.9, params))


def test_compiled_evaluation_equals_a_direct_recursive_evaluation() -> None:
    """The generated code computes the same goal values as evaluating the network's nodes
    recursively with fuzzy_and / fuzzy_or (connect four, several parameter sets)."""
    game = _bundled("connectfour")
    network = game.network
    assert network is not None
    fluents, inputs = len(network.fluent_texts), network.inputs
    for params in PARAMETER_SETS:
        evaluator = FuzzyEvaluator(game, params)
        for state in _random_states(game, 40, seed=3):
            memo: dict[int, float] = {}

            def value(signal: int, bits: int = state.bits, memo: dict[int, float] = memo,
                      params: FuzzyParameters = params) -> float:
                if signal == TRUE:
                    return 1.0
                if signal == FALSE:
                    return 0.0
                if signal < fluents:
                    return params.p if bits >> signal & 1 else 1 - params.p
                if signal not in memo:
                    bodies = []
                    for index in network.node_bodies[signal - inputs]:
                        body = network.bodies[index]
                        literals = [value(s) for s in body.positive]
                        literals += [1 - value(s) for s in body.negative]
                        bodies.append(fuzzy_and(literals, params))
                    memo[signal] = fuzzy_or(bodies, params)
                return memo[signal]

            values = evaluator.evaluate(state)
            assert values.terminal == pytest.approx(value(network.terminal), abs=1e-9)
            for per_role, expected in zip(values.goals, network.goals, strict=True):
                for (gv, got), (gv2, signal) in zip(per_role, expected, strict=True):
                    assert gv == gv2
                    assert got == pytest.approx(value(signal), abs=1e-9)


# -- the guarantee ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "hanoi",
                                  "maze", "threeplayer", "nim", "blocksworld"])
def test_true_formulas_score_at_least_t_and_false_ones_at_most_1_minus_t(name: str) -> None:
    """For every goal and the terminal formula, over seeded random states, with several
    parameter sets, plain and with the detected structures' refinements."""
    game = _bundled(name)
    states = _random_states(game, 150, seed=11)
    structures = detect_structures(game, playouts=5, seed=1)
    for params in PARAMETER_SETS:
        for refine in (None, structures):
            wrong = _violations(game, FuzzyEvaluator(game, params, refine), states)
            assert not wrong, wrong[:3]


def test_guarantee_holds_with_order_atoms_kept_on_a_corpus_game(corpus: object) -> None:
    """god.kif's goals read the order relation ``smaller``: grounded with its atoms kept,
    the guarantee still holds (the own grounding agrees with the game's crisp truth)."""
    game = _game(str(CORPUS / "ggp-base-legacy" / "god.kif"))
    structures = detect_structures(game, playouts=3, seed=1)
    states = _random_states(game, 80, seed=5)
    for params in PARAMETER_SETS[:3]:
        evaluator = FuzzyEvaluator(game, params, structures)
        assert evaluator.graph.source == "grounding"
        assert "smaller" in evaluator.order_relations and evaluator.static_atoms > 0
        wrong = _violations(game, evaluator, states)
        assert not wrong, wrong[:3]


# -- the whole evaluation ------------------------------------------------------------------


def test_tictactoe_centre_beats_corner_beats_edge() -> None:
    """The slides' example: eval(goal xplayer 100) after (mark 2 2) > after (mark 1 1) >
    after (mark 1 2) (x and y run 1..3 in games/tictactoe.kif, so 2 2 is the centre, on 4
    lines; 1 1 a corner, on 3; 1 2 an edge, on 2), and so does h(s) for xplayer. It comes
    out with the default q = 10; with q = 2 a conjunction of two false atoms is already 0
    (T(0.2, 0.2) = 1 - sqrt(0.64 + 0.64) < 0), so all three would score 0."""
    game = _bundled("tictactoe")
    evaluator = FuzzyEvaluator(game)
    after = [game.next_state(game.initial_state, {"xplayer": move, "oplayer": "noop"})
             for move in ("(mark 2 2)", "(mark 1 1)", "(mark 1 2)")]
    goal = [evaluator.goal_value(s, "xplayer", 100) for s in after]
    assert goal[0] > goal[1] > goal[2] > 0
    value = [evaluator.value(s, "xplayer") for s in after]
    assert value[0] > value[1] > value[2] > 0


def test_a_won_terminal_state_scores_above_a_lost_one() -> None:
    """Tic-tac-toe: x's completed row is worth more to xplayer than o's completed row."""
    game = _bundled("tictactoe")
    evaluator = FuzzyEvaluator(game)
    rest = ["(cell 2 1 b)", "(cell 2 2 b)", "(cell 2 3 b)", "(cell 3 2 b)", "(cell 3 3 b)",
            "(control oplayer)"]
    won = game.state_from_fluents(["(cell 1 1 x)", "(cell 1 2 x)", "(cell 1 3 x)",
                                   "(cell 3 1 o)", *rest])
    lost = game.state_from_fluents(["(cell 1 1 o)", "(cell 1 2 o)", "(cell 1 3 o)",
                                    "(cell 3 1 x)", *rest])
    assert game.is_terminal(won) and game.is_terminal(lost)
    assert evaluator.value(won, "xplayer") > evaluator.value(lost, "xplayer")
    assert evaluator.value(lost, "oplayer") > evaluator.value(won, "oplayer")


def test_h_of_a_goal_value_prefers_terminal_when_reached_and_avoids_it_otherwise() -> None:
    """h(gv, s) = eval(goal or terminal) when goal(gv) holds (>= t in a won terminal state),
    else eval(goal and not terminal) (<= 1 - t); h(s) = sum h(gv) gv/100 / sum gv."""
    game = _bundled("tictactoe")
    params = FuzzyParameters()
    evaluator = FuzzyEvaluator(game, params)
    won = game.state_from_fluents(["(cell 1 1 x)", "(cell 2 2 x)", "(cell 3 3 x)",
                                   "(cell 1 2 o)", "(cell 1 3 o)", "(control oplayer)"])
    assert evaluator.formula(won, "xplayer", 100) >= params.t
    assert evaluator.formula(won, "xplayer", 0) <= 1 - params.t
    expected = sum(evaluator.formula(won, "xplayer", gv) * gv for gv in (0, 50, 100))
    assert evaluator.value(won, "xplayer") == pytest.approx(expected / 150)
    assert evaluator.values(won)["xplayer"] == pytest.approx(expected / 150)


def test_without_a_network_or_beyond_the_size_bound_it_is_a_resource_limit() -> None:
    """A game on the clingo backend has no network; a tiny gate bound is exceeded."""
    clingo_game = Game.from_file(GAMES / "tictactoe.kif", backend="clingo")
    with pytest.raises(ResourceLimitError) as caught:
        FuzzyEvaluator(clingo_game)
    assert (caught.value.bound, caught.value.reason) == ("size", "no-network")
    with pytest.raises(ResourceLimitError) as caught:
        FuzzyEvaluator(_bundled("connectfour"), max_gates=20)
    assert (caught.value.bound, caught.value.reason, caught.value.limit) == ("size", "gates", 20)


def test_unknown_role_is_refused() -> None:
    """Asking for a role the game does not have raises ValueError naming the roles."""
    with pytest.raises(ArgumentError) as caught:
        FuzzyEvaluator(_bundled("tictactoe")).value(_bundled("tictactoe").initial_state, "x")
    assert (caught.value.argument, caught.value.value) == ("role", "x")
    assert caught.value.allowed == ("xplayer", "oplayer")


# -- refinements ---------------------------------------------------------------------------


def test_refinement_formulas_on_hand_computed_numbers() -> None:
    """The order, board and quantity atom values of the module docstring."""
    params = FuzzyParameters(p=0.8, t=0.6, q=2.0)
    chain = Ordering("succ", ("1", "2", "3", "4", "5"))
    assert order_atom_value(True, "1", "4", chain, params) == pytest.approx(0.6 + 0.4 * 3 / 5)
    assert order_atom_value(False, "4", "1", chain, params) == pytest.approx(0.4 - 0.4 * 3 / 5)
    assert order_atom_value(False, "2", "2", chain, params) == pytest.approx(0.4)
    assert board_atom_value(0.25, params) == pytest.approx(0.3)
    assert quantity_atom_value(2, 5, params) == pytest.approx(0.4 - 0.4 * 2 / 5)


def test_a_total_order_without_successor_base_gets_its_own_chain() -> None:
    """``greater`` over 3 > 2 > 1 written as facts orders its domain; a partial order does
    not."""
    greater = OrderRelation("greater", frozenset({("3", "2"), ("3", "1"), ("2", "1")}), None)
    chain = chain_of_total_order(greater)
    assert chain is not None and chain.elements == ("3", "2", "1")
    partial = OrderRelation("sub", frozenset({("a", "b"), ("a", "c")}), None)
    assert chain_of_total_order(partial) is None


def test_ordered_board_a_pawn_closer_to_the_goal_row_scores_higher() -> None:
    """Breakthrough: white's goal needs a white pawn on row 5. With the ordered board a pawn
    on row 4 makes eval(goal white 100) higher than a pawn on row 1; plainly both score the
    same (every row-5 atom is just false)."""
    game = _bundled("breakthrough")
    succ = Ordering("succ", ("1", "2", "3", "4", "5"))
    board = Board("cell", 3, (0, 1), (2,), (succ, succ), 25, ("white", "black"))
    structures = Structures(successors=(succ,), boards=(board,))
    near = game.state_from_fluents(["(cell 3 4 white)", "(cell 1 5 black)",
                                    "(control white)"])
    far = game.state_from_fluents(["(cell 3 1 white)", "(cell 1 5 black)",
                                   "(control white)"])
    refined = FuzzyEvaluator(game, structures=structures)
    plain = FuzzyEvaluator(game)
    assert refined.goal_value(near, "white", 100) > refined.goal_value(far, "white", 100)
    assert plain.goal_value(near, "white", 100) == plain.goal_value(far, "white", 100)
    assert refined.value(near, "white") > refined.value(far, "white")


def test_board_atom_value_is_the_mean_distance_formula() -> None:
    """A false board atom is worth (1 - t)(1 - d), d the mean over the pieces of the mean
    normalised coordinate distance: (cell 3 5 white) with white pawns on (3, 4) and (1, 1):
    d = ((0 + 1/5)/2 + (2/5 + 4/5)/2) / 2 = 0.35."""
    game = _bundled("breakthrough")
    succ = Ordering("succ", ("1", "2", "3", "4", "5"))
    board = Board("cell", 3, (0, 1), (2,), (succ, succ), 25)
    params = FuzzyParameters()
    evaluator = FuzzyEvaluator(game, params, Structures(boards=(board,)))
    state = game.state_from_fluents(["(cell 3 4 white)", "(cell 1 1 white)",
                                     "(control white)"])
    fluent = game.fluents.index("(cell 3 5 white)")
    assert evaluator.atom_value(state, fluent) == pytest.approx((1 - params.t) * (1 - 0.35))


def test_quantity_the_gold_closer_to_its_goal_cell_scores_higher() -> None:
    """Maze: goal 100 needs (gold a). Read as a quantity over the chain a, b, c, d, gold
    in b makes eval(goal robot 100) higher than gold in c; plainly they are equal."""
    game = _bundled("maze")
    chain = Ordering("nextcell", ("a", "b", "c", "d"))
    structures = Structures(quantities=(Quantity("gold", 1, (), 0, chain),))
    common = ["(cell a)", "(step 3)"]
    near = game.state_from_fluents(["(gold b)", *common])
    far = game.state_from_fluents(["(gold c)", *common])
    refined = FuzzyEvaluator(game, structures=structures)
    plain = FuzzyEvaluator(game)
    assert refined.goal_value(near, "robot", 100) > refined.goal_value(far, "robot", 100)
    assert plain.goal_value(near, "robot", 100) == plain.goal_value(far, "robot", 100)
    assert refined.value(near, "robot") > refined.value(far, "robot")


def test_order_atoms_are_kept_and_a_count_closer_to_the_bound_scores_higher() -> None:
    """A counting game with goal 100 iff (less 3 ?n): with the order relation kept as
    atoms, eval(goal 100) rises with the count 0 < 1 < 2 < 3 (less(3, n) is less false the
    closer n is to 3), and reaches >= t at 4; plainly the counts 0..3 score the same."""
    game = Game.from_gdl(COUNTER, backend="propnet")
    chain = Ordering("succ", ("0", "1", "2", "3", "4", "5"))
    pairs = frozenset((a, b) for i, a in enumerate(chain.elements)
                      for b in chain.elements[i + 1:])
    structures = Structures(successors=(chain,),
                            orders=(OrderRelation("less", pairs, chain),))
    params = FuzzyParameters()
    refined = FuzzyEvaluator(game, params, structures)
    assert refined.graph.source == "grounding" and refined.order_relations == ("less",)
    plain = FuzzyEvaluator(game, params)
    states = [game.state_from_fluents([f"(count {n})"]) for n in range(5)]
    scores = [refined.goal_value(s, "counter", 100) for s in states]
    assert scores[0] < scores[1] < scores[2] < scores[3] <= 1 - params.t < params.t <= scores[4]
    flat = {plain.goal_value(s, "counter", 100) for s in states[:4]}
    assert len(flat) == 1
    assert refined.value(states[3], "counter") > refined.value(states[0], "counter")


# A game whose goal reads a recursive relation (reachability over edges added by moves).
LINKS = """
(role builder)
(node a) (node b) (node c) (node d)
(<= (legal builder (link ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y)
    (not (true (edge ?x ?y))))
(legal builder wait)
(<= (next (edge ?x ?y)) (does builder (link ?x ?y)))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (reach ?x ?y) (true (edge ?x ?y)))
(<= (reach ?x ?z) (true (edge ?x ?y)) (reach ?y ?z))
(<= (goal builder 100) (reach a d))
(<= (goal builder 0) (not (reach a d)))
(<= terminal (reach a d))
(<= terminal (true (step 6)))
"""


def test_recursive_components_get_their_crisp_value_and_keep_the_guarantee() -> None:
    """Reachability is a positive cycle between ground atoms: those nodes are worth p or
    1 - p by the crisp least fixpoint, and the guarantee holds over random states."""
    game = Game.from_gdl(LINKS, backend="propnet")
    params = FuzzyParameters()
    evaluator = FuzzyEvaluator(game, params)
    assert any(recursive for _, recursive in evaluator.graph.components)
    states = _random_states(game, 200, seed=2)
    assert any(game.is_terminal(s) for s in states)
    assert not _violations(game, evaluator, states)
    linked = game.state_from_fluents(["(edge a b)", "(edge b a)", "(edge b d)", "(step 2)"])
    assert evaluator.goal_value(linked, "builder", 100) == pytest.approx(params.p)
