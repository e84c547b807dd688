"""Grounding-only commands: ``supersets`` (every atom that could ever hold), ``layers`` (when
each first can, in relaxed steps from the initial state), ``ground`` (the instantiated game,
as GDL, GDDL or JSON) and ``mutexes`` (fluents that never hold together)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from reasoner.console.common import (
    EXIT_OK,
    CommandError,
    Commands,
    end_progress_line,
    grounding,
    limit_options,
    limits,
    progress,
    progress_option,
    read,
)
from reasoner.console.numbers import SEED, at_least
from reasoner.errors import ReasonerError

if TYPE_CHECKING:
    from reasoner.asp.relaxed_layers import RelaxedLayers
    from reasoner.asp.superset import AtomSuperset
    from reasoner.instantiate.gddl import GddlGame
    from reasoner.instantiate.ground_game import InstantiatedGame
    from reasoner.instantiate.supersets import Method

# The default bound of the grounding-only commands (a game's start clock is often shorter:
# their output is for planners and solvers, made once).
GROUNDING_SECONDS = 120.0
# `ground --stats` lists this many of the relations that grew most.
LARGEST_RELATIONS = 10

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``supersets``, ``layers``, ``ground`` and ``mutexes``."""
    p = commands.add_parser("supersets",
                            help="every fluent, move and auxiliary atom that could ever hold")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--list", action="store_true", help="list the atoms, not only their counts")
    p.add_argument("--json", action="store_true", help="one JSON object with every atom")
    p.add_argument("--method", choices=("auto", "full", "demanded"), default="auto",
                   help="full: ground the relaxed program in full, however large; demanded: "
                        "evaluate the compiled relaxed rules, relations called with bound "
                        "arguments holding the instances asked for; auto (default): full "
                        "within a budget, else demanded")
    progress_option(p)
    limit_options(p, timeout=GROUNDING_SECONDS)
    p.set_defaults(run=_supersets_command)

    p = commands.add_parser("layers", help="the relaxed layers from the initial state: the "
                                           "first relaxed step at which each fluent, move "
                                           "and atom can hold")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--max-layers", type=at_least(1), default=1000,
                   help="stop after this many layers without a fixpoint (default 1000)")
    p.add_argument("--atoms-of", metavar="RELATION", nargs="*",
                   help="only these relations' atoms (none if given without names); "
                        "default: goal and terminal")
    p.add_argument("--list", action="store_true",
                   help="list each fluent, move and atom with its first layer")
    p.add_argument("--json", action="store_true", help="one JSON object with every first layer")
    limit_options(p, timeout=GROUNDING_SECONDS)
    p.set_defaults(run=_layers_command)

    p = commands.add_parser("ground", help="the instantiated (variable-free) game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    p.add_argument("--format", choices=("gdl", "gddl", "json"), default="gdl",
                   help="gddl: three files with -o STEM (STEM.domain.gddl, STEM.problem.gddl, "
                        "STEM.partition.gddl), auxiliary atoms inlined")
    p.add_argument("--inline-aux", action="store_true",
                   help="inline auxiliary atoms where they occur positively")
    p.add_argument("--narrow", action="store_true",
                   help="instantiate the narrow program (wide bodies split into relations "
                        "named <head>_partN), often far smaller, instead of trying the "
                        "whole one first")
    p.add_argument("--keep-static", action="store_true",
                   help="keep the facts of the game's own static relations (evaluated "
                        "into the rules that read them, so left out by default)")
    progress_option(p)
    p.add_argument("--stats", action="store_true", help="print statistics to stderr")
    limit_options(p, timeout=GROUNDING_SECONDS)
    p.set_defaults(run=_ground)

    p = commands.add_parser("mutexes", help="groups of fluents that never hold together")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--playouts", type=at_least(0), default=50,
                   help="seeded random playouts whose states check the hypotheses")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true")
    limit_options(p)
    p.set_defaults(run=_mutexes)


def _supersets(text: str, name: str, shown: bool | None, method: Method) -> AtomSuperset:
    """The work of ``supersets``, in the bounded child."""
    from reasoner.console.progress import PhaseProgress
    from reasoner.instantiate.supersets import supersets

    phases = PhaseProgress(f"supersets {name}", enabled=shown)
    try:
        phases.phase("grounding the relaxed program")
        return supersets(text, method=method)
    finally:
        phases.close()


