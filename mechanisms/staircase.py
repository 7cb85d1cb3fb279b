"""Staircase mechanisms: the finite-alphabet staircase pattern and the Geng–Viswanath staircase noise.

**Staircase pattern** (Kairouz, Oh & Viswanath, "Extremal Mechanisms for Local Differential Privacy",
NeurIPS 2014): a channel Q[x, y] = θ_y · e^(ε S[x, y]) with a 0/1 pattern matrix S, so that every entry of an
output column is θ_y or θ_y e^ε: every column ratio is 1 or e^(±ε).  The weights θ ≥ 0 are solved so that
rows sum to 1.  With S the identity and k inputs this is k-ary randomized response; at k = 2 it is the
optimal binary randomized response.

**Staircase noise** (Geng & Viswanath, "The Optimal Noise-Adding Mechanism in Differential Privacy", 2016):
for a real query of sensitivity Δ, output x + Z with density, b = e^(−ε),

    f(z) = a(γ) b^k        for |z| ∈ [kΔ, (k + γ)Δ),
    f(z) = a(γ) b^(k+1)    for |z| ∈ [(k + γ)Δ, (k + 1)Δ),   k = 0, 1, 2, …
    a(γ) = (1 − b) / (2Δ (γ + (1 − γ) b)),

with γ ∈ [0, 1]; γ* = 1/(1 + e^(ε/2)) minimises E|Z|.  Shifting by at most Δ changes the density by at most
a factor e^ε: pure ε-DP under ``ReplaceOne(l1, Δ)`` for scalar inputs.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument, PureDP, ReplaceOne, check_real, round_up

from .calibration import at_most, exp_up
from .exact_sampling import bernoulli_exp
from .finite import FiniteChannel
from .grid import MAX_NOISE_STEPS, check_grid, default_grid, from_grid, to_grid

__all__ = ["StaircasePattern", "StaircaseNoise", "GridStaircase"]


class StaircasePattern(FiniteChannel):
    """Finite staircase-pattern channel Q[x, y] = θ_y e^(ε S[x, y]).

    Parameters
    ----------
    pattern : (k, m) array of 0/1.  Default: the identity (k-ary randomized response).
    epsilon : ε ≥ 0.
    """

    name = "staircase-pattern"

    def __init__(self, epsilon: float, k: int = 2, pattern=None):
        self.epsilon_param = check_real("epsilon", epsilon, lower=0.0)
        S = np.eye(int(k)) if pattern is None else np.asarray(pattern)
        if S.ndim != 2 or S.shape[0] < 2 or not np.isin(S, (0, 1)).all():
            raise InvalidArgument("pattern must be a k×m matrix of 0s and 1s with k >= 2")
        # solved scaled by e^(−ε) (entries e^(−ε(1 − S)) ∈ (0, 1]) so that no ε overflows: θ' = θ e^ε
        with np.errstate(under="ignore"):
            A = np.exp(-self.epsilon_param * (1 - S.astype(float)))  # rows: inputs, columns: outputs
        theta, *_ = np.linalg.lstsq(A, np.ones(S.shape[0]), rcond=None)
        if np.any(theta < -1e-12) or np.max(np.abs(A @ theta - 1)) > 1e-9:
            raise InvalidArgument("this staircase pattern admits no channel (no θ >= 0 makes every row sum to 1)")
        self.pattern = S.astype(int)
        # in log space, ln Q[x, y] = ε S[x, y] + ln θ_y: the entries with S = 1 are rounded down so that every
        # column ratio of the doubles is at most e^ε (the channel that runs satisfies its claim exactly)
        with np.errstate(divide="ignore"):
            lt = np.log(np.clip(theta, 0, None)) - self.epsilon_param
        logQ = np.empty(S.shape)
        for (i, j), s_ij in np.ndenumerate(S):
            logQ[i, j] = (
                lt[j]
                if s_ij == 0 or lt[j] == -np.inf
                else at_most(Fraction(self.epsilon_param) + Fraction(float(lt[j])))
            )
        with np.errstate(under="ignore"):
            super().__init__(np.exp(logQ), logQ=logQ)

    def __repr__(self):
        return f"StaircasePattern(epsilon={self.epsilon_param!r}, pattern={self.pattern.tolist()})"


def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split_double(a):
    """Veltkamp's split: a = hi + lo exactly, each half with at most 26 significant bits (|a| < 2^996)."""
    t = 134217729.0 * a  # 2^27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a, b):
    """(p, e) with p = fl(a·b) and p + e = a·b exactly (Dekker; no underflow or overflow in the partial
    products)."""
    p = a * b
    ah, al = _split_double(a)
    bh, bl = _split_double(np.asarray(b, dtype=float))
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


