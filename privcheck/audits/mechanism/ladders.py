"""Ladders: the cuts of a real statistic whose cells certify a divergence (D_α, ρ) beyond what one event's two
probabilities certify (:mod:`privcheck.audits.cells`), chosen on the selection sample.

For a claim decided by a divergence (:func:`~privcheck.audits.rules.by_cells`: Rényi DP, zCDP), each real statistic
the selection searched — the one its best event reads, every projection (the likelihood-ratio statistic of
Gaussian releases among them), the output itself — is cut at K equally spaced values between two pooled
quantiles of the selection draws (K ∈ :data:`RUNGS`, the quantiles :data:`SPANS`), each ladder read upwards and
downwards with either side as the numerator; each is scored by what its cells would certify at the certification's
draws (the selection counts carried there, one-sided Clopper–Pearson bounds at the ladder's level split over its
rungs).  The best competes with the best single events: it is certified in place of the last of them when it
scores higher.  For two Gaussians one event reads about 0.6 of ρ at 10⁵–10⁶ draws a side, a ladder of 16–32 rungs
0.92–0.97 (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import numpy as np

from ..rules import cells_score
from ..stats import cp_lower, cp_upper, scaled
from .events import Kind, Ladder, Statistic, Threshold

__all__ = ["best_ladder", "RUNGS", "SPANS"]

#: the numbers of rungs tried
RUNGS = (4, 8, 16, 32)
#: the pooled quantiles between which the rungs are spaced, tried in turn
SPANS = (0.001, 0.01, 0.05)
#: the statistics a selection cuts, at most (beyond those its best events read, in the order they were listed)
MAX_STATISTICS = 4


def _ladders(sa: np.ndarray, sb: np.ndarray):
    """Every ladder tried on one statistic's values ``sa`` (x), ``sb`` (x′): (its thresholds in the rungs' order,
    upwards, numerator side, rung counts on the numerator, on the denominator, their draws)."""
    xa, xb = np.sort(sa.astype(float)), np.sort(sb.astype(float))
    pooled = np.sort(np.concatenate([xa, xb]), kind="stable")
    if pooled.size < 8 or not np.isfinite(pooled[[0, -1]]).all() or pooled[0] == pooled[-1]:
        return
    for span in SPANS:
        lo, hi = np.quantile(pooled, [span, 1 - span])
        if not lo < hi:
            continue
        for k in RUNGS:
            ts = np.unique(np.linspace(lo, hi, k))
            above_a = xa.size - np.searchsorted(xa, ts, side="right")  # #{s > t}, nonincreasing in t
            above_b = xb.size - np.searchsorted(xb, ts, side="right")
            keep = np.concatenate([[True], np.diff(above_a + above_b) != 0])  # (a rung like the one before: dropped)
            ts, above_a, above_b = ts[keep], above_a[keep], above_b[keep]
            for up in (True, False):
                ca, cb = (above_a, above_b) if up else ((xa.size - above_a)[::-1], (xb.size - above_b)[::-1])
                rungs = tuple((ts if up else ts[::-1]).tolist())
                yield rungs, up, 0, ca, cb, min(xa.size, xb.size)
                yield rungs, up, 1, cb, ca, min(xa.size, xb.size)


def _cut(stat: Statistic, sa: np.ndarray, sb: np.ndarray, n_cert: int, alpha_side: float, claim):
    """The best (score, ladder, side, (num, den, n) of its best rung) of one statistic's values ``sa`` (x), ``sb``
    (x′), or None."""
    best = None
    n_a, n_b = sa.size, sb.size
    for rungs, up, side, num, den, n in _ladders(sa, sb):
        level = alpha_side / len(rungs)
        n_num, n_den = (n_a, n_b) if side == 0 else (n_b, n_a)
        P = cp_lower(scaled(num, n_num, n_cert), n_cert, level)
        Q = cp_upper(scaled(den, n_den, n_cert), n_cert, level)
        score = cells_score(claim, P, Q)
        if best is None or score > best[0]:
            j = int(np.argmax(P - Q))
            best = (score, Ladder(stat, rungs, up), side, (int(num[j]), int(den[j]), int(n)))
    return best


def best_ladder(claim, top, stats, a, b, n_cert: int, alpha_side: float):
    """The best ladder (score, :class:`~.events.Ladder`, numerator side, its best rung's selection counts) over the
    real statistics among ``stats`` — those the candidates ``top`` read first, then projections, sign statistics and
    the output —
    on the selection draws ``a`` (x) and ``b`` (x′); None when none is real."""
    read = [c[1].statistic for c in top if isinstance(c[1], Threshold)]
    rest = [st for st in stats if st.kind in (Kind.PROJECTION, Kind.SIGNS, Kind.OUTPUT)]
    chosen: list = []
    for st in read + rest:
        if st not in chosen:
            chosen.append(st)
    best = None
    for st in chosen[:MAX_STATISTICS]:
        sa, sb = st(a), st(b)
        if sa.dtype.kind not in "biuf" or sb.dtype.kind not in "biuf":
            continue
        found = _cut(st, sa, sb, n_cert, alpha_side, claim)
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    return best