def _supersets_command(args: argparse.Namespace) -> int:
    try:
        text = read(args.game)
        # The superset grounding itself may explode: bounded, it runs in a child process.
        found = grounding(_supersets, (text, Path(args.game).stem, progress(args),
                                       args.method), text, args)
    except (ReasonerError, CommandError):
        end_progress_line(args)
        raise
    if args.json:
        print(json.dumps({
            "game": Path(args.game).stem, "seconds": round(found.seconds, 4),
            "size": found.size, "fluents": list(found.fluents),
            "moves": [{"role": r, "move": m} for r, m in found.moves],
            "atoms": {f"{name}/{arity}": list(texts)
                      for (name, arity), texts in found.atoms.items()},
            "demanded": list(found.demanded),
        }))
        return EXIT_OK
    print(f"{args.game}: {found.size} ground atoms in {found.seconds * 1e3:.1f} ms: "
          f"{len(found.fluents)} fluents, {len(found.moves)} moves")
    if found.demanded:
        print(f"  (over the full grounding's budget: the {len(found.demanded)} relations "
              "marked * hold the instances the rules ask for)")
    demanded = set(found.demanded)
    for (name, arity), texts in found.atoms.items():
        mark = " *" if f"{name}/{arity}" in demanded else ""
        print(f"  {name}/{arity}: {len(texts)}{mark}")
        if args.list:
            for text in texts:
                print(f"    {text}")
    return EXIT_OK


def _layers(text: str, max_layers: int, atoms_of: list[str]) -> RelaxedLayers:
    """The work of ``layers``, in the bounded child."""
    from reasoner.engine.layers import game_layers
    from reasoner.gdl.parser import parse_gdl
    from reasoner.gdl.validation import validate

    description = parse_gdl(text)
    validate(description)
    return game_layers(description, None, max_layers, atoms_of)


def _layers_command(args: argparse.Namespace) -> int:
    text = read(args.game)
    atoms_of = ["goal", "terminal"] if args.atoms_of is None else list(args.atoms_of)
    found = grounding(_layers, (text, args.max_layers, atoms_of), text, args)
    atoms = found.atoms or {}
    if args.json:
        print(json.dumps({
            "game": Path(args.game).stem, "seconds": round(found.seconds, 4),
            "layers": found.count, "fixpoint": found.fixpoint,
            "fluents": found.fluents,
            "moves": [{"role": r, "move": m, "layer": k} for (r, m), k in found.moves.items()],
            "atoms": atoms, "demanded": list(found.demanded),
        }))
        return EXIT_OK
    end = "a fixpoint" if found.fixpoint else "no fixpoint (the --max-layers cap)"
    print(f"{args.game}: {found.count} relaxed layers in {found.seconds:.1f} s, then {end}: "
          f"{len(found.fluents)} fluents, {len(found.moves)} moves"
          + (f", {len(atoms)} atoms of {', '.join(atoms_of)}" if atoms_of else ""))
    if found.demanded:
        print(f"  (over the full grounding's budget: {len(found.demanded)} helper relations "
              "hold the instances the rules ask for)")
    for k in range(found.count):
        new = [sum(1 for first in table.values() if first == k)
               for table in (found.fluents, found.moves, atoms)]
        if k < 10 or any(new[1:]) or k == found.count - 1:
            print(f"  layer {k}: +{new[0]} fluents, +{new[1]} moves"
                  + (f", +{new[2]} atoms" if atoms_of else ""))
    if args.list:
        for title, table in (("fluents", found.fluents), ("atoms", atoms)):
            print(f"  {title}:")
            for key, first in sorted(table.items(), key=lambda item: (item[1], item[0])):
                print(f"    {first} {key}")
        print("  moves:")
        for (role, move), first in sorted(found.moves.items(),
                                          key=lambda item: (item[1], item[0])):
            print(f"    {first} {role} {move}")
    return EXIT_OK


def _gddl_paths(output: str) -> dict[str, Path]:
    """``-o out/ttt`` (or ``out/ttt.gddl``) writes ``out/ttt.domain.gddl``,
    ``out/ttt.problem.gddl`` and ``out/ttt.partition.gddl``."""
    base = Path(output)
    if base.suffix == ".gddl":
        base = base.with_suffix("")
    return {part: base.with_name(f"{base.name}.{part}.gddl")
            for part in ("domain", "problem", "partition")}


def _instantiate(text: str, inline_aux: bool, gddl: bool, name: str, shown: bool | None,
                 narrow: bool = False, written: tuple[str, str] | None = None,
                 keep_static: bool = False) -> tuple[InstantiatedGame, GddlGame | None]:
    """The work of ``ground``, in the bounded child: the instantiation, and its GDDL.
    ``written``: a file to write the game's GDL to here, and the source to name in it; the
    instantiation then comes back without its rules (millions of them would otherwise be
    pickled to the parent)."""
    import dataclasses

    from reasoner.console.progress import PhaseProgress
    from reasoner.gdl.parser import parse_gdl
    from reasoner.gdl.validation import validate
    from reasoner.instantiate.ground_game import description_gddl, instantiate_description

    phases = PhaseProgress(f"ground {name}", enabled=shown)
    try:
        phases.phase("parsing")
        description = parse_gdl(text)
        validate(description)
        found = instantiate_description(description, inline_aux=inline_aux or gddl,
                                        narrow=narrow, keep_static=keep_static,
                                        phase=phases.phase)
        written_gddl = description_gddl(description, name, phase=phases.phase) \
            if gddl else None
        if written is not None:
            phases.phase("writing")
            path, source = written
            with open(path, "w", encoding="utf-8") as out:
                found.write(out, source)
            found = dataclasses.replace(found, rules=())
    finally:
        phases.close()
    return found, written_gddl


