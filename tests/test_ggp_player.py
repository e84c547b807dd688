"""``gdl-reasoner player``: a GGP player over HTTP on a real port, answering every message of
the match protocol as GGP-Base's GameServer and Dresden's GameController send it, keeping
its clock, and answering bad input with the protocol's answer or a clear refusal."""

from __future__ import annotations

import logging
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from client.ggp.messages import write_message
from client.players import RandomPlayer
from reasoner.core.values import StateInfo
from reasoner.engine.game import Game
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.printer import print_game
from tests.conftest import ROOT
from tests.ggp_support import http_player, post, raw_post, wait_until
from tests.service_support import game_text, running_server
from tests.test_engine import EXPLODING

TTT_RULES = print_game(parse_gdl(game_text("tictactoe")))
TTT_MOVE = re.compile(r"\(mark [123] [123]\)")


def _start(address: str, match_id: str, role: str = "xplayer", rules: str = TTT_RULES,
           start_clock: float = 5, play_clock: float = 2) -> tuple[int, str]:
    return post(address, write_message("start", match_id, role=role, rules=rules,
                                       start_clock=start_clock, play_clock=play_clock))


def test_info_answers_the_name_and_status() -> None:
    """``(info)`` answers ``((name N) (status available))``, and ``busy`` while a match
    runs."""
    with http_player(name="tester") as (address, _):
        assert post(address, "(info)") == (200, "((name tester) (status available))")
        assert _start(address, "m1") == (200, "ready")
        assert post(address, "( INFO )") == (200, "((name tester) (status busy))")


def test_preview_answers_ready() -> None:
    """``(preview RULES CLOCK)`` answers ``ready`` (the rules are read and kept)."""
    with http_player() as (address, _):
        assert post(address, f"(preview ({TTT_RULES}) 10)") == (200, "ready")


@pytest.mark.slow  # about 2.8 s
def test_a_whole_match_start_play_stop() -> None:
    """start answers ready; the first play (nil) answers one of X's legal moves; the next
    play (X's move and O's noop applied) answers noop; stop answers done and the match's
    log file ends with the goals."""
    with http_player("mcts") as (address, _):
        assert _start(address, "m1", start_clock=3, play_clock=1) == (200, "ready")
        status, first = post(address, "( PLAY m1 NIL )")
        assert status == 200 and TTT_MOVE.fullmatch(first)
        assert post(address, f"( PLAY m1 ({first} noop) )") == (200, "noop")
        assert post(address, f"( STOP m1 (noop {first.replace('1', '2')}) )")[0] == 200


def test_a_match_is_logged_to_its_own_file(tmp_path: Any) -> None:
    """With a log folder, each match writes MATCHID.log: its start, each move and its end."""
    with http_player(log_dir=tmp_path) as (address, _):
        _start(address, "log.1")
        _, move = post(address, "(play log.1 nil)")
        post(address, "(abort log.1)")
    lines = (tmp_path / "log.1.log").read_text().splitlines()
    assert "start as xplayer" in lines[0]
    assert any(f"step 1: {move}" in line for line in lines)
    assert "aborted after 0 steps" in lines[-1]


def test_the_wire_format_of_ggp_base() -> None:
    """A request exactly as GGP-Base's GameServer writes it (HTTP/1.0, its headers, a body
    with no newline, upper-case keywords, spaced terms) gets an HTTP 200 whose
    Content-Length matches the body it carries."""
    with http_player() as (address, _):
        _start(address, "gb.1")
        body = b"( PLAY gb.1 NIL )"
        reply = raw_post(address, b"POST / HTTP/1.0\r\nAccept: text/delim\r\n"
                         b"Sender: GAMESERVER\r\nReceiver: tester\r\n"
                         b"Content-Type: text/acl\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n" + body)
    head, _, answer = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200")
    length = re.search(rb"Content-Length: (\d+)", head)
    assert length is not None and int(length.group(1)) == len(answer)
    assert TTT_MOVE.fullmatch(answer.decode())


def test_an_upper_case_game_is_answered_in_its_own_spelling() -> None:
    """Rules written in upper case are read, and the move is answered as the rules spell
    it (GGP-Base compares moves case-sensitively)."""
    with http_player() as (address, _):
        assert _start(address, "uc.1", role="XPLAYER", rules=TTT_RULES.upper()) == (
            200, "ready")
        status, move = post(address, "(PLAY uc.1 NIL)")
    assert status == 200 and re.fullmatch(r"\(MARK [123] [123]\)", move)


