"""Parameters rounded to the safe side, so that a built-in calibrated from a claim satisfies it as represented.

A noise scale computed as Δ/ε in floating point may land one ulp *below* Δ/ε, and the mechanism that runs is
then (Δ/scale)-DP with Δ/scale a hair above ε: an exact auditor is right to refute it.  Each helper here returns
the double on the safe side of an exact real value, proved with rational arithmetic (``fractions``) or mpmath
interval arithmetic, never with a float comparison.
"""

from __future__ import annotations

import math
from fractions import Fraction

from privcheck.core.enclosure import double_at_least as at_least
from privcheck.core.enclosure import double_at_most as at_most
from privcheck.core.enclosure import iv_ends, precision

__all__ = [
    "div_up",
    "at_least",
    "at_most",
    "exp_up",
    "exp_down",
    "neg_log1p_exp_up",
    "neg_log1p_exp_down",
    "interval_ends",
    "sqrt_div_up",
]

_PREC = 160  # bits of the interval evaluations: far beyond the 53 of the result


def div_up(a, b) -> float:
    """The smallest double ≥ a/b (a, b > 0 doubles or Fractions, read exactly; an infinite a gives inf)."""
    if any(isinstance(v, float) and not math.isfinite(v) for v in (a, b)):
        return float(a) / float(b)
    return at_least(Fraction(a) / Fraction(b))


def sqrt_div_up(a, b) -> float:
    """The smallest double s with s² ≥ a/b, i.e. s ≥ √(a/b) (a, b doubles or Fractions, read exactly)."""
    target = Fraction(a) / Fraction(b)
    s = math.sqrt(float(target))
    while Fraction(s) ** 2 < target:
        s = math.nextafter(s, math.inf)
    while Fraction(math.nextafter(s, -math.inf)) ** 2 >= target:
        s = math.nextafter(s, -math.inf)
    return s


def interval_ends(fn):
    """The exact (Fraction) ends of ``fn(iv)``, an mpmath interval computed at 160 bits."""
    with precision(_PREC) as iv:
        return iv_ends(fn(iv))


def exp_up(x: float) -> float:
    """The smallest double ≥ e^x (x a double)."""
    return at_least(interval_ends(lambda iv: iv.exp(iv.mpf(x)))[1])


def exp_down(x: float) -> float:
    return at_most(interval_ends(lambda iv: iv.exp(iv.mpf(x)))[0])


def _neg_log1p_exp_ends(x: float, k: float) -> tuple[Fraction, Fraction]:
    """Exact ends of an enclosure of −ln(1 + y), y = k·e^x.  For tiny y, 1 + y is 1 at any fixed precision, so
    −y ≤ −ln(1 + y) ≤ −y + y²/2 is used instead: the enclosure stays relative to y (y = 1e-304 is resolved)."""
    if x + math.log(k) < -770.0:  # y < 2^−1110, below every double: −ln(1 + y) lies in (−2^−1100, 0)
        return Fraction(-1, 2**1100), Fraction(0)
    if x + math.log(k) < -30.0:  # y < e^−30 < 2^−43
        y_lo, y_hi = interval_ends(lambda iv: iv.mpf(k) * iv.exp(iv.mpf(x)))
        return -y_hi, -y_lo + y_hi * y_hi / 2
    return interval_ends(lambda iv: -iv.log(1 + iv.mpf(k) * iv.exp(iv.mpf(x))))


def neg_log1p_exp_up(x: float, k: float = 1.0) -> float:
    """The smallest double ≥ −ln(1 + k·e^x): the log of 1/(1 + k e^x), e.g. of randomized response's small
    probability 1/(1 + e^ε) at x = ε, without forming e^x (finite for every double x)."""
    return at_least(_neg_log1p_exp_ends(x, k)[1])


def neg_log1p_exp_down(x: float, k: float = 1.0) -> float:
    """The largest double ≤ −ln(1 + k·e^x) (to within the enclosure's width, far below an ulp)."""
    return at_most(_neg_log1p_exp_ends(x, k)[0])
