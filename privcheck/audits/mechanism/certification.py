"""Certification: the figure counts on fresh draws certify (:func:`certified_bound`, with :func:`levels`' split of the
failure probability), the fresh counts themselves (:func:`fresh_counts`: Poissonized for the ratio bound), the
figures and witness of the best certified candidate (:func:`certified`), and what an audit could have certified
(:func:`stated_reach`: an estimate, never a certified figure).

One-sided Clopper–Pearson bounds at level α/(2m) on each side, m the candidates kept and α = 1 − confidence, so
that with probability ≥ confidence every bound of the report holds at once.  An (ε, δ) claim (pure or approximate)
is certified on a Poissonized sample — each side's number of draws Poisson(``samples``), drawn from the seed — by
the two intervals at α/(4m) each and, at α/(2m), a conditional bound on the ratio of the event's probabilities
(:func:`~privcheck.audits.stats.ratio_epsilon`).  A lower bound never certifies privacy.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from privcheck.core import chunk_generator
from privcheck.core.tradeoff import Curve

from ..figures import event_figures, with_cells, with_ratio
from ..result import EngineResult
from ..rules import by_ratio, claimed_score, deciding, label, needs, score
from ..stats import (
    confidence_text,
    count_quantile,
    cp_lower,
    cp_upper,
    epsilon_from_bounds,
    ratio_epsilon,
    ratio_epsilon_at_delta,
)
from .events import BitWindow, Ladder, counted
from .runner import Drawing, Stream

__all__ = [
    "certified",
    "certified_bound",
    "counted_events",
    "fresh_counts",
    "levels",
    "reads_bits",
    "stated_reach",
    "BITS_NOTE",
    "REACH_POWER",
]

#: the place of a certification's Poissonized sizes among its keys (a stream's side is 0 or 1)
POISSON_SIZES = 2


def levels(claim, alpha_side: float) -> tuple[float, float | None]:
    """(level of each one-sided interval, level of the ratio bound or None) of a candidate given ``alpha_side``
    per side: an (ε, δ) claim (:func:`~privcheck.audits.rules.by_ratio`) is certified by the two intervals at
    half that each and the ratio bound at ``alpha_side``, on Poissonized draws; others by the two intervals at
    ``alpha_side``."""
    return (alpha_side / 2, alpha_side) if by_ratio(claim) else (alpha_side, None)


def certified_bound(claim, k_num, k_den, n_num, n_den, alpha_side, lower=cp_lower, upper=cp_upper):
    """The figure deciding ``claim`` that counts ``k_num`` of ``n_num`` and ``k_den`` of ``n_den`` certify, with
    :func:`levels`' split of ``alpha_side``: the larger of the two intervals' and the ratio bound's, where the
    ratio bound serves — alone for pure ε, with the numerator's lower bound for ε at δ > 0 (vectorised;
    ``lower``/``upper`` the one-sided bounds used)."""
    side, ratio = levels(claim, alpha_side)
    p_lo = lower(k_num, n_num, side)
    apart = score(claim, p_lo, upper(k_den, n_den, side))
    if ratio is None:
        return apart
    delta = needs(claim).delta
    if delta > 0:
        return np.maximum(apart, ratio_epsilon_at_delta(p_lo, k_num, k_den, ratio, delta, lower, upper))
    return np.maximum(apart, ratio_epsilon(k_num, k_den, ratio, lower, upper))


def fresh_counts(d: Drawing, pair, n: int, events, shapes, poissonized: bool, key, after=(), planned=None):
    """How many of ``n`` fresh draws per side of ``pair`` = (x, x′), drawn as ``d`` says
    (:class:`~.runner.Drawing`), fall in each of ``events`` — Poisson(n) draws a
    side when ``poissonized`` (the ratio bound's), their sizes drawn from the stream (*key, POISSON_SIZES, *after) —
    on the streams (*key, side, *after); ``shapes`` the draws' (trailing shape, dtype kind) a side, ``planned`` as
    :meth:`~.runner.ChunkRunner.count`'s.  Returns (counts on x, counts on x′, the draws made a side)."""
    streams = [Stream(d.target, x, (*key, side, *after), d.name) for side, x in enumerate(pair)]
    sizes = np.full(2, n, dtype=np.int64)
    if poissonized:
        sizes = chunk_generator(d.seed, *key, POISSON_SIZES, *after).poisson(n, 2)
    ca, cb = d.runner.count(streams, d.seed, sizes, events, shapes, planned=planned)
    return ca, cb, sizes


def _curve(results, best: int, alpha_side, pair) -> Curve:
    """The certified candidates as trade-off points: corner (q_upper, 1 − p_lower) of each, with the two-sided
    Clopper–Pearson rectangle at the same per-side level for drawing (``alpha_side``: one, or one per result)."""
    r = results
    k_num = np.array([c[2] for c in r], dtype=float)
    k_den = np.array([c[3] for c in r], dtype=float)
    p = np.array([c[4] for c in r])
    q = np.array([c[5] for c in r])
    n_num = np.array([c[6] for c in r], dtype=float)
    n_den = np.array([c[7] for c in r], dtype=float)
    alternative = ("x", "x'")
    names = [f"{c[0].describe()} (alternative {alternative[c[1]]})" for c in r]
    return Curve(
        q,
        np.nextafter(1.0 - p, 2.0).clip(0.0, 1.0),
        False,
        pair,
        best,
        k_den / np.maximum(n_den, 1),
        1.0 - k_num / np.maximum(n_num, 1),
        cp_lower(k_den, n_den, alpha_side),
        np.clip(1.0 - cp_upper(k_num, n_num, alpha_side), 0.0, 1.0),
        names,
    )


def counted_events(top) -> list:
    """The events counted to certify the candidates ``top``: each candidate's event, a ladder's rungs in its place
    (:class:`~.events.Ladder`)."""
    return [r for _, ev, _, _ in top for r in counted(ev)]


def certified(
    claim, top, counts, samples: int, alpha_side: float, confidence: float, pair, staged=False
) -> EngineResult:
    """The figures and witness of the best of the certified candidates ``top`` of ``pair`` = (x, x′) on ``counts``
    = (counts on x, counts on x′, (draws on x, draws on x′)) of :func:`counted_events` — ``samples`` per side planned,
    Poisson around it where the claim is certified by the ratio bound (:func:`~..rules.by_ratio`) — at
    ``alpha_side`` per side split by :func:`levels`: each candidate's one-sided bounds, and its ratio bound where it
    serves; a ladder's rungs each at its level over their number, its cells certifying D_α, KL and ρ
    (:func:`~..figures.with_cells`); ``staged``: certified in looks."""
    (ca, cb, drawn), (x, x2), poissonized = counts, pair, by_ratio(claim)
    ratio_level = levels(claim, alpha_side)[1]
    results, ladders, at = [], [], 0
    for _, cand, side, _ in top:
        k_alpha = alpha_side / len(counted(cand))  # (a ladder's rungs share the candidate's level)
        k_side = levels(claim, k_alpha)[0]
        first = len(results)
        for ev in counted(cand):
            k_num, k_den = (ca[at], cb[at]) if side == 0 else (cb[at], ca[at])
            n_num, n_den = (int(drawn[0]), int(drawn[1])) if side == 0 else (int(drawn[1]), int(drawn[0]))
            p = float(cp_lower(k_num, n_num, k_side))
            q = float(cp_upper(k_den, n_den, k_side))
            results.append((ev, side, k_num, k_den, p, q, n_num, n_den, k_side, k_alpha))
            at += 1
        if isinstance(cand, Ladder):
            ladders.append((cand, first, len(results)))

    # the reported event: the one whose certified bound is largest, the first of equals (all were certified at
    # once; the bounds elementwise, in one call)
    cols = [np.array([r[i] for r in results], dtype=float) for i in (2, 3, 6, 7, 8, 9)]
    figure = certified_bound(claim, *cols[:4], cols[5])
    best = int(np.argmax(np.where(np.isnan(figure), -np.inf, figure)))
    ev, side, k_num, k_den, p, q, n_num, n_den, level, _ = results[best]
    how = "in looks, " if staged else ""
    if ratio_level is None:
        what = "one-sided Clopper–Pearson bounds"
    else:
        what = "one-sided Clopper–Pearson bounds and a conditional bound on their ratio (Poissonized draws)"
    figures = event_figures(
        p, q, needs(claim), f"sampling: {what}, {how}all at once with confidence {confidence_text(confidence)}"
    )
    bounds = {"p_lower": p, "q_upper": q, "level_per_side": 1 - level}
    if ratio_level is not None:
        m = k_num + k_den
        share = float(cp_lower(k_num, m, ratio_level)) if m > 0 else 0.0
        other = float(cp_upper(k_den, m, ratio_level)) if m > 0 else 1.0
        figures = with_ratio(figures, share, other, p, needs(claim))
        bounds["ratio"] = {"share_lower": share, "other_upper": other, "level": 1 - ratio_level}
    num_x, den_x = (x, x2) if side == 0 else (x2, x)
    cells, head = None, deciding(claim, figures)[0][0].lo
    for ladder, i, j in ladders:  # the ladders' cells, where they certify more than the best event
        part = results[i:j]
        with_ladder = with_cells(figures, [r[4] for r in part], [r[5] for r in part], needs(claim))
        if (lo := deciding(claim, with_ladder)[0][0].lo) > head:
            figures, head, ev = with_ladder, lo, ladder
            rung = i + int(np.argmax(np.where(np.isnan(figure[i:j]), -np.inf, figure[i:j])))
            _, side, k_num, k_den, p, q, n_num, n_den, level, _ = results[rung]  # (the counts shown: its best rung's)
            bounds = {"p_lower": p, "q_upper": q, "level_per_side": 1 - level}
            num_x, den_x = (x, x2) if side == 0 else (x2, x)
            cells = {
                "x": [int(r[2]) for r in part],
                "x_prime": [int(r[3]) for r in part],
                "p_lower": [r[4] for r in part],
                "q_upper": [r[5] for r in part],
                "level_per_rung": 1 - part[0][8],
            }
    pair = [np.asarray(num_x).tolist(), np.asarray(den_x).tolist()]  # one copy, shared (a policy's table is T × K)
    figures = replace(figures, curve=_curve(results, best, cols[4], pair))
    counts = {"x": int(k_num), "x_prime": int(k_den), "samples": int(samples)}
    if poissonized:
        counts["drawn"] = {"x": n_num, "x_prime": n_den}
    witness = {
        "pair": pair,
        "event": ev.to_json(),
        "event_text": ev.describe(),
        "counts": counts,
        "bounds": bounds,
    }
    notes = ()
    if cells is not None:
        witness["cells"] = cells
        notes = (
            f"the divergences are certified from {ev.describe()}: the smallest divergence of the cells' laws over "
            "their confidence box (each rung's one-sided bounds), by its variational form; the counts shown are "
            "its rung that certifies the most alone",
        )
    return EngineResult(figures, witness, event=ev, notes=notes)


#: said when the event that refutes reads the outputs' bits (:func:`reads_bits`)
BITS_NOTE = (
    "the refuting event reads the outputs' bits, not only their values: the leak is in which doubles the noise can "
    "produce on each side — a floating-point leak, true of the code as it runs, which a proof over the real numbers "
    "does not see; noise drawn exactly on a grid closes it (the float-safe noise how-to)"
)


def reads_bits(event) -> bool:
    """Whether ``event`` reads the outputs' mantissa bits: a bit window's (:class:`~.events.BitWindow`), or a
    threshold on a classifier trained on their bits as well as their values."""
    if isinstance(event, BitWindow):
        return True
    features = getattr(getattr(getattr(event, "statistic", None), "fn", None), "features", None)
    return bool(getattr(features, "mantissa", 0))


#: the power at which :func:`stated_reach` says the smallest leak an audit would have detected
REACH_POWER = 0.8


def stated_reach(claim, k_num: int, k_den: int, n_sel: int, n: int, alpha_side: float) -> dict:
    """What an audit could have certified — an estimate, never a certified figure: ``epsilon``, the ε an event
    would certify at ``n`` fresh draws per side (the certification's bounds at ``alpha_side``) if its probabilities
    were those counted (``k_num``, ``k_den`` of ``n_sel``: in an audit, :func:`cross_fitted_counts`' — the
    chosen event's own selection counts flatter it); and ``detectable_factor``, the
    smallest f such that, were the event's total mass on both sides the one seen (P̂ + Q) and its log-ratio f times
    the one seen (r = ln(P̂/Q): P = (P̂ + Q)·e^{f·r}/(1 + e^{f·r})), the audit would refute the claim with
    probability at least :data:`REACH_POWER` (each count at its quantile √0.8 — Poisson on a Poissonized sample —
    and the bound monotone in both, so the power is at least 0.8): the target f times as leaky on this event — for
    (ε, δ) claims; None for the others, for an event that leaned the other way where counted, and beyond 64×.
    (Earlier models: the event at the boundary of an (f·ε, δ) claim, right for mechanisms whose events reach their
    claim, promised a policy 1.15× as leaky would be caught where none of 10 was; the event's probability on x′
    kept as seen (P = Q·e^{f·r}) gave a leakier target more mass than a randomized response made leakier has — the
    mass kept is exact for those, and the certification's ratio bound reads the share of that mass; the factor
    checks of benchmarks/reach_calibration.py.)"""
    nd = needs(claim)
    p_hat, q_hat = k_num / n_sel, k_den / n_sel
    a, b = np.array([round(p_hat * n)]), np.array([round(q_hat * n)])
    if nd.dp:
        epsilon = float(certified_bound(claim, a, b, n, n, alpha_side)[0])
    else:  # (the ε such an event gives, for a claim that ε does not decide)
        epsilon = float(epsilon_from_bounds(cp_lower(a, n, alpha_side), cp_upper(b, n, alpha_side))[0])
    out = {"epsilon": max(0.0, epsilon), "detectable_factor": None, "power": REACH_POWER}
    if not nd.dp:  # (the claim's own figure too: ρ, D_α, μ — as one event of those probabilities would certify it)
        value = float(certified_bound(claim, a, b, n, n, alpha_side)[0])
        out["figure"] = {"name": label(claim), "value": max(0.0, value) if math.isfinite(value) else 0.0}
    if not nd.dp or nd.epsilon <= 0:
        return out
    q = max(q_hat, 0.5 / n_sel)  # an event not seen on x′ still has some probability there
    if p_hat <= q:
        return out  # the event leaned the other way where counted: no leak seen to scale
    r, mass = math.log(p_hat / q), p_hat + q
    level = REACH_POWER**0.5
    poissonized = by_ratio(claim)  # each count's law: binomial at n draws, Poisson on a Poissonized sample

    def detected(f: float) -> bool:
        t = math.exp(min(f * r, 700.0))
        p, q_f = min(1.0, mass * t / (1 + t)), mass / (1 + t)  # the mass as seen, the log-ratio f·r
        a = min(n, count_quantile(1.0 - level, n, p, poissonized))  # k_num >= a with probability >= level
        b = min(n, count_quantile(level, n, q_f, poissonized))  # k_den <= b with probability >= level
        return bool(certified_bound(claim, np.array([a]), np.array([b]), n, n, alpha_side)[0] > claimed_score(claim))

    if not detected(64.0):
        return out
    lo, hi = 1.0, 64.0
    for _ in range(22):  # to within 63·2⁻²² ≈ 1.5e-5 (three digits are said; each step is two quantiles and a bound)
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if detected(mid) else (mid, hi)
    out["detectable_factor"] = hi
    return out
