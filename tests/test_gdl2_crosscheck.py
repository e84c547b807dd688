"""GDL-II in the cross-check (docs/semantics/crosschecking.md): the Prolog reference answers
percepts (``sees``), and the engine's percepts are compared with them after every joint move
of the seeded playouts, on the bundled GDL-II games and on corpus files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence

import pytest

from reasoner import Game
from reasoner.crosscheck import CrossCheck, EngineSide, Side, compare_sides
from reasoner.crosscheck.run import crosscheck_game
from reasoner.errors import ReferenceFailure
from reasoner.reference import ReferenceSolver
from tests.conftest import CORPUS, GAMES, corpus_params

pytestmark = [pytest.mark.needs_tools,
              pytest.mark.skipif(shutil.which("swipl") is None,
                                 reason="SWI-Prolog (Debian package swi-prolog-nox) is not "
                                        "installed")]

MONTYHALL = (GAMES / "montyhall.kif").read_text()
BLINDTICTACTOE = (GAMES / "blindtictactoe.kif").read_text()
# The host's opened door shown as the door the car hides behind: a wrong sees rule.
OPEN_DOOR = "(<= (sees candidate (open_door ?d)) (does random (open_door ?d)))"
WRONG_MONTYHALL = MONTYHALL.replace(
    OPEN_DOOR, "(<= (sees candidate (open_door ?d)) (does random (hide_car ?d)))")
# Blind tic-tac-toe with ok and taken swapped.
SWAPPED_BLIND = (BLINDTICTACTOE.replace("(sees ?r ok)", "(sees ?r was_ok)")
                 .replace("(sees ?r taken)", "(sees ?r ok)")
                 .replace("(sees ?r was_ok)", "(sees ?r taken)"))
# A tiny game whose sees rule reads the successor through next (Dresden's dialect).
COUNTER = """
(role r) (init (n 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (legal r up) (true (n ?x)))
(<= (legal r stay) (true (n ?x)))
(<= (next (n ?y)) (does r up) (true (n ?x)) (succ ?x ?y))
(<= (next (n ?x)) (does r stay) (true (n ?x)))
(<= (sees r (now ?x)) (next (n ?x)))
(<= terminal (true (n 3)))
(goal r 100)
"""
GDL2_CORPUS = ("uwa-gamecontroller-gdl2/kriegTTT_4x4.kif",
               "uwa-gamecontroller-gdl2/blind_breakthrough_5x5.kif",
               "uwa-gamecontroller-gdl2/transit.kif",
               "uwa-gamecontroller-gdl2/vis_pacman3p.kif")


class _Counting:
    """A side that passes every query on and counts the percepts it answered, so that a test
    can tell an agreement on percepts from two sides that never perceive anything."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.seen = 0

    @property
    def roles(self) -> tuple[str, ...]:
        return self.side.roles

    def initial_state(self) -> frozenset[str]:
        return self.side.initial_state()

    def legal(self, state: frozenset[str]) -> dict[str, frozenset[str]]:
        return self.side.legal(state)

    def next_state(self, state: frozenset[str], joint: Sequence[str]) -> frozenset[str]:
        return self.side.next_state(state, joint)

    def sees(self, state: frozenset[str], joint: Sequence[str]) -> dict[str, frozenset[str]]:
        found = self.side.sees(state, joint)
        self.seen += sum(len(percepts) for percepts in found.values())
        return found

    def terminal(self, state: frozenset[str]) -> bool:
        return self.side.terminal(state)

    def goals(self, state: frozenset[str]) -> dict[str, frozenset[int]]:
        return self.side.goals(state)


def _check(text: str, *, playouts: int, max_steps: int, seed: int = 0,
           timeout: float = 30.0) -> tuple[CrossCheck, int]:
    """The engine against the reference with percepts compared; the outcome and how many
    percepts the reference answered."""
    game = Game.from_gdl(text)
    assert game.is_gdl2
    with ReferenceSolver.from_gdl(text, timeout=timeout) as solver:
        reference = _Counting(solver)
        result = compare_sides(EngineSide(game), reference, playouts=playouts, seed=seed,
                               max_steps=max_steps, percepts=True)
    return result, reference.seen


@pytest.fixture
def montyhall() -> Iterator[ReferenceSolver]:
    """The bundled Monty Hall in a fresh reference solver."""
    with ReferenceSolver.from_gdl(MONTYHALL) as solver:
        yield solver


def test_reference_percepts_of_montyhall_after_choosing_door_1_and_opening_door_2(
        montyhall: ReferenceSolver) -> None:
    """Monty Hall with the car behind door 3: after the candidate chooses door 1, the host's
    opening of door 2 is seen by the candidate with its own move; random sees the
    candidate's move only."""
    state = montyhall.initial_state()
    joint = ["(choose 1)", "(hide_car 3)"]
    assert montyhall.sees(state, joint) == {
        "candidate": frozenset({"(did candidate (choose 1))"}),
        "random": frozenset({"(did candidate (choose 1))"})}
    state = montyhall.next_state(state, joint)
    assert montyhall.sees(state, ["noop", "(open_door 2)"]) == {
        "candidate": frozenset({"(did candidate noop)", "(open_door 2)"}),
        "random": frozenset({"(did candidate noop)"})}


def test_reference_percepts_agree_with_the_engine_on_montyhall(
        montyhall: ReferenceSolver) -> None:
    """The reference's percepts for the Monty Hall joint moves above are the engine's
    ``Game.sees``."""
    game = Game.from_gdl(MONTYHALL)
    state = game.next_state(game.initial_state, {"candidate": "(choose 1)",
                                                 "random": "(hide_car 3)"})
    engine = game.sees(state, {"candidate": "noop", "random": "(open_door 2)"})
    theirs = montyhall.sees(state.fluents, ["noop", "(open_door 2)"])
    assert {role: frozenset(texts) for role, texts in engine.items()} == theirs


def test_reference_sees_rules_read_the_successor_through_next() -> None:
    """A sees rule that reads next perceives the successor's fluents computed from the same
    state and joint move."""
    with ReferenceSolver.from_gdl(COUNTER) as solver:
        state = solver.initial_state()
        assert solver.sees(state, ["up"]) == {"r": frozenset({"(now 1)"})}
        assert solver.sees(state, ["stay"]) == {"r": frozenset({"(now 0)"})}


def test_reference_percepts_of_a_plain_game_are_empty() -> None:
    """In a game without sees rules the reference answers no percept for any role."""
    with ReferenceSolver.from_gdl((GAMES / "tictactoe.kif").read_text()) as solver:
        found = solver.sees(solver.initial_state(), ["(mark 1 1)", "noop"])
    assert found == {"xplayer": frozenset(), "oplayer": frozenset()}


def test_reference_percepts_refuse_a_joint_move_that_is_not_ground_or_incomplete(
        montyhall: ReferenceSolver) -> None:
    """The reference reads a joint move as GDL terms, never as Prolog: a move with a
    variable is refused as not ground, and a joint move without a move per role is refused."""
    state = montyhall.initial_state()
    with pytest.raises(ReferenceFailure) as raised:
        montyhall.sees(state, ["(choose ?d)", "(hide_car 3)"])
    assert raised.value.reason == "not-ground"
    with pytest.raises(ReferenceFailure) as raised:
        montyhall.sees(state, ["(choose 1)"])
    assert raised.value.reason == "joint-move"


@pytest.mark.parametrize("text", [MONTYHALL, BLINDTICTACTOE, COUNTER],
                         ids=["montyhall", "blindtictactoe", "counter"])
def test_bundled_gdl2_games_agree_with_percepts_compared(text: str) -> None:
    """A GDL-II game agrees with the reference along seeded playouts with percepts compared
    after every joint move (random's moves drawn like any role's), and the percepts compared
    are not all empty."""
    result, seen = _check(text, playouts=6, max_steps=60, seed=3)
    assert result.agree, result.disagreement and result.disagreement.describe()
    assert result.percepts >= result.states - result.playouts > 0
    assert seen > 0


def test_crosscheck_game_counts_the_percepts_it_compared() -> None:
    """``crosscheck_game`` compares percepts on a GDL-II game and reports how many joint
    moves' percepts it compared; on a plain game it compares none."""
    gdl2 = crosscheck_game(BLINDTICTACTOE, playouts=3, seed=1, max_steps=40)
    assert gdl2.fate == "agree", gdl2.reason
    assert gdl2.percepts > 0
    plain = crosscheck_game((GAMES / "tictactoe.kif").read_text(), playouts=2, seed=1,
                            max_steps=40, supersets=False)
    assert plain.fate == "agree", plain.reason
    assert plain.percepts == 0


def test_a_wrong_sees_rule_is_caught_at_the_first_joint_move() -> None:
    """A reference built with one sees rule changed (the candidate sees the car's door as the
    opened one) disagrees with the engine on the candidate's percepts after the very first
    joint move, and the reported joint moves reproduce it from the initial state."""
    game = Game.from_gdl(MONTYHALL)
    with ReferenceSolver.from_gdl(WRONG_MONTYHALL) as wrong:
        found = compare_sides(EngineSide(game), wrong, playouts=3, seed=0,
                              percepts=True).disagreement
    assert found is not None
    assert found.aspect == "percepts of candidate"
    assert found.step == 1 and len(found.moves) == 1
    (joint,) = found.moves
    car = joint[1].removeprefix("(hide_car ").removesuffix(")")
    assert found.theirs - found.ours == {f"(open_door {car})"}
    assert found.state == game.initial_state.fluents
    text = found.describe("engine", "reference")
    assert "disagreement on percepts of candidate" in text
    assert f"only reference (1): (open_door {car})" in text


def test_a_wrong_engine_percept_fails_the_crosscheck() -> None:
    """An engine whose blind tic-tac-toe swaps ok and taken disagrees with the reference on
    the game's own rules, on a role's percepts (the state machine is unchanged, so the
    cross-check fails on percepts alone)."""
    wrong = EngineSide(Game.from_gdl(SWAPPED_BLIND))
    with ReferenceSolver.from_gdl(BLINDTICTACTOE) as reference:
        found = compare_sides(wrong, reference, playouts=2, seed=0, max_steps=20,
                              percepts=True).disagreement
    assert found is not None
    assert found.aspect.startswith("percepts of ") and found.step == 1
    assert {found.ours, found.theirs} == {frozenset({"ok"}), frozenset({"taken"})}


def test_percepts_are_not_compared_unless_asked() -> None:
    """Without ``percepts`` the comparator leaves percepts alone: the wrong sees rule goes
    unnoticed (``crosscheck_game`` asks for them on every GDL-II game)."""
    with ReferenceSolver.from_gdl(WRONG_MONTYHALL) as wrong:
        result = compare_sides(EngineSide(Game.from_gdl(MONTYHALL)), wrong, playouts=3,
                               seed=0)
    assert result.agree and result.percepts == 0


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_params(list(GDL2_CORPUS)))
def test_corpus_gdl2_file_agrees_with_percepts_compared(name: str) -> None:
    """A GDL-II corpus file (vis_pacman3p's sees rules read next) agrees with the reference
    along seeded playouts with percepts compared after every joint move, some of them not
    empty."""
    text = (CORPUS / name).read_text(encoding="utf-8", errors="replace")
    result, seen = _check(text, playouts=2, max_steps=30)
    assert result.agree, result.disagreement and result.disagreement.describe()
    assert result.percepts > 0 and seen > 0

