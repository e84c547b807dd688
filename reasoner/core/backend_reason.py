"""Why a load settled on the backend that answers it: ``auto``'s reasons as data.

``auto`` tries the network on the native kernel first and falls back step by step (the
Python network, clingo, top-down evaluation, position by position). Each step it takes is a
:class:`ReasonStep` (the backend it concerns, what happened, what follows, and the bound and
relation where a bound was hit); a :class:`BackendReason` is the list of them. The command
line, the load's statistics and the service all print the same words, ``str(reason)``, and
a program reads the fields.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BackendReason", "ReasonStep"]


@dataclass(frozen=True)
class ReasonStep:
    """One step of a load's way to its backend: about ``backend`` ("network", "native",
    "clingo", "compiled" or "topdown"), ``reason`` happened, so ``then`` (empty where the
    step leads nowhere new); ``bound`` names the bound that was hit ("size", "time",
    "memory", or empty) and ``relation`` the relation that grew past it, where known.

    >>> str(ReasonStep("topdown", "SWI-Prolog is not installed", "clingo grounds them"))
    'SWI-Prolog is not installed, so clingo grounds them'
    """

    backend: str
    reason: str
    then: str = ""
    bound: str = ""
    relation: str = ""

    def __str__(self) -> str:
        return f"{self.reason}, so {self.then}" if self.then else self.reason


@dataclass(frozen=True)
class BackendReason:
    """The steps of a load's way to its backend, in order (none where the first choice
    answers); its text joins theirs with semicolons."""

    steps: tuple[ReasonStep, ...] = ()

    def __str__(self) -> str:
        return "; ".join(map(str, self.steps))

    def __bool__(self) -> bool:
        return bool(self.steps)

    def then(self, step: ReasonStep) -> BackendReason:
        """This reason with one more step (the same where it already has that step)."""
        return self if step in self.steps else BackendReason((*self.steps, step))
