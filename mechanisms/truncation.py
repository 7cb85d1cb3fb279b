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
from .noise import as_float_input, laplace_logcdf

__all__ = ["truncate", "TruncatedMean"]


def truncate(x, bound) -> np.ndarray:
    """x · 1{|x| ≤ bound} elementwise (records beyond the bound become 0, not ±bound)."""
    x = np.asarray(x, dtype=float)
    return np.where(np.abs(x) <= bound, x, 0.0)


class TruncatedMean:
    """mean(x · 1{|x| ≤ B}) + Lap(2B/(Rε)) over a list of R records; pure ε-DP under ``ReplaceRecord()``."""

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
        """2B/(Rε), rounded up, for the float mean: a sum of R doubles in [−B, B] divided by R is within R·u·B of
        the exact mean, so two centres differ by at most (2B/R)(1 + R²u); the scale covers that and rounds up."""
        n = int(n_records)
        sens = Fraction(2) * Fraction(self.bound) / n * (1 + Fraction(2 * n * n, 2 ** 52))
        return div_up(sens, Fraction(self.epsilon))

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
