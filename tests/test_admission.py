"""Memory in bytes and admission: the game cache is bounded by estimated bytes as well as by
count, an answer that could never be sent is refused before it is kept, and heavy calls
(loads, groundings) run a few at a time on threads of their own, queued or refused with
RESOURCE_EXHAUSTED, while short queries go on being answered."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from client.errors import error_detail_of
from reasoner.engine.game import Game
from reasoner.errors import ResourceLimitError
from reasoner.server.admission import HeavyGate
from reasoner.server.app import DEFAULT_LIMITS
from reasoner.server.footprint import estimated_bytes
from reasoner.server.registry import GameRegistry
from reasoner.v1 import reasoner_pb2 as pb
from tests.conftest import CORPUS, GAMES
from tests.service_support import CALL_TIMEOUT, expect_detail, game_text, running_server


def text_of(name: str) -> str:
    return (GAMES / f"{name}.kif").read_text()


def weight(name: str) -> int:
    return estimated_bytes(Game.from_gdl(text_of(name)), len(text_of(name)))


def test_the_cache_evicts_the_least_recently_used_past_its_bytes() -> None:
    """With room in bytes for breakthrough and connect four but not tic-tac-toe too, loading
    all three keeps the two most recent, and the bytes held stay within the bound."""
    room = weight("breakthrough") + weight("connectfour")
    registry = GameRegistry(max_games=64, max_bytes=room)
    loaded = [registry.load(text_of(name))[0].id
              for name in ("tictactoe", "breakthrough", "connectfour")]
    assert registry.ids() == loaded[1:]
    assert registry.held_bytes() <= room


def test_a_game_larger_than_the_whole_cache_is_refused() -> None:
    """A game whose estimate alone exceeds the cache is refused with ResourceLimitError
    naming the memory bound and the flag (the advice in the message is the output under
    test), and nothing is kept."""
    registry = GameRegistry(max_bytes=weight("tictactoe") - 1)
    with pytest.raises(ResourceLimitError, match=r"more than the game cache's .* MiB "
                                                 r"\(serve --cache-mb\)") as caught:
        registry.load(text_of("tictactoe"))
    assert caught.value.bound == "memory"
    assert registry.ids() == []


def test_an_answer_kept_for_a_game_counts_against_the_cache() -> None:
    """Bytes kept beside a game (its built answer) count in the cache's bytes: kept
    beside the newer game, they push the older one out."""
    registry = GameRegistry(max_bytes=weight("tictactoe") + weight("breakthrough") + 100)
    first = registry.load(text_of("tictactoe"))[0].id
    second = registry.load(text_of("breakthrough"))[0].id
    registry.keep_beside(second, 200)
    assert registry.ids() == [second]
    assert first not in registry.ids()


# 45 x 45 fluents whose names have 500 characters: 2,025 fluents of about 1,000 characters,
# tables of about 2 MiB from 45 KiB of rules.
_NAMES = " ".join(f"(n {'x' * 496}{i:03d})" for i in range(45))
HUGE_TABLES = (f"(role r) {_NAMES} (<= (init (f ?x ?y)) (n ?x) (n ?y)) "
               "(<= (next (f ?x ?y)) (true (f ?x ?y))) (legal r go) "
               "(<= terminal (true (f a a))) (goal r 0)")


def test_a_game_whose_tables_cannot_be_sent_is_refused_and_not_kept() -> None:
    """A game whose tables alone exceed the largest answer gets RESOURCE_EXHAUSTED, a size
    bound of reason "answer-size", and the server does not keep it; the message, the output
    under test too, names its fluents, moves and the flag that raises the bound."""
    with running_server(max_message_mb=1) as server:
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.LoadGame,
                               pb.LoadGameRequest(gdl=HUGE_TABLES))
        assert (detail.kind, detail.bound, detail.reason) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "size", "answer-size")
        assert detail.message.startswith("the game's tables (2,025 fluents and 1 moves) take ")
        assert detail.message.endswith("serve --max-message-mb)")
        assert server.registry.ids() == []


def test_expand_refuses_children_that_could_not_be_sent_before_making_them() -> None:
    """Expand of a state of 300 x 300 joint moves (each successor answers 600 legal moves)
    is refused from an estimate, with RESOURCE_EXHAUSTED (a size bound, "answer-size"),
    instead of after gigabytes of work; the message, the output under test too, names the
    children and the way out."""
    numbers = " ".join(f"(k {i})" for i in range(300))
    wide = (f"(role a) (role b) {numbers} (<= (legal ?r (m ?x)) (role ?r) (k ?x)) (init s) "
            "(<= (next s) (true s)) (<= terminal (true t)) (<= (goal ?r 0) (role ?r))")
    with running_server() as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(gdl=wide), timeout=CALL_TIMEOUT).game
        initial = server.stub.InitialState(pb.InitialStateRequest(game_id=game.game_id),
                                           timeout=CALL_TIMEOUT).state
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Expand,
                               pb.ExpandRequest(game_id=game.game_id, state=initial))
        assert (detail.kind, detail.bound, detail.reason) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "size", "answer-size")
        assert detail.message.startswith("the state's 90,000 children would take about ")
        assert detail.message.endswith(
            "MiB, more than an answer may (16 MiB): use Query and Next")


def test_next_stops_at_the_first_successor_that_does_not_fit() -> None:
    """Next over many joint moves whose successors together exceed the largest answer is
    refused with RESOURCE_EXHAUSTED (a size bound, "answer-size") as soon as they do; the
    message, the output under test too, says how many fitted."""
    numbers = " ".join(f"(k {i})" for i in range(2000))
    wide = (f"(role a) {numbers} (<= (legal a (m ?x)) (k ?x)) (init s) "
            "(<= (next s) (true s)) (<= terminal (true t)) (goal a 0)")
    with running_server(max_message_mb=1) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(gdl=wide), timeout=CALL_TIMEOUT).game
        initial = server.stub.InitialState(pb.InitialStateRequest(game_id=game.game_id),
                                           timeout=CALL_TIMEOUT).state
        joints = [pb.JointMove(moves=[i]) for i in range(2000)]
        detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Next,
                               pb.NextRequest(game_id=game.game_id, state=initial,
                                              joint_moves=joints))
        assert (detail.kind, detail.bound, detail.reason) == (
            pb.ERROR_KIND_RESOURCE_LIMIT, "size", "answer-size")
        assert detail.message.startswith("the successors of the first ")
        assert detail.message.endswith("of 2,000 joint moves take more than an answer may "
                                       "(1 MiB): ask for fewer at once")


def test_the_gate_refuses_one_more_than_it_runs_and_queues() -> None:
    """With one slot taken and one call waiting, a third is refused at once with a
    ResourceLimitError of bound "concurrency" and reason "busy", with the slots as its
    limit; the message, the output under test too, names the call and the flag."""
    gate = HeavyGate(running=1, waiting=1)
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with gate.admit("LoadGame"):
            taken.set()
            release.wait(30)

    with ThreadPoolExecutor(2) as pool:
        holder = pool.submit(hold)
        assert taken.wait(30)
        waiter = pool.submit(hold)
        while gate.queued < 1:
            time.sleep(0.01)
        with pytest.raises(ResourceLimitError, match=r"send Translate again later "
                                                     r"\(serve --max-heavy\)") as caught, \
                gate.admit("Translate"):
            pass
        assert (caught.value.bound, caught.value.reason, caught.value.limit) == (
            "concurrency", "busy", 1)
        release.set()
        holder.result(30)
        waiter.result(30)


def test_a_waiting_call_gives_up_its_place_when_its_check_raises() -> None:
    """A call waiting for a slot asks its check while it waits: a cancelled request
    leaves the queue with the check's error, and the queue has room again."""
    gate = HeavyGate(running=1, waiting=1)

    class Cancelled(TimeoutError):
        """The check's own error, told apart by its class."""

    def cancelled() -> None:
        raise Cancelled("cancelled")

    with gate.admit("LoadGame"):
        with pytest.raises(Cancelled), gate.admit("Supersets", cancelled):
            pass
        with pytest.raises(TimeoutError), gate.admit("Supersets", cancelled):
            pass  # the place was given back: this one waits (and gives up) too


