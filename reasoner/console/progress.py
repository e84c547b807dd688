"""Progress of long command-line runs, on stderr.

A single game's run (grounding, instantiation) goes through phases whose length nobody can
predict, since clingo's grounder reports nothing while it works; what a user needs is to see
which phase is running and for how long. :class:`PhaseProgress` keeps one line up to date on
a terminal (a background thread rewrites it every fifth of a second, which works because
clingo releases Python's lock while it grounds), and shows nothing for runs shorter than a
second. :func:`count_line` is the counterpart for runs over many files: done, total, share,
elapsed and estimated time left.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

__all__ = ["PhaseProgress", "count_line", "format_duration"]

_SPINNER = "|/-\\"


def format_duration(seconds: float) -> str:
    """``42.0 s``, ``3m05s``, ``1h02m``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def count_line(done: int, total: int, elapsed: float, what: str = "") -> str:
    """``[12/542   2%  1m03s elapsed, about 45m left] what``."""
    share = done / total if total else 1.0
    left = f", about {format_duration(elapsed / done * (total - done))} left" if done else ""
    width = len(str(total))
    return (f"[{done:>{width}}/{total} {share:>4.0%} {format_duration(elapsed)} elapsed"
            f"{left}] {what}").rstrip()


class PhaseProgress:
    """One line that names the running phase and its time; see the module docstring."""

    def __init__(self, label: str, stream: TextIO | None = None, *,
                 enabled: bool | None = None, quiet_seconds: float = 1.0) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._enabled = self._stream.isatty() if enabled is None else enabled
        self._label = label
        self._quiet = quiet_seconds
        self._start = time.monotonic()
        self._phase = "starting"
        self._phase_start = self._start
        self._finished: list[tuple[str, float]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._shown = False
        self._thread: threading.Thread | None = None
        if self._enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()

    def phase(self, name: str) -> None:
        """Mark the start of a phase (and the end of the one before)."""
        now = time.monotonic()
        with self._lock:
            self._finished.append((self._phase, now - self._phase_start))
            self._phase, self._phase_start = name, now
        self._draw()

    def close(self) -> None:
        """End the line with the phases' times (only if the line was shown)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        now = time.monotonic()
        with self._lock:
            self._finished.append((self._phase, now - self._phase_start))
            if self._shown:
                times = ", ".join(f"{name} {format_duration(t)}"
                                  for name, t in self._finished[1:])
                self._write(f"{self._label}: done in {format_duration(now - self._start)} "
                            f"({times})\n")

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self._draw()

    def _draw(self) -> None:
        if not self._enabled:
            return
        now = time.monotonic()
        if now - self._start < self._quiet:
            return
        with self._lock:
            spin = _SPINNER[int(now * 5) % len(_SPINNER)]
            self._shown = True
            self._write(f"{spin} {self._label}: {self._phase} "
                        f"{format_duration(now - self._phase_start)} "
                        f"(total {format_duration(now - self._start)})")

    def _write(self, text: str) -> None:
        # \r and clear-to-end-of-line: the line is rewritten in place.
        self._stream.write("\r\x1b[K" + text)
        self._stream.flush()
