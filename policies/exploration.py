"""The exploration level of the index policies.

f(n) = a·ln n + c·ln ln n, used as f⁺ = max(f, 0) (f < 0 on (1, 2.166) when c = 3: the AAAI 2023 paper's
Theorem 1 level f(t ∧ w) is negative at t ∧ w = 2, claims G-F2).  n is the number of completed rounds (the
paper's t in Algorithm 1, where the index computed at t decides round t + 1); sliding-window policies use
n ∧ w.  a = 1 for the kl policies (c = 0 by default, c = 3 for SW-KLUCB-CF as its Theorem 1 states); UCB1's
bonus √(2 ln n / N) is the Hoeffding bound √(f/(2N)) with a = 4; sliding-window UCB's √(ξ ln(n ∧ w)/N) has
a = 2ξ.
"""

from __future__ import annotations

import math

from privcheck.core.jit import njit

__all__ = ["level"]


@njit(cache=True)
def level(n, a, c):
    """f⁺(n) = max(0, a ln n + c ln ln n), 0 for n ≤ 1."""
    if n <= 1:
        return 0.0
    ln = math.log(n)
    f = a * ln
    if c != 0.0:
        if ln <= 0.0:
            return 0.0
        f += c * math.log(ln)
    return max(f, 0.0)