def test_a_second_match_is_answered_busy_until_the_first_stops() -> None:
    """While one match runs, another start answers busy; after stop, it answers ready."""
    with http_player() as (address, _):
        _start(address, "a")
        assert _start(address, "b") == (200, "busy")
        assert post(address, "(stop a nil)") == (200, "done")
        assert _start(address, "b") == (200, "ready")


@pytest.mark.slow  # about 1.6 s
def test_a_match_whose_manager_never_stopped_it_is_dropped() -> None:
    """A match silent for its clocks and the stale time is dropped when another starts:
    the player is not busy forever (GGP-Base's own players are)."""
    with http_player(stale_seconds=0.2) as (address, _):
        _start(address, "old", start_clock=0.3, play_clock=0.3)
        assert _start(address, "new", start_clock=5, play_clock=5) == (200, "busy")
        time.sleep(1.0)
        assert _start(address, "new", start_clock=5, play_clock=5) == (200, "ready")
        assert post(address, "(play old nil)")[0] == 400


def test_the_same_start_twice_is_ready_twice() -> None:
    """A start repeated for a running match (a manager's retry) answers ready again."""
    with http_player() as (address, _):
        assert _start(address, "m") == (200, "ready")
        assert _start(address, "m") == (200, "ready")


@pytest.mark.parametrize(("message", "answer"), [
    ("(play nobody nil)", "error: no match nobody"),
    ("(stop nobody nil)", "done"),
    ("(abort nobody)", "aborted"),
])
def test_messages_for_an_unknown_match(message: str, answer: str) -> None:
    """A play for an unknown match is refused (400) saying so; stop and abort answer as
    the protocol says, as they are harmless."""
    with http_player() as (address, _):
        status, text = post(address, message)
    assert text == answer and status == (400 if message.startswith("(play") else 200)


def test_a_play_after_the_match_ended_is_refused() -> None:
    """After stop, a play of the same match answers 400 saying it has ended."""
    with http_player() as (address, _):
        _start(address, "m")
        post(address, "(stop m nil)")
        assert post(address, "(play m nil)") == (400, "error: match m has ended")


@pytest.mark.parametrize(("body", "reason"), [
    ("(play m1 nil", "is never closed"),
    ("(dance)", "unknown message 'dance'"),
    ("(start m1 xplayer ((role xplayer)) soon 10)", "start clock must be a number"),
    ("\x00\xff garbage", "a message is one term; got 2"),
])
def test_a_malformed_message_is_refused_and_the_player_goes_on(body: str, reason: str) -> None:
    """A malformed message answers 400 naming what is wrong; the player then starts a
    match."""
    with http_player() as (address, _):
        status, text = post(address, body)
        assert status == 400 and reason in text
        assert _start(address, "after") == (200, "ready")


def test_rules_that_do_not_parse_are_refused_with_their_position() -> None:
    """A start whose rules are not GDL answers 400 with the error and its line and
    column, and frees the player for the next match."""
    with http_player() as (address, _):
        status, text = _start(address, "bad", rules="(role x)\n(<= (legal x go) ())")
        assert status == 400 and "GdlSyntaxError" in text and "line 2, column 18" in text
        assert _start(address, "good") == (200, "ready")


def test_an_unknown_role_is_refused() -> None:
    """A start naming a role the game does not have answers 400 listing the roles."""
    with http_player() as (address, _):
        status, text = _start(address, "m", role="zplayer")
    assert status == 400 and "xplayer, oplayer" in text


def test_a_request_without_content_length_is_refused() -> None:
    """A POST without Content-Length answers 411; the CORS preflight of a manager in a
    browser answers 200 with the allowing headers."""
    with http_player() as (address, _):
        reply = raw_post(address, b"POST / HTTP/1.0\r\n\r\n(info)")
        preflight = raw_post(address, b"OPTIONS / HTTP/1.0\r\n\r\n")
    assert reply.startswith(b"HTTP/1.0 411")
    assert preflight.startswith(b"HTTP/1.0 200")
    assert b"Access-Control-Allow-Origin: *" in preflight


@pytest.mark.slow  # about 2.5 s
def test_plays_while_the_game_loads_keep_their_moves() -> None:
    """A game that loads past its start clock (a loader taking 2 s, a 1 s clock): a play
    that comes meanwhile is refused (400, the manager plays for it) and its moves are kept,
    so the first play after the load answers from the right state."""
    def slow(rules: str, seconds: float) -> Game:
        time.sleep(2.0)
        return Game.from_gdl(rules)

    with http_player(loader=slow) as (address, _):
        started: list[tuple[int, str]] = []
        thread = threading.Thread(target=lambda: started.append(
            _start(address, "slow.load", start_clock=1, play_clock=0.5)))
        thread.start()
        time.sleep(0.3)
        assert post(address, "(play slow.load nil)") == (
            400, "error: the game of match slow.load is still loading")
        thread.join(30)
        assert started == [(200, "ready")]
        # X's (mark 1 1) was played for the refused play; O is to move: xplayer plays noop.
        assert post(address, "(play slow.load ((mark 1 1) noop))") == (200, "noop")


