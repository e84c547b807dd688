"""The SWI-Prolog reference solver (docs/semantics/crosschecking.md): an independent second
implementation of the GDL state machine and of the relaxed supersets, checked against the clingo
engine and against hand-written expectations on tiny games."""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reasoner.engine.game import Game
from reasoner.errors import ReferenceFailure
from reasoner.gdl.parser import parse_game
from reasoner.instantiate.supersets import supersets
from reasoner.reference import ReferenceSolver, prolog_program
from tests.conftest import CORPUS, GAMES, corpus_params

pytestmark = [pytest.mark.needs_tools,
              pytest.mark.skipif(shutil.which("swipl") is None,
                                 reason="SWI-Prolog (Debian package swi-prolog-nox) is not "
                                        "installed")]

TICTACTOE = GAMES / "tictactoe.kif"
REPOSITORY = CORPUS / "ggp-repository"

# ggp-repository games (no GDL-II) that the engine loads in well under a second and that
# the reference plays in a fraction of a second per step; each was checked to agree with the
# engine over two 20-step playouts and on its supersets.
SMALL_CORPUS_GAMES = (
    "ticTacToe", "connectFour", "nim1", "nim2", "nim3", "eightPuzzle", "hanoi",
    "blocksWorld", "buttons", "chomp", "coins", "knightsTour", "maze", "pancakes", "peg",
    "tictactoe_3player", "lightsOut", "breakthrough", "3pConnectFour", "2pffa", "asteroids",
    "beatMania", "roshambo2", "sum15", "pearls", "circlesolitaire", "numbertictactoe",
)


@pytest.fixture
def tictactoe() -> Iterator[ReferenceSolver]:
    """The bundled tic-tac-toe in a fresh reference solver."""
    with ReferenceSolver.from_gdl(TICTACTOE.read_text()) as solver:
        yield solver


def assert_playouts_agree(game: Game, solver: ReferenceSolver, seed: int, playouts: int,
                          steps: int) -> None:
    """Seeded random playouts in both, compared state by state: legal moves per role,
    terminal, the successor of a random joint move, and goals in terminal states."""
    rng = random.Random(seed)
    for _ in range(playouts):
        state = game.initial_state
        fluents = solver.initial_state()
        assert fluents == state.fluents
        history: list[list[str]] = []
        for _ in range(steps):
            legal = solver.legal(fluents)
            for role in game.roles:
                expected = frozenset(str(m) for m in game.legal_moves(state, role))
                assert legal[role] == expected, (role, history)
            terminal = solver.terminal(fluents)
            assert terminal == game.is_terminal(state), history
            if terminal:
                goals = {role: frozenset([value]) for role, value in game.goals(state).items()}
                assert solver.goals(fluents) == goals, history
                break
            joint = [rng.choice(sorted(legal[role])) for role in game.roles]
            history.append(joint)
            state = game.next_state(state, dict(zip(game.roles, joint, strict=True)))
            fluents = solver.next_state(fluents, joint)
            assert fluents == state.fluents, history


# -- the state machine against the engine ------------------------------------------------


def test_tictactoe_answers_equal_the_engines(tictactoe: ReferenceSolver) -> None:
    """Roles, initial state, legal moves, a successor, terminal and goals of tic-tac-toe are
    the engine's, text for text."""
    game = Game.from_file(TICTACTOE)
    assert tictactoe.roles == game.roles == ("xplayer", "oplayer")
    initial = tictactoe.initial_state()
    assert initial == game.initial_state.fluents
    assert tictactoe.legal(initial) == {
        role: frozenset(str(m) for m in game.legal_moves(game.initial_state, role))
        for role in game.roles}
    successor = tictactoe.next_state(initial, ["(mark 2 2)", "noop"])
    expected = game.next_state(game.initial_state, {"xplayer": "(mark 2 2)",
                                                    "oplayer": "noop"})
    assert successor == expected.fluents
    assert "(cell 2 2 x)" in successor and "(control oplayer)" in successor
    assert tictactoe.terminal(initial) is game.is_terminal(game.initial_state) is False
    won = (initial - {"(cell 1 1 b)", "(cell 1 2 b)", "(cell 1 3 b)"}) | {
        "(cell 1 1 x)", "(cell 1 2 x)", "(cell 1 3 x)"}
    engine_won = game.state_from_fluents(won)
    assert tictactoe.terminal(won) is game.is_terminal(engine_won) is True
    assert tictactoe.goals(won) == {role: frozenset([value])
                                    for role, value in game.goals(engine_won).items()}
    assert tictactoe.goals(won) == {"xplayer": frozenset([100]), "oplayer": frozenset([0])}


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.kif")), ids=lambda p: p.stem)
def test_bundled_game_playouts_agree_with_the_engine(path: Path) -> None:
    """Three seeded random playouts of at most 30 steps agree with the engine state by
    state."""
    game = Game.from_file(path)
    with ReferenceSolver.from_gdl(path.read_text()) as solver:
        assert solver.roles == game.roles
        assert_playouts_agree(game, solver, seed=2024, playouts=3, steps=30)
        assert solver.updates > 0


