"""Trade-off functions, Gaussian differential privacy, and the conversions between privacy notions.

Hypothesis-testing privacy (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS-B 2022, §2).  For output
distributions P = M(x) and Q = M(x') of neighbouring inputs, a test that rejects "the output came from Q" on an
event S has type I error α = Q(S) and type II error β = 1 − P(S); the trade-off function T(Q, P)(α) is the
smallest β of any (randomised) test of level α.  A mechanism is **f-DP** when T(M(x'), M(x)) ≥ f for every
neighbouring pair in both orders, and **μ-GDP** when it is f-DP with

    G_μ(α) = Φ(Φ⁻¹(1 − α) − μ),

the trade-off between N(0, 1) and N(μ, 1).  Every event S therefore certifies, through its two probabilities,

    μ ≥ Φ⁻¹(P(S)) − Φ⁻¹(Q(S))                                                        (1)

(G_μ(Q(S)) ≤ 1 − P(S) rearranged), increasing in P(S) and decreasing in Q(S): a lower bound p ≤ P(S) and an
upper bound q ≥ Q(S) give μ ≥ Φ⁻¹(p) − Φ⁻¹(q), which is 0 when p = 0.  For finite distributions the best
events are the likelihood-ratio prefixes (Neyman–Pearson): T is piecewise linear with a vertex at each prefix,
and since G_μ is convex it lies below T as soon as it lies below every vertex, so the largest (1) over the
prefixes is the exact μ of the pair.

Conversions, each checked in ``proofs/gdp.py``:

* μ-GDP ⇔ (ε, δ_μ(ε))-DP for every ε ≥ 0 with δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (their Corollary 2.13);
* (ε, δ)-DP ⇔ f_{ε,δ}-DP with f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^(−ε)(1 − δ − α)) (their Proposition 2.5);
* ε-DP ⇒ μ-GDP with μ = 2Φ⁻¹(e^ε / (1 + e^ε)): f_{ε,0} has one interior vertex, at α = β = 1/(1 + e^ε);
* a Rényi claim D_α ≤ ε (both orders), or ρ-zCDP, allows exactly the points (a, b) whose two-point pair
  Bern(1 − b) vs Bern(a) meets it (a test is a post-processing, and the two-point pair itself meets the claim),
  so its trade-off curve is the smallest such b;
* an f-DP guarantee gives the privacy profile δ(ε) = sup_α (1 − f(α) − e^ε α) (their Proposition 2.12).

Φ⁻¹ is evaluated with directed rounding: scipy's ``ndtri`` is within :data:`NDTRI_REL` relative error plus
:data:`NDTRI_ABS` of the exact value (measured far below both against mpmath in ``tests/test_tradeoff.py``), and
every certified value is moved outwards by these margins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .errors import InvalidArgument

__all__ = [
    "ndtri_down",
    "ndtri_up",
    "mu_from_bounds",
    "certified_mu",
    "gdp_tradeoff",
    "dp_tradeoff",
    "bernoulli_tradeoff",
    "gdp_delta",
    "profile",
    "lower_hull",
    "mu_of_pure_epsilon",
    "pure_epsilon_of_mu",
    "check_tradeoff",
    "vectorised",
    "prefix_points",
    "Points",
    "pair_tradeoff",
    "curve_of_points",
    "fgap_lower",
    "Curve",
    "ALPHA_GRID",
]

#: the assumed relative error of scipy.special.ndtri (measured ≤ 3.2e-16 against mpmath), and an absolute one for
#: results that underflow
NDTRI_REL = 1e-12
NDTRI_ABS = 1e-300
#: type I errors at which curves are drawn and profiles computed: dense near 0 and 1, where curves bend
ALPHA_GRID = np.unique(
    np.concatenate(
        [[0.0], np.logspace(-12, -1, 300), np.linspace(0.0, 1.0, 1001), 1 - np.logspace(-12, -1, 300), [1.0]]
    )
)


def _ndtri(p):
    from scipy.special import ndtri

    with np.errstate(all="ignore"):
        return ndtri(np.clip(np.asarray(p, dtype=float), 0.0, 1.0))


def _ndtri_outward(p, sign: float):
    z = _ndtri(p)
    with np.errstate(invalid="ignore"):
        out = z + sign * (NDTRI_REL * np.abs(z) + NDTRI_ABS)
    return np.where(np.isinf(z), z, out)


def ndtri_down(p):
    """A lower bound of Φ⁻¹(p) (−inf at 0, +inf at 1), elementwise."""
    return _ndtri_outward(p, -1.0)


def ndtri_up(p):
    """An upper bound of Φ⁻¹(p), elementwise."""
    return _ndtri_outward(p, 1.0)


def _mu(zp, zq, p, q):
    with np.errstate(invalid="ignore"):
        d = zp - zq
    d = np.where(np.asarray(p) <= 0, 0.0, d)  # nothing certified on x: no bound
    d = np.where(np.isnan(d), np.where((np.asarray(p) >= 1) & (np.asarray(q) >= 1), 0.0, np.inf), d)
    return np.maximum(d, 0.0)


def mu_from_bounds(p_lower, q_upper):
    """(1) in plain float64, elementwise: the score that ranks candidate events for a μ-GDP claim."""
    p, q = np.asarray(p_lower, dtype=float), np.asarray(q_upper, dtype=float)
    return _mu(_ndtri(p), _ndtri(q), p, q)


def certified_mu(p_lower, q_upper, pc_upper=None, qc_lower=None):
    """A certified lower bound of μ from P(S) ≥ p_lower and Q(S) ≤ q_upper: Φ⁻¹ rounded down at p and up at q,
    the difference rounded down; 0 when p_lower = 0, inf when q_upper = 0 < p_lower or p_lower = 1 > q_upper.

    Near 1 a probability's complement carries the information (1 − 1e-300 is 1 in a double): given an upper bound
    ``pc_upper`` of 1 − P(S) and a lower bound ``qc_lower`` of 1 − Q(S), Φ⁻¹(P(S)) ≥ −Φ⁻¹(pc_upper) and
    Φ⁻¹(Q(S)) ≤ −Φ⁻¹(qc_lower) are used where they are better.  These are bounds of 1 − P(S), not of the mass
    P(S^c): the two differ when the total is not 1 (:func:`prefix_points` adds the deficit)."""
    p, q = np.asarray(p_lower, dtype=float), np.asarray(q_upper, dtype=float)
    zp, zq = ndtri_down(p), ndtri_up(q)
    if pc_upper is not None:
        pc = np.asarray(pc_upper, dtype=float)
        zp = np.where(p > 0, np.maximum(zp, -ndtri_up(pc)), zp)
        p = np.where(pc <= 0, 1.0, p)
    if qc_lower is not None:
        qc = np.asarray(qc_lower, dtype=float)
        zq = np.minimum(zq, -ndtri_down(qc))
        q = np.where(qc >= 1, 0.0, q)
    d = _mu(zp, zq, p, q)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.where(np.isfinite(d), np.maximum(d * (1 - 4e-16) - 1e-300, 0.0), d)
    return d if d.ndim else float(d)


def gdp_tradeoff(mu: float):
    """G_μ as a vectorised function of α."""
    from scipy.special import ndtr

    def f(alpha):
        a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        with np.errstate(all="ignore"):
            return np.clip(ndtr(-_ndtri(a) - mu), 0.0, 1.0)  # Φ⁻¹(1 − α) = −Φ⁻¹(α): exact for tiny α

    return f


def dp_tradeoff(epsilon: float, delta: float = 0.0):
    """f_{ε,δ} as a vectorised function of α (ε = inf: max(0, 1 − δ − ∞·α), i.e. 1 − δ at α = 0 only)."""

    def f(alpha):
        a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        with np.errstate(all="ignore"):
            e = math.exp(min(epsilon, 700.0))
            out = np.maximum.reduce([np.zeros_like(a), 1 - delta - e * a, (1 - delta - a) / e])
        return np.clip(np.where(np.isnan(out), 0.0, out), 0.0, 1.0)

    return f


def bernoulli_tradeoff(allowed):
    """The trade-off curve of a claim given as a test on two-point pairs: ``allowed(p, q)`` (vectorised) says
    whether Bern(p) vs Bern(q) meets the claim in both orders.  For each α the smallest β with
    allowed(1 − β, α) is found by bisection (the allowed β form an interval ending at 1 − α)."""

    def f(alpha):
        a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
        lo, hi = np.zeros_like(a), 1.0 - a  # β = 1 − α is always allowed (P = Q)
        ok0 = allowed(np.ones_like(a), a)  # β = 0 allowed?
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            good = allowed(1.0 - mid, a)
            hi = np.where(good, mid, hi)
            lo = np.where(good, lo, mid)
        return np.where(ok0, 0.0, hi)

    return f


def gdp_delta(mu: float, epsilon):
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), in log space (no overflow for large ε)."""
    from scipy.special import log_ndtr

    e = np.asarray(epsilon, dtype=float)
    if mu == 0:
        return np.zeros_like(e)
    with np.errstate(all="ignore"):
        la = log_ndtr(-e / mu + mu / 2)
        lb = e + log_ndtr(-e / mu - mu / 2)
        out = np.exp(la) * -np.expm1(np.minimum(lb - la, 0.0))
    return np.maximum(np.nan_to_num(out, nan=0.0), 0.0)