def test_an_oversize_message_is_refused_unread() -> None:
    """A message announcing more than 16 MiB answers 413 before any of it is read; the
    player goes on."""
    with http_player() as (address, _):
        reply = raw_post(address, b"POST / HTTP/1.0\r\nContent-Length: 999999999\r\n\r\n(")
        assert reply.startswith(b"HTTP/1.0 413")
        assert post(address, "(info)")[0] == 200


class _Stubborn(RandomPlayer):
    """A player whose search ignores its deadline (sleeps 3 s) before answering."""

    name = "stubborn"

    def choose(self, state: Any, info: StateInfo, deadline: float | None = None) -> int:
        time.sleep(3.0)
        return super().choose(state, info, deadline)


@pytest.mark.slow  # waits past the clock: about 4 s
def test_a_search_past_the_clock_is_answered_with_the_move_drawn_before(
        caplog: pytest.LogCaptureFixture) -> None:
    """With a search that overruns a 1 s play clock, the answer still comes within the
    clock: the legal move drawn before the search, and a log line says so."""
    with http_player(players=lambda _, rng: _Stubborn(rng), margin=0.2) as (address, _):
        _start(address, "slow", play_clock=1)
        started = time.monotonic()
        with caplog.at_level(logging.WARNING, logger="gdl-reasoner.player"):
            status, move = post(address, "(play slow nil)")
        elapsed = time.monotonic() - started
    assert status == 200 and TTT_MOVE.fullmatch(move)
    assert elapsed < 1.0
    assert "the search ran past the clock" in caplog.text


@pytest.mark.slow  # searches to its clock: about 5 s
def test_a_real_search_keeps_a_short_clock() -> None:
    """Alpha-beta and MCTS on connect four, whose search would go on for hours, answer a
    1 s play clock within it, with a legal move."""
    rules = print_game(parse_gdl(game_text("connectfour")))
    game = Game.from_gdl(game_text("connectfour"))
    for strategy in ("alphabeta", "mcts"):
        with http_player(strategy) as (address, _):
            _start(address, "c4", role=game.roles[0], rules=rules, start_clock=2,
                   play_clock=1)
            started = time.monotonic()
            status, move = post(address, "(play c4 nil)")
            assert time.monotonic() - started < 1.0
            assert status == 200
            legal = game.info(game.initial_state).legal[0]
            assert game.move(game.roles[0], move).id in legal


@pytest.mark.slow  # about 3.5 s
def test_the_player_plays_through_a_reasoner_service() -> None:
    """With --server, the player loads the rules on the service and answers from it."""
    with running_server() as server, http_player("mcts", server=server.target) as (
            address, _):
        assert _start(address, "srv", start_clock=3, play_clock=1) == (200, "ready")
        status, move = post(address, "(play srv nil)")
        assert status == 200 and TTT_MOVE.fullmatch(move)
        assert wait_until(lambda: len(server.registry.games()) == 1)


@pytest.mark.slow  # about 1.2 s
def test_each_match_is_seeded_by_its_id() -> None:
    """The same seed and match id give the same moves (a match can be replayed)."""
    moves = []
    for _ in range(2):
        with http_player(seed=7) as (address, _):
            _start(address, "same")
            moves.append(post(address, "(play same nil)")[1])
    assert moves[0] == moves[1]


def _burst(address: str, count: int) -> list[tuple[int, str] | str]:
    """``count`` (info) messages sent at once, each on its own connection; each answer, or
    the error that came instead."""
    answers: list[tuple[int, str] | str] = ["no answer"] * count
    ready = threading.Barrier(count)

    def ask(index: int) -> None:
        ready.wait()
        try:
            answers[index] = post(address, "(info)", timeout=10)
        except OSError as error:
            answers[index] = repr(error)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.slow  # 200 connections: about 1 s
def test_a_burst_of_200_info_messages_is_answered_at_once() -> None:
    """200 (info) messages sent at the same moment are all answered within a few seconds:
    the listen backlog holds the burst (one of 5 made connections wait for TCP's retries)."""
    with http_player() as (address, _):
        started = time.monotonic()
        answers = _burst(address, 200)
        elapsed = time.monotonic() - started
    assert [a for a in answers if a != (200, "((name gdl-reasoner) (status available))")] == []
    assert elapsed < 3.0


