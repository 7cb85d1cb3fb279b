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

from privcheck.core import (
    ApproxDP,
    ExactMethodUnavailable,
    GaussianDP,
    InvalidArgument,
    ReplaceOne,
    ZCDP,
    check_real,
    round_up,
)
from privcheck.core.enclosure import double_at_least

from .calibration import div_up, sqrt_div_up
from .exact_sampling import discrete_gaussian
from .grid import GRID_BITS, check_grid, from_grid, to_grid
from .noise import as_float_input, scalar_center

__all__ = ["Gaussian", "GridGaussian", "gaussian_delta", "discrete_gaussian_log_tail", "ceil_sqrt", "steps_for_shift"]


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
        return self.sensitivity**2 / (2 * self.sigma**2)

    @classmethod
    def for_zcdp(cls, rho: float, sensitivity: float = 1.0) -> "Gaussian":
        rho = check_real("rho", rho, lower=0.0, lower_open=True)
        # the smallest double σ with Δ²/(2σ²) ≤ ρ exactly: the mechanism satisfies the ρ it was calibrated from
        sigma = sqrt_div_up(Fraction(sensitivity) ** 2, 2 * Fraction(rho))
        return cls(sigma, sensitivity, ZCDP(rho, ReplaceOne("l2", sensitivity)))

    @classmethod
    def for_gdp(cls, mu: float, sensitivity: float = 1.0) -> "Gaussian":
        """σ = Δ/μ rounded up: x + N(0, σ²) is (Δ/σ)-GDP (Dong, Roth and Su, "Gaussian Differential Privacy",
        Theorem 2.7), as a real-valued mechanism."""
        mu = check_real("mu", mu, lower=0.0, lower_open=True)
        sigma = div_up(sensitivity, mu)
        return cls(sigma, sensitivity, GaussianDP(mu, ReplaceOne("l2", sensitivity)))

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
        return order * s**2 / (2 * self.sigma**2)

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


#: the grid Gaussian's noise spans 2^SIGMA_BITS to 2^(SIGMA_BITS + 1) grid steps per standard deviation: its exact
#: sampler then works in 64-bit integers, and the Euler–Maclaurin tails below are exact to far below a double
SIGMA_BITS = 26


