"""The page's game library: the bundled games and every folder given, the games checked
from a text that a person pasted or uploaded, and the games opened on the service.

Games are known by an id that the library made; a request names an id, never a path, so no
request reaches the file system beyond the ``.kif`` files found in the folders at start.
Pasted texts are kept in memory only.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from reasoner.console.players import ReasonerClient, RemoteGame
from reasoner.gdl.parser import parse_gdl
from reasoner.gdl.syntax import GameDescription
from reasoner.web.board import BoardLayout, board_layout

__all__ = ["GameEntry", "GameLibrary", "OpenedGame"]

# The largest game text a person may paste or upload.
MAX_GAME_BYTES = 1 << 20
# A role fact (a rule's ``(role ?r)`` names a variable, not a role).
_ROLE = re.compile(r"\(\s*role\s+([^\s()?][^\s()]*)\s*\)", re.IGNORECASE)
_COMMENT = re.compile(r";[^\n]*")


@dataclass
class GameEntry:
    """A game of the library (the file's text is read when the game is opened)."""

    id: str
    name: str
    folder: str
    size: int
    roles: tuple[str, ...]
    path: Path | None = None  # None: a pasted text
    text: str | None = None

    def read(self) -> str:
        if self.text is not None:
            return self.text
        assert self.path is not None
        return self.path.read_text(encoding="utf-8", errors="replace")


@dataclass
class OpenedGame:
    """A game loaded on the service, with what the page draws it with."""

    entry: GameEntry
    game: RemoteGame
    load_ms: float
    layout: BoardLayout | None
    heuristics: tuple[str, ...]
    _squares: dict[int, list[list[int | None]]] = field(default_factory=dict)

    @cached_property
    def description(self) -> GameDescription:
        """The rules, parsed once (as the game was loaded: names case-insensitively)."""
        return parse_gdl(self.entry.read())

    def move_squares(self, move: int) -> list[list[int | None]]:
        """The board squares a move (by id) names, worked out once per move."""
        found = self._squares.get(move)
        if found is None:
            found = self.layout.move_squares(self.game.move_texts[move]) if self.layout else []
            self._squares[move] = found
        return found

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.entry.id, "name": self.entry.name, "roles": list(self.game.roles),
                "backend": self.game.backend, "load_ms": round(self.load_ms, 1),
                "fluents": len(self.game.fluents), "moves": len(self.game.move_texts),
                "size": self.entry.size, "warnings": list(self.game.warnings),
                "board": self.layout.as_dict() if self.layout else None,
                "heuristics": list(self.heuristics)}


def _roles(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_ROLE.findall(_COMMENT.sub("", text))))


class GameLibrary:
    """The games the page offers (see the module documentation)."""

    def __init__(self, folders: list[tuple[str, Path]], client: ReasonerClient) -> None:
        """``folders``: (label, folder) pairs; their ``.kif`` files, at any depth."""
        self.client = client
        self.entries: dict[str, GameEntry] = {}
        self.opened: dict[str, OpenedGame] = {}
        self._lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        for label, folder in folders:
            for path in sorted(folder.rglob("*.kif")):
                relative = path.relative_to(folder).with_suffix("").as_posix()
                entry_id = f"{label}/{relative}"
                try:
                    head = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                self.entries[entry_id] = GameEntry(entry_id, path.stem, label,
                                                   path.stat().st_size, _roles(head), path)

    def search(self, query: str = "", limit: int = 500) -> list[dict[str, Any]]:
        """The games whose id holds every word of ``query`` (case-insensitively)."""
        words = query.lower().split()
        found = []
        for entry in self.entries.values():
            if all(w in entry.id.lower() for w in words):
                opened = self.opened.get(entry.id)
                found.append({"id": entry.id, "name": entry.name, "folder": entry.folder,
                              "size": entry.size, "roles": list(entry.roles),
                              "backend": opened.game.backend if opened else None,
                              "load_ms": round(opened.load_ms, 1) if opened else None})
                if len(found) == limit:
                    break
        return found

    def add_text(self, text: str, name: str = "pasted") -> GameEntry:
        """A pasted or uploaded game, kept in memory under an id made from its text."""
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).stem)[:40] or "pasted"
        entry = GameEntry(f"pasted/{stem}-{digest}", stem, "pasted", len(text.encode()),
                          _roles(text), None, text)
        self.entries[entry.id] = entry
        return entry

    def by_name(self, name: str) -> GameEntry | None:
        """The first game whose name (file stem) is ``name``, or whose id is."""
        if name in self.entries:
            return self.entries[name]
        return next((e for e in self.entries.values() if e.name == name), None)

    def open(self, entry_id: str) -> OpenedGame:
        """Load a game on the service and analyse it (once; later calls answer at once).

        Raises:
            KeyError: no game has this id.
            ReasonerError: the game does not load (its GdlError has line and column).
        """
        entry = self.entries[entry_id]
        with self._lock:
            gate = self._loading.setdefault(entry_id, threading.Lock())
        with gate:
            if entry_id in self.opened:
                return self.opened[entry_id]
            began = time.perf_counter()
            game = self.client.load_game(entry.read())
            load_ms = (time.perf_counter() - began) * 1e3
            analysis = game.analyze()
            initial, _ = game.initial()
            layout = board_layout(analysis.boards, analysis.successors, game.fluents,
                                  initial.fluent_ids())
            opened = OpenedGame(entry, game, load_ms, layout,
                                tuple(h.name for h in analysis.heuristics))
            self.opened[entry_id] = opened
            return opened
