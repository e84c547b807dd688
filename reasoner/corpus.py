"""Runs over a folder of games: each file's work, bounded, and its fate.

The corpus sweep and the corpus cross-check both take every ``.kif`` file of a folder
(sorted, or a seeded sample of them), run one function per file, each in its own bounded
child process (:mod:`reasoner.engine.limits`) so that a game that explodes or a crash on one
file never stops the run, and record what happened to the file as a :class:`Fate`.
:func:`game_files` chooses the files and :func:`run_folder` runs them; the per-file work and
the record of its result belong to the caller.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from reasoner.engine.limits import BoundedCrash, Limits, run_bounded
from reasoner.errors import ReasonerError, ResourceLimitError

__all__ = ["Fate", "game_files", "run_folder"]

R = TypeVar("R")


class Fate(StrEnum):
    """What happened to one file of a folder run. A member is its printed word (a ``str``:
    it compares, formats and serialises as that word)."""

    # Sweeps (load and play each file, or instantiate it).
    LOADED = "loaded"  # it loaded and played its seeded playouts
    INSTANTIATED = "instantiated"  # its instantiated game plays exactly like it
    REJECTED = "rejected"  # invalid or unsupported GDL, with the reason
    DEFECT = "defect"  # it loaded, but its rules misbehave in play (the game's fault)
    # Cross-checks (each file against the reference, or one backend against the other).
    AGREE = "agree"  # every state of every playout, and the supersets, agree
    DISAGREE = "disagree"  # the two differ (the reason holds the shortest reproduction)
    REFERENCE_FAILED = "reference failed"  # the reference could not answer
    ENGINE_FAILED = "engine failed"  # the engine rejected the game or failed on it
    GDL_II = "GDL-II"  # skipped: neither reasoner plays GDL-II
    # Both.
    LIMIT = "limit"  # a time or memory bound was exceeded
    FAILED = "failed"  # anything else: a bug in the reasoner


def game_files(folder: Path, *, sample: int = 0, seed: int = 0) -> list[Path]:
    """Every ``.kif`` file under ``folder`` (at any depth), sorted; with ``sample``, only
    that many of them, drawn with ``seed`` (and sorted)."""
    paths = sorted(folder.rglob("*.kif"))
    if sample:
        paths = sorted(random.Random(seed).sample(paths, min(sample, len(paths))))
    return paths


def run_folder(paths: Iterable[Path], work: Callable[..., R], args: tuple[Any, ...] = (), *,
               limits: Limits | None, ended: Callable[[str, Fate, str, float], R],
               crashed: Fate = Fate.FAILED,
               limit_reason: Callable[[Path, ResourceLimitError], str] | None = None,
               ) -> Iterator[R]:
    """Run ``work(str(path), *args)`` for each path, in a child process under ``limits``
    (``None``: here, for work that bounds its own parts), and yield its result.

    A file whose work did not return gets the record ``ended(path, fate, reason, seconds)``
    instead: fate :attr:`Fate.LIMIT` over a bound (the reason from ``limit_reason``, by
    default the error's message), ``crashed`` (by default :attr:`Fate.FAILED`) for a
    :class:`ReasonerError` that the work let out (``"Type: message"``) or for any other
    failure in the child (the first line of its report).
    """
    for path in paths:
        start = time.perf_counter()
        try:
            yield run_bounded(work, (str(path), *args), limits)
        except ResourceLimitError as error:
            seconds = time.perf_counter() - start
            reason = limit_reason(path, error) if limit_reason else str(error)
            yield ended(str(path), Fate.LIMIT, reason, seconds)
        except ReasonerError as error:
            yield ended(str(path), crashed, f"{type(error).__name__}: {error}",
                        time.perf_counter() - start)
        except BoundedCrash as error:
            yield ended(str(path), crashed, str(error).strip().splitlines()[0],
                        time.perf_counter() - start)
