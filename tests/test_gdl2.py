"""GDL-II: percepts (``sees``) per role on every backend, and information-set sampling
(:func:`reasoner.engine.information_set.sample_information_set`) checked against a brute
force over every joint-move history."""

from __future__ import annotations

import itertools
import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from reasoner import (
    Game,
    GdlValidationError,
    IllegalMoveError,
    InvalidStateError,
    ResourceLimitError,
    State,
)
from reasoner.engine.information_set import Turn, sample_information_set
from reasoner.errors import GoalError
from tests.conftest import CORPUS, GAMES, bundled, corpus_params

GDL2 = "uwa-gamecontroller-gdl2"
CORPUS_FILES = ["kriegTTT_4x4.kif", "blind_breakthrough_5x5.kif", "transit.kif"]
STEPS = 12  # joint moves per random walk in the agreement checks


# -- montyhall's percepts ---------------------------------------------------------------------


def _monty_after_choice(car: int = 3) -> State:
    game = bundled("montyhall")
    return game.next_state(game.initial_state,
                           {"candidate": "(choose 1)", "random": f"(hide_car {car})"})


def test_montyhall_is_gdl2_with_random_as_nature() -> None:
    """montyhall is read as GDL-II and its role ``random`` is the nature player."""
    game = bundled("montyhall")
    assert game.is_gdl2
    assert game.random_role == "random"
    assert game.roles == ("candidate", "random")


def test_montyhall_candidate_sees_its_choice_but_not_the_car() -> None:
    """After choosing door 1 the candidate perceives only its own move, not where the car
    was hidden."""
    game = bundled("montyhall")
    for car in (1, 2, 3):
        seen = game.sees(game.initial_state,
                         {"candidate": "(choose 1)", "random": f"(hide_car {car})"})
        assert seen["candidate"] == ("(did candidate (choose 1))",)


def test_montyhall_candidate_sees_the_opened_door() -> None:
    """When the host opens door 2 the candidate perceives its noop and the opened door."""
    game = bundled("montyhall")
    seen = game.sees(_monty_after_choice(3), {"candidate": "noop", "random": "(open_door 2)"})
    assert seen["candidate"] == ("(did candidate noop)", "(open_door 2)")


def test_montyhall_random_sees_the_candidates_moves() -> None:
    """The random role perceives the candidate's move, and nothing of its own."""
    game = bundled("montyhall")
    first = game.sees(game.initial_state, {"candidate": "(choose 2)", "random": "(hide_car 1)"})
    assert first["random"] == ("(did candidate (choose 2))",)
    second = game.sees(_monty_after_choice(3), {"candidate": "noop", "random": "(open_door 2)"})
    assert second["random"] == ("(did candidate noop)",)


def test_montyhall_sees_refuses_an_illegal_move() -> None:
    """``sees`` checks legality: the host may not open the door that hides the car."""
    game = bundled("montyhall")
    with pytest.raises(IllegalMoveError):
        game.sees(_monty_after_choice(3), {"candidate": "noop", "random": "(open_door 3)"})
    with pytest.raises(IllegalMoveError):
        game.sees(game.initial_state, {"candidate": "switch", "random": "(hide_car 1)"})


def test_montyhall_candidate_sees_the_car_at_the_end() -> None:
    """In the last turn the candidate perceives where the car is."""
    game = bundled("montyhall")
    state = game.next_state(_monty_after_choice(3), {"candidate": "noop",
                                                    "random": "(open_door 2)"})
    seen = game.sees(state, {"candidate": "switch", "random": "noop"})
    assert "(car 3)" in seen["candidate"]


# -- a plain GDL game -------------------------------------------------------------------------


def test_plain_gdl_game_has_no_percepts() -> None:
    """tictactoe is not GDL-II: no random role, an empty percept table and no percepts."""
    game = bundled("tictactoe")
    assert not game.is_gdl2
    assert game.random_role is None
    assert game.percept_table == ()
    state = game.initial_state
    assert game.sees(state, {"xplayer": "(mark 1 1)", "oplayer": "noop"}) == {
        "xplayer": (), "oplayer": ()}
    joint = (game.move_id("xplayer", "(mark 1 1)"), game.move_id("oplayer", "noop"))
    assert game.percept_ids(state, joint) == ((), ())


# -- blind tic-tac-toe ------------------------------------------------------------------------


