"""``gdl-reasoner manage``: complete matches over HTTP on real ports between players (ours
and misbehaving peers), with 1, 2 and 3 roles and simultaneous moves; failed answers
replaced by random legal moves and recorded as GGP-Base records them; seats rotating; a
record and a results table."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from client.ggp.game_manager import MatchRecord, ping, run_match, seats, tally
from client.ggp.messages import read_message
from reasoner.cli.app import main
from reasoner.core.outcome import outcome
from reasoner.engine.game import Game
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.printer import print_game
from tests.conftest import ROOT, corpus_params
from tests.ggp_support import http_player, peer
from tests.service_support import game_text


def _match(name: str, players: list[str], *, start_clock: float = 3, play_clock: float = 1,
           record_states: bool = False) -> MatchRecord:
    text = game_text(name)
    return run_match(Game.from_gdl(text), print_game(parse_gdl(text)), players,
                     match_id="t.1", start_clock=start_clock, play_clock=play_clock,
                     game_name=name, record_states=record_states)


def test_a_two_player_match_between_our_players() -> None:
    """Alpha-beta against random at tic-tac-toe over HTTP: a terminal match, no replaced
    move, one move per role per step, and alpha-beta does not lose."""
    with http_player("alphabeta") as (first, _), http_player("random") as (second, _):
        record = _match("tictactoe", [first, second])
    assert record.terminal and 5 <= len(record.moves) <= 9
    assert all(errors == ["", ""] for errors in record.errors)
    assert all(len(step) == 2 for step in record.moves)
    assert record.goals[0] is not None and record.goals[0] >= 50


@pytest.mark.parametrize(("name", "strategies"), [
    ("maze", ["bestfirst"]),
    ("threeplayer", ["mcts", "random", "alphabeta"]),
    ("rps", ["mcts", "alphabeta"]),
])
def test_matches_with_one_three_and_simultaneous_players(name: str,
                                                         strategies: list[str]) -> None:
    """A one-player game (best-first), a three-player game and a simultaneous-move game
    each run to a terminal state with every move answered by its player."""
    with ExitStack() as stack:
        addresses = [stack.enter_context(http_player(s))[0] for s in strategies]
        record = _match(name, addresses)
    assert record.terminal
    assert not any(e for step in record.errors for e in step)
    assert all(goal is not None for goal in record.goals)
    if name == "maze":
        assert record.goals == [100]


def test_garbage_is_illegal_and_replaced() -> None:
    """A player that answers garbage has each move recorded IL with what it said, and a
    random legal move played for it; the match ends."""
    with peer(lambda body: "ready" if "START" in body else "done" if "STOP" in body
              else "(((") as garbage, http_player("random") as (ours, _):
        record = _match("tictactoe", [garbage, ours])
    assert record.terminal
    mine = [step[0] for step in record.errors]
    assert mine and set(mine) == {"IL"}
    assert record.answers[0][0] == "((("


def test_an_illegal_move_is_replaced() -> None:
    """A player that always answers (mark 2 2), illegal once it is taken, is recorded IL
    from then on; its legal answers stand."""
    with peer(lambda body: "(mark 2 2)") as stubborn, http_player("random") as (ours, _):
        record = _match("tictactoe", [stubborn, ours])
    assert record.moves[0][0] == "(mark 2 2)" and record.errors[0][0] == ""
    assert "IL" in [step[0] for step in record.errors[1:]]


def test_a_player_that_hangs_is_late_and_replaced() -> None:
    """A player that never answers a play within the play clock and a second is recorded
    TO for each move, which is replaced; the match still ends."""
    def slow(body: str) -> str:
        if "PLAY" in body:
            time.sleep(2.5)
        return "ready"

    with peer(slow) as hanging, http_player("random") as (ours, _):
        started = time.monotonic()
        record = _match("tictactoe", [hanging, ours], play_clock=0.5, start_clock=1)
    assert record.terminal and {step[0] for step in record.errors} == {"TO"}
    assert time.monotonic() - started < 2.0 * len(record.moves) + 5


def test_a_player_that_closes_the_connection_or_is_gone() -> None:
    """A player that closes the connection without answering, and one whose port is closed,
    are recorded CE (their starts too), their moves replaced."""
    with peer(lambda body: None) as closing, http_player("random") as (ours, _):
        record = _match("tictactoe", [closing, ours])
    assert {step[0] for step in record.errors} == {"CE"} and record.start_errors[0] == "CE"
    with http_player("random") as (ours, _):
        record = _match("tictactoe", [ours, "127.0.0.1:9"])
    assert {step[1] for step in record.errors} == {"CE"} and record.terminal


def test_play_and_stop_carry_the_moves_applied() -> None:
    """Every play after the first and the stop carry the joint move the manager applied
    (the replaced move included), in role order."""
    seen: list[str] = []

    def listen(body: str) -> str:
        seen.append(body)
        return "ready" if "START" in body else "nonsense"

    with peer(listen) as listener, http_player("random") as (ours, _):
        record = _match("tictactoe", [listener, ours])
    plays = [read_message(body) for body in seen if body.startswith("( PLAY")]
    stop = read_message(seen[-1])
    assert plays[0].moves is None
    assert [p.moves for p in plays[1:]] == [tuple(m) for m in record.moves[:-1]]
    assert stop.kind == "stop" and stop.moves == tuple(record.moves[-1])


def test_seats_rotate_over_matches() -> None:
    """In match k, role r is played by player (r + k) mod n."""
    assert [seats(["a", "b", "c"], k) for k in range(3)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]


def test_results_per_player() -> None:
    """Wins, draws and losses: the highest goal alone wins, a shared highest draws; one
    role: 100 wins, 0 loses. The tally counts replaced moves as errors."""
    assert [outcome([100, 0], 0), outcome([100, 0], 1)] == ["win", "loss"]
    assert outcome([50, 50, 0], 1) == "draw" and outcome([50, 50, 0], 2) == "loss"
    assert [outcome([100], 0), outcome([0], 0), outcome([40], 0)] == [
        "win", "loss", "draw"]
    with peer(lambda body: "ready" if "START" in body else "junk") as bad, \
            http_player("random") as (ours, _):
        record = _match("tictactoe", [ours, bad])
    entries = {entry.player: entry for entry in tally([record])}
    assert entries[bad].errors == sum(1 for step in record.errors if step[1])
    assert entries[ours].errors == 0 and entries[ours].matches == 1


def test_ping_reads_old_and_new_info_answers() -> None:
    """(info) is read from the property list and from an old player's bare available."""
    with peer(lambda body: "available") as old, http_player() as (new, _):
        assert ping(old) == "available"
        assert ping(new) == "available"