def lower_hull(alpha, beta):
    """The vertices of the lower convex hull of points (α, β) (sorted by α): the trade-off curve they certify."""
    a, b = np.asarray(alpha, dtype=float), np.asarray(beta, dtype=float)
    idx = np.lexsort((b, a))
    hull: list = []
    for i in idx.tolist():
        while len(hull) >= 2:
            j, k = hull[-2], hull[-1]
            if (a[k] - a[j]) * (b[i] - b[j]) - (b[k] - b[j]) * (a[i] - a[j]) <= 0:
                hull.pop()
            else:
                break
        hull.append(i)
    return a[hull], b[hull]


def profile(curve, epsilons, alpha=ALPHA_GRID):
    """δ(ε) = sup_α (1 − f(α) − e^ε α) of a trade-off curve ``curve`` (a vectorised α ↦ β on the grid ``alpha``,
    or arrays (α, β) of points — exact for a curve given by its vertices), at each ε.  Points are reduced to
    their lower convex hull, where the supremum is attained at the vertex whose slopes straddle −e^ε."""
    if callable(curve):
        a, b = np.asarray(alpha, dtype=float), np.asarray(curve(alpha), dtype=float)
    else:
        a, b = (np.asarray(v, dtype=float).reshape(-1) for v in curve)
    if a.size == 0:
        return np.zeros(np.shape(epsilons))
    a, b = lower_hull(a, b)
    eps = np.asarray(epsilons, dtype=float)
    with np.errstate(all="ignore"):
        slopes = np.diff(b) / np.diff(a)  # increasing along the hull
        # the best vertex for ε: the first whose outgoing slope is above −e^ε
        k = np.searchsorted(slopes, -np.exp(eps), side="right")
        cand = np.stack([np.clip(k - 1, 0, a.size - 1), np.clip(k, 0, a.size - 1), np.clip(k + 1, 0, a.size - 1)])
        la = np.log(a[cand])
        val = np.where(a[cand] > 0, 1.0 - b[cand] - np.exp(eps[None, :] + la), 1.0 - b[cand])
    return np.clip(np.max(val, axis=0), 0.0, 1.0)


