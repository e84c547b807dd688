"""gRPC status codes back to the reasoner's error classes (the server maps them there)."""

from __future__ import annotations

import re

import grpc

from reasoner.errors import (
    GdlError,
    GdlSyntaxError,
    GdlValidationError,
    HeuristicError,
    IllegalMoveError,
    InvalidStateError,
    NoLegalMoveError,
    ReasonerError,
    ResourceLimitError,
    UnknownGameError,
    UnsupportedGdlError,
)

_GDL_ERRORS: dict[str, type[GdlError]] = {
    cls.__name__: cls
    for cls in (GdlError, GdlSyntaxError, GdlValidationError, UnsupportedGdlError)
}
# The server writes "<ErrorClass>: line L, column C: <message>" for GDL errors.
_GDL_MESSAGE = re.compile(r"(?P<kind>\w+): (?:line (?P<line>\d+), column (?P<column>\d+): )?"
                          r"(?P<message>.*)\Z", re.DOTALL)

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
        bound = next((b for b in ("time", "memory") if f"{b} bound" in message), None)
        return ResourceLimitError(message, bound=bound)
    kind, _, rest = message.partition(": ")
    if code == grpc.StatusCode.FAILED_PRECONDITION and kind == "NoLegalMoveError":
        return NoLegalMoveError(rest)
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        if kind == "IllegalMoveError":
            return IllegalMoveError(rest)
        if kind == "InvalidStateError":
            return InvalidStateError(rest)
        if kind == "HeuristicError":
            return HeuristicError(rest)
        parsed = _GDL_MESSAGE.match(message)
        if parsed is not None and parsed["kind"] in _GDL_ERRORS:
            line, column = parsed["line"], parsed["column"]
            return _GDL_ERRORS[parsed["kind"]](
                parsed["message"], int(line) if line else None,
                int(column) if column else None)
    return RemoteError(code, message)
