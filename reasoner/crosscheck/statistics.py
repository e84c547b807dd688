"""Do two samplers of one game's playouts agree? Their outcomes compared within sampling
error: the kernel's playouts against the Python network's, a GPU's against the CPU's.

Each proportion and mean may differ by at most :data:`SIGMAS` standard errors of the
difference, so a comparison of a few values fails by chance about once in a million.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["SIGMAS", "means_agree", "outcomes_agree", "shares"]

SIGMAS = 5.0
H = TypeVar("H", bound=Hashable)


def shares(outcomes: Sequence[H]) -> dict[H, float]:
    """Each outcome's share of the sample.

    >>> shares([100, 0, 100, 50])
    {100: 0.5, 0: 0.25, 50: 0.25}
    """
    return {value: count / len(outcomes) for value, count in Counter(outcomes).items()}


def outcomes_agree(a: Sequence[Hashable], b: Sequence[Hashable]) -> bool:
    """Every outcome's share in ``a`` and in ``b`` within :data:`SIGMAS` standard errors
    (of the pooled share).

    >>> outcomes_agree([1] * 50 + [0] * 50, [1] * 52 + [0] * 48)
    True
    >>> outcomes_agree([1] * 5000 + [0] * 5000, [1] * 6000 + [0] * 4000)
    False
    """
    in_a, in_b = shares(a), shares(b)
    for value in in_a.keys() | in_b.keys():
        p, q = in_a.get(value, 0.0), in_b.get(value, 0.0)
        pooled = (p * len(a) + q * len(b)) / (len(a) + len(b))
        error = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / len(a) + 1 / len(b)))
        if abs(p - q) > SIGMAS * error:
            return False
    return True


def means_agree(a: Sequence[float], b: Sequence[float]) -> bool:
    """The two samples' means within :data:`SIGMAS` standard errors of their difference.

    >>> means_agree([7, 8, 9] * 100, [7, 8, 9, 8] * 75)
    True
    """
    def mean_and_variance(x: Sequence[float]) -> tuple[float, float]:
        mean = sum(x) / len(x)
        return mean, sum((v - mean) ** 2 for v in x) / len(x)

    (m_a, v_a), (m_b, v_b) = mean_and_variance(a), mean_and_variance(b)
    error = math.sqrt(v_a / len(a) + v_b / len(b))
    return abs(m_a - m_b) <= SIGMAS * max(error, 1e-9)