AMAZONS = CORPUS / "libgdl" / "amazons.kif"


@pytest.mark.corpus
def test_queries_are_answered_while_heavy_loads_fill_their_slots() -> None:
    """With one heavy slot and one place in its queue, three slow loads at once: one runs,
    one waits, one is refused with RESOURCE_EXHAUSTED; meanwhile queries on a loaded game
    are answered, and the loads end at their deadline."""
    slow = AMAZONS.read_text()
    with running_server(max_heavy=1, limits=DEFAULT_LIMITS) as server:
        ttt = server.load("tictactoe")
        state = server.stub.InitialState(pb.InitialStateRequest(game_id=ttt.game_id),
                                         timeout=CALL_TIMEOUT).state

        def load(number: int) -> grpc.StatusCode:
            request = pb.LoadGameRequest(gdl=f"{slow} (variant {number})")
            try:
                server.stub.LoadGame(request, timeout=6)
            except grpc.RpcError as error:
                code: grpc.StatusCode = error.code()
                return code
            return grpc.StatusCode.OK

        with ThreadPoolExecutor(3) as pool:
            loads = [pool.submit(load, number) for number in range(3)]
            answers = [server.stub.Query(pb.QueryRequest(game_id=ttt.game_id, state=state),
                                         timeout=2) for _ in range(20)]
            codes = sorted((f.result(60) for f in loads), key=lambda c: c.name)
        assert all(len(a.info.legal[0].ids) == 9 for a in answers)
        # (A machine fast enough to load amazons within the deadline answers OK.)
        assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 1
        assert set(codes) - {grpc.StatusCode.RESOURCE_EXHAUSTED} <= {
            grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.OK}


