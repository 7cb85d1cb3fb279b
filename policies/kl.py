"""Bernoulli KL confidence bounds, written once for every kl policy.

d(p, q) = p ln(p/q) + (1 − p) ln((1 − p)/(1 − q)).  For a level ℓ ≥ 0,

    upper(p, ℓ) = max{q ∈ [p, 1] : d(p, q) ≤ ℓ},     lower(p, ℓ) = min{q ∈ [0, p] : d(p, q) ≤ ℓ} = 1 − upper(1 − p, ℓ).

``upper`` runs a safeguarded Halley's method on q ↦ d(p, q) − ℓ (convex and increasing on [p, 1)) from a
start near the root, inside a bracket that every evaluation narrows; it then *certifies* the answer: q + 1e-12 is
returned only if d(p, q + 1e-12) > ℓ,
i.e. only if it lies right of the root; otherwise a bisection that keeps its right end finishes the job.
The result is therefore an upper bound of the exact value, never the midpoint of a bracket.  Exact check: at p = 0,
upper(0, ℓ) = 1 − e^(−ℓ).  The kl-UCB index of an arm with N pulls and mean
μ̂ is upper(μ̂, f(t)/N) (Garivier & Cappé, "The KL-UCB Algorithm for Bounded Stochastic Bandits and Beyond",
COLT 2011).

The scalar kernels are compiled with numba (they run inside per-step loops over runs and arms, which numpy
cannot vectorise over the Newton iterations; numba starts on first use, :mod:`privcheck.core.jit`; the
simulator's compiled loop, ``policies/_fastloop.c``, repeats them operation for operation); :func:`kl_upper`
/ :func:`kl_lower` are vectorised wrappers.
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.core.jit import njit

__all__ = ["kl_bernoulli", "kl_scalar", "kl_upper", "kl_lower", "upper_scalar", "lower_scalar", "upper_bound_cheap"]

_EPS = 1e-15
_LOG_TOP = math.log(1.0 - _EPS)
_LOG1M_TOP = math.log1p(-(1.0 - _EPS))
_ROUNDING = 1e-12  # covers the floating-point error of the last iterate (observed ≤ 2e-14)


@njit(cache=True, inline="always")
def kl_scalar(p, q):
    """d(p, q) for one pair, in a kernel (q clipped to [1e-15, 1 − 1e-15]; :func:`kl_bernoulli` vectorised)."""
    q = min(max(q, _EPS), 1.0 - _EPS)
    r = 0.0
    if p > 0.0:
        r += p * math.log(p / q)
    if p < 1.0:
        r += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return r


@njit(cache=True, inline="always")
def _cross(p, q):
    """−p ln q − (1 − p) ln(1 − q): d(p, q) minus its q-free part (two logarithms, no division)."""
    q = min(max(q, _EPS), 1.0 - _EPS)
    r = 0.0
    if p > 0.0:
        r -= p * math.log(q)
    if p < 1.0:
        r -= (1.0 - p) * math.log1p(-q)
    return r


@njit(cache=True, inline="always")
def _neg_entropy(p):
    r = 0.0
    if p > 0.0:
        r += p * math.log(p)
    if p < 1.0:
        r += (1.0 - p) * math.log1p(-p)
    return r


@njit(cache=True)
def upper_scalar(p, level):
    """max{q ∈ [p, 1] : d(p, q) ≤ level}, from above."""
    if p >= 1.0:
        return 1.0
    if p < 0.0:
        p = 0.0
    if level <= 0.0:
        return p
    target = level - _neg_entropy(p)  # d(p, q) ≤ level  ⟺  cross(p, q) ≤ target
    if -p * _LOG_TOP - (1.0 - p) * _LOG1M_TOP <= target:  # cross(p, 1) with q clipped as in _cross
        return 1.0
    # safeguarded Halley's method (cubic convergence) from the second-order start d ≈ (q − p)²/(2p(1 − p)):
    # every evaluation narrows the bracket [lo, hi] around the root, and a step leaving it is replaced by
    # the bracket's midpoint
    lo, hi = p, 1.0
    q = min(p + math.sqrt(2.0 * max(p * (1.0 - p), 1e-3) * level), 0.5 * (1.0 + p))
    for _ in range(100):
        g = _cross(p, q) - target
        if g > 0.0:
            hi = q
        else:
            lo = q
        slope = (q - p) / (q * (1.0 - q))
        curv = p / (q * q) + (1.0 - p) / ((1.0 - q) * (1.0 - q))
        denom = 2.0 * slope * slope - g * curv
        if slope > 0.0 and denom > 0.0:
            step = 2.0 * g * slope / denom
            if abs(step) <= 1e-5 * q and (curv / slope) ** 2 * abs(step) ** 3 <= 1e-15:  # converged
                if lo <= q - step <= hi:
                    q -= step
                break
            nq = q - step
        else:
            nq = -1.0
        if not lo < nq < hi:  # the step left the bracket: bisect instead
            nq = 0.5 * (lo + hi)
        q = nq
        if hi - lo <= 1e-13:
            break
    # certify: q + margin must be right of the root; otherwise finish by bisection on the bracket
    r = min(1.0, q + _ROUNDING)
    if r >= 1.0 or _cross(p, r) > target:
        return r
    lo = max(lo, q)
    for _ in range(200):  # rare: bisection keeping the right end
        m = 0.5 * (lo + hi)
        if m <= lo or m >= hi or hi - lo <= 1e-13:
            break
        if _cross(p, m) > target:
            hi = m
        else:
            lo = m
    return hi


@njit(cache=True)
def upper_bound_cheap(p, level):
    """A number ≥ ``upper_scalar(p, level)``, with no logarithm: what the index policies use to skip arms.

    d(p, q) = ∫_p^q (x − p)/(x(1 − x)) dx ≥ (q − p)²/(2v) with v the largest x(1 − x) on [p, q], so the root u
    of d(p, u) = ℓ satisfies (u − p)² ≤ 2ℓv.  Hence u ≤ p + √(ℓ/2) (v ≤ 1/4: Pinsker); u ≤ p + √(2ℓp(1 − p))
    when p ≥ 1/2 (v = p(1 − p)); and u ≤ q* when the larger root q* of (q − p)² = 2ℓq(1 − q) is ≤ 1/2 (on
    [p, 1/2] v = q(1 − q) and the gap (q − p)² − 2ℓv is positive beyond q*, up to 1/2 and then beyond, where
    v = 1/4 and it only grows).  The 1e-9 margin covers ``upper_scalar``'s 1e-12 certification margin.
    """
    if p >= 1.0:
        return 1.0
    if p < 0.0:
        p = 0.0
    if level <= 0.0:
        return p + 1e-9
    u = p + math.sqrt(0.5 * level)
    if p >= 0.5:
        u = min(u, p + math.sqrt(2.0 * level * p * (1.0 - p)))
    else:
        a = 1.0 + 2.0 * level
        b = p + level
        q = (b + math.sqrt(max(b * b - a * p * p, 0.0))) / a
        if q <= 0.5:
            u = min(u, q)
    return min(u + 1e-9, 1.0)


@njit(cache=True)
def lower_scalar(p, level):
    """min{q ∈ [0, p] : d(p, q) ≤ level}, from below (by the symmetry d(p, q) = d(1 − p, 1 − q))."""
    return 1.0 - upper_scalar(1.0 - p, level)


@njit(cache=True)
def _vec(fn_upper, p, level, out):
    for i in range(p.size):
        out[i] = upper_scalar(p[i], level[i]) if fn_upper else lower_scalar(p[i], level[i])


def _wrap(upper: bool, p, level):
    p, level = np.broadcast_arrays(np.asarray(p, dtype=float), np.asarray(level, dtype=float))
    out = np.empty(p.shape)
    _vec(upper, np.ascontiguousarray(p).ravel(), np.ascontiguousarray(level).ravel(), out.reshape(-1))
    return out if out.ndim else float(out)


def kl_upper(p, level):
    """Vectorised :func:`upper_scalar`."""
    return _wrap(True, p, level)


def kl_lower(p, level):
    """Vectorised :func:`lower_scalar`."""
    return _wrap(False, p, level)


def kl_bernoulli(p, q):
    """d(p, q), vectorised (q clipped to [1e-15, 1 − 1e-15])."""
    p = np.asarray(p, dtype=float)
    q = np.clip(np.asarray(q, dtype=float), _EPS, 1 - _EPS)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)
    return a + b
