"""Certified bounds from counts.

One-sided Clopper–Pearson bounds at level α: with k successes in n trials,

    p_lower = Beta⁻¹(α; k, n − k + 1)   (0 when k = 0),
    p_upper = Beta⁻¹(1 − α; k + 1, n − k)   (1 when k = n),

moved outwards by a relative 1e-10 to cover the error of the inverse incomplete beta function.  From a lower
bound p on P[M(x) ∈ S] and an upper bound q on P[M(x') ∈ S] (Jagielski et al., "Auditing Differentially
Private Machine Learning", 2020):

    ε ≥ ln(p − δ) − ln q,        δ ≥ p − e^ε q,

and, when each side's number of draws is Poisson(n) instead of n (a *Poissonized* sample), a bound on the ratio
alone: the counts are then K ~ Poisson(n·p) and K′ ~ Poisson(n·q), independent, and given their sum m,
K ~ Binomial(m, p/(p + q)) whatever n is.  A one-sided Clopper–Pearson lower bound π_lo on K of m, and the same
bound read from the other end (an upper bound 1 − π_lo on K′ of m, computed as its own rounded-up bound), give

    ε ≥ ln π_lo − ln(1 − π_lo) = ln(p/q) with probability ≥ 1 − α given m, hence overall

(:func:`ratio_epsilon`).  On a rare event it is much tighter than the two intervals — their two margins add, and
each is at half the level.  It bounds the ratio only (q ≤ p·r); with p's own lower bound p_lo it serves (ε, δ)
claims too, every figure growing with p where q is replaced by p·r:

    δ ≥ p − e^ε q ≥ p(1 − e^ε r) ≥ p_lo(1 − e^ε r),        ε ≥ ln((p − δ)/q) ≥ ln((p_lo − δ)/(p_lo·r))

(:func:`ratio_epsilon_at_delta`; the three bounds hold together by the union bound).  It does not serve D_α, ρ
or μ, whose certificates need p and q apart.

By data processing (the indicator of S is a post-processing) for every α > 1

    D_α(M(x) ‖ M(x')) ≥ d_α(p, q) = 1/(α−1) ln[p^α q^(1−α) + (1−p)^α (1−q)^(1−α)]   when p > q,

because d_α(p', q') is increasing in p' and decreasing in q' on {p' > q'}: the corner (p_lower, q_upper) of
the confidence box is its minimum.  ρ ≥ sup_α d_α/α over a grid of α (and the KL limit α → 1).
"""

from __future__ import annotations


import numpy as np

from privcheck.core.enclosure import RHO_GRID

__all__ = [
    "confidence_text",
    "count_quantile",
    "cp_lower",
    "cp_upper",
    "epsilon_from_bounds",
    "ratio_epsilon",
    "ratio_epsilon_at_delta",
    "share_bounds",
    "delta_from_bounds",
    "bernoulli_renyi",
    "renyi_from_bounds",
    "rho_from_bounds",
    "zcdp_excess",
    "RHO_ORDERS",
    "scaled",
]

_MARGIN = 1e-10
#: the orders at which candidate events are scored for a zCDP claim (every fifth order of the one grid, and
#: KL): scoring only ranks events, and the certified ρ of the chosen event is taken over the whole grid
RHO_ORDERS = np.concatenate([[1.0], RHO_GRID[::5]])


def confidence_text(c: float) -> str:
    """95% — or, for confidences that would print as 100%, the failure probability: 1 − 2.03e-07."""
    text = f"{100 * c:g}%"
    return text if text != "100%" or c == 1 else f"1 − {1 - c:.3g}"


def cp_lower(k, n, alpha):
    """One-sided (1 − α) Clopper–Pearson lower bound, rounded down."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        from scipy.special import betaincinv  # imported on use: `privcheck regret` never pays for scipy

        b = betaincinv(k, n - k + 1, alpha)
    b = np.where(k <= 0, 0.0, b * (1 - _MARGIN))
    return np.clip(b, 0.0, 1.0)


def cp_upper(k, n, alpha):
    """One-sided (1 − α) Clopper–Pearson upper bound, rounded up."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        from scipy.special import betaincinv

        b = betaincinv(k + 1, n - k, 1 - alpha)
    b = np.where(k >= n, 1.0, b * (1 + _MARGIN) + 1e-300)
    return np.clip(b, 0.0, 1.0)


