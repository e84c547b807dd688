"""``check`` (load games, report their sizes and warnings) and ``translate`` (print a
game's ASP program)."""

from __future__ import annotations

import argparse
import sys

from reasoner.console.common import (
    BACKEND_CHOICES,
    EXIT_OK,
    CommandError,
    Commands,
    failure,
    limit_options,
    limits,
    read,
    reading_options,
)
from reasoner.errors import ReasonerError

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``check`` and ``translate``."""
    p = commands.add_parser("check", help="load games and report sizes and warnings")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                   help="the state-machine backend (default: auto)")
    reading_options(p)
    limit_options(p)
    p.set_defaults(run=_check)

    p = commands.add_parser("translate", help="print the ASP program of a game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--relaxed", action="store_true",
                   help="print the relaxed (reachability) program instead: grounded by the "
                        "stand-alone clingo (python -m clingo --text) it gives the supersets")
    reading_options(p)
    p.set_defaults(run=_translate)


def _check(args: argparse.Namespace) -> int:
    """Load each game; an ok line with its sizes and backend, and its warnings."""
    from reasoner.engine.game import Game

    status = EXIT_OK
    for path in args.games:
        try:
            game = Game.from_gdl(read(path), case_sensitive=args.case_sensitive,
                                 strict=args.strict, limits=limits(args),
                                 backend=args.backend)
        except (ReasonerError, CommandError) as error:
            status = failure(error, path)
            continue
        s = game.statistics
        backend = (f"backend {s.backend} ({s.network.describe()})" if s.network is not None
                   else f"backend {s.backend}" + (f" ({s.backend_note})" if s.backend_note
                                                  else ""))
        gdl2 = (f"; GDL-II: {len(game.percept_table)} percepts"
                f"{', random is nature' if game.random_role else ''}" if game.is_gdl2 else "")
        print(f"{path}: ok: roles {' '.join(game.roles)}; {s.fluents} fluents, {s.moves} moves, "
              f"{s.rules} rules, {s.ground_atoms} ground atoms; loaded in {s.total_ms:.1f} ms; "
              f"{backend}{gdl2}")
        for warning in game.warnings:
            print(f"{path}: warning: {warning}")
    return status


def _translate(args: argparse.Namespace) -> int:
    """Print the game's ASP program (or, with ``--relaxed``, its relaxed program)."""
    from reasoner.asp.translate import translate
    from reasoner.gdl.parser import parse_game
    from reasoner.gdl.validation import validate

    description = parse_game(read(args.game), case_sensitive=args.case_sensitive)
    validate(description, strict=args.strict)
    if args.relaxed:
        # The same program `supersets` grounds: every rule, negation dropped, no unfolding.
        relaxed = translate(description, unfold_calls=False, relaxed_everything=True)
        sys.stdout.write(relaxed.relaxed_program)
    else:
        sys.stdout.write(translate(description).game_program)
    return EXIT_OK
