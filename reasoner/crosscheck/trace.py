"""Traces: what a reasoner saw along its playouts, in one JSON Lines format.

Any reasoner, in any language, can write one and have it checked against this engine
(``gdl-reasoner crosscheck GAME --against TRACE``). The first line is the header::

    {"type": "header", "roles": ["xplayer", "oplayer"], "init": ["(cell 1 1 b)", ...]}

then one line per visited state::

    {"playout": 0, "step": 3, "state": [...], "terminal": false,
     "legal": {"xplayer": ["(mark 1 1)", ...], "oplayer": ["noop"]},
     "goals": {"xplayer": null, "oplayer": null}, "joint": ["(mark 1 1)", "noop"]}

Every fluent and move is GDL text in lower case with single spaces; lists are sorted;
``joint`` holds the chosen move of each role in role order (absent or null in a terminal
state, and in a state where some role has no legal move: an empty list, which ends the
playout there); ``goals`` holds each role's value where one is defined (null where not).
Steps of a playout are numbered from 0 (the initial state) and follow each other.

Texts written by other reasoners are read as GDL terms and printed back, so a trace of
GGP-Base, which writes a zero-arity term as ``(p)``, compares as it means: ``(p)`` is ``p``
at any depth (``(cell (a) 1 b)`` is ``(cell a 1 b)``, docs/semantics/gdl.md), and spacing does not
matter. Case is kept: a reasoner that reads names case-sensitively is compared as it wrote
them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from reasoner.errors import GdlSyntaxError, ReasonerError
from reasoner.gdl.parser import parse_term

__all__ = ["TraceError", "TraceHeader", "TraceStep", "read_trace", "write_header",
           "write_step"]


class TraceError(ReasonerError):
    """A malformed trace file (the message names the line): ``line`` is that line,
    ``field`` the record's field concerned and ``reason`` what is wrong, in a word, where
    known; ``other_line`` the earlier line it conflicts with, if any."""

    def __init__(self, message: str = "", *, line: int | None = None,
                 field: str | None = None, reason: str | None = None,
                 other_line: int | None = None) -> None:
        self.line = line
        self.field = field
        self.other_line = other_line
        super().__init__(message, reason=reason)


@dataclass(frozen=True)
class TraceHeader:
    roles: tuple[str, ...]
    init: frozenset[str]


@dataclass(frozen=True)
class TraceStep:
    """One visited state of a trace."""

    line: int
    playout: int
    step: int
    state: frozenset[str]
    terminal: bool
    legal: dict[str, frozenset[str]]
    goals: dict[str, int | None]
    # None in a terminal state, and where a role has no legal move: the playout's last step.
    joint: tuple[str, ...] | None


def write_header(out: TextIO, roles: Iterable[str], init: Iterable[str]) -> None:
    out.write(json.dumps({"type": "header", "roles": list(roles), "init": sorted(init)})
              + "\n")


def write_step(out: TextIO, playout: int, step: int, state: Iterable[str], terminal: bool,
               legal: dict[str, frozenset[str]], goals: dict[str, int | None],
               joint: Iterable[str] | None) -> None:
    record: dict[str, Any] = {
        "playout": playout, "step": step, "state": sorted(state), "terminal": terminal,
        "legal": {role: sorted(moves) for role, moves in legal.items()},
        "goals": goals,
    }
    if joint is not None:
        record["joint"] = list(joint)
    out.write(json.dumps(record) + "\n")


class _Texts:
    """Reads GDL texts of a trace as terms and prints them back (remembering each: the same
    fluents recur from state to state)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def text(self, text: str, what: str, line: int) -> str:
        found = self._seen.get(text)
        if found is None:
            try:
                found = str(parse_term(text, case_sensitive=True))
            except GdlSyntaxError as error:
                raise TraceError(f"line {line}: {what}: {text!r} is not a GDL term: "
                                 f"{error.message}", line=line, field=what,
                                 reason="not-a-term") from None
            self._seen[text] = found
        return found

    def texts(self, value: object, what: str, line: int) -> list[str]:
        """A list of GDL texts, each as printed from its term."""
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TraceError(f"line {line}: {what} must be a list of GDL texts")
        return [self.text(v, what, line) for v in value]


def read_trace(path: Path) -> tuple[TraceHeader, Iterator[TraceStep]]:
    """The header, and an iterator over the steps (read lazily, checked line by line).

    Raises:
        TraceError: the file cannot be read, or a line is malformed (the error names it).
    """
    try:
        handle = path.open(encoding="utf-8")
    except OSError as error:
        raise TraceError(f"cannot read {path}: {error.strerror}") from None
    first = handle.readline()
    header_record = _record(first, 1)
    if header_record.get("type") != "header":
        handle.close()
        raise TraceError('line 1: the first line must be the header {"type": "header", ...}')
    texts = _Texts()
    try:
        roles = tuple(texts.texts(header_record.get("roles"), "roles", 1))
        if not roles:
            raise TraceError("line 1: the header names no roles")
        header = TraceHeader(roles, frozenset(texts.texts(header_record.get("init"), "init",
                                                          1)))
    except TraceError:
        handle.close()
        raise
    return header, _steps(handle, roles, texts)


def _record(text: str, line: int) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError(f"line {line}: not JSON: {error.msg} (column {error.colno})",
                         line=line, reason="not-json") from None
    if not isinstance(value, dict):
        raise TraceError(f"line {line}: expected a JSON object")
    return value


def _steps(handle: TextIO, roles: tuple[str, ...], texts: _Texts) -> Iterator[TraceStep]:
    with handle:
        for line, text in enumerate(handle, start=2):
            if not text.strip():
                continue
            record = _record(text, line)
            playout, step = record.get("playout"), record.get("step")
            if not isinstance(playout, int) or not isinstance(step, int) or step < 0:
                raise TraceError(f"line {line}: playout and step must be integers (step >= 0)")
            terminal = record.get("terminal")
            if not isinstance(terminal, bool):
                raise TraceError(f"line {line}: terminal must be true or false", line=line,
                                 field="terminal", reason="not-a-boolean")
            legal_record = record.get("legal", {})
            goals_record = record.get("goals", {})
            if not isinstance(legal_record, dict) or not isinstance(goals_record, dict):
                raise TraceError(f"line {line}: legal and goals must be objects keyed by role")
            legal_record = {texts.text(k, "legal", line): v for k, v in legal_record.items()}
            goals_record = {texts.text(k, "goals", line): v for k, v in goals_record.items()}
            legal = {role: frozenset(texts.texts(legal_record.get(role, []),
                                                 f"legal.{role}", line)) for role in roles}
            goals: dict[str, int | None] = {}
            for role in roles:
                value = goals_record.get(role)
                if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                    raise TraceError(f"line {line}: goals.{role} must be an integer or null")
                goals[role] = value
            joint_record = record.get("joint")
            joint = None
            if joint_record is not None:
                joint = tuple(texts.texts(joint_record, "joint", line))
                if len(joint) != len(roles):
                    raise TraceError(f"line {line}: joint needs one move per role "
                                     f"({len(roles)}), has {len(joint)}")
            elif not terminal and all(legal.values()):
                raise TraceError(f"line {line}: a non-terminal state needs its joint move "
                                 "(unless a role has no legal move there)", line=line,
                                 field="joint", reason="missing")
            yield TraceStep(line, playout, step, frozenset(texts.texts(record.get("state"),
                                                                       "state", line)),
                            terminal, legal, goals, joint)
