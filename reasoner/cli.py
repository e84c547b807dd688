"""The ``gdl-reasoner`` command line.

Every command prints one clear line on bad input and exits non-zero; no tracebacks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from reasoner.engine.limits import Limits
from reasoner.errors import GdlError, ReasonerError, ResourceLimitError
from reasoner.heuristics.table import names_in_words, parameters_in_words

if TYPE_CHECKING:
    from reasoner.asp.superset import AtomSuperset
    from reasoner.engine.game import Game
    from reasoner.engine.values import State
    from reasoner.instantiate.gddl import GddlGame
    from reasoner.instantiate.ground_game import InstantiatedGame

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
T = TypeVar("T")


class _Unreadable(Exception):
    """A file named on the command line cannot be read."""


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise _Unreadable(f"gdl-reasoner: cannot read {path}: {error.strerror}") from None


def _game_error(path: str, error: ReasonerError | _Unreadable) -> int:
    if isinstance(error, _Unreadable):
        print(error, file=sys.stderr)
    else:
        print(f"gdl-reasoner: {path}: {type(error).__name__}: {error}", file=sys.stderr)
    return EXIT_FAILURE


def _limits(args: argparse.Namespace) -> Limits | None:
    return Limits(args.timeout, args.memory) if args.timeout > 0 else None


def _grounding(func: Callable[..., T], work: tuple[Any, ...], text: str,
               args: argparse.Namespace) -> T:
    """Run grounding work under the command's bounds; an overrun names the relation that
    grew (see :mod:`reasoner.engine.overrun`)."""
    from reasoner.engine.limits import run_bounded
    from reasoner.engine.overrun import explain_overrun

    limits = _limits(args)
    try:
        return run_bounded(func, work, limits)
    except ResourceLimitError as error:
        assert limits is not None
        raise explain_overrun(error, text, limits) from None


def _cmd_check(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game

    status = EXIT_OK
    for path in args.games:
        try:
            game = Game.from_gdl(_read(path), case_sensitive=args.case_sensitive,
                                 strict=not args.lenient, limits=_limits(args),
                                 backend=args.backend)
        except (ReasonerError, _Unreadable) as error:
            status = _game_error(path, error)
            continue
        s = game.statistics
        backend = (f"backend propnet ({s.network.describe()})" if s.network is not None
                   else "backend clingo" + (f" ({s.backend_note})" if s.backend_note else ""))
        print(f"{path}: ok: roles {' '.join(game.roles)}; {s.fluents} fluents, {s.moves} moves, "
              f"{s.rules} rules, {s.ground_atoms} ground atoms; loaded in {s.total_ms:.1f} ms; "
              f"{backend}")
        for warning in game.warnings:
            print(f"{path}: warning: {warning}")
    return status


def _cmd_translate(args: argparse.Namespace) -> int:
    from reasoner.asp.translate import translate
    from reasoner.gdl.parser import parse_game
    from reasoner.gdl.validation import validate

    try:
        description = parse_game(_read(args.game), case_sensitive=args.case_sensitive)
        validate(description, strict=not args.lenient)
    except (GdlError, _Unreadable) as error:
        return _game_error(args.game, error)
    if args.relaxed:
        # The same program `supersets` grounds: every rule, negation dropped, no unfolding.
        relaxed = translate(description, unfold_calls=False, relaxed_everything=True)
        sys.stdout.write(relaxed.relaxed_program)
    else:
        sys.stdout.write(translate(description).game_program)
    return EXIT_OK


def _supersets(text: str, name: str, progress: bool | None) -> AtomSuperset:
    from reasoner.instantiate.supersets import supersets
    from reasoner.progress import PhaseProgress

    shown = PhaseProgress(f"supersets {name}", enabled=progress)
    try:
        shown.phase("grounding the relaxed program")
        return supersets(text)
    finally:
        shown.close()


def _cmd_supersets(args: argparse.Namespace) -> int:
    try:
        text = _read(args.game)
        # The superset grounding itself may explode: bounded, it runs in a child process.
        found = _grounding(_supersets, (text, Path(args.game).stem, _progress(args)), text,
                           args)
    except (ReasonerError, _Unreadable) as error:
        _end_progress_line(args)
        return _game_error(args.game, error)
    if args.json:
        print(json.dumps({
            "game": Path(args.game).stem, "seconds": round(found.seconds, 4),
            "size": found.size, "fluents": list(found.fluents),
            "moves": [{"role": r, "move": m} for r, m in found.moves],
            "atoms": {f"{name}/{arity}": list(texts)
                      for (name, arity), texts in found.atoms.items()},
        }))
        return EXIT_OK
    print(f"{args.game}: {found.size} ground atoms in {found.seconds * 1e3:.1f} ms: "
          f"{len(found.fluents)} fluents, {len(found.moves)} moves")
    for (name, arity), texts in found.atoms.items():
        print(f"  {name}/{arity}: {len(texts)}")
        if args.list:
            for text in texts:
                print(f"    {text}")
    return EXIT_OK


def _gddl_paths(output: str) -> dict[str, Path]:
    """``-o out/ttt`` (or ``out/ttt.gddl``) writes ``out/ttt.domain.gddl``,
    ``out/ttt.problem.gddl`` and ``out/ttt.partition.gddl``."""
    base = Path(output)
    if base.suffix == ".gddl":
        base = base.with_suffix("")
    return {part: base.with_name(f"{base.name}.{part}.gddl")
            for part in ("domain", "problem", "partition")}


def _cmd_ground(args: argparse.Namespace) -> int:
    from reasoner.instantiate.ground_game import write_atomically

    try:
        text = _read(args.game)
        found = _grounding(_instantiate, (text, args.inline_aux, args.format == "gddl",
                                          Path(args.game).stem, _progress(args)), text, args)
    except (ReasonerError, _Unreadable) as error:
        _end_progress_line(args)
        return _game_error(args.game, error)
    rules, gddl = found
    statistics = rules.statistics
    outputs: dict[Path | None, str] = {}
    if gddl is not None:
        if args.output:
            for part, file in _gddl_paths(args.output).items():
                outputs[file] = getattr(gddl, part)
        else:
            outputs[None] = gddl.text()
    elif args.format == "json":
        outputs[Path(args.output) if args.output else None] = json.dumps({
            "game": Path(args.game).stem, "statistics": statistics.as_dict(),
            "rules": [{"head": r.head, "body": list(r.body)} for r in rules.rules],
        }) + "\n"
    else:
        outputs[Path(args.output) if args.output else None] = rules.gdl(args.game)
    for target, output in outputs.items():
        if target is None:
            sys.stdout.write(output)
            continue
        try:
            write_atomically(target, output)
        except OSError as error:
            print(f"gdl-reasoner: cannot write {target}: {error.strerror}", file=sys.stderr)
            return EXIT_FAILURE
    if args.stats:
        s = statistics
        extra = f", {gddl.multi_actions} multi-actions" if gddl is not None else ""
        print(f"{args.game}: {s.fluents} fluents, {s.moves} moves, {s.rules} rules, "
              f"{s.facts} facts{extra}; {s.seconds * 1e3:.1f} ms, peak memory "
              f"{s.peak_memory_mb:.0f} MiB", file=sys.stderr)
    return EXIT_OK


def _cmd_mutexes(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.instantiate.mutexes import mutex_groups

    try:
        game = Game.from_gdl(_read(args.game), limits=_limits(args))
        report = mutex_groups(game, playouts=args.playouts, seed=args.seed)
    except (ReasonerError, _Unreadable) as error:
        return _game_error(args.game, error)
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


def _end_progress_line(args: argparse.Namespace) -> None:
    """After a bounded child died mid-line, start the error message on a line of its own."""
    if args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty()):
        sys.stderr.write("\n")


def _progress(args: argparse.Namespace) -> bool | None:
    """Whether to show progress: forced on or off, or (None) when stderr is a terminal."""
    return {"on": True, "off": False}.get(args.progress)


def _instantiate(text: str, inline_aux: bool, gddl: bool, name: str,
                 progress: bool | None) -> tuple[InstantiatedGame, GddlGame | None]:
    """The work of ``ground``, in the bounded child: the instantiation, and its GDDL."""
    from reasoner.engine.game import parse_gdl
    from reasoner.gdl.validation import validate
    from reasoner.instantiate.ground_game import description_gddl, instantiate_description
    from reasoner.progress import PhaseProgress

    shown = PhaseProgress(f"ground {name}", enabled=progress)
    try:
        shown.phase("parsing")
        description = parse_gdl(text)
        validate(description)
        found = instantiate_description(description, inline_aux=inline_aux or gddl,
                                        phase=shown.phase)
        written = description_gddl(description, name, phase=shown.phase) if gddl else None
    finally:
        shown.close()
    return found, written


def _parameters(pairs: Sequence[str]) -> dict[str, str]:
    """``name=value`` options as a mapping (a usage error names the bad one)."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ReasonerError(f"--param takes name=value, got {pair!r}")
        found[name.strip()] = value.strip()
    return found


