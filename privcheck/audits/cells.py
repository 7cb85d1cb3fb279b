"""Divergences certified from several cells at once: a lower bound of D_α (and KL) from one-sided bounds on the
probabilities of nested events, where one event's two probabilities read only a part of it.

Cut a real statistic s at t₁ < … < t_K: the rungs S_j = {s > t_j} are nested, and the cells between them partition
the outputs (cell 0 below t₁, cell j between t_j and t_{j+1}, cell K above t_K).  With P_j ≤ P[M(x) ∈ S_j] and
Q_j ≥ P[M(x′) ∈ S_j] holding for every j at once, the cells' probabilities lie in a box — and every divergence of
the cells' laws is a lower bound of the mechanism's, by data processing.  The smallest divergence over the box is
bounded below through the variational form of an f-divergence: for any r > 0,

    p^α q^{1−α} ≥ a(r)·p + b(r)·q    with  a = α r^{α−1},  b = (1 − α) r^α     (α > 1; p, q ≥ 0)
    p ln(p/q)   ≥ a(r)·p + b(r)·q    with  a = 1 + ln r,   b = −r              (KL)

(the tangent plane at ratio r of a convex function homogeneous of degree one).  Choosing one r_i per cell,
nondecreasing along the cells, and summing by parts,

    Σ_i p_i^α q_i^{1−α} ≥ a₀ + b₀ + Σ_j (a_j − a_{j−1})·P[S_j] + (b_j − b_{j−1})·Q[S_j],

where every a_j − a_{j−1} ≥ 0 and every b_j − b_{j−1} ≤ 0: the right side is smallest at P[S_j] = P_j, Q[S_j] = Q_j.
So D_α ≥ ln(L)/(α − 1) for the L so computed — for *any* nondecreasing choice of ratios, which therefore may be
chosen on the very bounds it is evaluated at.  privcheck chooses the best: the ratios of the corner's cells
(P_j − P_{j+1}, Q_j − Q_{j+1}), made nondecreasing by pooling adjacent violators (:func:`monotone_ratios`), at which
L is the divergence of the corner's cells with the violating ones merged.  One cell cut (K = 1) gives the Bernoulli
divergence of the corner (p_lower, q_upper) — the single event's certificate; a ladder of K ≈ 16 reads a Gaussian's ρ
at 0.97 of itself where one event reads 0.6 (benchmarks/RESULTS.md).

Certified (:func:`certified_divergence`): the coefficients are rounded down (each only weakens the inequality it
enters, and a cumulative minimum keeps them monotone), L is summed exactly in rationals, and its logarithm rounded
down.  Ranked (:func:`divergences`): plain float64, for choosing ladders and orders.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core.divergences import round_down
from privcheck.core.enclosure import RHO_GRID, double_at_most

#: the smallest positive double
_SMALLEST = 5e-324

__all__ = ["monotone_ratios", "divergences", "certified_divergence", "certified_rho", "cells_of"]


def cells_of(P, Q) -> tuple[np.ndarray, np.ndarray]:
    """The corner's cell masses (P_j − P_{j+1}, Q_j − Q_{j+1}) of nested tails P₁ ≥ … ≥ P_K, Q₁ ≥ … ≥ Q_K (with
    P₀ = Q₀ = 1 and P_{K+1} = Q_{K+1} = 0), clipped at 0."""
    P, Q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)
    pt, qt = np.concatenate([[1.0], P, [0.0]]), np.concatenate([[1.0], Q, [0.0]])
    return np.maximum(pt[:-1] - pt[1:], 0.0), np.maximum(qt[:-1] - qt[1:], 0.0)


def monotone_ratios(p, q) -> np.ndarray:
    """One ratio per cell, nondecreasing along the cells: p_i/q_i where those increase, else the pooled ratio of each
    run of adjacent cells that would decrease (pool-adjacent-violators, weighted by q); kept within [1e-300, 1e300]
    (a cell with nothing on one side pools with its neighbours, or is bounded)."""
    blocks: list[list] = []  # [sum of p, sum of q, cells]
    for pi, qi in zip(np.asarray(p, dtype=float).tolist(), np.asarray(q, dtype=float).tolist()):
        blocks.append([pi, qi, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] >= blocks[-1][0] * blocks[-2][1]:
            last = blocks.pop()
            blocks[-1] = [blocks[-1][0] + last[0], blocks[-1][1] + last[1], blocks[-1][2] + last[2]]
    out = []
    for ps, qs, n in blocks:
        r = ps / qs if qs > 0 else math.inf
        out += [min(max(r, 1e-300), 1e300)] * n
    return np.asarray(out)


def _coefficients(r: np.ndarray, order) -> tuple[np.ndarray, np.ndarray]:
    """a(r), b(r) of the tangent planes (float64, not rounded), with the orders on a leading axis when an array."""
    order = np.asarray(order, dtype=float)[..., None]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        kl = order == 1.0
        a = np.where(kl, 1.0 + np.log(r), order * np.power(r, order - 1.0))
        b = np.where(kl, -r, (1.0 - order) * np.power(r, order))
    return a, b


def divergences(P, Q, orders) -> np.ndarray:
    """Float64 estimates of the lower bound at each order of ``orders`` (1 is KL) from nested tails' bounds P (lower)
    and Q (upper): for ranking ladders and orders, never reported."""
    P, Q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)
    p, q = cells_of(P, Q)
    r = monotone_ratios(p, q)
    a, b = _coefficients(r, orders)
    with np.errstate(over="ignore", invalid="ignore"):
        total = a[..., 0] + b[..., 0] + (np.diff(a, axis=-1) * P).sum(axis=-1) + (np.diff(b, axis=-1) * Q).sum(axis=-1)
        orders = np.asarray(orders, dtype=float)
        out = np.where(orders == 1.0, total, np.log(np.maximum(total, 1.0)) / np.where(orders == 1.0, 1.0, orders - 1))
    return np.maximum(np.nan_to_num(out, nan=0.0, posinf=0.0), 0.0)


def certified_divergence(P, Q, order: float) -> float:
    """A certified lower bound of D_α (α = ``order`` > 1; 1 gives KL) of two laws whose nested events S₁ ⊇ … ⊇ S_K
    have P[S_j] ≥ P_j under the first and ≤ Q_j under the second (the module's bound; 0 where it says nothing)."""
    P = [float(v) for v in np.asarray(P, dtype=float)]
    Q = [float(v) for v in np.asarray(Q, dtype=float)]
    r = monotone_ratios(*cells_of(P, Q))
    a, b = _coefficients(r, order)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return 0.0
    if order == 1.0:  # a = 1 + ln r with ln r rounded down, summed exactly; b = −r is exact
        fa = [1 + Fraction(round_down(math.log(v))) for v in r.tolist()]
        fb = [-Fraction(v) for v in r.tolist()]
    else:
        fa = [Fraction(round_down(v)) for v in a.tolist()]  # (an a that underflowed to 0 is below its value)
        fb = [Fraction(round_down(v) if v != 0 else -_SMALLEST) for v in b.tolist()]  # (b < 0: never rounded to 0)
    for i in range(len(fa) - 2, -1, -1):  # a nondecreasing: a cumulative minimum from the last cell
        fa[i] = min(fa[i], fa[i + 1])
    for i in range(1, len(fb)):  # b nonincreasing: a cumulative minimum from the first
        fb[i] = min(fb[i], fb[i - 1])
    total = fa[0] + fb[0]
    for j in range(1, len(fa)):
        total += (fa[j] - fa[j - 1]) * Fraction(P[j - 1]) + (fb[j] - fb[j - 1]) * Fraction(Q[j - 1])
    if order == 1.0:
        return max(0.0, double_at_most(total))
    if total <= 1:
        return 0.0
    return max(0.0, round_down(round_down(math.log(double_at_most(total))) / (order - 1.0)))


def certified_rho(P, Q, grid=RHO_GRID, certify: int = 3) -> tuple[float, float]:
    """(ρ_lo, α): a certified lower end of sup_α D_α/α from the cells (KL, the limit α → 1, included): the orders of
    ``grid`` ranked in float64, the ``certify`` best and KL certified (any order's certified D_α/α bounds ρ below)."""
    grid = np.asarray(grid, dtype=float)
    best, at = certified_divergence(P, Q, 1.0), 1.0
    rank = divergences(P, Q, grid) / grid
    for a in grid[np.argsort(-rank, kind="stable")[:certify]].tolist():
        v = certified_divergence(P, Q, a) / a
        if v > best:
            best, at = v, a
    return max(0.0, round_down(best)), at
