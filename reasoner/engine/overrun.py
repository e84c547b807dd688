"""What to say when grounding a game overran its time or memory bound.

The bound alone ("exceeded the time bound of 60 s") does not tell a game's author what to
fix. After an overrun, a short second look, itself bounded, grounds the game's relaxed
program with a counter on every rule (:mod:`reasoner.asp.growth`) and the error then names
the relation whose rules grew most.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from reasoner.asp.growth import Growth, Program, measure_growth
from reasoner.engine.limits import BoundedCrash, Limits, run_bounded
from reasoner.errors import ReasonerError, ResourceLimitError
from reasoner.gdl.parser import parse_game

__all__ = ["LOOK_SECONDS", "explain_overrun"]

LOOK_SECONDS = 5.0  # the longest look; a shorter bound gets a look as long as itself
# What the child of a look may take beyond it (reading the rules) before it is killed.
_LOOK_MARGIN = 5.0


# A look at the game program first computes the relaxed superset it is ground over: what
# that may take beyond the look (chess: 9 s).
_SUPERSET_SECONDS = 30.0


def _look(text: str, case_sensitive: bool, seconds: float, memory_mb: float,
          program: Program) -> Growth:
    description = parse_game(text, case_sensitive=case_sensitive)
    return measure_growth(description, seconds, memory_mb, program)


def explain_overrun(error: ResourceLimitError, text: str, limits: Limits, *,
                    case_sensitive: bool = False,
                    check: Callable[[], None] | None = None,
                    program: Program = "relaxed") -> ResourceLimitError:
    """The error with the relation that grew added to its message (and as ``relation``);
    the error unchanged if the look itself fails, or if the error is a network's refusal
    (``error.network``: its message already says what was too large). The look grounds
    ``program``: the relaxed one (loading a game), or the game program over the superset
    (instantiating it; where the superset alone outlasts that look, the relaxed program
    after it). A look takes at most ``LOOK_SECONDS`` and a margin (and the superset's time
    for the game program); ``check`` may raise to stop it (a cancelled request)."""
    if error.network:
        return error
    seconds = min(LOOK_SECONDS, limits.seconds)
    # The look stops itself at its time and at 80% of the memory bound; the bounds of its
    # child process are only the backstop.
    extra = _SUPERSET_SECONDS if program == "game" else 0.0
    look = dataclasses.replace(limits, seconds=seconds + _LOOK_MARGIN + extra)
    growth = _growth(text, case_sensitive, seconds, limits, look, program, check)
    prefix = ""
    if growth is None and program == "game":
        # The game program is ground over the relaxed superset: where that superset alone
        # outlasts the look (small_dominion's 1.4 million dealt hands), the relaxed program
        # is the one that grows.
        growth = _growth(text, case_sensitive, seconds, limits,
                         dataclasses.replace(limits, seconds=seconds + _LOOK_MARGIN),
                         "relaxed", check)
        prefix = "its relaxed superset alone outgrew the look: "
    if growth is None:
        return error
    return ResourceLimitError(f"{error}; {prefix}{growth.describe()}", bound=error.bound,
                              relation=growth.instances[0][0], limit=error.limit,
                              reason=error.reason)


def _growth(text: str, case_sensitive: bool, seconds: float, limits: Limits, look: Limits,
            program: Program, check: Callable[[], None] | None) -> Growth | None:
    """The look's growth in a bounded child; None if it failed or nothing grew."""
    try:
        growth = run_bounded(_look, (text, case_sensitive, seconds, 0.8 * limits.memory_mb,
                                     program), look, check=check)
    except (ReasonerError, BoundedCrash):
        return None
    return growth if growth.instances else None