def test_large_simulates_run_in_a_pool_of_their_own_and_small_ones_pass() -> None:
    """With one slot for costly calls and one place to wait, two Simulates of a million
    playouts (connect four on clingo: far longer than their 4 s deadline) take both; a third
    is refused at once with RESOURCE_EXHAUSTED naming the pool and its flag, while a
    Simulate of 10 playouts and a Query are answered."""
    with running_server(max_costly=1) as server:
        c4 = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=text_of("connectfour"), options=pb.LoadOptions(backend="clingo")),
            timeout=CALL_TIMEOUT).game

        def simulate() -> grpc.StatusCode:
            try:
                server.stub.Simulate(pb.SimulateRequest(
                    game_id=c4.game_id, from_initial=True, playouts=1_000_000), timeout=4)
            except grpc.RpcError as error:
                code: grpc.StatusCode = error.code()
                return code
            return grpc.StatusCode.OK

        with ThreadPoolExecutor(2) as pool:
            large = [pool.submit(simulate) for _ in range(2)]
            time.sleep(1.0)  # one runs, one waits
            started = time.perf_counter()
            detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.Simulate,
                                   pb.SimulateRequest(game_id=c4.game_id, from_initial=True,
                                                      playouts=1_000_000))
            refused_in = time.perf_counter() - started
            small = server.stub.Simulate(pb.SimulateRequest(
                game_id=c4.game_id, from_initial=True, playouts=10), timeout=CALL_TIMEOUT)
            info = server.stub.InitialState(pb.InitialStateRequest(game_id=c4.game_id),
                                            timeout=2)
            codes = [f.result(60) for f in large]
    assert (detail.bound, detail.reason) == ("concurrency", "busy")
    assert "costly calls" in detail.message and "serve --max-costly" in detail.message
    assert refused_in < 2.0
    assert len(small.playouts) == 10 and len(info.info.legal[0].ids) == 7
    assert codes == [grpc.StatusCode.DEADLINE_EXCEEDED] * 2


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no thread priorities here")
def test_costly_calls_run_on_threads_that_yield_the_cores() -> None:
    """The threads of the costly calls' pool run at nice value COSTLY_NICENESS, so that a
    short call waiting for a core gets it first (Linux: a thread's own nice value)."""
    from reasoner.server.service import COSTLY_NICENESS, ReasonerService

    service = ReasonerService(GameRegistry())
    niceness = service._costly_threads.submit(  # (the pool itself is the subject here)
        lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
    assert niceness == COSTLY_NICENESS
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) < COSTLY_NICENESS


