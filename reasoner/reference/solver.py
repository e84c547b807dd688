"""The reference solver: a GDL game answered by SWI-Prolog in a child process.

Protocol. The child consults the generated program (:func:`prolog_program`) and prints
``ok``. Then each request is one line holding one Prolog term (built here from parsed GDL
with every name quoted, so no caller text is ever read as Prolog syntax), and each reply is
one line: ``ok`` followed by tab-separated GDL texts, or ``error`` and Prolog's message. GDL
names never contain a tab or a line break (the tokenizer splits on whitespace), so the
fields need no escaping. Every request is bounded by the solver's timeout; past it the child
is killed and the solver is closed.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import NoReturn

from reasoner.children import spawn_tied
from reasoner.errors import GdlSyntaxError, ReferenceFailure, seconds_text
from reasoner.gdl.parser import parse_gdl, parse_term
from reasoner.gdl.syntax import Function, GameDescription
from reasoner.gdl.validation import validate
from reasoner.reference.prolog import ground_term, prolog_program, quote_atom

__all__ = ["ReferenceSolver", "ReferenceSuperset"]

_PACKAGE = "swi-prolog-nox"
# Fluent and move texts recur from state to state: their Prolog text is kept, up to this many.
_CACHE_SIZE = 1 << 16


@dataclass(frozen=True)
class ReferenceSuperset:
    """Relaxed reachability as computed by the reference (docs/semantics/instantiation.md).

    ``atoms`` maps ``"name/arity"`` to the ground atoms of that relation in the relaxed
    fixpoint, for every relation of the game that has at least one (``true``, ``does``,
    ``init``, ``role``, ``legal``, ``next``, ``goal``, ``terminal`` and the auxiliary ones).
    """

    fluents: frozenset[str]
    moves: frozenset[tuple[str, str]]
    atoms: dict[str, frozenset[str]]
    seconds: float


class ReferenceSolver:
    """A GDL game run by SWI-Prolog in a child process."""

    def __init__(self, description: GameDescription, *, timeout: float = 10.0,
                 swipl: str = "swipl", extra: str = "") -> None:
        """Start ``swipl`` and load the game; ``extra`` is Prolog text consulted after the
        program (more ``ref_answer/2`` clauses for another protocol, see
        :mod:`reasoner.topdown`).

        Raises:
            ReferenceFailure: swipl is missing, or the program does not load in time.
        """
        self._timeout = timeout
        self._roles: tuple[str, ...] = description.roles
        self._case_sensitive = True
        self._updates = 0
        self._buffer = b""
        self._converted: dict[str, str] = {}
        self._process: subprocess.Popen[bytes] | None = None
        self._closed_because = "the reference solver is closed"
        # The program and the child's messages are files without a name (nothing of the
        # game is left behind, whatever becomes of this process); the child reads the
        # program through its descriptor.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        try:
            with tempfile.TemporaryFile() as program:
                program.write((prolog_program(description) + extra).encode("ascii"))
                program.flush()
                program.seek(0)
                descriptor = program.fileno()
                try:
                    self._process = spawn_tied(
                        [swipl, "-q", "-f", "none", "--no-packs", "--no-tty",
                         "--stack-limit=2g", "--on-error=halt", "-g", "ref_main", "-t",
                         "halt", f"/dev/fd/{descriptor}"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                        pass_fds=(descriptor,))
                except OSError as error:
                    raise ReferenceFailure(
                        f"cannot run SWI-Prolog ({swipl}): {error.strerror or error}; "
                        f"install the Debian package {_PACKAGE} (apt-get install "
                        f"{_PACKAGE})", reason="not-installed") from error
                assert self._process.stdin is not None
                os.set_blocking(self._process.stdin.fileno(), False)
                self._receive("loading the game")
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_gdl(cls, text: str, *, case_sensitive: bool = False, timeout: float = 10.0,
                 swipl: str = "swipl") -> ReferenceSolver:
        """Parse and validate a GDL text, then start the solver.

        Raises:
            GdlError: the text is not valid GDL (the game's defect, not the reference's).
            ReferenceFailure: as for the constructor.
        """
        description = parse_gdl(text, case_sensitive=case_sensitive)
        validate(description)
        solver = cls(description, timeout=timeout, swipl=swipl)
        solver._case_sensitive = case_sensitive
        return solver

    # -- queries ---------------------------------------------------------------------------

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles, in the order of the role facts."""
        return self._roles

    @property
    def updates(self) -> int:
        """How many ``next_state`` calls were answered."""
        return self._updates

    def initial_state(self) -> frozenset[str]:
        """The fluents of the initial state."""
        return frozenset(self._request("init", "the initial state"))

    def legal(self, state: Iterable[str]) -> dict[str, frozenset[str]]:
        """The legal moves of every role in the state (an empty set for a role without)."""
        found: dict[str, set[str]] = {role: set() for role in self._roles}
        for role, move in self._pairs(self._request(f"legal({self._state(state)})",
                                                    "legal moves")):
            if role in found:
                found[role].add(move)
        return {role: frozenset(moves) for role, moves in found.items()}

    def next_state(self, state: Iterable[str], joint: Sequence[str]) -> frozenset[str]:
        """The successor when role ``i`` plays ``joint[i]`` (legality is not checked)."""
        successor = frozenset(self._request(f"next({self._state(state)},"
                                            f"[{self._joint(joint)}])", "the next state"))
        self._updates += 1
        return successor

    def sees(self, state: Iterable[str], joint: Sequence[str]) -> dict[str, frozenset[str]]:
        """GDL-II: what each role perceives when role ``i`` plays ``joint[i]`` in the state
        (legality is not checked): per role, its percepts as GDL text (an empty set for a
        role without, and for every role of a plain GDL game). ``sees`` rules that read
        ``next`` see the successor that :meth:`next_state` computes."""
        found: dict[str, set[str]] = {role: set() for role in self._roles}
        for role, percept in self._pairs(self._request(f"sees({self._state(state)},"
                                                       f"[{self._joint(joint)}])",
                                                       "percepts")):
            if role in found:
                found[role].add(percept)
        return {role: frozenset(percepts) for role, percepts in found.items()}

    def terminal(self, state: Iterable[str]) -> bool:
        """Whether the state is terminal."""
        return self._request(f"terminal({self._state(state)})", "terminal") == ["true"]

    def goals(self, state: Iterable[str]) -> dict[str, frozenset[int]]:
        """Every goal value that holds for every role: an empty set or several values are
        the game's defect and are reported as they are."""
        found: dict[str, set[int]] = {role: set() for role in self._roles}
        for role, value in self._pairs(self._request(f"goals({self._state(state)})",
                                                     "goals")):
            if role not in found:
                continue
            try:
                found[role].add(int(value))
            except ValueError:
                raise ReferenceFailure(f"the goal value {value!r} of {role} is not an "
                                       "integer") from None
        return {role: frozenset(values) for role, values in found.items()}

    def supersets(self) -> ReferenceSuperset:
        """Relaxed reachability (docs/semantics/instantiation.md) by a Prolog fixpoint.

        Raises:
            ReferenceFailure: over the time bound, or a relation with a non-ground atom.
        """
        start = time.perf_counter()
        fields = self._request("superset", "the supersets")
        seconds = time.perf_counter() - start
        atoms: dict[str, set[str]] = {}
        fluents: set[str] = set()
        moves: set[tuple[str, str]] = set()
        for key, text in self._pairs(fields):
            atoms.setdefault(key, set()).add(text)
            if key in {"true/1", "does/2"}:
                parsed = parse_term(text, case_sensitive=True)
                if not isinstance(parsed, Function):
                    raise ReferenceFailure(f"SWI-Prolog sent the atom {text!r} as {key}")
                args = parsed.args
                if key == "true/1":
                    fluents.add(str(args[0]))
                else:
                    moves.add((str(args[0]), str(args[1])))
        return ReferenceSuperset(
            fluents=frozenset(fluents), moves=frozenset(moves),
            atoms={key: frozenset(texts) for key, texts in sorted(atoms.items())},
            seconds=seconds)

    # -- life cycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Stop swipl; calling it again does nothing."""
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        stderr = getattr(self, "_stderr", None)
        if stderr is not None and not stderr.closed:
            stderr.close()

    def __enter__(self) -> ReferenceSolver:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    @property
    def pid(self) -> int | None:
        """The process id of the running swipl, or None once closed."""
        return self._process.pid if self._process is not None else None

    # -- requests --------------------------------------------------------------------------

    def ask(self, request: str, what: str) -> list[str]:
        """The reply fields of one request of the line protocol: ``request`` is a Prolog
        term the caller built from integers and :func:`quote_atom` texts only (never from a
        caller's text), answered by a ``ref_answer/2`` clause; ``what`` names it in errors.

        Raises:
            ReferenceFailure: Prolog failed or raised, exited, or ran past the time bound
                (the solver is then closed).
        """
        return self._request(request, what)

    def _ground(self, text: str, what: str) -> str:
        known = self._converted.get(text)
        if known is not None:
            return known
        try:
            term = parse_term(text, case_sensitive=self._case_sensitive)
            converted = ground_term(term)
        except GdlSyntaxError as error:
            raise ReferenceFailure(f"malformed {what} {text!r}: {error}",
                                   reason="malformed") from error
        except ReferenceFailure as error:
            raise ReferenceFailure(f"the {what} {text!r} is not ground: {error}",
                                   reason="not-ground") from error
        if len(self._converted) >= _CACHE_SIZE:
            self._converted.clear()
        self._converted[text] = converted
        return converted

    def _state(self, state: Iterable[str]) -> str:
        if isinstance(state, str):
            raise ReferenceFailure(f"a state is a collection of fluent texts, not the text "
                                   f"{state!r}")
        return "[" + ",".join(self._ground(text, "fluent") for text in state) + "]"

    def _joint(self, joint: Sequence[str]) -> str:
        """A joint move as the Prolog list's items ``Role-Move``, role ``i`` playing
        ``joint[i]``."""
        if isinstance(joint, str) or len(joint) != len(self._roles):
            raise ReferenceFailure(f"a joint move needs one move per role ({len(self._roles)}), "
                                   f"got {joint!r}", reason="joint-move")
        return ",".join(f"{quote_atom(role)}-{self._ground(move, 'move')}"
                        for role, move in zip(self._roles, joint, strict=True))

    @staticmethod
    def _pairs(fields: list[str]) -> list[tuple[str, str]]:
        if len(fields) % 2:
            raise ReferenceFailure(f"SWI-Prolog sent an odd number of fields: {fields!r}")
        return list(zip(fields[::2], fields[1::2], strict=True))

    def _request(self, request: str, what: str) -> list[str]:
        process = self._live()
        assert process.stdin is not None
        data = (request + ".\n").encode("ascii")
        deadline = time.monotonic() + self._timeout
        descriptor = process.stdin.fileno()
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._overtime(what)
            _, ready, _ = select.select([], [descriptor], [], remaining)
            if ready:
                try:
                    written = os.write(descriptor, data)
                except BlockingIOError:
                    continue
                except OSError:
                    self._died(what)
                data = data[written:]
        return self._receive(what, deadline)

    def _receive(self, what: str, deadline: float | None = None) -> list[str]:
        process = self._live()
        assert process.stdout is not None
        if deadline is None:
            deadline = time.monotonic() + self._timeout
        descriptor = process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._overtime(what)
            ready, _, _ = select.select([descriptor], [], [], remaining)
            if ready:
                chunk = os.read(descriptor, 1 << 16)
                if not chunk:
                    self._died(what)
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        fields = line.decode("utf-8", errors="replace").split("\t")
        if fields[0] == "ok":
            return fields[1:]
        message = " ".join(fields[1:]) if fields[0] == "error" else line.decode(
            "utf-8", errors="replace")
        raise ReferenceFailure(f"SWI-Prolog failed on {what}: {message}",
                               reason=_prolog_reason(message))

    def _live(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise ReferenceFailure(self._closed_because, reason="closed")
        return self._process

    def _overtime(self, what: str) -> NoReturn:
        self._closed_because = (f"the reference solver is closed: {what} exceeded the "
                                f"reference's time bound of {seconds_text(self._timeout)}")
        self.close()
        raise ReferenceFailure(f"{what} exceeded the reference's time bound of "
                               f"{seconds_text(self._timeout)}; SWI-Prolog was stopped",
                               reason="time", limit=self._timeout)

    def _died(self, what: str) -> NoReturn:
        process = self._live()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2)
        self._stderr.seek(0)
        log = self._stderr.read().decode("utf-8", errors="replace")
        status = process.returncode
        self._closed_because = f"the reference solver is closed: SWI-Prolog exited on {what}"
        self.close()
        detail = " ".join(log.split())[:2000] or "no message"
        raise ReferenceFailure(f"SWI-Prolog exited (status {status}) on {what}: {detail}",
                               reason="exited")


def _prolog_reason(message: str) -> str:
    """What a failure SWI-Prolog reported is, in a word. Its message is another program's
    output and the only thing that says so: this is the one place it is read."""
    if "Time limit exceeded" in message:
        return "time"
    if "stack" in message and ("resource" in message or "limit" in message):
        return "stack"
    if "not stratified" in message:
        return "unstratified"
    if "non-ground atom" in message:
        return "non-ground"
    return "prolog"
