"""Answers written as protobuf bytes without a message object per item.

A Simulate of 300,000 playouts answered as messages makes 300,000 ``Playout`` objects (and
their ``GoalValues``) under the interpreter's lock, and holds them with their Python
wrappers until the answer is sent: seconds of work that every other call of the server waits
behind, and about a kilobyte per playout. Most playouts of a game end alike (the same goal
values, length and terminal flag), so each distinct playout is encoded once and the answer
is the encodings joined: what protobuf would write for the same message, near its own size.
"""

from __future__ import annotations

from collections.abc import Sequence

from reasoner.core.walk import Simulation, StepPercepts
from reasoner.v1 import reasoner_pb2 as pb

__all__ = ["field", "playouts_answer", "varint"]

_PLAYOUTS = 1  # SimulateResponse.playouts


def varint(number: int) -> bytes:
    """``number`` (not negative) as a protobuf varint."""
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message, bytes or a string) with its key."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def playouts_answer(run: Simulation, elapsed_ms: float) -> bytes:
    """The SimulateResponse of ``run`` with one ``Playout`` per playout (trajectories and
    percepts included where recorded), as bytes."""
    encoded: dict[object, bytes] = {}
    parts: list[bytes] = []
    paths: Sequence[tuple[tuple[int, ...], ...]] = run.trajectories or [()] * len(run.lengths)
    seen: Sequence[tuple[StepPercepts, ...]] = run.percepts or [()] * len(run.lengths)
    for goals, length, terminal, path, percepts in zip(run.goals, run.lengths, run.terminal,
                                                       paths, seen, strict=True):
        key = (goals, length, terminal, path)
        found = encoded.get(key)
        if found is None:
            message = pb.Playout(goals=[pb.GoalValues(values=v) for v in goals],
                                 length=length, terminal=terminal,
                                 trajectory=[pb.JointMove(moves=j) for j in path],
                                 percepts=[pb.StepPercepts(roles=[
                                     pb.RolePercepts(percept_ids=ids) for ids in step])
                                     for step in percepts])
            found = field(_PLAYOUTS, message.SerializeToString())
            if not path:  # a recorded path is seldom met twice: not kept
                encoded[key] = found
        parts.append(found)
    tail = pb.SimulateResponse(updates=run.updates, elapsed_ms=elapsed_ms)
    return b"".join(parts) + tail.SerializeToString()
