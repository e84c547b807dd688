"""The journal of ``--resume FILE``: each finished task's result, so that a long run that was
interrupted (Ctrl-C, a lost machine, a closed laptop) resumes where it stopped.

The file is JSON Lines. Its first line names the run: the command and every option that
decides the results (``{"journal": 1, "run": {...}}``); each line after it is one finished
task, ``{"key": ..., "result": ...}``, written and flushed as the task's result arrives. Run
again with the same options and file, the command takes the results of the tasks the
journal holds from it, in their place in the output, and runs only the others. A journal
written by another run (other options, another command) is refused rather than mixed in; a
last line cut short by the interruption is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reasoner.console.common import UsageError

__all__ = ["Journal"]

VERSION = 1


class Journal:
    """A run's journal at ``path`` (see the module docstring); ``run`` is a JSON object
    naming the run."""

    def __init__(self, path: Path, run: dict[str, Any]) -> None:
        self.path = path
        self._finished: dict[str, Any] = {}
        header = {"journal": VERSION, "run": json.loads(json.dumps(run))}
        try:
            lines = path.read_bytes().split(b"\n") if path.exists() else []
        except OSError as error:
            raise UsageError(f"--resume {path}: {error.strerror}") from None
        kept = 0  # bytes of whole, readable lines
        if lines and lines[0]:
            try:
                found = json.loads(lines[0])
            except (json.JSONDecodeError, UnicodeDecodeError):
                found = None
            if not isinstance(found, dict) or found.get("journal") != VERSION:
                raise UsageError(f"--resume {path}: not a journal of gdl-reasoner; give "
                                 "another file")
            if found.get("run") != header["run"]:
                raise UsageError(f"--resume {path}: written by another run "
                                 f"({_difference(found.get('run'), header['run'])}); "
                                 "give another file, or remove it to start again")
            kept = len(lines[0]) + 1
            # A line is whole when a newline follows it: the last element never is.
            for line in lines[1:-1]:
                try:
                    entry = json.loads(line)
                    self._finished[str(entry["key"])] = entry["result"]
                except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                    break
                kept += len(line) + 1
        try:
            with path.open("r+b" if kept else "wb") as out:
                if kept:
                    out.truncate(kept)
                else:
                    out.write((json.dumps(header) + "\n").encode())
            self._out = path.open("a", encoding="utf-8", newline="\n")
        except OSError as error:
            raise UsageError(f"--resume {path}: {error.strerror}") from None

    def finished(self) -> dict[str, Any]:
        """The results the journal held when it was opened, by task key."""
        return self._finished

    def keep(self, key: str, result: Any) -> None:
        """Add one finished task (its result a JSON value), on disk at once."""
        self._out.write(json.dumps({"key": key, "result": result}) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.close()


def _difference(old: Any, new: dict[str, Any]) -> str:
    """The first option in which the journal's run differs from this one, in words."""
    if not isinstance(old, dict):
        return "unreadable options"
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            return f"{name}: {old.get(name)!r} there, {new.get(name)!r} now"
    return "the same options"
