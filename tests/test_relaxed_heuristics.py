"""Relaxed-planning heuristics (docs/semantics/heuristics.md): h_max, h_add, h_FF with its plan,
f_JO and the extended FF heuristic reproduce the worked numbers of the seeds on real games."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest

from reasoner.arguments import ArgumentError
from reasoner.core.values import State
from reasoner.engine.game import Game
from reasoner.errors import ResourceLimitError
from reasoner.heuristics.distances import GoalDistances, plan_texts
from reasoner.heuristics.planning import (
    INFINITY,
    LayeredGraph,
    PlanningTask,
    cost_distances,
    extended_ff,
    formula_cost,
)
from reasoner.heuristics.relaxed import RelaxedGame, relaxed_network
from tests.conftest import CORPUS, bundled

# The rules example of docs/semantics/heuristics.md (Bercher 1.4.4): every rule costs 1.
RULES_EXAMPLE = [(["A"], "B", 1), (["A"], "C", 1), (["A"], "D", 1),
                 (["B", "C"], "Goal", 1), (["D"], "Goal", 1)]


def _distances(game: Game, world_cost: int = 0) -> GoalDistances:
    return GoalDistances(game, RelaxedGame(relaxed_network(game), world_cost=world_cost))


def _corpus_game(name: str) -> Game:
    path = CORPUS / "ggp-repository" / name
    if not path.is_file():
        pytest.skip(f"corpus file {path} is absent")
    return Game.from_file(path)


def _ttt_cell(cell: str) -> str:
    """The tic-tac-toe cells of the worked examples in docs/semantics/heuristics.md (a1 a
    corner, a2 below it) as games/tictactoe.kif moves: the letter is the first coordinate,
    the digit the second (the numbers are symmetric under swapping the two)."""
    return f"(mark {'abc'.index(cell[0]) + 1} {cell[1]})"


def _ttt_play(game: Game, state: State, *cells: str) -> State:
    """Marks the cells in turn, X first (the other role plays noop)."""
    x, o = game.roles
    for number, cell in enumerate(cells):
        mover, other = (x, o) if game.legal_moves(state, x)[0].text != "noop" else (o, x)
        assert number % 2 == 0 or mover == o
        state = game.next_state(state, {mover: game.move(mover, _ttt_cell(cell)),
                                        other: game.move(other, "noop")})
    return state


def test_rules_example_distances() -> None:
    """Rules {A->B, A->C, A->D, (B,C)->Goal, D->Goal} from {A}: h_max 2, h_add 2, h_FF 2."""
    task, fact = PlanningTask.from_rules(RULES_EXAMPLE)
    start, goal = [fact["A"]], [fact["Goal"]]
    assert formula_cost(cost_distances(task, start, additive=False), goal, additive=False) == 2
    assert formula_cost(cost_distances(task, start, additive=True), goal, additive=True) == 2
    assert LayeredGraph(task, start).extract(goal).value == 2


def test_rules_example_plan_prefers_the_achiever_with_fewer_preconditions() -> None:
    """h_FF takes D->Goal (one precondition) over (B,C)->Goal: the plan is [A->D, D->Goal];
    the other achiever would have cost 3, as a task without D->Goal shows."""
    task, fact = PlanningTask.from_rules(RULES_EXAMPLE)
    plan = LayeredGraph(task, [fact["A"]]).extract([fact["Goal"]])
    assert [task.rules[r].label for _, r in plan.rules] == ["A->D", "D->Goal"]
    without, fact = PlanningTask.from_rules(RULES_EXAMPLE[:4])
    assert LayeredGraph(without, [fact["A"]]).extract([fact["Goal"]]).value == 3


def test_layers_of_the_rules_example() -> None:
    """S0 = {A}, S1 = {A, B, C, D}, S2 adds Goal."""
    task, fact = PlanningTask.from_rules(RULES_EXAMPLE)
    graph = LayeredGraph(task, [fact["A"]])
    assert {name: graph.fact_level(number) for name, number in fact.items()} == {
        "A": 0, "B": 1, "C": 1, "D": 1, "Goal": 2}


def test_extended_ff_example_is_eleven() -> None:
    """docs/semantics/heuristics.md (two-player FF): RULES_1 = {1->2..1->8, 9->10}, RULES_2 = {1->2,
    1->3, 8->9}, start {1}, goal {1..10}, player 1 first: 8 against 1 selected rules, rebalanced to
    6 against 3, value 2*6 - 1 = 11."""
    rules = [(["1"], str(n), 1, 0) for n in range(2, 9)] + [(["9"], "10", 1, 0)]
    rules += [(["1"], "2", 1, 1), (["1"], "3", 1, 1), (["8"], "9", 1, 1)]
    task, fact = PlanningTask.from_rules(rules)

    def shared(rule: int, player: int) -> bool:
        mine = task.rules[rule]
        return any(r.owner == player and (r.pre, r.effect) == (mine.pre, mine.effect)
                   for r in task.rules)

    goal = [fact[str(n)] for n in range(1, 11)]
    value, plan = extended_ff(task, [fact["1"]], [goal], mover=0, other=1, shared_rule=shared)
    assert value == 11
    assert len(plan.rules) == 9
    unbalanced, _ = extended_ff(task, [fact["1"]], [goal], mover=0, other=1,
                                shared_rule=lambda rule, player: False)
    assert unbalanced == 15  # 8 rules of player 1 need 7 of player 2 in between


def test_tictactoe_first_moves_all_score_25_thirds() -> None:
    """f_JO after each of X's nine first moves: 1/2 * 50 + 1/3 * (-50) = 25/3 (a win two X
    moves away, a loss three O moves away, the draw worth 0)."""
    game = bundled("tictactoe")
    distances = _distances(game)
    x = game.roles[0]
    values = {cell: distances.f_jo(_ttt_play(game, game.initial_state, cell), x)[0]
              for cell in (f"{c}{r}" for c in "abc" for r in "123")}
    assert all(v == pytest.approx(float(Fraction(25, 3))) for v in values.values()), values


def test_tictactoe_after_a1_b2() -> None:
    """After 1. Xa1 Ob2, X's a2, a3, b1, c1 score 50/1 - 50/2 = 25; b3, c2, c3 score 0."""
    game = bundled("tictactoe")
    distances = _distances(game)
    start = _ttt_play(game, game.initial_state, "a1", "b2")
    values = {cell: distances.f_jo(_ttt_play(game, start, cell), game.roles[0])[0]
              for cell in ("a2", "a3", "b1", "c1", "b3", "c2", "c3")}
    assert values == pytest.approx({"a2": 25, "a3": 25, "b1": 25, "c1": 25,
                                    "b3": 0, "c2": 0, "c3": 0})


