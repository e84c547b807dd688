"""Cross-check runs: one game against the Prolog reference (or its backends against each
other), or a whole folder of games.

Each game of a folder runs in its own bounded child process (:func:`reasoner.corpus.run_folder`),
and every query to the reference has its own time bound, so a game that makes either reasoner
loop or explode is reported with its fate and never stops the run. Fates
(:class:`reasoner.corpus.Fate`):

* ``agree``: every state of every playout, and the supersets, agree;
* ``disagree``: the two differ (the reason holds the shortest reproduction);
* ``reference failed``: the reference could not answer (its reason: a time bound, a Prolog
  error, a relation it cannot ground);
* ``engine failed``: this engine rejected the game (invalid GDL, with the reason) or
  failed on it;
* ``GDL-II``: skipped, where the engine refuses a game as GDL it does not play (GDL-II games
  themselves are checked: both reasoners answer percepts, compared after every joint move);
* ``limit``: the file as a whole exceeded its time or memory bound (comparing backends:
  also a game that loads only position by position, which leaves nothing to compare).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from reasoner.corpus import Fate, run_folder
from reasoner.crosscheck.check import CrossCheck, compare_sides, compare_supersets
from reasoner.crosscheck.sides import EngineSide
from reasoner.engine.game import Game
from reasoner.engine.limits import Limits
from reasoner.errors import (
    GdlError,
    ReferenceFailure,
    ResourceLimitError,
    UnsupportedGdlError,
)
from reasoner.propnet.network import NetworkBounds
from reasoner.topdown import topdown_available

__all__ = ["FATES", "Outcome", "compare_backends", "crosscheck_folder", "crosscheck_game",
           "crosscheck_one",
           "format_summary", "superset_map"]

# The fates of a cross-check, in the order of the summary's counts.
FATES = (Fate.AGREE, Fate.DISAGREE, Fate.REFERENCE_FAILED, Fate.ENGINE_FAILED, Fate.GDL_II,
         Fate.LIMIT)


@dataclass(frozen=True)
class Outcome:
    """One game's cross-check."""

    path: str
    fate: Fate
    reason: str = ""
    playouts: int = 0
    states: int = 0
    superset_atoms: int = 0
    seconds: float = 0.0
    # Comparing backends: the backends compared, the first the one the others were
    # compared with ("clingo" or "position"); empty against the reference.
    compared: tuple[str, ...] = ()
    # GDL-II: the joint moves after which every role's percepts were compared (0 in
    # plain GDL, and comparing backends: every backend's percepts come from one oracle).
    percepts: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> Outcome:
        """The outcome that :meth:`as_dict` wrote."""
        return cls(**{**saved, "fate": Fate(saved["fate"]),
                      "compared": tuple(saved.get("compared", ()))})

    @classmethod
    def ended(cls, path: str, fate: Fate, reason: str, seconds: float) -> Outcome:
        """The outcome of a file whose check did not return (see :func:`run_folder`)."""
        return cls(path, fate, reason, seconds=seconds)


