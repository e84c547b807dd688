"""Several Session requests, or answers, in one gRPC message.

A ``SessionRequest`` carries one request in its own fields and those that follow it in
``more`` (field 16); a ``SessionResponse`` carries its answers the same way. Protobuf
encodes a repeated message field as the concatenation of its elements, each behind the
field's key and its length, so a message of several is built from their encodings without
copying one message into another: ``joined(first, rest)``.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MORE_FIELD", "joined"]

MORE_FIELD = 16
# The key of field 16 with wire type 2 (length-delimited), as a varint: 16 << 3 | 2 = 130.
_MORE_KEY = bytes([0x82, 0x01])


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def joined(encoded: Sequence[bytes]) -> bytes:
    """One message from the encodings of several (each without ``more`` of its own): the
    first, with the others in its ``more``."""
    if not encoded:
        raise ValueError("a message holds at least one request or answer")
    parts = [encoded[0]]
    for item in encoded[1:]:
        parts += (_MORE_KEY, _varint(len(item)), item)
    return b"".join(parts)