@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_params(
    [f"ggp-repository/{name}.kif" for name in random.Random(4).sample(SMALL_CORPUS_GAMES, 10)]))
def test_corpus_sample_agrees_with_the_engine(name: str) -> None:
    """Ten small ggp-repository games, chosen by a fixed seed, play a short seeded playout
    the same in the reference and the engine (each game its own test)."""
    if not REPOSITORY.is_dir():
        pytest.skip(f"the public GDL corpus is not at {REPOSITORY}")
    text = (CORPUS / name).read_text(encoding="utf-8", errors="replace")
    assert "sees" not in text, name
    game = Game.from_gdl(text)
    with ReferenceSolver.from_gdl(text) as solver:
        assert solver.roles == game.roles, name
        assert_playouts_agree(game, solver, seed=len(Path(name).stem), playouts=1, steps=12)


def test_updates_count_answered_next_state_calls(tictactoe: ReferenceSolver) -> None:
    """``updates`` counts the successors computed, not the other queries."""
    state = tictactoe.initial_state()
    tictactoe.legal(state)
    tictactoe.terminal(state)
    for move in ("(mark 1 1)", "(mark 3 3)"):
        state = tictactoe.next_state(state, [move, "noop"])
    assert tictactoe.updates == 2


# -- supersets ---------------------------------------------------------------------------


@pytest.mark.corpus
def test_corpus_tictactoe_superset_has_27_cells_2_controls_and_20_moves() -> None:
    """ggp.org's tic-tac-toe relaxes to 27 cell fluents and 2 control fluents, and each
    role to 9 marks and a noop."""
    path = REPOSITORY / "ticTacToe.kif"
    if not path.is_file():
        pytest.skip(f"the public GDL corpus is not at {REPOSITORY}")
    with ReferenceSolver.from_gdl(path.read_text()) as solver:
        found = solver.supersets()
    cells = {f for f in found.fluents if f.startswith("(cell ")}
    controls = {f for f in found.fluents if f.startswith("(control ")}
    assert len(cells) == 27 and len(controls) == 2 and len(found.fluents) == 29
    for role in ("xplayer", "oplayer"):
        moves = {move for who, move in found.moves if who == role}
        assert moves == {f"(mark {x} {y})" for x in "123" for y in "123"} | {"noop"}
    assert found.atoms["true/1"] == {f"(true {f})" for f in found.fluents}
    assert found.seconds >= 0


@pytest.mark.parametrize("name", ["tictactoe", "connectfour", "breakthrough", "hanoi",
                                  "minichess", "cargo"])
def test_superset_equals_the_projects(name: str) -> None:
    """Fluents, moves and the atoms of every relation (true, does, init, role, legal, next,
    goal, terminal, base, input and auxiliary ones, goal and terminal included as the
    project includes them) equal the clingo grounding's relaxed superset. Both read
    ``(not (distinct a b))`` as an equality that stays in the relaxed rules."""
    text = (GAMES / f"{name}.kif").read_text()
    engine = supersets(text)
    with ReferenceSolver.from_gdl(text) as solver:
        found = solver.supersets()
    assert found.fluents == frozenset(engine.fluents)
    assert found.moves == frozenset(engine.moves)
    assert found.atoms == {f"{relation}/{arity}": frozenset(texts)
                           for (relation, arity), texts in engine.atoms.items()}


