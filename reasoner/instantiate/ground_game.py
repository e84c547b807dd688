"""The instantiated game: a variable-free GDL game that behaves exactly like the source."""

from __future__ import annotations

import os
import resource
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from reasoner.asp.ground_rules import GroundingStopped
from reasoner.asp.instantiation import (
    GroundProgram,
    GroundRule,
    RelationSize,
    ground_program,
    relation_sizes,
)
from reasoner.asp.superset import Superset, compute_superset
from reasoner.asp.symbols import symbol_to_gdl
from reasoner.asp.translate import Translation, translate
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import Atom, Constant, GameDescription, Rule
from reasoner.gdl.validation import validate
from reasoner.instantiate.gddl import GddlGame, to_gddl
from reasoner.instantiate.inlining import inline_auxiliaries

__all__ = ["DEMAND_RULES", "NARROW_RULES", "WHOLE_RECORDS", "WHOLE_RULES", "InstantiatedGame",
           "InstantiationStatistics", "ProgramTry", "description_gddl", "instantiate",
           "instantiate_description", "temporary_beside", "write_atomically"]

# The whole program is instantiated first. Where its ground program grows past this many
# rules with a body (facts are not counted) and the game has a narrow program (static
# projections unfolded into their callers, bodies of three or more variables split into
# auxiliary relations named ``<head>_partN``: see Translation.split), the narrow one is
# instantiated instead, as the network does (hex: 637,303 gates whole, 91,838 narrow).
# Both are the same game.
WHOLE_RULES = 1_000_000
# Facts are not counted against WHOLE_RULES, but past this many rules and facts together
# the programs by demand are tried as well (mummymaze1p's whole program: 222,215 rules and
# 7.6 million facts of its static relations, 88 s to instantiate; by demand 72,862 rules
# and 2,354 facts, 18 s).
WHOLE_RECORDS = 4_000_000
# Where the whole program grows past either bound, the programs by demand are tried next,
# each up to this many rules with a body: only the helper instances GDL's own relations can
# ask for (merrills: 32.8 million rules whole, 317,295 by demand; see
# Translation.demand_game_programs). Past it, the narrow program.
DEMAND_RULES = 500_000
# Splitting can also multiply a program out (mummymaze1p's whole program has 222,215 rules
# with a body and 7.6 million facts, its narrow one 23.8 million records): past this many
# rules with a body, the whole program is ground after all.
NARROW_RULES = 12_000_000


@dataclass(frozen=True)
class ProgramTry:
    """One program ground for the instantiation: which ("whole", "demand", "demand 2",
    "narrow", "whole, unbounded"), its seconds, and why it was given up (empty for the
    one kept)."""

    program: str
    seconds: float
    stopped: str = ""

    def __str__(self) -> str:
        return f"{self.program} {self.seconds:.1f} s" + (
            f" (given up: {self.stopped})" if self.stopped else "")