def superset_map(fluents: Iterable[str], moves: Iterable[tuple[str, str]],
                 atoms: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Supersets as one mapping for :func:`compare_supersets`: ``fluents``, ``moves``
    (``"role move"``) and every relation's atoms by ``"name/arity"``."""
    found = {"fluents": frozenset(fluents),
             "moves": frozenset(f"{role} {move}" for role, move in moves)}
    found.update(atoms)
    return found


def crosscheck_game(text: str, *, playouts: int = 10, seed: int = 0, max_steps: int = 200,
                    reference_timeout: float = 10.0, supersets: bool = True,
                    record: TextIO | None = None, path: str = "",
                    limits: Limits | None = None, backend: str = "auto",
                    backends: bool = False) -> Outcome:
    """Cross-check one game (in this process) against the Prolog reference, the engine on
    ``backend``; ``limits`` bound the engine's load (see :meth:`Game.from_gdl`). With
    ``backends``, compare every backend the game loads on with each other instead (see
    :func:`compare_backends`)."""
    from reasoner.instantiate.supersets import supersets as engine_supersets
    from reasoner.reference import ReferenceSolver

    if backends:
        return compare_backends(text, playouts=playouts, seed=seed, max_steps=max_steps,
                                record=record, path=path, limits=limits)
    start = time.perf_counter()
    loaded = _load(text, limits, backend, path, start)
    if not isinstance(loaded, Outcome) and loaded.backend == "topdown" and backend == "auto":
        # Top-down runs the reference's own clauses: clingo's positions are what is checked.
        loaded = _load(text, limits, "position", path, start)
    if isinstance(loaded, Outcome):
        return loaded
    game = loaded
    try:
        with ReferenceSolver.from_gdl(text, timeout=reference_timeout) as reference:
            result: CrossCheck = compare_sides(EngineSide(game), reference, playouts=playouts,
                                               seed=seed, max_steps=max_steps, record=record,
                                               percepts=game.is_gdl2)
            atoms = 0
            if result.agree and supersets:
                ours = engine_supersets(text)
                theirs = reference.supersets()
                result.disagreement = compare_supersets(
                    superset_map(ours.fluents, ours.moves,
                                 {f"{n}/{a}": frozenset(t) for (n, a), t in ours.atoms.items()}),
                    superset_map(theirs.fluents, theirs.moves, theirs.atoms), ours.demanded)
                atoms = ours.size
    except ReferenceFailure as error:
        return Outcome(path, Fate.REFERENCE_FAILED, str(error),
                       seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if result.disagreement is not None:
        return Outcome(path, Fate.DISAGREE, result.disagreement.describe(), result.playouts,
                       result.states, seconds=seconds, percepts=result.percepts)
    return Outcome(path, Fate.AGREE, "", result.playouts, result.states, atoms, seconds,
                   percepts=result.percepts)


def _load(text: str, limits: Limits | None, backend: str, path: str,
          start: float) -> Game | Outcome:
    """The game loaded on ``backend``, or the outcome of a load that failed."""
    try:
        return Game.from_gdl(text, limits=limits, backend=backend)
    except ResourceLimitError as error:
        return Outcome(path, Fate.LIMIT, f"engine: {error}", seconds=time.perf_counter() - start)
    except UnsupportedGdlError as error:
        return Outcome(path, Fate.GDL_II, str(error), seconds=time.perf_counter() - start)
    except GdlError as error:
        return Outcome(path, Fate.ENGINE_FAILED, f"rejected: {error}",
                       seconds=time.perf_counter() - start)


def compare_backends(text: str, *, playouts: int = 10, seed: int = 0, max_steps: int = 200,
                     record: TextIO | None = None, path: str = "",
                     limits: Limits | None = None,
                     network_bounds: NetworkBounds | None = None) -> Outcome:
    """Play the game on every backend it loads on and compare each with clingo (with
    position, where the program does not ground once) along the same seeded playouts,
    state by state, goals in every state.

    The game is loaded on position first (within ``limits``), then under auto with the
    network's own bounds (``network_bounds``, default :class:`NetworkBounds`), which
    settles for the network, for clingo or for evaluating each position, on compiled
    where a C compiler is installed, and on topdown where SWI-Prolog is. A game that
    loads on position alone leaves nothing to compare (a "limit"). ``record`` gets the
    trace of the first pair compared.

    Percepts (GDL-II) are not compared here: every backend's come from one oracle
    (:mod:`reasoner.asp.percepts`) over the same fluent and move tables, so they would be
    compared with themselves; the cross-check against the reference compares them."""
    start = time.perf_counter()
    loaded = _load(text, limits, "position", path, start)
    if isinstance(loaded, Outcome):
        return loaded
    games = {"position": loaded}
    try:
        auto = Game.from_description(loaded.description, backend="auto",
                                     network_bounds=network_bounds or NetworkBounds())
        note = auto.statistics.backend_note
        if auto.backend != "position":
            games[str(auto.backend)] = auto
        # Auto on the compiled rules may have timed them against clingo's ground program.
        grounded = any("in clingo" in step.reason
                       for step in auto.statistics.backend_reason.steps)
        if (auto.backend in ("native", "propnet", "clingo") or grounded) and \
                "clingo" not in games:
            games["clingo"] = Game.from_description(loaded.description, backend="clingo")
        if auto.backend == "native":  # the same network as generated Python, compared too
            games["propnet"] = Game.from_description(
                loaded.description, backend="propnet",
                network_bounds=network_bounds or NetworkBounds())
        if "topdown" not in games and topdown_available():
            games["topdown"] = Game.from_description(loaded.description, backend="topdown")
        # Not where there is no C compiler or the rules cannot be compiled.
        with contextlib.suppress(ResourceLimitError):
            if "compiled" not in games:
                games["compiled"] = Game.from_description(loaded.description,
                                                          backend="compiled")
    except GdlError as error:
        return Outcome(path, Fate.ENGINE_FAILED, f"rejected: {error}",
                       seconds=time.perf_counter() - start)
    except ReferenceFailure as error:
        return Outcome(path, Fate.ENGINE_FAILED, f"topdown: {error}",
                       seconds=time.perf_counter() - start)
    base = "clingo" if "clingo" in games else "position"
    others = [name for name in ("native", "propnet", "compiled", "topdown", "position")
              if name in games and name != base]
    if not others:
        return Outcome(path, Fate.LIMIT, "nothing to compare: the game loads only "
                       f"position by position ({note})",
                       seconds=time.perf_counter() - start, compared=("position",))
    total_playouts = total_states = 0
    for name in others:
        try:
            paired = compare_sides(EngineSide(games[name]), EngineSide(games[base]),
                                   playouts=playouts, seed=seed, max_steps=max_steps,
                                   record=record, goals_everywhere=True)
        except ResourceLimitError as error:  # a position that grows past its bound
            return Outcome(path, Fate.LIMIT, f"{name}: {error}", total_playouts,
                           total_states, seconds=time.perf_counter() - start,
                           compared=(base, name))
        record = None
        total_playouts += paired.playouts
        total_states += paired.states
        if paired.disagreement is not None:
            return Outcome(path, Fate.DISAGREE, paired.disagreement.describe(name, base),
                           total_playouts, total_states,
                           seconds=time.perf_counter() - start, compared=(base, name))
    return Outcome(path, Fate.AGREE, note, total_playouts, total_states,
                   seconds=time.perf_counter() - start, compared=(base, *others))


def _bounded_game(path: str, playouts: int, seed: int, max_steps: int,
                  reference_timeout: float, backend: str, backends: bool) -> Outcome:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return crosscheck_game(text, playouts=playouts, seed=seed, max_steps=max_steps,
                           reference_timeout=reference_timeout, path=path, backend=backend,
                           backends=backends)


def crosscheck_folder(paths: Iterable[Path], *, limits: Limits, playouts: int = 3,
                      seed: int = 0, max_steps: int = 100, reference_timeout: float = 10.0,
                      backend: str = "auto", backends: bool = False) -> Iterator[Outcome]:
    """Cross-check each file in a bounded child process and yield its outcome (see
    :func:`crosscheck_game` for ``backend`` and ``backends``)."""
    return run_folder(paths, _bounded_game,
                      (playouts, seed, max_steps, min(reference_timeout, limits.seconds),
                       backend, backends),
                      limits=limits, ended=Outcome.ended, crashed=Fate.ENGINE_FAILED)


def crosscheck_one(path: str, shown: str, limits: Limits, playouts: int, seed: int,
                   max_steps: int, reference_timeout: float, backend: str,
                   backends: bool) -> Outcome:
    """:func:`crosscheck_folder` of one file, the one task of a cross-check on a cluster:
    ``path`` is where the worker reads it, ``shown`` the name its outcome gives it."""
    outcome = next(iter(crosscheck_folder(
        [Path(path)], limits=limits, playouts=playouts, seed=seed, max_steps=max_steps,
        reference_timeout=reference_timeout, backend=backend, backends=backends)))
    return replace(outcome, path=shown)


def format_summary(outcomes: list[Outcome], root: Path | None = None) -> str:
    """Every file that did not agree with its reason, then the counts and the time."""
    lines = []
    for outcome in outcomes:
        if outcome.fate is Fate.AGREE:
            continue
        name = str(Path(outcome.path).relative_to(root)) if root else outcome.path
        reason = outcome.reason.splitlines()[0] if outcome.reason else ""
        lines.append(f"{outcome.fate:<17} {name}: {reason[:160]}")
    counts = Counter(o.fate for o in outcomes)
    lines.append("")
    lines.append(" | ".join(f"{fate}: {counts.get(fate, 0)}" for fate in FATES)
                 + f" | files: {len(outcomes)}")
    seconds = sorted(o.seconds for o in outcomes)
    if seconds:
        lines.append(f"time: {sum(seconds):.1f} s in all, median {seconds[len(seconds) // 2]:.2f}"
                     f" s per file, max {seconds[-1]:.1f} s")
    return "\n".join(lines)