def mu_of_pure_epsilon(epsilon: float) -> float:
    """The μ for which ε-DP implies μ-GDP, tightly: 2Φ⁻¹(e^ε / (1 + e^ε)) (float64)."""
    from scipy.special import expit

    return float(-2 * _ndtri(expit(-epsilon)))  # 2Φ⁻¹(1 − t) = −2Φ⁻¹(t): accurate when e^ε/(1 + e^ε) rounds to 1


def pure_epsilon_of_mu(mu: float) -> float:
    """The largest ε whose ε-DP implies μ-GDP: ln Φ(μ/2) − ln Φ(−μ/2), rounded down (a mechanism calibrated to
    ε-DP with this ε meets μ-GDP)."""
    from scipy.special import erf, ndtr

    # Φ(μ/2)/Φ(−μ/2) = 1 + erf(μ/(2√2))/Φ(−μ/2): no cancellation for small μ (a few ulps in all)
    e = math.log1p(float(erf(mu / (2 * math.sqrt(2)))) / float(ndtr(-mu / 2)))
    return max(0.0, e * (1 - 1e-12) - 1e-300)


def check_tradeoff(f, name: str = "the trade-off function"):
    """``f`` as a vectorised function (:func:`vectorised`); bad input if it is not a trade-off function on a grid of
    α: values in [0, 1], f(α) ≤ 1 − α, f non-increasing and convex (each within 1e-9)."""
    g = vectorised(f)
    a = ALPHA_GRID
    u = np.linspace(0.0, 1.0, 1001)  # convexity on a uniform grid: second differences ≥ 0
    try:
        v, w = g(a), g(u)
    except InvalidArgument:
        raise
    except Exception as e:
        raise InvalidArgument(f"{name} could not be evaluated at α in [0, 1]: {e}") from None
    tol = 1e-9
    if not np.isfinite(v).all() or (v < -tol).any() or (v > 1 + tol).any():
        raise InvalidArgument(f"{name} must take values in [0, 1] on [0, 1]")
    if (v > 1 - a + tol).any():
        i = int(np.argmax(v - (1 - a)))
        raise InvalidArgument(
            f"{name} is above 1 − α at α = {a[i]:.6g} (f = {v[i]:.6g}): no test does worse than "
            "random guessing, so no mechanism meets it"
        )
    if (np.diff(v) > tol).any():
        raise InvalidArgument(f"{name} must be non-increasing")
    if (w[:-2] - 2 * w[1:-1] + w[2:] < -tol).any():
        raise InvalidArgument(f"{name} must be convex")
    return g


