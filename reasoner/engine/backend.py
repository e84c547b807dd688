"""The two state-machine backends and the choice between them.

* ``clingo``: the ground program in clingo, one propagation per query
  (:class:`reasoner.asp.machine.Machine`);
* ``propnet``: the same ground program compiled into a propositional network and generated
  Python code (:class:`reasoner.propnet.machine.PropnetMachine`), with bit-parallel batches
  for playouts;
* ``auto``: the network when it builds within :data:`AUTO_BOUNDS`, otherwise clingo, with
  the reason kept.

Both speak the same ids (fluent bits and move indices over the same tables), so a game's
states and moves mean the same whichever backend answers.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reasoner.asp.machine import Machine, StateInfo
from reasoner.asp.superset import Superset
from reasoner.asp.translate import Translation
from reasoner.errors import ResourceLimitError
from reasoner.propnet.machine import PropnetMachine
from reasoner.propnet.network import Network, NetworkBounds

__all__ = ["AUTO_BOUNDS", "BACKENDS", "BuiltMachine", "StateMachine", "build_machine",
           "check_backend"]

BACKENDS = ("clingo", "propnet", "auto")
# What "auto" allows the network before it settles for clingo: a few seconds, and a size
# whose generated code Python compiles in about as long.
AUTO_BOUNDS = NetworkBounds(seconds=10.0, rules=1_000_000, gates=200_000)


class StateMachine(Protocol):
    """What :class:`reasoner.engine.game.Game` needs of a backend (ids only)."""

    roles: tuple[str, ...]
    fluent_texts: tuple[str, ...]
    move_texts: tuple[str, ...]
    move_role: tuple[int, ...]
    init_bits: int
    ground_atom_count: int

    def info(self, bits: int) -> StateInfo: ...

    def step(self, bits: int, joint: tuple[int, ...],
             current: bool = True) -> tuple[StateInfo | None, int, StateInfo]: ...


@dataclass(frozen=True)
class BuiltMachine:
    """The machine a load ended with, which backend it is, and why (for ``auto``)."""

    machine: StateMachine
    backend: str  # "clingo" or "propnet"
    note: str  # why auto chose clingo; empty otherwise
    network_ms: float

    @property
    def network(self) -> Network | None:
        return self.machine.network if isinstance(self.machine, PropnetMachine) else None


def check_backend(backend: str) -> str:
    """The backend name, checked.

    Raises:
        ValueError: not one of :data:`BACKENDS`.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; the backends are {', '.join(BACKENDS)}")
    return backend


def build_machine(translation: Translation, superset: Superset, roles: Sequence[str],
                  backend: str, check_stratification: bool,
                  bounds: NetworkBounds | None = None) -> BuiltMachine:
    """Build the machine of ``backend`` (see the module documentation).

    Raises:
        ResourceLimitError: ``propnet`` was asked for and the network exceeds its bounds.
        GdlValidationError: the rules are not stratified on the ground level, or a goal
            value is out of range.
    """
    check_backend(backend)
    note = ""
    network_ms = 0.0
    if backend != "clingo":
        start = time.perf_counter()
        try:
            propnet = PropnetMachine.build(
                translation, superset, tuple(roles),
                bounds or (AUTO_BOUNDS if backend == "auto" else NetworkBounds()))
        except ResourceLimitError as error:
            if backend == "propnet":
                raise ResourceLimitError(str(error), error.bound, error.relation,
                                         network=True) from None
            note = str(error)
        else:
            propnet.info(propnet.init_bits)
            return BuiltMachine(propnet, "propnet", "",
                                (time.perf_counter() - start) * 1e3)
        network_ms = (time.perf_counter() - start) * 1e3
    machine = Machine(translation, superset, roles, check_stratification=check_stratification)
    # The first query surfaces rules that are unstratified on the ground level at load.
    machine.info(machine.init_bits)
    return BuiltMachine(machine, "clingo", note, network_ms)
