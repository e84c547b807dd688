"""``web``: the page that shows games (:mod:`reasoner.web`), over a reasoner service
started in this process unless one is named."""

from __future__ import annotations

import argparse
import ipaddress
from pathlib import Path

from reasoner.console.common import (
    EXIT_OK,
    CommandError,
    Commands,
    UsageError,
    bundled_games,
    server_options,
)
from reasoner.console.numbers import PORT

# The games --screenshots shoots by default: the bundled tic-tac-toe and, where --games
# names the corpus, the classic boards.
SHOTS = ("tictactoe", "ticTacToe", "connectFour", "breakthrough", "reversi", "hex", "amazons",
         "checkers", "chess")
__all__ = ["register"]


def register(commands: Commands) -> None:
    """Add ``web``."""
    p = commands.add_parser("web", help="serve the web page: browse, play, watch and inspect "
                                        "games")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (another than the loopback needs a token: "
                        "--page-token, else one is made and printed)")
    p.add_argument("--port", type=PORT, default=8080, help="0 picks a free port")
    p.add_argument("--games", action="append", default=[], metavar="DIR",
                   help="a folder of .kif files for the library (repeatable; the bundled "
                        "games are always there)")
    p.add_argument("--server", metavar="HOST:PORT",
                   help="a running reasoner service (default: start one in this process)")
    p.add_argument("--page-token",
                   help="a token every request to the page must carry (?token=...)")
    p.add_argument("--screenshots", metavar="DIR",
                   help="write a PNG of the board of each game named by --shoot (headless "
                        "Chromium) into DIR and exit")
    p.add_argument("--shoot", action="append", default=[], metavar="GAME",
                   help="a library game id or name for --screenshots (repeatable)")
    server_options(p)
    p.set_defaults(run=_web)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _web(args: argparse.Namespace) -> int:
    import os
    import secrets

    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    from reasoner.console.players import service_client
    from reasoner.web.app import create_app
    from reasoner.web.library import GameLibrary
    from reasoner.web.requests import WebState
    from reasoner.web.serving import PageServer, listening_socket

    folders: list[tuple[str, Path]] = []
    bundled = bundled_games()
    if bundled is not None:
        folders.append(("games", bundled))
    for given in args.games:
        folder = Path(given)
        if not folder.is_dir():
            raise UsageError(f"--games {given}: not a folder")
        folders.append((folder.resolve().name, folder.resolve()))
    token = args.page_token
    if token is None and not _loopback(args.host):
        token = secrets.token_urlsafe(16)
    if args.shoot and not args.screenshots:
        raise UsageError("--shoot goes with --screenshots")
    # The page waits for the service as long as a chess load or a supporting rule takes.
    with service_client(args, timeout=600.0) as client:
        library = GameLibrary(folders, client)
        app = create_app(WebState(library, client, token))
        if args.screenshots:
            from reasoner.web.browser import BrowserMissing, screenshots

            try:
                written = screenshots(app, Path(args.screenshots),
                                      args.shoot or list(SHOTS))
            except BrowserMissing as error:
                raise CommandError(str(error)) from None
            for path in written:
                print(path)
            return EXIT_OK
        try:
            listening = listening_socket(args.host, args.port)
        except OSError as error:
            raise CommandError(f"cannot serve the page on {args.host}:{args.port}: "
                               f"{error}") from None
        port = listening.getsockname()[1]
        query = f"?token={token}" if token else ""
        print(f"gdl-reasoner web: http://{args.host}:{port}/{query} "
              f"({len(library.entries)} games)", flush=True)
        PageServer(app).run(sockets=[listening])
        return EXIT_OK