def vectorised(f):
    """``f`` applied elementwise to arrays: called on the whole array when it returns one of the same shape,
    else one α at a time."""

    def g(alpha):
        a = np.asarray(alpha, dtype=float)
        try:
            v = np.asarray(f(a), dtype=float)
            if v.shape == a.shape:
                return v
        except Exception:
            pass
        return np.array([float(f(float(t))) for t in a.ravel()]).reshape(a.shape)

    return g


def prefix_points(p_lo, p_hi, q_lo, q_hi, total_p=None, total_q=None, deficit_p=None, excess_q=None):
    """Certified trade-off points of the likelihood-ratio prefixes of finite pairs, from enclosures of every
    outcome's masses ([p_lo, p_hi] under x, [q_lo, q_hi] under x', along the last axis; leading axes are pairs),
    of the totals (pairs (lo, hi), scalars or arrays over the leading axes; by default the rows' own sums rounded
    outwards), and of how far the totals may fall short of 1 under x (``deficit_p``, an upper bound of
    max(0, 1 − ΣP)) and exceed it under x' (``excess_q``, of max(0, ΣQ − 1)); by default from the totals.

    Masses are read as given: a row whose total is below 1 is not a distribution with its missing mass somewhere,
    so the type II error 1 − P(S) is P(S^c) plus the deficit, never P(S^c) alone.

    Returns :class:`Points`: for each prefix S_k (the k + 1 outcomes of largest ratio, ranked by the midpoints —
    any ranking gives valid events, the exact one gives the exact curve) a certified lower bound of P(S_k), upper
    bound of Q(S_k), upper bound of 1 − P(S_k) and lower bound of 1 − Q(S_k) (through the complements, which carry
    the information near 1), each the better of the direct sum and the total minus the other side's sum, with
    outward rounding ((n + 2) ulps of each partial sum of n non-negative terms); plain midpoints of P(S_k),
    Q(S_k) for drawing; and the ranking itself."""
    p_lo, p_hi, q_lo, q_hi = (np.asarray(v, dtype=float) for v in (p_lo, p_hi, q_lo, q_hi))
    n = p_lo.shape[-1]
    with np.errstate(all="ignore"):
        r = np.log(0.5 * (p_lo + p_hi)) - np.log(0.5 * (q_lo + q_hi))
    r = np.where(np.isnan(r), -np.inf, r)
    order = np.argsort(-r, axis=-1, kind="stable")
    a, b, c, d = (np.take_along_axis(v, order, -1) for v in (p_lo, p_hi, q_lo, q_hi))
    rel = (n + 2) * 2.0**-52
    tiny = (n + 2) * 2.0**-1074

    def down(v):
        return np.maximum(v * (1 - rel) - tiny, 0.0)

    def up(v):
        return v * (1 + rel) + tiny

    def rest(v):  # the mass of each prefix's complement: sums of the suffixes after it
        s = np.flip(np.cumsum(np.flip(v, -1), -1), -1)
        return np.concatenate([s[..., 1:], np.zeros(s.shape[:-1] + (1,))], -1)

    def ends(total, lo, hi):  # (lo, hi) of the totals, broadcast over the outcomes axis
        if total is None:
            return down(lo.sum(-1))[..., None], up(hi.sum(-1))[..., None]
        return tuple(np.asarray(t, dtype=float)[..., None] for t in total)

    tp_lo, tp_hi = ends(total_p, a, b)
    tq_lo, tq_hi = ends(total_q, c, d)
    with np.errstate(invalid="ignore", over="ignore"):
        dp = up(np.maximum(1.0 - tp_lo, 0.0)) if deficit_p is None else np.asarray(deficit_p, float)[..., None]
        eq = up(np.maximum(tq_hi - 1.0, 0.0)) if excess_q is None else np.asarray(excess_q, float)[..., None]
        P_pre, Q_pre = down(np.cumsum(a, -1)), up(np.cumsum(d, -1))  # each prefix's mass, from below and above
        Pc = np.minimum(up(rest(b)), up(tp_hi - P_pre))  # P(S^c) from above, Q(S^c) from below
        Qc = np.maximum(down(rest(c)), down(tq_lo - Q_pre))
        P_lower = np.maximum(P_pre, down(tp_lo - Pc))
        Q_upper = np.minimum(Q_pre, up(tq_hi - Qc))
        # 1 − P(S) = P(S^c) + (1 − ΣP) and 1 − Q(S) = Q(S^c) − (ΣQ − 1)
        one_minus_P = np.minimum(up(1.0 - P_lower), up(Pc + dp))
        one_minus_Q = np.maximum(down(1.0 - Q_upper), down(Qc - eq))
    one_minus_P = np.where(np.isnan(one_minus_P), 1.0, one_minus_P)
    one_minus_Q = np.where(np.isnan(one_minus_Q), 0.0, one_minus_Q)
    mid_p = np.cumsum(0.5 * (a + b), -1)
    mid_q = np.cumsum(0.5 * (c + d), -1)
    clip = lambda v: np.clip(v, 0.0, 1.0)  # noqa: E731
    return Points(clip(P_lower), clip(Q_upper), clip(one_minus_P), clip(one_minus_Q), clip(mid_p), clip(mid_q), order)


