"""Facts about the games lightsout, chomp, nim, rps, threeplayer, cargo and breakthrough.

Every expected value here comes from outside the reasoner: hand-computed move lists and
successor states, game theory (nim-sum, the chomp mirror strategy), hand tables (rock, paper,
scissors) or a strategy written in this file that is checked against every reply of the
opponent by a small exhaustive search over the reasoner's states.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path

import pytest

from reasoner import Game, State

GAMES = Path(__file__).resolve().parent.parent / "games"


@cache
def load(name: str) -> Game:
    """The game games/<name>.kif, loaded once per test session."""
    return Game.from_file(str(GAMES / f"{name}.kif"))


def texts(game: Game, state: State, role: str) -> set[str]:
    """The legal moves of role as GDL texts."""
    return {move.text for move in game.legal_moves(state, role)}


def mover(game: Game, state: State) -> str:
    """The role in control of a turn-taking state (the only one with a non-noop move)."""
    movers = [r for r in game.roles if texts(game, state, r) != {"noop"}]
    assert len(movers) == 1, movers
    return movers[0]


def play(game: Game, state: State, role: str, move: str) -> State:
    """The successor when role plays move and every other role plays noop."""
    joint = {r: (move if r == role else "noop") for r in game.roles}
    return game.next_state(state, joint)


def play_line(game: Game, state: State, line: Iterable[tuple[str, str]]) -> State:
    """Plays a sequence of (role, move) turns, asserting none of them ends the game early."""
    for role, move in line:
        assert not game.is_terminal(state)
        state = play(game, state, role, move)
    return state


def controller(state: State) -> str:
    """The role named by the (control ?r) fluent of a state."""
    (role,) = [f[len("(control ") : -1] for f in state.fluents if f.startswith("(control ")]
    return role


def mover_wins(game: Game, state: State, memo: dict[State, bool]) -> bool:
    """Minimax for two-player turn-taking 100/0 games with a (control ?r) fluent.

    True when the role in control can force goal 100 for itself (in a terminal state: when
    it has 100 already).
    """
    if state in memo:
        return memo[state]
    role = controller(state)
    if game.is_terminal(state):
        result = game.goals(state)[role] == 100
    else:
        assert mover(game, state) == role
        # a list, not a generator: every child is solved, so memo covers all reachable states
        children = [
            mover_wins(game, play(game, state, role, move.text), memo)
            for move in game.legal_moves(state, role)
        ]
        result = not all(children)
    memo[state] = result
    return result


def strategy_wins(
    game: Game,
    state: State,
    hero: str,
    strategy: Callable[[State], str],
    memo: dict[State, int],
) -> int:
    """Plays strategy for hero against every move of the opponent (AND/OR search).

    Returns the number of moves until the end in the worst case and asserts that every
    terminal state reached gives hero 100.
    """
    if state in memo:
        return memo[state]
    if game.is_terminal(state):
        assert game.goals(state)[hero] == 100, sorted(state.fluents)
        memo[state] = 0
        return 0
    role = mover(game, state)
    if role == hero:
        move = strategy(state)
        assert move in texts(game, state, hero), (move, sorted(state.fluents))
        depth = 1 + strategy_wins(game, play(game, state, hero, move), hero, strategy, memo)
    else:
        depth = 1 + max(
            strategy_wins(game, play(game, state, role, m.text), hero, strategy, memo)
            for m in game.legal_moves(state, role)
        )
    memo[state] = depth
    return depth


# ---------------------------------------------------------------------------- lights out


def lights(*cells: tuple[int, int]) -> set[str]:
    """Fluent texts of the lit cells."""
    return {f"(lit {x} {y})" for x, y in cells}


def test_lightsout_initial_state_and_moves() -> None:
    """Lights out starts with the diagonal lit, step 0, and offers all 9 presses."""
    game = load("lightsout")
    s = game.initial_state
    assert game.roles == ("player",)
    assert set(s.fluents) == lights((1, 1), (2, 2), (3, 3)) | {"(step 0)"}
    assert texts(game, s, "player") == {
        f"(press {x} {y})" for x in range(1, 4) for y in range(1, 4)
    }
    assert not game.is_terminal(s)


def test_lightsout_press_toggles_cell_and_neighbours() -> None:
    """Pressing the centre toggles it and its 4 neighbours; a corner toggles 3 cells."""
    game = load("lightsout")
    s0 = game.initial_state
    centre = play(game, s0, "player", "(press 2 2)")
    assert set(centre.fluents) == lights((1, 1), (3, 3), (1, 2), (2, 1), (3, 2), (2, 3)) | {
        "(step 1)"
    }
    corner = play(game, s0, "player", "(press 1 1)")
    assert set(corner.fluents) == lights((2, 1), (1, 2), (2, 2), (3, 3)) | {"(step 1)"}
    edge = play(game, s0, "player", "(press 2 1)")
    # (2,1) toggles (1,1), (2,1), (3,1), (2,2)
    assert set(edge.fluents) == lights((2, 1), (3, 1), (3, 3)) | {"(step 1)"}


def test_lightsout_documented_solution_in_every_order() -> None:
    """The documented three presses on the diagonal solve the puzzle in any order (goal 100)."""
    game = load("lightsout")
    presses = ["(press 1 1)", "(press 2 2)", "(press 3 3)"]
    for order in itertools.permutations(presses):
        s = game.initial_state
        for press in order:
            assert not game.is_terminal(s)
            s = play(game, s, "player", press)
        assert set(s.fluents) == {"(step 3)"}
        assert game.is_terminal(s)
        assert game.goals(s) == {"player": 100}


def test_lightsout_no_solution_with_fewer_presses() -> None:
    """No sequence of one or two presses switches all lights off (3 is the minimum)."""
    game = load("lightsout")
    layer = {game.initial_state}
    for _ in range(2):
        layer = {
            play(game, s, "player", m.text) for s in layer for m in game.legal_moves(s, "player")
        }
        for s in layer:
            assert not game.is_terminal(s)
            assert game.goals(s) == {"player": 0}


def test_lightsout_step_limit() -> None:
    """After 8 presses the game ends; pressing one cell 8 times leaves the lights, goal 0."""
    game = load("lightsout")
    s = game.initial_state
    for _ in range(8):
        s = play_line(game, s, [("player", "(press 1 2)")])
    assert set(s.fluents) == lights((1, 1), (2, 2), (3, 3)) | {"(step 8)"}
    assert game.is_terminal(s)
    assert game.goals(s) == {"player": 0}


# ---------------------------------------------------------------------------- chomp


def squares(cells: Iterable[tuple[int, int]]) -> set[str]:
    """Fluent texts of chocolate squares."""
    return {f"(square {x} {y})" for x, y in cells}


FULL_BAR = [(x, y) for x in range(1, 5) for y in range(1, 5)]


def test_chomp_first_moves_equal_squares() -> None:
    """Chomp's first player may eat any of the 16 squares; the second player only waits."""
    game = load("chomp")
    s = game.initial_state
    assert game.roles == ("p1", "p2")
    assert set(s.fluents) == squares(FULL_BAR) | {"(control p1)"}
    assert texts(game, s, "p1") == {f"(eat {x} {y})" for x, y in FULL_BAR}
    assert len(game.legal_moves(s, "p1")) == 16
    assert texts(game, s, "p2") == {"noop"}


