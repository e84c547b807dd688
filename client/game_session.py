"""A game's questions on one Session stream, in the engine's values.

:meth:`RemoteGame.session <client.reasoner_client.RemoteGame.session>` opens one. Its
methods are the game's own (``info``, ``step``, ``expand``, ``simulate``, ``summarize``,
``evaluate``, ...), with the same arguments, but each sends its request at once and
returns a :class:`concurrent.futures.Future` of the same answer: a search loop keeps many
questions in flight on one call instead of paying a round trip for each. A failed request
sets the same exception class on its future that the game's own method raises; the stream
goes on. No protobuf message reaches the caller.

>>> with game.session() as session:                                # doctest: +SKIP
...     futures = [session.info(state) for state in frontier]
...     infos = [future.result() for future in futures]
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

import grpc

from client.errors import error_from_rpc
from client.question import Asking, Question
from client.session import SessionStream
from reasoner.core.evaluation import Evaluation
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import State, StateInfo
from reasoner.core.walk import Simulation
from reasoner.errors import ReasonerError

__all__ = ["GameSession", "SessionClosedError"]

T = TypeVar("T")


class SessionClosedError(RuntimeError):
    """A question asked of a closed session, or left unanswered when it closed."""


class GameSession:
    """One open Session stream for one game (see the module documentation). Close it, or
    use it in a ``with``: closing waits for the answers still on their way."""

    def __init__(self, game: Asking, stream: SessionStream) -> None:
        self._game = game
        self._stream = stream
        self._lock = threading.Lock()
        self._waiting: dict[int, tuple[Future[Any], Question[Any]]] = {}
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="game-session", daemon=True)
        self._reader.start()

    def __enter__(self) -> GameSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Send no more questions; wait for the answers on their way, then end the stream
        (a question still unanswered then fails with :class:`SessionClosedError`)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stream.finish()
        self._reader.join()
        self._fail_all(SessionClosedError("the session closed before the answer came"))

    # -- the game's questions ------------------------------------------------------------

    def initial(self) -> Future[tuple[State, StateInfo]]:
        """:meth:`RemoteGame.initial`, answered on the stream."""
        return self._ask(self._game.initial_question())

    def info(self, state: State) -> Future[StateInfo]:
        """:meth:`RemoteGame.info`, answered on the stream."""
        return self._ask(self._game.info_question(state))

    def info_many(self, states: Sequence[State]) -> Future[list[StateInfo]]:
        """:meth:`RemoteGame.info_many`, answered on the stream."""
        return self._ask(self._game.info_many_question(states))

    def step(self, state: State, joint: tuple[int, ...], *,
             check_legal: bool = True) -> Future[tuple[State, StateInfo]]:
        """:meth:`RemoteGame.step`, answered on the stream."""
        return self._ask(self._game.step_question(state, joint, check_legal=check_legal))

    def step_many(self, state: State, joints: Sequence[tuple[int, ...]], *,
                  check_legal: bool = True) -> Future[list[tuple[State, StateInfo]]]:
        """:meth:`RemoteGame.step_many`, answered on the stream."""
        return self._ask(self._game.step_many_question(state, joints,
                                                       check_legal=check_legal))

    def percepts(self, state: State, joint: tuple[int, ...], *,
                 check_legal: bool = True) -> Future[tuple[tuple[int, ...], ...]]:
        """:meth:`RemoteGame.percepts`, answered on the stream."""
        return self._ask(self._game.percepts_question(state, joint, check_legal=check_legal))

    def sample_information_set(self, role: str,
                               history: Sequence[tuple[str, Sequence[str]]],
                               count: int = 1, *, seed: int = 0, max_nodes: int = 0
                               ) -> Future[tuple[list[State], int, bool]]:
        """:meth:`RemoteGame.sample_information_set`, answered on the stream.

        Raises:
            ValueError: ``count`` or ``max_nodes`` out of range (at once).
        """
        return self._ask(self._game.sample_information_set_question(
            role, history, count, seed=seed, max_nodes=max_nodes))

    def expand(self, state: State) -> Future[
            tuple[StateInfo, list[tuple[tuple[int, ...], State, StateInfo]]]]:
        """:meth:`RemoteGame.expand`, answered on the stream."""
        return self._ask(self._game.expand_question(state))

    def simulate(self, state: State | None = None, playouts: int = 1, seed: int = 0,
                 max_steps: int = 1000, *, record: bool = False) -> Future[Simulation]:
        """:meth:`RemoteGame.simulate`, answered on the stream.

        Raises:
            ValueError: ``playouts`` or ``max_steps`` negative or past 32 bits (at once).
        """
        return self._ask(self._game.simulate_question(state, playouts, seed, max_steps,
                                                      record=record))

    def summarize(self, state: State | None = None, playouts: int = 1, seed: int = 0,
                  max_steps: int = 1000) -> Future[PlayoutSummary]:
        """:meth:`RemoteGame.summarize`, answered on the stream.

        Raises:
            ValueError: ``playouts`` or ``max_steps`` negative or past 32 bits (at once).
        """
        return self._ask(self._game.summarize_question(state, playouts, seed, max_steps))

    def evaluate(self, states: Sequence[State], role: str, heuristic: str,
                 parameters: Mapping[str, object] | None = None, *, plan: bool = False,
                 previous: State | None = None) -> Future[list[Evaluation]]:
        """:meth:`RemoteGame.evaluate`, answered on the stream."""
        return self._ask(self._game.evaluate_question(states, role, heuristic, parameters,
                                                      plan=plan, previous=previous))

    # -- the stream ----------------------------------------------------------------------

    def _ask(self, question: Question[T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                raise SessionClosedError("the session is closed")
            tag = self._stream.next_tag()
            self._waiting[tag] = (future, question)
            self._stream.send_tagged(tag, question.field, question.request())
        return future

    def _read(self) -> None:
        """Answer the futures as their answers arrive, until the server ends the stream."""
        try:
            for tag, answer in self._stream.answers():
                with self._lock:
                    future, question = self._waiting.pop(tag)
                if isinstance(answer, ReasonerError):
                    future.set_exception(answer)
                    continue
                try:
                    future.set_result(question.answer(answer))
                except Exception as error:  # an answer that does not read: the caller's
                    future.set_exception(error)
        except grpc.RpcError as error:  # the stream itself failed: every question with it
            self._fail_all(error_from_rpc(error))

    def _fail_all(self, error: BaseException) -> None:
        with self._lock:
            pending, self._waiting = list(self._waiting.values()), {}
        for future, _ in pending:
            if not future.done():
                future.set_exception(error)