@dataclass(frozen=True)
class Points:
    """Certified bounds of the masses of a pair's likelihood-ratio prefixes (:func:`prefix_points`)."""

    P_lower: np.ndarray
    Q_upper: np.ndarray
    beta_upper: np.ndarray  # an upper bound of the type II error 1 − P(S) (P(S^c) and the total's deficit)
    not_alpha_lower: np.ndarray  # a lower bound of 1 − Q(S)
    P_mid: np.ndarray
    Q_mid: np.ndarray
    order: np.ndarray  # the outcomes by decreasing likelihood ratio: prefix S_k is order[..., :k + 1]

    def mu(self):
        return certified_mu(self.P_lower, self.Q_upper, self.beta_upper, self.not_alpha_lower)


def fgap_lower(tradeoff, p_lower, q_upper):
    """A lower bound of f(α) − β at the certified corner (α, β) = (q_upper, 1 − p_lower): positive exactly when
    the point lies below the claimed curve f (f as it computes; two roundings covered)."""
    p, q = np.asarray(p_lower, dtype=float), np.asarray(q_upper, dtype=float)
    with np.errstate(all="ignore"):
        v = np.asarray(tradeoff(q), dtype=float) - (1.0 - p)
    return np.nan_to_num(v - 4 * 2.0**-52, nan=-np.inf)


def pair_tradeoff(p_lo, p_hi, q_lo, q_hi, total_p=None, total_q=None, tradeoff=None, deficit_p=None, excess_q=None):
    """(μ lower bound, f-gap lower bound or None, points) of finite pairs (leading axes) — the largest over their
    likelihood-ratio prefixes of :func:`certified_mu` and :func:`fgap_lower`; ``points`` and the totals as
    :func:`prefix_points`."""
    pts = prefix_points(p_lo, p_hi, q_lo, q_hi, total_p, total_q, deficit_p, excess_q)
    mu = np.max(pts.mu(), axis=-1, initial=0.0)
    gap = None if tradeoff is None else np.max(fgap_lower(tradeoff, pts.P_lower, pts.Q_upper), axis=-1, initial=-np.inf)
    return mu, gap, pts


