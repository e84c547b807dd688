"""Progress lines of long command-line runs."""

from __future__ import annotations

import io
import time

from reasoner.console.progress import PhaseProgress, count_line, format_duration


def test_count_line_shows_share_elapsed_and_time_left() -> None:
    """A sweep's line: done of total, the share, the time so far and the estimate of the
    rest from the mean time per file."""
    assert count_line(10, 40, 20.0, "loaded x.kif") == (
        "[10/40  25% 20.0 s elapsed, about 1m00s left] loaded x.kif")
    assert count_line(0, 5, 0.0) == "[0/5   0% 0.0 s elapsed]"


def test_durations_read_naturally() -> None:
    """Seconds below a minute, then minutes and seconds, then hours and minutes."""
    assert [format_duration(s) for s in (4.25, 185, 3720)] == ["4.2 s", "3m05s", "1h02m"]


def test_phases_show_after_the_quiet_second_and_end_with_their_times() -> None:
    """A run longer than the quiet time shows the running phase, rewritten in place, and
    ends with every phase's time on one line."""
    out = io.StringIO()
    shown = PhaseProgress("ground g", out, enabled=True, quiet_seconds=0.1)
    shown.phase("superset")
    time.sleep(0.5)
    shown.phase("grounding")
    shown.close()
    text = out.getvalue()
    assert "\r\x1b[K" in text
    assert "ground g: superset" in text
    last = text.rsplit("\r\x1b[K", 1)[1]
    assert last.startswith("ground g: done in ")
    assert "superset 0." in last and "grounding 0.0 s" in last


def test_short_runs_and_pipes_show_nothing() -> None:
    """Below the quiet time, or when not enabled (stderr is not a terminal), nothing is
    written."""
    quick = io.StringIO()
    shown = PhaseProgress("ground g", quick, enabled=True, quiet_seconds=10)
    shown.phase("superset")
    shown.close()
    piped = io.StringIO()
    off = PhaseProgress("ground g", piped)  # StringIO is not a terminal
    off.phase("superset")
    time.sleep(0.3)
    off.close()
    assert quick.getvalue() == "" and piped.getvalue() == ""
