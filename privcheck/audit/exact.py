"""The exact engine: divergences computed from the mechanism's exact faces, no sampling.

* **Finite outputs** (``support``/``logpmf``): the two output distributions are enumerated over the union of
  their supports; ε (max log-ratio), δ(ε) (hockey-stick), the smallest ε at a given δ, D_α and ρ come from
  :mod:`privcheck.core.divergences`.
* **Real densities** (``logcdf``/``logsf``, plus ``logpdf``): the real line is cut into intervals — a fine
  grid over the central region, a coarser one out to where both tails fall below e^(−60), and the two tails —
  whose masses are exact differences of the CDF (in log space).  The interval masses are a post-processing
  of the output, so by data processing every divergence of the binned pair is a *lower bound* of the true
  one; refining the grid only raises it.

Floating-point error is covered by rounding every reported figure down by a relative 1e-9
(:data:`EXACT_MARGIN`), so a correctly calibrated mechanism whose exact ε equals its claim is never refuted
by rounding.
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.core import (ApproxDP, DEFAULT_ORDERS, ExactMethodUnavailable, PureDP, RenyiDP, epsilon_for_delta,
                            has_density_face, has_finite_face, hockey_stick, max_log_ratio, renyi, round_down,
                            zcdp_rho)

from .report import refuted

__all__ = ["exact_audit", "exact_available", "ExactResult", "EXACT_MARGIN", "binned_logmasses"]

EXACT_MARGIN = 1e-9
_TAIL_LOG = -60.0
_N_FINE = 100_000
_N_WIDE = 20_000


class ExactResult:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def exact_available(mechanism) -> bool:
    return has_finite_face(mechanism) or (has_density_face(mechanism)
                                          and callable(getattr(mechanism, "logcdf", None))
                                          and callable(getattr(mechanism, "logsf", None)))


def _finite_cells(mech, x, x2):
    sa, sb = np.asarray(mech.support(x)), np.asarray(mech.support(x2))
    if sa.ndim > 1:
        outcomes = np.unique(np.concatenate([sa, sb]), axis=0)
    else:
        outcomes = np.unique(np.concatenate([sa, sb]))
    lp = np.asarray(mech.logpmf(x, outcomes), dtype=float)
    lq = np.asarray(mech.logpmf(x2, outcomes), dtype=float)
    for name, l in (("x", lp), ("x'", lq)):
        total = float(np.exp(l).sum())
        if l.shape != (len(outcomes),) or np.isnan(l).any() or abs(total - 1) > 1e-6:
            raise ExactMethodUnavailable(f"logpmf on input {name} does not sum to 1 over its support "
                                         f"(sum {total:.6g}); the exact face is inconsistent")
    return lp, lq, [o.tolist() if hasattr(o, "tolist") else o for o in outcomes], None


def _log_diff(la, lb):
    """ln(e^la − e^lb) for la ≥ lb, elementwise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = lb - la
        return la + np.where(t > -math.log(2), np.log(-np.expm1(t)), np.log1p(-np.exp(t)))


def _quantile(mech, x, log_tail: float, upper: bool) -> float:
    """A point beyond which the mass of M(x) is below e^log_tail (found by doubling, then bisection)."""
    f = (lambda o: float(mech.logsf(x, np.array([o]))[0])) if upper else (
        lambda o: float(mech.logcdf(x, np.array([o]))[0]))
    step = 1.0
    o = 0.0
    sign = 1.0 if upper else -1.0
    while f(o) > log_tail:
        o += sign * step
        step *= 2
        if step > 1e12:
            raise ExactMethodUnavailable("the output distribution's tails do not decay: no exact binning")
    lo, hi = o - sign * step / 2, o
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(mid) > log_tail:
            lo = mid
        else:
            hi = mid
    return hi


def binned_logmasses(mech, x, edges: np.ndarray) -> np.ndarray:
    """Log masses of (−∞, e_0], (e_0, e_1], …, (e_{m−1}, ∞) under M(x), from the log CDF / survival function."""
    lc = np.asarray(mech.logcdf(x, edges), dtype=float)
    ls = np.asarray(mech.logsf(x, edges), dtype=float)
    left = lc < ls  # below the median: differences of the CDF are accurate; above it use the survival function
    inner = np.where(left[1:], _log_diff(lc[1:], lc[:-1]), _log_diff(ls[:-1], ls[1:]))
    return np.concatenate([[lc[0]], inner, [ls[-1]]])


def _density_cells(mech, x, x2):
    ends = []
    for v in (x, x2):
        ends += [_quantile(mech, v, _TAIL_LOG, False), _quantile(mech, v, _TAIL_LOG, True),
                 _quantile(mech, v, -14.0, False), _quantile(mech, v, -14.0, True)]
    lo, hi = min(ends[0], ends[4]), max(ends[1], ends[5])
    flo, fhi = min(ends[2], ends[6]), max(ends[3], ends[7])
    # one fine grid over the central region and a coarse one outside it, never interleaved: a sliver of an
    # interval would have a CDF difference dominated by rounding
    fine = np.linspace(flo, fhi, _N_FINE)
    step = fine[1] - fine[0]
    wide = np.linspace(lo, hi, _N_WIDE)
    wide = wide[(wide < flo - step) | (wide > fhi + step)]
    edges = np.unique(np.concatenate([wide, fine]))
    lp, lq = binned_logmasses(mech, x, edges), binned_logmasses(mech, x2, edges)
    if np.isnan(lp).any() or np.isnan(lq).any():
        raise ExactMethodUnavailable("the log CDF returned NaN: no exact binning")
    cells = [[-math.inf, float(edges[0])]] + [[float(a), float(b)] for a, b in zip(edges[:-1], edges[1:])] + \
            [[float(edges[-1]), math.inf]]
    note = (f"densities integrated exactly over {len(cells):,} intervals from their CDFs; binning is a "
            f"post-processing, so every figure is a lower bound of the true divergence")
    return lp, lq, cells, note