def test_chomp_eat_removes_upper_right_block() -> None:
    """Eating (3,2) removes every square (a,b) with a >= 3 and b >= 2 (6 squares)."""
    game = load("chomp")
    s = play(game, game.initial_state, "p1", "(eat 3 2)")
    left = [(x, y) for x, y in FULL_BAR if not (x >= 3 and y >= 2)]
    assert len(left) == 10
    assert set(s.fluents) == squares(left) | {"(control p2)"}
    assert texts(game, s, "p2") == {f"(eat {x} {y})" for x, y in left}


def test_chomp_eating_poison_loses() -> None:
    """Whoever eats the poisoned square (1,1) loses: 0 for the eater, 100 for the other."""
    game = load("chomp")
    s = play(game, game.initial_state, "p1", "(eat 1 1)")
    assert set(s.fluents) == {"(control p2)"}
    assert game.is_terminal(s)
    assert game.goals(s) == {"p1": 0, "p2": 100}
    s = play_line(game, game.initial_state, [("p1", "(eat 2 1)"), ("p2", "(eat 1 2)")])
    assert set(s.fluents) == squares([(1, 1)]) | {"(control p1)"}
    s = play(game, s, "p1", "(eat 1 1)")
    assert game.is_terminal(s)
    assert game.goals(s) == {"p1": 0, "p2": 100}


