"""The one hierarchy of domain errors.

Every error the reasoner raises on purpose derives from :class:`ReasonerError`, which is a
``ValueError``. Callers can catch precisely (a bad move, a bad file, a limit) or broadly. The
gRPC service maps these classes to status codes and a structured ``reasoner.v1.ErrorDetail``
in one table (:data:`reasoner.error_codes.ERROR_CODES`), which the client reads back into the
same classes with the same fields.

Each class names its structured fields in ``fields``: the keyword arguments of its
constructor besides the message, kept as attributes of the same names (None: not known).
Errors pickle with their fields (they cross process boundaries in
:func:`reasoner.engine.limits.run_bounded`).

Every error also has ``reason``: a short fixed word for what went wrong within its class
("unstratified", "unsafe-head", "not-legal"...; None: not said), for callers and tests that must
tell two errors of one class apart without reading the message. The service's ErrorDetail
carries it (``reason``), and the client's errors read it back. The service's own refusals
have theirs too: a request error's ("malformed-message", "playout-count", "too-many-states",
"conflicting-fields", "unknown-backend", "cancelled", "unauthenticated"...), a state's
("missing-state", "unknown-fluent"), a move's ("joint-move", "unknown-move"), a game id's
("unknown-id"), a deadline's ("client-deadline", "server-deadline", "session-idle") and a
server limit's ("answer-size", "children", "max-steps", "busy", "too-many-sessions",
"cache-size").
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import ClassVar

__all__ = [
    "Bound",
    "DeadlineExceeded",
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
    "seconds_text",
    "shortened",
]


def seconds_text(value: float) -> str:
    """A number of seconds as a message shows it to a person: whole seconds from 10 s on,
    else two significant digits (the exact value stays in the error's fields).

    >>> seconds_text(17.2525), seconds_text(2.5), seconds_text(0.0504), seconds_text(1234.5)
    ('17 s', '2.5 s', '0.05 s', '1,234 s')
    """
    if value >= 10:
        return f"{round(value):,} s"
    return f"{value:.2g} s"


# A message quotes at most this many characters of any one word of user text, and is at
# most MESSAGE characters in all: a symbol may be a megabyte long, and a gRPC status carries
# its message in metadata of a few KiB.
WORD = 120
MESSAGE = 2000
_LONG_WORD = re.compile(r"\S{" + str(WORD + 1) + ",}")


def _cut_word(match: re.Match[str]) -> str:
    word = match.group()
    return f"{word[:WORD - 24]} ...({len(word):,} characters)"


def shortened(message: str) -> str:
    """``message`` with every word over :data:`WORD` characters and the whole over
    :data:`MESSAGE` characters cut, saying how long they were (shortening twice changes
    nothing more)."""
    message = _LONG_WORD.sub(_cut_word, message)
    if len(message) > MESSAGE:
        message = f"{message[:MESSAGE - 40]} ...({len(message):,} characters in all)"
    return message


class ReasonerError(ValueError):
    """Base class of every error the reasoner raises deliberately."""

    # The structured fields of the class (constructor keywords and attributes).
    fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, message: str = "", *, reason: str | None = None) -> None:
        self.reason = reason
        super().__init__(shortened(message))

    @property
    def text(self) -> str:
        """The message alone, without what the class adds to it (a GDL error's position)."""
        return str(self)


class GdlError(ReasonerError):
    """A problem with a GDL text, located at a line and column (1-based) when known;
    ``symbols`` are the names the problem is about (a relation, a variable, a role), in the
    order the message gives them (in process only)."""

    fields = ("line", "column")

    def __init__(self, message: str, line: int | None = None, column: int | None = None, *,
                 reason: str | None = None, symbols: tuple[str, ...] = ()) -> None:
        self.message = message = shortened(message)
        self.line = line
        self.column = column
        self.symbols = symbols
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{message}", reason=reason)

    @property
    def text(self) -> str:
        return self.message


class GdlSyntaxError(GdlError):
    """The text is not well-formed KIF/GDL (unbalanced parentheses, misplaced keywords...)."""


class GdlValidationError(GdlError):
    """The text parses but is not a valid GDL game (unsafe rule, unstratified negation...)."""


class GoalValueError(GdlValidationError):
    """A goal value that is not an integer in 0..100, met when the rules are ground (a
    rule whose value is a variable); ``role`` and ``value`` are GDL text. A load names the
    rule that could give it."""

    @classmethod
    def of(cls, role: str, value: str) -> GoalValueError:
        """The error for ``value`` as ``role``'s goal."""
        error = cls(f"goal value '{value}' of role {role} is not an integer in 0..100",
                    reason="goal-value")
        error.role, error.value = role, value
        return error

    role = ""
    value = ""


class UnsupportedGdlError(GdlValidationError):
    """The text uses a GDL extension this reasoner does not play (GDL-II: ``sees``, ``random``)."""


class IllegalMoveError(ReasonerError):
    """A joint move that is malformed (role missing or doubled) or not legal in the state;
    ``role`` and ``move_id`` name the offending role and move where known."""

    fields = ("role", "move_id")

    def __init__(self, message: str, *, role: str | None = None,
                 move_id: int | None = None, reason: str | None = None) -> None:
        self.role = role
        self.move_id = move_id
        super().__init__(message, reason=reason)


class InvalidStateError(ReasonerError):
    """A state that names fluents the game can never have, or is otherwise malformed."""


class NoLegalMoveError(ReasonerError):
    """A role has no legal move in a non-terminal state (a defect of the game's rules);
    ``role`` names it where known."""

    fields = ("role",)

    def __init__(self, message: str, *, role: str | None = None,
                 steps: int | None = None, reason: str | None = None) -> None:
        self.role = role
        self.steps = steps  # the playout's steps before the state (in process only)
        super().__init__(message, reason=reason)

    @classmethod
    def after(cls, role: str, steps: int) -> NoLegalMoveError:
        """The error of a playout that met such a state after ``steps`` steps.

        >>> NoLegalMoveError.after("white", 3)
        NoLegalMoveError('role white has no legal move in a non-terminal state after 3 steps')
        """
        return cls(f"role {role} has no legal move in a non-terminal state after {steps} "
                   "steps", role=role, steps=steps)


class GoalError(ReasonerError):
    """A role has no goal value, or more than one, in the state asked about; ``role``
    names it where known, and ``values`` the values it has there (in process only)."""

    fields = ("role",)

    def __init__(self, message: str, *, role: str | None = None,
                 values: tuple[int, ...] | None = None, reason: str | None = None) -> None:
        self.role = role
        self.values = values
        super().__init__(message, reason=reason)


class UnknownGameError(ReasonerError, LookupError):
    """A game id that is not loaded."""


class Bound(StrEnum):
    """The kinds of bound a :class:`ResourceLimitError` names."""

    TIME = "time"
    MEMORY = "memory"
    SIZE = "size"
    CONCURRENCY = "concurrency"  # the server's slots for heavy calls are all taken


class ResourceLimitError(ReasonerError):
    """Grounding or another computation exceeded a time, memory or size bound.

    ``network`` is true when the bound is a propositional network's own (the game was asked
    for on the network backend and its network would be too large or too slow to build):
    the message then already says what was too large, and the game still plays on clingo.
    ``reason`` says in a word whose bound it was ("work": the bounded child process's time
    or memory, :func:`reasoner.engine.limits.run_bounded`; "gates", "ors", "grounding"...).
    """

    fields = ("bound", "relation", "network")

    def __init__(self, message: str, bound: Bound | str | None = None,
                 relation: str | None = None, *, network: bool = False,
                 limit: float | None = None, reason: str | None = None) -> None:
        self.bound = None if bound is None else Bound(bound)
        self.relation = relation  # "name/arity" of the relation whose rules grew most
        self.network = network
        # The bound's value, in its unit (seconds, MiB, or the count ``reason`` names);
        # in process only.
        self.limit = limit
        super().__init__(message, reason=reason)

    def __reduce__(self) -> tuple[type, tuple[str, str | None, str | None],
                                  dict[str, object]]:
        return type(self), (str(self), self.bound, self.relation), {
            "network": self.network, "limit": self.limit, "reason": self.reason}


class HeuristicError(ReasonerError):
    """An unknown heuristic, a parameter out of its range, or a heuristic that does not
    apply to the game or state asked about (the message names what is allowed);
    ``heuristic`` and ``parameter`` name those concerned and ``value`` the parameter's text,
    where known (in process only)."""

    def __init__(self, message: str, *, heuristic: str | None = None,
                 parameter: str | None = None, value: str | None = None,
                 reason: str | None = None) -> None:
        self.heuristic = heuristic
        self.parameter = parameter
        self.value = value
        super().__init__(message, reason=reason)


class DeadlineExceeded(ReasonerError):
    """A request's deadline passed while the server was working on it."""


class ReferenceFailure(ReasonerError):
    """The reference solver could not answer: not installed, unable to handle the game,
    or over its time bound (the message says why; ``reason`` says it in a word, and
    ``limit`` is the time bound in seconds where that was it; in process only)."""

    def __init__(self, message: str = "", *, reason: str | None = None,
                 limit: float | None = None) -> None:
        self.limit = limit
        super().__init__(message, reason=reason)