def _cells(mech, x, x2):
    if has_finite_face(mech):
        return _finite_cells(mech, x, x2)
    if exact_available(mech):
        return _density_cells(mech, x, x2)
    raise ExactMethodUnavailable(f"{getattr(mech, 'name', 'the target')} has no exact face "
                                 "(support/logpmf, or logpdf with logcdf/logsf): use --method sample")


def _event_of(lp, lq, cells, eps, intervals: bool):
    """The hockey-stick set {o : P(o) > e^ε Q(o)} (or, if empty, the atom of largest ratio)."""
    with np.errstate(invalid="ignore"):
        mask = lp > eps + lq
    if not mask.any():  # the outcomes whose log-ratio is (within rounding) the largest
        with np.errstate(invalid="ignore"):
            r = np.where(lp > -np.inf, lp - lq, -np.inf)
        top = float(np.nanmax(r))
        mask = r >= top - EXACT_MARGIN * max(1.0, abs(top)) if np.isfinite(top) else r == top
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
        ev = {"kind": "intervals", "intervals": [[None if math.isinf(a) else a, None if math.isinf(b) else b]
                                                 for a, b in runs[:64]]}
    else:
        vals = [cells[i] for i in idx]
        text = "{o in {" + ", ".join(str(v) for v in vals[:8]) + (", …" if len(vals) > 8 else "") + "}}"
        ev = {"kind": "set", "values": vals[:64], "size": len(vals)}
    p = float(np.exp(lp[mask]).sum()) if mask.any() else 0.0
    q = float(np.exp(lq[mask]).sum()) if mask.any() else 0.0
    return ev, text, p, q


def exact_audit(mechanism, claim, pairs) -> ExactResult:
    """Exact figures, maximised over the given pairs in both orders."""
    delta = claim.delta if isinstance(claim, (PureDP, ApproxDP)) else 0.0
    orders = sorted(set(DEFAULT_ORDERS) | ({claim.order} if isinstance(claim, RenyiDP) else set()))
    best = None
    renyis = {a: 0.0 for a in orders}
    rho = 0.0
    note = None
    for x, x2 in pairs:
        lp, lq, cells, note = _cells(mechanism, x, x2)
        for num, den, a, b in ((lp, lq, x, x2), (lq, lp, x2, x)):
            eps = epsilon_for_delta(num, den, delta) if delta > 0 else max_log_ratio(num, den)
            # δ at a hair above the claimed ε: a lower bound of δ(ε) that ignores log-ratio rounding noise
            dlt = hockey_stick(num, den, _above(claim.epsilon)) if isinstance(claim, (PureDP, ApproxDP)) else None
            for o in orders:
                renyis[o] = max(renyis[o], renyi(num, den, o))
            r = zcdp_rho(num, den)
            rho = max(rho, r)
            key = _verdict_key(claim, eps, dlt, renyi(num, den, claim.order) if isinstance(claim, RenyiDP) else 0, r)
            if best is None or key > best[0]:
                best = (key, eps, dlt, num, den, cells, a, b)
    _, eps, dlt, num, den, cells, a, b = best
    eps_lo = round_down(eps, EXACT_MARGIN)
    dlt_lo = None if dlt is None else round_down(dlt, EXACT_MARGIN)
    renyis = {o: round_down(v, EXACT_MARGIN) for o, v in renyis.items()}
    rho = round_down(rho, EXACT_MARGIN)
    violates = refuted(claim, isinstance(claim, (PureDP, ApproxDP)) and eps_lo > claim.epsilon, renyis, rho)
    ev_eps = claim.epsilon if isinstance(claim, (PureDP, ApproxDP)) else (eps if math.isfinite(eps) else 0.0)
    ev, text, p, q = _event_of(num, den, cells, _above(ev_eps), intervals=note is not None)
    witness = {"pair": [np.asarray(a).tolist(), np.asarray(b).tolist()], "event": ev, "event_text": text,
               "probabilities": {"x": p, "x_prime": q}}
    return ExactResult(epsilon_lower=eps_lo, delta_lower=dlt_lo, rho_lower=rho, renyi_lower=renyis,
                       violates=bool(violates), witness=witness, note=note)


def _above(eps: float) -> float:
    return eps + EXACT_MARGIN * max(1.0, abs(eps))


def _verdict_key(claim, eps, dlt, ren, rho):
    if isinstance(claim, (PureDP, ApproxDP)):
        return (eps, dlt or 0.0)
    if isinstance(claim, RenyiDP):
        return (ren, eps)
    return (rho, eps)
