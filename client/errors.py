"""Failed calls back to the reasoner's error classes, with their fields, from the
``reasoner.v1.ErrorDetail`` in the call's status (the server writes it from the same table,
:data:`reasoner.error_codes.ERROR_CODES`). No message is read to decide anything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import any_pb2
from grpc_status import rpc_status

from reasoner.error_codes import RequestError, error_from_detail
from reasoner.errors import ReasonerError, ResourceLimitError
from reasoner.v1 import reasoner_pb2 as pb

__all__ = ["RemoteError", "ServerUnreachable", "UnreadableCertificate", "detail_in",
           "error_detail_of", "error_from_rpc", "error_from_status", "status_code"]

# gRPC's status codes by number (a status message carries the number).
_CODES = {code.value[0]: code for code in grpc.StatusCode}


def status_code(number: int) -> grpc.StatusCode:
    """The status code with this number (UNKNOWN for a number gRPC does not define)."""
    return _CODES.get(number, grpc.StatusCode.UNKNOWN)


class RemoteError(RequestError):
    """A failure the server reported that has no more specific class here: a malformed
    request (the server's RequestError), an internal error, or a status of gRPC's own."""

    def __init__(self, code: grpc.StatusCode, message: str, *,
                 reason: str | None = None) -> None:
        super().__init__(code, message, reason=reason)
        self.args = (f"{code.name}: {message}",)
        self._message = message

    @property
    def text(self) -> str:
        return self._message


class ServerUnreachable(ReasonerError, ConnectionError):
    """No connection to the service within the client's connect timeout: nothing listens
    at the target, a firewall drops the packets, or the two sides disagree about TLS (a
    handshake that fails looks the same from here). ``target`` and ``seconds`` say where
    and how long the client tried, ``tls`` whether it spoke TLS; ``setting`` is what the
    message calls the root certificate's setting (a command's option, where it says
    this)."""

    def __init__(self, target: str, seconds: float | None, tls: bool,
                 setting: str = "tls_root") -> None:
        self.target = target
        self.seconds = seconds
        self.tls = tls
        self.setting = setting
        within = f" within {seconds:g} s" if seconds is not None else ""
        hint = (f"is the server running, does it use TLS, and does {setting} hold the "
                "certificate that signed its own?" if tls else
                f"is the server running, and does it use TLS (then give {setting})?")
        super().__init__(f"cannot reach {target}{within}: {hint}", reason="unreachable")

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.target, self.seconds, self.tls, self.setting)


class UnreadableCertificate(ReasonerError):
    """The file given as a client's ``tls_root`` cannot be read or holds no PEM
    certificate; ``path`` names it."""

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        self.why = why
        super().__init__(f"cannot read the TLS root certificate {path}: {why}",
                         reason="unreadable-certificate")

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.path, self.why)


def error_detail_of(error: grpc.RpcError) -> pb.ErrorDetail | None:
    """The ErrorDetail in a failed call's status; None when the status has none (a status
    of gRPC's own, or of a server that does not write one)."""
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # a rich status that disagrees with the plain one
        return None
    if status is None:
        return None
    return detail_in(status.details)


def detail_in(details: Iterable[any_pb2.Any]) -> pb.ErrorDetail | None:
    """The ErrorDetail packed among a status's details, if one is."""
    for packed in details:
        if packed.TypeName() == pb.ErrorDetail.DESCRIPTOR.full_name:
            return pb.ErrorDetail.FromString(packed.value)
    return None


def error_from_rpc(error: grpc.RpcError) -> ReasonerError:
    """The domain error that a failed call stands for."""
    return error_from_status(error.code(), error.details() or "", error_detail_of(error))


def error_from_status(code: grpc.StatusCode, message: str,
                      detail: pb.ErrorDetail | None) -> ReasonerError:
    """The domain error of a status (a failed call's, or a failed session request's)."""
    if detail is not None:
        found = error_from_detail(detail)
        if found is not None:
            return found
    elif code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        # gRPC's own limits (a message over the size limit) have no detail.
        return ResourceLimitError(message)
    reason = detail.reason if detail is not None else ""
    return RemoteError(code, message, reason=reason or None)
