"""Which relation grows: a short, bounded look inside a grounding that exploded.

clingo's grounder cannot report progress, so when a game exceeds a time or memory bound the
bound alone says nothing about why. This module grounds the game's relaxed program once
more, for a few seconds, with every rule calling back into Python once per ground instance
(``@grew``, see :func:`reasoner.asp.translate.translate`). The counts per head relation when
the time is up name the relation whose rules grew: the one to look at in the game's rules.

Instantiating a game grounds its game program over the relaxed superset, which can grow far
more than the superset itself (chess: the superset in seconds, the game program past 90
million ground rules, most of them ``threatened_with_capture/7``); for that, the look grounds
the game program (``program="game"``) over the superset's fluents and moves.
"""

from __future__ import annotations

import resource
import time
from collections import Counter
from dataclasses import dataclass
from typing import Literal

import clingo

from reasoner.asp.superset import compute_superset, new_control
from reasoner.asp.translate import translate
from reasoner.gdl.syntax import GameDescription

__all__ = ["Growth", "Program", "measure_growth"]

Program = Literal["relaxed", "game"]  # which of the game's programs a look grounds

_CHECK_EVERY = 4096  # instances between two looks at the clock and the memory


class _Stop(Exception):
    """Raised inside the grounder's callback when the look is over."""


@dataclass(frozen=True)
class Growth:
    """Ground rule instances per head relation, largest first."""

    instances: tuple[tuple[str, int], ...]  # ("name/arity", count)
    finished: bool  # the grounding ended within the look
    seconds: float
    program: str = "relaxed"  # which program was ground: "relaxed" or "game"

    def describe(self, top: int = 3) -> str:
        """One clause for an error message, e.g. ``the rules of legal/2 grew most (1,204,331
        ground instances in 5.0 s; then next/1: 80,112)``."""
        if not self.instances:
            return "no rule had grown when the look ended"
        (first, count), rest = self.instances[0], self.instances[1:top]
        if self.finished:
            text = (f"its {self.program} grounding ends in {self.seconds:.1f} s, so the bound is "
                    f"spent after grounding; the largest rules are those of {first} "
                    f"({count:,} ground instances")
        else:
            where = " of the game program" if self.program == "game" else ""
            text = f"the rules{where} of {first} grew most ({count:,} ground instances " \
                   f"in {self.seconds:.1f} s"
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
                   memory_mb: float = 2048, program: Program = "relaxed") -> Growth:
    """Ground one of the game's programs for at most ``seconds`` (and until the process's
    address space passes ``memory_mb``), counting ground rule instances per head relation:
    the relaxed program, or the game program over the relaxed superset's fluents and moves
    (``seconds`` counted after the superset, which takes what it takes)."""
    translation = translate(description, relaxed_everything=program == "relaxed",
                            count_instances=True)
    text = translation.relaxed_program
    if program == "game":
        superset = compute_superset(translate(description))
        text = translation.game_program + "".join(
            [f"#external true({f}).\n" for f in superset.fluents]
            + [f"#external does({r},{m}).\n" for r, m in superset.moves])
    start = time.perf_counter()
    names = tuple(f"{name}/{arity}" for name, arity in translation.counted)
    counter = _Counter(names, seconds, memory_mb)
    finished = True
    try:
        ctl = new_control()
        ctl.add("base", [], text)
        ctl.ground([("base", [])], context=counter)
    except _Stop:  # clingo re-raises what its callback raised
        finished = False
    totals: Counter[str] = Counter()
    for index, count in counter.counts.items():
        totals[names[index]] += count
    return Growth(tuple(totals.most_common()), finished, time.perf_counter() - start,
                  program)
