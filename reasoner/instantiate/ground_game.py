"""The instantiated game: a variable-free GDL game that behaves exactly like the source."""

from __future__ import annotations

import os
import resource
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reasoner.asp.instantiation import GroundRule, ground_program
from reasoner.asp.superset import compute_superset
from reasoner.asp.translate import translate
from reasoner.engine.game import parse_gdl
from reasoner.gdl.syntax import GameDescription
from reasoner.gdl.validation import validate
from reasoner.instantiate.inlining import inline_auxiliaries

__all__ = ["InstantiatedGame", "InstantiationStatistics", "instantiate",
           "instantiate_description", "write_atomically"]


@dataclass(frozen=True)
class InstantiationStatistics:
    """Sizes and costs of one instantiation."""

    fluents: int
    moves: int
    rules: int
    facts: int
    seconds: float
    peak_memory_mb: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class InstantiatedGame:
    """The ground rules and their statistics."""

    rules: tuple[GroundRule, ...]
    statistics: InstantiationStatistics

    def gdl(self, source: str = "") -> str:
        """The game as variable-free GDL, one rule per line."""
        header = [
            "; Instantiated by gdl-reasoner: every rule of the source grounded over the",
            "; relaxed-reachability superset, static parts evaluated; no variables remain.",
        ]
        if source:
            header.append(f"; Source: {source}")
        return "\n".join(header + [str(rule) for rule in self.rules]) + "\n"


def instantiate(text: str, *, case_sensitive: bool = False, strict: bool = True,
                inline_aux: bool = False) -> InstantiatedGame:
    """Instantiate a GDL game.

    Args:
        inline_aux: Inline auxiliary atoms where they occur positively (see
            :mod:`reasoner.instantiate.inlining`).

    Raises:
        GdlError: the text is not valid GDL.
    """
    description = parse_gdl(text, case_sensitive=case_sensitive)
    validate(description, strict=strict)
    return instantiate_description(description, inline_aux=inline_aux)


def instantiate_description(description: GameDescription, *,
                            inline_aux: bool = False) -> InstantiatedGame:
    """Instantiate an already validated game."""
    start = time.perf_counter()
    translation = translate(description)
    superset = compute_superset(translation)
    program = ground_program(translation, superset, description.roles)
    rules = inline_auxiliaries(program.rules) if inline_aux else program.rules
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return InstantiatedGame(rules, InstantiationStatistics(
        fluents=len(superset.fluents), moves=len(superset.moves),
        rules=sum(1 for r in rules if r.body),
        facts=sum(1 for r in rules if not r.body),
        seconds=round(time.perf_counter() - start, 4), peak_memory_mb=round(peak, 1)))


def write_atomically(path: Path, text: str) -> None:
    """Write a file so that an interrupted run never leaves half of it: a temporary file in
    the same folder is renamed over the target."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