def test_chomp_first_player_wins_and_centre_move_wins() -> None:
    """Strategy stealing: the opening position is a first-player win, and (eat 2 2) wins."""
    game = load("chomp")
    memo: dict[State, bool] = {}
    s0 = game.initial_state
    assert mover_wins(game, s0, memo)
    after = play(game, s0, "p1", "(eat 2 2)")
    assert not mover_wins(game, after, memo)
    # there are C(8, 4) = 70 shapes of a bar (staircases in 4 x 4) including the empty one
    shapes = {frozenset(f for f in s.fluents if f.startswith("(square")) for s in memo}
    assert len(shapes) == 70


def test_chomp_mirror_strategy_after_centre_move() -> None:
    """After (eat 2 2), mirroring (eat 1 k) <-> (eat k 1) wins against every reply."""
    game = load("chomp")

    def mirror(state: State) -> str:
        fl = state.fluents
        column = sum(1 for y in range(2, 5) if f"(square 1 {y})" in fl)
        row = sum(1 for x in range(2, 5) if f"(square {x} 1)" in fl)
        assert column != row, "mirror position must be unbalanced for the opponent"
        if column > row:
            return f"(eat 1 {row + 2})"
        return f"(eat {column + 2} 1)"

    s = play(game, game.initial_state, "p1", "(eat 2 2)")
    memo: dict[State, int] = {}
    depth = strategy_wins(game, s, "p1", mirror, memo)
    # longest game: the opponent shortens an arm by one square each time, 3 + 3 squares,
    # then has to eat the poison: 7 moves after (eat 2 2)
    assert depth == 7


# ---------------------------------------------------------------------------- nim


def heaps_of(state: State) -> dict[str, int]:
    """Heap sizes from the (heap ?h ?n) fluents."""
    out: dict[str, int] = {}
    for f in state.fluents:
        if f.startswith("(heap "):
            _, name, size = f[1:-1].split()
            out[name] = int(size)
    return out


def nim_sum(heaps: dict[str, int]) -> int:
    """XOR of all heap sizes."""
    total = 0
    for size in heaps.values():
        total ^= size
    return total


def test_nim_initial_moves() -> None:
    """Nim's first player has 3 + 4 + 5 = 12 moves (take 1..n from a heap of n)."""
    game = load("nim")
    s = game.initial_state
    assert set(s.fluents) == {"(heap a 3)", "(heap b 4)", "(heap c 5)", "(control p1)"}
    expected = {f"(take a {n})" for n in range(1, 4)}
    expected |= {f"(take b {n})" for n in range(1, 5)}
    expected |= {f"(take c {n})" for n in range(1, 6)}
    assert texts(game, s, "p1") == expected
    assert len(expected) == 12
    assert texts(game, s, "p2") == {"noop"}


def test_nim_successor() -> None:
    """Taking 4 from heap c leaves heaps 3, 4, 1 and gives control to p2."""
    game = load("nim")
    s = play(game, game.initial_state, "p1", "(take c 4)")
    assert set(s.fluents) == {"(heap a 3)", "(heap b 4)", "(heap c 1)", "(control p2)"}
    assert len(game.legal_moves(s, "p2")) == 3 + 4 + 1


def test_nim_last_token_wins() -> None:
    """Normal play: the player who takes the last token gets 100, the other 0."""
    game = load("nim")
    s = game.state_from_fluents(["(heap a 0)", "(heap b 0)", "(heap c 2)", "(control p2)"])
    assert not game.is_terminal(s)
    end = play(game, s, "p2", "(take c 2)")
    assert set(end.fluents) == {"(heap a 0)", "(heap b 0)", "(heap c 0)", "(control p1)"}
    assert game.is_terminal(end)
    assert game.goals(end) == {"p1": 0, "p2": 100}


def test_nim_sum_strategy_wins_against_every_reply() -> None:
    """p1 wins by always moving to nim-sum 0 (first move (take a 2)), whatever p2 does."""
    game = load("nim")

    def zero_nim_sum(state: State) -> str:
        heaps = heaps_of(state)
        total = nim_sum(heaps)
        assert total != 0
        for name, size in sorted(heaps.items()):
            if size ^ total < size:
                return f"(take {name} {size - (size ^ total)})"
        raise AssertionError("a nonzero nim-sum always has a zeroing move")

    assert zero_nim_sum(game.initial_state) == "(take a 2)"
    memo: dict[State, int] = {}
    depth = strategy_wins(game, game.initial_state, "p1", zero_nim_sum, memo)
    assert depth <= 12


