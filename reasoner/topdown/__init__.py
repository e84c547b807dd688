"""The top-down backend: SWI-Prolog answers each position by resolution (see
:mod:`reasoner.topdown.machine`)."""

from reasoner.topdown.machine import TOPDOWN_SECONDS, TopdownMachine, topdown_available

__all__ = ["TOPDOWN_SECONDS", "TopdownMachine", "topdown_available"]
