"""Facts about the project's own games that do not come from the reasoner itself.

Every expected value here is known independently of the engine: published counts
(tic-tac-toe and connect four perft numbers, 255,168 complete tic-tac-toe games), states
written out by hand, and solutions worked out by hand or with small stand-alone scripts over
the puzzles' own rules (documented in each game file's header).  The reasoner only plays the
moves; the tests compare what it reports with these facts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

import pytest

from reasoner import Game, State

GAMES = Path(__file__).resolve().parent.parent / "games"

Joint = Mapping[str, str]


@cache
def load(name: str) -> Game:
    """Each game is loaded once per test session."""
    return Game.from_file(GAMES / f"{name}.kif")


def legal_texts(game: Game, state: State, role: str) -> set[str]:
    """The legal moves of ``role`` as GDL text."""
    return {move.text for move in game.legal_moves(state, role)}


def solo(game: Game, move: str) -> dict[str, str]:
    """A joint move of a one-player game."""
    (role,) = game.roles
    return {role: move}


def turn(game: Game, role: str, move: str) -> dict[str, str]:
    """A joint move of a turn-taking game: ``role`` plays ``move``, every other role noop."""
    return {other: move if other == role else "noop" for other in game.roles}


def play(game: Game, joints: Iterable[Joint], state: State | None = None) -> State:
    """Plays the joint moves from ``state`` (default: the initial state).

    Every state on the way must be non-terminal and every move legal.
    """
    current = game.initial_state if state is None else state
    for ply, joint in enumerate(joints, start=1):
        assert not game.is_terminal(current), f"terminal before ply {ply}"
        for role, move in joint.items():
            legal = legal_texts(game, current, role)
            assert move in legal, f"ply {ply}: {role} may not play {move}; legal: {legal}"
        current = game.next_state(current, joint)
    return current


def play_solo(game: Game, moves: Sequence[str]) -> State:
    """Plays a sequence of moves in a one-player game."""
    return play(game, [solo(game, move) for move in moves])


class Explorer:
    """Successors cached per state, so that several counts share one exploration."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._successors: dict[State, tuple[State, ...]] = {}
        self._terminal: dict[State, bool] = {}

    def terminal(self, state: State) -> bool:
        """Whether ``state`` is terminal (cached)."""
        known = self._terminal.get(state)
        if known is None:
            known = self._terminal[state] = self.game.is_terminal(state)
        return known

    def successors(self, state: State) -> tuple[State, ...]:
        """One successor per legal joint move (a path count, so duplicates are kept)."""
        known = self._successors.get(state)
        if known is None:
            known = tuple(
                self.game.next_state(state, joint) for joint in self.game.legal_joint_moves(state)
            )
            self._successors[state] = known
        return known

    def perft(self, depth: int) -> int:
        """Number of joint-move sequences of length ``depth`` from the initial state.

        Paths through terminal states end there and are not counted at greater depths.
        """
        memo: dict[tuple[State, int], int] = {}

        def count(state: State, left: int) -> int:
            if left == 0:
                return 1
            if self.terminal(state):
                return 0
            key = (state, left)
            if key not in memo:
                memo[key] = sum(count(child, left - 1) for child in self.successors(state))
            return memo[key]

        return count(self.game.initial_state, depth)

    def reachable(self) -> set[State]:
        """Every state reachable from the initial state."""
        seen = {self.game.initial_state}
        stack = [self.game.initial_state]
        while stack:
            state = stack.pop()
            if self.terminal(state):
                continue
            for child in self.successors(state):
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        return seen


def shortest_solution(game: Game, solved: Callable[[State], bool], limit: int) -> int | None:
    """Breadth-first search: the fewest moves that reach a state where ``solved`` holds.

    States are compared with their full fluent sets (including step counters), which only
    makes the search larger, never wrong.  Returns None if nothing within ``limit`` moves.
    """
    layer = {game.initial_state}
    seen = set(layer)
    for depth in range(limit + 1):
        if any(solved(state) for state in layer):
            return depth
        following: set[State] = set()
        for state in layer:
            if game.is_terminal(state):
                continue
            for joint in game.legal_joint_moves(state):
                child = game.next_state(state, joint)
                if child not in seen:
                    seen.add(child)
                    following.add(child)
        layer = following
    return None


