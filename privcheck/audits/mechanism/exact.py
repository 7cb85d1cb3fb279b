"""The exact engine for mechanisms: certified divergences from the exact faces, no sampling.

* **Finite outputs** (``support`` with ``pmf`` or ``logpmf``): the two output distributions are enumerated over
  the union of their supports.  A ``pmf`` face is read as given — doubles are the exact rationals they denote,
  Fractions are exact — and a ``logpmf`` face as exact log-probabilities.  Every figure is an enclosure
  (:mod:`privcheck.core.enclosure`); where the verdict is undecided in float64 the deciding figure of the
  straddling pairs is recomputed in mpmath interval arithmetic (:mod:`privcheck.audits.escalate`), so the
  resolution is that of the claim itself: a claim a relative 1e-9 below the truth is refuted, one at the truth
  is not.  A pmf whose total differs from 1 by more than :data:`MASS_TOLERANCE` is bad input.
* **Real densities** (``logcdf``/``logsf``): the line is cut into intervals — a fine grid over the central
  region, a coarser one out to where both tails fall below e^(−60), and the two tails — whose masses are
  differences of the CDF taken on the side of the median where they do not cancel.  The binned pair is a
  post-processing of the output, so its divergences are lower bounds of the true ones (only lower ends are
  reported).  Each log-CDF value is taken to be within :data:`DENSITY_LOG_ERROR`·(1 + |value|) of the truth
  (the built-ins are tested against mpmath at a sixteenth of that); the interval masses carry that error.
  Resolution: binning loses about a relative 1e-8 of D_α and ρ for the Gaussian and nothing of ε for
  Laplace-like noise (its tail interval attains the ratio); rounding costs about 1e-11 absolute.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument, has_finite_face
from privcheck.core.execution import plan
from privcheck.core.protocols import CdfFace, FiniteFace, Named, provides
from privcheck.core import tradeoff as tr
from privcheck.core.enclosure import (
    FN_ULPS,
    U,
    Enclosure,
    LogMassPair,
    delta_at,
    epsilon_at_delta,
    exact_interval,
    kl,
    pure_epsilon,
    renyi_enclosure,
    rho_lower,
    widen_down,
    widen_up,
)

from .. import escalate
from ..figures import Figures
from ..result import EngineResult
from ..rules import curve_witness, deciding, escalation, figure_of, needs, with_figure
from ..verdict import Verdict, decide, straddles

__all__ = ["exact_audit", "exact_available", "MASS_TOLERANCE", "DENSITY_LOG_ERROR", "pair_figures", "combine"]

#: an exact face whose total mass is off 1 by more than this is inconsistent (bad input)
MASS_TOLERANCE = 1e-9
#: the assumed error of a density face's log-CDF and log-survival values, relative to 1 + |value|
DENSITY_LOG_ERROR = 2.0**-44
_TAIL_LOG = -60.0
_N_FINE = 50_000
_N_WIDE = 10_000
_MAX_REFINE_OUTCOMES = 1 << 14


def exact_available(mechanism) -> bool:
    """A finite face, or a CDF face (``logcdf`` and ``logsf``: a density's, or a lattice distribution's steps)."""
    return has_finite_face(mechanism) or provides(mechanism, CdfFace)


_NAN = ("nan",)  # every NaN is one outcome: NaN != NaN, so as a key of its own each would be counted again


def _hashable(v):
    """A key under which equal outcomes meet: NaNs meet each other, and −0.0 stays apart from 0.0 (a release
    distinguishes them by their sign bit)."""
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(w) for w in v)
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        if v != v:
            return _NAN
        if v == 0.0 and math.copysign(1.0, v) < 0:
            return ("-0.0",)
    return v


def _outcomes(s) -> np.ndarray:
    """A support as an array; a list mixing types (("yes", 1), None, …) stays an object array, so that the
    mechanism's own pmf sees its outcomes as it gave them."""
    if isinstance(s, np.ndarray):
        return s
    a = np.asarray(s)
    if a.dtype.kind in "US":
        obj = np.asarray(s, dtype=object)
        if any(not isinstance(v, (str, np.str_)) for v in obj.ravel().tolist()):
            return obj
    return a


