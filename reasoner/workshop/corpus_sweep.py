"""Corpus sweeps: load every GDL file of a folder and play it, reporting each file's fate.

Each file runs in its own bounded child process (:func:`reasoner.corpus.run_folder`), so a
game that explodes or a crash in one file cannot stop the sweep. Fates
(:class:`reasoner.corpus.Fate`):

* ``loaded``: it loaded and played its seeded random playouts to the end (or the step cap,
  or as far as the file's time bound let them: the reason then says how far);
* ``instantiated`` (instantiation sweeps): its instantiated game plays exactly like it;
* ``rejected``: invalid or unsupported GDL, with the reason (an expected outcome for such files);
* ``defect``: it loaded, but its rules misbehave in play (a role without legal moves in a
  non-terminal state, no or two goal values in a terminal one): the game's fault, reported;
* ``limit``: a time or memory bound was exceeded;
* ``failed``: anything else, i.e. a bug in the reasoner.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.console.cluster import Task
from reasoner.core.walk import random_playout
from reasoner.corpus import Fate, run_folder
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits, run_bounded
from reasoner.engine.overrun import explain_overrun
from reasoner.errors import (
    GdlError,
    GoalError,
    NoLegalMoveError,
    ResourceLimitError,
)

__all__ = ["FATES", "SweepResult", "check_file", "check_instantiation", "format_table",
           "summarise", "sweep", "sweep_one", "sweep_tasks"]

# The fates of a sweep, in the order of the table's totals.
FATES = (Fate.LOADED, Fate.INSTANTIATED, Fate.REJECTED, Fate.DEFECT, Fate.LIMIT, Fate.FAILED)


@dataclass(frozen=True)
class SweepResult:
    """What happened to one file."""

    path: str
    fate: Fate
    reason: str = ""
    roles: int = 0
    fluents: int = 0
    moves: int = 0
    load_ms: float = 0.0
    steps: int = 0
    seconds: float = 0.0
    rules: int = 0  # ground rules of the instantiated game (instantiation sweeps)
    # the backend it loaded on ("native", "propnet", "clingo", "compiled", "topdown",
    # "position")
    backend: str = ""
    gates: int = 0  # of its network, when it got one
    # instantiation sweeps: the playout check's wall time (loading both games and playing
    # them), up to its bound where it ran past it; 0 where there was no check
    check_seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> SweepResult:
        """The result that :meth:`as_dict` wrote."""
        return cls(**{**saved, "fate": Fate(saved["fate"])})

    @classmethod
    def failed_task(cls, task: Task, why: str) -> SweepResult:
        """The result of a file whose task failed on every try on a cluster."""
        return cls.ended(task.key, Fate.FAILED, why, 0.0)

    @classmethod
    def ended(cls, path: str, fate: Fate, reason: str, seconds: float) -> SweepResult:
        """The result of a file whose check did not return (see :func:`run_folder`)."""
        return cls(path, fate, reason, seconds=seconds)


def _play(game: Game, playouts: int, max_steps: int, seed: int,
          deadline: float | None = None) -> tuple[int, str, str]:
    """Seeded random playouts until ``deadline`` (a :func:`time.perf_counter` value): the
    number of steps, a defect (or "") and, when the deadline came first, how far they got."""
    rng = random.Random(seed)
    steps = 0
    for playout in range(playouts):
        try:
            result = random_playout(game, game.initial_state, rng, max_steps,
                                    deadline=deadline)
        except NoLegalMoveError as error:
            return steps, f"playout {playout}: {error}", ""
        steps += result.length
        if result.timed_out:
            return steps, "", (f"played {steps} steps ({playout} whole playouts) before "
                               "the time bound")
        if result.terminal:
            try:
                game.goals(result.final)
            except GoalError as error:
                return steps, f"playout {playout}, terminal state: {error}", ""
    return steps, "", ""


def check_file(path: str, playouts: int = 3, max_steps: int = 200, seed: int = 0,
               strict: bool = False, seconds: float | None = None) -> SweepResult:
    """Load and play one file in this process (see :func:`sweep` for the bounded version);
    the playouts stop when ``seconds`` since the start have passed (the game loaded: its
    fate is ``loaded``, the reason says how far they got)."""
    start = time.perf_counter()
    try:
        game = Game.from_file(path, strict=strict)
    except GdlError as error:
        return SweepResult(path, Fate.REJECTED, str(error), seconds=time.perf_counter() - start)
    steps, defect, cut = _play(game, playouts, max_steps, seed,
                               None if seconds is None else start + seconds)
    stats = game.statistics
    return SweepResult(
        path, Fate.DEFECT if defect else Fate.LOADED, defect or cut, len(game.roles),
        stats.fluents, stats.moves, round(stats.total_ms, 2), steps,
        time.perf_counter() - start, backend=stats.backend,
        gates=stats.network.gates if stats.network else 0,
    )


# Of a file's time bound, the part its playouts may use (the rest is the child's margin).
PLAY_SHARE = 0.85


DEFAULT_LIMITS = Limits(60.0, 4096)


def _instantiate_file(path: str, strict: bool, written: str) -> SweepResult:
    """Instantiate one file, writing the instantiated game's text to ``written``; its fate
    (``instantiated`` so far, or ``rejected``). The text stays in the file: millions of
    ground rules would otherwise be pickled to the parent and on to the check."""
    from reasoner.instantiate.ground_game import instantiate

    start = time.perf_counter()
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    try:
        found = instantiate(text, strict=strict)
    except GdlError as error:
        return SweepResult(path, Fate.REJECTED, str(error),
                           seconds=time.perf_counter() - start)
    with open(written, "w", encoding="utf-8") as out:
        found.write(out)
    stats = found.statistics
    return SweepResult(path, Fate.INSTANTIATED, fluents=stats.fluents, moves=stats.moves,
                       rules=stats.rules, seconds=time.perf_counter() - start)


def _agreement(path: str, ground: str, playouts: int, max_steps: int, seed: int,
               strict: bool) -> tuple[int, str]:
    """The source's roles, and the first difference between it and its instantiated game
    (the file ``ground``) on seeded playouts ("" if none)."""
    from reasoner.crosscheck.agreement import first_disagreement

    text = Path(path).read_text(encoding="utf-8", errors="replace")
    source = Game.from_gdl(text, strict=strict)
    instantiated = Game.from_gdl(Path(ground).read_text(encoding="utf-8"), strict=strict)
    differs = first_disagreement(source, instantiated, seed=seed, playouts=playouts,
                                 max_steps=max_steps)
    return len(source.roles), differs or ""


def check_instantiation(path: str, playouts: int = 3, max_steps: int = 200, seed: int = 0,
                        strict: bool = False, limits: Limits | None = None,
                        check_limits: Limits | None = None) -> SweepResult:
    """Instantiate one file and check, by seeded playouts, that the instantiated game plays
    exactly like the source (fate ``instantiated``; a difference is ``failed``).

    With ``limits``, the instantiation runs in a bounded child, and so does the check after
    it (under ``check_limits``, by default the same): the time a file reports is the
    instantiation's alone. An instantiation whose check exceeds its bound still counts as
    instantiated, and says so.
    """
    from reasoner.instantiate.ground_game import temporary_beside

    with temporary_beside(None) as written:
        return _instantiated_and_checked(path, playouts, max_steps, seed, strict, limits,
                                         check_limits, str(written))


def _instantiated_and_checked(path: str, playouts: int, max_steps: int, seed: int,
                              strict: bool, limits: Limits | None,
                              check_limits: Limits | None, ground: str) -> SweepResult:
    """:func:`check_instantiation`, the instantiated game written to the file ``ground``."""
    start = time.perf_counter()
    try:
        fate = run_bounded(_instantiate_file, (path, strict, ground), limits)
    except ResourceLimitError as error:
        seconds = time.perf_counter() - start
        if limits is not None:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
            error = explain_overrun(error, text, limits, program="game")
        return SweepResult(path, Fate.LIMIT, f"instantiation {error}", seconds=seconds)
    if fate.fate is not Fate.INSTANTIATED:
        return fate
    checking = time.perf_counter()
    try:
        roles, differs = run_bounded(_agreement, (path, ground, playouts, max_steps, seed,
                                                  strict), check_limits or limits)
    except ResourceLimitError as error:
        return dataclasses.replace(
            fate, reason=f"not checked by playouts: the check {error}",
            check_seconds=time.perf_counter() - checking)
    fate = dataclasses.replace(fate, roles=roles, check_seconds=time.perf_counter() - checking)
    if differs:
        return dataclasses.replace(fate, fate=Fate.FAILED,
                                   reason=f"the instantiated game differs: {differs}")
    return fate


def _explained(limits: Limits) -> Callable[[Path, ResourceLimitError], str]:
    """A limit's reason with the relation that grew (see :mod:`reasoner.engine.overrun`)."""
    def reason(path: Path, error: ResourceLimitError) -> str:
        text = path.read_text(encoding="utf-8", errors="replace")
        return str(explain_overrun(error, text, limits))
    return reason