def check_well_formed(game: Game, states: Iterable[State]) -> None:
    """Terminal states have one goal per role; other states a legal move for every role."""
    for state in states:
        if game.is_terminal(state):
            goals = game.goals(state)  # raises GoalError on a missing or doubled value
            assert set(goals) == set(game.roles)
            assert all(0 <= value <= 100 for value in goals.values())
        else:
            for role in game.roles:
                assert game.legal_moves(state, role), f"{role} has no move in {state}"


def wins_for(game: Game, state: State, expected: dict[str, int]) -> None:
    """``state`` is terminal with exactly the ``expected`` goal values."""
    assert game.is_terminal(state)
    assert game.goals(state) == expected


# ------------------------------------------------------------------------- tic-tac-toe


@pytest.fixture(scope="module")
def ttt() -> Explorer:
    return Explorer(load("tictactoe"))


def blank_board(size_x: int, size_y: int) -> set[str]:
    return {f"(cell {x} {y} b)" for x in range(1, size_x + 1) for y in range(1, size_y + 1)}


def test_tictactoe_roles_and_initial_state(ttt: Explorer) -> None:
    """Roles are xplayer, oplayer in file order; the board starts empty with X to move."""
    game = ttt.game
    assert game.roles == ("xplayer", "oplayer")
    assert game.initial_state.fluents == frozenset(blank_board(3, 3) | {"(control xplayer)"})
    assert legal_texts(game, game.initial_state, "xplayer") == {
        f"(mark {x} {y})" for x in (1, 2, 3) for y in (1, 2, 3)
    }
    assert legal_texts(game, game.initial_state, "oplayer") == {"noop"}
    assert not game.is_terminal(game.initial_state)


def test_tictactoe_perft(ttt: Explorer) -> None:
    """Joint-move paths from the start: 9, 72, 504, 3024, 15120 at depths 1..5."""
    assert [ttt.perft(depth) for depth in range(1, 6)] == [9, 72, 504, 3024, 15120]


@pytest.mark.slow  # about 1.3 s
def test_tictactoe_complete_games(ttt: Explorer) -> None:
    """255,168 complete games: 131,184 won by X, 77,904 by O, 46,080 drawn.

    Also the well-known 5,478 reachable positions and 958 terminal ones, and every terminal
    position has exactly one goal value per role (100/0, 0/100 or 50/50).
    """
    game = ttt.game

    @cache
    def games_from(state: State) -> dict[tuple[int, int], int]:
        if ttt.terminal(state):
            goals = game.goals(state)
            return {(goals["xplayer"], goals["oplayer"]): 1}
        total: dict[tuple[int, int], int] = {}
        for child in ttt.successors(state):
            for outcome, count in games_from(child).items():
                total[outcome] = total.get(outcome, 0) + count
        return total

    outcomes = games_from(game.initial_state)
    assert sum(outcomes.values()) == 255_168
    assert outcomes == {(100, 0): 131_184, (0, 100): 77_904, (50, 50): 46_080}
    reachable = ttt.reachable()
    assert len(reachable) == 5_478
    assert sum(1 for state in reachable if ttt.terminal(state)) == 958
    check_well_formed(game, reachable)


def test_tictactoe_hand_computed_successor(ttt: Explorer) -> None:
    """After X (2 2), O (1 1), X (1 3) the state is exactly the hand-written fluent set."""
    game = ttt.game
    state = play(
        game,
        [
            turn(game, "xplayer", "(mark 2 2)"),
            turn(game, "oplayer", "(mark 1 1)"),
            turn(game, "xplayer", "(mark 1 3)"),
        ],
    )
    assert state.fluents == frozenset(
        {
            "(cell 1 1 o)",
            "(cell 1 2 b)",
            "(cell 1 3 x)",
            "(cell 2 1 b)",
            "(cell 2 2 x)",
            "(cell 2 3 b)",
            "(cell 3 1 b)",
            "(cell 3 2 b)",
            "(cell 3 3 b)",
            "(control oplayer)",
        }
    )
    assert legal_texts(game, state, "oplayer") == {
        "(mark 1 2)",
        "(mark 2 1)",
        "(mark 2 3)",
        "(mark 3 1)",
        "(mark 3 2)",
        "(mark 3 3)",
    }
    assert legal_texts(game, state, "xplayer") == {"noop"}