def test_blindtictactoe_mover_learns_only_whether_its_mark_landed() -> None:
    """The mover perceives ok on a blank cell, taken on a marked one (which wastes the turn
    and leaves the board as it was); the other role perceives nothing."""
    game = bundled("blindtictactoe")
    state = game.next_state(game.initial_state, {"xplayer": "(mark 2 2)", "oplayer": "noop"})
    assert game.sees(game.initial_state, {"xplayer": "(mark 2 2)", "oplayer": "noop"}) == {
        "xplayer": ("ok",), "oplayer": ()}
    joint = {"xplayer": "noop", "oplayer": "(mark 2 2)"}
    assert game.sees(state, joint) == {"xplayer": (), "oplayer": ("taken",)}
    wasted = game.next_state(state, joint)
    cells = {f for f in wasted.fluents if f.startswith("(cell")}
    assert cells == {f for f in state.fluents if f.startswith("(cell")}
    assert "(control xplayer)" in wasted.fluents


def test_blindtictactoe_random_games_end_with_goals() -> None:
    """Seeded random games end within 20 turns, each role with 0, 50 or 100, summing to
    100."""
    game = bundled("blindtictactoe")
    for seed in range(30):
        rng = random.Random(seed)
        state = game.initial_state
        turns = 0
        while not game.is_terminal(state):
            joint = {role: rng.choice(game.legal_moves(state, role)) for role in game.roles}
            state = game.next_state(state, joint)
            turns += 1
        goals = game.goals(state)
        assert turns <= 20
        assert set(goals.values()) <= {0, 50, 100} and sum(goals.values()) == 100


# -- percepts agree across backends -----------------------------------------------------------


def _outcome(game: Game, state: State) -> object:
    """The goals of a state, or the class of the error asking for them raises."""
    try:
        return game.goals(state)
    except GoalError as error:
        return type(error).__name__


def _check_agreement(path: Path, backends: Sequence[str], walks: int, seed: int) -> None:
    """Seeded random walks on every backend at once: the same legal moves, terminal,
    goals, successor and percepts at every state (moves drawn from the first backend's)."""
    games = [Game.from_file(path, backend=name) for name in backends]
    first = games[0]
    for game, name in zip(games[1:], backends[1:], strict=True):
        assert game.percept_table == first.percept_table, name
        assert game.roles == first.roles, name
    for walk in range(walks):
        rng = random.Random(seed + walk)
        states = [game.initial_state for game in games]
        for _ in range(STEPS):
            where = f"{path.name} walk {walk}"
            pairs = list(zip(games, states, strict=True))
            terminal = [game.is_terminal(state) for game, state in pairs]
            assert len(set(terminal)) == 1, (where, terminal)
            goals = [_outcome(game, state) for game, state in pairs]
            assert all(g == goals[0] for g in goals), (where, goals)
            if terminal[0]:
                break
            legal = [{role: sorted(m.text for m in game.legal_moves(state, role))
                      for role in game.roles} for game, state in pairs]
            assert all(sets == legal[0] for sets in legal), where
            joint_text = {role: rng.choice(legal[0][role]) for role in first.roles}
            percepts = []
            following = []
            for game, state in pairs:
                joint = tuple(game.move_id(role, joint_text[role]) for role in game.roles)
                percepts.append(game.percept_ids(state, joint))
                following.append(game.next_state(state, joint_text))
            assert all(p == percepts[0] for p in percepts), (where, joint_text, percepts)
            assert all(s.fluents == following[0].fluents for s in following), (where,
                                                                               joint_text)
            states = following


def _backends() -> list[object]:
    topdown_marks = [pytest.mark.needs_tools]
    if shutil.which("swipl") is None:
        topdown_marks.append(pytest.mark.skip(reason="SWI-Prolog (swipl) is not installed"))
    return [pytest.param(("clingo", "native"), id="native"),
            pytest.param(("clingo", "compiled"), id="compiled", marks=pytest.mark.slow),
            pytest.param(("clingo", "topdown"), id="topdown", marks=topdown_marks)]


@pytest.mark.parametrize("backends", _backends())
@pytest.mark.parametrize("name", ["montyhall", "blindtictactoe"])
def test_bundled_percepts_agree_across_backends(name: str, backends: Sequence[str]) -> None:
    """On the bundled GDL-II games, seeded random walks see the same legal moves, terminal,
    goals, successors and percept ids on clingo and on the other backend."""
    _check_agreement(GAMES / f"{name}.kif", backends, walks=6, seed=1)


@pytest.mark.corpus
@pytest.mark.parametrize("backends", _backends())
@pytest.mark.parametrize("name", corpus_params(CORPUS_FILES))
def test_corpus_percepts_agree_across_backends(name: str | None,
                                               backends: Sequence[str]) -> None:
    """On corpus GDL-II games (Kriegspiel tic-tac-toe, blind breakthrough, transit), seeded
    random walks see the same legal moves, terminal, goals, successors and percept ids on
    clingo and on the other backend."""
    assert name is not None
    _check_agreement(CORPUS / GDL2 / name, backends, walks=3, seed=5)