def sweep(paths: Iterable[Path], *, limits: Limits = DEFAULT_LIMITS, playouts: int = 3,
          max_steps: int = 200, seed: int = 0, strict: bool = False,
          instantiation: bool = False,
          check_limits: Limits | None = None) -> Iterator[SweepResult]:
    """Check each file in a bounded child process and yield its fate (with
    ``instantiation``, check its instantiated game instead of playing it: the parts of that
    check bound themselves)."""
    if instantiation:
        return run_folder(paths, check_instantiation,
                          (playouts, max_steps, seed, strict, limits, check_limits),
                          limits=None, ended=SweepResult.ended,
                          limit_reason=_explained(limits))
    return run_folder(paths, check_file,
                      (playouts, max_steps, seed, strict, limits.seconds * PLAY_SHARE),
                      limits=limits,
                      ended=SweepResult.ended, limit_reason=_explained(limits))


def sweep_one(path: str, shown: str, limits: Limits, playouts: int, max_steps: int,
              seed: int, strict: bool, instantiation: bool,
              check_limits: Limits | None) -> SweepResult:
    """:func:`sweep` of one file, the one task of a sweep on a cluster: ``path`` is where
    the worker reads it, ``shown`` the name its result gives it."""
    result = next(iter(sweep([Path(path)], limits=limits, playouts=playouts,
                             max_steps=max_steps, seed=seed, strict=strict,
                             instantiation=instantiation, check_limits=check_limits)))
    return dataclasses.replace(result, path=shown)


