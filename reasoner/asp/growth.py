"""Which relation grows: a short, bounded look inside a grounding that exploded.

clingo's grounder cannot report progress, so when a game exceeds a time or memory bound the
bound alone says nothing about why. This module grounds the game's relaxed program once
more, for a few seconds, with every rule calling back into Python once per ground instance
(``@grew``, see :func:`reasoner.asp.translate.translate`). The counts per head relation when
the time is up name the relation whose rules grew: the one to look at in the game's rules.
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from dataclasses import dataclass

import clingo

from reasoner.asp.superset import new_control
from reasoner.asp.translate import translate
from reasoner.gdl.syntax import GameDescription

__all__ = ["Growth", "measure_growth"]

_CHECK_EVERY = 4096  # instances between two looks at the clock and the memory


class _Stop(Exception):
    """Raised inside the grounder's callback when the look is over."""


@dataclass(frozen=True)
class Growth:
    """Ground rule instances per head relation, largest first."""

    instances: tuple[tuple[str, int], ...]  # ("name/arity", count)
    finished: bool  # the relaxed grounding ended within the look
    seconds: float

    def describe(self, top: int = 3) -> str:
        """One clause for an error message, e.g. ``the rules of legal/2 grew most (1,204,331
        ground instances in 5.0 s; then next/1: 80,112)``."""
        if not self.instances:
            return "no rule had grown when the look ended"
        (first, count), rest = self.instances[0], self.instances[1:top]
        if self.finished:
            text = (f"its relaxed grounding ends in {self.seconds:.1f} s, so the bound is "
                    f"spent after grounding; the largest rules are those of {first} "
                    f"({count:,} ground instances")
        else:
            text = f"the rules of {first} grew most ({count:,} ground instances in " \
                   f"{self.seconds:.1f} s"
        if rest:
            text += "; then " + ", ".join(f"{name}: {n:,}" for name, n in rest)
        return text + ")"


def _address_space() -> int:
    """The process's virtual size in bytes: what RLIMIT_AS, the memory bound, limits."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except OSError:  # no /proc: the peak resident size is the nearest measure
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class _Counter:
    def __init__(self, names: tuple[str, ...], seconds: float, memory_mb: float) -> None:
        self.names = names
        self.counts: Counter[int] = Counter()
        self.calls = 0
        self.deadline = time.monotonic() + seconds
        self.memory_bytes = memory_mb * 1024 * 1024

    def grew(self, index: clingo.Symbol, *_: clingo.Symbol) -> clingo.Symbol:
        self.counts[index.number] += 1
        self.calls += 1
        if self.calls % _CHECK_EVERY == 0 and (
                time.monotonic() > self.deadline
                or _address_space() > self.memory_bytes):
            raise _Stop
        return clingo.Number(1)


def measure_growth(description: GameDescription, seconds: float = 5.0,
                   memory_mb: float = 2048) -> Growth:
    """Ground the game's relaxed program for at most ``seconds`` (and until the process's
    address space passes ``memory_mb``), counting ground rule instances per head relation."""
    start = time.perf_counter()
    translation = translate(description, relaxed_everything=True, count_instances=True)
    names = tuple(f"{name}/{arity}" for name, arity in translation.counted)
    counter = _Counter(names, seconds, memory_mb)
    finished = True
    try:
        ctl = new_control()
        ctl.add("base", [], translation.relaxed_program)
        ctl.ground([("base", [])], context=counter)
    except _Stop:  # clingo re-raises what its callback raised
        finished = False
    totals: Counter[str] = Counter()
    for index, count in counter.counts.items():
        totals[names[index]] += count
    return Growth(tuple(totals.most_common()), finished, time.perf_counter() - start)
