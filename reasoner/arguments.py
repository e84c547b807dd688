"""The error of an argument outside its domain, which is no domain error of the reasoner's
(:mod:`reasoner.errors`): a plain ``ValueError`` with the argument's name and value as
fields, so that callers and tests need not read its message."""

from __future__ import annotations

__all__ = ["ArgumentError"]


class ArgumentError(ValueError):
    """An argument of a call outside its domain (a negative count, an unknown name): the
    caller's mistake, a plain ValueError and not a domain error. ``argument`` names it,
    ``value`` is what was given and ``allowed`` what may be given, where known; ``reason``
    says what is wrong in a word where the value alone does not."""

    def __init__(self, message: str, *, argument: str, value: object = None,
                 allowed: object = None, reason: str | None = None) -> None:
        self.argument = argument
        self.value = value
        self.allowed = allowed
        self.reason = reason
        super().__init__(message)
