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
from .finite import FiniteChannel

__all__ = ["StaircasePattern", "StaircaseNoise"]


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
            logQ[i, j] = lt[j] if s_ij == 0 or lt[j] == -np.inf else at_most(Fraction(self.epsilon_param) +
                                                                             Fraction(float(lt[j])))
        with np.errstate(under="ignore"):
            super().__init__(np.exp(logQ), logQ=logQ)

    def __repr__(self):
        return f"StaircasePattern(epsilon={self.epsilon_param!r}, pattern={self.pattern.tolist()})"


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
        self.gamma = 1.0 / (1.0 + math.exp(self.epsilon / 2)) if gamma is None else check_real(
            "gamma", gamma, lower=0.0, upper=1.0)
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

    def _log_upper_tail(self, z):
        """ln P[Z ≥ z] for z ≥ 0 (in units of Δ): b^k [1/2 − aΔ(min(r, γ) + b·max(0, r − γ))], r = z − k.

        With D = γ + (1 − γ)b the bracket is, without cancellation (every term ≥ 0, so large ε loses nothing),
        [(γ − r) + b(1 − γ + r)]/(2D) for r ≤ γ and b[(1 − r + γ) + b(r − γ)]/(2D) for r > γ; it is formed in
        logs, so that a subnormal b (ε ≥ 745) keeps its value."""
        k = np.floor(z)
        r = z - k  # exact for z ≥ 1 (Sterbenz), and z itself below 1
        g, lb = self.gamma, math.log(self.b)
        with np.errstate(divide="ignore", invalid="ignore"):
            inner_low = np.logaddexp(np.log(np.maximum(g - r, 0.0)), lb + np.log1p(-g + r))
            inner_high = lb + np.logaddexp(np.log1p(-r + g), lb + np.log(np.maximum(r - g, 0.0)))
            inner = np.where(r <= g, inner_low, inner_high) - math.log(2.0) - self._log_d()
            return k * lb + inner

    def logsf(self, x, o) -> np.ndarray:
        z = (np.asarray(o, dtype=float) - self._center(x)) / self.sensitivity
        with np.errstate(divide="ignore"):
            return np.where(z >= 0, self._log_upper_tail(np.abs(z)), np.log1p(-np.exp(self._log_upper_tail(np.abs(z)))))

    def logcdf(self, x, o) -> np.ndarray:
        z = (np.asarray(o, dtype=float) - self._center(x)) / self.sensitivity
        with np.errstate(divide="ignore"):
            return np.where(z <= 0, self._log_upper_tail(np.abs(z)), np.log1p(-np.exp(self._log_upper_tail(np.abs(z)))))

    def __repr__(self):
        return f"StaircaseNoise(epsilon={self.epsilon!r}, sensitivity={self.sensitivity!r}, gamma={self.gamma!r})"