SIMPLE_REACH = """
(role r)
(init (at a))
(edge a b) (edge b c) (edge c b) (edge e a)
(<= (reach ?x ?y) (reach ?x ?z) (edge ?z ?y))
(<= (reach ?x ?y) (edge ?x ?y))
(<= (legal r (go ?y)) (true (at ?x)) (reach ?x ?y))
(<= (next (at ?y)) (does r (go ?y)))
(<= terminal (true (at c)))
(goal r 100)
"""


def test_superset_follows_relaxed_reachability() -> None:
    """The relaxed fixpoint reaches b and c from a, never the unreachable e, and reports
    every atom of the auxiliary relation as computed from its rules."""
    with ReferenceSolver.from_gdl(SIMPLE_REACH) as solver:
        found = solver.supersets()
    assert found.fluents == {"(at a)", "(at b)", "(at c)"}
    assert found.moves == {("r", "(go b)"), ("r", "(go c)")}
    assert found.atoms["reach/2"] == {
        "(reach a b)", "(reach a c)", "(reach b c)", "(reach b b)", "(reach c b)",
        "(reach c c)", "(reach e a)", "(reach e b)", "(reach e c)"}
    assert found.atoms["terminal/0"] == {"terminal"}


def test_superset_with_a_non_ground_relation_is_a_failure() -> None:
    """An (unsafe, hence unvalidated) rule whose relation comes out non-ground cannot be
    listed as ground atoms: the superset fails instead of inventing texts."""
    description = parse_game(SIMPLE_REACH + "(<= (anything ?x) (true (at a)))")
    with ReferenceSolver(description) as solver, pytest.raises(ReferenceFailure) as caught:
        solver.supersets()
    assert caught.value.reason == "non-ground"


# -- names and relations that mean something to Prolog -----------------------------------

PROLOG_NAMES = r"""
(role p)
(init (s '))      (init (s a.b))  (init (s X))   (init (s \))   (init (s %))
(init (s :-))     (init (s "q"))  (init (s 01))  (init (s 1))   (init (s [])) (init (s ,))
(init (s (:- {} |))) (init (s größe))
(<= (member ?x) (true (s ?x)))
(<= (call ?x) (member ?x) (distinct ?x 1))
(<= (legal p (pick ?x)) (call ?x))
(<= (next (s ?x)) (true (s ?x)) (not (does p (pick ?x))))
(<= (is halt) (member X))
(<= terminal (not (member a.b)))
(<= (goal p 100) (is halt))
"""
PROLOG_CONSTANTS = ("'", "a.b", "X", "\\", "%", ":-", '"q"', "01", "1", "[]", ",",
                    "(:- {} |)", "größe")


def test_names_that_are_prolog_syntax_stay_data() -> None:
    """Constants such as ', a.b, X, backslash, %, :-, "q", 01, [], , and größe are GDL names like
    any other, 01 and 1 stay different, and relations called member, call and is are the
    game's own relations, not Prolog's built-ins."""
    with ReferenceSolver.from_gdl(PROLOG_NAMES, case_sensitive=True) as solver:
        initial = solver.initial_state()
        assert initial == {f"(s {name})" for name in PROLOG_CONSTANTS}
        legal = solver.legal(initial)["p"]
        assert legal == {f"(pick {name})" for name in PROLOG_CONSTANTS if name != "1"}
        assert solver.goals(initial) == {"p": frozenset([100])}
        assert solver.terminal(initial) is False
        after = solver.next_state(initial, ["(pick a.b)"])
        assert after == initial - {"(s a.b)"}
        assert solver.terminal(after) is True
        found = solver.supersets()
        assert found.atoms["is/1"] == {"(is halt)"}
        assert found.atoms["call/1"] == {f"(call {name})" for name in PROLOG_CONSTANTS
                                         if name != "1"}


