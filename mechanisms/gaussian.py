"""The Gaussian mechanism and its three calibrations.

M(x) = x + N(0, σ² I), Δ the l2-sensitivity.

* zCDP (Bun & Steinke, "Concentrated Differential Privacy", 2016): D_α(N(x, σ²) ‖ N(x', σ²)) = α‖x−x'‖²/(2σ²),
  so σ = Δ/√(2ρ) gives ρ-zCDP (:meth:`Gaussian.for_zcdp`).
* classic (Dwork & Roth, Thm A.1): σ = Δ √(2 ln(1.25/δ))/ε gives (ε, δ)-DP for ε < 1 (:meth:`Gaussian.classic`).
* analytic (Balle & Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018): the exact
  curve δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (:func:`gaussian_delta`); :meth:`Gaussian.analytic`
  finds the smallest σ (rounded up) with δ(ε) ≤ δ.

Checked in ``proofs.conversions``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import ApproxDP, InvalidArgument, ReplaceOne, ZCDP, check_real, round_up

from .calibration import sqrt_div_up
from .noise import as_float_input, scalar_center

__all__ = ["Gaussian", "gaussian_delta"]


def gaussian_delta(epsilon: float, sigma: float, sensitivity: float = 1.0) -> float:
    """Exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Thm 8)."""
    from scipy.special import log_ndtr  # scipy loads on use, not when a policy imports the mechanisms

    s = sensitivity / sigma
    a = s / 2 - epsilon / s
    b = -s / 2 - epsilon / s
    la, lb = float(log_ndtr(a)), float(log_ndtr(b))
    # Φ(a) − e^ε Φ(b) = Φ(a)(1 − e^(ε + ln Φ(b) − ln Φ(a))): no cancellation, no e^ε
    return max(0.0, math.exp(la) * -math.expm1(min(0.0, epsilon + lb - la)))


def _gaussian_delta_mp(epsilon: float, sigma: float, sensitivity: float):
    """δ(ε) at 200 bits, for checking a calibration (mpmath's normal CDF is accurate far beyond a double)."""
    import mpmath as mp

    with mp.workprec(200):
        s = mp.mpf(sensitivity) / mp.mpf(sigma)
        e = mp.mpf(epsilon)
        return mp.ncdf(s / 2 - e / s) - mp.exp(e) * mp.ncdf(-s / 2 - e / s)


class Gaussian:
    """x + N(0, σ²) per coordinate, with a claim fixed by its calibration.

    Build with :meth:`for_zcdp`, :meth:`classic` or :meth:`analytic`; ``Gaussian(sigma)`` claims the
    ρ = Δ²/(2σ²)-zCDP that σ gives.  The relation is ``ReplaceOne('l2', sensitivity)``.
    """

    name = "gaussian"
    sampler = "float"  # floating-point noise: not protected against bit-level attacks (no grid form yet)
    example_input = 0.0

    def __init__(self, sigma: float, sensitivity: float = 1.0, claim=None):
        self.sigma = check_real("sigma", sigma, lower=0.0, lower_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        self.relation = ReplaceOne("l2", self.sensitivity)
        self.claim = claim if claim is not None else ZCDP(round_up(self.rho), self.relation)

    @property
    def rho(self) -> float:
        return self.sensitivity ** 2 / (2 * self.sigma ** 2)

    @classmethod
    def for_zcdp(cls, rho: float, sensitivity: float = 1.0) -> "Gaussian":
        rho = check_real("rho", rho, lower=0.0, lower_open=True)
        # the smallest double σ with Δ²/(2σ²) ≤ ρ exactly: the mechanism satisfies the ρ it was calibrated from
        sigma = sqrt_div_up(Fraction(sensitivity) ** 2, 2 * Fraction(rho))
        return cls(sigma, sensitivity, ZCDP(rho, ReplaceOne("l2", sensitivity)))

    @classmethod
    def classic(cls, epsilon: float, delta: float, sensitivity: float = 1.0) -> "Gaussian":
        eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        delta = check_real("delta", delta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        if eps >= 1:
            raise InvalidArgument(f"epsilon={eps!r} must be < 1 for the classic Gaussian calibration (use analytic)")
        sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
        return cls(sigma, sensitivity, ApproxDP(eps, delta, ReplaceOne("l2", sensitivity)))

    @classmethod
    def analytic(cls, epsilon: float, delta: float, sensitivity: float = 1.0) -> "Gaussian":
        eps = check_real("epsilon", epsilon, lower=0.0)
        delta = check_real("delta", delta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        lo, hi = 1e-6 * sensitivity, sensitivity
        while gaussian_delta(eps, hi, sensitivity) > delta:
            lo, hi = hi, 2 * hi
        for _ in range(200):  # δ(ε) decreases in σ: keep hi feasible
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:
                break
            if gaussian_delta(eps, mid, sensitivity) > delta:
                lo = mid
            else:
                hi = mid
        sigma = round_up(hi)
        while _gaussian_delta_mp(eps, sigma, sensitivity) * (1 + 1e-40) > delta:  # certify at 200 bits
            sigma = round_up(sigma, 1e-12)
        return cls(sigma, sensitivity, ApproxDP(eps, delta, ReplaceOne("l2", sensitivity)))

    def delta_for_epsilon(self, epsilon: float, shift: float | None = None) -> float:
        return gaussian_delta(epsilon, self.sigma, self.sensitivity if shift is None else shift)

    def renyi(self, order: float, shift: float | None = None) -> float:
        s = self.sensitivity if shift is None else shift
        return order * s ** 2 / (2 * self.sigma ** 2)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        c = as_float_input(x)
        return c + self.sigma * rng.standard_normal((size,) + c.shape)

    def logpdf(self, x, o):
        z = (np.asarray(o, dtype=float) - scalar_center(x)) / self.sigma
        return -0.5 * z * z - math.log(self.sigma * math.sqrt(2 * math.pi))

    def logcdf(self, x, o):
        from scipy.special import log_ndtr

        return log_ndtr((np.asarray(o, dtype=float) - scalar_center(x)) / self.sigma)

    def logsf(self, x, o):
        from scipy.special import log_ndtr

        return log_ndtr((scalar_center(x) - np.asarray(o, dtype=float)) / self.sigma)

    def __repr__(self):
        return f"Gaussian(sigma={self.sigma!r}, sensitivity={self.sensitivity!r})"
