"""Divergences of many pairs of finite distributions at once, for the exact policy engines.

Rows of ``D`` (probabilities) or ``LD`` (their logarithms) are distributions over a common finite set of
outcomes, possibly laid out on several axes; a pair is a row index i (P) and j (P').  Each figure is a sum over
outcomes of a per-outcome term, and ``reduce`` turns the (pairs, outcomes…) array of terms into one value per
pair: a plain sum for the Table/View engine, the recursion over adversaries
(:func:`~privcheck.audits.policy.interactive.worst_adversary_sum`) for the interactive one.  Pairs are processed in
chunks so memory stays bounded.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "plain_sum",
    "hockey_terms",
    "per_pair",
    "max_log_ratios",
    "renyi_per_pair",
    "renyi_and_rho",
    "epsilon_at_delta",
    "FloatErrors",
    "tradeoff_per_pair",
    "tradeoff_figures",
]

CHUNK = 4096


def plain_sum(terms: np.ndarray) -> np.ndarray:
    return terms.reshape(terms.shape[0], -1).sum(axis=1)


def hockey_terms(Pi, Pj, eps):
    """max(0, P − e^ε P'); at ε = ∞ the mass of P where P' = 0.  Overwrites ``Pj`` (callers pass copies).
    Beyond ε = 700 (where e^ε nears the largest double) the terms are formed in log space."""
    if not math.isfinite(eps):
        return np.where(Pj > 0, 0.0, Pi)
    if eps > 700:
        with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
            gap = eps + np.log(Pj) - np.log(Pi)
            t = np.where(Pi > 0, Pi * -np.expm1(np.minimum(gap, 0.0)), 0.0)
        return np.maximum(np.nan_to_num(t, nan=0.0), 0.0)
    Pj *= -math.exp(eps)
    Pj += Pi
    return np.maximum(Pj, 0.0, out=Pj)


def per_pair(D, I, J, term, reduce=plain_sum) -> np.ndarray:
    """reduce(term(P_i, P_j)) for every pair (``term`` receives copies and may overwrite them)."""
    out = np.empty(I.size)
    for c in range(0, I.size, CHUNK):
        out[c : c + CHUNK] = reduce(term(D[I[c : c + CHUNK]], D[J[c : c + CHUNK]]))
    return out


def max_log_ratios(LD, I, J) -> np.ndarray:
    """max over outcomes with P > 0 of ln P − ln P' per pair (∞ where P' = 0 < P): pure ε, and an upper bound
    of every D_α of the pair."""
    out = np.empty(I.size)
    with np.errstate(invalid="ignore"):
        for c in range(0, I.size, CHUNK):
            li, lj = LD[I[c : c + CHUNK]], LD[J[c : c + CHUNK]]
            d = np.where(li > -np.inf, li - lj, -np.inf)
            out[c : c + CHUNK] = np.maximum(d.reshape(d.shape[0], -1).max(axis=1), 0.0)
    return out


def renyi_per_pair(LD, I, J, order: float, reduce=plain_sum) -> np.ndarray:
    """D_α (α > 1) or KL (α = 1) per pair, the sum over outcomes replaced by ``reduce``.

    For α > 1 the terms P^α P'^(1−α) are formed in log space and scaled by their largest value per pair before
    the reduction (a sum, or maxima of sums, commutes with a positive factor), so neither overflow nor underflow
    can turn a finite divergence into ∞ or 0."""
    out = np.empty(I.size)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for c in range(0, I.size, CHUNK):
            li, lj = LD[I[c : c + CHUNK]], LD[J[c : c + CHUNK]]
            on = li > -np.inf
            if order == 1.0:
                out[c : c + CHUNK] = np.maximum(reduce(np.where(on, np.exp(li) * (li - lj), 0.0)), 0.0)
                continue
            e = np.where(on, order * li + (1.0 - order) * lj, -np.inf)
            shape = (-1,) + (1,) * (e.ndim - 1)
            m = e.reshape(e.shape[0], -1).max(axis=1)
            finite = np.isfinite(m)
            s = reduce(np.exp(e - np.where(finite, m, 0.0).reshape(shape)) * finite.reshape(shape))
            out[c : c + CHUNK] = np.where(
                finite, np.maximum((m + np.log(s)) / (order - 1.0), 0.0), np.where(m > 0, math.inf, 0.0)
            )
    return out


def renyi_and_rho(LD, I, J, orders, reduce=plain_sum, top: int = 64, ratios=None):
    """({α: max over pairs of D_α} at ``orders`` and α = 1 (KL), (ρ, the order attaining it)).

    D_α is exact over every pair (pairs are skipped only when their max log-ratio, an upper bound of D_α, is
    below the best value found).  ρ is the supremum of D_α/α over the grid of :func:`privcheck.core.zcdp_rho`
    (itself a lower bound of the supremum over all α), taken at the given orders over every pair and on the fine
    grid over the ``top`` pairs that lead D_α/α at those orders: a lower bound of the pairs' ρ."""
    from privcheck.core.enclosure import RHO_GRID

    ratios = max_log_ratios(LD, I, J) if ratios is None else ratios
    seed = np.argsort(-ratios)[:top]
    per_order = {}
    for o in sorted(set(orders) | {1.0}):
        # D_α ≤ max log-ratio (and KL too): after the pairs of largest ratio, only pairs whose ratio exceeds
        # the best D_α so far can raise it; the others keep −∞ here (they cannot attain the maximum)
        v = np.full(I.size, -np.inf)
        v[seed] = renyi_per_pair(LD, I[seed], J[seed], o, reduce)
        rest = np.flatnonzero(ratios > v.max())
        rest = rest[v[rest] == -np.inf]
        v[rest] = renyi_per_pair(LD, I[rest], J[rest], o, reduce)
        per_order[o] = v
    stacked = np.stack([v / o for o, v in per_order.items()])
    lead = np.max(stacked, axis=0)
    best = np.argsort(-lead)[:top]
    keys = list(per_order)
    rho = float(lead.max())
    at = float(keys[int(np.argmax(stacked.max(axis=1)))])
    for a in RHO_GRID:
        if math.isinf(rho):
            break
        v = float(renyi_per_pair(LD, I[best], J[best], float(a), reduce).max()) / a
        if v > rho:
            rho, at = v, float(a)
    return {o: float(v.max()) for o, v in per_order.items()}, (rho, at)


