"""The command line's numbers: the domain of each numeric option.

Every numeric option of ``gdl-reasoner`` takes one of these argparse types, so that a value
outside its domain (a count of zero runs, a negative seed, a clock of no time, a port past
65535, ``nan``) is refused by argparse itself, with the command's usage line, the option
and the reason, and exit status 2, before anything loads or listens: never a traceback from
deep inside a run, never a run that quietly does nothing.

>>> at_least(1)("3")
3
>>> seconds()("0.5")
0.5
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["GOAL", "LONGEST", "MEBIBYTES", "MESSAGE_MEBIBYTES", "MOST", "PORT", "SEED",
           "OutOfDomain", "at_least", "between", "seconds"]


class OutOfDomain(argparse.ArgumentTypeError):
    """A value outside an option's domain: ``text`` as given, ``value`` as read (None: not a
    number), ``reason`` ("not-a-number", "not-finite", "below" or "above") and the domain's
    bounds ``low`` and ``high`` where they apply."""

    def __init__(self, message: str, *, text: str, reason: str, value: float | None = None,
                 low: float | None = None, high: float | None = None) -> None:
        self.text = text
        self.reason = reason
        self.value = value
        self.low = low
        self.high = high
        super().__init__(message)


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise OutOfDomain(f"{text!r} is not a whole number", text=text,
                          reason="not-a-number") from None


# The most a count may be; a count past it is a typing slip, not a run that ends.
MOST = 2**31 - 1
# The longest time an option may name, about 11.6 days: longer ones overflowed the
# operating system's timers and resource limits.
LONGEST = 1_000_000.0


def at_least(low: int) -> Callable[[str], int]:
    """A whole number no less than ``low`` (and no more than :data:`MOST`)."""

    def parse(text: str) -> int:
        value = _whole(text)
        if value < low:
            raise OutOfDomain(f"must be at least {low}, got {value}", text=text,
                              reason="below", value=value, low=low, high=MOST)
        if value > MOST:
            raise OutOfDomain(f"must be at most {MOST}, got {value}", text=text,
                              reason="above", value=value, low=low, high=MOST)
        return value

    return parse


def between(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``, both included."""

    def parse(text: str) -> int:
        value = _whole(text)
        if not low <= value <= high:
            raise OutOfDomain(f"must be from {low} to {high}, got {value}", text=text,
                              reason="below" if value < low else "above", value=value,
                              low=low, high=high)
        return value

    return parse


def seconds(*, zero: bool = False) -> Callable[[str], float]:
    """A finite number of seconds, more than zero and at most :data:`LONGEST`; with
    ``zero``, zero too (the option's help says what zero means: no bound, or another
    option's value)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise OutOfDomain(f"{text!r} is not a number of seconds", text=text,
                              reason="not-a-number") from None
        if not math.isfinite(value):
            raise OutOfDomain(f"must be a finite number of seconds, got {text}", text=text,
                              reason="not-finite", value=value)
        if value < 0 or (value == 0 and not zero):
            bound = "at least 0" if zero else "more than 0"
            raise OutOfDomain(f"must be {bound} seconds, got {text}", text=text,
                              reason="below", value=value, low=0.0, high=LONGEST)
        if value > LONGEST:
            raise OutOfDomain(f"must be at most {LONGEST:,.0f} seconds, "
                              f"got {text}", text=text, reason="above", value=value,
                              low=0.0, high=LONGEST)
        return value

    return parse


# A seed of the random choices: an unsigned 64-bit number as the service's, below 2**63 so
# that the seeds a run derives from it (seed + run, seed + start) stay in 64 bits.
SEED = between(0, 2**63 - 1)
# A TCP port to listen on; 0 picks a free one.
PORT = between(0, 65535)
# A goal value of GDL.
GOAL = between(0, 100)
# A memory bound in MiB, up to a pebibyte (its bytes must fit the limits' 64 bits).
MEBIBYTES = between(1, 2**30)
# The largest gRPC message in MiB: gRPC takes the byte count as a 32-bit int.
MESSAGE_MEBIBYTES = between(1, 2047)