# -- information sets: a brute force to compare with ------------------------------------------


def _consistent_states(game: Game, role: str, history: Sequence[Turn]) -> set[State]:
    """Every state reached by a history of legal joint moves in which ``role`` played its
    moves and perceived exactly its percepts (as text) at every turn: all joint moves of
    every turn enumerated, through :meth:`Game.sees` and :meth:`Game.next_state`."""
    frontier = {game.initial_state}
    for turn in history:
        wanted = sorted(str(p) for p in turn.percepts)
        own = game.move(role, turn.move).text
        reached: set[State] = set()
        for state in frontier:
            if game.is_terminal(state):
                continue
            legal = [[m.text for m in game.legal_moves(state, r)] for r in game.roles]
            for choice in itertools.product(*legal):
                joint = dict(zip(game.roles, choice, strict=True))
                if joint[role] != own:
                    continue
                if sorted(game.sees(state, joint)[role]) != wanted:
                    continue
                reached.add(game.next_state(state, joint))
        frontier = reached
    return frontier


def _check_against_brute_force(game: Game, role: str, history: Sequence[Turn],
                               samples: int = 200) -> set[State]:
    consistent = _consistent_states(game, role, history)
    found = sample_information_set(game, role, history, count=samples, seed=3)
    assert not found.exhausted
    assert len(found.states) == samples
    sampled = set(found.states)
    assert sampled <= consistent
    assert sampled == consistent, f"{len(consistent - sampled)} consistent states not sampled"
    return consistent


MONTY_HISTORY = [Turn("(choose 1)", ("(did candidate (choose 1))",)),
                 Turn("noop", ("(did candidate noop)", "(open_door 2)"))]


def test_montyhall_information_set_after_the_host_opens_door_2() -> None:
    """After choosing door 1 and seeing door 2 opened, every sampled state has door 1
    chosen, door 2 opened and the car behind door 1 or 3, and both cars are sampled."""
    game = bundled("montyhall")
    found = sample_information_set(game, "candidate", MONTY_HISTORY, count=40, seed=0)
    cars = set()
    for state in found.states:
        assert "(chosen 1)" in state.fluents
        assert "(opened 2)" in state.fluents
        car = {f for f in state.fluents if f.startswith("(car")}
        assert car in ({"(car 1)"}, {"(car 3)"})
        cars |= car
    assert cars == {"(car 1)", "(car 3)"}


def test_montyhall_information_set_matches_brute_force() -> None:
    """200 samples after [choose 1; noop + door 2 opened] are exactly the states that an
    enumeration of every joint-move history finds consistent with the candidate's view."""
    game = bundled("montyhall")
    consistent = _check_against_brute_force(game, "candidate", MONTY_HISTORY)
    assert len(consistent) == 2


def test_montyhall_information_set_of_random() -> None:
    """The random role, which chose the car, knows the state exactly: one state only."""
    game = bundled("montyhall")
    history = [Turn("(hide_car 3)", ("(did candidate (choose 1))",)),
               Turn("(open_door 2)", ("(did candidate noop)",))]
    consistent = _check_against_brute_force(game, "random", history, samples=20)
    assert len(consistent) == 1


def test_information_set_of_an_empty_history_is_the_initial_state() -> None:
    """With no turn played, the only state a role can be in is the initial one."""
    game = bundled("montyhall")
    found = sample_information_set(game, "candidate", [], count=3)
    assert found.states == (game.initial_state,) * 3


def test_inconsistent_history_names_the_turn() -> None:
    """A history no state explains (the host opening the chosen door) raises
    InvalidStateError with reason inconsistent-history, naming the turn."""
    game = bundled("montyhall")
    history = [Turn("(choose 1)", ("(did candidate (choose 1))",)),
               Turn("noop", ("(did candidate noop)", "(open_door 1)"))]
    with pytest.raises(InvalidStateError, match="turn 1") as caught:
        sample_information_set(game, "candidate", history)
    assert caught.value.reason == "inconsistent-history"


def test_unknown_percept_is_refused() -> None:
    """A percept the role can never receive raises InvalidStateError naming the turn."""
    game = bundled("montyhall")
    history = [Turn("(choose 1)", ("(did candidate (choose 1))",)),
               Turn("noop", ("(car 2)", "(open_door 7)"))]
    with pytest.raises(InvalidStateError, match="turn 1") as caught:
        sample_information_set(game, "candidate", history)
    assert caught.value.reason == "inconsistent-history"