class FloatErrors:
    """Bounds of the difference between the float figures of :mod:`pairwise` and the exact figures of the
    distributions as represented, uniform over the pairs (and over the adversaries of the interactive recursion).

    ``gamma`` bounds the relative error of every float probability against its exact value; ``total`` bounds
    every distribution's total mass; ``leaves`` is the number of terms a reduction adds up; ``L`` bounds |ln P|
    over the positive probabilities.  With u the unit roundoff and u_f = (FN_ULPS + 1)·u:

    * δ(ε): each term max(0, P − e^ε P') moves by at most (γ + 2u)(P + e^ε P') ≤ (2 + 2γ)(γ + 2u)·P where it is
      (or could be) positive, so δ moves by at most (3γ + 6u + leaves·u)·total, whatever ε;
    * ln P moves by at most γ' = 1.01γ + u_f·L, a log-ratio by 2γ' + u·2L;
    * ln Σ P^α P'^(1−α) by (2α − 1)γ' + 12αuL + (leaves + FN_ULPS + 4)·u·(1 + 2αL), D_α by that over α − 1;
    * KL = Σ P ln(P/P') by total·((γ + (leaves + 2)u)·2L + 2γ' + 2uL).
    """

    def __init__(self, gamma: float, total: float, leaves: int, L: float):
        from privcheck.core.enclosure import FN_ULPS, U

        self.gamma, self.total, self.leaves, self.L = gamma, total, leaves, L
        self.u, self.uf = U, (FN_ULPS + 1) * U
        self.gp = 1.01 * gamma + self.uf * L

    @classmethod
    def of(cls, D, gamma: float, leaves: int):
        from privcheck.core.enclosure import U

        pos = D[D > 0]
        L = float(np.max(-np.log(pos))) if pos.size else 0.0
        total = float(np.max(D.reshape(D.shape[0], -1).sum(axis=1))) * (1 + gamma + (leaves + 2) * U)
        return cls(gamma, total, leaves, max(L, 1.0))

    @property
    def delta(self) -> float:
        return (3 * self.gamma + 6 * self.u + self.leaves * self.u) * self.total

    @property
    def log_ratio(self) -> float:
        return 2 * self.gp + 2 * self.u * self.L

    def renyi(self, order: float) -> float:
        a = float(order)
        if a == 1.0:
            return self.total * (
                (self.gamma + (self.leaves + 2) * self.u) * 2 * self.L + 2 * self.gp + 2 * self.u * self.L
            )
        ln_s = (2 * a - 1) * self.gp + 12 * a * self.u * self.L + (self.leaves + 8) * self.u * (1 + 2 * a * self.L)
        return ln_s / (a - 1)