def _union_support(mech, x, x2):
    sa, sb = _outcomes(mech.support(x)), _outcomes(mech.support(x2))
    if sa.shape[1:] != sb.shape[1:]:
        raise InvalidArgument("the supports of the two inputs have outcomes of different shapes")
    if sa.dtype != sb.dtype:
        sa, sb = sa.astype(object), sb.astype(object)
    allo = np.concatenate([sa, sb])
    seen, idx = {}, []
    for i, o in enumerate(allo):
        key = _hashable(o.tolist() if hasattr(o, "tolist") else o)
        if key not in seen:
            seen[key] = i
            idx.append(i)
    return allo[np.array(idx, dtype=np.int64)]


def _face_values(mech, x, outcomes, name):
    """(values, logs): exact per-outcome values from ``pmf`` (logs False) or ``logpmf`` (logs True); floats are
    the exact rationals they denote, Fractions are exact."""
    n = len(outcomes)
    v = mech.pmf(x, outcomes) if provides(mech, FiniteFace) else None
    logs = v is None
    if logs:
        v = mech.logpmf(x, outcomes)
    v = np.asarray(v)
    face = "logpmf" if logs else "pmf"
    if v.shape != (n,):
        raise InvalidArgument(f"{face} on input {name} returned shape {v.shape}, not ({n},)")
    if v.dtype.kind not in "biufO":
        raise InvalidArgument(f"{face} on input {name} returned {v.dtype} values, not numbers")
    try:
        vals = escalate.as_exact_values(v)
        bad = [w for w in vals if (isinstance(w, float) and math.isnan(w)) or (w > 0 if logs else not 0 <= w <= 1)]
    except TypeError:
        raise InvalidArgument(f"{face} on input {name} returned values that are not numbers") from None
    if bad:
        raise InvalidArgument(
            f"{face} on input {name} has {'NaN or positive log-probabilities' if logs else 'values outside [0, 1]'}"
            f" (e.g. {bad[0]!r})"
        )
    return vals, logs


def _check_total(total: Enclosure, name: str):
    if total.lo > 1 + MASS_TOLERANCE or total.hi < 1 - MASS_TOLERANCE:
        raise InvalidArgument(
            f"the exact face on input {name} has total mass in [{total.lo:.12g}, {total.hi:.12g}], "
            f"not 1 within {MASS_TOLERANCE:g}: the face is inconsistent"
        )


def _finite_cells(mech, x, x2):
    outcomes = _union_support(mech, x, x2)
    (vp, logs), (vq, _) = _face_values(mech, x, outcomes, "x"), _face_values(mech, x2, outcomes, "x'")
    if logs:
        plo, phi = exact_interval(vp)
        qlo, qhi = exact_interval(vq)
        m = LogMassPair(plo, phi, qlo, qhi)
    else:
        plo, phi = exact_interval(vp)
        qlo, qhi = exact_interval(vq)
        m = LogMassPair.from_masses(plo, phi, qlo, qhi)
    _check_total(m.total_p, "x")
    _check_total(m.total_q, "x'")
    labels = [o.tolist() if hasattr(o, "tolist") else o for o in outcomes]
    return m, labels, None, (vp, vq, logs)


def _ordered(o: float) -> int:
    """The double ``o`` as an integer in the order of the doubles (−0.0 and 0.0 both 0)."""
    b = int(np.float64(o).view(np.int64))
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def _double(k: int) -> float:
    return float(np.int64(k).view(np.float64)) if k >= 0 else -float(np.int64(-k).view(np.float64))