def curve_of_points(pts, pair, tradeoff=None) -> "Curve":
    """The :class:`Curve` of one pair's :func:`prefix_points`, the point of largest μ (or f-gap) chosen."""
    P, Q, mp, mq = (np.asarray(v).reshape(-1) for v in (pts.P_lower, pts.Q_upper, pts.P_mid, pts.Q_mid))
    score = np.asarray(pts.mu()).reshape(-1) if tradeoff is None else fgap_lower(tradeoff, P, Q)
    chosen = 0
    if score.size:  # of the prefixes within 1e-9 of the best, the most balanced (a Gaussian ties them all)
        top = float(np.max(score))
        near = score >= (top - 1e-9 * max(1.0, abs(top)) if math.isfinite(top) else top)
        chosen = int(np.argmin(np.where(near, np.abs(mp + mq - 1.0), np.inf))) + 1
    beta = np.nextafter(np.minimum(1.0 - P, np.asarray(pts.beta_upper).reshape(-1)), 2.0).clip(0.0, 1.0)
    return Curve(
        np.concatenate([[0.0], Q]),
        np.concatenate([[1.0], beta]),
        True,
        pair,
        chosen,
        np.concatenate([[0.0], mq]),
        np.concatenate([[1.0], 1.0 - mp]),
        members=np.asarray(pts.order).reshape(-1)[:chosen],
    )


@dataclass(frozen=True)
class Curve:
    """Certified points of the trade-off T(M(x'), M(x)) of one ordered pair: every point's true type I error
    α = P[M(x') ∈ S] is at most ``alpha`` and its type II error β = 1 − P[M(x) ∈ S] at most ``beta``, so the
    curve passes below and left of each (α, β) corner.

    ``exact`` curves (the exact engines) list every likelihood-ratio prefix of the pair, with plain ``alpha_mid``
    and ``beta_mid`` to draw; sampled ones list the certified candidates, with two-sided Clopper–Pearson
    rectangles [alpha_low, alpha] × [beta_low, beta] at the same per-side level (for drawing: only the corner is
    certified) and ``chosen`` the index of the reported candidate.  An exact curve's ``members`` are the outcomes
    (indices into the pair's support) of its chosen point's event."""

    alpha: np.ndarray
    beta: np.ndarray
    exact: bool
    pair: list
    chosen: int = 0
    alpha_mid: np.ndarray | None = None
    beta_mid: np.ndarray | None = None
    alpha_low: np.ndarray | None = None
    beta_low: np.ndarray | None = None
    events: list = field(default_factory=list)
    members: np.ndarray | None = None

    def to_json(self, limit: int = 200) -> dict:
        """At most ``limit`` points (an exact curve is thinned, keeping its ends and the chosen point)."""
        n = len(self.alpha)
        keep = np.arange(n)
        if n > limit:
            keep = np.unique(np.concatenate([np.linspace(0, n - 1, limit - 1).round().astype(int), [self.chosen]]))
        pts = []
        for i in keep.tolist():
            pt = {"alpha": float(self.alpha[i]), "beta": float(self.beta[i]), "chosen": i == self.chosen}
            if self.alpha_mid is not None:
                pt.update(alpha_estimate=float(self.alpha_mid[i]), beta_estimate=float(self.beta_mid[i]))
            if self.alpha_low is not None:
                pt.update(alpha_low=float(self.alpha_low[i]), beta_low=float(self.beta_low[i]))
            if i < len(self.events):
                pt["event"] = self.events[i]
            pts.append(pt)
        return {
            "kind": "exact" if self.exact else "sampled",
            "points_total": n,
            "null": "x'",
            "alternative": "x",
            "pair": self.pair,
            "meaning": "type I error alpha = P[M(x') in S] <= alpha, type II error beta = 1 - P[M(x) in S] "
            "<= beta for the event S of each point (certified corners)",
            "points": pts,
        }