def discrete_gaussian_log_tail(m, sigma: int) -> np.ndarray:
    """ln P[Z ≥ m] for the discrete Gaussian N_Z(0, σ²) of integer σ ≥ 2^16, at integers m (any sign).

    For m ≥ 1, Euler–Maclaurin to the third derivative: Σ_{z≥m} f(z) = I + f(m)(1/2 + m/(12s) + (3m/s² −
    m³/s³)/720) + R with f(z) = e^(−z²/(2s)), s = σ², I = ∫_m^∞ f = √(2πs) Φ(−m/σ), and |R| at most 1/720 of the
    integral of |f⁗| from m on, itself at most m³f/s³ + 9mf/s² + 12I/s² — relative to I below 1e-19 for
    m ≤ 64σ at σ ≥ 2^16 (f/I ≤ (m² + s)/(sm)); the normaliser is √(2πs)(1 + 2Σ_k e^(−2π²sk²)), the sum below
    e^(−2^33).  For m ≤ 0, 1 − P[Z ≥ 1 − m]."""
    from scipy.special import log_ndtr

    if sigma < 1 << 16:
        raise ExactMethodUnavailable("the discrete Gaussian's closed-form tails need σ >= 2^16 grid steps")
    m = np.asarray(m, dtype=float)
    s = float(sigma) * float(sigma)

    def upper(mm):
        log_i = log_ndtr(-mm / sigma)  # ln(I/√(2πs))
        corr = 0.5 + mm / (12 * s) + (3 * mm / (s * s) - mm**3 / (s**3)) / 720
        log_f = -mm * mm / (2 * s) - 0.5 * math.log(2 * math.pi * s)  # ln(f/√(2πs))
        near = log_i + np.log1p(corr * np.exp(log_f - log_i))
        # beyond 64σ (masses below e^−2048) the expansion no longer holds and ln f − ln I cancels: I ≤ Σ ≤ I + f
        # with f/I ≤ (m² + s)/(sm), the middle taken
        far = log_i + np.log1p(0.5 * (mm / s + 1.0 / mm))
        return np.where(mm <= 64.0 * sigma, near, far)

    pos = np.maximum(m, 1.0)
    neg = np.maximum(1.0 - m, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(m >= 1, upper(pos), np.log1p(-np.exp(upper(neg))))


def ceil_sqrt(n: int) -> int:
    """⌈√n⌉ for an integer n ≥ 0."""
    r = math.isqrt(n)
    return r + (r * r < n)


def steps_for_shift(shift: Fraction, rho) -> int:
    """The smallest integer σ (in grid steps) with shift²/(2σ²) ≤ ρ — the discrete Gaussian's zCDP bound for an
    integer shift of ℓ2 norm at most ``shift`` — in rationals."""
    return ceil_sqrt(math.ceil(Fraction(shift) ** 2 / (2 * Fraction(rho))))  # s² is whole: s² ≥ ⌈need⌉


def _vector_rho(claim) -> Fraction | None:
    """The zCDP level that makes vector releases meet ``claim``: ρ itself, ε/α for Rényi, and for (ε, δ) the ρ of
    Bun and Steinke's conversion ("Concentrated Differential Privacy", TCC 2016, Proposition 1.3: ρ-zCDP gives
    (ρ + 2√(ρ ln(1/δ)), δ)-DP), ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))² rounded down; None for a claim σ was not
    calibrated to (``sigma``)."""
    from privcheck.core import RenyiDP

    if isinstance(claim, ZCDP):
        return Fraction(claim.rho)
    if isinstance(claim, RenyiDP):
        return Fraction(claim.epsilon) / Fraction(claim.order)
    if isinstance(claim, ApproxDP) and claim.delta > 0:
        L = math.log(1.0 / claim.delta)
        rho = (math.sqrt(L + claim.epsilon) - math.sqrt(L)) ** 2
        return Fraction(rho) * (1 - Fraction(1, 2**40))  # below the float evaluation's error
    return None


class GridGaussian:
    """The Gaussian mechanism on a grid: round(x/g)·g + g·Z with Z ~ N_Z(0, σ²) the discrete Gaussian of integer σ
    grid steps (independently per coordinate for vectors, σ then from :meth:`steps_for`), drawn exactly from
    random integers (Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
    Algorithm 3 with t = σ).

    Rounded neighbours are at most D = ⌊Δ/g⌋ + 1 steps apart, and for an integer shift D the discrete Gaussian has
    D_α ≤ αD²/(2σ²) (their Theorem 4): ρ = D²/(2σ²)-zCDP.  Its (ε, δ) profile is their Theorem 7,
    δ(ε) = P[Z > εσ²/D − D/2] − e^ε P[Z > εσ²/D + D/2], computed from the tails above.  Build with
    :meth:`for_zcdp`, :meth:`for_renyi` or :meth:`for_approx` (the smallest integer σ meeting the claim); the grid is
    the largest power of two ≤ min(Δ·2^−20, σ_c·2^−26) for σ_c the continuous calibration (so that σ spans
    at least 2^26 steps), but no finer than σ_c·2^−38 (tiny ρ: σ within 2^40 steps).  The exact face is the step CDF
    of the discrete Gaussian."""

    name = "gaussian"
    sampler = "exact"
    example_input = 0.0

    def __init__(self, sigma_steps: int, grid: float, sensitivity: float = 1.0, claim=None):
        self.sigma_steps = int(sigma_steps)
        self.grid = check_grid(grid)
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        if not (1 << 16) <= self.sigma_steps < (1 << 40):
            raise InvalidArgument(
                f"σ = {self.sigma_steps} grid steps: the grid Gaussian needs 2^16 to 2^40 steps "
                f"(give another grid=; for ρ below about 1e-24, where even a shift of one step needs more, "
                f'use sampler="float")'
            )
        self.shift = math.floor(Fraction(self.sensitivity) / Fraction(self.grid)) + 1  # D
        self.rho_exact = Fraction(self.shift**2, 2 * self.sigma_steps**2)
        self.relation = ReplaceOne("l2", self.sensitivity)
        self.claim = claim if claim is not None else ZCDP(double_at_least(self.rho_exact), self.relation)
        self.sigma = self.sigma_steps * self.grid
        # the ρ a vector input's noise is calibrated to: the claim's when built for one; None (σ as given) otherwise
        self.vector_rho = None if claim is None else _vector_rho(claim)
        self._vector_steps: dict = {}

    @staticmethod
    def _grid(sensitivity: float, sigma_continuous: float) -> float:
        # σ at 2^26 steps or more, Δ at 2^20 or more, and σ at most about 2^38 steps (coarser for tiny ρ)
        ref = max(
            min(sensitivity * 2.0**-GRID_BITS, sigma_continuous * 2.0**-SIGMA_BITS),
            sigma_continuous * 2.0 ** -(SIGMA_BITS + 12),
        )
        g = math.ldexp(1.0, math.frexp(ref)[1] - 1)
        if not math.ldexp(1.0, -1000) <= g < math.inf:
            raise InvalidArgument(
                f"σ = {sigma_continuous:g} at Δ = {sensitivity:g}: no exact grid holds this noise "
                f'(its step would be {g:g}); use sampler="float"'
            )
        return g

    @staticmethod
    def _steps_for_rho(rho, sensitivity, grid) -> int:
        return steps_for_shift(math.floor(Fraction(sensitivity) / Fraction(grid)) + 1, rho)  # D = ⌊Δ/g⌋ + 1

    @classmethod
    def for_zcdp(cls, rho: float, sensitivity: float = 1.0, grid: float | None = None) -> "GridGaussian":
        rho = check_real("rho", rho, lower=0.0, lower_open=True)
        sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        g = cls._grid(sensitivity, sensitivity / math.sqrt(2 * rho)) if grid is None else check_grid(grid)
        return cls(cls._steps_for_rho(rho, sensitivity, g), g, sensitivity, ZCDP(rho, ReplaceOne("l2", sensitivity)))

    @classmethod
    def for_renyi(cls, order: float, epsilon: float, sensitivity: float = 1.0, grid=None) -> "GridGaussian":
        """D_α ≤ ε from ρ = ε/α (D_α ≤ αρ)."""
        from privcheck.core import RenyiDP

        rho = Fraction(check_real("epsilon", epsilon, lower=0.0, lower_open=True)) / Fraction(order)
        g = cls._grid(sensitivity, sensitivity / math.sqrt(2 * float(rho))) if grid is None else check_grid(grid)
        return cls(
            cls._steps_for_rho(rho, sensitivity, g),
            g,
            sensitivity,
            RenyiDP(order, epsilon, ReplaceOne("l2", sensitivity)),
        )

    @classmethod
    def for_gdp(cls, mu: float, sensitivity: float = 1.0, grid=None) -> "GridGaussian":
        """σ (grid steps) with D/σ ≤ μ(1 − 2^−20), stating the ρ = D²/(2σ²)-zCDP it provably has.

        The discrete Gaussian is not exactly (D/σ)-GDP: its μ is about (D/σ)(1 + 1/(24σ²)) — it behaves like a
        continuous Gaussian of variance σ² − 1/12 (measured in mpmath for σ = 2 to 40 steps, where the excess
        times σ² tends to 1/24, ``tests/test_tradeoff.py``); σ = 1, D = 1 has μ = 1.0458.  At σ ≥ 2^16 steps the
        excess is below 1e-11, and the margin 2^−20 covers it ten thousand times over; as that bound is measured,
        not proved, the μ claim is the one under test, not the mechanism's own."""
        mu = check_real("mu", mu, lower=0.0, lower_open=True)
        sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        g = cls._grid(sensitivity, sensitivity / mu) if grid is None else check_grid(grid)
        shift = math.floor(Fraction(sensitivity) / Fraction(g)) + 1
        steps = math.ceil(Fraction(shift) / (Fraction(mu) * (1 - Fraction(1, 2**20))))
        rho = double_at_least(Fraction(shift**2, 2 * steps**2))
        return cls(steps, g, sensitivity, ZCDP(rho, ReplaceOne("l2", sensitivity)))

    def delta_for_epsilon(self, epsilon: float) -> float:
        """δ(ε) of the discrete Gaussian at integer shift D (Canonne, Kamath and Steinke, Theorem 7), in logs."""
        D, s = self.shift, self.sigma_steps
        a = Fraction(epsilon) * s * s / D - Fraction(D, 2)
        b = Fraction(epsilon) * s * s / D + Fraction(D, 2)
        la = float(discrete_gaussian_log_tail(math.floor(a) + 1, s))  # P[Z > a] = P[Z ≥ ⌊a⌋ + 1]
        lb = float(discrete_gaussian_log_tail(math.floor(b) + 1, s))
        return max(0.0, math.exp(la) * -math.expm1(min(0.0, epsilon + lb - la)))

    @classmethod
    def for_approx(cls, epsilon: float, delta: float, sensitivity: float = 1.0, grid=None) -> "GridGaussian":
        """The smallest integer σ (grid steps) with δ(ε) ≤ δ by Theorem 7 (with a relative margin of 1e-9 over the
        float evaluation of the tails)."""
        eps = check_real("epsilon", epsilon, lower=0.0)
        delta = check_real("delta", delta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        sigma_c = Gaussian.analytic(eps, delta, sensitivity).sigma
        g = cls._grid(sensitivity, sigma_c) if grid is None else check_grid(grid)
        claim = ApproxDP(eps, delta, ReplaceOne("l2", sensitivity))
        ok = lambda steps: cls(steps, g, sensitivity, claim).delta_for_epsilon(eps) * (1 + 1e-9) <= delta  # noqa: E731
        lo, hi = max(1 << 16, int(sigma_c / g * 0.5)), max(1 << 16, int(sigma_c / g * 2) + 2)
        while not ok(hi):
            lo, hi = hi, 2 * hi
        while hi - lo > 1:  # δ(ε) decreases in σ: keep hi feasible
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return cls(hi, g, sensitivity, claim)

    def _k(self, x) -> int:
        return int(to_grid(scalar_center(x), self.grid))

    def steps_for(self, dim: int) -> int:
        """σ in grid steps for a d-vector input: rounded neighbours differ by an integer vector of ℓ2 norm at most
        Δ/g + √d, and independent discrete Gaussians keep D_α ≤ α‖μ‖²/(2σ²) for integer shifts μ (Rényi
        divergences add over independent coordinates, each α·μ_i²/(2σ²) by Canonne, Kamath and Steinke, Theorem
        4), so σ² ≥ (Δ/g + ⌈√d⌉)²/(2ρ) for the claim's
        ρ (:func:`_vector_rho`); never below the scalar σ.  With ``sigma`` given (no calibration), σ as given."""
        if self.vector_rho is None:
            return self.sigma_steps
        if dim not in self._vector_steps:
            steps = steps_for_shift(Fraction(self.sensitivity) / Fraction(self.grid) + ceil_sqrt(dim), self.vector_rho)
            if steps >= 1 << 40:
                raise InvalidArgument(
                    f"a {dim}-vector needs σ of {steps} grid steps at this ρ (above 2^40): give a "
                    f'coarser grid=, or sampler="float"'
                )
            self._vector_steps[dim] = max(steps, self.sigma_steps)
        return self._vector_steps[dim]

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        a = as_float_input(x)
        k = to_grid(a, self.grid)
        s = self.sigma_steps if a.ndim == 0 else self.steps_for(int(a.size))
        z = discrete_gaussian(rng, Fraction(s * s), size * max(a.size, 1), t=s).reshape((size,) + a.shape)
        return from_grid(k + z, self.grid)

    def logsf(self, x, o):
        with np.errstate(over="ignore"):
            m = np.floor(np.asarray(o, dtype=float) / self.grid) - self._k(x) + 1  # P[Z ≥ ⌊o/g⌋ − k + 1]
        return discrete_gaussian_log_tail(m, self.sigma_steps)

    def logcdf(self, x, o):
        with np.errstate(over="ignore"):
            m = self._k(x) - np.floor(np.asarray(o, dtype=float) / self.grid)  # P[Z ≤ z] = P[Z ≥ −z]
        return discrete_gaussian_log_tail(m, self.sigma_steps)

    def __repr__(self):
        return f"GridGaussian(sigma_steps={self.sigma_steps}, grid={self.grid!r}, sensitivity={self.sensitivity!r})"