def test_a_text_sent_again_is_found_without_reading_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading the same text twice reads (parses) it once: the second load finds the game
    by the hash of the text as sent."""
    from reasoner.gdl.parser import parse_gdl
    from reasoner.server import registry as registry_module

    reads: list[str] = []
    real = parse_gdl
    sent = text_of("tictactoe")

    def counted(text: str, case_sensitive: bool = False) -> object:
        # Only this text's reads count: another test's server may still be reading its
        # own games in this process.
        if text == sent:
            reads.append(text)
        return real(text, case_sensitive=case_sensitive)

    monkeypatch.setattr(registry_module, "parse_gdl", counted)
    registry = GameRegistry()
    first, already_first = registry.load(sent)
    second, already_second = registry.load(sent)
    assert (already_first, already_second) == (False, True)
    assert first.id == second.id and len(reads) == 1


def test_with_the_slots_full_a_new_text_is_refused_and_a_loaded_one_answers() -> None:
    """While every heavy slot is taken, a load of a new text (which would have to be read)
    is refused with RESOURCE_EXHAUSTED (bound "concurrency", reason "busy"), and a load of a
    text already loaded is answered."""
    with running_server(max_heavy=1) as server:
        ttt = server.load("tictactoe")
        gate = server.registry.gate
        assert gate is not None
        with gate.admit("test"):
            waiting = threading.Thread(target=lambda: server.load("connectfour"))
            # (the queue of one place is taken by a load that waits for this slot)
            waiting.start()
            while gate.queued < 1:
                time.sleep(0.01)
            detail = expect_detail(grpc.StatusCode.RESOURCE_EXHAUSTED, server.stub.LoadGame,
                                   pb.LoadGameRequest(gdl=text_of("breakthrough")))
            assert (detail.kind, detail.bound, detail.reason) == (
                pb.ERROR_KIND_RESOURCE_LIMIT, "concurrency", "busy")
            again = server.stub.LoadGame(pb.LoadGameRequest(gdl=text_of("tictactoe")),
                                         timeout=CALL_TIMEOUT)
            assert again.already_loaded and again.game.game_id == ttt.game_id
        waiting.join(CALL_TIMEOUT)


@pytest.mark.slow  # two phases of 5 s and the server's start: about 18 s
def test_the_stress_command_measures_queries_alone_and_beside_blow_ups() -> None:
    """``gdl-reasoner stress`` starts a server in its own process, and reports the steady
    client's queries and latency percentiles alone and beside blow-ups (large Simulates and
    an HTTP player's previews among them), with the codes the blow-ups got (none of them
    INTERNAL or UNKNOWN) and the server's memory."""
    import json
    import subprocess
    import sys

    from tests.test_cli import PROJECT

    done = subprocess.run(
        [sys.executable, "-m", "reasoner.cli", "stress", "--seconds", "1", "--blowups", "4",
         "--deadline", "3", "--simulates", "2", "--playouts", "2000", "--previews", "1",
         "--json"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for phase in ("alone", "blowups"):
        assert figures[phase]["queries"] > 0 and figures[phase]["errors"] == 0
        assert 0 < figures[phase]["median_ms"] <= figures[phase]["p99_ms"]
    codes = figures["blowup_codes"]
    assert codes and not any(key.endswith(("INTERNAL", "UNKNOWN")) for key in codes)
    assert any(key.startswith("simulate 2,000 ") for key in codes)
    assert any(key.startswith("preview ") for key in codes)
    assert figures["resident_mb_before"] > 0


@pytest.mark.slow  # about 1.1 s
def test_a_call_without_a_deadline_ends_at_the_server_s_longest() -> None:
    """A Simulate of a million playouts sent without a deadline stops at the server's own
    bound (serve --max-call-seconds) with DEADLINE_EXCEEDED of reason "server-deadline",
    and the server answers the next call; the message, the output under test too, names the
    flag and the way out. (Connect four on the Python network: a million playouts take it
    about 5 s here; the native kernel would finish them within the second.)"""
    with running_server(max_call_seconds=1.0) as server:
        game = server.stub.LoadGame(pb.LoadGameRequest(
            gdl=game_text("connectfour"), options=pb.LoadOptions(backend="propnet")),
            timeout=CALL_TIMEOUT).game
        with pytest.raises(grpc.RpcError) as caught:
            server.stub.Simulate(pb.SimulateRequest(from_initial=True, game_id=game.game_id,
                                                    playouts=1_000_000))
        error: Any = caught.value
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        detail = error_detail_of(error)
        assert detail is not None
        assert (detail.kind, detail.reason) == (pb.ERROR_KIND_DEADLINE_EXCEEDED,
                                                "server-deadline")
        assert error.details() == ("the call worked for the server's longest of 1 s (serve "
                                   "--max-call-seconds): set a deadline, or ask for less at "
                                   "once")
        again = server.stub.GetGame(pb.GetGameRequest(game_id=game.game_id),
                                    timeout=CALL_TIMEOUT)
        assert again.game.game_id == game.game_id


def test_heuristics_built_for_a_game_count_against_the_cache() -> None:
    """The fuzzy evaluations an Evaluate builds for a game count in the cache's bytes,
    beside the game: a second parameter adds its evaluation's, and the count is replaced,
    not added to, when the same ones are used again."""
    with running_server() as server:
        game = server.load("connectfour")
        state = server.stub.InitialState(pb.InitialStateRequest(game_id=game.game_id),
                                         timeout=CALL_TIMEOUT).state
        held = [server.registry.held_bytes()]
        for p in ("0.8", "0.9", "0.9"):
            server.stub.Evaluate(pb.EvaluateRequest(
                game_id=game.game_id, role="red", heuristic="fuzzy", states=[state],
                parameters={"p": p}), timeout=CALL_TIMEOUT)
            held.append(server.registry.held_bytes())
        assert held[0] < held[1] < held[2] == held[3]
