"""``player`` and ``manage``: the GGP match protocol over HTTP (docs/semantics/match-protocol.md), a
player that joins any standard game manager's matches and a manager that runs matches between any
standard players; and ``prove``, AO* over a two-player game (docs/semantics/aostar.md)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from reasoner.console.cluster import cluster_options
from reasoner.console.common import (
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    read,
    server_options,
)
from reasoner.console.numbers import GOAL, PORT, SEED, at_least, seconds

if TYPE_CHECKING:
    from reasoner.console.cluster import Task

__all__ = ["manage_match", "register"]


def register(commands: Commands) -> None:
    """Add ``player`` and ``manage``."""
    p = commands.add_parser("player", help="a GGP player over HTTP (the match protocol)")
    p.add_argument("--port", type=PORT, default=9147, help="0 picks a free port")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (0.0.0.0 for managers on other machines)")
    p.add_argument("--strategy", default="mcts",
                   help="mcts, alphabeta, bestfirst or random")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="play through a reasoner service (default: the reasoner in process)")
    server_options(p)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--margin", type=seconds(zero=True), default=0.5,
                   help="seconds before a clock's end by which the answer is sent (at most "
                        "a quarter of the clock)")
    p.add_argument("--name", default="gdl-reasoner", help="the name info answers")
    p.add_argument("--max-matches", type=at_least(1), default=1,
                   help="matches at once; one more start is answered busy")
    p.add_argument("--log-dir", type=Path, help="a folder for one log file per match")
    p.add_argument("--request-seconds", type=seconds(), default=10.0,
                   help="a request's headers and body arrive within this, or the connection "
                        "is answered 408 and closed")
    p.add_argument("--max-connections", type=at_least(1), default=64,
                   help="connections served at once; past them a new one is answered 503")
    p.add_argument("--leaf", default="playouts",
                   help="how MCTS values a leaf: random playouts, or a heuristic that values "
                        "states (fuzzy, fjo, feature, mobility)")
    p.set_defaults(run=_player)

    m = commands.add_parser("manage", help="run GGP matches between players over HTTP")
    m.add_argument("game", metavar="GAME")
    m.add_argument("--player", action="append", required=True, metavar="HOST:PORT",
                   help="a player, once per role (seats rotate over matches)")
    m.add_argument("--startclock", type=seconds(), default=10.0)
    m.add_argument("--playclock", type=seconds(), default=5.0)
    m.add_argument("--matches", type=at_least(1), default=1)
    m.add_argument("--record", type=Path, metavar="DIR",
                   help="write each match's record as DIR/MATCHID.json, DIR as given "
                        "(created if missing; records/ in the repository is ignored by git)")
    m.add_argument("--states", action="store_true", help="keep every state in the records")
    m.add_argument("--max-steps", type=at_least(1), default=1000)
    m.add_argument("--seed", type=SEED, default=0,
                   help="seeds the moves that replace failed answers")
    m.add_argument("--json", action="store_true", help="one JSON record per match on stdout")
    m.add_argument("--web", metavar="URL",
                   help="publish each match, as it is played, to the web page at URL "
                        "(gdl-reasoner web, e.g. http://127.0.0.1:8080); a page that does "
                        "not take it is one warning line, and the matches go on")
    m.add_argument("--web-token", metavar="TOKEN", help="the web page's token (--page-token)")
    cluster_options(m)
    m.set_defaults(run=_manage)

    v = commands.add_parser("prove", help="AO*: can a role force its goal in a two-player "
                                          "turn-taking game?")
    v.add_argument("game", metavar="GAME")
    v.add_argument("--role", required=True)
    v.add_argument("--goal", type=GOAL, default=100, help="the goal value to force")
    v.add_argument("--heuristic", default="extended-ff",
                   choices=("extended-ff", "hff", "none"),
                   help="the estimate of an unexpanded node (none: uninformed)")
    v.add_argument("--costs", default="max", choices=("max", "sum"),
                   help="an AND node's cost: 1 + its dearest child, or the number of its "
                        "children + their sum")
    v.add_argument("--max-nodes", type=at_least(1), default=1_000_000)
    v.add_argument("--seconds", type=seconds(), default=600.0)
    v.add_argument("--json", action="store_true")
    v.set_defaults(run=_prove)


def _prove(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from reasoner.console.players import prove
    from reasoner.engine.game import Game

    game = Game.from_gdl(read(args.game))
    try:
        proof = prove(game, args.role, goal=args.goal, heuristic=args.heuristic,
                      costs=args.costs, max_nodes=args.max_nodes, seconds=args.seconds)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps(dataclasses.asdict(proof)))
    else:
        print(f"{args.game}: {proof.verdict()} ({proof.nodes:,} nodes, "
              f"{proof.expansions:,} expansions, {proof.seconds:.2f} s; {proof.heuristic}, "
              f"{proof.costs} costs)")
    return EXIT_OK


def _player(args: argparse.Namespace) -> int:
    import logging
    import os
    import signal
    import threading

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    import random

    from reasoner.console.players import (
        STRATEGIES,
        VALUE_HEURISTICS,
        GgpPlayer,
        HeuristicEvaluator,
        MctsPlayer,
        Player,
        make_player,
        open_service,
        serve_player,
    )

    if args.strategy not in STRATEGIES:
        raise UsageError(f"unknown strategy {args.strategy!r}; the strategies are "
                         f"{', '.join(STRATEGIES)}")
    if args.leaf != "playouts" and args.leaf not in VALUE_HEURISTICS:
        raise UsageError(f"--leaf is playouts or one of {', '.join(VALUE_HEURISTICS)}, "
                         f"got {args.leaf!r}")

    def players(strategy: str, rng: random.Random) -> Player:
        if strategy == "mcts" and args.leaf != "playouts":
            return MctsPlayer(rng, evaluator=HeuristicEvaluator(args.leaf))
        return make_player(strategy, rng)

    # --server's client (no deadline: a load waits as long as the start clock lets the
    # player), once it has answered: an unreachable server, or one that refuses the token,
    # is one line now, not an error at each match's start.
    service = open_service(args, timeout=None)
    loader = None if service is None else lambda rules, _: service.load_game(rules)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    player = GgpPlayer(args.strategy, seed=args.seed, margin=args.margin,
                       name=args.name, max_matches=args.max_matches, log_dir=args.log_dir,
                       players=players, loader=loader)
    try:
        server = serve_player(player, args.host, args.port,
                              request_seconds=args.request_seconds,
                              max_connections=args.max_connections)
    except OSError as error:
        player.close()
        if service is not None:
            service.close()
        raise CommandError(f"cannot listen on {args.host}:{args.port}: {error}") from None
    stopped = threading.Event()
    received: list[str] = []

    def stop(signum: int, _: object) -> None:
        received.append(signal.Signals(signum).name)
        stopped.set()

    # Before the line that says it listens: the server already answers, and a SIGTERM
    # right after that line must find the handler (it killed the process on a busy machine).
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    host, port = server.server_address[:2]
    logging.getLogger("gdl-reasoner.player").info(
        "player %s (%s) listening on %s:%s", args.name, args.strategy, host, port)
    stopped.wait()
    server.shutdown()
    server.server_close()
    player.close()
    if service is not None:
        service.close()
    logging.getLogger("gdl-reasoner.player").info(
        "player %s stopped on %s", args.name, received[0] if received else "request")
    return EXIT_OK


def _manage(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from reasoner.console.cluster import Task, game_from_text, task_run
    from reasoner.console.players import (
        MatchRecord,
        WebPublisher,
        ping,
        save,
        seated_roles,
        seats,
        tally,
    )
    from reasoner.gdl.parser import parse_gdl
    from reasoner.gdl.printer import print_game

    if args.web_token is not None and args.web is None:
        raise UsageError("--web-token goes with --web")
    if args.web is not None:
        try:  # the matches publish from where they are played: only the URL is checked here
            WebPublisher(args.web, args.web_token)
        except ValueError as error:
            raise UsageError(f"--web: {error}") from None
    text = read(args.game)
    game = game_from_text(text)  # the one the matches play here, without --cluster
    seated = [game.roles[r] for r in seated_roles(game)]
    if len(args.player) != len(seated):
        roles = (f"{len(seated)} roles to seat ({', '.join(seated)}; the manager plays "
                 "random)" if game.random_role else f"{len(seated)} roles ({', '.join(seated)})")
        raise UsageError(f"{args.game} has {roles} but --player names {len(args.player)}")
    for player in args.player:
        try:
            status = ping(player)
        except ValueError as error:
            raise UsageError(str(error)) from None
        except OSError as error:
            raise CommandError(f"player {player} does not answer: {error}") from None
        if status != "available":
            print(f"player {player} says {status!r} to info; playing anyway")
    rules = print_game(parse_gdl(text))
    stem = Path(args.game).stem
    began = int(time.time())
    tasks = (Task(f"match {k}", manage_match,
                  (text, rules, seats(args.player, k), f"{stem}.{began}.{k}", args.startclock,
                   args.playclock, stem, args.states, args.max_steps, args.seed, args.web,
                   args.web_token))
             for k in range(args.matches))

    def failed(task: Task, why: str) -> dict[str, object]:
        """A match that could not be played: an unfinished record without goals."""
        print(f"gdl-reasoner: {task.key} was not played: {why}", file=sys.stderr)
        return dataclasses.asdict(MatchRecord(
            task.args[3], stem, list(game.roles), list(task.args[2]), args.startclock,
            args.playclock, goals=[None] * len(game.roles)))

    records = []
    with task_run(args, "manage") as run:
        for saved in run.results(tasks, failed):
            record = MatchRecord(**saved)
            records.append(record)
            if args.record is not None:
                save(record, args.record)
            if args.json:
                print(json.dumps(saved), flush=True)
            else:
                failures = sum(1 for step in record.errors for e in step if e)
                goals = ", ".join(f"{role} {goal} ({player})" for role, goal, player in
                                  zip(record.roles, record.goals, record.players, strict=True))
                print(f"match {record.match_id}: {goals} after {len(record.moves)} steps"
                      f"{'' if record.terminal else ' (unfinished)'}"
                      f"{f', {failures} moves replaced' if failures else ''}", flush=True)
    if not args.json:
        print(f"\n{'player':24} {'matches':>7} {'mean goal':>9} {'wins':>5} {'draws':>5} "
              f"{'losses':>6} {'errors':>6}")
        for entry in tally(records):
            print(f"{entry.player:24} {entry.matches:>7} {entry.mean_goal:>9.1f} "
                  f"{entry.wins:>5} {entry.draws:>5} {entry.losses:>6} {entry.errors:>6}")
    return EXIT_OK


def manage_match(text: str, rules: str, players: list[str], match_id: str,
                 start_clock: float, play_clock: float, stem: str, states: bool,
                 max_steps: int, seed: int, web: str | None,
                 web_token: str | None) -> dict[str, object]:
    """One match of ``manage`` (its one task on a cluster), as its record's JSON object;
    published to the web page at ``web`` as it is played, when given."""
    import dataclasses
    import functools

    from reasoner.console.cluster import game_from_text
    from reasoner.console.players import WebPublisher, run_match

    game = game_from_text(text)
    publisher = None if web is None else WebPublisher(web, web_token)
    publish = None if publisher is None else functools.partial(publisher.publish, rules=rules)
    record = run_match(game, rules, players, match_id=match_id, start_clock=start_clock,
                       play_clock=play_clock, game_name=stem, record_states=states,
                       max_steps=max_steps, seed=seed, on_start=publish, on_step=publish)
    if publisher is not None:
        publisher.publish(record, rules, final=True)
    return dataclasses.asdict(record)