def test_nim_minimax_matches_nim_sum() -> None:
    """In every reachable position the mover wins exactly when the nim-sum is nonzero."""
    game = load("nim")
    memo: dict[State, bool] = {}
    assert mover_wins(game, game.initial_state, memo)
    for state, wins in memo.items():
        assert wins == (nim_sum(heaps_of(state)) != 0), sorted(state.fluents)
    # every heap triple (a, b, c) with a <= 3, b <= 4, c <= 5 is reachable: 4 * 5 * 6 = 120
    assert len({frozenset(heaps_of(s).items()) for s in memo}) == 120
    s0 = game.initial_state
    winning = {
        m.text
        for m in game.legal_moves(s0, "p1")
        if not mover_wins(game, play(game, s0, "p1", m.text), memo)
    }
    assert winning == {"(take a 2)"}


# ---------------------------------------------------------------------------- rps


HANDS = ("rock", "paper", "scissors")
BEATS = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}


def rps_round(game: Game, state: State, a: str, b: str) -> State:
    """One simultaneous round: p1 shows a, p2 shows b."""
    return game.next_state(state, {"p1": a, "p2": b})


def test_rps_nine_joint_moves_and_payoff_table() -> None:
    """The first round has 3 x 3 = 9 joint moves; the hand table decides who scores."""
    game = load("rps")
    s0 = game.initial_state
    assert set(s0.fluents) == {"(score p1 0)", "(score p2 0)", "(round 0)"}
    joints = game.legal_joint_moves(s0)
    assert len(joints) == 9
    assert {(j["p1"].text, j["p2"].text) for j in joints} == set(itertools.product(HANDS, HANDS))
    # hand table: (p1 hand, p2 hand) -> points after one round (p1, p2)
    table = {
        ("rock", "rock"): (0, 0),
        ("rock", "paper"): (0, 1),
        ("rock", "scissors"): (1, 0),
        ("paper", "rock"): (1, 0),
        ("paper", "paper"): (0, 0),
        ("paper", "scissors"): (0, 1),
        ("scissors", "rock"): (0, 1),
        ("scissors", "paper"): (1, 0),
        ("scissors", "scissors"): (0, 0),
    }
    for (a, b), (x, y) in table.items():
        s = rps_round(game, s0, a, b)
        assert set(s.fluents) == {f"(score p1 {x})", f"(score p2 {y})", "(round 1)"}
        assert not game.is_terminal(s)
        assert game.goals(s) == {"p1": 50, "p2": 50}


def test_rps_two_wins_end_the_match() -> None:
    """A player with two won rounds wins the match at once (100 / 0), draws in between."""
    game = load("rps")
    s = rps_round(game, game.initial_state, "rock", "paper")
    s = rps_round(game, s, "rock", "rock")
    assert not game.is_terminal(s)
    s = rps_round(game, s, "scissors", "rock")
    assert set(s.fluents) == {"(score p1 0)", "(score p2 2)", "(round 3)"}
    assert game.is_terminal(s)
    assert game.goals(s) == {"p1": 0, "p2": 100}


def test_rps_round_limit_outcomes() -> None:
    """After 5 rounds: 5 draws or 1:1 give 50/50, a 1:0 lead wins 100/0."""
    game = load("rps")
    cases = [
        ([("rock", "rock")] * 5, {"p1": 50, "p2": 50}),
        (
            [("rock", "scissors"), ("rock", "paper")] + [("paper", "paper")] * 3,
            {"p1": 50, "p2": 50},
        ),
        ([("paper", "paper")] * 4 + [("paper", "rock")], {"p1": 100, "p2": 0}),
    ]
    for rounds, goals in cases:
        s = game.initial_state
        for a, b in rounds:
            assert not game.is_terminal(s)
            s = rps_round(game, s, a, b)
        assert "(round 5)" in s.fluents
        assert game.is_terminal(s)
        assert game.goals(s) == goals


