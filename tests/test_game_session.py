"""GameSession: a game's questions on one Session stream, asked with the game's own methods
and arguments, answered as futures of the engine's values, failing with the game's own
exception classes. A real server on port 0; tic-tac-toe from games/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client import ReasonerClient, RemoteGame
from client.game_session import SessionClosedError
from reasoner.errors import IllegalMoveError
from tests.service_support import CALL_TIMEOUT, game_text, running_server


@pytest.fixture(scope="module")
def ttt() -> Iterator[RemoteGame]:
    with running_server() as srv, ReasonerClient(srv.target, timeout=CALL_TIMEOUT) as client:
        yield client.load_game(game_text("tictactoe"))


def test_each_question_answers_what_the_games_own_call_answers(ttt: RemoteGame) -> None:
    """initial, info, step, expand, simulate, summarize and evaluate on the stream give the
    values the game's calls give for the same arguments."""
    state, info = ttt.initial()
    joint = (info.legal[0][4], info.legal[1][0])
    with ttt.session() as session:
        simulating = session.simulate(state, 50, seed=3)
        asked = (session.initial(), session.info(state), session.step(state, joint),
                 session.expand(state), session.summarize(state, 500, seed=4),
                 session.evaluate([state], "xplayer", "hff"))
        answers = [future.result(CALL_TIMEOUT) for future in asked]
        simulated = simulating.result(CALL_TIMEOUT)
    assert answers == [(state, info), info, ttt.step(state, joint), ttt.expand(state),
                       ttt.summarize(state, 500, seed=4),
                       ttt.evaluate([state], "xplayer", "hff")]
    called = ttt.simulate(state, 50, seed=3)
    # The same playouts (the server's own milliseconds aside).
    assert (simulated.lengths, simulated.goals, simulated.updates) == (
        called.lengths, called.goals, called.updates)


def test_many_questions_in_flight_answer_in_their_order(ttt: RemoteGame) -> None:
    """Two hundred questions sent before any answer is read each get their own answer."""
    state, info = ttt.initial()
    children = [ttt.step(state, (move, info.legal[1][0]))[0] for move in info.legal[0]]
    with ttt.session() as session:
        futures = [session.info(children[i % len(children)]) for i in range(200)]
        infos = [future.result(CALL_TIMEOUT) for future in futures]
    assert infos == [ttt.info(children[i % len(children)]) for i in range(200)]


def test_a_failed_question_raises_the_games_own_error_and_the_stream_goes_on(
        ttt: RemoteGame) -> None:
    """An illegal joint move fails its future with IllegalMoveError naming the role, as
    RemoteGame.step raises it; the next question on the stream is answered."""
    state, info = ttt.initial()
    noop = ttt.move_id("oplayer", "noop")
    with ttt.session() as session:
        illegal = session.step(state, (noop, noop))
        after = session.info(state)
        with pytest.raises(IllegalMoveError) as caught:
            illegal.result(CALL_TIMEOUT)
        assert caught.value.role == "xplayer"
        assert after.result(CALL_TIMEOUT) == info


def test_a_count_outside_its_domain_is_refused_before_anything_is_sent(
        ttt: RemoteGame) -> None:
    """A negative playout count is a ValueError at once, as RemoteGame.simulate raises it;
    the session stays usable."""
    state, info = ttt.initial()
    with ttt.session() as session:
        with pytest.raises(ValueError):
            session.simulate(state, -1)
        assert session.info(state).result(CALL_TIMEOUT) == info


def test_a_closed_session_answers_what_was_asked_and_refuses_more(ttt: RemoteGame) -> None:
    """Closing waits for the answers on their way; a question after it is refused."""
    state, info = ttt.initial()
    session = ttt.session()
    futures = [session.info(state) for _ in range(20)]
    session.close()
    assert [f.result(0) for f in futures] == [info] * 20
    with pytest.raises(SessionClosedError):
        session.info(state)
