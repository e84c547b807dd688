"""Bounded work runs in a child process that never outlives the process waiting for it
(issue 15): a ``kill -9`` of a server must not leave a grounding child growing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reasoner.engine.limits import BoundedCrash, BoundedWork, Limits, run_bounded
from reasoner.errors import ResourceLimitError
from tests.conftest import ROOT

# A program that runs work forever under run_bounded and writes the child's pid to a file.
OWNER = """
import os, sys, time
from pathlib import Path
from reasoner.engine.limits import BoundedCrash, Limits, run_bounded

def spin(path):
    Path(path).write_text(str(os.getpid()))
    while True:
        sum(range(100_000))

if __name__ == "__main__":
    run_bounded(spin, (sys.argv[2],), Limits(seconds=600, memory_mb=1024,
                                             start_method=sys.argv[1]))
"""


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` is gone within ``seconds``."""
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("start_method", ["fork", "forkserver"])
def test_a_bounded_child_dies_with_its_owner(tmp_path: Path, start_method: str) -> None:
    """When the process that waits for bounded work is killed with SIGKILL (no cleanup of
    its own runs), the child doing the work ends within seconds, by either start method."""
    script, pid_file = tmp_path / "owner.py", tmp_path / "child.pid"
    script.write_text(OWNER)
    owner = subprocess.Popen([sys.executable, str(script), start_method, str(pid_file)],
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    child = 0
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert _alive(child)
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        assert _ends_within(child, 10), "the child outlived its owner by 10 s"
    finally:
        owner.kill()
        owner.wait()
        if child and _alive(child):  # a failed test leaves no spinning orphan behind
            os.kill(child, signal.SIGKILL)


# A program that loads a game on the top-down backend (on a thread that then ends), writes
# its swipl child's pid to a file and asks it a step that runs for minutes.
TOPDOWN_OWNER = """
import sys, threading
from pathlib import Path
from tests.test_topdown import SLOW, _topdown_machine

made = []
maker = threading.Thread(target=lambda: made.append(_topdown_machine(SLOW, seconds=600)))
maker.start()
maker.join()
machine = made[0]
dive = machine.move_texts.index("dive")
Path(sys.argv[1]).write_text(str(machine._solver.pid))
machine.transition(machine.init_bits, (dive,))
"""


@pytest.mark.needs_tools
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_swipl_child_dies_with_its_owner_and_leaves_no_files(tmp_path: Path) -> None:
    """When the process that asked the top-down backend a slow step is killed with SIGKILL,
    its swipl child ends within a second or two (not at the end of the step), and nothing of
    the game is left in the temporary folder; the child outlives the thread that started
    it."""
    script, pid_file, temporary = tmp_path / "owner.py", tmp_path / "child.pid", tmp_path / "tmp"
    script.write_text(TOPDOWN_OWNER)
    temporary.mkdir()
    owner = subprocess.Popen([sys.executable, str(script), str(pid_file)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT),
                                  "TMPDIR": str(temporary)})
    child = 0
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert owner.poll() is None, "the owner failed"
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        time.sleep(0.5)  # the step is under way
        assert _alive(child)
        owner.send_signal(signal.SIGKILL)
        owner.wait()
        assert _ends_within(child, 2), "swipl outlived its owner by 2 s"
        assert list(temporary.iterdir()) == []
    finally:
        owner.kill()
        owner.wait()
        if child and _alive(child):
            os.kill(child, signal.SIGKILL)


def test_bounded_work_still_answers() -> None:
    """The child's watch on its owner does not disturb an ordinary answer."""
    assert run_bounded(sum, ([1, 2, 3],), Limits(seconds=30, memory_mb=512)) == 6


def _mark_then_answer(path: str, answer: int) -> int:
    """Write this process's id to ``path``, then answer."""
    Path(path).write_text(str(os.getpid()))
    return answer


def _mark_then_sleep(path: str) -> None:
    """Write this process's id to ``path``, then sleep for ten minutes."""
    Path(path).write_text(str(os.getpid()))
    time.sleep(600)