@dataclass(frozen=True)
class InstantiationStatistics:
    """Sizes and costs of one instantiation."""

    fluents: int
    moves: int
    rules: int
    facts: int
    seconds: float
    peak_memory_mb: float
    # "whole": the source's rules; "demand": only what GDL's relations can ask of them,
    # where the whole one grew past WHOLE_RULES and this one stayed within DEMAND_RULES;
    # "narrow": its narrow program, where that grew past DEMAND_RULES too and the narrow
    # one stayed within NARROW_RULES.
    program: str = "whole"
    # Facts of the game's own static relations left out (no rule reads them).
    static_facts: int = 0
    # Per relation of the instantiated game, its rules and facts, the largest first.
    relations: tuple[RelationSize, ...] = ()
    # The programs ground on the way to this one, in order, this one last.
    tries: tuple[ProgramTry, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class InstantiatedGame:
    """The ground rules and their statistics. The rules may be a :class:`GroundProgram`,
    which makes each rule as it is read: :meth:`write` streams them to a file."""

    rules: Collection[GroundRule]
    statistics: InstantiationStatistics
    roles: tuple[str, ...] = ()
    fluents: tuple[str, ...] = ()  # the fluent superset, as GDL texts
    moves: tuple[tuple[str, str], ...] = ()  # the move superset: (role, move) texts

    def gddl(self, name: str, groups: Sequence[Sequence[str]] = ()) -> GddlGame:
        """The game as GDDL (see :mod:`reasoner.instantiate.gddl`); best from an
        instantiation with auxiliary atoms inlined, with the game's mutex groups."""
        return to_gddl(name, self.roles, tuple(self.rules), self.fluents, self.moves, groups)

    def gdl(self, source: str = "") -> str:
        """The game as variable-free GDL, one rule per line."""
        return "".join(self.lines(source))

    def write(self, out: TextIO, source: str = "") -> int:
        """Write :meth:`gdl`'s text to ``out`` a line at a time; the characters written."""
        written = 0
        batch: list[str] = []
        for line in self.lines(source):
            batch.append(line)
            if len(batch) == 4096:  # one write call for many lines
                written += out.write("".join(batch))
                batch.clear()
        return written + out.write("".join(batch))

    def lines(self, source: str = "") -> Iterator[str]:
        """:meth:`gdl`'s text, line by line (each with its newline)."""
        header = [
            "; Instantiated by gdl-reasoner: every rule of the source grounded over the",
            "; relaxed-reachability superset, static parts evaluated; no variables remain.",
        ]
        if self.statistics.program == "narrow":
            header.append("; The source's wide rule bodies were split first: relations named "
                          "<head>_partN are joins of part of a body.")
        if self.statistics.static_facts:
            header.append(f"; {self.statistics.static_facts:,} facts of static relations, "
                          "evaluated into the rules that read them, are left out.")
        if source:
            header.append(f"; Source: {source}")
        for line in header:
            yield line + "\n"
        if isinstance(self.rules, GroundProgram):
            yield from self.rules.lines()
            return
        for rule in self.rules:
            yield f"{rule}\n"


Phase = Callable[[str], None]  # told the name of each phase as it starts


def _silent(name: str) -> None:
    del name


def instantiate(text: str, *, case_sensitive: bool = False, strict: bool = False,
                inline_aux: bool = False, narrow: bool = False, keep_static: bool = False,
                phase: Phase = _silent) -> InstantiatedGame:
    """Instantiate a GDL game.

    Args:
        inline_aux: Inline auxiliary atoms where they occur positively (see
            :mod:`reasoner.instantiate.inlining`).
        narrow: Instantiate the narrow program straight away where the game has one
            (often far smaller: hex 78,147 ground rules instead of 630,335).
        keep_static: Keep the facts of the game's own static relations, which no ground
            rule reads (see :func:`reasoner.asp.instantiation.ground_program`).
        phase: Called with the name of each phase as it starts (for progress displays).

    Raises:
        GdlError: the text is not valid GDL.
    """
    phase("parsing")
    description = parse_gdl(text, case_sensitive=case_sensitive)
    validate(description, strict=strict)
    return instantiate_description(description, inline_aux=inline_aux, narrow=narrow,
                                   keep_static=keep_static, phase=phase)


def instantiate_description(description: GameDescription, *, inline_aux: bool = False,
                            narrow: bool = False, keep_static: bool = False,
                            phase: Phase = _silent) -> InstantiatedGame:
    """Instantiate an already validated game (see :func:`instantiate`)."""
    start = time.perf_counter()
    phase("translating")
    description = _percepts_of_roles(description)
    translation = translate(description)
    phase("superset")
    superset = compute_superset(translation)
    phase("grounding")
    tries: list[ProgramTry] = []
    program, kind = _ground(translation, superset, description.roles, narrow, keep_static,
                            phase, tries)
    if inline_aux:
        phase("inlining")
    rules: Collection[GroundRule] = program
    counts = program.rule_count, len(program.facts)
    if inline_aux:
        rules = inline_auxiliaries(program.rules)
        counts = sum(1 for r in rules if r.body), sum(1 for r in rules if not r.body)
        sizes = relation_sizes(((r.head, 1) for r in rules if r.body),
                               (r.head for r in rules if not r.body))
    else:
        sizes = program.relation_sizes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return InstantiatedGame(
        rules, InstantiationStatistics(
            fluents=len(superset.fluents), moves=len(superset.moves),
            rules=counts[0], facts=counts[1],
            seconds=round(time.perf_counter() - start, 4), peak_memory_mb=round(peak, 1),
            program=kind, static_facts=program.static_facts, relations=sizes,
            tries=tuple(tries)),
        roles=description.roles,
        fluents=tuple(symbol_to_gdl(f) for f in superset.fluents),
        moves=tuple((symbol_to_gdl(r), symbol_to_gdl(m)) for r, m in superset.moves))


def _percepts_of_roles(description: GameDescription) -> GameDescription:
    """GDL-II: a ``sees`` rule whose role is not a constant may bind it to what is no role
    (vis_pacman3p's ``(sees ?r1 (location ?r2 ?x2 ?y2))`` reads ``?r1`` from every located
    thing, pellets too). Only roles are asked what they see, and a ground percept of
    anything else is refused as GDL, so each such rule gets ``(role ?r1)`` in its body."""
    rules = []
    changed = False
    for rule in description.rules:
        head = rule.head
        if head.name == "sees" and head.arity == 2 and not isinstance(head.args[0], Constant):
            guard = Atom("role", (head.args[0],), head.pos)
            if guard not in rule.body:
                rule = Rule(head, (*rule.body, guard), rule.pos)
                changed = True
        rules.append(rule)
    return GameDescription(tuple(rules), description.readings) if changed else description


def _ground(translation: Translation, superset: Superset, roles: Sequence[str],
            narrow: bool, keep_static: bool, phase: Phase,
            tries: list[ProgramTry]) -> tuple[GroundProgram, str]:
    """The game program ground whole, by demand or narrow (see :data:`WHOLE_RULES`,
    :data:`DEMAND_RULES`), and which; each program ground on the way is added to
    ``tries``."""

    def attempt(name: str, source: Translation, **bounds: Any) -> GroundProgram | None:
        start = time.perf_counter()
        found, stopped = None, ""
        try:
            found = ground_program(source, superset, roles, keep_static=keep_static, **bounds)
        except GroundingStopped as error:
            stopped = str(error)
        tries.append(ProgramTry(name, round(time.perf_counter() - start, 4), stopped))
        return found

    def unbounded(name: str) -> GroundProgram:
        found = attempt(name, translation)
        assert found is not None  # no bound to stop it
        return found

    if translation.ground:  # nothing to demand, split or narrow
        return unbounded("whole"), "whole"
    split = translation.split
    if not narrow:
        found = attempt("whole", translation, max_rules=WHOLE_RULES,
                        max_records=WHOLE_RECORDS)
        if found is not None:
            return found, "whole"
        demands = translation.demand_game_programs
        for demand in range(len(demands)):
            phase("grounding by demand")
            found = attempt("demand" if len(demands) == 1 else f"demand {demand + 1}",
                            translation, max_rules=DEMAND_RULES, demand=demand)
            if found is not None:
                return found, "demand"
    if split is not None:
        phase("grounding the narrow program")
        found = attempt("narrow", split, max_rules=None if narrow else NARROW_RULES)
        if found is not None:
            return found, "narrow"
    phase("grounding the whole program")
    return unbounded("whole, unbounded"), "whole"


def description_gddl(description: GameDescription, name: str, *, phase: Phase = _silent,
                     playouts: int = 50, seed: int = 0) -> GddlGame:
    """A validated game as GDDL: instantiated with auxiliary atoms inlined, its joint moves
    pruned and its partition made with the mutex groups of ``playouts`` seeded playouts."""
    from reasoner.engine.game import Game
    from reasoner.instantiate.mutexes import mutex_groups

    found = instantiate_description(description, inline_aux=True, phase=phase)
    phase("mutex groups")
    report = mutex_groups(Game.from_description(description), playouts=playouts, seed=seed)
    phase("multi-actions")
    return found.gddl(name, [group.fluents for group in report.groups])


@contextmanager
def temporary_beside(path: Path | None) -> Iterator[Path]:
    """A new empty file in ``path``'s folder (the system's temporary folder for None),
    private to this user, removed on leaving unless it was renamed away: written first
    and renamed over ``path``, an interrupted run never leaves half a file there."""
    handle, temporary = tempfile.mkstemp(
        dir=None if path is None else path.parent,
        prefix=".gdl-reasoner." if path is None else f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        yield Path(temporary)
    finally:
        Path(temporary).unlink(missing_ok=True)


def write_atomically(path: Path, text: str) -> None:
    """Write a file so that an interrupted run never leaves half of it (see
    :func:`temporary_beside`)."""
    with temporary_beside(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
        # mkstemp makes the file private; give it the permissions a new file gets.
        umask = os.umask(0)
        os.umask(umask)
        temporary.chmod(0o666 & ~umask)
        temporary.replace(path)