def _quantile(mech, x, log_tail: float, upper: bool) -> float:
    """A point beyond which the mass of M(x) is below e^log_tail: the first double (``upper``: the smallest o with
    ln P[M(x) > o] ≤ log_tail; else the largest with ln P[M(x) ≤ o] ≤ log_tail), by bisection over the doubles
    in their order — 64 steps resolve any scale, 1e-200 as well as 1e200."""
    face = mech.logsf if upper else mech.logcdf

    def f(o):
        with np.errstate(all="ignore"):  # the search probes points up to 2^1023, where faces overflow
            return float(np.asarray(face(x, np.array([o])), dtype=float)[0])

    far, v = None, math.nan
    for e in range(1023, -1075, -8):  # the farthest point where the face gives a number
        v = f(math.ldexp(1.0 if upper else -1.0, e))
        if not math.isnan(v):
            far = _ordered(math.ldexp(1.0 if upper else -1.0, e))
            break
    if far is None or not v <= log_tail:
        raise ExactMethodUnavailable("the output distribution's tails do not decay: no exact binning")
    lo, hi = -far, far  # f(hi) ≤ log_tail; walk lo towards it while f(lo) > log_tail
    if f(_double(lo)) <= log_tail:
        return _double(lo)
    while abs(hi - lo) > 1:
        mid = (lo + hi) // 2
        if f(_double(mid)) > log_tail:  # NaN (a face's overflow far out) counts as beyond the tail
            lo = mid
        else:
            hi = mid
    return _double(hi)