def _drip(sock: socket.socket, data: bytes, every: float) -> None:
    """Send ``data`` a byte at a time, ``every`` seconds apart, until the player closes."""
    for byte in data:
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            return
        time.sleep(every)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


@pytest.mark.slow  # waits for the deadline: about 1.5 s
@pytest.mark.parametrize(("head", "drip"), [
    (b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n", b"(" * 100),  # the body
    (b"POST / HTTP/1.0\r\n", b"X-Slow: " + b"a" * 100),  # the headers
])
def test_a_request_that_drips_is_closed_at_its_deadline(head: bytes, drip: bytes) -> None:
    """A request whose headers or body arrive a byte at a time is answered 408 and closed
    once its deadline (1 s here) passes, however steadily the bytes come; an (info) sent
    meanwhile is answered at once."""
    with http_player(request_seconds=1.0) as (address, _):
        host, _, port = address.rpartition(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(head)
            dripping = threading.Thread(
                target=_drip, args=(sock, drip, 0.1),
                daemon=True)
            dripping.start()
            time.sleep(0.3)
            assert post(address, "(info)", timeout=2)[0] == 200
            reply = _read_all(sock)
            elapsed = time.monotonic() - started
    assert reply.startswith(b"HTTP/1.0 408") and b"within 1 s" in reply
    assert 1.0 <= elapsed < 2.5


@pytest.mark.slow  # waits for a place: about 1 s
def test_connections_past_the_cap_are_refused_while_the_held_ones_last() -> None:
    """With 3 connections held (requests not yet sent in full), a fourth is answered 503
    and closed within about a second; once the held ones go, messages are answered
    again."""
    with http_player(max_connections=3, request_seconds=30) as (address, _):
        host, _, port = address.rpartition(":")
        held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(3)]
        try:
            for sock in held:
                sock.sendall(b"POST / HTTP/1.0\r\n")
            started = time.monotonic()
            with socket.create_connection((host, int(port)), timeout=5) as extra:
                reply = _read_all(extra)
            assert time.monotonic() - started < 3.0
            assert reply.startswith(b"HTTP/1.0 503") and reply.endswith(
                b"error: too many connections")
        finally:
            for sock in held:
                sock.close()
        assert wait_until(lambda: _answers(address))


def _answers(address: str) -> bool:
    """Whether an (info) is answered 200 (a refused or reset connection is not)."""
    try:
        return post(address, "(info)", timeout=5)[0] == 200
    except OSError:
        return False


@pytest.mark.slow  # loads to the time bound: about 3 s
def test_previews_of_exploding_games_load_one_at_a_time_within_the_bounds() -> None:
    """A preview of a game whose grounding explodes loads within the bounds a start has
    (2 s here) and is then refused; another preview meanwhile is answered busy at once
    instead of loading a second explosion beside it; info and a start are answered
    throughout and after."""
    exploding = print_game(parse_gdl(EXPLODING))
    with http_player(load_seconds=2) as (address, _):
        first: list[tuple[int, str]] = []
        started = time.monotonic()
        thread = threading.Thread(target=lambda: first.append(
            post(address, f"(preview ({exploding}) 1)")))
        thread.start()
        time.sleep(0.5)
        asked = time.monotonic()
        assert post(address, f"(preview ({exploding} (n 99)) 1)") == (200, "busy")
        assert time.monotonic() - asked < 1.0
        assert post(address, "(info)") == (200, "((name gdl-reasoner) (status available))")
        thread.join(30)
        assert time.monotonic() - started < 8.0
        assert first[0][0] == 400 and "ResourceLimitError" in first[0][1]
        assert _start(address, "after") == (200, "ready")


@pytest.mark.slow  # starts the player's command: about 2 s
def test_the_player_command_logs_its_stop_on_sigterm() -> None:
    """``gdl-reasoner player`` stopped with SIGTERM ends with status 0 and a last log line
    saying it stopped on SIGTERM (it ended without a word)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "reasoner.cli", "player", "--port", "0", "--name", "quiet"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        first = process.stderr.readline()
        found = re.search(r"listening on ([\d.]+):(\d+)", first)
        assert found, first
        assert post(f"127.0.0.1:{found.group(2)}", "(info)", timeout=10)[0] == 200
        process.send_signal(signal.SIGTERM)
        rest = process.stderr.read()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
    assert rest.strip().splitlines()[-1].endswith("player quiet stopped on SIGTERM")
