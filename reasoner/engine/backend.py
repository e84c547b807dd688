"""The state-machine backends and the choice between them.

* ``native``: the game's program, ground once over the relaxed superset, compiled into a
  propositional network that the compiled playout kernel interprets
  (:class:`reasoner.propnet.native.NativeMachine`): one state at a time re-evaluating only
  what changed, bit-parallel playouts with the Python lock released, and on a GPU where
  CuPy finds one;
* ``propnet``: the same network as generated Python code
  (:class:`reasoner.propnet.machine.PropnetMachine`), with bit-parallel batches for playouts;
* ``clingo``: the same ground program in clingo, one propagation per query
  (:class:`reasoner.asp.machine.Machine`);
* ``position``: no program ground once; each query grounds the demand-driven programs with
  the state as facts (:class:`reasoner.asp.position.PositionMachine`), for games too large
  to ground whole (chess, amazons, skirmish);
* ``compiled``: no program ground at all; the rules compiled to C, one function per
  relation and binding pattern, with tabled calls (:class:`reasoner.compiled.machine.
  CompiledMachine`), position by position too;
* ``topdown``: no program ground at all; SWI-Prolog answers each query by resolution with
  tabling (:class:`reasoner.topdown.TopdownMachine`), position by position too;
* ``auto``: the network when it builds within :data:`AUTO_BOUNDS` (on ``native`` where the
  kernel is built and takes it, else on ``propnet``, the reason kept), from the whole program
  or, where that one's network is over a bound or larger than :data:`COMPARED_GATES`, from
  the narrow one (:attr:`reasoner.asp.translate.Translation.split`) if that is smaller,
  which gets what the first try left of a third more time (at least a third of it); else
  clingo on the first program that did ground within the bounds (only the network grew too
  large), or the compiled rules where they walk a few seeded steps sooner than clingo;
  else position by position: of ``compiled`` and ``topdown``, whichever answers a
  short seeded walk sooner (each where it loads and answers it), else ``position`` (also
  where neither a C compiler nor SWI-Prolog is installed). The reason is kept, naming the
  refusals and the times measured.

All speak the same ids (fluent bits and move indices over the same tables), so a game's
states and moves mean the same whichever backend answers.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from reasoner.arguments import ArgumentError
from reasoner.asp.machine import Machine
from reasoner.asp.position import PositionMachine, id_tables
from reasoner.asp.superset import Superset
from reasoner.asp.translate import Translation
from reasoner.compiled.build import CompilerMissing
from reasoner.compiled.codegen import CompileRefusal
from reasoner.compiled.machine import CompiledMachine
from reasoner.core.backend_reason import BackendReason, ReasonStep
from reasoner.core.values import StateInfo
from reasoner.core.walk import Simulation, pick_joint
from reasoner.errors import GdlValidationError, ReferenceFailure, ResourceLimitError
from reasoner.gdl.syntax import GameDescription
from reasoner.propnet.machine import PropnetMachine
from reasoner.propnet.native import NativeMachine, native_refusal
from reasoner.propnet.network import GroundingTooLarge, Network, NetworkBounds, build_network
from reasoner.topdown import TopdownMachine, topdown_available

__all__ = ["AUTO_BOUNDS", "BACKENDS", "COMPARED_GATES", "Backend", "BuiltMachine", "StateMachine",
           "build_machine", "check_backend", "network_machine"]


class Backend(StrEnum):
    """The backends a game can be loaded on (a plain string of the value works too)."""

    CLINGO = "clingo"
    NATIVE = "native"
    PROPNET = "propnet"
    POSITION = "position"
    COMPILED = "compiled"
    TOPDOWN = "topdown"
    AUTO = "auto"


BACKENDS = tuple(Backend)
# What "auto" allows the network's first try before it settles for clingo: a checkers
# network (334,000 gates, a million edges) builds and compiles in about 11 s; with the
# narrow try, the network costs a load 20 s at most.
AUTO_BOUNDS = NetworkBounds(seconds=15.0, rules=1_000_000, gates=400_000)
# Both tries together get this many times the first's bound: the narrow try gets what the
# first left of that, and at least the difference (auto: 20 s in all, at least 5 s).
_BOTH_TRIES = 4 / 3
# A whole program's network larger than this is compared with the narrow program's, which is
# often far smaller (quarto: 281,369 gates whole, 3,340 narrow), but not always (checkers
# with forced captures: 179,956 whole, more than a million ground rules narrow).
COMPARED_GATES = 200_000


class StateMachine(Protocol):
    """What every backend implements, in ids: fluent ``i`` is bit ``i`` of a state, a move
    is an index into one table over all roles, a joint move one move id per role.

    :class:`reasoner.engine.game.Game` is built on this alone, so playouts, heuristics and
    the service never reach into one backend's internals.
    """

    roles: tuple[str, ...]
    fluent_texts: tuple[str, ...]
    move_texts: tuple[str, ...]
    move_role: tuple[int, ...]  # the role index of every move
    init_bits: int
    ground_atom_count: int

    @property
    def network(self) -> Network | None:
        """The compiled network the backend answers with, if it has one."""
        ...

    def info(self, bits: int) -> StateInfo:
        """Legal moves, terminal and goals of a state."""
        ...

    def transition(self, bits: int, joint: tuple[int, ...],
                   current: bool = True) -> tuple[StateInfo | None, int, StateInfo]:
        """The state's own info (None unless ``current``), the successor under ``joint``
        and the successor's info; legality is the caller's check against the first."""
        ...

    def simulate(self, bits: int, playouts: int, seed: int, max_steps: int,
                 record: bool = False, check: Callable[[], None] | None = None) -> Simulation:
        """Seeded random playouts from ``bits``; ``check`` is called between steps or
        playouts and may raise to stop."""
        ...


@dataclass(frozen=True)
class BuiltMachine:
    """The machine a load ended with, which backend it is, and why (for ``auto``)."""

    machine: StateMachine
    backend: Backend  # CLINGO, PROPNET, POSITION or TOPDOWN
    note: BackendReason  # why auto settled for this backend; empty otherwise
    network_ms: float

    @property
    def network(self) -> Network | None:
        return self.machine.network


def check_backend(backend: str) -> Backend:
    """The backend named, checked.

    Raises:
        ValueError: not one of :data:`BACKENDS`.
    """
    try:
        return Backend(backend)
    except ValueError:
        raise ArgumentError(f"unknown backend {backend!r}; the backends are "
                            f"{', '.join(BACKENDS)}", argument="backend", value=backend,
                            allowed=BACKENDS) from None


def build_machine(translation: Translation, superset: Superset, roles: Sequence[str],
                  backend: Backend | str, check_stratification: bool,
                  bounds: NetworkBounds | None = None,
                  description: GameDescription | None = None) -> BuiltMachine:
    """Build the machine of ``backend`` (see the module documentation); ``topdown`` needs
    the game's ``description`` (without it, auto only considers ``position`` last).

    Raises:
        ResourceLimitError: ``propnet`` was asked for and the network exceeds its bounds.
        GdlValidationError: the rules are not stratified on the ground level, or a goal
            value is out of range.
        ReferenceFailure: ``topdown`` was asked for and SWI-Prolog is missing or fails.
    """
    backend = check_backend(backend)
    note = BackendReason()
    network_ms = 0.0
    if backend == Backend.POSITION:
        return _position(translation, superset, roles, note, network_ms)
    if backend == Backend.COMPILED:
        if description is None:
            raise ValueError("the compiled backend needs the game's description")
        try:
            compiled = _compiled(description, superset, roles)
        except (CompileRefusal, CompilerMissing, RuntimeError) as error:
            raise ResourceLimitError(f"the rules cannot be compiled: {error}", "size",
                                     reason="not-compiled") from None
        compiled.info(compiled.init_bits)
        return BuiltMachine(compiled, Backend.COMPILED, note, network_ms)
    if backend == Backend.TOPDOWN:
        if description is None:
            raise ValueError("the topdown backend needs the game's description")
        topdown = _topdown(description, superset, roles)
        topdown.info(topdown.init_bits)
        return BuiltMachine(topdown, Backend.TOPDOWN, note, network_ms)
    auto_bounds = bounds or AUTO_BOUNDS
    if backend == Backend.AUTO and superset.atom_count > auto_bounds.rules:
        # The game's program has at least an instance per atom of its relaxed superset.
        return _by_position(translation, superset, roles, description, note.then(ReasonStep(
            "network", f"the relaxed superset alone has {superset.atom_count:,} atoms, more "
            f"than the network's {auto_bounds.rules:,} rules",
            "each position is evaluated as it is asked", "size")), network_ms)
    if backend != Backend.CLINGO:
        start = time.perf_counter()
        # The whole program first; where its network grows past the bounds or past
        # COMPARED_GATES, the narrow program (static projections unfolded, bodies split),
        # which replaces it only if smaller. Clingo grounds the first program that did
        # ground; where none did, each position is ground alone.
        tries = [translation] + ([translation.split] if translation.split else [])
        limits = bounds or (AUTO_BOUNDS if backend == Backend.AUTO else NetworkBounds())
        grounded: Translation | None = None
        failures: list[ResourceLimitError] = []
        built: Network | None = None
        for number, tried in enumerate(tries):
            if number:  # what the first try left of both tries' time, at least a third
                spent = time.perf_counter() - start
                both = _BOTH_TRIES * limits.seconds
                limits = replace(limits, seconds=max(both - spent, both - limits.seconds))
                if built is not None:  # only a smaller network replaces the first
                    limits = replace(limits, gates=built.size.gates - 1)
            try:
                network = build_network(tried, superset, tuple(roles), limits, compiling=True)
            except ResourceLimitError as error:
                if not isinstance(error, GroundingTooLarge) and grounded is None:
                    grounded = tried
                failures.append(error)
                continue
            built = network
            if network.size.gates <= COMPARED_GATES:
                break
        if built is not None:
            return network_machine(built, backend, (time.perf_counter() - start) * 1e3)
        failed = str(failures[0])
        if len(failures) > 1:
            failed += f" (split: {str(failures[1]).removeprefix('no network: ')})"
        if backend in (Backend.PROPNET, Backend.NATIVE):
            raise ResourceLimitError(failed, failures[0].bound, failures[0].relation,
                                     network=True, limit=failures[0].limit,
                                     reason=failures[0].reason)
        note = note.then(ReasonStep("network", failed, bound=str(failures[0].bound or ""),
                                    relation=failures[0].relation or ""))
        network_ms = (time.perf_counter() - start) * 1e3
        if grounded is None:
            note = note.then(ReasonStep("clingo", "the program is too large to ground once",
                                        "each position is evaluated as it is asked",
                                        str(failures[-1].bound or "")))
            if backend == Backend.AUTO:
                return _by_position(translation, superset, roles, description, note,
                                    network_ms)
            return _position(translation, superset, roles, note, network_ms)
        translation = grounded
    machine = Machine(translation, superset, roles, check_stratification=check_stratification)
    # The first query surfaces rules that are unstratified on the ground level at load.
    machine.info(machine.init_bits)
    if backend == Backend.AUTO and description is not None:
        if translation.ground:
            # Compiled rules evaluate a position without grounding the game; a game without
            # variables is ground already, and its code would be a function per ground rule
            # (merrills's instantiated game, 317,295 rules: past the compiler's memory
            # bound after 127 s).
            return BuiltMachine(machine, Backend.CLINGO, note.then(ReasonStep(
                "compiled", "the game has no variables: it is ground already",
                "clingo answers")), network_ms)
        return _faster_of_clingo_and_compiled(machine, description, superset, roles, note,
                                              network_ms)
    return BuiltMachine(machine, Backend.CLINGO, note, network_ms)


def _faster_of_clingo_and_compiled(machine: Machine, description: GameDescription,
                                   superset: Superset, roles: Sequence[str],
                                   note: BackendReason, network_ms: float) -> BuiltMachine:
    """Auto where the program grounds once but its network is too large: clingo, or the
    compiled rules where they walk the same seeded steps sooner."""
    try:
        compiled = _compiled(description, superset, roles)
        walk = _walk(compiled)
    except (CompileRefusal, CompilerMissing, RuntimeError, ResourceLimitError,
            GdlValidationError) as error:
        return BuiltMachine(machine, Backend.CLINGO, note.then(ReasonStep(
            "compiled", f"the rules were not compiled ({error})", "clingo answers")),
            network_ms)
    compiled_seconds = _walk_seconds(compiled, walk)
    clingo_seconds = _walk_seconds(machine, walk)
    timed = (f"a {len(walk)}-step walk took {compiled_seconds * 1e3:.1f} ms compiled, "
             f"{clingo_seconds * 1e3:.1f} ms in clingo")
    if compiled_seconds < clingo_seconds:
        return BuiltMachine(compiled, Backend.COMPILED, note.then(ReasonStep("compiled", timed)),
                            network_ms)
    return BuiltMachine(machine, Backend.CLINGO, note.then(ReasonStep("clingo", timed)),
                        network_ms)


def network_machine(network: Network, backend: Backend, network_ms: float,
                    note: BackendReason | None = None) -> BuiltMachine:
    """The machine of a built network: the native kernel's (``native``, and ``auto`` where
    the kernel takes the network) or the generated Python's (``propnet``, and ``auto``
    otherwise, saying why).

    Raises:
        ResourceLimitError: ``native`` was asked for and the kernel cannot take the network.
    """
    note = note or BackendReason()
    if backend in (Backend.NATIVE, Backend.AUTO):
        refusal = native_refusal(network)
        if not refusal:
            try:
                native = NativeMachine(network)
            except OverflowError as error:  # an image past 32 bits
                refusal = str(error)
            else:
                native.info(native.init_bits)
                return BuiltMachine(native, Backend.NATIVE, note, network_ms)
        if backend == Backend.NATIVE:
            raise ResourceLimitError(f"no native kernel: {refusal}", "size", network=True,
                                     reason="no-native-kernel")
        note = note.then(ReasonStep("native", refusal, "the Python network answers", "size"))
    propnet = PropnetMachine(network)
    propnet.info(propnet.init_bits)
    return BuiltMachine(propnet, Backend.PROPNET, note, network_ms)


def _position(translation: Translation, superset: Superset, roles: Sequence[str],
              note: BackendReason, network_ms: float) -> BuiltMachine:
    machine = PositionMachine(translation, superset, roles)
    machine.info(machine.init_bits)
    return BuiltMachine(machine, Backend.POSITION, note, network_ms)


def _topdown(description: GameDescription, superset: Superset,
             roles: Sequence[str]) -> TopdownMachine:
    tables = id_tables(superset, roles)
    return TopdownMachine(description, roles, tables.fluent_texts, tables.move_texts,
                          tables.move_role)


def _compiled(description: GameDescription, superset: Superset,
              roles: Sequence[str]) -> CompiledMachine:
    tables = id_tables(superset, roles)
    return CompiledMachine(description, roles, tables.fluent_texts, tables.move_texts,
                           tables.move_role)


# The walk auto times both position-by-position backends on: this many seeded steps.
_WALK_STEPS = 8


def _walk(machine: StateMachine) -> list[tuple[int, tuple[int, ...]]]:
    """A short seeded random walk from the initial state: (state, joint move) pairs."""
    rng = random.Random(0)
    bits, info = machine.init_bits, machine.info(machine.init_bits)
    walk: list[tuple[int, tuple[int, ...]]] = []
    while len(walk) < _WALK_STEPS and not info.terminal and all(info.legal):
        joint = pick_joint(rng, info.legal)
        walk.append((bits, joint))
        _, bits, info = machine.transition(bits, joint, current=False)
    return walk


def _walk_seconds(machine: StateMachine, walk: Sequence[tuple[int, tuple[int, ...]]]) -> float:
    """Seconds ``machine`` takes for every step of ``walk`` (and each state's answers)."""
    start = time.perf_counter()
    for bits, joint in walk:
        machine.transition(bits, joint, current=False)
    return time.perf_counter() - start


def _first_step(machine: StateMachine) -> float:
    """Seconds ``machine`` takes for the initial state's answers and the successor under
    its first legal joint move (the initial state's answers alone in a terminal one)."""
    start = time.perf_counter()
    info = machine.info(machine.init_bits)
    if not info.terminal and all(info.legal):
        machine.transition(machine.init_bits, tuple(moves[0] for moves in info.legal),
                           current=False)
    return time.perf_counter() - start


def _by_position(translation: Translation, superset: Superset, roles: Sequence[str],
                 description: GameDescription | None, note: BackendReason,
                 network_ms: float) -> BuiltMachine:
    """Auto's last resort, position by position: the compiled rules or top-down, whichever
    answers a short seeded walk sooner, else clingo.

    Both come before clingo because a clingo grounding cannot be interrupted between rules:
    sudoku's first position grounds for minutes without emitting one, where top-down
    answers it in milliseconds. Measured on chess, amazons, hex and skirmish, top-down also
    makes 2 to 18 times as many steps a second, and the compiled rules again tens of times
    more than top-down (chess: 21 times).
    """
    compiled: CompiledMachine | None = None
    if description is not None:
        try:
            compiled = _compiled(description, superset, roles)
            walk = _walk(compiled)
        except (CompileRefusal, CompilerMissing, RuntimeError, ResourceLimitError,
                GdlValidationError) as error:
            compiled = None
            note = note.then(ReasonStep("compiled", f"the rules were not compiled ({error})",
                                        "top-down evaluation is tried"))
    if compiled is not None:
        compiled_seconds = _walk_seconds(compiled, walk)
        if not walk or not (description is not None and topdown_available()):
            note = note.then(ReasonStep(
                "compiled", f"the compiled rules answered {len(walk)} steps in "
                f"{compiled_seconds * 1e3:.1f} ms"))
            return BuiltMachine(compiled, Backend.COMPILED, note, network_ms)
        assert description is not None
        topdown = None
        try:
            topdown = _topdown(description, superset, roles)
            topdown_seconds = _walk_seconds(topdown, walk)
        except (ReferenceFailure, ResourceLimitError, GdlValidationError):
            topdown_seconds = float("inf")
        timed = (f"a {len(walk)}-step walk took {compiled_seconds * 1e3:.1f} ms compiled, "
                 f"{topdown_seconds * 1e3:.1f} ms top-down")
        if topdown is not None and topdown_seconds < compiled_seconds:
            compiled.close()
            note = note.then(ReasonStep("topdown", timed))
            return BuiltMachine(topdown, Backend.TOPDOWN, note, network_ms)
        if topdown is not None:
            topdown.close()
        note = note.then(ReasonStep("compiled", timed))
        return BuiltMachine(compiled, Backend.COMPILED, note, network_ms)
    if description is not None and topdown_available():
        topdown = None
        try:
            topdown = _topdown(description, superset, roles)
            seconds = _first_step(topdown)
        except (ReferenceFailure, ResourceLimitError, GdlValidationError) as error:
            if topdown is not None:
                topdown.close()
            note = note.then(ReasonStep("topdown",
                                        f"top-down evaluation refused the game ({error})",
                                        "clingo grounds them"))
        else:
            tabled = "every relation" if topdown.tabled else "recursive relations"
            note = note.then(ReasonStep(
                "topdown", f"top-down evaluation ({tabled} tabled) answered the first step "
                f"in {seconds * 1e3:.0f} ms"))
            return BuiltMachine(topdown, Backend.TOPDOWN, note, network_ms)
    else:
        note = note.then(ReasonStep("topdown", "SWI-Prolog is not installed",
                                    "clingo grounds them"))
    return _position(translation, superset, roles, note, network_ms)