def sweep_tasks(paths: Iterable[Path], *, limits: Limits = DEFAULT_LIMITS, playouts: int = 3,
                max_steps: int = 200, seed: int = 0, strict: bool = False,
                instantiation: bool = False,
                check_limits: Limits | None = None) -> Iterator[Task]:
    """:func:`sweep`'s work as one task per file (:func:`sweep_one`), for
    :func:`reasoner.console.cluster.run_tasks`: keyed and shown by the path as given, read by
    the worker at its absolute path."""
    for path in paths:
        yield Task(str(path), sweep_one, (str(path.resolve()), str(path), limits, playouts,
                                          max_steps, seed, strict, instantiation,
                                          check_limits))


def summarise(fates: Iterable[SweepResult]) -> Counter[Fate]:
    """Count fates by kind."""
    return Counter(f.fate for f in fates)


def format_table(fates: list[SweepResult], root: Path | None = None) -> str:
    """A plain-text table of every file's fate, then the totals."""
    lines = [f"{'file':<58} {'fate':<12} {'roles':>5} {'fluents':>7} {'moves':>6} "
             f"{'rules':>7} {'gates':>7} {'load ms':>8} {'steps':>6} {'seconds':>8}  reason"]
    for f in fates:
        name = str(Path(f.path).relative_to(root)) if root else f.path
        reason = f.reason if len(f.reason) <= 140 else f.reason[:137] + "..."
        gates = f"{f.gates:>7}" if f.backend in ("native", "propnet") else f"{'-':>7}"
        lines.append(f"{name:<58} {f.fate:<12} {f.roles:>5} {f.fluents:>7} {f.moves:>6} "
                     f"{f.rules:>7} {gates} {f.load_ms:>8.1f} {f.steps:>6} {f.seconds:>8.2f}"
                     f"  {reason}")
    counts = summarise(fates)
    lines.append("total: " + ", ".join(f"{counts.get(k, 0)} {k}" for k in FATES
                                       if counts.get(k) or k is not Fate.INSTANTIATED)
                 + f" of {len(fates)} files")
    loaded = [f for f in fates if f.backend]
    if loaded:
        backends = Counter(f.backend for f in loaded)
        lines.append(f"backends of the {len(loaded)} files that loaded: "
                     + ", ".join(f"{backends[b]} {b}" for b in ("native", "propnet", "clingo",
                                                                     "compiled", "topdown",
                                                                     "position")
                                 if backends[b]))
        load = sorted(f.load_ms / 1000 for f in loaded)
        lines.append(f"load seconds: median {_quantile(load, 0.5):.2f}, 90th percentile "
                     f"{_quantile(load, 0.9):.2f}, 99th percentile {_quantile(load, 0.99):.2f}, "
                     f"max {load[-1]:.2f}")
    done = sorted(f.seconds for f in fates if f.fate in (Fate.LOADED, Fate.INSTANTIATED))
    if done:
        lines.append(f"seconds per file: median {_quantile(done, 0.5):.2f}, 90th percentile "
                     f"{_quantile(done, 0.9):.2f}, 99th percentile {_quantile(done, 0.99):.2f}, "
                     f"max {done[-1]:.2f}")
    checked = sorted(f.check_seconds for f in fates if f.check_seconds)
    if checked:
        lines.append(f"playout checks: {len(checked)}, seconds median "
                     f"{_quantile(checked, 0.5):.2f}, 90th percentile "
                     f"{_quantile(checked, 0.9):.2f}, max {checked[-1]:.2f}")
    return "\n".join(lines)


def _quantile(ordered: list[float], q: float) -> float:
    """The value at quantile ``q`` of an ascending, non-empty list."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
