"""Divergences of finite distributions, in log space.

Used both by mechanisms that compute their own exact claims and by the exact engine.  All functions take
log-probabilities ``logp``, ``logq`` over a common finite support (``-inf`` for probability 0) and compute:

* ``max_log_ratio``: sup_o ln P(o)/Q(o)  (pure ε of the ordered pair; ``inf`` when P(o) > 0 = Q(o))
* ``hockey_stick``:  δ(ε) = Σ_o max(0, P(o) − e^ε Q(o))
* ``epsilon_for_delta``: the smallest ε ≥ 0 with δ(ε) ≤ δ
* ``renyi``:         D_α(P‖Q) = 1/(α−1) ln Σ_o P(o)^α Q(o)^(1−α), with α = 1 the KL divergence
* ``zcdp_rho``:      sup over a grid of α of D_α/α, including the limit α → 1 (KL).  The grid supremum is a
  lower bound of the true supremum.

These are plain float64 values (D_α and KL in forms that do not cancel near α = 1 or for tiny divergences);
the auditor certifies with :mod:`privcheck.core.enclosure`, which gives each figure as an interval.
"""

from __future__ import annotations

import math

import numpy as np

from .enclosure import RHO_GRID

__all__ = [
    "max_log_ratio",
    "hockey_stick",
    "epsilon_for_delta",
    "renyi",
    "zcdp_rho",
    "DEFAULT_ORDERS",
    "round_down",
    "round_up",
]

#: Rényi orders at which privcheck reports D_α by default; ρ is the supremum of D_α/α over a finer grid
DEFAULT_ORDERS = (1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
_RHO_GRID = RHO_GRID  # the one grid of orders, shared with the certified engines

#: default relative margin of :func:`round_up`/:func:`round_down`: far above the few-ulp error of a closed form
ROUNDING_MARGIN = 1e-12


def round_down(x: float, rel: float = ROUNDING_MARGIN) -> float:
    """x moved towards −∞ by a relative margin (and at least one ulp); 0 and ±inf are kept."""
    if x == 0 or not math.isfinite(x):
        return x
    return math.nextafter(x - abs(x) * rel, -math.inf)


def round_up(x: float, rel: float = ROUNDING_MARGIN) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return math.nextafter(x + abs(x) * rel, math.inf)


def _as(logp, logq):
    lp = np.asarray(logp, dtype=float)
    lq = np.asarray(logq, dtype=float)
    if lp.shape != lq.shape:
        raise ValueError("logp and logq must have the same shape")
    return lp, lq


def max_log_ratio(logp, logq) -> float:
    """sup over the support of P of ln P(o) − ln Q(o)."""
    lp, lq = _as(logp, logq)
    on = lp > -np.inf
    if not on.any():
        return 0.0
    if np.any(lq[on] == -np.inf):
        return math.inf
    return float(np.max(lp[on] - lq[on]))


def hockey_stick(logp, logq, epsilon: float) -> float:
    """δ(ε) = Σ max(0, P − e^ε Q), computed as Σ P·(1 − e^(ε + ln Q − ln P)) over outcomes with ratio > e^ε."""
    lp, lq = _as(logp, logq)
    on = lp > -np.inf
    lp, lq = lp[on], lq[on]
    gap = epsilon + lq - lp  # < 0 where P > e^ε Q
    m = gap < 0
    if not m.any():
        return 0.0
    return float(np.sum(np.exp(lp[m]) * -np.expm1(gap[m])))


def epsilon_for_delta(logp, logq, delta: float) -> float:
    """The smallest ε ≥ 0 with δ(ε) ≤ δ, from below: the lower end of a bisection bracket.

    δ(ε) is continuous and decreasing, so bisection on [0, largest finite log-ratio] converges; the returned
    value ε_lo satisfies δ(ε_lo) > δ (or ε_lo = 0), i.e. it never overstates the answer.  ``inf`` when the
    mass of P where Q = 0 already exceeds δ.
    """
    lp, lq = _as(logp, logq)
    on = lp > -np.inf
    lp, lq = lp[on], lq[on]
    if lp.size == 0 or hockey_stick(lp, lq, 0.0) <= delta:
        return 0.0
    ratio = lp - lq
    if float(np.exp(lp[np.isinf(ratio)]).sum()) > delta:
        return math.inf
    lo, hi = 0.0, float(ratio[np.isfinite(ratio)].max(initial=0.0))
    if hockey_stick(lp, lq, hi) > delta:  # only the infinite-ratio mass remains above hi
        return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if hockey_stick(lp, lq, mid) > delta:
            lo = mid
        else:
            hi = mid
    return lo


def renyi(logp, logq, order: float) -> float:
    """D_α(P‖Q); α = 1 gives KL(P‖Q).  ``inf`` when P is not absolutely continuous w.r.t. Q (α ≥ 1).

    Float64 without cancellation near α = 1 or for tiny divergences: with P = e^logp, Q = e^logq as computed and
    r = ln P − ln Q, Σ P^α Q^(1−α) = α ΣP + (1 − α) ΣQ + Σ P φ(r), φ(r) = expm1((α−1) r) + (α−1) expm1(−r) ≥ 0,
    and KL = ΣP − ΣQ + Σ P (r + expm1(−r)) (sums over the support of P; ΣP − 1 by ``math.fsum``).  Where an
    exponent overflows, the log-sum-exp form is used instead."""
    lp, lq = _as(logp, logq)
    on = lp > -np.inf
    if np.any(lq[on] == -np.inf):
        return math.inf
    lp, lq = lp[on].reshape(-1), lq[on].reshape(-1)
    if lp.size == 0:
        return 0.0
    a = float(order)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        P, Q = np.exp(lp), np.exp(lq)
        r = lp - lq
        tp, tq = math.fsum(P.tolist()) - 1.0, math.fsum(Q.tolist()) - 1.0
        if a == 1.0:
            return max(0.0, float(np.sum(P * (r + np.expm1(-r)))) + (tp - tq))
        phi = np.expm1((a - 1.0) * r) + (a - 1.0) * np.expm1(-r)
        x = float(np.sum(P * phi)) + a * tp + (1.0 - a) * tq
        if math.isfinite(x) and x > -1:
            return max(0.0, math.log1p(x) / (a - 1.0))
        e = a * lp + (1.0 - a) * lq
        m = float(e.max())
        return max(0.0, (m + math.log(float(np.exp(e - m).sum()))) / (a - 1.0))


def zcdp_rho(logp, logq) -> float:
    """max over α in a grid on (1, 1000] and α → 1 of D_α/α: a lower bound of sup_α D_α(P‖Q)/α."""
    best = renyi(logp, logq, 1.0)
    for a in _RHO_GRID:
        best = max(best, renyi(logp, logq, float(a)) / a)
        if math.isinf(best):
            break
    return best