def _appears_within(path: Path, seconds: float) -> bool:
    """Whether ``path`` holds text within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text()):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def test_bounded_work_runs_while_its_owner_works(tmp_path: Path) -> None:
    """Bounded work started as BoundedWork runs before its owner asks for the answer (here
    the owner waits for the child's mark first), and the answer then arrives."""
    mark = tmp_path / "mark"
    with BoundedWork(_mark_then_answer, (str(mark), 42),
                     Limits(seconds=30, memory_mb=512)) as work:
        assert _appears_within(mark, 20)
        assert work.result() == 42


def test_bounded_work_left_unasked_ends_its_child(tmp_path: Path) -> None:
    """Leaving BoundedWork without asking for its answer (the owner's own work failed)
    ends the child at once, and the owner's error is the one raised."""
    mark = tmp_path / "mark"
    limits = Limits(seconds=600, memory_mb=512)
    with pytest.raises(ValueError, match="the owner's"), \
            BoundedWork(_mark_then_sleep, (str(mark),), limits):
        assert _appears_within(mark, 20)
        raise ValueError("the owner's")
    assert _ends_within(int(mark.read_text()), 5)


def test_bounded_work_s_time_bound_counts_from_its_start(tmp_path: Path) -> None:
    """The time bound of BoundedWork counts from the child's start, not from the question:
    an owner that worked past it gets the time bound's ResourceLimitError when it asks."""
    mark = tmp_path / "mark"
    with BoundedWork(_mark_then_sleep, (str(mark),), Limits(seconds=1, memory_mb=512)) as work:
        assert _appears_within(mark, 20)
        time.sleep(1.2)  # the owner's own work, past the bound
        with pytest.raises(ResourceLimitError, match="time bound of 1 s") as caught:
            work.result(check=lambda: pytest.fail("asked after the bound"))
    assert caught.value.bound == "time"
    assert _ends_within(int(mark.read_text()), 5)


def _many_bytes(count: int) -> bytes:
    return b"x" * count


def test_an_answer_over_its_bound_never_leaves_the_child() -> None:
    """Bounded work whose answer pickles past ``max_answer_bytes`` is refused in the child
    with a ResourceLimitError of bound "size" naming both sizes (in its message, the
    output under test; the bound is the field ``limit``); one under it arrives."""
    limits = Limits(seconds=30, memory_mb=1024)
    with pytest.raises(ResourceLimitError, match=r"^the work's answer takes 3 MiB, more than "
                                                 r"the 1 MiB it may$") as caught:
        run_bounded(_many_bytes, (3 * 2**20,), limits, max_answer_bytes=2**20)
    assert (caught.value.bound, caught.value.reason, caught.value.limit) == ("size", "answer", 1)
    assert run_bounded(_many_bytes, (1000,), limits, max_answer_bytes=2**20) == b"x" * 1000


def _fill_then_fail_without_words() -> None:
    """Fill the address space until an allocation fails, then fail as a library that loses
    the allocation's error does (clingo: a RuntimeError with no message)."""
    held = []
    try:
        while True:
            held.append(bytearray(8 * 2**20))
    except MemoryError:
        raise RuntimeError("") from None


def _address_space_mb() -> int:
    """This process's address space (``VmSize``) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) // 1024
    raise AssertionError("no VmSize in /proc/self/status")


def _fail_at_once() -> None:
    raise RuntimeError("a defect")


def test_a_failure_at_the_memory_bound_is_the_bounds() -> None:
    """Work that fails in other words than MemoryError once its address space reached the
    bound (clingo grounding chess under 4 GiB) is refused as over the memory bound, not
    reported as a crash."""
    # The forked child starts with this process's address space: the bound leaves it
    # 256 MiB more, whatever this process (a test worker, say) already holds.
    bound = _address_space_mb() + 256
    with pytest.raises(ResourceLimitError) as caught:
        run_bounded(_fill_then_fail_without_words, (), Limits(60, bound, "fork"))
    assert (caught.value.bound, caught.value.reason, caught.value.limit) == (
        "memory", "work", bound)


def test_a_failure_far_from_the_bound_stays_a_crash() -> None:
    """A defect that fails well within the bounds is still a crash of the work."""
    with pytest.raises(BoundedCrash):
        run_bounded(_fail_at_once, (), Limits(60, _address_space_mb() + 256, "fork"))


def test_a_tied_child_that_is_not_installed_is_popen_s_error() -> None:
    """A program that is neither a path nor on PATH is a FileNotFoundError, as Popen makes
    it, not a child that exits at once (which the callers would read as a crash)."""
    from reasoner.children import spawn_tied

    with pytest.raises(FileNotFoundError):
        spawn_tied(["gdl-reasoner-no-such-program"])


def test_a_process_past_half_the_bound_starts_its_child_from_the_fork_server() -> None:
    """A forked child starts with its parent's address space, which its bound counts: where
    this process's is past half the bound, the child comes from the fork server (its parent
    is not this process) and has the whole bound; below, it is forked from here."""
    from reasoner.engine.limits import _address_space_kb

    found = _address_space_kb()
    assert found is not None
    own_mb = found[0] // 1024
    assert run_bounded(os.getppid, (), Limits(seconds=60, memory_mb=4 * own_mb)) == os.getpid()
    assert run_bounded(os.getppid, (), Limits(seconds=60, memory_mb=own_mb + 64)) != os.getpid()
