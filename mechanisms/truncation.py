"""Truncated mean with Laplace noise, for heavy-tailed data.

x̃_i = x_i · 1{|x_i| ≤ B}; the mean of R truncated records changes by at most 2B/R when one record is
replaced (x̃ ∈ [−B, B], attained when B becomes −B), so releasing mean(x̃) + Lap(2B/(Rε)) is ε-DP under
``ReplaceRecord()`` whatever the records are (Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally)
Differentially Private Heavy-tailed Multi-Armed Bandits", Algorithm 3; claims T-SE4, T-SE5).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, PureDP, ReplaceRecord, check_real, round_up

from .calibration import div_up
from .grid import LatticeLaplace, check_grid, default_grid, laplace_steps, to_grid
from .noise import as_float_input, laplace_logcdf

__all__ = ["truncate", "TruncatedMean", "GridTruncatedMean", "mean_sensitivity"]


def mean_sensitivity(bound: float, n_records: int) -> Fraction:
    """How far the float mean of R truncated records moves when one is replaced: a sum of R doubles in [−B, B]
    divided by R is within R·u·B of the exact mean, so two centres differ by at most (2B/R)(1 + R²u)."""
    n = int(n_records)
    return Fraction(2) * Fraction(bound) / n * (1 + Fraction(2 * n * n, 2**52))


def truncate(x, bound) -> np.ndarray:
    """x · 1{|x| ≤ bound} elementwise (records beyond the bound become 0, not ±bound)."""
    x = np.asarray(x, dtype=float)
    return np.where(np.abs(x) <= bound, x, 0.0)


class TruncatedMean:
    """mean(x · 1{|x| ≤ B}) + Lap(2B/(Rε)) over a list of R records; pure ε-DP under ``ReplaceRecord()`` — with
    floating-point noise (``rng.laplace``): not protected against bit-level attacks; :class:`GridTruncatedMean`
    is."""

    name = "truncated-mean"
    sampler = "float"  # floating-point noise: not protected against bit-level attacks (no grid form yet)
    example_input = (0.5, -0.25, 1.0, 0.0)

    def __init__(self, epsilon: float, bound: float):
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.bound = check_real("bound", bound, lower=0.0, lower_open=True)

    @property
    def claim(self) -> PureDP:
        return PureDP(round_up(self.epsilon), ReplaceRecord())

    def _records(self, x) -> np.ndarray:
        a = as_float_input(x)
        if a.ndim != 1 or a.size == 0:
            raise InvalidArgument(f"input {a.tolist()!r} must be a non-empty list of records")
        return a

    def scale(self, n_records: int) -> float:
        """2B/(Rε), rounded up, for the float mean (:func:`mean_sensitivity`)."""
        return div_up(mean_sensitivity(self.bound, n_records), Fraction(self.epsilon))

    def _center(self, x) -> tuple[float, float]:
        r = self._records(x)
        return float(truncate(r, self.bound).mean()), self.scale(r.size)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        c, b = self._center(x)
        return c + rng.laplace(0.0, b, size)

    def logpdf(self, x, o):
        c, b = self._center(x)
        return -np.abs(np.asarray(o, dtype=float) - c) / b - math.log(2 * b)

    def logcdf(self, x, o):
        c, b = self._center(x)
        return laplace_logcdf((np.asarray(o, dtype=float) - c) / b)

    def logsf(self, x, o):
        c, b = self._center(x)
        return laplace_logcdf((c - np.asarray(o, dtype=float)) / b)

    def __repr__(self):
        return f"TruncatedMean(epsilon={self.epsilon!r}, bound={self.bound!r})"


class GridTruncatedMean:
    """The truncated mean on a grid: its float centre rounded to a power-of-two grid g, plus g times an exact
    discrete Laplace draw of integer scale t = ⌈(Δ_R/g + 1)/ε⌉ with Δ_R = :func:`mean_sensitivity` (the centres
    of neighbours are at most Δ_R apart before rounding, Δ_R/g + 1 steps after); pure ε-DP under
    ``ReplaceRecord()``.  The grid is ``grid``, or by default the largest power of two ≤ Δ_R·2^−20·min(1, 1/ε) for
    R records (R is the same for neighbours under replacement).  The exact face is the step CDF."""

    name = "truncated-mean"
    sampler = "exact"
    example_input = TruncatedMean.example_input

    def __init__(self, epsilon: float, bound: float, grid: float | None = None):
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.bound = check_real("bound", bound, lower=0.0, lower_open=True)
        self.fixed_grid = None if grid is None else check_grid(grid)

    @property
    def claim(self) -> PureDP:
        return PureDP(self.epsilon, ReplaceRecord())

    def lattice(self, n_records: int) -> LatticeLaplace:
        """The grid and noise for R records."""
        sens = mean_sensitivity(self.bound, n_records)
        g = self.fixed_grid or default_grid(float(sens), self.epsilon)
        return LatticeLaplace(laplace_steps(sens, g, self.epsilon), g)

    def _center(self, x) -> tuple[int, LatticeLaplace]:
        a = as_float_input(x)
        if a.ndim != 1 or a.size == 0:
            raise InvalidArgument(f"input {a.tolist()!r} must be a non-empty list of records")
        lat = self.lattice(a.size)
        return int(to_grid(float(truncate(a, self.bound).mean()), lat.grid)), lat

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        k, lat = self._center(x)
        return lat.sample(k, rng, size)

    def logcdf(self, x, o):
        k, lat = self._center(x)
        return lat.logcdf(k, o)

    def logsf(self, x, o):
        k, lat = self._center(x)
        return lat.logsf(k, o)

    def __repr__(self):
        return f"GridTruncatedMean(epsilon={self.epsilon!r}, bound={self.bound!r})"
