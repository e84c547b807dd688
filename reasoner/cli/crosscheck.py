"""``crosscheck``: the engine against the Prolog reference (or a trace of another reasoner,
or its backends against each other), for one game or every game of a folder."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path

from reasoner.console.cluster import cluster_options
from reasoner.console.common import (
    BACKEND_CHOICES,
    EXIT_FAILURE,
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    limit_options,
    limits,
    read,
)
from reasoner.console.numbers import SEED, at_least, seconds

__all__ = ["default_corpus", "register"]


def register(commands: Commands) -> None:
    """Add ``crosscheck``."""
    p = commands.add_parser(
        "crosscheck", help="compare the engine with the Prolog reference, or with a trace")
    p.add_argument("game", metavar="GAME", nargs="?")
    p.add_argument("--corpus", nargs="?", const="", metavar="DIR",
                   help="check every .kif file under DIR (default: ../shared/corpus)")
    p.add_argument("--sample", type=at_least(0), default=0,
                   help="with --corpus: only this many files, drawn with --seed")
    p.add_argument("--playouts", type=at_least(0), default=None,
                   help="seeded random playouts (default: 10 for a game, 3 per file)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--max-steps", type=at_least(1), default=None,
                   help="steps per playout (default: 200 for a game, 100 per file)")
    p.add_argument("--record", metavar="TRACE", help="write the engine's trace (JSON Lines)")
    p.add_argument("--against", metavar="TRACE",
                   help="replay a trace of another reasoner and check every line of it")
    p.add_argument("--no-supersets", action="store_true",
                   help="do not compare the supersets")
    p.add_argument("--reference-timeout", type=seconds(), default=10.0,
                   help="seconds for each query to the reference")
    p.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                   help="the engine's backend (default: auto)")
    p.add_argument("--backends", action="store_true",
                   help="compare every backend the game loads on (native, propnet, "
                        "compiled, topdown, position) with the clingo backend (or "
                        "position, where the game does not ground once) instead of the "
                        "reference")
    p.add_argument("--json", action="store_true", help="JSON output (a line per file)")
    limit_options(p)
    cluster_options(p)
    p.set_defaults(run=_crosscheck)


def default_corpus() -> Path | None:
    """``../shared/corpus`` beside the working folder, or beside the project."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):
        candidate = base.parent / "shared" / "corpus"
        if candidate.is_dir():
            return candidate
    return None


def _crosscheck(args: argparse.Namespace) -> int:
    corpus_mode = args.corpus is not None
    if args.playouts is None:
        args.playouts = 3 if corpus_mode else 10
    if args.max_steps is None:
        args.max_steps = 100 if corpus_mode else 200
    if corpus_mode:
        return _crosscheck_corpus(args)
    if args.cluster is not None or args.resume is not None:
        raise UsageError("--cluster and --resume go with --corpus")
    if args.game is None:
        raise UsageError("crosscheck needs a GAME or --corpus [DIR]")
    from reasoner.corpus import Fate
    from reasoner.crosscheck import EngineSide, TraceError, compare_trace, read_trace
    from reasoner.crosscheck.run import crosscheck_game
    from reasoner.engine.game import Game

    text = read(args.game)
    try:
        if args.against:
            game = Game.from_gdl(text, limits=limits(args), backend=args.backend)
            header, steps = read_trace(Path(args.against))
            result = compare_trace(EngineSide(game), header, steps)
            if result.disagreement is not None:
                print(result.disagreement.describe("engine", "trace"))
                return EXIT_FAILURE
            print(f"{args.game}: the trace agrees: {result.playouts} playouts, "
                  f"{result.states} states in {result.seconds:.2f} s")
            return EXIT_OK
        with contextlib.ExitStack() as stack:
            record = (stack.enter_context(Path(args.record).open("w", encoding="utf-8"))
                      if args.record else None)
            outcome = crosscheck_game(text, playouts=args.playouts, seed=args.seed,
                                      max_steps=args.max_steps,
                                      reference_timeout=args.reference_timeout,
                                      supersets=not args.no_supersets, record=record,
                                      path=args.game, limits=limits(args),
                                      backend=args.backend, backends=args.backends)
    except TraceError as error:
        raise CommandError(f"{args.against}: {error}") from None
    except OSError as error:
        raise CommandError(f"cannot write {args.record}: {error.strerror}") from None
    if args.json:
        print(json.dumps(outcome.as_dict()))
    elif outcome.fate is Fate.AGREE and args.backends:
        baseline, *others = outcome.compared
        note = f" ({outcome.reason})" if outcome.reason else ""
        print(f"{args.game}: agree: {' and '.join(others)} against {baseline}{note}: "
              f"{outcome.playouts} playouts, {outcome.states} states; {outcome.seconds:.2f} s")
    elif outcome.fate is Fate.AGREE:
        supersets = ("" if args.no_supersets
                     else f"; supersets equal ({outcome.superset_atoms} atoms)")
        percepts = (f", percepts of {outcome.percepts} joint moves" if outcome.percepts
                    else "")
        print(f"{args.game}: agree: {outcome.playouts} playouts, {outcome.states} states"
              f"{percepts}{supersets}; {outcome.seconds:.2f} s")
    else:
        print(f"{args.game}: {outcome.fate}\n{outcome.reason}")
    return EXIT_OK if outcome.fate is Fate.AGREE else EXIT_FAILURE


def _crosscheck_corpus(args: argparse.Namespace) -> int:
    from reasoner.console.cluster import Task, task_run
    from reasoner.console.progress import count_line
    from reasoner.corpus import Fate, game_files
    from reasoner.crosscheck.run import Outcome, crosscheck_one, format_summary
    from reasoner.engine.limits import Limits

    root = Path(args.corpus) if args.corpus else default_corpus()
    if root is None or not root.is_dir():
        raise UsageError(f"{root or '../shared/corpus'} is not a folder")
    paths = game_files(root, sample=args.sample, seed=args.seed)
    options = (Limits(args.timeout or 60.0, args.memory), args.playouts, args.seed,
               args.max_steps, args.reference_timeout, args.backend, args.backends)
    tasks = (Task(str(path), crosscheck_one, (str(path.resolve()), str(path), *options))
             for path in paths)
    started = time.monotonic()
    outcomes: list[Outcome] = []
    with task_run(args, "crosscheck --corpus") as run:
        for i, outcome in enumerate(run.results(
                tasks, lambda task, why: Outcome.ended(task.key, Fate.ENGINE_FAILED, why, 0.0),
                encode=Outcome.as_dict, decode=Outcome.from_dict)):
            outcomes.append(outcome)
            if args.json:
                print(json.dumps(outcome.as_dict()), flush=True)
            print(count_line(i + 1, len(paths), time.monotonic() - started,
                             f"{outcome.fate:<17} {outcome.path}"), file=sys.stderr,
                  flush=True)
    if not args.json:
        print(format_summary(outcomes, root))
    return EXIT_FAILURE if any(o.fate is Fate.DISAGREE for o in outcomes) else EXIT_OK
