"""``match``: one match between players, through a reasoner service (started in this
process unless one is named)."""

from __future__ import annotations

import argparse

from reasoner.console.common import (
    EXIT_OK,
    Commands,
    UsageError,
    read,
    server_options,
)
from reasoner.console.numbers import SEED, at_least, seconds

__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``match``."""
    p = commands.add_parser("match", help="play one match between players")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--players", required=True,
                   help="comma-separated player per role, in role order: mcts, alphabeta, "
                        "bestfirst or random (GDL-II: per role but random, which the match "
                        "moves; every seat is played by the sampling player, as the note "
                        "printed says)")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="a running reasoner service (default: start one in this process)")
    p.add_argument("--playouts", type=at_least(1), default=100, help="MCTS iterations per move")
    p.add_argument("--seconds", type=seconds(), default=1.0,
                   help="alpha-beta's, best-first's and (GDL-II) the sampling player's "
                        "time per move")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--max-steps", type=at_least(1), default=1000,
                   help="joint moves after which the match stops unfinished")
    server_options(p)
    p.set_defaults(run=_match)


def _match(args: argparse.Namespace) -> int:
    import os
    import random

    # gRPC's core logs transport events at info level (a GOAWAY when the embedded server
    # stops before a closed channel's connection is gone); only its errors belong on our
    # stderr. Set before grpc is first imported; the user's own setting wins.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from reasoner.console.players import (
        STRATEGIES,
        MatchStep,
        Player,
        make_player,
        play_match,
        service_client,
    )

    names = [name.strip() for name in args.players.split(",")]
    unknown = [name for name in names if name not in STRATEGIES]
    if unknown:
        raise UsageError(f"unknown player {unknown[0]!r} (known: {', '.join(STRATEGIES)})")
    text = read(args.game)

    # --server's client, once it has answered (an unreachable server, or one that refuses
    # the token, is one line here); else a server in this process.
    with service_client(args) as client:
        game = client.load_game(text)
        seated = [role for role in game.roles if role != game.random_role]
        if game.is_gdl2 and len(names) in (len(seated), len(game.roles)):
            pass  # a player for random too is taken and ignored: the match moves it
        elif len(names) != len(game.roles):
            roles = (f"{len(seated)} roles to seat ({', '.join(seated)}; the match moves "
                     "random)" if game.random_role
                     else f"{len(game.roles)} roles ({', '.join(game.roles)})")
            raise UsageError(f"{args.game} has {roles} but --players names {len(names)}")
        players: list[Player] = []
        for index, name in enumerate(names):
            # One generator per seat, so that a seat's play does not depend on the others'.
            rng = random.Random(f"{args.seed}/{index}")
            players.append(make_player(name, rng, playouts=args.playouts,
                                       seconds=args.seconds))

        def show(step: MatchStep) -> None:
            moves = ", ".join(f"{role} {move}"
                              for role, move in zip(game.roles, step.moves, strict=True))
            print(f"step {step.number}: {moves}", flush=True)

        if game.is_gdl2:
            # A player of a local match sees the whole state; a GDL-II role must not.
            per_seat = (names if len(names) == len(seated) else
                        [n for role, n in zip(game.roles, names, strict=True)
                         if role != game.random_role])
            named = ", ".join(f"{role} ({name})"
                              for role, name in zip(seated, per_seat, strict=True))
            moved = ("random is moved uniformly at random by the match; every other role"
                     if game.random_role else "every role")
            print(f"note: GDL-II game: {moved} is played by the sampling player (Monte "
                  "Carlo over states of its information set, told only its own moves and "
                  f"percepts) in place of the player named for it ({named}), since the "
                  "players of a local match see the whole state, which a GDL-II role must "
                  "not", flush=True)
            result = play_match(game, players, max_steps=args.max_steps, on_step=show,
                                seconds=args.seconds, seed=args.seed)
        else:
            result = play_match(game, players, max_steps=args.max_steps, on_step=show)
        goals = ", ".join(f"{role} {'none' if goal is None else goal}"
                          for role, goal in zip(result.roles, result.goals, strict=True))
        ending = "" if result.terminal else f" (stopped after {args.max_steps} steps)"
        print(f"result: {goals} after {result.steps} steps{ending}")
        return EXIT_OK