def _binned_enclosure(mech, x, edges):
    """Enclosures [lo, hi] of the log masses of the intervals cut by ``edges``."""
    lc = np.asarray(mech.logcdf(x, edges), dtype=float)
    ls = np.asarray(mech.logsf(x, edges), dtype=float)
    if np.isnan(lc).any() or np.isnan(ls).any():
        raise ExactMethodUnavailable("the log CDF returned NaN: no exact binning")
    eta_c = DENSITY_LOG_ERROR * (1 + np.abs(np.where(np.isfinite(lc), lc, 0.0)))
    eta_s = DENSITY_LOG_ERROR * (1 + np.abs(np.where(np.isfinite(ls), ls, 0.0)))
    c_lo, c_hi = lc - eta_c, np.minimum(lc + eta_c, 0.0)
    s_lo, s_hi = ls - eta_s, np.minimum(ls + eta_s, 0.0)
    left = lc < ls  # below the median: differences of the CDF do not cancel; above it, of the survival function
    up = left[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        # mass of (a, b] = F(b) − F(a) = e^{lF(b)} (1 − e^{lF(a) − lF(b)}), or S(a) − S(b) likewise
        big_lo = np.where(up, c_lo[1:], s_lo[:-1])
        big_hi = np.where(up, c_hi[1:], s_hi[:-1])
        small_lo = np.where(up, c_lo[:-1], s_lo[1:])
        small_hi = np.where(up, c_hi[:-1], s_hi[1:])
        g_lo = small_hi - big_lo  # the largest the gap can be: the smallest mass
        g_hi = small_lo - big_hi
        in_lo = np.where(g_lo < 0, big_lo + np.log(-np.expm1(g_lo)), -np.inf)
        in_hi = np.where(g_hi < 0, big_hi + np.log(-np.expm1(g_hi)), big_hi)
    in_hi = np.minimum(np.where(np.isnan(in_hi), 0.0, in_hi), 0.0)
    in_lo = np.where(np.isnan(in_lo), -np.inf, in_lo)
    lo = np.concatenate([[c_lo[0]], in_lo, [s_lo[-1]]])
    hi = np.concatenate([[c_hi[0]], in_hi, [s_hi[-1]]])
    # the float operations above (two logs, an expm1, four additions): 8 ulps of each magnitude, and one more
    # for the gap's own rounding relative to the mass (|g| ≥ the ulp of the gap)
    err = 8 * U * (1 + np.abs(np.where(np.isfinite(lo), lo, 0.0)))
    return np.asarray(widen_down(lo - err, 0.0)), np.minimum(np.asarray(widen_up(hi + err, 0.0)), 0.0)


class _Cells:
    """The intervals (−∞, e_0], (e_0, e_1], …, (e_{m−1}, ∞) cut by sorted edges, built on demand."""

    def __init__(self, edges):
        self.edges = np.asarray(edges, dtype=float)

    def __len__(self):
        return self.edges.size + 1

    def __getitem__(self, i):
        e = self.edges
        return [-math.inf if i == 0 else float(e[i - 1]), math.inf if i == e.size else float(e[i])]


def _density_cells(mech, x, x2):
    ends = []
    for v in (x, x2):
        ends += [
            _quantile(mech, v, _TAIL_LOG, False),
            _quantile(mech, v, _TAIL_LOG, True),
            _quantile(mech, v, -14.0, False),
            _quantile(mech, v, -14.0, True),
        ]
    lo, hi = min(ends[0], ends[4]), max(ends[1], ends[5])
    flo, fhi = min(ends[2], ends[6]), max(ends[3], ends[7])
    # one fine grid over the central region and a coarse one outside it, never interleaved: a sliver of an
    # interval would have a mass dominated by the log-CDF's error
    fine = np.linspace(flo, fhi, _N_FINE)
    step = fine[1] - fine[0]
    wide = np.linspace(lo, hi, _N_WIDE)
    wide = wide[(wide < flo - step) | (wide > fhi + step)]
    edges = np.unique(np.concatenate([wide, fine]))
    plo, phi = _binned_enclosure(mech, x, edges)
    qlo, qhi = _binned_enclosure(mech, x2, edges)
    one = Enclosure(1.0, 1.0)  # the intervals partition the line: each side's masses sum to exactly 1
    m = LogMassPair(plo, phi, qlo, qhi, one, one, (0.0, 0.0), (0.0, 0.0))
    cells = _Cells(edges)
    note = (
        f"densities integrated over {len(cells):,} intervals from their CDFs; binning is a post-processing, "
        f"so every figure is a lower bound of the true divergence"
    )
    return m, cells, note, None


def _cells(mech, x, x2):
    if has_finite_face(mech):
        return _finite_cells(mech, x, x2)
    if exact_available(mech):
        return _density_cells(mech, x, x2)
    raise ExactMethodUnavailable(
        f"{mech.name if provides(mech, Named) else 'the target'} has no exact face "
        '(support/pmf or logpmf, or logcdf/logsf): use method="sample"'
    )


def _masses(m: LogMassPair):
    """Enclosures of the masses themselves from those of their logarithms (exp within FN_ULPS ulps)."""
    rel = (FN_ULPS + 1) * U
    with np.errstate(under="ignore", over="ignore"):
        return (
            np.maximum(widen_down(np.exp(m.lp_lo), rel), 0.0),
            widen_up(np.exp(m.lp_hi), rel),
            np.maximum(widen_down(np.exp(m.lq_lo), rel), 0.0),
            widen_up(np.exp(m.lq_hi), rel),
        )


def pair_tradeoff_figures(m: LogMassPair, nd):
    """(μ, f-gap or None, points) of one ordered pair over its likelihood-ratio prefixes (lower ends only)."""
    mu, gap, pts = tr.pair_tradeoff(
        *_masses(m),
        (m.total_p.lo, m.total_p.hi),
        (m.total_q.lo, m.total_q.hi),
        nd.tradeoff,
        deficit_p=m.off_p[0],
        excess_q=m.off_q[1],
    )
    return Enclosure.lower(float(mu)), None if gap is None else Enclosure(float(gap), math.inf), pts


def pair_figures(m: LogMassPair, nd, lower_only: bool = False) -> Figures:
    """Every figure of one ordered pair, as enclosures (``lower_only``: the upper ends are dropped, for binned
    densities whose upper ends bound only the binned pair).  ``curve`` holds the pair's prefix points until
    :func:`exact_audit` names the pair."""
    eps = epsilon_at_delta(m, nd.delta) if nd.delta > 0 else pure_epsilon(m)
    dlt = delta_at(m, nd.epsilon) if nd.dp else None
    ren = {o: renyi_enclosure(m, o) for o in nd.orders}
    k = kl(m)
    rho, _ = rho_lower(m, kl_enclosure=k)
    rho_enc = Enclosure.lower(rho)
    mu, gap, pts = pair_tradeoff_figures(m, nd)
    if lower_only:

        def cut(e):
            return None if e is None else Enclosure.lower(e.lo)

        return Figures(
            cut(eps), cut(dlt), {o: cut(v) for o, v in ren.items()}, rho_enc, cut(k), mu=mu, fgap=gap, curve=pts
        )
    return Figures(eps, dlt, ren, rho_enc, k, mu=mu, fgap=gap, curve=pts)


def combine(figs: list, certification: str) -> Figures:
    """The supremum over pairs: [max lo, max hi] of each figure (the curve is set by the caller)."""
    mx = Enclosure.sup
    return Figures(
        mx([f.epsilon for f in figs]),
        mx([f.delta for f in figs]),
        {o: mx([f.renyi[o] for f in figs]) for o in figs[0].renyi},
        mx([f.rho for f in figs]),
        mx([f.kl for f in figs]),
        certification,
        mx([f.mu for f in figs]),
        mx([f.fgap for f in figs]),
    )


def _refine_figures(claim, per, exacts):
    """Raise the precision of the deciding figure of the pairs whose enclosure contains the claim.  Returns the
    figures, the last precision used (None if none was) and how many such pairs were too large to recompute
    (more than :data:`_MAX_REFINE_OUTCOMES` outcomes): those keep their float enclosures, so the verdict can
    stay undecided, and the certification says why."""
    which = escalation(claim)
    if which is None:
        return per, None, 0
    kind, value, param = which
    near = [i for i, f in enumerate(per) if straddles(figure_of(f, kind, claim), value)]
    todo = [i for i in near if len(exacts[i][0]) <= _MAX_REFINE_OUTCOMES]

    def recompute(i, prec):
        enc = figure_of(per[i], kind, claim)
        if straddles(enc, value):  # pairs already settled at a lower precision are left as they are
            vp, vq, logs = exacts[i]
            per[i] = with_figure(per[i], kind, claim, escalate.refine(kind, vp, vq, logs, param, prec) & enc)

    bits = escalate.rising_precision(
        todo, recompute, lambda prec: not any(straddles(figure_of(per[i], kind, claim), value) for i in todo)
    )
    return per, bits, len(near) - len(todo)


def exact_audit(mechanism, claim, pairs, progress=None) -> EngineResult:
    """Certified exact figures, the supremum over the given pairs in both orders (``progress`` is told of each
    pair done)."""
    nd = needs(claim)
    plan(progress, len(pairs), " pairs")
    per, exacts, views = [], [], []
    note = None
    density = False
    for x, x2 in pairs:
        m, cells, note, exact_vals = _cells(mechanism, x, x2)
        density = exact_vals is None
        for mm, a, b, ex in (
            (m, x, x2, exact_vals),
            (m.swapped(), x2, x, None if exact_vals is None else (exact_vals[1], exact_vals[0], exact_vals[2])),
        ):
            per.append(pair_figures(mm, nd, lower_only=density))
            exacts.append(ex)
            views.append((mm, cells, a, b))
        if progress:
            progress(1)
    cert = (
        "float64 interval arithmetic (outward rounding) on the binned densities"
        if density
        else "float64 interval arithmetic (outward rounding)"
    )
    figs = combine(per, cert)
    # an enclosure containing the claim is refined with the exact values, also when its upper end is infinite
    # (a mass below the double range may be 0 as a double and positive in fact)
    if (
        not density
        and decide(claim, figs) is not Verdict.REFUTED
        and any(enc is not None and straddles(enc, value) for enc, value in deciding(claim, figs))
    ):
        per, bits, skipped = _refine_figures(claim, per, exacts)
        if bits is not None:
            cert = f"mpmath interval arithmetic at {bits} bits on the pairs near the claim, float64 elsewhere"
        if skipped:
            cert += (
                f"; {skipped} ordered pairs near the claim have more than {_MAX_REFINE_OUTCOMES:,} outcomes "
                "and kept their float64 enclosures"
            )
        figs = combine(per, cert)
    # the witness: the pair (and order) leading the deciding figure
    lead = max(range(len(per)), key=lambda i: deciding(claim, per[i])[0][0].lo)
    mm, cells, a, b = views[lead]
    pair = [np.asarray(a).tolist(), np.asarray(b).tolist()]
    figs = replace(figs, curve=tr.curve_of_points(per[lead].curve, pair, nd.tradeoff))
    if curve_witness(claim):  # the witness: the curve's chosen likelihood-ratio prefix
        mask = np.zeros(mm.size, dtype=bool)
        mask[figs.curve.members] = True
        with np.errstate(all="ignore"):
            ev, text, p, q = _event(mm, cells, 0.0, note is not None, mask)
    else:
        ev_eps = nd.epsilon if nd.dp else (figs.epsilon.lo if math.isfinite(figs.epsilon.lo) else 0.0)
        ev, text, p, q = _event_of(mm, cells, ev_eps, intervals=note is not None)
    witness = {"pair": pair, "event": ev, "event_text": text, "probabilities": {"x": p, "x_prime": q}}
    return EngineResult(figs, witness, () if note is None else (note,), pairs_considered=len(pairs))


def _event_of(m: LogMassPair, cells, eps, intervals: bool):
    """The hockey-stick set {o : P(o) > e^ε Q(o)} on the certified lower ends of P and upper of Q (or, if
    empty, the outcomes of largest ratio)."""
    with np.errstate(all="ignore"):
        return _event(m, cells, eps, intervals)


def _event(m: LogMassPair, cells, eps, intervals: bool, mask=None):
    lp = m.lp_lo
    lq = m.lq_hi
    if mask is None:
        with np.errstate(invalid="ignore"):
            mask = lp > eps + lq
    if not mask.any():  # the outcomes whose ratio is, within its enclosure, the largest
        with np.errstate(invalid="ignore"):
            r = np.where(m.lp_hi > -np.inf, 0.5 * (m.lp_lo + m.lp_hi) - 0.5 * (m.lq_lo + m.lq_hi), -np.inf)
            r = np.where(np.isnan(r), np.inf, r)
        k = int(np.argmax(r)) if r.size else 0
        top = float(r[k]) if r.size else -math.inf
        width = float((m.lp_hi[k] - m.lp_lo[k]) + (m.lq_hi[k] - m.lq_lo[k])) if r.size else 0.0
        tol = 1e-9 * max(1.0, abs(top)) + (width if math.isfinite(width) else 0.0)
        mask = r >= top - tol if np.isfinite(top) else r == top
    idx = np.flatnonzero(mask)
    if intervals:  # merge adjacent intervals
        runs, start = [], idx[0]
        for a, b in zip(idx[:-1], idx[1:]):
            if b != a + 1:
                runs.append([cells[start][0], cells[a][1]])
                start = b
        runs.append([cells[start][0], cells[idx[-1]][1]])
        merged = [runs[0]]
        for a, b in runs[1:]:  # runs that touch (a zero-mass sliver between them) are one interval
            if a <= merged[-1][1] + 1e-6 * max(1.0, abs(a)):
                merged[-1][1] = b
            else:
                merged.append([a, b])
        runs = merged
        text = " ∪ ".join(f"({a:.6g}, {b:.6g}]" for a, b in runs[:6]) + (" ∪ …" if len(runs) > 6 else "")
        ev = {
            "kind": "intervals",
            "intervals": [[None if math.isinf(a) else a, None if math.isinf(b) else b] for a, b in runs[:64]],
        }
    else:
        vals = [cells[i] for i in idx]
        text = "{o in {" + ", ".join(str(v) for v in vals[:8]) + (", …" if len(vals) > 8 else "") + "}}"
        ev = {"kind": "set", "values": vals[:64], "size": len(vals)}
    with np.errstate(under="ignore"):
        p = float(np.exp(m.lp_lo[mask]).sum()) if mask.any() else 0.0
        q = float(np.exp(m.lq_hi[mask]).sum()) if mask.any() else 0.0
    return ev, text, p, q
