"""The C compiler run on a game's source, bounded in time and memory, with a cache.

The shared object of a source is kept under the cache folder by the source's hash
(``$GDL_REASONER_CACHE``, else ``$XDG_CACHE_HOME/gdl-reasoner``, else
``~/.cache/gdl-reasoner``; ``compiled/`` in it), so a game loaded again, by this process or
another, skips the compiler.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import subprocess
import tempfile
from pathlib import Path

from reasoner.errors import ResourceLimitError, seconds_text

__all__ = ["COMPILE_MEMORY_MIB", "COMPILE_SECONDS", "CompilerMissing", "cache_folder",
           "can_compile", "compiler", "shared_object"]

COMPILE_SECONDS = 60.0
COMPILE_MEMORY_MIB = 4096
# -O3 where the source is small: chess (400 KB) runs about 6% faster at -O2 than at -O1
# and 8% faster again at -O3 (11.4k to 12.4k batched updates a second against 10.6k to
# 11.5k, 2026-11-27), for about 1 s more compiling at each step (6.4 s); alexChess (1 MB)
# runs as fast at -O1, compiled in 10 s, not 17.
_FLAGS = ("-shared", "-fPIC", "-w", "-std=gnu11")
_LARGE_SOURCE = 512 * 1024


class CompilerMissing(Exception):
    """No C compiler to run (``$CC``, ``cc`` or ``gcc``)."""


def compiler() -> str:
    """The C compiler's path.

    Raises:
        CompilerMissing: none is installed.
    """
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name:
            found = shutil.which(name)
            if found:
                return found
    raise CompilerMissing("no C compiler (cc or gcc) is installed")


def can_compile() -> bool:
    """Whether there is a C compiler to run."""
    try:
        compiler()
    except CompilerMissing:
        return False
    return True


def cache_folder() -> Path:
    """Where compiled games are kept."""
    root = os.environ.get("GDL_REASONER_CACHE")
    if root:
        return Path(root) / "compiled"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "gdl-reasoner" / "compiled"


def shared_object(source: str, *, seconds: float = COMPILE_SECONDS,
                  memory_mib: int = COMPILE_MEMORY_MIB) -> Path:
    """The shared object of ``source``, compiled unless the cache has it.

    Raises:
        CompilerMissing: no C compiler.
        ResourceLimitError: the compiler ran past ``seconds`` or ``memory_mib``.
        RuntimeError: the compiler failed otherwise (a defect of the generated code).
    """
    level = "-O1" if len(source) > _LARGE_SOURCE else "-O3"
    # The flags are part of the name: a game compiled with other flags is compiled again.
    digest = hashlib.sha256(" ".join((level, *_FLAGS, source)).encode()).hexdigest()[:32]
    folder = cache_folder()
    target = folder / f"game-{digest}.so"
    if target.exists():
        return target
    cc = compiler()
    folder.mkdir(parents=True, exist_ok=True)
    limit = memory_mib * 2**20

    def bounded() -> None:  # in the compiler's process, before it runs
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryDirectory(prefix="gdl-compile-") as work:
        c_file = Path(work) / "game.c"
        c_file.write_text(source)
        out = Path(work) / "game.so"
        try:
            done = subprocess.run([cc, level, *_FLAGS, "-o", str(out), str(c_file)],
                                  capture_output=True, text=True, timeout=seconds,
                                  preexec_fn=bounded, check=False)
        except subprocess.TimeoutExpired:
            raise ResourceLimitError(
                f"compiling the rules ran past the compiler's bound of {seconds_text(seconds)}",
                "time", limit=seconds, reason="compiler") from None
        if done.returncode != 0:
            text = done.stderr.strip()
            if "memory" in text.lower() or done.returncode < 0:
                raise ResourceLimitError(
                    f"compiling the rules ran past the compiler's bound of {memory_mib} MiB",
                    "memory", limit=memory_mib, reason="compiler")
            raise RuntimeError(f"the C compiler failed on the generated code: "
                               f"{text.splitlines()[-1] if text else done.returncode}")
        staged = folder / f".{digest}.{os.getpid()}.so"
        shutil.copyfile(out, staged)
        os.replace(staged, target)
    return target