def _play_steps(game: Game, steps: Sequence[str]) -> tuple[State, State | None]:
    """The state reached by the steps' joint moves (each one step's moves as GDL terms in
    role order), and the state before it (None when no step was given).

    Raises:
        IllegalMoveError: a step with the wrong number of moves, or an illegal move.
    """
    from reasoner.errors import GdlSyntaxError, IllegalMoveError
    from reasoner.gdl.parser import parse_terms

    state, before = game.initial_state, None
    for number, step in enumerate(steps, 1):
        try:
            terms = parse_terms(step)
        except GdlSyntaxError as error:
            raise IllegalMoveError(f"step {number}: malformed moves {step!r}: {error}") from None
        if len(terms) != len(game.roles):
            raise IllegalMoveError(
                f"step {number} has {len(terms)} moves, the game has {len(game.roles)} roles "
                f"({' '.join(game.roles)}): give one move per role, in role order")
        joint = {role: str(term) for role, term in zip(game.roles, terms, strict=True)}
        try:
            state, before = game.next_state(state, joint), state
        except IllegalMoveError as error:
            raise IllegalMoveError(f"step {number}: {error}") from None
    return state, before


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.heuristics.catalogue import GameHeuristics

    try:
        game = Game.from_gdl(_read(args.game), limits=_limits(args))
        state, before = _play_steps(game, args.moves)
        found = GameHeuristics(game).evaluate(args.heuristic, args.role, [state],
                                              _parameters(args.param), plan=args.plan,
                                              previous=before)[0]
    except (ReasonerError, _Unreadable) as error:
        return _game_error(args.game, error)
    if args.json:
        print(json.dumps({
            "game": Path(args.game).stem, "role": args.role, "heuristic": args.heuristic,
            "steps": len(args.moves), "value": found.value,
            "plan": [{"layer": p.layer, "cost": p.cost, "text": p.text, "role": p.role,
                      "move": p.move} for p in found.plan] if args.plan else None,
        }))
        return EXIT_OK
    steps = "step" if len(args.moves) == 1 else "steps"
    after = f"after {len(args.moves)} {steps}" if args.moves else "in the initial state"
    print(f"{args.game}: {args.heuristic} for {args.role} {after}: {found.value:g}")
    if args.plan:
        rules = "rule" if len(found.plan) == 1 else "rules"
        print(f"relaxed plan ({len(found.plan)} paid {rules}):" if found.plan
              else "relaxed plan: nothing to pay")
        for step in found.plan:
            what = f"{step.role} {step.move}" if step.move else step.text
            print(f"  layer {step.layer}: {what}" + (f" (cost {step.cost})"
                                                      if step.cost != 1 else ""))
    return EXIT_OK


