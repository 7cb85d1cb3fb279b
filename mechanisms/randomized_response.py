"""Randomized response: binary corruption, its optimal ε-LDP form, and k-ary randomized response.

Binary corruption (Gajane, "Local Differential Privacy for Sequential Decision Making in a Changing
Environment", AAAI 2023, Eq. 1): a reward x ∈ {0, 1} is reported as y with

    P[y | x] = M[y, x],   M = [[p00, 1 − p11],
                               [1 − p00, p11]]   (rows y, columns x),

so the mean of the feedback is the corruption function g(x) = 1 − p00 + (p00 + p11 − 1) x.  Its exact
local-DP level is

    ε = ln max{ p00/(1 − p11), p11/(1 − p00), (1 − p11)/p00, (1 − p00)/p11 }.

The paper lists only the first two ratios, which is incomplete when p00 + p11 < 1 (claims G-LDP3:
p00 = p11 = 0.01 is only ln 99-LDP).  The optimal ε-LDP choice (the paper's Eq. 2) is
p00 = p11 = e^ε/(1 + e^ε): it maximises p00 + p11 under the constraint and coincides with k-ary randomized
response and the staircase pattern at k = 2 (Kairouz, Oh & Viswanath, "Extremal Mechanisms for Local
Differential Privacy", 2014).  Checked in ``proofs.randomized_response``.

k-ary randomized response keeps the true value with probability e^ε/(k − 1 + e^ε) and otherwise reports one
of the other k − 1 values uniformly: exactly ε-LDP.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import check_int, check_real

from .calibration import neg_log1p_exp_down, neg_log1p_exp_up
from .finite import FiniteChannel

__all__ = ["BinaryRandomizedResponse", "KaryRandomizedResponse", "optimal_randomized_response", "rr_epsilon"]


def rr_epsilon(p00: float, p11: float) -> float:
    """ln max of the four ratios above (``inf`` when a ratio has a zero denominator and positive numerator)."""
    logs = []
    for num, den in ((p00, 1 - p11), (p11, 1 - p00), (1 - p11, p00), (1 - p00, p11)):
        if den > 0 and num > 0:
            logs.append(math.log(num) - math.log(den))  # in log space: num/den may overflow
        elif num > 0:
            return math.inf
    return max(0.0, max(logs)) if logs else 0.0


class BinaryRandomizedResponse(FiniteChannel):
    """Binary randomized response with P[y = 0 | x = 0] = p00 and P[y = 1 | x = 1] = p11.

    The exact face is the matrix [[p00, 1 − p00], [1 − p11, p11]] with p00, p11 read exactly and 1 − p as the
    exact rational (not its rounding).  Claim: ε-LDP (``AllPairs`` over {0, 1}) with ε = :func:`rr_epsilon`
    (p00, p11), rounded up.
    """

    name = "randomized-response"

    def __init__(self, p00: float, p11: float):
        self.p00 = check_real("p00", p00, lower=0.0, upper=1.0)
        self.p11 = check_real("p11", p11, lower=0.0, upper=1.0)
        a, b = Fraction(self.p00), Fraction(self.p11)
        super().__init__([[self.p00, 1 - self.p00], [1 - self.p11, self.p11]], exact=[[a, 1 - a], [1 - b, b]])

    @property
    def epsilon(self) -> float:
        if self.logQ is not None:
            return FiniteChannel.epsilon.fget(self)
        return rr_epsilon(self.p00, self.p11)

    def corruption(self, x):
        """g(x) = 1 − p00 + (p00 + p11 − 1) x: the mean feedback of a reward with mean x."""
        return 1 - self.p00 + (self.p00 + self.p11 - 1) * np.asarray(x, dtype=float)

    def corruption_inverse(self, y):
        """g⁻¹(y) = (y − 1 + p00)/(p00 + p11 − 1); needs p00 + p11 ≠ 1."""
        slope = self.p00 + self.p11 - 1
        if slope == 0:
            raise ZeroDivisionError("g is constant when p00 + p11 = 1")
        return (np.asarray(y, dtype=float) - 1 + self.p00) / slope

    def __repr__(self):
        return f"BinaryRandomizedResponse(p00={self.p00!r}, p11={self.p11!r})"


def optimal_randomized_response(epsilon: float) -> BinaryRandomizedResponse:
    """p00 = p11 = e^ε/(1 + e^ε) (Eq. 2 of the AAAI 2023 paper): the optimal ε-LDP binary corruption.

    The channel is kept in log space, each probability its own number: ln P[flip] = −ln(1 + e^ε) rounded up and
    ln P[keep] = −ln(1 + e^(−ε)) rounded down (both proved with interval arithmetic), so that the ratio of the
    doubles is at most e^ε — the channel that runs satisfies the claim it was calibrated from, for every ε up to
    the largest double (e^(−ε) is never formed).  p00 = p11 is the nearest double to e^(ln P[keep])."""
    eps = check_real("epsilon", epsilon, lower=0.0)
    keep = neg_log1p_exp_down(-eps)
    flip = neg_log1p_exp_up(eps)
    ch = BinaryRandomizedResponse.__new__(BinaryRandomizedResponse)
    FiniteChannel.__init__(ch, np.exp([[keep, flip], [flip, keep]]), logQ=[[keep, flip], [flip, keep]])
    ch.p00 = ch.p11 = float(np.exp(keep))
    return ch


class KaryRandomizedResponse(FiniteChannel):
    """k-ary randomized response: P[y = x] = e^ε/(k − 1 + e^ε), P[y = v] = 1/(k − 1 + e^ε) for v ≠ x.

    Kept in log space like :func:`optimal_randomized_response`: ln P[y = v ≠ x] = −ln(k − 1 + e^ε) rounded up,
    ln P[y = x] = −ln(1 + (k − 1)e^(−ε)) rounded down, so the ratio of the doubles is at most e^ε.
    Claim: ε-LDP over {0..k−1}, rounded up.
    """

    name = "k-rr"

    def __init__(self, k: int, epsilon: float):
        k = check_int("k", k, 2)
        self.epsilon_param = check_real("epsilon", epsilon, lower=0.0)
        k = int(k)
        other = _log_other_up(self.epsilon_param, k)
        keep = neg_log1p_exp_down(-self.epsilon_param, k - 1)
        logQ = np.full((k, k), other)
        np.fill_diagonal(logQ, keep)
        with np.errstate(under="ignore"):
            Q = np.exp(logQ)
        super().__init__(Q, logQ=logQ)

    def __repr__(self):
        return f"KaryRandomizedResponse(k={self.k}, epsilon={self.epsilon_param!r})"


def _log_other_up(epsilon: float, k: int) -> float:
    """The smallest double ≥ −ln(k − 1 + e^ε)."""
    from .calibration import at_least, interval_ends

    return at_least(interval_ends(lambda iv: -iv.log(iv.mpf(k - 1) + iv.exp(iv.mpf(epsilon))))[1])
