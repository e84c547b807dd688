"""The fuzzy logic of the evaluation: its parameters and operators.

* a fluent atom is worth ``p`` when it holds and ``1 - p`` when it does not (0.5 < p < 1);
* ``and`` is ``T'``, ``or`` is ``S'``, ``not x`` is ``1 - x``, where
  ``T'(a, b) = max(T(a, b), t)`` if ``min(a, b) > 0.5`` else ``T(a, b)``,
  ``S'(a, b) = 1 - T'(1 - a, 1 - b)``, ``T(a, b) = 1 - S(1 - a, 1 - b)`` and the Yager-style
  ``S(a, b) = min(1, (a^q + b^q)^(1/q))``; n-ary conjunctions and disjunctions fold pairwise
  from the left;
* with ``0.5 < t <= p < 1`` a formula that holds scores ``>= t`` and one that does not
  ``<= 1 - t`` (so, in particular, the crisp truth of a formula is its value >= 0.5).

Parameters: the defaults are p = 0.8, t = 0.65 and q = 10. With q = 2 the Yager t-norm is
too harsh for the usual goal conjunctions: ``T(0.2, 0.2) = 1 - min(1, sqrt(0.8^2 + 0.8^2))
= 0``, so a line of tic-tac-toe with two empty cells is already worth 0 and every
non-final state scores 0; q = 10 keeps long conjunctions apart (the slides: q large for
many conjunctions, small for many disjunctions).

These are the reference definitions; the evaluator runs compiled equivalents
(:func:`reasoner.heuristics.fuzzy.compiler.operators`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from reasoner.arguments import ArgumentError

__all__ = ["FuzzyParameters", "fuzzy_and", "fuzzy_or", "s_norm", "s_prime", "t_norm",
           "t_prime"]


@dataclass(frozen=True)
class FuzzyParameters:
    """The fuzzy logic's parameters: atom value ``p``, threshold ``t``, Yager exponent ``q``.

    Raises:
        ValueError: unless ``0.5 < t <= p < 1`` and ``q >= 1`` (t <= p is what makes true
            formulas score >= t and false ones <= 1 - t).
    """

    p: float = 0.8
    t: float = 0.65
    q: float = 10.0  # see the module docstring for why not 2

    def __post_init__(self) -> None:
        values = (self.p, self.t, self.q)
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            raise ArgumentError(f"fuzzy parameters must be finite numbers, got p={self.p!r}, "
                                f"t={self.t!r}, q={self.q!r}", argument="p, t, q",
                                value=values, reason="not-finite")
        if not 0.5 < self.t <= self.p < 1.0:
            raise ArgumentError(f"fuzzy parameters need 0.5 < t <= p < 1, got p={self.p}, "
                                f"t={self.t}", argument="p, t", value=(self.p, self.t),
                                reason="out-of-range")
        if not self.q >= 1.0:
            raise ArgumentError(f"fuzzy parameter q must be >= 1, got q={self.q}",
                                argument="q", value=self.q, reason="out-of-range")


def s_norm(a: float, b: float, q: float) -> float:
    """The Yager-style t-conorm ``min(1, (a^q + b^q)^(1/q))``."""
    return min(1.0, float((a ** q + b ** q) ** (1.0 / q)))


def t_norm(a: float, b: float, q: float) -> float:
    """The dual t-norm ``1 - S(1 - a, 1 - b)``."""
    return 1.0 - s_norm(1.0 - a, 1.0 - b, q)


def t_prime(a: float, b: float, parameters: FuzzyParameters) -> float:
    """``T'(a, b) = max(T(a, b), t)`` if ``min(a, b) > 0.5``, else ``T(a, b)``."""
    value = t_norm(a, b, parameters.q)
    if min(a, b) > 0.5:
        return max(value, parameters.t)
    return value


def s_prime(a: float, b: float, parameters: FuzzyParameters) -> float:
    """``S'(a, b) = 1 - T'(1 - a, 1 - b)``."""
    return 1.0 - t_prime(1.0 - a, 1.0 - b, parameters)


def fuzzy_and(values: Iterable[float], parameters: FuzzyParameters) -> float:
    """``T'`` folded from the left; the empty conjunction is 1."""
    result: float | None = None
    for value in values:
        result = value if result is None else t_prime(result, value, parameters)
    return 1.0 if result is None else result


def fuzzy_or(values: Iterable[float], parameters: FuzzyParameters) -> float:
    """``S'`` folded from the left; the empty disjunction is 0."""
    result: float | None = None
    for value in values:
        result = value if result is None else s_prime(result, value, parameters)
    return 0.0 if result is None else result