def epsilon_from_bounds(p_lo, q_hi, delta=0.0):
    """ln(p − δ) − ln q, clipped at 0 (0 where p ≤ δ); ``inf`` where q = 0 < p − δ."""
    p = np.asarray(p_lo, dtype=float) - delta
    q = np.asarray(q_hi, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)) - np.log(q), 0.0)
    return np.maximum(np.nan_to_num(e, nan=0.0, posinf=np.inf), 0.0)


def ratio_epsilon(k_num, k_den, alpha, lower=cp_lower, upper=cp_upper):
    """ln(p/q) bounded below from the counts of a Poissonized sample (``k_num`` on the numerator's side, ``k_den``
    on the other): the lower bound at level ``alpha`` on the share of ``k_num`` in the m = k_num + k_den draws
    that fell in the event, against the upper bound on the share of ``k_den`` (the same one-sided bound, each end
    rounded outwards); 0 where m = 0.  ``lower``/``upper`` are the bounds used (Clopper–Pearson's; an
    approximation only where the result ranks events)."""
    return epsilon_from_bounds(*share_bounds(k_num, k_den, alpha, lower, upper))


def share_bounds(k_num, k_den, alpha, lower=cp_lower, upper=cp_upper):
    """The two ends :func:`ratio_epsilon` reads: (lower bound on the numerator's share of the m = k_num + k_den
    draws in the event, upper bound on the other's share), each at level ``alpha``; (0, 1) where m = 0.  With
    probability at least 1 − α, q/p ≤ upper/lower."""
    k_num = np.asarray(k_num, dtype=float)
    k_den = np.asarray(k_den, dtype=float)
    m = k_num + k_den
    safe = np.maximum(m, 1.0)
    lo = np.where(m > 0, lower(k_num, safe, alpha), 0.0)
    hi = np.where(m > 0, upper(k_den, safe, alpha), 1.0)
    return lo, hi