def test_tictactoe_blocks_after_b1_c1() -> None:
    """After 2. Xb1 Oc1: a2 = 0, a3 = 25 (it blocks O's diagonal), b3 = c2 = c3 = -25."""
    game = bundled("tictactoe")
    distances = _distances(game)
    start = _ttt_play(game, game.initial_state, "a1", "b2", "b1", "c1")
    values = {cell: distances.f_jo(_ttt_play(game, start, cell), game.roles[0])[0]
              for cell in ("a2", "a3", "b3", "c2", "c3")}
    assert values == pytest.approx({"a2": 0, "a3": 25, "b3": -25, "c2": -25, "c3": -25})
    assert max(values, key=values.__getitem__) == "a3"


def test_world_cost_one_makes_the_turn_switch_a_step() -> None:
    """With the world's own changes costing 1, X's win after its first move is three away
    (the turn switch back to X is paid), not two."""
    game = bundled("tictactoe")
    state = _ttt_play(game, game.initial_state, "a1")
    assert _distances(game).distance(state, "xplayer", "hff")[0] == 2
    assert _distances(game, world_cost=1).distance(state, "xplayer", "hff")[0] == 3


@pytest.mark.parametrize("source", [pytest.param("corpus", marks=pytest.mark.corpus), "bundled"])
def test_maze_plan_is_move_grab_drop_then_move_drop(source: str) -> None:
    """ggp.org's maze (and ours): the first relaxed plan to the goal worth 100 is
    [move, grab, drop] (h_FF 3, ``move`` paid once however far the robot walks); it stays
    3 after moving; after ``grab`` it is [move, drop] in some order, 2."""
    game = _corpus_game("maze.kif") if source == "corpus" else bundled("maze")
    distances = _distances(game)
    robot = game.roles[0]
    state = game.initial_state
    value, plan = distances.distance(state, robot, "hff", 100, plan=True)
    assert (value, plan_texts(plan)) == (3, ["move", "grab", "drop"])
    state = game.next_state(state, {robot: game.move(robot, "move")})
    assert distances.distance(state, robot, "hff", 100)[0] == 3
    state = game.next_state(state, {robot: game.move(robot, "move")})
    state = game.next_state(state, {robot: game.move(robot, "grab")})
    value, plan = distances.distance(state, robot, "hff", 100, plan=True)
    assert value == 2 and sorted(plan_texts(plan)) == ["drop", "move"]


@pytest.mark.parametrize(("source", "unstack", "stack"), [
    pytest.param("corpus", "(u c a)", "(s b c)", marks=pytest.mark.corpus),
    ("bundled", "(unstack c a)", "(stack b c)")])
def test_blocksworld_prefers_unstacking(source: str, unstack: str, stack: str) -> None:
    """Simple blocksworld: after unstack(c,a) h_FF = 2 [stack(b,c), stack(a,b)]; after
    stack(b,c) h_FF = 3 [unstack(b,c), unstack(c,a), stack(a,b)]."""
    game = _corpus_game("blocks.kif") if source == "corpus" else bundled("blocksworld")
    distances = _distances(game)
    robot = game.roles[0]
    after_unstack = game.next_state(game.initial_state, {robot: game.move(robot, unstack)})
    after_stack = game.next_state(game.initial_state, {robot: game.move(robot, stack)})
    value, plan = distances.distance(after_unstack, robot, "hff", plan=True)
    assert value == 2 and sorted(plan_texts(plan)) == sorted(
        [stack, stack.replace("b c", "a b")])
    value, plan = distances.distance(after_stack, robot, "hff", plan=True)
    assert value == 3 and sorted(plan_texts(plan)) == sorted(
        [unstack.replace("c a", "b c"), unstack, stack.replace("b c", "a b")])


