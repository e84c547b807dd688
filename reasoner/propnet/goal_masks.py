"""The kernel's goal masks read as goal values.

The playout kernel (``kernel.h``) reports a playout's goals as two 64-bit words per role:
bit ``v`` of the first for value ``v`` < 64, bit ``v - 64`` of the second for the rest (a
well-formed game sets one bit). Reading them needs only array arithmetic, so the same code
runs on the CPU (numpy) and on a GPU (CuPy) before anything leaves it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["goal_table"]


def goal_table(xp: Any, goal_masks: Any) -> Any:
    """The goal table (playout x role: the value, -1 for none or several) of the kernel's
    masks, computed by the array module ``xp`` (numpy, or CuPy on masks still on a GPU).

    >>> import numpy as np
    >>> masks = np.zeros((1, 2, 2), dtype=np.uint64)
    >>> masks[0, 0, 1], masks[0, 1, 0] = 1 << 36, 0b11
    >>> goal_table(np, masks).tolist()
    [[100, -1]]
    """
    low = goal_masks[:, :, 0]
    high = goal_masks[:, :, 1]
    one = xp.uint64(1)
    low_single = (low != 0) & ((low & (low - one)) == 0) & (high == 0)
    high_single = (high != 0) & ((high & (high - one)) == 0) & (low == 0)
    # log2 of a power of two is exact in float64; elementwise throughout (no data-dependent
    # sizes), so that a GPU computes it without waiting on the host.
    low_value = xp.log2(xp.maximum(low, one).astype(xp.float64)).astype(xp.int64)
    high_value = 64 + xp.log2(xp.maximum(high, one).astype(xp.float64)).astype(xp.int64)
    return xp.where(low_single, low_value, xp.where(high_single, high_value, -1))
