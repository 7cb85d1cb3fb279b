"""The Laplace mechanism.

M(x) = x + Lap(b)^d with b = Δ/ε, where Δ is the l1-sensitivity of the query whose answer x is.  The
density ratio between neighbours is at most e^(‖x − x'‖₁/b) ≤ e^ε: pure ε-DP under ``ReplaceOne('l1', Δ)``.

Rényi divergence (Mironov, "Rényi Differential Privacy", 2017, Table II), shift Δ, scale b, α > 1:

    D_α = 1/(α−1) ln[ α/(2α−1) e^((α−1)Δ/b) + (α−1)/(2α−1) e^(−αΔ/b) ]

(b = Δ: D_2 = 0.6191, D_8 = 0.9102), implemented in :meth:`Laplace.renyi` and checked in
``proofs.conversions``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, PureDP, ReplaceOne, check_real, round_up
from privcheck.core.enclosure import double_at_least

from .calibration import div_up
from .grid import MAX_NOISE_STEPS, LatticeLaplace, check_grid, default_grid, laplace_steps, to_grid, units_at_least
from .noise import as_float_input, laplace_logcdf, scalar_center

__all__ = ["Laplace", "GridLaplace", "laplace_renyi"]


def laplace_renyi(order: float, shift_over_scale: float) -> float:
    """D_α(Lap(0, b) ‖ Lap(s, b)) with t = s/b (Mironov 2017)."""
    a, t = float(order), float(shift_over_scale)
    if a == 1.0:
        return t + math.exp(-t) - 1.0
    terms = [math.log(a / (2 * a - 1)) + (a - 1) * t, math.log((a - 1) / (2 * a - 1)) - a * t]
    m = max(terms)
    return (m + math.log(sum(math.exp(v - m) for v in terms))) / (a - 1)


class Laplace:
    """x + Laplace noise of scale b per coordinate, drawn in floating point (``rng.laplace``): the textbook
    mechanism, kept as the reference the grid form is checked against and as a demonstration — it is **not**
    protected against bit-level attacks (Mironov 2012); :class:`GridLaplace` is.

    Give ``epsilon`` (b = Δ/ε) or ``scale`` (then the claim is ε = Δ/b).  Claim: pure ε-DP under
    ``ReplaceOne('l1', sensitivity)``, ε rounded up (of the real-valued mechanism).
    """

    name = "laplace"
    example_input = 0.0
    sampler = "float"

    def __init__(self, epsilon: float | None = None, sensitivity: float = 1.0, scale: float | None = None):
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        if (epsilon is None) == (scale is None):
            raise InvalidArgument("give exactly one of epsilon and scale")
        if scale is None:
            eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
            self.scale = div_up(self.sensitivity, eps)  # Δ/scale ≤ ε exactly: the mechanism satisfies its ε
        else:
            self.scale = check_real("scale", scale, lower=0.0, lower_open=True)
        self.epsilon = self.sensitivity / self.scale

    @property
    def claim(self) -> PureDP:
        return PureDP(round_up(self.epsilon), ReplaceOne("l1", self.sensitivity))

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        c = as_float_input(x)
        return c + rng.laplace(0.0, self.scale, size=(size,) + c.shape)

    def logpdf(self, x, o):
        return -np.abs(np.asarray(o, dtype=float) - scalar_center(x)) / self.scale - math.log(2 * self.scale)

    def logcdf(self, x, o):
        return laplace_logcdf((np.asarray(o, dtype=float) - scalar_center(x)) / self.scale)

    def logsf(self, x, o):
        return laplace_logcdf((scalar_center(x) - np.asarray(o, dtype=float)) / self.scale)

    def renyi(self, order: float, shift: float | None = None) -> float:
        """D_α between outputs on inputs ``shift`` apart (default: the sensitivity)."""
        s = self.sensitivity if shift is None else shift
        return laplace_renyi(order, s / self.scale)

    def __repr__(self):
        return f"Laplace(scale={self.scale!r}, sensitivity={self.sensitivity!r})"


class GridLaplace:
    """The Laplace mechanism on a grid: round(x/g)·g + g·Z with Z an exact discrete Laplace draw of integer scale
    t (P[Z = z] ∝ e^(−|z|/t)), per coordinate — outputs are exact doubles n·g (see :mod:`mechanisms.grid`).
    Its ε is the exact rational (Δ/g + 1)/t, claimed as the smallest double at least it.

    Give ``epsilon`` (t = ⌈(Δ/g + 1)/ε⌉: the rounded inputs are at most Δ + g apart) or ``scale`` (t = ⌈b/g⌉,
    then the claim is ε = (Δ/g + 1)/t); ``grid`` g, a power of two (default: the largest ≤ Δ·2^−20·min(1, 1/ε)).
    The pmfs of neighbours differ by a factor of at most e^((Δ/g + 1)/t) ≤ e^ε: pure ε-DP under
    ``ReplaceOne('l1', sensitivity)``.  The exact face is the lattice distribution's step CDF.
    """

    name = "laplace"
    example_input = 0.0
    sampler = "exact"

    def __init__(
        self,
        epsilon: float | None = None,
        sensitivity: float = 1.0,
        scale: float | None = None,
        grid: float | None = None,
    ):
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        if (epsilon is None) == (scale is None):
            raise InvalidArgument("give exactly one of epsilon and scale")
        if scale is None:
            eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        else:
            scale = check_real("scale", scale, lower=0.0, lower_open=True)
            eps = self.sensitivity / scale
        self.grid = default_grid(self.sensitivity, eps) if grid is None else check_grid(grid)
        if scale is None:
            self.t = laplace_steps(self.sensitivity, self.grid, eps)
        else:
            self.t = units_at_least(Fraction(scale) / Fraction(self.grid))
            if self.t >= MAX_NOISE_STEPS:
                raise InvalidArgument(
                    f"the noise is {self.t:.3g} grid steps: too fine a grid for this scale (give "
                    f'a coarser grid=, or sampler="float")'
                )
        self.noise = LatticeLaplace(self.t, self.grid)
        self.scale = self.t * self.grid  # exact: t < 2^52, g a power of two
        self.epsilon_exact = (Fraction(self.sensitivity) / Fraction(self.grid) + 1) / self.t
        self.epsilon = float(self.epsilon_exact)

    @property
    def claim(self) -> PureDP:
        return PureDP(double_at_least(self.epsilon_exact), ReplaceOne("l1", self.sensitivity))

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.noise.sample(to_grid(x, self.grid), rng, size)

    def _k(self, x) -> int:
        return int(to_grid(scalar_center(x), self.grid))

    def logcdf(self, x, o):
        return self.noise.logcdf(self._k(x), o)

    def logsf(self, x, o):
        return self.noise.logsf(self._k(x), o)

    def __repr__(self):
        return f"GridLaplace(t={self.t!r}, grid={self.grid!r}, sensitivity={self.sensitivity!r})"