def test_rps_all_terminal_states() -> None:
    """Exhaustively: matches last at most 5 rounds; ends are 100/0 for the leader or 50/50."""
    game = load("rps")
    seen = {game.initial_state}
    frontier = [game.initial_state]
    terminals = []
    while frontier:
        s = frontier.pop()
        if game.is_terminal(s):
            terminals.append(s)
            continue
        for joint in game.legal_joint_moves(s):
            t = game.next_state(s, joint)
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    # states are (score p1, score p2, round): scores <= 2, not both 2 (the match stops at
    # the first 2), and the points won cannot exceed the rounds played (at most 5)
    expected = {
        (x, y, r)
        for r in range(6)
        for x in range(3)
        for y in range(3)
        if x + y <= r and not (x == 2 and y == 2)
    }

    def triple(s: State) -> tuple[int, int, int]:
        fl = s.fluents
        x = next(i for i in range(3) if f"(score p1 {i})" in fl)
        y = next(i for i in range(3) if f"(score p2 {i})" in fl)
        r = next(i for i in range(6) if f"(round {i})" in fl)
        return x, y, r

    assert {triple(s) for s in seen} == expected
    for s in terminals:
        x, y, r = triple(s)
        goals = game.goals(s)
        assert x == 2 or y == 2 or r == 5
        if x > y:
            assert goals == {"p1": 100, "p2": 0}
        elif y > x:
            assert goals == {"p1": 0, "p2": 100}
        else:
            assert goals == {"p1": 50, "p2": 50}


# ---------------------------------------------------------------------------- three players


ORDER = ("red", "green", "blue")


def count_of(state: State) -> int:
    """The shared counter of the race."""
    return next(i for i in range(11) if f"(count {i})" in state.fluents)


def test_threeplayer_initial_moves() -> None:
    """Red moves first with (add 1..3); green and blue only noop."""
    game = load("threeplayer")
    s = game.initial_state
    assert game.roles == ORDER
    assert set(s.fluents) == {"(count 0)", "(control red)"}
    assert texts(game, s, "red") == {"(add 1)", "(add 2)", "(add 3)"}
    assert texts(game, s, "green") == {"noop"}
    assert texts(game, s, "blue") == {"noop"}
    s = play(game, s, "red", "(add 3)")
    assert set(s.fluents) == {"(count 3)", "(control green)"}


def test_threeplayer_counter_never_exceeds_ten() -> None:
    """At 8 only +1 and +2 are legal, at 9 only +1."""
    game = load("threeplayer")
    s8 = game.state_from_fluents(["(count 8)", "(control blue)"])
    assert texts(game, s8, "blue") == {"(add 1)", "(add 2)"}
    s9 = game.state_from_fluents(["(count 9)", "(control green)"])
    assert texts(game, s9, "green") == {"(add 1)"}
    end = play(game, s9, "green", "(add 1)")
    assert game.is_terminal(end)
    assert game.goals(end) == {"red": 0, "green": 100, "blue": 0}