class StaircaseNoise:
    """x + Z with Z the Geng–Viswanath staircase noise of parameters (ε, Δ, γ); scalar inputs.

    Claim: pure ε-DP under ``ReplaceOne('l1', Δ)``.
    """

    name = "staircase"
    sampler = "float"  # floating-point noise: not protected against bit-level attacks (no grid form yet)
    example_input = 0.0

    def __init__(self, epsilon: float, sensitivity: float = 1.0, gamma: float | None = None):
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        self.gamma = (
            1.0 / (1.0 + math.exp(self.epsilon / 2))
            if gamma is None
            else check_real("gamma", gamma, lower=0.0, upper=1.0)
        )
        self.b = exp_up(-self.epsilon)  # b ≥ e^(−ε): the density ratio 1/b of the doubles is at most e^ε
        self.a = (1 - self.b) / (2 * self.sensitivity * (self.gamma + (1 - self.gamma) * self.b))

    @property
    def claim(self) -> PureDP:
        return PureDP(round_up(self.epsilon), ReplaceOne("l1", self.sensitivity))

    def _center(self, x) -> float:
        a = np.asarray(x, dtype=float)
        if a.ndim != 0:
            raise ExactMethodUnavailable("the staircase mechanism takes scalar inputs")
        return float(a)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        c = self._center(x)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        g = rng.geometric(1 - self.b, size) - 1  # P(G = k) = (1 − b) b^k
        u = rng.random(size)
        p_inner = self.gamma / (self.gamma + (1 - self.gamma) * self.b)
        inner = rng.random(size) < p_inner
        z = np.where(inner, g + self.gamma * u, g + self.gamma + (1 - self.gamma) * u) * self.sensitivity
        return c + sign * z

    def _log_a(self) -> float:
        """ln a = ln(1 − b) − ln(2Δ) − ln D with D = γ + (1 − γ)b, in logs (b may be subnormal at ε ≥ 745)."""
        return math.log1p(-self.b) - math.log(2 * self.sensitivity) - self._log_d()

    def _log_d(self) -> float:
        lb = math.log(self.b)
        lg = math.log(self.gamma) if self.gamma > 0 else -math.inf
        return float(np.logaddexp(lg, math.log1p(-self.gamma) + lb))

    def logpdf(self, x, o) -> np.ndarray:
        z = np.abs(np.asarray(o, dtype=float) - self._center(x)) / self.sensitivity
        k = np.floor(z)
        return self._log_a() + (k + (z - k >= self.gamma)) * math.log(self.b)

    def _log_upper_tail(self, k, la, lb_, lc, low):
        """ln P[Z ≥ z] for z = k + r ≥ 0 (in units of Δ): b^k [1/2 − aΔ(min(r, γ) + b·max(0, r − γ))].

        With D = γ + (1 − γ)b the bracket is, without cancellation (every term ≥ 0, so large ε loses nothing),
        [(γ − r) + b(1 − γ + r)]/(2D) for r ≤ γ (``low``) and b[(1 − r + γ) + b(r − γ)]/(2D) for r > γ; it is
        formed in logs, so that a subnormal b (ε ≥ 745) keeps its value.  The three terms γ − r, 1 + γ − r and
        1 − γ + r each cancel somewhere (near a stair edge, near the next integer when γ is small, near the
        integer when γ is near 1): their logarithms ``la`` = ln|γ − r|, ``lb_``, ``lc`` come from :meth:`_split`,
        accurate to a few ulps of each term."""
        lb = math.log(self.b)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # far out: ln P = −inf
            inner_low = np.logaddexp(np.where(low, la, -np.inf), lb + lc)
            inner_high = lb + np.logaddexp(lb_, lb + np.where(low, -np.inf, la))
            inner = np.where(low, inner_low, inner_high) - math.log(2.0) - self._log_d()
            return k * lb + inner

    def _split(self, x, o):
        """(signed z, |z|'s stair k, ln|γ − r|, ln(1 + γ − r), ln(1 − γ + r), r ≤ γ) of z = (o − x)/Δ with
        r = |z| − k, each term accurate to a few ulps of itself.  z formed in floating point moves a point across
        a stair edge, or loses the terms to cancellation (a relative error of ulp(z)/term in the tail mass); so z
        is carried as an unevaluated sum q + z_lo of two doubles (error-free transformations, within 2^−104·|z|),
        the terms formed by two-sums from it, and where even that leaves one uncertain everything is recomputed
        from the exact rationals the doubles denote."""
        c = self._center(x)
        o = np.asarray(o, dtype=float)
        d, g = self.sensitivity, self.gamma
        with np.errstate(all="ignore"):
            s, es = _two_sum(o, -c)
            q = s / d
            p, ep = _two_prod(q, d)
            z_lo = ((s - p) + (es - ep)) / d  # s − p is exact (p is within an ulp of s)
            neg = (q < 0) | ((q == 0) & (z_lo < 0))
            q, z_lo = np.where(neg, -q, q), np.where(neg, -z_lo, z_lo)
            k = np.floor(q)
            k = np.where((q == k) & (z_lo < 0), k - 1, k)
            r = q - k  # exact; the true r is r + z_lo
            h, e = _two_sum(np.full_like(q, g), -r)
            a = h + (e - z_lo)  # γ − r
            h, e = _two_sum(1.0 - r, np.full_like(q, g))  # 1 − r is exact where it is small (r ≥ 1/2)
            b = h + (e - z_lo)  # 1 + γ − r
            h, e = _two_sum(np.full_like(q, 1.0 - g), r)  # likewise 1 − γ where it is small
            cc = h + (e + z_lo)  # 1 − γ + r
            z = np.where(neg, -q, q)  # the side of the centre (q is 0 only when o is the centre)
            tol = 2.0**-48 * np.maximum(q, 1.0)
            ok = (
                np.isfinite(a)
                & (np.abs(s) < 2.0**960)
                & ((np.abs(s) > 2.0**-960) | (s == 0))
                & (np.abs(a) > tol)
                & (b > tol)
                & (cc > tol)
            )
            terms = [np.log(np.abs(a)), np.log(b), np.log(cc)]
            low = a >= 0
        if not ok.all():
            k, low = k.copy(), low.copy()
            terms = [t.copy() for t in terms]
            fc, fd, fg = Fraction(c), Fraction(d), Fraction(g)
            for i in np.flatnonzero(~ok.ravel() & np.isfinite(o.ravel())):
                ze = abs((Fraction(float(o.flat[i])) - fc) / fd)
                ke = ze.numerator // ze.denominator
                ae = fg - (ze - ke)
                k.flat[i], low.flat[i] = float(ke), ae >= 0
                for t, v in zip(terms, (abs(ae), 1 + ae, 1 - ae)):
                    t.flat[i] = (math.log(v.numerator) - math.log(v.denominator)) if v else -math.inf
        return z, k, terms, low

    def _log_tails(self, x, o, upper: bool):
        """ln P[x + Z > o] (``upper``) or ln P[x + Z ≤ o], the far side by the complement."""
        z, k, (la, lb_, lc), low = self._split(x, o)
        t = self._log_upper_tail(k, la, lb_, lc, low)
        far = (z >= 0) if upper else (z <= 0)
        with np.errstate(divide="ignore"):
            return np.where(far, t, np.log1p(-np.exp(t)))

    def logsf(self, x, o) -> np.ndarray:
        return self._log_tails(x, o, upper=True)

    def logcdf(self, x, o) -> np.ndarray:
        return self._log_tails(x, o, upper=False)

    def __repr__(self):
        return f"StaircaseNoise(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r}, gamma={self.gamma!r})"


