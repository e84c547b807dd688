"""The ``gdl-reasoner`` command line: the user commands, and what every command shares.

One module per group of user commands, each with its subparsers (``register``) beside their
behaviour: :mod:`~reasoner.cli.loading` (check, translate), :mod:`~reasoner.cli.grounding`
(supersets, ground, mutexes), :mod:`~reasoner.cli.heuristics` (evaluate, analyze),
:mod:`~reasoner.cli.serve`, :mod:`~reasoner.cli.match`, :mod:`~reasoner.cli.ggp` (prove,
player, manage) and :mod:`~reasoner.cli.crosscheck`. The workshop's commands (bench,
bench-service, bench-players, bench-heuristics, sweep, fuzz, stress) are in
:mod:`reasoner.workshop.commands`; :mod:`~reasoner.cli.app` builds the parser from both and
runs a command. What every command shares is a package below both,
:mod:`reasoner.console`.

Every command prints one clear line on bad input and exits non-zero; no tracebacks.
"""

from __future__ import annotations

from typing import Any

__all__ = ["main"]


def __getattr__(name: str) -> Any:
    """``main``, imported on first use (importing the package loads no command)."""
    if name == "main":
        from reasoner.cli.app import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