def test_threeplayer_all_states_and_goal_pattern() -> None:
    """All reachable states match the hand formula; every end gives 100 to the last mover only.

    After m moves the counter c satisfies m <= c <= 3m and the player to move is ORDER[m % 3],
    so the reachable (counter, player) pairs are those with ceil(c / 3) <= m <= c.
    """
    game = load("threeplayer")
    seen = {game.initial_state}
    frontier = [game.initial_state]
    while frontier:
        s = frontier.pop()
        if game.is_terminal(s):
            continue
        for joint in game.legal_joint_moves(s):
            t = game.next_state(s, joint)
            if t not in seen:
                seen.add(t)
                frontier.append(t)
    expected = {(c, ORDER[m % 3]) for c in range(11) for m in range(11) if -(-c // 3) <= m <= c}
    got = {(count_of(s), controller(s)) for s in seen}
    assert got == expected
    terminals = [s for s in seen if game.is_terminal(s)]
    assert {count_of(s) for s in terminals} == {10}
    assert len(terminals) == 3
    for s in terminals:
        goals = game.goals(s)
        last_mover = ORDER[(ORDER.index(controller(s)) - 1) % 3]
        assert goals == {r: (100 if r == last_mover else 0) for r in ORDER}
        assert sum(goals.values()) == 100
    for s in seen - set(terminals):
        assert sum(1 for r in ORDER if texts(game, s, r) != {"noop"}) == 1


# ---------------------------------------------------------------------------- breakthrough


def pawns(color: str, cells: Iterable[tuple[int, int]]) -> set[str]:
    """Fluent texts of pawns of one colour."""
    return {f"(cell {x} {y} {color})" for x, y in cells}


WHITE0 = [(x, y) for x in range(1, 6) for y in (1, 2)]
BLACK0 = [(x, y) for x in range(1, 6) for y in (4, 5)]


def test_breakthrough_initial_moves() -> None:
    """White's 5 front pawns have 5 straight and 2 * 1 + 3 * 2 = 8 diagonal moves: 13."""
    game = load("breakthrough")
    s = game.initial_state
    assert game.roles == ("white", "black")
    assert set(s.fluents) == pawns("white", WHITE0) | pawns("black", BLACK0) | {"(control white)"}
    expected = {f"(move {x} 2 {x} 3)" for x in range(1, 6)}
    expected |= {f"(move {x} 2 {u} 3)" for x in range(1, 6) for u in (x - 1, x + 1) if 1 <= u <= 5}
    assert texts(game, s, "white") == expected
    assert len(expected) == 13
    assert texts(game, s, "black") == {"noop"}


def test_breakthrough_reply_moves_and_successor() -> None:
    """After white a2-a3 black has 4 straight moves and 8 diagonal ones (one a capture)."""
    game = load("breakthrough")
    s = play(game, game.initial_state, "white", "(move 1 2 1 3)")
    white = [c for c in WHITE0 if c != (1, 2)] + [(1, 3)]
    assert set(s.fluents) == pawns("white", white) | pawns("black", BLACK0) | {"(control black)"}
    expected = {f"(move {x} 4 {x} 3)" for x in range(2, 6)}
    expected |= {f"(move {x} 4 {u} 3)" for x in range(1, 6) for u in (x - 1, x + 1) if 1 <= u <= 5}
    assert texts(game, s, "black") == expected
    assert len(expected) == 12
    assert "(move 1 4 1 3)" not in expected  # straight moves never capture


def test_breakthrough_black_breaks_through() -> None:
    """A played line: black captures twice and reaches row 1, black 100, white 0."""
    game = load("breakthrough")
    line = [
        ("white", "(move 1 2 1 3)"),
        ("black", "(move 2 4 1 3)"),  # captures the pawn on (1,3)
        ("white", "(move 5 2 5 3)"),
        ("black", "(move 1 3 2 2)"),  # captures the pawn on (2,2)
        ("white", "(move 4 2 4 3)"),
    ]
    s = play_line(game, game.initial_state, line)
    white = [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (3, 2), (4, 3), (5, 3)]
    black = [c for c in BLACK0 if c != (2, 4)] + [(2, 2)]
    assert set(s.fluents) == pawns("white", white) | pawns("black", black) | {"(control black)"}
    assert game.goals(s) == {"white": 0, "black": 0}
    end = play(game, s, "black", "(move 2 2 1 1)")
    assert game.is_terminal(end)
    assert game.goals(end) == {"white": 0, "black": 100}


def test_breakthrough_capturing_the_last_pawn_wins() -> None:
    """Capturing the opponent's last pawn wins even far from the home row."""
    game = load("breakthrough")
    s = game.state_from_fluents(
        ["(cell 3 3 white)", "(cell 4 4 black)", "(cell 1 5 black)", "(control black)"]
    )
    assert not game.is_terminal(s)
    assert texts(game, s, "black") == {
        "(move 4 4 4 3)",
        "(move 4 4 3 3)",
        "(move 4 4 5 3)",
        "(move 1 5 1 4)",
        "(move 1 5 2 4)",
    }
    end = play(game, s, "black", "(move 4 4 3 3)")
    assert set(end.fluents) == {"(cell 3 3 black)", "(cell 1 5 black)", "(control white)"}
    assert game.is_terminal(end)
    assert game.goals(end) == {"white": 0, "black": 100}


# ---------------------------------------------------------------------------- cargo


DESTINATION = {
    "wine": "zurich",
    "honey": "stuttgart",
    "chocolate": "araxos",
    "milk": "stuttgart",
    "maultaschen": "araxos",
    "ferriswheel": "zurich",
}
CARGO_START = {
    "(at wine araxos)",
    "(at honey araxos)",
    "(at chocolate zurich)",
    "(at milk zurich)",
    "(at maultaschen stuttgart)",
    "(at ferriswheel stuttgart)",
    "(plane araxos)",
    "(tank full)",
}


def test_cargo_initial_state_and_moves() -> None:
    """The pilot starts at araxos with a full tank: fly x2, load x2, smoke."""
    game = load("cargo")
    s = game.initial_state
    assert game.roles == ("pilot", "copilot")
    assert set(s.fluents) == CARGO_START | {"(control pilot)", "(step 0)"}
    assert texts(game, s, "pilot") == {
        "(fly zurich)",
        "(fly stuttgart)",
        "(load wine)",
        "(load honey)",
        "smoke",
    }
    assert texts(game, s, "copilot") == {"noop"}
    assert game.goals(s) == {"pilot": 0, "copilot": 100}


def test_cargo_fresh_goods_and_coffee_rules() -> None:
    """A just-loaded good cannot be unloaded; no second coffee break while work is possible."""
    game = load("cargo")
    s = play(game, game.initial_state, "pilot", "(load wine)")
    assert set(s.fluents) == (CARGO_START - {"(at wine araxos)"}) | {
        "(inplane wine)",
        "(fresh wine)",
        "(control copilot)",
        "(step 1)",
    }
    # full tank, only a fresh good aboard: the co-pilot can only take a break
    assert texts(game, s, "copilot") == {"coffee"}
    s = play(game, s, "copilot", "coffee")
    # wine is still fresh for the pilot's own next turn
    assert texts(game, s, "pilot") == {
        "(fly zurich)",
        "(fly stuttgart)",
        "(load honey)",
        "smoke",
    }
    s = play(game, s, "pilot", "(fly zurich)")
    assert set(s.fluents) == {
        "(at honey araxos)",
        "(at chocolate zurich)",
        "(at milk zurich)",
        "(at maultaschen stuttgart)",
        "(at ferriswheel stuttgart)",
        "(inplane wine)",
        "(plane zurich)",
        "(tank empty)",
        "(hadbreak copilot)",
        "(control copilot)",
        "(step 3)",
    }
    # after a break: refuel or unload, but no second break
    assert texts(game, s, "copilot") == {"refuel", "(unload wine)"}
    s = play(game, s, "copilot", "(unload wine)")
    assert "(at wine zurich)" in s.fluents
    assert "(hadbreak copilot)" not in s.fluents


def test_cargo_forced_break_when_nothing_else_is_possible() -> None:
    """With a full tank, only a fresh good aboard and a break just taken, a break is forced."""
    game = load("cargo")
    s = game.state_from_fluents(
        [
            *sorted(CARGO_START - {"(at honey araxos)"}),
            "(inplane honey)",
            "(fresh honey)",
            "(hadbreak copilot)",
            "(control copilot)",
            "(step 7)",
        ]
    )
    assert texts(game, s, "copilot") == {"coffee"}
    assert texts(game, s, "pilot") == {"noop"}


def test_cargo_delivery_and_step_limit() -> None:
    """All goods at their destinations: pilot 100; 50 plies without that: co-pilot 100."""
    game = load("cargo")
    delivered = [f"(at {g} {a})" for g, a in DESTINATION.items()]
    s = game.state_from_fluents(
        [*delivered, "(plane zurich)", "(tank empty)", "(control pilot)", "(step 20)"]
    )
    assert game.is_terminal(s)
    assert game.goals(s) == {"pilot": 100, "copilot": 0}
    s = game.state_from_fluents([*sorted(CARGO_START), "(control pilot)", "(step 49)"])
    assert not game.is_terminal(s)
    s = play(game, s, "pilot", "smoke")
    assert game.is_terminal(s)
    assert game.goals(s) == {"pilot": 0, "copilot": 100}


def cargo_pilot_strategy(state: State) -> str:
    """A hand-written winning strategy for the pilot (see the header of cargo.kif).

    Carry one good at a time to its destination. With a full tank, load a good that is not
    yet delivered and fly it home. With an empty tank wait with an empty plane until the
    co-pilot has just had his break; a good loaded then is fresh, so he must refuel.
    """
    fl = state.fluents
    plane = next(f.split()[1][:-1] for f in fl if f.startswith("(plane "))
    full = "(tank full)" in fl
    rested = "(hadbreak copilot)" in fl
    aboard = sorted(g for g in DESTINATION if f"(inplane {g})" in fl)
    for good in aboard:
        if DESTINATION[good] == plane and f"(fresh {good})" not in fl:
            return f"(unload {good})"
    if aboard:
        good = aboard[0]
        if full:
            return f"(fly {DESTINATION[good]})"
        return "smoke" if f"(fresh {good})" in fl else f"(unload {good})"

    def waiting(airport: str) -> list[str]:
        return sorted(
            g for g in DESTINATION if f"(at {g} {airport})" in fl and DESTINATION[g] != airport
        )

    if not full and not rested:
        return "smoke"
    if waiting(plane):
        return f"(load {waiting(plane)[0]})"
    if full:
        for airport in ("araxos", "zurich", "stuttgart"):
            if waiting(airport):
                return f"(fly {airport})"
    return "smoke"


def test_cargo_pilot_forces_delivery() -> None:
    """The pilot's strategy delivers everything against every co-pilot defence in 35 plies.

    AND/OR search over the reasoner's states: the pilot plays the strategy, the co-pilot
    every legal move; every line must end with all goods delivered (pilot 100) before the
    step limit of 50 plies. States are memoised without their step counter, which only
    matters at the limit; a cycle would make the search fail.
    """
    game = load("cargo")
    memo: dict[frozenset[str], int] = {}
    on_path: set[frozenset[str]] = set()

    def key(state: State) -> frozenset[str]:
        return frozenset(f for f in state.fluents if not f.startswith("(step "))

    def search(state: State) -> int:
        k = key(state)
        if k in memo:
            return memo[k]
        assert k not in on_path, "the strategy runs in a cycle"
        if game.is_terminal(state):
            assert game.goals(state) == {"pilot": 100, "copilot": 0}, sorted(state.fluents)
            memo[k] = 0
            return 0
        on_path.add(k)
        role = mover(game, state)
        if role == "pilot":
            move = cargo_pilot_strategy(state)
            assert move in texts(game, state, "pilot"), (move, sorted(state.fluents))
            depth = 1 + search(play(game, state, "pilot", move))
        else:
            depth = 1 + max(
                search(play(game, state, "copilot", m.text))
                for m in game.legal_moves(state, "copilot")
            )
        on_path.discard(k)
        memo[k] = depth
        return depth

    depth = search(game.initial_state)
    # the numbers of an independent Python model of the rules (retrograde analysis: 35 plies
    # is also the optimum against best defence); the solution graph has 87 positions
    assert depth == 35
    assert len(memo) == 87


def test_cargo_winning_line() -> None:
    """A documented line: wine to zurich with the co-pilot refusing to help where he can."""
    game = load("cargo")
    line = [
        ("pilot", "(load wine)"),
        ("copilot", "coffee"),  # forced: wine is fresh and the tank is full
        ("pilot", "(fly zurich)"),
        ("copilot", "refuel"),
        ("pilot", "(unload wine)"),
    ]
    s = play_line(game, game.initial_state, line)
    assert "(at wine zurich)" in s.fluents
    assert "(tank full)" in s.fluents
    assert "(plane zurich)" in s.fluents
    assert not game.is_terminal(s)


@pytest.mark.parametrize(
    "name", ["lightsout", "chomp", "nim", "rps", "threeplayer", "cargo", "breakthrough"]
)
def test_header_names_roles_in_order(name: str) -> None:
    """Each file's header comment lists the roles in the order of the role facts."""
    text = (GAMES / f"{name}.kif").read_text()
    assert text.startswith(";")
    line = next(ln for ln in text.splitlines() if ln.startswith("; Roles (in order):"))
    listed = tuple(r.strip() for r in line.split(":", 1)[1].split(","))
    assert load(name).roles == listed


@pytest.mark.parametrize(
    ("name", "max_length"),
    [
        ("lightsout", 8),
        ("chomp", 16),
        ("nim", 12),
        ("rps", 5),
        ("threeplayer", 10),
        ("cargo", 50),
        ("breakthrough", 80),
    ],
)
def test_random_playouts_are_well_formed(name: str, max_length: int) -> None:
    """Seeded random playouts end within the documented bound, every role has a legal move
    in every non-terminal state, and every terminal state gives each role one goal 0..100.

    Bounds from the headers: 8 presses, 16 squares, 3 + 4 + 5 tokens, 5 rounds, counter 10,
    50 plies, 2 * 10 pawns * 4 rows.
    """
    game = load(name)
    rng = random.Random(2024)
    for _ in range(15):
        state = game.initial_state
        length = 0
        while not game.is_terminal(state):
            joint = {}
            for role in game.roles:
                moves = game.legal_moves(state, role)
                assert moves, (role, sorted(state.fluents))
                joint[role] = rng.choice(moves)
            state = game.next_state(state, joint)
            length += 1
            assert length <= max_length
        goals = game.goals(state)
        assert set(goals) == set(game.roles)
        assert all(0 <= v <= 100 for v in goals.values())
