"""The gRPC service (``reasoner.v1.Reasoner``): the only server-side user of generated code."""

from reasoner.server.app import create_server, serve

__all__ = ["create_server", "serve"]
