"""Precision on demand: one figure of one finite pair recomputed in mpmath interval arithmetic.

The exact engines work in float64 with outward rounding (:mod:`privcheck.core.enclosure`).  When a verdict is
undecided there — the deciding figure's enclosure contains the claim — the engine calls :func:`refine` on the
pairs whose enclosure straddles the claim, at 128, 512 and then 2048 bits, until the claim falls outside the
enclosure.  The inputs are the exact values the mechanism gave: probabilities (doubles, ints or Fractions: the
exact rationals they denote) or log-probabilities (doubles: the masses are their exact exponentials).  Every
operation is an mpmath interval operation, so the result is an enclosure whatever the cancellation.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core.enclosure import Enclosure, iv_ends, precision

__all__ = ["refine", "rising_precision", "PRECISIONS", "as_exact_values", "precision", "fraction_ends", "interval"]

PRECISIONS = (128, 512, 2048)


def rising_precision(items, recompute, settled):
    """The escalation loop every exact engine shares: at each precision of :data:`PRECISIONS`, ``recompute(item,
    prec)`` for every item (a pair near the claim), until ``settled(prec)`` — the verdict is decided — or the
    precisions run out.  Returns the last precision used (None when there was nothing to recompute)."""
    bits = None
    if not items:
        return bits
    for prec in PRECISIONS:
        for item in items:
            recompute(item, prec)
        bits = prec
        if settled(prec):
            break
    return bits


def interval(iv, v):
    """The exact value v (a double, int or Fraction; an interval passes through) as an interval of ``iv``."""
    if hasattr(v, "_mpi_"):  # already an interval (computed at the current precision)
        return v
    if isinstance(v, Fraction):
        return iv.mpf(v.numerator) / iv.mpf(v.denominator)
    return iv.mpf(v)


def refine(kind: str, p, q, logs: bool, param: float, prec: int) -> Enclosure:
    """An enclosure of ``kind`` ∈ {"epsilon", "delta", "renyi"} for the pair P, Q (per-outcome exact values;
    ``logs``: the values are log-probabilities), at ``prec`` bits.  ``param``: ε for δ(ε), α for D_α (1: KL)."""
    from mpmath import iv

    with precision(prec):
        if logs:
            lp = [None if _is(v, -math.inf) else interval(iv, v) for v in p]
            lq = [None if _is(v, -math.inf) else interval(iv, v) for v in q]
        else:
            lp = [None if _is(v, 0) else iv.log(interval(iv, v)) for v in p]
            lq = [None if _is(v, 0) else iv.log(interval(iv, v)) for v in q]
        if kind == "epsilon":
            lo, hi = Fraction(0), Fraction(0)
            for a, b in zip(lp, lq):
                if a is None:
                    continue
                if b is None:
                    return Enclosure(math.inf, math.inf)
                x, y = iv_ends(a - b)
                lo, hi = max(lo, x), max(hi, y)
            return Enclosure.exact(lo, hi)
        if kind == "delta":
            e = float(param)
            lo = hi = Fraction(0)
            for a, b in zip(lp, lq):
                if a is None:
                    continue
                if b is None:
                    x, y = iv_ends(iv.exp(a))
                else:
                    x, y = iv_ends(iv.exp(a) - iv.exp(iv.mpf(e) + b))
                lo += max(Fraction(0), x) if x != -math.inf else 0
                hi += max(Fraction(0), y)
            return Enclosure.exact(lo, hi)
        if kind == "renyi":
            alpha = float(param)
            acc = iv.mpf(0)
            for a, b in zip(lp, lq):
                if a is None:
                    continue
                if b is None:
                    return Enclosure(math.inf, math.inf)
                if alpha == 1.0:
                    acc += iv.exp(a) * (a - b)
                else:
                    acc += iv.exp(iv.mpf(alpha) * a + iv.mpf(1 - alpha) * b)
            val = acc if alpha == 1.0 else iv.log(acc) / iv.mpf(alpha - 1)
            x, y = iv_ends(val)
            return Enclosure.exact(max(Fraction(0), x), max(Fraction(0), y))
        raise ValueError(f"unknown figure {kind!r}")


def _is(v, c) -> bool:
    """Whether the exact value v is the constant c (an interval never is: zeros are passed as plain 0)."""
    return not hasattr(v, "_mpi_") and v == c


def as_exact_values(values) -> list:
    """Per-outcome values as Python numbers the interval code takes exactly (floats stay floats)."""
    out = []
    for v in np.asarray(values, dtype=object).reshape(-1):
        if isinstance(v, (Fraction, int)) and not isinstance(v, bool):
            out.append(v)
        else:
            out.append(float(v))
    return out


def fraction_ends(values) -> tuple[np.ndarray, np.ndarray]:
    """Object arrays of the exact (Fraction) lower and upper ends of interval values (plain numbers: both)."""
    flat = list(np.asarray(values, dtype=object).reshape(-1))
    lo = np.empty(len(flat), dtype=object)
    hi = np.empty(len(flat), dtype=object)
    for i, v in enumerate(flat):
        if hasattr(v, "_mpi_"):
            lo[i], hi[i] = iv_ends(v)
        else:
            lo[i] = hi[i] = Fraction(v)
    shape = np.shape(values)
    return lo.reshape(shape), hi.reshape(shape)
