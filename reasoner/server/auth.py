"""A bearer token that every call must carry, when the server is given one.

With ``serve --token-file FILE``, a call whose metadata lacks ``authorization: Bearer
<token>`` (the file's first line) ends with UNAUTHENTICATED before any of its work, the
health check and reflection included, and so does a call of a method the server does not
have: only a caller with the token learns which names exist (UNIMPLEMENTED). The token is
compared in constant time. Sent over a plain channel it can be read on the way: give the
server a TLS certificate too, unless it listens on loopback.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Any

import grpc

from reasoner.server.status import RequestError, abort

__all__ = ["TokenCheck"]


class TokenCheck(grpc.ServerInterceptor):  # type: ignore[misc]
    """Refuses calls without the token (see the module documentation)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("the token is empty")
        self._expected = f"Bearer {token}".encode()

    def intercept_service(self, continuation: Callable[[Any], Any], details: Any) -> Any:
        if self._carries_token(details):
            return continuation(details)
        handler = continuation(details)
        if handler is None:  # an unknown method: refused like the others, not UNIMPLEMENTED
            return _UNKNOWN_REFUSAL
        return _refusal(handler)

    def _carries_token(self, details: Any) -> bool:
        for key, value in details.invocation_metadata or ():
            if key == "authorization":
                given = value.encode() if isinstance(value, str) else bytes(value)
                if hmac.compare_digest(given, self._expected):
                    return True
        return False


def _deny(request: Any, context: grpc.ServicerContext) -> Any:
    abort(context, RequestError(
        grpc.StatusCode.UNAUTHENTICATED,
        "this server needs the metadata `authorization: Bearer <token>`",
        reason="unauthenticated"))


def _refusal(handler: Any) -> Any:
    """A handler of the same shape as ``handler`` that refuses the call."""
    if handler.request_streaming and handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(_deny)
    if handler.request_streaming:
        return grpc.stream_unary_rpc_method_handler(_deny)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(_deny)
    return grpc.unary_unary_rpc_method_handler(_deny)


# A method the server lacks has no known shape: a streaming handler refuses it without
# waiting for a request message, whatever the caller sends.
_UNKNOWN_REFUSAL = grpc.stream_stream_rpc_method_handler(_deny)