@pytest.mark.parametrize(
    ("moves", "expected"),
    [
        # X completes the line x = 1 (cells (1 1), (1 2), (1 3)).
        (["11", "21", "12", "22", "13"], {"xplayer": 100, "oplayer": 0}),
        # O completes the line x = 2 while X's three marks form no line.
        (["11", "21", "12", "22", "33", "23"], {"xplayer": 0, "oplayer": 100}),
        # X completes the diagonal (1 1) (2 2) (3 3).
        (["11", "12", "22", "13", "33"], {"xplayer": 100, "oplayer": 0}),
        # O completes the anti-diagonal (1 3) (2 2) (3 1).
        (["11", "22", "12", "13", "33", "31"], {"xplayer": 0, "oplayer": 100}),
        # A full board without a line:  x x o / o o x / x o x (rows are x = 1, 2, 3).
        (["11", "22", "33", "13", "31", "21", "23", "32", "12"], {"xplayer": 50, "oplayer": 50}),
    ],
    ids=["x-column", "o-column", "x-diagonal", "o-antidiagonal", "draw"],
)
def test_tictactoe_known_games(ttt: Explorer, moves: list[str], expected: dict[str, int]) -> None:
    """Hand-played games end exactly at their last move with the expected goal values."""
    game = ttt.game
    players = ("xplayer", "oplayer")
    joints = [turn(game, players[i % 2], f"(mark {m[0]} {m[1]})") for i, m in enumerate(moves)]
    wins_for(game, play(game, joints), expected)


# ------------------------------------------------------------------------- connect four


@pytest.fixture(scope="module")
def c4() -> Explorer:
    return Explorer(load("connectfour"))


def drops(game: Game, columns: Sequence[int]) -> list[dict[str, str]]:
    """Alternating drops, red first."""
    players = ("red", "black")
    return [turn(game, players[i % 2], f"(drop {c})") for i, c in enumerate(columns)]


def board_fluents(rows_top_down: Sequence[str]) -> set[str]:
    """Cells of a picture with the top row first: R red, B black, . empty."""
    names = {"R": "red", "B": "black", ".": "b"}
    height = len(rows_top_down)
    return {
        f"(cell {x} {height - i} {names[char]})"
        for i, row in enumerate(rows_top_down)
        for x, char in enumerate(row, start=1)
    }


def test_connectfour_roles_and_initial_state(c4: Explorer) -> None:
    """Roles red, black; 42 empty cells with red to move; red may drop into all 7 columns."""
    game = c4.game
    assert game.roles == ("red", "black")
    assert game.initial_state.fluents == frozenset(blank_board(7, 6) | {"(control red)"})
    assert legal_texts(game, game.initial_state, "red") == {f"(drop {c})" for c in range(1, 8)}
    assert legal_texts(game, game.initial_state, "black") == {"noop"}


def test_connectfour_perft(c4: Explorer) -> None:
    """Joint-move paths from the start: 7, 49, 343, 2401 at depths 1..4."""
    assert [c4.perft(depth) for depth in range(1, 5)] == [7, 49, 343, 2401]


def test_connectfour_hand_computed_successor(c4: Explorer) -> None:
    """Red 4, black 4, red 3: discs stack in column 4 and land at the bottom of column 3."""
    game = c4.game
    state = play(game, drops(game, [4, 4, 3]))
    expected = board_fluents(
        [
            ".......",
            ".......",
            ".......",
            ".......",
            "...B...",
            "..RR...",
        ]
    ) | {"(control black)"}
    assert state.fluents == frozenset(expected)


def test_connectfour_full_column_is_not_legal(c4: Explorer) -> None:
    """After six discs in column 1 nobody may drop there; the other six columns stay legal."""
    game = c4.game
    state = play(game, drops(game, [1, 1, 1, 1, 1, 1]))  # alternating colours: no four
    assert legal_texts(game, state, "red") == {f"(drop {c})" for c in range(2, 8)}


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        # red builds column 1 upwards while black stacks column 2 (three high only).
        ([1, 2, 1, 2, 1, 2, 1], {"red": 100, "black": 0}),
        # black completes row 1 from column 2 to column 5.
        ([1, 2, 1, 3, 7, 4, 7, 5], {"red": 0, "black": 100}),
        # red completes the rising diagonal (1 1) (2 2) (3 3) (4 4).
        ([1, 2, 2, 3, 3, 4, 3, 4, 4, 7, 4], {"red": 100, "black": 0}),
        # black completes the falling diagonal (4 1) (3 2) (2 3) (1 4).
        ([1, 4, 3, 3, 2, 2, 1, 2, 1, 1], {"red": 0, "black": 100}),
    ],
    ids=["red-vertical", "black-horizontal", "red-rising-diagonal", "black-falling-diagonal"],
)
def test_connectfour_known_wins(c4: Explorer, columns: list[int], expected: dict[str, int]) -> None:
    """Hand-played games end with four in a line at their last drop and the right goals."""
    game = c4.game
    wins_for(game, play(game, drops(game, columns)), expected)