def test_program_text_quotes_every_name() -> None:
    """No GDL name reaches the Prolog program unquoted: relations get a prefix and every
    name is a quoted atom, so a name like member or X never means Prolog's."""
    text = prolog_program(parse_game(PROLOG_NAMES, case_sensitive=True))
    assert "'gdl:member'(V_0) :- 'gdl:true'('s'(V_0))." in text
    assert "'gdl:call'(V_0) :- 'gdl:member'(V_0), V_0\\=='1'." in text
    assert "'\\''" in text and "'\\\\'" in text


# -- recursion and negation --------------------------------------------------------------


def test_left_recursive_relation_terminates_with_the_right_answer() -> None:
    """``(reach ?x ?y)`` defined by left recursion over a cycle b-c terminates: from a, the
    legal moves are exactly the reachable b and c."""
    with ReferenceSolver.from_gdl(SIMPLE_REACH, timeout=5) as solver:
        assert solver.legal({"(at a)"}) == {"r": frozenset({"(go b)", "(go c)"})}
        assert solver.legal({"(at e)"}) == {"r": frozenset({"(go a)", "(go b)",
                                                            "(go c)"})}


STRATIFIED = """
(role r)
(node a) (node b) (node c) (node d)
(edge a b) (edge b a) (edge b c)
(<= (reach ?x ?y) (edge ?x ?y))
(<= (reach ?x ?y) (edge ?x ?z) (reach ?z ?y))
(<= (cut ?y) (true (at ?x)) (node ?y) (not (reach ?x ?y)))
(init (at a))
(<= (legal r (jump ?y)) (cut ?y))
(<= (next (at ?y)) (does r (jump ?y)))
(<= terminal (true (at d)))
(<= (goal r 0) (true (at d)))
(<= (goal r 100) (not (goal r 0)))
"""


def test_negation_of_a_recursive_relation_in_a_stratified_game() -> None:
    """A relation that negates a recursive one (``cut``: nodes not reachable) and a goal
    that negates another goal of its own relation (stratified only on the ground level)
    get their stratified meaning."""
    with ReferenceSolver.from_gdl(STRATIFIED) as solver:
        assert solver.legal({"(at a)"}) == {"r": frozenset({"(jump d)"})}
        assert solver.legal({"(at c)"}) == {"r": frozenset({"(jump a)", "(jump b)",
                                                            "(jump c)", "(jump d)"})}
        assert solver.goals({"(at a)"}) == {"r": frozenset([100])}
        assert solver.goals({"(at d)"}) == {"r": frozenset([0])}


TESTS_FIRST = """
(role r)
(node a) (node b) (node c) (wall c)
(init (at a))
(<= (legal r (go ?y)) (distinct ?y ?x) (not (wall ?y)) (true (at ?x)) (node ?y))
(<= (next (at ?y)) (does r (go ?y)))
"""


def test_negation_and_distinct_written_before_their_binders() -> None:
    """A body that writes ``distinct`` and ``not`` before the atoms binding their variables
    means the same as the safe order: from a, only b is legal (a is the same, c a wall)."""
    with ReferenceSolver.from_gdl(TESTS_FIRST) as solver:
        assert solver.legal({"(at a)"}) == {"r": frozenset({"(go b)"})}
        assert solver.supersets().moves == {("r", "(go a)"), ("r", "(go b)"),
                                            ("r", "(go c)")}


def test_unstratified_game_is_reported_not_answered() -> None:
    """Two legal moves that each hold when the other does not have no stratified meaning:
    the reference says so instead of picking an answer, and keeps answering other
    queries."""
    text = """(role r) (init (s 1))
              (<= (legal r a) (not (legal r b))) (<= (legal r b) (not (legal r a)))"""
    with ReferenceSolver.from_gdl(text) as solver:
        with pytest.raises(ReferenceFailure) as caught:
            solver.legal({"(s 1)"})
        assert caught.value.reason == "unstratified"
        assert solver.initial_state() == {"(s 1)"}  # a Prolog-side failure is not fatal


def test_game_without_init_or_terminal_rules_starts_empty_and_never_ends() -> None:
    """Relations the game never defines (init, terminal, goal) have no atoms: the initial
    state is empty, no state is terminal and no role has a goal value, as in the engine."""
    text = """(role r) (legal r wait) (<= (next (waited)) (does r wait))"""
    game = Game.from_gdl(text)
    with ReferenceSolver.from_gdl(text) as solver:
        assert solver.initial_state() == game.initial_state.fluents == frozenset()
        assert solver.terminal(frozenset()) is False
        assert solver.goals(frozenset()) == {"r": frozenset()}
        assert solver.next_state(frozenset(), ["wait"]) == {"waited"}