def test_extended_ff_on_tictactoe_counts_the_opponents_moves() -> None:
    """From the empty board X needs three marks; O moves in between, so the extended
    heuristic says 2*3 - 1 = 5 plies. O's marks are not X's (same text, other effects), so
    nothing is rebalanced."""
    game = bundled("tictactoe")
    value, plan = _distances(game).extended(game.initial_state, "xplayer", plan=True)
    assert value == 5
    assert [step.role for step in plan] == ["xplayer"] * 3


def test_hmax_never_exceeds_hff_and_plans_pay_what_they_say() -> None:
    """On sampled states of several games, h_max <= h_FF (a relaxed plan pays at least for
    its costliest fact) and h_FF is the summed cost of the plan's paid rules."""
    rng = random.Random(7)
    for name in ("tictactoe", "connectfour", "breakthrough", "maze", "nim"):
        game = bundled(name)
        distances = _distances(game)
        state = game.initial_state
        for _ in range(12):
            info = game.info(state)
            if info.terminal:
                break
            for role in game.roles:
                h_max = distances.distance(state, role, "hmax")[0]
                h_ff, plan = distances.distance(state, role, "hff", plan=True)
                assert h_max <= h_ff, (name, role)
                if h_ff != INFINITY:
                    assert h_ff == sum(step.cost for step in plan)
            joint = {role: rng.choice(game.legal_moves(state, role)) for role in game.roles}
            state = game.next_state(state, joint)


def test_terminal_state_fjo_is_the_goal_shifted() -> None:
    """In a terminal state f_JO is g(s) - 50: X's completed top row scores 50 for X and
    -50 for O."""
    game = bundled("tictactoe")
    distances = _distances(game)
    state = _ttt_play(game, game.initial_state, "a1", "b2", "b1", "c3", "c1")
    assert game.is_terminal(state)
    assert distances.f_jo(state, "xplayer")[0] == 50
    assert distances.f_jo(state, "oplayer")[0] == -50


def test_unknown_role_or_goal_value_is_refused_with_the_allowed_ones() -> None:
    """A role or goal value the game does not have is a ValueError naming the allowed ones."""
    game = bundled("tictactoe")
    distances = _distances(game)
    with pytest.raises(ArgumentError) as caught:
        distances.distance(game.initial_state, "nobody", "hff")
    assert (caught.value.argument, caught.value.allowed) == ("role", ("xplayer", "oplayer"))
    with pytest.raises(ArgumentError) as caught:
        distances.distance(game.initial_state, "xplayer", "hff", 42)
    assert (caught.value.argument, caught.value.value, caught.value.allowed) == (
        "value", 42, (0, 50, 100))
    with pytest.raises(ArgumentError) as caught:
        distances.distance(game.initial_state, "xplayer", "h_ff")
    assert (caught.value.argument, caught.value.allowed) == ("kind", ("hmax", "hadd", "hff"))


def test_view_over_its_rule_bound_is_a_resource_limit() -> None:
    """A game whose relaxed view would exceed the rule bound is refused with
    ResourceLimitError (RESOURCE_EXHAUSTED on the service)."""
    game = bundled("connectfour")
    with pytest.raises(ResourceLimitError) as caught:
        RelaxedGame(relaxed_network(game), max_rules=100)
    assert (caught.value.reason, caught.value.limit) == ("relaxed-view", 100)


def test_view_is_built_for_a_game_on_the_clingo_backend() -> None:
    """A game loaded on clingo gets a network built for its relaxed view, with the same
    distances as on the network backend."""
    path = Path(__file__).resolve().parents[1] / "games" / "tictactoe.kif"
    on_clingo = Game.from_file(path, backend="clingo")
    assert on_clingo.network is None
    state = _ttt_play(on_clingo, on_clingo.initial_state, "a1")
    assert _distances(on_clingo).f_jo(state, "xplayer")[0] == pytest.approx(25 / 3)


@pytest.mark.corpus
def test_pieces_vanish_only_by_moves_that_take_them() -> None:
    """ggp.org's 8x8 breakthrough keeps a piece by a frame rule "some move is made
    elsewhere". Were each negated move literal free, every black piece could vanish while
    nobody moves and white's win ("black has no pieces") would be 0 away. Deletions come
    from single moves, so the win is a pawn's six steps to the last row, and the relaxed
    plan is white's moves alone."""
    game = _corpus_game("breakthrough.kif")
    value, plan = _distances(game).distance(game.initial_state, "white", "hff", plan=True)
    assert value == 6
    assert {step.role for step in plan} == {"white"}
    assert [step.move.strip("()").split()[3] for step in plan] == ["3", "4", "5", "6", "7", "8"]