# A 42-ply game without any four in a line, found by a stand-alone Python script over the
# rules (random drops that never complete four); the final board is written out below.
DRAW_COLUMNS = [
    6,
    4,
    3,
    4,
    2,
    6,
    4,
    2,
    1,
    2,
    5,
    2,
    3,
    6,
    1,
    6,
    7,
    7,
    3,
    1,
    7,
    1,
    5,
    3,
    4,
    1,
    4,
    5,
    3,
    4,
    3,
    7,
    1,
    5,
    2,
    2,
    6,
    5,
    5,
    6,
    7,
    7,
]
DRAW_BOARD = [
    "RBRBRBB",
    "BRRRBRR",
    "BBBRBBB",
    "BBRRBBR",
    "RBRBRBB",
    "RRRBRRR",
]


def test_connectfour_full_board_draw(c4: Explorer) -> None:
    """A full board without four in a line is terminal with 50/50 and the written-out board."""
    game = c4.game
    state = play(game, drops(game, DRAW_COLUMNS))
    assert state.fluents - {"(control red)"} == frozenset(board_fluents(DRAW_BOARD))
    wins_for(game, state, {"red": 50, "black": 50})


# ------------------------------------------------------------------------- maze

MAZE_SOLUTION = ["move", "move", "grab", "move", "move", "drop"]


def test_maze_initial_state_and_moves() -> None:
    """Robot in a, gold in c, step 1; only move is legal (no gold here, none held)."""
    game = load("maze")
    assert game.roles == ("robot",)
    state = game.initial_state
    assert state.fluents == frozenset({"(cell a)", "(gold c)", "(step 1)"})
    assert legal_texts(game, state, "robot") == {"move"}


def test_maze_solution_reaches_goal() -> None:
    """move, move, grab, move, move, drop carries the gold from c to a: terminal, 100."""
    game = load("maze")
    after_grab = play_solo(game, MAZE_SOLUTION[:3])
    assert after_grab.fluents == frozenset({"(cell c)", "(gold i)", "(step 4)"})
    assert legal_texts(game, after_grab, "robot") == {"move", "drop"}
    final = play_solo(game, MAZE_SOLUTION)
    assert final.fluents == frozenset({"(cell a)", "(gold a)", "(step 7)"})
    wins_for(game, final, {"robot": 100})


def test_maze_dropping_elsewhere_is_not_the_goal() -> None:
    """Dropping the gold in d leaves it there: not terminal, goal 0."""
    game = load("maze")
    state = play_solo(game, ["move", "move", "grab", "move", "drop"])
    assert state.fluents == frozenset({"(cell d)", "(gold d)", "(step 6)"})
    assert not game.is_terminal(state)
    assert game.goals(state) == {"robot": 0}


def test_maze_no_shorter_solution_and_step_limit() -> None:
    """No plan shorter than 6 actions; nine moves in a row end the game with 0."""
    game = load("maze")
    assert shortest_solution(game, lambda s: "(gold a)" in s.fluents, 8) == 6
    state = play_solo(game, ["move"] * 9)
    assert "(step 10)" in state.fluents
    wins_for(game, state, {"robot": 0})


def test_maze_well_formed() -> None:
    """Every reachable state: one goal per role when terminal, a legal move otherwise."""
    game = load("maze")
    check_well_formed(game, Explorer(game).reachable())


# ------------------------------------------------------------------------- blocksworld


def test_blocksworld_initial_state_and_moves() -> None:
    """c on a, a and b on the table; legal: unstack c from a, or stack b on c."""
    game = load("blocksworld")
    state = game.initial_state
    assert state.fluents == frozenset(
        {
            "(on c a)",
            "(table a)",
            "(table b)",
            "(clear b)",
            "(clear c)",
            "(step 1)",
        }
    )
    assert legal_texts(game, state, "robot") == {"(unstack c a)", "(stack b c)"}


