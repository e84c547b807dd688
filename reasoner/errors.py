"""The one hierarchy of domain errors.

Every error the reasoner raises on purpose derives from :class:`ReasonerError`, which is a
``ValueError``. Callers can catch precisely (a bad move, a bad file, a limit) or broadly. The
gRPC service maps these classes to status codes in one place.
"""

from __future__ import annotations

__all__ = [
    "GdlError",
    "GdlSyntaxError",
    "GdlValidationError",
    "GoalError",
    "HeuristicError",
    "IllegalMoveError",
    "InvalidStateError",
    "NoLegalMoveError",
    "ReasonerError",
    "ReferenceFailure",
    "ResourceLimitError",
    "UnknownGameError",
    "UnsupportedGdlError",
]


class ReasonerError(ValueError):
    """Base class of every error the reasoner raises deliberately."""


class GdlError(ReasonerError):
    """A problem with a GDL text, located at a line and column (1-based) when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.message = message
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{message}")


class GdlSyntaxError(GdlError):
    """The text is not well-formed KIF/GDL (unbalanced parentheses, misplaced keywords...)."""


class GdlValidationError(GdlError):
    """The text parses but is not a valid GDL game (unsafe rule, unstratified negation...)."""


class UnsupportedGdlError(GdlValidationError):
    """The text uses a GDL extension this reasoner does not play (GDL-II: ``sees``, ``random``)."""


class IllegalMoveError(ReasonerError):
    """A joint move that is malformed (role missing or doubled) or not legal in the state."""


class InvalidStateError(ReasonerError):
    """A state that names fluents the game can never have, or is otherwise malformed."""


class NoLegalMoveError(ReasonerError):
    """A role has no legal move in a non-terminal state (a defect of the game's rules)."""


class GoalError(ReasonerError):
    """A role has no goal value, or more than one, in the state asked about."""


class UnknownGameError(ReasonerError, LookupError):
    """A game id that is not loaded."""


class ResourceLimitError(ReasonerError):
    """Grounding or another computation exceeded a time or memory bound."""

    def __init__(self, message: str, bound: str | None = None,
                 relation: str | None = None) -> None:
        self.bound = bound  # "time" or "memory"
        self.relation = relation  # "name/arity" of the relation whose rules grew most
        super().__init__(message)

    def __reduce__(self) -> tuple[type, tuple[str, str | None, str | None]]:
        return type(self), (str(self), self.bound, self.relation)


class HeuristicError(ReasonerError):
    """An unknown heuristic, a parameter out of its range, or a heuristic that does not
    apply to the game or state asked about (the message names what is allowed)."""


class ReferenceFailure(ReasonerError):
    """The reference solver could not answer: not installed, unable to handle the game,
    or over its time bound (the reason is the message)."""