def test_the_record_keeps_states_on_request() -> None:
    """With states, the record lists the fluents of every state, the initial one first
    and the terminal one last."""
    with http_player("random") as (a, _), http_player("random") as (b, _):
        record = _match("tictactoe", [a, b], record_states=True)
    assert record.states is not None and len(record.states) == len(record.moves) + 1
    assert "(control xplayer)" in record.states[0]


def test_manage_runs_matches_and_prints_the_table(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`gdl-reasoner manage` plays two matches with seats swapped, writes a record per
    match and prints a results table with a row per player."""
    with http_player("alphabeta") as (a, _), http_player("random") as (b, _):
        status = main(["manage", str(ROOT / "games" / "tictactoe.kif"), "--player", a,
                       "--player", b, "--matches", "2", "--startclock", "2",
                       "--playclock", "1", "--record", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*.json"))]
    assert len(records) == 2
    assert records[0]["players"] == [a, b] and records[1]["players"] == [b, a]
    assert "mean goal" in out and out.count(a) >= 3 and out.count(b) >= 3


def test_manage_refuses_the_wrong_number_of_players(capsys: pytest.CaptureFixture[str]) -> None:
    """One player for a two-role game is a usage error naming the roles."""
    with http_player() as (a, _):
        status = main(["manage", str(ROOT / "games" / "tictactoe.kif"), "--player", a])
    assert status == 2
    assert "2 roles (xplayer, oplayer) but --player names 1" in capsys.readouterr().err


def _match_sample() -> list[str]:
    """Eight corpus files (rule files up to 12 kB, base GDL) drawn with a fixed seed, at
    collection (none without the corpus)."""
    import random

    from tests.conftest import CORPUS
    from tests.test_crosscheck import _pool

    if not CORPUS.is_dir():
        return []
    drawn = random.Random(1717).sample(_pool(CORPUS), 8)
    return sorted(str(p.relative_to(CORPUS)) for p in drawn)


@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_params(_match_sample()))
def test_a_corpus_game_is_played_over_http(name: str) -> None:
    """A corpus file drawn with a fixed seed: if the engine loads it, a match of up to 20
    steps between our HTTP players (MCTS, alpha-beta, random by seat) runs through our
    manager with every move answered in time and legal; if not, the reason is a documented
    error."""
    from reasoner.errors import ReasonerError
    from tests.conftest import CORPUS

    text = (CORPUS / name).read_text(encoding="utf-8", errors="replace")
    try:
        game = Game.from_gdl(text)
    except ReasonerError as error:
        pytest.skip(f"rejected: {type(error).__name__}: {str(error)[:120]}")
    strategies = ["mcts", "alphabeta", "random"]
    with ExitStack() as stack:
        addresses = [stack.enter_context(http_player(strategies[r % 3], margin=0.3))[0]
                     for r in range(len(game.roles))]
        record = run_match(game, print_game(parse_gdl(text)), addresses, match_id="corpus.1",
                           start_clock=10, play_clock=1, max_steps=20, game_name=name)
    assert not any(record.start_errors), record.start_errors
    assert not any(e for step in record.errors for e in step), (record.errors,
                                                                 record.answers)
    assert record.terminal or len(record.moves) == 20
