"""Child programs that die with the process that started them.

A child such as ``swipl`` busy with a slow query reads nothing from its pipes, so it would
not notice that its owner was killed (``kill -9``, the OOM killer) and ran on for the rest of
the query. On Linux, :func:`spawn_tied` asks the kernel to send the child SIGKILL when its
parent dies (``prctl(PR_SET_PDEATHSIG)``), through util-linux's ``setpriv --pdeathsig``,
which sets it and then runs the program. The kernel counts the parent's death as that of
the *thread* that forked, so every child is started from one thread that lasts as long as
the process; a child started from a short-lived thread (a match's search thread, a gRPC
worker) would otherwise be killed when that thread ends. Elsewhere, or without ``setpriv``,
the child is started as it is.

(Setting it from Python between fork and exec, with ``preexec_fn`` and ctypes, is what
Python's documentation warns against in a process with threads: a server's swipl child died
of SIGSEGV before it ran, one start in five.)
"""

from __future__ import annotations

import errno
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, cast

__all__ = ["spawn_tied"]

_Request = tuple[Sequence[str], dict[str, Any], "Future[subprocess.Popen[bytes]]"]
_lock = threading.Lock()
# The spawning thread's requests, and the process they belong to (a forked child makes its
# own thread: the parent's is not there).
_spawner: tuple[int, queue.SimpleQueue[_Request]] | None = None


def _forked() -> None:
    global _lock, _spawner
    _lock, _spawner = threading.Lock(), None  # the parent's may have been held at the fork


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def spawn_tied(args: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(args, **options)``, as a child that is killed (SIGKILL) when this
    process dies, however it dies (Linux; elsewhere a plain child).

    Raises:
        OSError: as Popen does (the program cannot be run).
    """
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv is None:
        return cast("subprocess.Popen[bytes]", subprocess.Popen(args, **options))
    # A program that is not there is Popen's error here, as it would be without setpriv.
    program = args[0] if os.sep in args[0] else shutil.which(args[0])
    if program is None or not os.access(program, os.X_OK):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), args[0])
    args = [setpriv, "--pdeathsig", "KILL", "--", program, *args[1:]]
    global _spawner
    with _lock:
        if _spawner is None or _spawner[0] != os.getpid():
            requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
            threading.Thread(target=_spawn_forever, args=(requests,), name="gdl-children",
                             daemon=True).start()
            _spawner = (os.getpid(), requests)
        requests = _spawner[1]
    future: Future[subprocess.Popen[bytes]] = Future()
    requests.put((args, options, future))
    return future.result()


def _spawn_forever(requests: queue.SimpleQueue[_Request]) -> None:
    """Start each child asked for, on this thread (which lasts as long as the process)."""
    while True:
        args, options, future = requests.get()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            process = subprocess.Popen(args, **options)
            future.set_result(cast("subprocess.Popen[bytes]", process))
        except BaseException as error:
            future.set_exception(error)
