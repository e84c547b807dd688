"""gRPC status codes back to the reasoner's error classes (the server maps them there)."""

from __future__ import annotations

import grpc

from reasoner.errors import (
    GdlError,
    IllegalMoveError,
    InvalidStateError,
    ReasonerError,
    ResourceLimitError,
    UnknownGameError,
)

__all__ = ["RemoteError", "error_from_rpc"]


class RemoteError(ReasonerError):
    """A failure the server reported that has no more specific class here."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        self.code = code
        super().__init__(f"{code.name}: {message}")


def error_from_rpc(error: grpc.RpcError) -> ReasonerError:
    """The domain error that a failed call stands for."""
    code: grpc.StatusCode = error.code()
    message: str = error.details() or ""
    if code == grpc.StatusCode.NOT_FOUND:
        return UnknownGameError(message)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ResourceLimitError(message)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        kind = message.split(":", 1)[0]
        if kind == "IllegalMoveError":
            return IllegalMoveError(message)
        if kind == "InvalidStateError":
            return InvalidStateError(message)
        if kind.startswith("Gdl") or kind == "UnsupportedGdlError":
            return GdlError(message)
    return RemoteError(code, message)
