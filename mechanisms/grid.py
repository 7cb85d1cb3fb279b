"""Releasing real values on a grid, the defence against Mironov's attack on floating-point noise.

Mironov ("On Significance of the Least Significant Bits for Differential Privacy", CCS 2012) showed that
x + (a floating-point Laplace draw) is not ε-DP for any ε: which doubles can come out depends on x.  The fix
(snapping; OpenDP and Google's library release on a grid of granularity 2^k) used here: the input is rounded to
a grid of step g, a power of two, and the noise is an exact integer draw (:mod:`mechanisms.exact_sampling`), so
the output n·g is an exact double whose law is exactly the stated one — the float operations are exact (n·g
with |n| < 2^53 and g a power of two).

Rounding moves an input by at most g/2, so neighbours x, x' with |x − x'| ≤ Δ round to grid points at most
Δ + g apart (exactly Δ/g steps when they are on the grid): the noise is calibrated to Δ + g, one grid step more,
which costs a fraction g/Δ of ε — at most 2^−20 with the default grid g = the largest power of two
≤ Δ·2^−20·min(1, 1/ε) — and its scale is rounded up to whole grid steps, which costs at most as much again.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, check_real

from .noise import as_float_input

__all__ = ["GRID_BITS", "default_grid", "check_grid", "to_grid", "from_grid", "MAX_GRID_INDEX", "units_at_least"]

#: the default grid is 2^−GRID_BITS of the sensitivity (rounded down to a power of two)
GRID_BITS = 20
#: grid indices stay below this in absolute value, so that n·g is an exact double
MAX_GRID_INDEX = 1 << 52


def default_grid(sensitivity: float, epsilon: float = 1.0) -> float:
    """The largest power of two ≤ Δ·2^−GRID_BITS·min(1, 1/ε): the noise then spans at least 2^GRID_BITS grid
    steps, so rounding its scale up to whole steps costs at most a fraction 2^−GRID_BITS of ε, at any ε."""
    m, e = math.frexp(check_real("sensitivity", sensitivity, lower=0.0, lower_open=True))  # Δ = m·2^e, m ∈ [1/2, 1)
    eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
    finer = max(0, math.ceil(math.log2(eps))) if eps > 1 else 0
    return math.ldexp(1.0, e - 1 - GRID_BITS - finer)


def check_grid(grid) -> float:
    g = check_real("grid", grid, lower=0.0, lower_open=True)
    if math.frexp(g)[0] != 0.5 or g < math.ldexp(1.0, -1000):
        raise InvalidArgument(f"grid={grid!r} must be a power of two (such as 2**-20), not subnormal")
    return g


def to_grid(x, g: float) -> np.ndarray:
    """The grid index round(x/g) of every entry (x/g is exact: g is a power of two), as int64."""
    a = as_float_input(x) / g
    if not (np.abs(a) < MAX_GRID_INDEX / 2).all():
        raise InvalidArgument(f"input {np.asarray(x).tolist()!r} is too large for the grid {g!r}: its index must "
                              f"stay below 2^51 (give a coarser --grid)")
    return np.rint(a).astype(np.int64)


def from_grid(n: np.ndarray, g: float) -> np.ndarray:
    """n·g as exact doubles (|n| < 2^52 checked)."""
    n = np.asarray(n, dtype=np.int64)
    if n.size and np.abs(n).max() >= MAX_GRID_INDEX:
        raise InvalidArgument("an output left the grid's exact range (|n| >= 2^52): give a coarser --grid")
    return n.astype(float) * g


def units_at_least(value: Fraction) -> int:
    """⌈value⌉ for a positive rational: a noise scale in grid steps, rounded to the safe (larger) side."""
    return max(1, math.ceil(value))
