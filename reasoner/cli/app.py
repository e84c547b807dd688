"""The ``gdl-reasoner`` parser, built from the command modules (the user commands of
:mod:`reasoner.cli` and the workshop's of :mod:`reasoner.workshop.commands`), and
:func:`main`."""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from reasoner.cli import crosscheck, ggp, grounding, heuristics, loading, match, serve, web
from reasoner.console.common import EXIT_OK, CommandError, failure
from reasoner.errors import ReasonerError
from reasoner.workshop.commands import (
    bench,
    bench_cluster,
    bench_gdl2,
    bench_heuristics,
    bench_players,
    bench_service,
    dataset,
    fuzz,
    stress,
    sweep,
)

__all__ = ["DESCRIPTION", "DISTRIBUTION", "main", "parser", "version"]

# The distribution's name in pyproject.toml, which the installed metadata goes by.
DISTRIBUTION = "gdl-reasoner"
DESCRIPTION = (
    "A GDL reasoner. A game is answered by one of its backends: clingo (the game's ASP "
    "program ground once), native (its propositional network on the compiled kernel), "
    "propnet (the same network in Python), compiled (the rules compiled to C, position by "
    "position), topdown (SWI-Prolog's resolution with tabling) or position (each position "
    "ground as it is asked); auto, the default, takes the network where it builds within "
    "its bounds, else clingo or the compiled rules, else whichever answers position by "
    "position sooner, and says why (check shows it).")

# The command modules, the user commands' (reasoner.cli) and the workshop's
# (reasoner.workshop.commands), in the order of the commands in --help.
MODULES = (loading, grounding, heuristics, bench_heuristics, bench, bench_service, bench_players,
           bench_gdl2, bench_cluster, dataset, serve, match, ggp, web, crosscheck, sweep, fuzz,
           stress)


def parser() -> argparse.ArgumentParser:
    """The command line: each command module adds its subcommands."""
    built = argparse.ArgumentParser(prog="gdl-reasoner", description=DESCRIPTION)
    built.add_argument("--version", action="version", version=f"gdl-reasoner {version()}")
    commands = built.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in MODULES:
        module.register(commands)
    return built


def version() -> str:
    """The installed distribution's version; from a source tree that is not installed, the
    version pyproject.toml gives."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
            return str(project["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script: run the command; whatever error it lets out
    becomes one line on stderr and an exit status (see :mod:`reasoner.console.common`)."""
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (ReasonerError, CommandError) as error:
        return failure(error, getattr(args, "game", None))
    except KeyboardInterrupt:
        print("gdl-reasoner: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
