"""The seeds' search players (docs/semantics/search.md): iterative-deepening alpha-beta over the
service's heuristics, best-first over f_JO for one player, and MCTS by the clock; each
takes a deadline and keeps it."""

from __future__ import annotations

import random
import time

import pytest

from client.match import play_match
from client.players import (
    AlphaBetaPlayer,
    BestFirstPlayer,
    HeuristicEvaluator,
    HeuristicValues,
    MctsPlayer,
    RandomPlayer,
)
from client.players.heuristic_values import VALUE_HEURISTICS
from client.players.player import Player
from reasoner.arguments import ArgumentError
from reasoner.core.values import State, StateInfo
from reasoner.engine.game import Game
from tests.service_support import game_text

_GAMES: dict[str, Game] = {}


def _game(name: str) -> Game:
    if name not in _GAMES:
        _GAMES[name] = Game.from_gdl(game_text(name))
    return _GAMES[name]


def _after(game: Game, *steps: tuple[str, ...]) -> tuple[State, StateInfo]:
    """The state and info after the joint moves, each as GDL texts in role order."""
    state, info = game.initial()
    for texts in steps:
        joint = tuple(game.move(role, text).id for role, text in zip(game.roles, texts,
                                                                     strict=True))
        state, info = game.step(state, joint)
    return state, info


def test_alpha_beta_takes_a_win_in_one() -> None:
    """With X on (1 1) and (1 2) and (1 3) empty, alpha-beta plays (mark 1 3)."""
    game = _game("tictactoe")
    state, info = _after(game, ("(mark 1 1)", "noop"), ("noop", "(mark 2 1)"),
                         ("(mark 1 2)", "noop"), ("noop", "(mark 2 2)"))
    player = AlphaBetaPlayer(random.Random(0), seconds=5)
    player.start(game, 0)
    assert game.move_texts[player.choose(state, info)] == "(mark 1 3)"
    assert player.last_value == 1.0


def test_alpha_beta_blocks_a_loss_in_one() -> None:
    """With O threatening (2 3) and X unable to win at once, alpha-beta as X plays
    (mark 2 3)."""
    game = _game("tictactoe")
    state, info = _after(game, ("(mark 1 1)", "noop"), ("noop", "(mark 2 1)"),
                         ("(mark 3 3)", "noop"), ("noop", "(mark 2 2)"))
    player = AlphaBetaPlayer(random.Random(0), seconds=5)
    player.start(game, 0)
    assert game.move_texts[player.choose(state, info)] == "(mark 2 3)"


@pytest.mark.slow  # about 1 s
def test_alpha_beta_proves_tic_tac_toe_a_draw() -> None:
    """From the initial state, alpha-beta proves the value 0.5 (a draw) and stops
    deepening; two alpha-beta players then draw."""
    game = _game("tictactoe")
    player = AlphaBetaPlayer(random.Random(0), seconds=30)
    player.start(game, 0)
    state, info = game.initial()
    started = time.monotonic()
    player.choose(state, info)
    assert player.last_value == 0.5 and player.last_depth <= 9
    assert time.monotonic() - started < 25
    result = play_match(game, [AlphaBetaPlayer(random.Random(1), seconds=5),
                               AlphaBetaPlayer(random.Random(2), seconds=5)])
    assert result.goals == (50, 50)


def test_alpha_beta_keeps_its_deadline_and_reuses_its_table() -> None:
    """On connect four, a choice given half a second answers within it (plus one
    evaluation), having searched at least depth 2; asked again with no time left, it
    answers the same move from its transposition table, at the same depth."""
    game = _game("connectfour")
    player = AlphaBetaPlayer(random.Random(0))
    player.start(game, 0)
    state, info = game.initial()
    started = time.monotonic()
    move = player.choose(state, info, deadline=started + 0.5)
    assert time.monotonic() - started < 1.5
    depth = player.last_depth
    assert move in info.legal[0] and depth >= 2
    assert player.choose(state, info, deadline=time.monotonic() - 1) == move
    assert player.last_depth == depth


def test_alpha_beta_beats_random_players_at_tic_tac_toe() -> None:
    """In four matches, seats alternating, alpha-beta never loses to a random player."""
    game = _game("tictactoe")
    for k in range(4):
        players: list[Player] = [AlphaBetaPlayer(random.Random(k), seconds=2),
                                 RandomPlayer(random.Random(k))]
        if k % 2:
            players.reverse()
        result = play_match(game, players)
        mine = result.goals[k % 2]
        assert mine is not None and mine >= 50


@pytest.mark.parametrize("name", ["maze", "hanoi", "eightpuzzle", "lightsout"])
def test_best_first_solves_a_single_player_game(name: str) -> None:
    """Best-first over f_JO reaches goal 100 within 5,000 expansions in its first search,
    then follows its plan without searching again."""
    game = _game(name)
    player = BestFirstPlayer(random.Random(0), nodes=5000, seconds=60)
    result = play_match(game, [player])
    assert result.goals == (100,)
    assert player.best_terminal == 100
    assert player.searches == 1 and 0 < player.expanded <= 5000


def test_mcts_iterates_until_its_deadline() -> None:
    """Given a deadline, MCTS runs past its iteration count until the deadline and answers
    by it."""
    game = _game("connectfour")
    player = MctsPlayer(random.Random(0), playouts=1)
    player.start(game, 0)
    state, info = game.initial()
    started = time.monotonic()
    player.choose(state, info, deadline=started + 0.5)
    assert 0.5 <= time.monotonic() - started < 1.5
    assert player.last_iterations > 1


def test_mcts_with_a_heuristic_at_its_leaves() -> None:
    """MCTS whose leaves are valued by the fuzzy heuristic instead of playouts takes a win
    in one at tic-tac-toe, and the evaluator gives a terminal state its goals."""
    game = _game("tictactoe")
    state, info = _after(game, ("(mark 1 1)", "noop"), ("noop", "(mark 2 1)"),
                         ("(mark 1 2)", "noop"), ("noop", "(mark 2 2)"))
    evaluator = HeuristicEvaluator("fuzzy")
    player = MctsPlayer(random.Random(0), playouts=200, evaluator=evaluator)
    player.start(game, 0)
    move = player.choose(state, info)
    assert game.move_texts[move] == "(mark 1 3)"
    won, won_info = game.step(state, (move, info.legal[1][0]))
    assert evaluator(game, won, won_info, random.Random(0)) == (1.0, 0.0)
    values = evaluator(game, state, info, random.Random(0))
    assert len(values) == 2 and all(0 < v < 1 for v in values)


def test_a_distance_heuristic_is_refused_as_a_value() -> None:
    """hff is a cost, not a value: HeuristicValues refuses it, naming the ones it takes."""
    with pytest.raises(ArgumentError) as caught:
        HeuristicValues("hff")
    assert (caught.value.argument, caught.value.value) == ("heuristic", "hff")
    assert caught.value.allowed == tuple(VALUE_HEURISTICS) and "hff" not in VALUE_HEURISTICS