def ratio_epsilon_at_delta(p_lo, k_num, k_den, alpha, delta, lower=cp_lower, upper=cp_upper):
    """ε at ``delta`` > 0 bounded below from P ≥ ``p_lo`` and the ratio bound of a Poissonized sample: with q ≤ p·r
    (r = the other's share over the numerator's, :func:`share_bounds`), (p − δ)/q ≥ (p − δ)/(p·r), which grows
    with p — so ln((p_lo − δ)/(p_lo·r)), clipped at 0 (0 where p_lo ≤ δ or nothing fell in the event).  For ranking
    events; the report's figure is computed with outward rounding (:func:`~privcheck.audits.figures.with_ratio`)."""
    lo, hi = share_bounds(k_num, k_den, alpha, lower, upper)
    p = np.asarray(p_lo, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.where(lo > 0, p * (hi / np.where(lo > 0, lo, 1.0)), 1.0)
    return epsilon_from_bounds(p, q, delta)


def delta_from_bounds(p_lo, q_hi, epsilon):
    """p − e^ε q, clipped at 0 (in log space: ε ≥ 710 does not overflow)."""
    p = np.asarray(p_lo, dtype=float)
    q = np.asarray(q_hi, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        gap = epsilon + np.log(q) - np.log(p)
        d = np.where(p > 0, p * -np.expm1(np.minimum(gap, 0.0)), 0.0)
    return np.maximum(np.nan_to_num(d, nan=0.0), 0.0)


def bernoulli_renyi(p, q, order):
    """d_α(p, q) = D_α(Bern(p) ‖ Bern(q)); α = 1 is the KL divergence.  Vectorised over p, q, and over the order
    when it is an array of orders > 1 (broadcast against p and q)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if np.ndim(order) == 0 and order == 1.0:
            t1 = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
            t0 = np.where(p < 1, (1 - p) * (np.log1p(-p) - np.log1p(-q)), 0.0)
            val = t1 + t0
        else:
            a = np.asarray(order, dtype=float)
            l1 = np.where(p > 0, a * np.log(p) + (1 - a) * np.log(q), -np.inf)
            l0 = np.where(p < 1, a * np.log1p(-p) + (1 - a) * np.log1p(-q), -np.inf)
            val = np.logaddexp(l1, l0) / (a - 1)
    return np.maximum(np.nan_to_num(val, nan=0.0, posinf=np.inf), 0.0)


def renyi_from_bounds(p_lo, q_hi, order):
    """Certified D_α lower bound from one-sided bounds (0 unless p_lo > q_hi)."""
    p = np.asarray(p_lo, dtype=float)
    q = np.asarray(q_hi, dtype=float)
    return np.where(p > q, bernoulli_renyi(p, q, order), 0.0)


def _over_orders(f, p, q):
    """max over :data:`RHO_ORDERS` of f(p, q, α), with the orders > 1 in one broadcast call (a last axis)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    rest = f(p[..., None], q[..., None], RHO_ORDERS[1:])
    return np.maximum(f(p, q, RHO_ORDERS[0]), rest.max(axis=-1, initial=-np.inf))


def rho_from_bounds(p_lo, q_hi):
    """max over :data:`RHO_ORDERS` of d_α(p_lo, q_hi)/α, in float64: the score that ranks candidate events
    (the reported ρ is certified by :func:`certified_figures`).  The values of :func:`renyi_from_bounds` divided
    by α, bit for bit, computed where p_lo > q_hi only (0 elsewhere) with the logarithms taken once for all the
    orders: scoring a policy's candidates spent a tenth of an audit in it (examples/linucb_releases.py)."""
    p, q = np.broadcast_arrays(np.asarray(p_lo, dtype=float), np.asarray(q_hi, dtype=float))
    out = np.zeros(p.shape)
    m = p > q
    p, q = p[m], q[m]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lp, lq, l1p, l1q = np.log(p), np.log(q), np.log1p(-p), np.log1p(-q)
        some, most = p > 0, p < 1
        kl = np.where(some, p * (lp - lq), 0.0) + np.where(most, (1 - p) * (l1p - l1q), 0.0)
        best = np.maximum(np.nan_to_num(kl, nan=0.0, posinf=np.inf), 0.0) / RHO_ORDERS[0]
        for a in RHO_ORDERS[1:]:
            l1 = np.where(some, a * lp + (1 - a) * lq, -np.inf)
            l0 = np.where(most, a * l1p + (1 - a) * l1q, -np.inf)
            val = np.maximum(np.nan_to_num(np.logaddexp(l1, l0) / (a - 1), nan=0.0, posinf=np.inf), 0.0)
            np.maximum(best, val / a, out=best)
    out[m] = best
    return out


def zcdp_excess(p, q, rho):
    """max over :data:`RHO_ORDERS` and both directions of d_α − ρα: a pair of Bernoulli laws is within the
    ρ-zCDP constraints on these orders where it is ≤ 0."""
    return _over_orders(lambda p, q, a: np.maximum(bernoulli_renyi(p, q, a), bernoulli_renyi(q, p, a)) - rho * a, p, q)


def count_quantile(level: float, n: int, pr: float, poissonized: bool) -> int:
    """The ``level`` quantile of a count — the smallest k with P[K ≤ k] ≥ ``level`` — of K ~ Binomial(n, pr), or
    K ~ Poisson(n·pr) on a Poissonized sample: scipy.stats' ``binom.ppf`` and ``poisson.ppf`` for 0 < level < 1 and
    0 ≤ pr ≤ 1, from scipy.special's distribution functions (importing scipy.stats costs a command about a second).
    The smallest such k by bisection on the distribution function, which is monotone in k."""
    from scipy.special import bdtr, pdtr

    n, pr = int(n), float(pr)
    if poissonized:
        cdf, hi = (lambda k: pdtr(k, n * pr)), max(1, int(n * pr + 40 * (n * pr) ** 0.5 + 40))
        while cdf(hi) < level:  # (never in practice: 40 standard deviations above the mean)
            hi *= 2
    else:
        cdf, hi = (lambda k: bdtr(k, n, pr)), n
    lo = -1  # cdf(lo) < level ≤ cdf(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if cdf(mid) < level else (lo, mid)
    return hi


def scaled(k, n_sel, n_cert):
    """Selection counts ``k`` of ``n_sel`` draws carried to ``n_cert`` draws, each end pulled in by half a count:
    k ≤ n_sel/2 becomes (k + ½)·n_cert/n_sel − ½, and n_sel − k likewise from the other end.  Equal sizes leave k
    as it is; a count of 0 (or all) on a smaller sample is never carried to a certain 0 (or all) on a larger one
    (a rare event seen 3 times against 0 on 2,000 draws is not 60 against 0 on 40,000)."""
    k, n_sel = np.asarray(k, dtype=float), np.asarray(n_sel, dtype=float)  # (n_sel: one, or one per count)
    scaled = (k + 0.5) * (n_cert / n_sel) - 0.5
    pulled = np.clip(np.where(k > n_sel / 2, n_cert - ((n_sel - k) + 0.5) * (n_cert / n_sel) + 0.5, scaled), 0, n_cert)
    return np.where(n_sel == n_cert, k, pulled)
