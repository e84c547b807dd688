"""Errors raised while serving a request, to the status the caller gets: code, message and
a ``reasoner.v1.ErrorDetail`` in the ``google.rpc.Status`` details, all from the one table
(:data:`reasoner.error_codes.ERROR_CODES`) that the client reads them back with."""

from __future__ import annotations

from typing import NoReturn

import grpc
from google.rpc import status_pb2
from grpc_status import rpc_status

from reasoner.engine.limits import BoundedCrash
from reasoner.error_codes import RequestError, error_status, internal_status
from reasoner.errors import DeadlineExceeded, ReasonerError

__all__ = ["DeadlineExceeded", "RequestError", "abort", "rich_status_of", "status_of"]


def rich_status_of(error: BaseException) -> status_pb2.Status:
    """The status for an error raised while serving a request: the table's for the
    reasoner's errors, INTERNAL without the cause for anything else (a defect)."""
    if isinstance(error, ReasonerError):
        return error_status(error)
    if isinstance(error, BoundedCrash):
        return internal_status("internal error while loading the game")
    return internal_status(f"internal error: {type(error).__name__}")


def status_of(error: BaseException) -> tuple[grpc.StatusCode, str]:
    """The status code and message for an error raised while serving a request."""
    status = rich_status_of(error)
    return rpc_status.to_status(status).code, status.message


def abort(context: grpc.ServicerContext, error: BaseException) -> NoReturn:
    """End the call with the status of ``error`` (raises, as ``context.abort`` does)."""
    context.abort_with_status(rpc_status.to_status(rich_status_of(error)))
    raise AssertionError("abort_with_status raises")  # pragma: no cover