def test_unknown_role_is_refused() -> None:
    """A role the game does not have raises IllegalMoveError (reason unknown-role)."""
    game = bundled("montyhall")
    with pytest.raises(IllegalMoveError) as caught:
        sample_information_set(game, "host", MONTY_HISTORY)
    assert caught.value.reason == "unknown-role"


def test_node_budget_too_small_raises_resource_limit() -> None:
    """``max_nodes=1`` cannot explain a two-turn history: ResourceLimitError, not a claim
    that the history is inconsistent."""
    game = bundled("montyhall")
    with pytest.raises(ResourceLimitError) as caught:
        sample_information_set(game, "candidate", MONTY_HISTORY, max_nodes=1)
    assert caught.value.reason == "information-set"


BLIND_X = [Turn("(mark 1 1)", ("ok",)), Turn("noop"), Turn("(mark 2 2)", ("ok",))]
BLIND_O = [Turn("noop"), Turn("(mark 2 2)", ("taken",)), Turn("noop")]


def test_blindtictactoe_information_set_of_xplayer() -> None:
    """After marking (1 1), waiting and marking (2 2) successfully, xplayer's 200 samples are
    exactly the brute force's states: oplayer marked any cell but (2 2), or wasted its turn on
    (1 1)."""
    game = bundled("blindtictactoe")
    consistent = _check_against_brute_force(game, "xplayer", BLIND_X)
    assert len(consistent) == 8
    for state in consistent:
        assert {"(cell 1 1 x)", "(cell 2 2 x)"} <= state.fluents


def test_blindtictactoe_information_set_of_oplayer() -> None:
    """oplayer, whose mark on (2 2) was refused, knows xplayer holds (2 2); xplayer's second
    mark may be on any other cell or wasted on (2 2): 9 states, all sampled."""
    game = bundled("blindtictactoe")
    consistent = _check_against_brute_force(game, "oplayer", BLIND_O)
    assert len(consistent) == 9
    for state in consistent:
        assert "(cell 2 2 x)" in state.fluents
        assert not any(f.endswith(" o)") for f in state.fluents)


def test_blindtictactoe_percept_text_may_be_written_in_parentheses() -> None:
    """A percept may be given as ``(ok)``, which GDL reads as the constant ok."""
    game = bundled("blindtictactoe")
    history = [Turn("(mark 1 1)", ("(ok)",))]
    found = sample_information_set(game, "xplayer", history, count=2)
    assert all("(cell 1 1 x)" in state.fluents for state in found.states)


# -- the parser's open percepts ---------------------------------------------------------------

OPEN_PERCEPT = """
(role a) (role b)
(init (at 1)) (init (at 2)) (init start)
(legal a go) (legal b go)
(<= (next (at ?x)) (true (at ?x)))
(<= (next done) (true start))
(<= (sees ?p (at ?x)) (true (at ?x)))
(<= terminal (true done))
(goal a 0) (goal b 0)
"""


def test_open_percept_is_read_for_every_role_with_a_warning() -> None:
    """A ``sees`` rule whose role no body literal binds loads with a warning, and every role
    receives its percept."""
    game = Game.from_gdl(OPEN_PERCEPT)
    assert any("sees" in warning and "every role" in warning for warning in game.warnings)
    assert game.sees(game.initial_state, {"a": "go", "b": "go"}) == {
        "a": ("(at 1)", "(at 2)"), "b": ("(at 1)", "(at 2)")}


def test_open_percept_is_refused_when_strict() -> None:
    """Read strictly, the same rule is refused with its line and column."""
    with pytest.raises(GdlValidationError, match="line 7, column 1"):
        Game.from_gdl(OPEN_PERCEPT, strict=True)


@pytest.mark.parametrize(("backend", "source"), [("native", "network"), ("clingo", "clingo"),
                                                 ("compiled", "clingo")])
def test_percepts_come_from_the_network_on_the_native_kernel(backend: str, source: str) -> None:
    """On the native kernel a GDL-II game's percepts are outputs of its network; on the
    other backends clingo answers them over the rules sees reads; both give Monty Hall's
    candidate the door the host opened."""
    game = Game.from_file(GAMES / "montyhall.kif", backend=backend)
    assert game.percept_source == source
    state = game.next_state(game.initial_state, {"candidate": "(choose 1)",
                                                 "random": "(hide_car 3)"})
    seen = game.sees(state, {"candidate": "noop", "random": "(open_door 2)"})
    assert seen["candidate"] == ("(did candidate noop)", "(open_door 2)")


def test_a_plain_game_has_no_percept_source() -> None:
    """Tic-tac-toe is not GDL-II: nothing answers percepts."""
    assert Game.from_file(GAMES / "tictactoe.kif").percept_source == ""
