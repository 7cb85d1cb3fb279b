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
≤ Δ·2^−20·min(1, 1/ε) (for ε ≤ 2^20) — and its scale is rounded up to whole grid steps, which costs at most as
much again.  An exact sampler does not reach ε below 2^−44: its noise would span more grid steps than leave
room, within a double's exact range, for its tails.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, check_real

from .noise import as_float_input

__all__ = [
    "GRID_BITS",
    "default_grid",
    "check_grid",
    "to_grid",
    "from_grid",
    "MAX_GRID_INDEX",
    "units_at_least",
    "laplace_steps",
    "LatticeLaplace",
    "MAX_NOISE_STEPS",
]

#: the default grid is 2^−GRID_BITS of the sensitivity (rounded down to a power of two)
GRID_BITS = 20
#: grid indices stay below this in absolute value, so that n·g is an exact double
MAX_GRID_INDEX = 1 << 52
#: a noise scale is at most this many grid steps, so that a draw leaves the exact range with probability
#: below e^(−256) (2^52 = 2^8 scales)
MAX_NOISE_STEPS = 1 << 44


def default_grid(sensitivity: float, epsilon: float = 1.0) -> float:
    """The largest power of two ≤ Δ·2^−GRID_BITS·min(1, 1/ε), but no finer than Δ·2^−2·GRID_BITS (and, for ε
    below 2^(GRID_BITS − 43), coarser, so that the noise fits MAX_NOISE_STEPS): the noise then
    spans at least 2^GRID_BITS grid steps for ε up to 2^GRID_BITS, so rounding its scale up to whole steps costs
    at most a fraction 2^−GRID_BITS of ε (beyond, a larger fraction: the mechanism is then more private than it
    claims), while inputs up to 2^(51 − GRID_BITS)·Δ still fit the grid's exact range."""
    m, e = math.frexp(check_real("sensitivity", sensitivity, lower=0.0, lower_open=True))  # Δ = m·2^e, m ∈ [1/2, 1)
    eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
    finer = min(max(0, math.ceil(math.log2(eps))), GRID_BITS) if eps > 1 else 0
    # tiny ε: fewer steps per Δ, so that the noise, (Δ/g + 1)/ε steps, stays below 2^43 (at a cost in tightness)
    bits = min(GRID_BITS, max(-GRID_BITS, math.floor(math.log2(eps) + 43))) if eps < 1 else GRID_BITS
    return math.ldexp(1.0, e - 1 - bits - finer)


def check_grid(grid) -> float:
    g = check_real("grid", grid, lower=0.0, lower_open=True)
    if math.frexp(g)[0] != 0.5 or g < math.ldexp(1.0, -1000):
        raise InvalidArgument(f"grid={grid!r} must be a power of two (such as 2**-20), not subnormal")
    return g


def to_grid(x, g: float) -> np.ndarray:
    """The grid index round(x/g) of every entry (x/g is exact: g is a power of two), as int64."""
    a = as_float_input(x) / g
    if not (np.abs(a) < MAX_GRID_INDEX / 2).all():
        raise InvalidArgument(
            f"input {np.asarray(x).tolist()!r} is too large for the grid {g!r}: its index must "
            f"stay below 2^51 (give a coarser grid=)"
        )
    return np.rint(a).astype(np.int64)


def from_grid(n: np.ndarray, g: float) -> np.ndarray:
    """n·g as exact doubles (|n| < 2^52 checked)."""
    n = np.asarray(n, dtype=np.int64)
    if n.size and np.abs(n).max() >= MAX_GRID_INDEX:
        raise InvalidArgument("an output left the grid's exact range (|n| >= 2^52): give a coarser grid=")
    return n.astype(float) * g


def units_at_least(value: Fraction) -> int:
    """⌈value⌉ for a positive rational: a noise scale in grid steps, rounded to the safe (larger) side."""
    return max(1, math.ceil(value))


def laplace_steps(sensitivity, grid: float, epsilon) -> int:
    """The discrete Laplace scale t, in grid steps, for ε-DP of a value whose neighbours differ by at most
    ``sensitivity`` before rounding to the grid: ⌈(Δ/g + 1)/ε⌉ (the rounded values differ by at most Δ/g + 1
    steps), all in rationals."""
    t = units_at_least((Fraction(sensitivity) / Fraction(grid) + 1) / Fraction(epsilon))
    if t >= MAX_NOISE_STEPS:
        if Fraction(epsilon) * MAX_NOISE_STEPS <= 1:  # t ≥ 1/ε whatever the grid
            raise InvalidArgument(
                f"ε = {float(epsilon):g} is below what an exact grid sampler can hold (its noise "
                f'would span more than 2^44 grid steps on any grid): use sampler="float"'
            )
        raise InvalidArgument(f"the noise is {t:.3g} grid steps: too fine a grid for this ε (give a coarser grid=)")
    return t


class LatticeLaplace:
    """k·g + g·Z with Z an exact discrete Laplace draw of integer scale t: the sampler and the exact face (the
    step CDF, in closed form) that every grid mechanism with Laplace noise shares; k is the centre's grid index."""

    def __init__(self, t: int, grid: float):
        self.t, self.grid = int(t), float(grid)

    def sample(self, k, rng: np.random.Generator, size: int) -> np.ndarray:
        from .exact_sampling import discrete_laplace

        k = np.asarray(k, dtype=np.int64)
        z = discrete_laplace(rng, self.t, size * max(k.size, 1)).reshape((size,) + k.shape)
        return from_grid(k + z, self.grid)

    def _z(self, k: int, o) -> np.ndarray:
        with np.errstate(over="ignore"):  # o/g exact (g a power of two) or ±inf, which the CDFs read as such
            return np.floor(np.asarray(o, dtype=float) / self.grid) - float(k)

    def logcdf(self, k: int, o) -> np.ndarray:
        """ln P[k·g + g·Z ≤ o]: r^(−z)/(1 + r) below the centre, 1 − r^(z+1)/(1 + r) from it (r = e^(−1/t),
        z = ⌊o/g⌋ − k)."""
        z, t = self._z(k, o), float(self.t)
        l1r = math.log1p(math.exp(-1.0 / t))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # the branch not taken may be NaN
            return np.where(z < 0, z / t - l1r, np.log1p(-np.exp(-(z + 1) / t - l1r)))

    def logsf(self, k: int, o) -> np.ndarray:
        """ln P[k·g + g·Z > o]: r^(z+1)/(1 + r) from the centre, 1 − r^(−z)/(1 + r) below it."""
        z, t = self._z(k, o), float(self.t)
        l1r = math.log1p(math.exp(-1.0 / t))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return np.where(z >= 0, -(z + 1) / t - l1r, np.log1p(-np.exp(np.minimum(z, 0.0) / t - l1r)))
