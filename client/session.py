"""A Session stream: many requests in flight on one call, each answered with its tag.

A search loop that asks one question at a time pays a round trip per question; on a
Session it sends the next requests before the answers of the first arrive (see
:meth:`SessionStream.pipeline`), and the server answers them in order on the same stream.
A failed request answers with its own error; the stream goes on.
"""

from __future__ import annotations

import itertools
import queue
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, cast

import grpc

from client.errors import detail_in, error_from_status, status_code
from reasoner.errors import ReasonerError
from reasoner.session_batches import joined
from reasoner.v1 import reasoner_pb2 as pb

__all__ = ["END", "SESSION_METHOD", "SessionStream", "error_of", "outgoing"]

SESSION_METHOD = "/reasoner.v1.Reasoner/Session"

END = object()  # closes the stream of requests


def error_of(status: pb.RequestStatus) -> ReasonerError:
    """The domain error that a failed session request stands for (as for a failed call)."""
    return error_from_status(status_code(status.code), status.message,
                             detail_in(status.details))


def outgoing(requests: queue.SimpleQueue[object], batch: int) -> Iterator[bytes]:
    """The messages of a stream, from a queue of encoded requests that ends with ``END``:
    each request with those already queued behind it, up to ``batch`` in all, in its
    ``more``. A request that finds the queue empty goes alone, at once."""
    while True:
        item = requests.get()
        if item is END:
            return
        encoded = [cast(bytes, item)]
        ending = False
        while len(encoded) < batch:
            try:
                item = requests.get_nowait()
            except queue.Empty:
                break
            if item is END:
                ending = True
                break
            encoded.append(cast(bytes, item))
        yield joined(encoded)
        if ending:
            return


class SessionStream:
    """One open Session. ``send`` a request (a message of the unary rpcs, named by its
    field in ``SessionRequest``: ``"query"``, ``"next"``, ...), ``receive`` the answers in
    order; or ``pipeline`` a whole sequence with a window of requests in flight.

    Requests sent while earlier ones are still on their way to the server travel together
    in one message (``SessionRequest.more``), up to ``batch`` of them: with many requests in
    flight a message costs the transport far less per request."""

    def __init__(self, channel: grpc.Channel, *, timeout: float | None = None,
                 batch: int = 256) -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        self._batch = batch
        self._requests: queue.SimpleQueue[object] = queue.SimpleQueue()
        call = channel.stream_stream(
            SESSION_METHOD, request_serializer=None,
            response_deserializer=pb.SessionResponse.FromString)
        self._messages: Iterator[pb.SessionResponse] = call(
            outgoing(self._requests, batch), timeout=timeout)
        self._arrived: deque[pb.SessionResponse] = deque()
        self._tags = itertools.count()
        self._closed = False

    def __enter__(self) -> SessionStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the stream: no more requests, and the answers still on their way are read
        and dropped until the server ends it (so that its place is free on return)."""
        if self._closed:
            return
        self._closed = True
        self._requests.put(END)
        for _ in self._messages:
            pass

    def finish(self) -> None:
        """End the stream of requests without reading the answers (for a reader of its own,
        who reads them through :meth:`answers` until the server ends the stream)."""
        if not self._closed:
            self._closed = True
            self._requests.put(END)

    def next_tag(self) -> int:
        """The tag the next request gets."""
        return next(self._tags)

    def send(self, kind: str, request: Any) -> int:
        """Send one request; returns its tag."""
        tag = self.next_tag()
        self.send_tagged(tag, kind, request)
        return tag

    def send_tagged(self, tag: int, kind: str, request: Any) -> None:
        """Send one request with a tag from :meth:`next_tag`."""
        message = pb.SessionRequest(tag=tag)
        getattr(message, kind).CopyFrom(request)
        self._requests.put(message.SerializeToString())

    def receive(self) -> tuple[int, Any]:
        """The next answer: its tag and the response, or the request's error (an instance
        of :class:`reasoner.errors.ReasonerError`, returned, not raised)."""
        if not self._arrived:
            message = next(self._messages)
            self._arrived.append(message)
            self._arrived.extend(message.more)
        return self._read(self._arrived.popleft())

    def answers(self) -> Iterator[tuple[int, Any]]:
        """Every answer, as :meth:`receive` gives it, until the server ends the stream."""
        while True:
            if not self._arrived:
                message = next(self._messages, None)
                if message is None:
                    return
                self._arrived.append(message)
                self._arrived.extend(message.more)
            yield self._read(self._arrived.popleft())

    @staticmethod
    def _read(answer: pb.SessionResponse) -> tuple[int, Any]:
        kind = answer.WhichOneof("response")
        if kind == "error":
            return answer.tag, error_of(answer.error)
        return answer.tag, getattr(answer, kind)

    def pipeline(self, kind: str, requests: Iterable[Any],
                 window: int = 64) -> Iterator[Any]:
        """Send ``requests`` with up to ``window`` of them in flight; yield each answer (or
        error) in the order of the requests."""
        waiting: deque[int] = deque()
        for request in requests:
            waiting.append(self.send(kind, request))
            if len(waiting) >= window:
                yield self._expect(waiting.popleft())
        while waiting:
            yield self._expect(waiting.popleft())

    def _expect(self, tag: int) -> Any:
        got, answer = self.receive()
        if got != tag:
            raise RuntimeError(f"session answer {got} arrived where {tag} was due")
        return answer
