"""Domain errors to gRPC status codes, in one place (the client maps them back)."""

from __future__ import annotations

import grpc

from reasoner.engine.limits import BoundedCrash
from reasoner.errors import (
    GdlError,
    GoalError,
    HeuristicError,
    IllegalMoveError,
    InvalidStateError,
    ReasonerError,
    ResourceLimitError,
    UnknownGameError,
)

__all__ = ["DeadlineExceeded", "RequestError", "status_of"]


class RequestError(ReasonerError):
    """A request that is malformed in a way the domain errors do not cover."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        self.code = code
        super().__init__(message)


class DeadlineExceeded(ReasonerError):
    """The request's deadline passed while the server was working on it."""


def status_of(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message for an error raised while serving a request."""
    if isinstance(error, RequestError):
        return error.code, str(error)
    if isinstance(error, GdlError):
        return grpc.StatusCode.INVALID_ARGUMENT, f"{type(error).__name__}: {error}"
    if isinstance(error, IllegalMoveError | InvalidStateError | HeuristicError):
        return grpc.StatusCode.INVALID_ARGUMENT, f"{type(error).__name__}: {error}"
    if isinstance(error, UnknownGameError):
        return grpc.StatusCode.NOT_FOUND, str(error)
    if isinstance(error, ResourceLimitError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)
    if isinstance(error, DeadlineExceeded):
        return grpc.StatusCode.DEADLINE_EXCEEDED, str(error)
    if isinstance(error, GoalError):
        return grpc.StatusCode.FAILED_PRECONDITION, str(error)
    if isinstance(error, BoundedCrash):
        return grpc.StatusCode.INTERNAL, "internal error while loading the game"
    return grpc.StatusCode.INTERNAL, f"internal error: {type(error).__name__}"
