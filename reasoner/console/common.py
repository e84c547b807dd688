"""What the commands share: exit statuses, the one error contract, reading a game file,
and the options several commands take.

The error contract: a command that cannot go on raises, and :func:`failure` (called by
:func:`reasoner.cli.app.main` for whatever a command lets out, and by the commands over
several games for each game that fails) prints the one line on stderr and gives the exit
status. A :class:`ReasonerError` about a game reads ``gdl-reasoner: GAME: Type: message``
(exit 1); a :class:`CommandError` reads ``gdl-reasoner: message`` with its own status (a
:class:`UsageError` exits 2). No command prints a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from reasoner.console.numbers import MEBIBYTES, seconds
from reasoner.engine.backend import BACKENDS
from reasoner.engine.limits import Limits
from reasoner.errors import ReasonerError, ResourceLimitError

if TYPE_CHECKING:
    from reasoner.asp.growth import Program

__all__ = [
    "BACKEND_CHOICES",
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommandError",
    "Commands",
    "Unreadable",
    "UsageError",
    "bundled_games",
    "end_progress_line",
    "failure",
    "grounding",
    "limit_options",
    "limits",
    "progress",
    "progress_option",
    "read",
    "reading_options",
    "server_options",
    "strictness_options",
]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
# The engine's backends, as --backend offers them (their names are the Backend enum's).
BACKEND_CHOICES = tuple(backend.value for backend in BACKENDS)
T = TypeVar("T")

# What each command module's ``register`` adds its parsers to (argparse has no public name
# for it).
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class CommandError(Exception):
    """A failure a command reports in one line, ``gdl-reasoner: MESSAGE``, and exits with
    ``status``."""

    def __init__(self, message: str, status: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.status = status


class UsageError(CommandError):
    """Arguments that make no sense together or name nothing that exists (exit 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_USAGE)


class Unreadable(CommandError):
    """A file named on the command line cannot be read."""


def failure(error: ReasonerError | CommandError, game: str | None = None) -> int:
    """Print the one line for ``error`` (about the file ``game``, if any) on stderr and
    return the exit status it means."""
    if isinstance(error, CommandError):
        print(f"gdl-reasoner: {error}", file=sys.stderr)
        return error.status
    where = f"{game}: " if game is not None else ""
    print(f"gdl-reasoner: {where}{type(error).__name__}: {error}", file=sys.stderr)
    return EXIT_FAILURE


def read(path: str) -> str:
    """The text of a game file.

    Raises:
        Unreadable: the file cannot be read (the message names it and says why).
    """
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise Unreadable(f"cannot read {path}: {error.strerror}") from None


def limits(args: argparse.Namespace) -> Limits | None:
    """The bounds of ``--timeout`` and ``--memory`` (None for ``--timeout 0``)."""
    return Limits(args.timeout, args.memory) if args.timeout > 0 else None


def grounding(func: Callable[..., T], work: tuple[Any, ...], text: str,
              args: argparse.Namespace, program: Program = "relaxed") -> T:
    """Run grounding work under the command's bounds; an overrun names the relation whose
    rules grew in ``program``, the relaxed or the game program (see
    :mod:`reasoner.engine.overrun`)."""
    from reasoner.engine.limits import run_bounded
    from reasoner.engine.overrun import explain_overrun

    bounds = limits(args)
    try:
        return run_bounded(func, work, bounds)
    except ResourceLimitError as error:
        assert bounds is not None
        raise explain_overrun(error, text, bounds, program=program) from None


def progress(args: argparse.Namespace) -> bool | None:
    """Whether to show progress: forced on or off, or (None) when stderr is a terminal."""
    return {"on": True, "off": False}.get(args.progress)


def end_progress_line(args: argparse.Namespace) -> None:
    """After a bounded child died mid-line, start the error message on a line of its own."""
    if args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty()):
        sys.stderr.write("\n")


def reading_options(p: argparse.ArgumentParser) -> None:
    """``--case-sensitive`` and ``--strict`` (``--lenient`` is accepted, the default):
    how a game's text is read."""
    p.add_argument("--case-sensitive", action="store_true",
                   help="read names case-sensitively (GGP-Base's reading)")
    strictness_options(p)


def strictness_options(p: argparse.ArgumentParser) -> None:
    """``--strict``, and ``--lenient`` (the default reading; kept for old command lines)."""
    either = p.add_mutually_exclusive_group()
    either.add_argument("--strict", action="store_true",
                        help="refuse what the default reading accepts with a warning: a "
                             "name used with two arities, a connective inside a term, a "
                             "flat (base cell 1 2)")
    either.add_argument("--lenient", action="store_true",
                        help="the default reading (accepted for old command lines)")


def progress_option(p: argparse.ArgumentParser) -> None:
    """``--progress auto|on|off``."""
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="show the running phase and its time on stderr (auto: when "
                        "stderr is a terminal and the run takes over a second)")


def bundled_games() -> Path | None:
    """The bundled games' folder (``games/`` of a checkout), or None where it is missing
    (an installed package)."""
    folder = Path(__file__).resolve().parents[2] / "games"
    return folder if folder.is_dir() else None


def server_options(p: argparse.ArgumentParser) -> None:
    """How a command reaches its ``--server``: ``--tls-root``, ``--token`` and
    ``--connect-timeout`` (``serve``'s ``--tls-cert`` and ``--token-file`` on the other
    side); :func:`reasoner.console.players.open_service` reads them."""
    p.add_argument("--tls-root", metavar="PEM",
                   help="speak TLS to --server, trusting the CA certificate(s) in this PEM "
                        "file (a server started with --tls-cert)")
    p.add_argument("--token",
                   help="send `authorization: Bearer TOKEN` with every call to --server (a "
                        "server started with --token-file: its first line)")
    p.add_argument("--connect-timeout", type=seconds(), default=5.0,
                   help="seconds to wait for --server to answer")


def limit_options(p: argparse.ArgumentParser, timeout: float = 60.0) -> None:
    """``--timeout`` and ``--memory``: the bounds of loading a game (``timeout``: the
    default of ``--timeout``)."""
    p.add_argument("--timeout", type=seconds(zero=True), default=timeout,
                   help=f"seconds allowed for loading a game (0: no bound; default "
                        f"{timeout:g})")
    p.add_argument("--memory", type=MEBIBYTES, default=4096,
                   help="MiB allowed for loading a game")
