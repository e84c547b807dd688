"""The error contract of the gRPC service: one table from error class to status code and
``reasoner.v1.ErrorKind``, used by the server to report an error and by the client to
raise it again.

A failed call's status is a ``google.rpc.Status`` whose ``details`` hold one
``reasoner.v1.ErrorDetail`` packed in an ``Any``: the kind and the error's fields (see
``ReasonerError.fields``). The client rebuilds the same class with the same fields from it
and never reads the message, which is for people.

This module is the library's side of the contract; it imports neither the server nor the
client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import status_pb2

from reasoner.errors import (
    DeadlineExceeded,
    GdlError,
    GdlSyntaxError,
    GdlValidationError,
    GoalError,
    HeuristicError,
    IllegalMoveError,
    InvalidStateError,
    NoLegalMoveError,
    ReasonerError,
    ReferenceFailure,
    ResourceLimitError,
    UnknownGameError,
    UnsupportedGdlError,
)
from reasoner.v1 import reasoner_pb2 as pb

__all__ = [
    "ERROR_CODES",
    "ErrorCode",
    "RequestError",
    "error_code",
    "error_detail",
    "error_from_detail",
    "error_status",
    "internal_status",
]


class RequestError(ReasonerError):
    """A request that is malformed in a way the domain errors do not cover, or another
    failure that has only a status code and a message."""

    def __init__(self, code: grpc.StatusCode, message: str, *,
                 reason: str | None = None) -> None:
        self.code = code
        super().__init__(message, reason=reason)

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.code, self.text), {"reason": self.reason}


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """How an error class travels: its status code, its kind, and whether the status
    message starts with the class name ("IllegalMoveError: ...")."""

    status: grpc.StatusCode
    kind: pb.ErrorKind
    named: bool = False

    @property
    def internal(self) -> bool:
        """An INTERNAL error's message stays on the server (its log); the status says only
        the class."""
        return bool(self.status == grpc.StatusCode.INTERNAL)


_INVALID = grpc.StatusCode.INVALID_ARGUMENT
_PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION

# The one table. A class not in it travels as its nearest base class that is.
ERROR_CODES: Mapping[type[ReasonerError], ErrorCode] = {
    ReasonerError: ErrorCode(grpc.StatusCode.INTERNAL, pb.ERROR_KIND_REASONER),
    # RequestError's status code is its own ``code``; this one is only the usual.
    RequestError: ErrorCode(_INVALID, pb.ERROR_KIND_REQUEST),
    GdlError: ErrorCode(_INVALID, pb.ERROR_KIND_GDL, named=True),
    GdlSyntaxError: ErrorCode(_INVALID, pb.ERROR_KIND_GDL_SYNTAX, named=True),
    GdlValidationError: ErrorCode(_INVALID, pb.ERROR_KIND_GDL_VALIDATION, named=True),
    UnsupportedGdlError: ErrorCode(_INVALID, pb.ERROR_KIND_UNSUPPORTED_GDL, named=True),
    IllegalMoveError: ErrorCode(_INVALID, pb.ERROR_KIND_ILLEGAL_MOVE, named=True),
    InvalidStateError: ErrorCode(_INVALID, pb.ERROR_KIND_INVALID_STATE, named=True),
    HeuristicError: ErrorCode(_INVALID, pb.ERROR_KIND_HEURISTIC, named=True),
    NoLegalMoveError: ErrorCode(_PRECONDITION, pb.ERROR_KIND_NO_LEGAL_MOVE, named=True),
    GoalError: ErrorCode(_PRECONDITION, pb.ERROR_KIND_GOAL),
    UnknownGameError: ErrorCode(grpc.StatusCode.NOT_FOUND, pb.ERROR_KIND_UNKNOWN_GAME),
    ResourceLimitError: ErrorCode(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                  pb.ERROR_KIND_RESOURCE_LIMIT),
    DeadlineExceeded: ErrorCode(grpc.StatusCode.DEADLINE_EXCEEDED,
                                pb.ERROR_KIND_DEADLINE_EXCEEDED),
    ReferenceFailure: ErrorCode(grpc.StatusCode.INTERNAL, pb.ERROR_KIND_REFERENCE_FAILURE),
}

_CLASSES: Mapping[int, type[ReasonerError]] = {
    code.kind: cls for cls, code in ERROR_CODES.items()}


def error_code(error: ReasonerError) -> ErrorCode:
    """The table's entry for an error: that of its class or of its nearest listed base."""
    for cls in type(error).__mro__:
        found = ERROR_CODES.get(cls)
        if found is not None:
            return found
    raise AssertionError("ReasonerError is in the table")  # pragma: no cover


def _status_code(error: ReasonerError, code: ErrorCode) -> grpc.StatusCode:
    return error.code if isinstance(error, RequestError) else code.status


def _status_message(error: ReasonerError, code: ErrorCode) -> str:
    if code.internal:
        return f"internal error: {type(error).__name__}"
    return f"{type(error).__name__}: {error}" if code.named else str(error)


def error_detail(error: ReasonerError) -> pb.ErrorDetail:
    """The ErrorDetail of an error: its kind, its message and its fields that are known."""
    code = error_code(error)
    detail = pb.ErrorDetail(
        kind=code.kind,
        message=_status_message(error, code) if code.internal else error.text)
    if error.reason and not code.internal:
        detail.reason = error.reason
    for name in type(error).fields:
        value = getattr(error, name)
        if value is not None:
            try:
                setattr(detail, name, value)
            except (TypeError, ValueError):  # not representable (a negative move id): unknown
                detail.ClearField(name)
    return detail


def _packed(code: grpc.StatusCode, message: str,
            detail: pb.ErrorDetail) -> status_pb2.Status:
    packed = any_pb2.Any()
    packed.Pack(detail)
    return status_pb2.Status(code=code.value[0], message=message, details=[packed])


def error_status(error: ReasonerError) -> status_pb2.Status:
    """The status that reports an error: code and message from the table, with the error's
    ErrorDetail in its details."""
    code = error_code(error)
    return _packed(_status_code(error, code), _status_message(error, code),
                   error_detail(error))


def internal_status(message: str) -> status_pb2.Status:
    """The status of a failure that is no error of the reasoner's (a defect): INTERNAL with
    ``message``, which must not say more than the server means to tell."""
    return _packed(grpc.StatusCode.INTERNAL, message,
                   pb.ErrorDetail(kind=pb.ERROR_KIND_INTERNAL, message=message))


def error_from_detail(detail: pb.ErrorDetail) -> ReasonerError | None:
    """The error an ErrorDetail reports, of the table's class for its kind and with its
    fields; None for the kinds that have no class of the library's (a request error, an
    internal error, no kind at all)."""
    cls = _CLASSES.get(detail.kind)
    if cls is None or cls is RequestError:
        return None
    return cls(detail.message, reason=detail.reason or None, **_fields(cls, detail))


def _fields(cls: type[ReasonerError], detail: pb.ErrorDetail) -> dict[str, Any]:
    """The keyword arguments of ``cls`` that ``detail`` sets (a field not set: None)."""
    found: dict[str, Any] = {}
    for name in cls.fields:
        field = pb.ErrorDetail.DESCRIPTOR.fields_by_name[name]
        if field.has_presence:
            found[name] = getattr(detail, name) if detail.HasField(name) else None
        elif field.type == field.TYPE_BOOL:
            found[name] = getattr(detail, name)
        else:
            found[name] = getattr(detail, name) or None
    return found