def test_goal_defects_are_reported_as_they_are() -> None:
    """A role with two goal values and a role with none come back as two values and an
    empty set."""
    text = """(role a) (role b) (init (s 1))
              (<= (goal a 0) (true (s 1))) (<= (goal a 100) (true (s 1)))"""
    with ReferenceSolver.from_gdl(text) as solver:
        assert solver.goals({"(s 1)"}) == {"a": frozenset([0, 100]), "b": frozenset()}


# -- failures ----------------------------------------------------------------------------

INFINITE = """
(role r)
(num 0)
(<= (num (s ?x)) (num ?x))
(<= (legal r (count ?x)) (num ?x))
(init (c 0))
(<= (next (c ?x)) (does r (count ?x)))
"""


def test_a_looping_game_exceeds_the_time_bound_and_stops_swipl() -> None:
    """A legal rule over the infinite chain 0, (s 0), (s (s 0)) ... makes Prolog loop: the
    query fails within the bound, swipl is gone, and the solver stays closed."""
    solver = ReferenceSolver.from_gdl(INFINITE, timeout=2)
    pid = solver.pid
    assert pid is not None
    assert solver.initial_state() == {"(c 0)"}
    start = time.monotonic()
    with pytest.raises(ReferenceFailure) as caught:
        solver.legal({"(c 0)"})
    assert (caught.value.reason, caught.value.limit) == ("time", 2)
    assert time.monotonic() - start < 5
    assert solver.pid is None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(ReferenceFailure) as caught:
        solver.initial_state()
    assert caught.value.reason == "closed"
    solver.close()  # idempotent


def test_missing_swipl_names_the_debian_package() -> None:
    """Without the swipl binary the failure tells what to install (the message is the
    output under test: it names the Debian package)."""
    with pytest.raises(ReferenceFailure) as caught:
        ReferenceSolver.from_gdl(TICTACTOE.read_text(), swipl="/nonexistent/swipl")
    assert caught.value.reason == "not-installed"
    assert "swi-prolog-nox" in str(caught.value)


def test_malformed_or_non_ground_input_is_refused_and_the_solver_lives_on(
        tictactoe: ReferenceSolver) -> None:
    """A fluent that does not parse, a move with a variable and a joint move of the wrong
    length are refused with a clear message; the solver still answers afterwards."""
    with pytest.raises(ReferenceFailure) as caught:
        tictactoe.legal(["(cell 1 1 b"])
    assert caught.value.reason == "malformed"
    with pytest.raises(ReferenceFailure) as caught:
        tictactoe.next_state(tictactoe.initial_state(), ["(mark ?x 1)", "noop"])
    assert caught.value.reason == "not-ground"
    with pytest.raises(ReferenceFailure) as caught:
        tictactoe.next_state(tictactoe.initial_state(), ["(mark 1 1)"])
    assert caught.value.reason == "joint-move"
    assert len(tictactoe.legal(tictactoe.initial_state())["xplayer"]) == 9


def test_closed_solver_refuses_queries(tictactoe: ReferenceSolver) -> None:
    """After close (which may be called twice) every query is a ReferenceFailure."""
    tictactoe.close()
    tictactoe.close()
    with pytest.raises(ReferenceFailure) as caught:
        tictactoe.initial_state()
    assert caught.value.reason == "closed"


def test_the_time_bound_in_the_message_is_rounded_for_people() -> None:
    """A bound of 1.23456 s reads "1.2 s" in the message (it read "1.23456 s"); the exact
    bound stays in the error's ``limit``."""
    with ReferenceSolver.from_gdl(INFINITE, timeout=1.23456) as solver, \
            pytest.raises(ReferenceFailure) as caught:
        solver.legal({"(c 0)"})
    assert "time bound of 1.2 s;" in str(caught.value)
    assert (caught.value.reason, caught.value.limit) == ("time", 1.23456)
