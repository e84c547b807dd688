"""Heuristic commands: ``evaluate`` (a heuristic's value of a state) and ``analyze`` (a
game's structures, turn-taking, teams and features). ``bench-heuristics`` is in the
workshop (:mod:`reasoner.workshop.commands.bench_heuristics`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reasoner.console.common import EXIT_OK, Commands, limit_options, limits, read
from reasoner.console.numbers import SEED, at_least, seconds
from reasoner.errors import ReasonerError
from reasoner.heuristics.table import names_in_words, parameters_in_words

if TYPE_CHECKING:
    from reasoner.core.values import State
    from reasoner.engine.game import Game

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``evaluate`` and ``analyze``."""
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
    p.set_defaults(run=_evaluate)

    p = commands.add_parser(
        "analyze", help="structures, turn-taking, teams and features of a game")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--playouts", type=at_least(1), default=20,
                   help="seeded random playouts to check hypotheses on")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--time-limit", type=seconds(zero=True), default=0.0, metavar="S",
                   help="cut the playouts short after S seconds (0: no bound; the result "
                        "then depends on the seed alone)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    limit_options(p)
    p.set_defaults(run=_analyze)


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


def _evaluate(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.heuristics.game_heuristics import GameHeuristics

    game = Game.from_gdl(read(args.game), limits=limits(args))
    state, before = _play_steps(game, args.moves)
    found = GameHeuristics(game).evaluate(args.heuristic, args.role, [state],
                                          _parameters(args.param), plan=args.plan,
                                          previous=before)[0]
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


def _analyze(args: argparse.Namespace) -> int:
    from reasoner.engine.game import Game
    from reasoner.heuristics.analysis import analyze_game

    game = Game.from_gdl(read(args.game), limits=limits(args))
    analysis = analyze_game(game, playouts=args.playouts, seed=args.seed,
                            time_limit=args.time_limit or None)
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