def test_blocksworld_hand_computed_successors() -> None:
    """unstack(c, a) puts all blocks on the table; then stack(b, c) covers c."""
    game = load("blocksworld")
    state = play_solo(game, ["(unstack c a)"])
    assert state.fluents == frozenset(
        {
            "(table a)",
            "(table b)",
            "(table c)",
            "(clear a)",
            "(clear b)",
            "(clear c)",
            "(step 2)",
        }
    )
    assert legal_texts(game, state, "robot") == {
        f"(stack {x} {y})" for x in "abc" for y in "abc" if x != y
    }
    state = play_solo(game, ["(unstack c a)", "(stack b c)"])
    assert state.fluents == frozenset(
        {
            "(on b c)",
            "(table a)",
            "(table c)",
            "(clear a)",
            "(clear b)",
            "(step 3)",
        }
    )


def test_blocksworld_plan() -> None:
    """unstack(c,a), stack(b,c), stack(a,b) builds the tower: terminal, 100; none shorter."""
    game = load("blocksworld")
    state = play_solo(game, ["(unstack c a)", "(stack b c)", "(stack a b)"])
    assert {"(on a b)", "(on b c)", "(table c)", "(clear a)"} <= state.fluents
    wins_for(game, state, {"robot": 100})

    def tower(s: State) -> bool:
        return {"(on a b)", "(on b c)"} <= s.fluents

    assert shortest_solution(game, tower, 6) == 3


def test_blocksworld_step_limit() -> None:
    """Six actions without the tower end the game with goal 0."""
    game = load("blocksworld")
    state = play_solo(game, ["(stack b c)", "(unstack b c)"] * 3)
    assert "(step 7)" in state.fluents
    wins_for(game, state, {"robot": 0})


def test_blocksworld_well_formed() -> None:
    """Every reachable state: one goal per role when terminal, a legal move otherwise."""
    game = load("blocksworld")
    check_well_formed(game, Explorer(game).reachable())


# ------------------------------------------------------------------------- hanoi

HANOI_SOLUTION = [
    "(move 1 3)",
    "(move 1 2)",
    "(move 3 2)",
    "(move 1 3)",
    "(move 2 1)",
    "(move 2 3)",
    "(move 1 3)",
]


def hanoi_solved(state: State) -> bool:
    return {"(at 1 3)", "(at 2 3)", "(at 3 3)"} <= state.fluents


def test_hanoi_initial_state_and_moves() -> None:
    """All three discs on peg 1; only the smallest disc may move, to peg 2 or 3."""
    game = load("hanoi")
    assert game.initial_state.fluents == frozenset(
        {
            "(at 1 1)",
            "(at 2 1)",
            "(at 3 1)",
            "(step 1)",
        }
    )
    assert legal_texts(game, game.initial_state, "solver") == {"(move 1 2)", "(move 1 3)"}


def test_hanoi_hand_computed_successor() -> None:
    """After 1->3, 1->2: disc 1 on peg 3, disc 2 on peg 2, disc 3 alone on peg 1.

    Disc 3 cannot move (both other pegs hold smaller discs), disc 2 may go to peg 1 only,
    disc 1 may go to peg 1 or 2.
    """
    game = load("hanoi")
    state = play_solo(game, HANOI_SOLUTION[:2])
    assert state.fluents == frozenset({"(at 1 3)", "(at 2 2)", "(at 3 1)", "(step 3)"})
    assert legal_texts(game, state, "solver") == {"(move 2 1)", "(move 3 1)", "(move 3 2)"}


def test_hanoi_optimal_solution() -> None:
    """The 7-move solution ends terminal with 100, and no solution has fewer moves."""
    game = load("hanoi")
    state = play_solo(game, HANOI_SOLUTION)
    assert state.fluents == frozenset({"(at 1 3)", "(at 2 3)", "(at 3 3)", "(step 8)"})
    wins_for(game, state, {"solver": 100})
    assert shortest_solution(game, hanoi_solved, 7) == 7


def test_hanoi_step_limit() -> None:
    """31 moves of the small disc between pegs 1 and 2 end the game unsolved, goal 0."""
    game = load("hanoi")
    moves = ["(move 1 2)", "(move 2 1)"] * 15 + ["(move 1 2)"]
    state = play_solo(game, moves)
    assert state.fluents == frozenset({"(at 1 2)", "(at 2 1)", "(at 3 1)", "(step 32)"})
    wins_for(game, state, {"solver": 0})


