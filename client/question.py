"""A query of a game as the service takes it, asked as a call or on a Session stream.

:class:`client.reasoner_client.RemoteGame` builds a :class:`Question` for each query (its
request and how its answer reads); it asks it as a unary call, and
:class:`client.game_session.GameSession` on a Session stream. :class:`Asking` is what a
session needs of a game: the questions and a stream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from client.session import SessionStream
from reasoner.core.evaluation import Evaluation
from reasoner.core.playout_summary import PlayoutSummary
from reasoner.core.values import State, StateInfo
from reasoner.core.walk import Simulation

__all__ = ["Asking", "Question"]

T = TypeVar("T")


@dataclass(frozen=True)
class Question(Generic[T]):
    """One query of a game: the unary rpc that answers it alone, its field in a Session
    request, the request (built when sent, so that a retry builds it anew), and how its
    answer reads in the engine's values."""

    method: str
    field: str
    request: Callable[[], Any]
    answer: Callable[[Any], T]


class Asking(Protocol):
    """A game whose queries can be asked on a stream of its own."""

    def stream(self, *, timeout: float | None = None, batch: int = 256) -> SessionStream: ...

    def initial_question(self) -> Question[tuple[State, StateInfo]]: ...

    def info_question(self, state: State) -> Question[StateInfo]: ...

    def info_many_question(self, states: Sequence[State]) -> Question[list[StateInfo]]: ...

    def step_question(self, state: State, joint: tuple[int, ...], *,
                      check_legal: bool = True) -> Question[tuple[State, StateInfo]]: ...

    def step_many_question(self, state: State, joints: Sequence[tuple[int, ...]], *,
                           check_legal: bool = True
                           ) -> Question[list[tuple[State, StateInfo]]]: ...

    def percepts_question(self, state: State, joint: tuple[int, ...], *,
                          check_legal: bool = True
                          ) -> Question[tuple[tuple[int, ...], ...]]: ...

    def sample_information_set_question(
            self, role: str, history: Sequence[tuple[str, Sequence[str]]], count: int = 1,
            *, seed: int = 0, max_nodes: int = 0
            ) -> Question[tuple[list[State], int, bool]]: ...

    def expand_question(self, state: State) -> Question[
            tuple[StateInfo, list[tuple[tuple[int, ...], State, StateInfo]]]]: ...

    def simulate_question(self, state: State | None, playouts: int, seed: int,
                          max_steps: int, *, record: bool = False) -> Question[Simulation]: ...

    def summarize_question(self, state: State | None, playouts: int, seed: int,
                           max_steps: int) -> Question[PlayoutSummary]: ...

    def evaluate_question(self, states: Sequence[State], role: str, heuristic: str,
                          parameters: Mapping[str, object] | None = None, *,
                          plan: bool = False, previous: State | None = None
                          ) -> Question[list[Evaluation]]: ...