def _ground(args: argparse.Namespace) -> int:
    from reasoner.instantiate.ground_game import write_atomically

    gdl_text = args.format == "gdl"
    target = Path(args.output) if args.output else None
    with _scratch(target) as written:
        try:
            text = read(args.game)
            found = grounding(_instantiate, (
                text, args.inline_aux, args.format == "gddl", Path(args.game).stem,
                progress(args), args.narrow, (str(written), args.game) if gdl_text else None,
                args.keep_static),
                text, args, program="game")
        except (ReasonerError, CommandError):
            end_progress_line(args)
            raise
        except OSError as error:
            raise CommandError(f"cannot write {target or 'the output'}: {error.strerror}"
                               ) from None
        rules, gddl = found
        if gdl_text:
            _deliver(written, target)
    statistics = rules.statistics
    outputs: dict[Path | None, str] = {}
    if gddl is not None:
        if args.output:
            for part, path in _gddl_paths(args.output).items():
                outputs[path] = getattr(gddl, part)
        else:
            outputs[None] = gddl.text()
    elif args.format == "json":
        outputs[target] = json.dumps({
            "game": Path(args.game).stem, "statistics": statistics.as_dict(),
            "rules": [{"head": r.head, "body": list(r.body)} for r in rules.rules],
        }) + "\n"
    for file, output in outputs.items():
        if file is None:
            sys.stdout.write(output)
            continue
        try:
            write_atomically(file, output)
        except OSError as error:
            raise CommandError(f"cannot write {file}: {error.strerror}") from None
    if args.stats:
        s = statistics
        extra = f", {gddl.multi_actions} multi-actions" if gddl is not None else ""
        static = f", {s.static_facts} static facts left out" if s.static_facts else ""
        print(f"{args.game}: {s.fluents} fluents, {s.moves} moves, {s.rules} rules, "
              f"{s.facts} facts{static}{extra} ({s.program} program); "
              f"{s.seconds * 1e3:.1f} ms, peak memory {s.peak_memory_mb:.0f} MiB",
              file=sys.stderr)
        if len(s.tries) > 1:
            print("programs tried: " + "; ".join(map(str, s.tries)), file=sys.stderr)
        shown = s.relations[:LARGEST_RELATIONS]
        if shown:
            more = len(s.relations) - len(shown)
            print("largest relations" + (f" ({more:,} more)" if more else "") + ":",
                  file=sys.stderr)
            for size in shown:
                print(f"  {size}", file=sys.stderr)
    return EXIT_OK


@contextmanager
def _scratch(target: Path | None) -> Iterator[Path]:
    """:func:`temporary_beside` the output file, its failure to start a
    :class:`CommandError`."""
    from reasoner.instantiate.ground_game import temporary_beside

    with ExitStack() as stack:
        try:
            written = stack.enter_context(temporary_beside(target))
        except OSError as error:
            raise CommandError(f"cannot write {target or 'a temporary file'}: "
                               f"{error.strerror}") from None
        yield written


def _deliver(written: Path, target: Path | None) -> None:
    """The GDL the child wrote: renamed over the output file, or copied to stdout."""
    if target is None:
        with written.open(encoding="utf-8") as text:
            shutil.copyfileobj(text, sys.stdout)
        return
    try:
        written.chmod(0o666 & ~_umask())
        written.replace(target)
    except OSError as error:
        raise CommandError(f"cannot write {target}: {error.strerror}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mutexes(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.instantiate.mutexes import mutex_groups

    game = Game.from_gdl(read(args.game), limits=limits(args))
    report = mutex_groups(game, playouts=args.playouts, seed=args.seed)
    if args.json:
        print(json.dumps({
            "game": Path(args.game).stem, "bits": report.bits, "fluents": report.fluents,
            "states_checked": report.states_checked,
            "groups": [{"relation": g.relation, "inputs": list(g.inputs),
                        "fluents": list(g.fluents), "exactly_one": g.exactly_one,
                        "bits": g.bits} for g in report.groups],
        }))
        return EXIT_OK
    print(f"{args.game}: {len(report.groups)} mutex groups; a state needs {report.bits} bits "
          f"instead of {report.fluents} (checked on {report.states_checked} states)")
    for group in report.groups:
        if len(group.fluents) > 1:
            print(f"  {group.bits} bits: {' '.join(group.fluents)}"
                  + ("" if group.exactly_one else "  (or none)"))
    return EXIT_OK