def test_hanoi_well_formed_and_positions() -> None:
    """All 27 = 3^3 disc placements are reachable; every reachable state is well formed."""
    game = load("hanoi")
    reachable = Explorer(game).reachable()
    placements = {frozenset(f for f in s.fluents if f.startswith("(at ")) for s in reachable}
    assert len(placements) == 27
    check_well_formed(game, reachable)


# ------------------------------------------------------------------------- 8-puzzle

PUZZLE_SOLUTION = ["up", "up", "right", "down", "down", "right"]


def puzzle_fluents(rows: Sequence[str]) -> set[str]:
    """Cells of a 3x3 picture, top row first, '.' for the blank."""
    return {
        f"(cell {r} {c} {'b' if char == '.' else char})"
        for r, row in enumerate(rows, start=1)
        for c, char in enumerate(row, start=1)
    }


def test_eightpuzzle_initial_state_and_moves() -> None:
    """Start 413/726/.58; the blank in the bottom-left corner may go up or right."""
    game = load("eightpuzzle")
    assert game.initial_state.fluents == frozenset(
        puzzle_fluents(["413", "726", ".58"]) | {"(step 1)"}
    )
    assert legal_texts(game, game.initial_state, "player") == {"up", "right"}


def test_eightpuzzle_hand_computed_successors() -> None:
    """up swaps the blank with 7; a second up with 4; the centre blank has four moves."""
    game = load("eightpuzzle")
    state = play_solo(game, ["up"])
    assert state.fluents == frozenset(puzzle_fluents(["413", ".26", "758"]) | {"(step 2)"})
    assert legal_texts(game, state, "player") == {"up", "down", "right"}
    state = play_solo(game, PUZZLE_SOLUTION[:4])
    assert state.fluents == frozenset(puzzle_fluents(["123", "4.6", "758"]) | {"(step 5)"})
    assert legal_texts(game, state, "player") == {"up", "down", "left", "right"}


def test_eightpuzzle_optimal_solution() -> None:
    """The documented 6-move solution solves the puzzle (100); nothing shorter does."""
    game = load("eightpuzzle")
    state = play_solo(game, PUZZLE_SOLUTION)
    assert state.fluents == frozenset(puzzle_fluents(["123", "456", "78."]) | {"(step 7)"})
    wins_for(game, state, {"player": 100})

    def solved(s: State) -> bool:
        return puzzle_fluents(["123", "456", "78."]) <= s.fluents

    assert shortest_solution(game, solved, 6) == 6


def test_eightpuzzle_step_limit() -> None:
    """30 moves up and down without solving end the game with goal 0."""
    game = load("eightpuzzle")
    state = play_solo(game, ["up", "down"] * 15)
    assert state.fluents == frozenset(puzzle_fluents(["413", "726", ".58"]) | {"(step 31)"})
    wins_for(game, state, {"player": 0})


# ------------------------------------------------------------------------- minichess

MATE_LINE = [
    ("white", "(move wr 1 1 3 1)"),
    ("black", "(move bk 2 4 1 4)"),
    ("white", "(move wr 3 1 3 4)"),
]


def chess_state(game: Game, wk: str, wr: str | None, bk: str, to_move: str) -> State:
    """A position from squares written as 'x y'."""
    fluents = [f"(at wk {wk})", f"(at bk {bk})", f"(control {to_move})", "(step 3)"]
    if wr is not None:
        fluents.append(f"(at wr {wr})")
    return game.state_from_fluents(fluents)


def test_minichess_initial_state_and_moves() -> None:
    """White K(1 2) R(1 1) vs black K(2 4); white's five legal moves, worked out by hand.

    The king may not go to (1 1) (own rook), (1 3) or (2 3) (next to the black king); the
    rook is blocked upwards by its king and may slide to (2 1), (3 1), (4 1).
    """
    game = load("minichess")
    assert game.roles == ("white", "black")
    state = game.initial_state
    assert state.fluents == frozenset(
        {
            "(at wk 1 2)",
            "(at wr 1 1)",
            "(at bk 2 4)",
            "(control white)",
            "(step 1)",
        }
    )
    assert legal_texts(game, state, "white") == {
        "(move wk 1 2 2 1)",
        "(move wk 1 2 2 2)",
        "(move wr 1 1 2 1)",
        "(move wr 1 1 3 1)",
        "(move wr 1 1 4 1)",
    }
    assert legal_texts(game, state, "black") == {"noop"}