#: the ε of a grid staircase is rounded down to a multiple of 2^−EPS_BITS (a larger b = e^(−ε): the safe side),
#: so that Bernoulli(e^(−ε)) is drawn exactly in 64-bit integers
EPS_BITS = 40


class GridStaircase:
    """The staircase mechanism on a grid: round(x/g)·g + g·Z, Z a discrete staircase drawn exactly from random
    integers.  With P = ⌈Δ/g⌉ + 1 grid steps per stair (rounded neighbours are at most P steps apart), L = round(γP)
    and b = e^(−ε'), P[Z = z] ∝ b^j(|z|) with j(n) = ⌊n/P⌋ + [n mod P ≥ L]: j grows by one once per P steps, so
    the pmfs of inputs at most P steps apart differ by a factor of at most 1/b = e^(ε') — pure ε'-DP, ε' ≤ ε the
    claimed ε rounded down to a multiple of 2^−40.  The exact face is the step CDF, in closed form (geometric sums
    per stair).  ``grid``: default the largest power of two ≤ Δ·2^−20·min(1, 1/ε)."""

    name = "staircase"
    sampler = "exact"
    example_input = 0.0

    def __init__(self, epsilon: float, sensitivity: float = 1.0, gamma: float | None = None, grid=None):
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        self.gamma = (
            1.0 / (1.0 + math.exp(self.epsilon / 2))
            if gamma is None
            else check_real("gamma", gamma, lower=0.0, upper=1.0)
        )
        self.grid = default_grid(self.sensitivity, self.epsilon) if grid is None else check_grid(grid)
        self.period = math.ceil(Fraction(self.sensitivity) / Fraction(self.grid)) + 1
        if self.period >= MAX_NOISE_STEPS:
            raise InvalidArgument(f"a stair of {self.period:.3g} grid steps: too fine a grid (give a coarser grid=)")
        self.inner = min(self.period, max(0, round(self.gamma * self.period)))
        self.eps_num = math.floor(Fraction(self.epsilon) * 2**EPS_BITS)  # ε' = eps_num / 2^40 ≤ ε
        if self.eps_num < 1:
            raise InvalidArgument(
                f'ε = {self.epsilon:g} is below 2^-{EPS_BITS}, the grid staircase\'s resolution: use sampler="float"'
            )
        self.epsilon_exact = Fraction(self.eps_num, 2**EPS_BITS)
        self._lb = -float(self.epsilon_exact)  # ln b

    @property
    def claim(self) -> PureDP:
        return PureDP(self.epsilon, ReplaceOne("l1", self.sensitivity))

    def _bern_b(self, rng, m: int) -> np.ndarray:
        return bernoulli_exp(rng, np.full(m, self.eps_num, dtype=np.int64), np.full(m, 2**EPS_BITS, dtype=np.int64))

    def _noise(self, rng, size: int) -> np.ndarray:
        P, L = self.period, self.inner
        out = np.empty(size, dtype=np.int64)
        pending = np.arange(size)
        while pending.size:
            m = pending.size
            k = np.zeros(m, dtype=np.int64)  # the stair: successes of Bernoulli(b) before a failure
            go = np.arange(m)
            while go.size:
                ok = self._bern_b(rng, go.size)
                k[go[ok]] += 1
                go = go[ok]
            r = rng.integers(0, P, size=m)  # the step within the stair: weight 1 below L, b from L on
            outer = r >= L
            keep = np.ones(m, dtype=bool)
            keep[outer] = self._bern_b(rng, int(outer.sum()))
            n = k * P + r
            sign = rng.integers(0, 2, size=m).astype(bool)
            keep &= ~(sign & (n == 0))  # −0 would count zero twice
            out[pending[keep]] = np.where(sign[keep], -n[keep], n[keep])
            pending = pending[~keep]
        return out

    def _k(self, x) -> np.ndarray:
        a = np.asarray(x, dtype=float)
        if a.ndim != 0:
            raise ExactMethodUnavailable("the staircase mechanism takes scalar inputs")
        return to_grid(a, self.grid)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        return from_grid(int(self._k(x)) + self._noise(rng, size), self.grid)

    def _log_total(self) -> float:
        """ln Σ_z b^j(|z|) = ln[2(L + (P − L)b)/(1 − b) − w(0)], w(0) = 1 (L ≥ 1) or b."""
        P, L, lb = self.period, self.inner, self._lb
        one_stair = np.logaddexp(math.log(L) if L else -math.inf, math.log(P - L) + lb if P > L else -math.inf)
        half = math.log(2.0) + one_stair - math.log(-math.expm1(lb))
        w0 = 0.0 if L else lb
        return float(half + math.log1p(-math.exp(w0 - half)))

    def _log_tail(self, m) -> np.ndarray:
        """ln P[Z ≥ m] for integers m ≥ 1: the rest of m's stair plus the geometric sum of the stairs after it."""
        P, L, lb = self.period, self.inner, self._lb
        m = np.asarray(m, dtype=float)
        k0 = np.floor(m / P)
        r0 = m - k0 * P
        with np.errstate(divide="ignore"):
            rest = np.where(
                r0 < L,
                np.logaddexp(
                    np.log(np.maximum(L - r0, 0.0)) + k0 * lb, math.log(P - L) + (k0 + 1) * lb if P > L else -np.inf
                ),
                np.log(np.maximum(P - r0, 0.0)) + (k0 + 1) * lb,
            )
            stair = float(np.logaddexp(math.log(L) if L else -math.inf, math.log(P - L) + lb if P > L else -math.inf))
            later = (k0 + 1) * lb + stair - math.log(-math.expm1(lb))
            return np.logaddexp(rest, later) - self._log_total()

    def logsf(self, x, o) -> np.ndarray:
        """ln P[M(x) > o] = ln P[Z ≥ ⌊o/g⌋ − k + 1]; below the centre, 1 − P[Z ≥ 1 − m] by symmetry."""
        with np.errstate(over="ignore"):
            m = np.floor(np.asarray(o, dtype=float) / self.grid) - float(self._k(x)) + 1
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(
                m >= 1, self._log_tail(np.maximum(m, 1)), np.log1p(-np.exp(self._log_tail(np.maximum(1 - m, 1))))
            )

    def logcdf(self, x, o) -> np.ndarray:
        """ln P[M(x) ≤ o] = ln P[Z ≤ ⌊o/g⌋ − k] = ln P[Z ≥ k − ⌊o/g⌋] by symmetry."""
        with np.errstate(over="ignore"):
            m = float(self._k(x)) - np.floor(np.asarray(o, dtype=float) / self.grid)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(
                m >= 1, self._log_tail(np.maximum(m, 1)), np.log1p(-np.exp(self._log_tail(np.maximum(1 - m, 1))))
            )

    def __repr__(self):
        return (
            f"GridStaircase(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r}, gamma={self.gamma!r}, "
            f"grid={self.grid!r})"
        )