def _cmd_analyze(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.heuristics.analysis import analyze_game

    try:
        game = Game.from_gdl(_read(args.game), limits=_limits(args))
        analysis = analyze_game(game, playouts=args.playouts, seed=args.seed,
                                time_limit=args.time_limit or None)
    except (ReasonerError, _Unreadable) as error:
        return _game_error(args.game, error)
    if args.json:
        print(json.dumps({"game": Path(args.game).stem, **analysis.as_dict()}))
        return EXIT_OK
    found = analysis.structures
    cut = " (cut short by --time-limit)" if found.time_limited else ""
    print(f"{args.game}: {found.states_seen} states seen in {args.playouts} playouts "
          f"({found.terminal_states_seen} terminal){cut}, {analysis.seconds * 1e3:.0f} ms")
    for chain in found.successors:
        print(f"  successor {chain.relation}: {' '.join(chain.elements)}")
    for order in found.orders:
        based = f" (along {order.ordering.relation})" if order.ordering else ""
        print(f"  order {order.relation}: {len(order.pairs)} pairs{based}")
    for counter in found.step_counters:
        print(f"  step counter {counter.function} (along {counter.ordering.relation})")
    for board in found.boards:
        ordered = "ordered " if board.ordered else ""
        print(f"  {ordered}board {board.function}/{board.arity}: coordinates "
              f"{list(board.inputs)}, contents {list(board.outputs)}, {board.cells} cells; "
              f"markers {' '.join(board.markers) or '-'}; pieces {' '.join(board.pieces) or '-'}")
    for quantity in found.quantities:
        print(f"  quantity {quantity.function}/{quantity.arity} argument {quantity.position} "
              f"(along {quantity.ordering.relation})")
    if found.turn_taking:
        noops = "; ".join(f"{role}: {' '.join(moves)}" for role, moves in
                          found.noop_moves.items())
        print(f"  turn-taking; noop moves {noops}")
    else:
        print("  simultaneous moves")
    print("  teams: " + " | ".join(" ".join(team) for team in found.teams))
    print(f"  {len(analysis.features)} features" + (":" if analysis.features else ""))
    for feature in analysis.features:
        print(f"    {feature.name}: {feature.description}")
    return EXIT_OK


HEURISTIC_BENCH = ("hff", "fjo", "fuzzy")


def _cmd_bench_heuristics(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.engine.playout import sample_states
    from reasoner.heuristics.benchmark import (
        evaluation_rate,
        greedy_against_random,
        playout_rate,
    )
    from reasoner.heuristics.catalogue import GameHeuristics, parse_parameters

    names = [n.strip() for n in args.heuristics.split(",") if n.strip()]
    try:
        for name in names:
            parse_parameters(name, {})
    except ReasonerError as error:
        print(f"gdl-reasoner: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(f"# {time.strftime('%Y-%m-%d')}: medians of {args.runs} runs over {args.states} "
          f"sampled states; greedy one-ply player against random players, "
          f"{args.matches} matches, seats alternating")
    for path in args.games:
        try:
            game = Game.from_gdl(_read(path), limits=_limits(args))
            heuristics = GameHeuristics(game)
            states = [state for state, _ in sample_states(game, args.states, seed=args.seed)]
            role = game.roles[0]
            rates = {name: evaluation_rate(heuristics, name, role, states, runs=args.runs)
                     for name in names}
            baseline = playout_rate(game, states, runs=args.runs, seed=args.seed)
        except (ReasonerError, _Unreadable) as error:
            _game_error(path, error)
            continue
        stem = Path(path).stem
        shown = ", ".join(f"{name} {rate:,.0f}" for name, rate in rates.items())
        print(f"{stem}: evaluations/s for {role}: {shown}; one random playout "
              f"{baseline:,.0f}")
        if args.matches <= 0:
            continue
        random_tally = greedy_against_random(heuristics, None, args.matches, seed=args.seed)
        print(f"{stem}: random player wins {random_tally.win_rate:.0%} "
              f"(draws {random_tally.draws}, mean goal {random_tally.mean_goal:.1f})")
        for name in names:
            try:
                tally = greedy_against_random(heuristics, name, args.matches, seed=args.seed)
            except ReasonerError as error:
                print(f"{stem}: greedy on {name}: {type(error).__name__}: {error}")
                continue
            print(f"{stem}: greedy on {name} wins {tally.win_rate:.0%} (draws {tally.draws}, "
                  f"mean goal {tally.mean_goal:.1f})")
        sys.stdout.flush()
    return EXIT_OK


BENCH_BACKENDS = ("clingo", "propnet", "propnet-batch-64", "propnet-batch-1024",
                  "propnet-packed-1024", "grpc-simulate", "reference")


def _cmd_bench(args: argparse.Namespace) -> int:
    from reasoner.bench import (
        bench_batch,
        bench_game,
        bench_packed,
        bench_reference,
        bench_service,
        network_figures,
    )
    from reasoner.engine.game import Game

    wanted = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = [b for b in wanted if b not in BENCH_BACKENDS]
    if unknown:
        print(f"gdl-reasoner: unknown backend {unknown[0]!r}; the backends are "
              f"{', '.join(BENCH_BACKENDS)}", file=sys.stderr)
        return EXIT_USAGE
    status = EXIT_OK
    for path in args.games:
        results: list[Any] = []
        services: list[Any] = []
        try:
            text = _read(path)
            limits = _limits(args)
            if limits is not None:  # refuse a game that cannot be loaded within the bounds
                Game.from_gdl(text, limits=limits, backend="clingo")
            common = {"runs": args.runs, "seconds": args.seconds, "seed": args.seed}
            for backend in wanted:
                if backend in ("clingo", "propnet"):
                    results.append(bench_game(path, text, backend=backend, **common))
                elif backend.startswith("propnet-batch-"):
                    lanes = int(backend.rsplit("-", 1)[1])
                    results.append(bench_batch(path, text, lanes, **common))
                elif backend.startswith("propnet-packed-"):
                    lanes = int(backend.rsplit("-", 1)[1])
                    results.append(bench_packed(path, text, lanes, **common))
                elif backend == "reference":
                    results.append(bench_reference(path, text, **common))
            if any(b.startswith("propnet") for b in wanted):
                results.append(network_figures(path, text, runs=args.runs))
            if args.grpc or "grpc-simulate" in wanted:
                services = [s for s in bench_service(path, text, seconds=args.seconds,
                                                     seed=args.seed, latency=args.grpc)
                            if args.grpc or s.backend.startswith("grpc-simulate")]
        except (ReasonerError, _Unreadable) as error:
            status = _game_error(path, error)
            continue
        if args.json:
            for result in [*results, *services]:
                print(json.dumps(result.as_dict()), flush=True)
            continue
        for result in results:
            if result.backend == "propnet-size":
                print(f"{result.game:<16} {'network':<20} {result.propositions:,} "
                      f"propositions, {result.gates:,} gates, {result.edges:,} edges; built "
                      f"in {result.build_ms:.1f} ms; {result.resident_mb:.1f} MB resident",
                      flush=True)
                continue
            print(f"{result.game:<16} {result.backend:<20} {result.updates_per_sec:>10,.0f} "
                  f"updates/s (median of {result.runs}: "
                  f"{', '.join(f'{r:,.0f}' for r in result.rates)})  load "
                  f"{result.load_ms:.1f} ms", flush=True)
        for service in services:
            if service.backend.startswith("grpc-simulate"):
                ratio = service.updates_per_sec / service.in_process_updates_per_sec
                print(f"{service.game:<16} {service.backend:<20} "
                      f"{service.updates_per_sec:>10,.0f} updates/s over gRPC, "
                      f"{service.in_process_updates_per_sec:,.0f} in process "
                      f"({ratio:.0%})", flush=True)
            else:
                print(f"{service.game:<16} {service.backend:<20} {service.threads} thread(s): "
                      f"median {service.latency_median_ms:.3f} ms, p99 "
                      f"{service.latency_p99_ms:.3f} ms, {service.updates_per_sec:,.0f} "
                      "calls/s", flush=True)
    return status


def _default_corpus() -> Path | None:
    """``../shared/corpus`` beside the working folder, or beside the project."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[1]):
        candidate = base.parent / "shared" / "corpus"
        if candidate.is_dir():
            return candidate
    return None


BACKEND_CHOICES = ("clingo", "propnet", "auto")


def _cmd_crosscheck(args: argparse.Namespace) -> int:
    corpus_mode = args.corpus is not None
    if args.playouts is None:
        args.playouts = 3 if corpus_mode else 10
    if args.max_steps is None:
        args.max_steps = 100 if corpus_mode else 200
    if corpus_mode:
        return _crosscheck_corpus(args)
    if args.game is None:
        print("gdl-reasoner: crosscheck needs a GAME or --corpus [DIR]", file=sys.stderr)
        return EXIT_USAGE
    from reasoner.crosscheck import EngineSide, TraceError, compare_trace, read_trace
    from reasoner.crosscheck.run import crosscheck_game
    from reasoner.engine.game import Game

    try:
        text = _read(args.game)
        if args.against:
            game = Game.from_gdl(text, limits=_limits(args), backend=args.backend)
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
                                      path=args.game, limits=_limits(args),
                                      backend=args.backend, backends=args.backends)
    except TraceError as error:
        print(f"gdl-reasoner: {args.against}: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as error:
        print(f"gdl-reasoner: cannot write {args.record}: {error.strerror}", file=sys.stderr)
        return EXIT_FAILURE
    except (ReasonerError, _Unreadable) as error:
        return _game_error(args.game, error)
    if args.json:
        print(json.dumps(outcome.as_dict()))
    elif outcome.fate == "agree":
        supersets = ("" if args.no_supersets or args.backends
                     else f"; supersets equal ({outcome.superset_atoms} atoms)")
        print(f"{args.game}: agree: {outcome.playouts} playouts, {outcome.states} states"
              f"{supersets}; {outcome.seconds:.2f} s")
    else:
        print(f"{args.game}: {outcome.fate}\n{outcome.reason}")
    return EXIT_OK if outcome.fate == "agree" else EXIT_FAILURE


def _crosscheck_corpus(args: argparse.Namespace) -> int:
    import random

    from reasoner.crosscheck.run import crosscheck_folder, format_summary
    from reasoner.progress import count_line

    root = Path(args.corpus) if args.corpus else _default_corpus()
    if root is None or not root.is_dir():
        print(f"gdl-reasoner: {root or '../shared/corpus'} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    paths = sorted(root.rglob("*.kif"))
    if args.sample:
        paths = sorted(random.Random(args.seed).sample(paths, min(args.sample, len(paths))))
    started = time.monotonic()
    outcomes = []
    for i, outcome in enumerate(crosscheck_folder(
            paths, limits=Limits(args.timeout or 60.0, args.memory), playouts=args.playouts,
            seed=args.seed, max_steps=args.max_steps,
            reference_timeout=args.reference_timeout, backend=args.backend,
            backends=args.backends)):
        outcomes.append(outcome)
        if args.json:
            print(json.dumps(outcome.as_dict()), flush=True)
        print(count_line(i + 1, len(paths), time.monotonic() - started,
                         f"{outcome.fate:<17} {outcome.path}"), file=sys.stderr, flush=True)
    if not args.json:
        print(format_summary(outcomes, root))
    return EXIT_FAILURE if any(o.fate == "disagree" for o in outcomes) else EXIT_OK


def _cmd_sweep(args: argparse.Namespace) -> int:
    from reasoner.engine.limits import Limits
    from reasoner.progress import count_line
    from reasoner.sweep import format_table, summarise, sweep

    started = time.monotonic()
    root = Path(args.folder)
    if not root.is_dir():
        print(f"gdl-reasoner: {root} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    paths = sorted(root.rglob("*.kif"))
    fates = []
    for i, fate in enumerate(sweep(paths, limits=Limits(args.timeout, args.memory),
                                   playouts=args.playouts, max_steps=args.max_steps,
                                   seed=args.seed, strict=not args.lenient,
                                   instantiation=args.instantiate,
                                   check_limits=Limits(args.check_timeout, args.memory)
                                   if args.check_timeout else None)):
        fates.append(fate)
        if args.json:
            print(json.dumps(fate.as_dict()), flush=True)
        else:
            print(count_line(i + 1, len(paths), time.monotonic() - started,
                             f"{fate.fate:<12} {fate.path}"), file=sys.stderr, flush=True)
    if not args.json:
        print(format_table(fates, root))
    return EXIT_FAILURE if summarise(fates).get("failed") else EXIT_OK


def _cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from reasoner.server.app import serve

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    games = Path(args.games) if args.games else None
    if games is not None and not games.is_dir():
        print(f"gdl-reasoner: --games {games} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    try:
        serve(args.host, args.port, games=games, max_games=args.max_games,
              workers=args.workers, max_message_mb=args.max_message_mb)
    except OSError as error:
        print(f"gdl-reasoner: cannot serve on {args.host}:{args.port}: {error}",
              file=sys.stderr)
        return EXIT_FAILURE
    return EXIT_OK


def _cmd_match(args: argparse.Namespace) -> int:
    import os
    import random

    # gRPC's core logs transport events at info level (a GOAWAY when the embedded server
    # stops before a closed channel's connection is gone); only its errors belong on our
    # stderr. Set before grpc is first imported; the user's own setting wins.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    import grpc

    from client import ReasonerClient
    from client.match import MatchStep, play_match
    from client.players import MctsPlayer, Player, RandomPlayer

    names = [name.strip() for name in args.players.split(",")]
    known = ("mcts", "random")
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"gdl-reasoner: unknown player {unknown[0]!r} (known: {', '.join(known)})",
              file=sys.stderr)
        return EXIT_USAGE
    if args.playouts < 1:
        print(f"gdl-reasoner: --playouts must be at least 1, got {args.playouts}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        text = _read(args.game)
    except _Unreadable as error:
        return _game_error(args.game, error)

    server = None
    if args.server is None:
        from reasoner.server.app import create_server

        try:
            server, port, _ = create_server("127.0.0.1:0", games=None)
        except OSError as error:
            print(f"gdl-reasoner: cannot start a reasoner service: {error}", file=sys.stderr)
            return EXIT_FAILURE
        target = f"127.0.0.1:{port}"
    else:
        target = args.server
    client = ReasonerClient(target)
    try:
        if server is None:
            # A short wait here, so that a wrong address fails fast, not at the deadline.
            try:
                with grpc.insecure_channel(target) as probe:
                    grpc.channel_ready_future(probe).result(timeout=args.connect_timeout)
            except grpc.FutureTimeoutError:
                print(f"gdl-reasoner: cannot reach a reasoner service at {target}",
                      file=sys.stderr)
                return EXIT_FAILURE
        try:
            game = client.load_game(text)
        except ReasonerError as error:
            return _game_error(args.game, error)
        if len(names) != len(game.roles):
            print(f"gdl-reasoner: {args.game} has {len(game.roles)} roles "
                  f"({', '.join(game.roles)}) but --players names {len(names)}",
                  file=sys.stderr)
            return EXIT_USAGE
        players: list[Player] = []
        for index, name in enumerate(names):
            # One generator per seat, so that a seat's play does not depend on the others'.
            rng = random.Random(f"{args.seed}/{index}")
            players.append(MctsPlayer(rng, playouts=args.playouts) if name == "mcts"
                           else RandomPlayer(rng))

        def show(step: MatchStep) -> None:
            moves = ", ".join(f"{role} {move}"
                              for role, move in zip(game.roles, step.moves, strict=True))
            print(f"step {step.number}: {moves}", flush=True)

        try:
            result = play_match(game, players, max_steps=args.max_steps, on_step=show)
        except ReasonerError as error:
            print(f"gdl-reasoner: {args.game}: {type(error).__name__}: {error}",
                  file=sys.stderr)
            return EXIT_FAILURE
        goals = ", ".join(f"{role} {'none' if goal is None else goal}"
                          for role, goal in zip(result.roles, result.goals, strict=True))
        ending = "" if result.terminal else f" (stopped after {args.max_steps} steps)"
        print(f"result: {goals} after {result.steps} steps{ending}")
        return EXIT_OK
    finally:
        client.close()
        if server is not None:
            server.stop(None)


def _bundled_games() -> str | None:
    folder = Path(__file__).resolve().parent.parent / "games"
    return str(folder) if folder.is_dir() else None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gdl-reasoner",
        description="A GDL reasoner: GDL translated to ASP, answered by clingo.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def reading_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--case-sensitive", action="store_true",
                       help="read names case-sensitively (GGP-Base's reading)")
        p.add_argument("--lenient", action="store_true",
                       help="accept a name used with two arities as two symbols")

    def progress_option(p: argparse.ArgumentParser) -> None:
        p.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                       help="show the running phase and its time on stderr (auto: when "
                            "stderr is a terminal and the run takes over a second)")

    def limit_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--timeout", type=float, default=60.0,
                       help="seconds allowed for loading a game (0: no bound)")
        p.add_argument("--memory", type=int, default=4096,
                       help="MiB allowed for loading a game")

    p = commands.add_parser("check", help="load games and report sizes and warnings")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                   help="the state-machine backend (default: auto)")
    reading_options(p)
    limit_options(p)
    p.set_defaults(run=_cmd_check)

    p = commands.add_parser("translate", help="print the ASP program of a game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--relaxed", action="store_true",
                   help="print the relaxed (reachability) program instead: grounded by the "
                        "stand-alone clingo (python -m clingo --text) it gives the supersets")
    reading_options(p)
    p.set_defaults(run=_cmd_translate)

    p = commands.add_parser("supersets",
                            help="every fluent, move and auxiliary atom that could ever hold")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--list", action="store_true", help="list the atoms, not only their counts")
    p.add_argument("--json", action="store_true", help="one JSON object with every atom")
    progress_option(p)
    limit_options(p)
    p.set_defaults(run=_cmd_supersets)

    p = commands.add_parser("ground", help="the instantiated (variable-free) game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    p.add_argument("--format", choices=("gdl", "gddl", "json"), default="gdl",
                   help="gddl: three files with -o STEM (STEM.domain.gddl, STEM.problem.gddl, "
                        "STEM.partition.gddl), auxiliary atoms inlined")
    p.add_argument("--inline-aux", action="store_true",
                   help="inline auxiliary atoms where they occur positively")
    progress_option(p)
    p.add_argument("--stats", action="store_true", help="print statistics to stderr")
    limit_options(p)
    p.set_defaults(run=_cmd_ground)

    p = commands.add_parser("mutexes", help="groups of fluents that never hold together")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--playouts", type=int, default=50,
                   help="seeded random playouts whose states check the hypotheses")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    limit_options(p)
    p.set_defaults(run=_cmd_mutexes)

    p = commands.add_parser(
        "evaluate", help="a heuristic's value of the state that the given moves reach")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--role", required=True, help="the role whose view the value takes")
    p.add_argument("--heuristic", required=True, metavar="NAME",
                   help=names_in_words())
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the heuristic (repeatable): " + parameters_in_words())
    p.add_argument("--moves", nargs="+", default=[], metavar="JOINT",
                   help="one argument per step: that step's moves as GDL terms in role "
                        "order, e.g. '(mark 1 1) noop' 'noop (mark 2 2)'")
    p.add_argument("--plan", action="store_true",
                   help="print the relaxed plan (hff, fjo, extended-ff)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    limit_options(p)
    p.set_defaults(run=_cmd_evaluate)

    p = commands.add_parser(
        "analyze", help="structures, turn-taking, teams and features of a game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--playouts", type=int, default=20,
                   help="seeded random playouts to check hypotheses on")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-limit", type=float, default=0.0, metavar="S",
                   help="cut the playouts short after S seconds (0: no bound; the result "
                        "then depends on the seed alone)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    limit_options(p)
    p.set_defaults(run=_cmd_analyze)

    p = commands.add_parser(
        "bench-heuristics",
        help="heuristic evaluations per second, and greedy players against random ones")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--heuristics", default=",".join(HEURISTIC_BENCH), metavar="LIST",
                   help="comma-separated heuristic names")
    p.add_argument("--states", type=int, default=40, help="sampled states to evaluate")
    p.add_argument("--runs", type=int, default=5, help="timed runs (the median is printed)")
    p.add_argument("--matches", type=int, default=20,
                   help="matches per player against random players (0: none)")
    p.add_argument("--seed", type=int, default=0)
    limit_options(p)
    p.set_defaults(run=_cmd_bench_heuristics)

    p = commands.add_parser("bench", help="random-playout state updates per second")
    p.add_argument("games", nargs="+", metavar="GAME")
    p.add_argument("--runs", type=int, default=3, help="runs per game (median reported)")
    p.add_argument("--backends", default=",".join(BENCH_BACKENDS),
                   help="comma-separated, of: " + ", ".join(BENCH_BACKENDS) +
                        " (default: all; the network's size comes with any propnet one)")
    p.add_argument("--seconds", type=float, default=2.0, help="playout time per run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per game and backend")
    p.add_argument("--grpc", action="store_true",
                   help="also measure Query/Next latency over loopback gRPC")
    limit_options(p)
    p.set_defaults(run=_cmd_bench)

    p = commands.add_parser("serve", help="run the gRPC reasoner service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=50051, help="0 picks a free port")
    p.add_argument("--games", default=_bundled_games(),
                   help="folder of .kif files to preload (default: the bundled games)")
    p.add_argument("--max-games", type=int, default=64, help="size of the game cache")
    p.add_argument("--workers", type=int, default=8, help="threads serving requests")
    p.add_argument("--max-message-mb", type=int, default=16,
                   help="largest request or response in MiB")
    p.set_defaults(run=_cmd_serve)

    p = commands.add_parser("match", help="play one match between players")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--players", required=True,
                   help="comma-separated player per role, in role order: mcts or random")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="a running reasoner service (default: start one in this process)")
    p.add_argument("--playouts", type=int, default=100, help="MCTS iterations per move")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=1000,
                   help="joint moves after which the match stops unfinished")
    p.add_argument("--connect-timeout", type=float, default=5.0,
                   help="seconds to wait for --server to answer")
    p.set_defaults(run=_cmd_match)

    p = commands.add_parser(
        "crosscheck", help="compare the engine with the Prolog reference, or with a trace")
    p.add_argument("game", metavar="GAME", nargs="?")
    p.add_argument("--corpus", nargs="?", const="", metavar="DIR",
                   help="check every .kif file under DIR (default: ../shared/corpus)")
    p.add_argument("--sample", type=int, default=0,
                   help="with --corpus: only this many files, drawn with --seed")
    p.add_argument("--playouts", type=int, default=None,
                   help="seeded random playouts (default: 10 for a game, 3 per file)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None,
                   help="steps per playout (default: 200 for a game, 100 per file)")
    p.add_argument("--record", metavar="TRACE", help="write the engine's trace (JSON Lines)")
    p.add_argument("--against", metavar="TRACE",
                   help="replay a trace of another reasoner and check every line of it")
    p.add_argument("--no-supersets", action="store_true",
                   help="do not compare the supersets")
    p.add_argument("--reference-timeout", type=float, default=10.0,
                   help="seconds for each query to the reference")
    p.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                   help="the engine's backend (default: auto)")
    p.add_argument("--backends", action="store_true",
                   help="compare the network backend with the clingo backend instead of "
                        "the reference")
    p.add_argument("--json", action="store_true", help="JSON output (a line per file)")
    limit_options(p)
    p.set_defaults(run=_cmd_crosscheck)

    p = commands.add_parser("sweep", help="load and play every .kif file under a folder")
    p.add_argument("folder", nargs="?", default="../shared/corpus")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per file")
    p.add_argument("--memory", type=int, default=4096, help="MiB per file")
    p.add_argument("--playouts", type=int, default=3)
    p.add_argument("--max-steps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="one JSON object per file")
    p.add_argument("--lenient", action="store_true",
                   help="accept a name used with two arities as two symbols")
    p.add_argument("--check-timeout", type=float, default=0.0,
                   help="with --instantiate: seconds for the playout check of each "
                        "instantiated game (default: --timeout)")
    p.add_argument("--instantiate", action="store_true",
                   help="instantiate each file and check that the ground game plays alike")
    p.set_defaults(run=_cmd_sweep)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("gdl-reasoner: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