def test_minichess_documented_mate_in_two() -> None:
    """Rook to (3 1), black's only reply K to (1 4), rook to (3 4) mates: 100/0."""
    game = load("minichess")
    after_first = play(game, [turn(game, *MATE_LINE[0])])
    assert legal_texts(game, after_first, "black") == {"(move bk 2 4 1 4)"}
    final = play(game, [turn(game, role, move) for role, move in MATE_LINE])
    assert final.fluents == frozenset(
        {
            "(at wk 1 2)",
            "(at wr 3 4)",
            "(at bk 1 4)",
            "(control black)",
            "(step 4)",
        }
    )
    assert legal_texts(game, final, "black") == set()
    wins_for(game, final, {"white": 100, "black": 0})


def test_minichess_no_mate_in_one_and_unique_key_move() -> None:
    """No first white move mates; only rook to (3 1) forces mate on white's second move."""
    game = load("minichess")
    start = game.initial_state

    def mating_moves(state: State) -> set[str]:
        found = set()
        for move in legal_texts(game, state, "white"):
            child = game.next_state(state, turn(game, "white", move))
            if game.is_terminal(child) and game.goals(child)["white"] == 100:
                found.add(move)
        return found

    assert mating_moves(start) == set()
    forcing = set()
    for first in legal_texts(game, start, "white"):
        state = game.next_state(start, turn(game, "white", first))
        replies = legal_texts(game, state, "black")
        if replies and all(
            mating_moves(game.next_state(state, turn(game, "black", reply))) for reply in replies
        ):
            forcing.add(first)
    assert forcing == {"(move wr 1 1 3 1)"}


def test_minichess_black_cannot_step_back_along_the_check() -> None:
    """Checked along rank 4 by the rook on (1 4), the king on (3 4) may not go to (4 4)."""
    game = load("minichess")
    state = chess_state(game, wk="1 1", wr="1 4", bk="3 4", to_move="black")
    assert legal_texts(game, state, "black") == {
        "(move bk 3 4 2 3)",
        "(move bk 3 4 3 3)",
        "(move bk 3 4 4 3)",
    }
    assert legal_texts(game, state, "white") == {"noop"}
    assert not game.is_terminal(state)


def test_minichess_capturing_the_undefended_rook_is_a_draw() -> None:
    """The black king takes the rook the white king does not guard: terminal, 50/50."""
    game = load("minichess")
    state = chess_state(game, wk="1 1", wr="3 3", bk="4 4", to_move="black")
    assert "(move bk 4 4 3 3)" in legal_texts(game, state, "black")
    after = game.next_state(state, turn(game, "black", "(move bk 4 4 3 3)"))
    assert after.fluents == frozenset(
        {
            "(at wk 1 1)",
            "(at bk 3 3)",
            "(control white)",
            "(step 4)",
        }
    )
    wins_for(game, after, {"white": 50, "black": 50})


def test_minichess_defended_rook_and_stalemate() -> None:
    """K(2 2) guards R(3 3): black K(4 4) has no move and is not in check, a stalemate."""
    game = load("minichess")
    state = chess_state(game, wk="2 2", wr="3 3", bk="4 4", to_move="black")
    assert legal_texts(game, state, "black") == set()
    wins_for(game, state, {"white": 50, "black": 50})


def test_minichess_ply_limit() -> None:
    """Ten plies of shuffling end the game at step 11 as a draw, 50/50."""
    game = load("minichess")
    cycle = [
        ("white", "(move wr 1 1 4 1)"),
        ("black", "(move bk 2 4 3 4)"),
        ("white", "(move wr 4 1 1 1)"),
        ("black", "(move bk 3 4 2 4)"),
    ]
    plies = (cycle * 3)[:10]
    state = play(game, [turn(game, role, move) for role, move in plies])
    assert state.fluents == frozenset(
        {
            "(at wk 1 2)",
            "(at wr 4 1)",
            "(at bk 3 4)",
            "(control white)",
            "(step 11)",
        }
    )
    wins_for(game, state, {"white": 50, "black": 50})
