"""The ``gdl-reasoner`` parser, built from the command modules (the user commands of
:mod:`reasoner.cli` and the workshop's of :mod:`reasoner.workshop.commands`), and
:func:`main`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reasoner.cli import crosscheck, ggp, grounding, heuristics, loading, match, serve
from reasoner.console.common import EXIT_OK, CommandError, failure
from reasoner.errors import ReasonerError
from reasoner.workshop.commands import (
    bench,
    bench_heuristics,
    bench_players,
    bench_service,
    fuzz,
    stress,
    sweep,
)

__all__ = ["main", "parser"]

# The command modules, the user commands' (reasoner.cli) and the workshop's
# (reasoner.workshop.commands), in the order of the commands in --help.
MODULES = (loading, grounding, heuristics, bench_heuristics, bench, bench_service, bench_players,
           serve, match, ggp, crosscheck, sweep, fuzz, stress)


def parser() -> argparse.ArgumentParser:
    """The command line: each command module adds its subcommands."""
    built = argparse.ArgumentParser(
        prog="gdl-reasoner",
        description="A GDL reasoner: GDL translated to ASP, answered by clingo.")
    commands = built.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in MODULES:
        module.register(commands)
    return built


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