def epsilon_at_delta(D, LD, I, J, delta: float, scores, reduce=plain_sum, top: int = 1024):
    """(ε, k): the smallest ε with max over pairs of δ(ε) ≤ δ, from below (within a relative 1e-9 of the exact
    value), and the index k of a pair attaining it (None when ε = 0).

    The pairs leading any of ``scores`` (arrays over the pairs) are solved by bisection; then one pass over every
    pair checks δ just above the answer, and any pair still above δ there is solved in turn, until none is.  The
    result is the lower end of the last bisection bracket, so it never overstates."""

    def at(e, i, j):
        return per_pair(D, i, j, lambda a, b: hockey_terms(a, b, e), reduce)

    cand = np.unique(np.concatenate([np.argsort(-np.nan_to_num(s, posinf=1e300))[:top] for s in scores]))
    best, k = _bisect(D, LD, I, J, cand, delta, at)
    while math.isfinite(best):
        d = at(best * (1 + 1e-9) + 1e-12, I, J)
        over = np.flatnonzero(d > delta)
        if not over.size:
            break
        e, kk = _bisect(D, LD, I, J, over[np.argsort(-d[over])[:top]], delta, at)
        if e > best:
            best, k = e, kk
    return best, k


def _bisect(D, LD, I, J, cand, delta, at):
    """(max over the pairs ``cand`` of their smallest ε with δ(ε) ≤ δ, as the lower end of a bracket; the pair
    attaining it).  Pairs whose δ is already ≤ δ at the lower end are dropped as it rises (δ decreases in ε)."""
    d = at(0.0, I[cand], J[cand])
    if d.max(initial=0.0) <= delta:
        return 0.0, None
    inf_mass = at(math.inf, I[cand], J[cand])
    if inf_mass.max() > delta:  # mass where P' = 0 already exceeds δ
        return math.inf, int(cand[np.argmax(inf_mass)])
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((D[I[cand]] > 0) & (D[J[cand]] > 0), LD[I[cand]] - LD[J[cand]], 0.0)
    lo, hi = 0.0, float(r.max())
    cand = cand[d > delta]
    last = int(cand[np.argmax(d[d > delta])])
    top = at(hi, I[cand], J[cand])
    if top.max() > delta:  # only mass of infinite ratio is left above hi
        return hi, int(cand[np.argmax(top)])
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        d = at(mid, I[cand], J[cand])
        if d.max() > delta:
            lo, last = mid, int(cand[np.argmax(d)])
            cand = cand[d > delta]
        else:
            hi = mid
    return lo, last


def tradeoff_per_pair(D, I, J, gamma: float, tradeoff=None):
    """(μ, f-gap or None) lower bounds per pair, over the likelihood-ratio prefixes of the outcomes, from float
    probabilities each within a relative ``gamma`` of the exact ones (every row a distribution: total 1)."""
    from privcheck.core.tradeoff import pair_tradeoff

    mu = np.empty(I.size)
    gap = None if tradeoff is None else np.empty(I.size)
    for c in range(0, I.size, CHUNK):
        P = D[I[c : c + CHUNK]].reshape(min(CHUNK, I.size - c), -1)
        Q = D[J[c : c + CHUNK]].reshape(P.shape[0], -1)
        m, g, _ = pair_tradeoff(P * (1 - gamma), P * (1 + gamma), Q * (1 - gamma), Q * (1 + gamma), tradeoff=tradeoff)
        mu[c : c + CHUNK] = m
        if gap is not None:
            gap[c : c + CHUNK] = g
    return mu, gap


def tradeoff_figures(figs, P, Q, gamma: float, pair, tradeoff=None, mu=None, gap=None):
    """``figs`` with μ and the f-gap (the given per-pair maxima, else those of the pair (P, Q)) and the curve of
    the pair (P, Q): one ordered pair of distributions, each probability within a relative ``gamma``."""
    from dataclasses import replace

    from privcheck.core.enclosure import Enclosure
    from privcheck.core.tradeoff import curve_of_points, pair_tradeoff

    P, Q = np.asarray(P, dtype=float).reshape(-1), np.asarray(Q, dtype=float).reshape(-1)
    m, g, pts = pair_tradeoff(P * (1 - gamma), P * (1 + gamma), Q * (1 - gamma), Q * (1 + gamma), tradeoff=tradeoff)
    mu = float(m) if mu is None else max(float(m), mu)
    gap = (None if g is None else float(g)) if gap is None else max(float(g), gap)
    return replace(
        figs,
        mu=Enclosure.lower(mu),
        fgap=None if gap is None else Enclosure(gap, math.inf),
        curve=curve_of_points(pts, pair, tradeoff),
    )
