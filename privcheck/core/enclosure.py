"""Certified divergences of a pair of finite measures: every figure an enclosure [lo, hi].

A pair is given per outcome o by enclosures of the log-masses, ln P(o) ∈ [lp_lo, lp_hi] and
ln Q(o) ∈ [lq_lo, lq_hi] (−inf where the mass may be 0), and of the totals Σ P, Σ Q.  Masses are read as given:
a pmf whose entries are doubles is the exact rationals they denote, even when those sum to 1 only within a few
ulps; nothing is renormalised, and the totals enter the formulas below as they are.

The float64 path computes each figure with outward rounding under a stated error model: every numpy elementary
function (exp, log, expm1, log1p) is within :data:`FN_ULPS` ulps of the true value (measured ≤ 0.6 ulp on this
build, tested in ``tests/test_enclosure.py`` against mpmath), every + − × ÷ within half an ulp, and a sum of n
non-negative terms within (n + 2)·u of its value.  Each result is then moved outwards by a relative margin
that covers these errors, and by a few subnormals where terms may underflow.

Formulas (r = ln P − ln Q per outcome):

* pure ε = max(0, max_o r) — inf when some P(o) > 0 = Q(o);
* δ(ε) = Σ_o P·max(0, −expm1(ε − r)): non-negative terms in log space, so ε ≥ 709 needs no e^ε;
* D_α (α > 1) two ways, intersected: the direct ln Σ e^(α ln P + (1−α) ln Q) (a log-sum-exp), and the
  cancellation-free
  ln[α Σ P + (1−α) Σ Q + Σ_o c_α(o)] with c_α = P^α Q^(1−α) − αP − (1−α)Q = P·(expm1((α−1) r) + (α−1) expm1(−r))
  ≥ 0 (weighted AM–GM), which stays accurate as α → 1 and for tiny divergences (ρ = 1e-8);
* KL = Σ P ψ(r) + Σ P − Σ Q with ψ(r) = r + expm1(−r) ≥ 0 (again non-negative terms);
* ε at a given δ: the smallest ε ≥ 0 with δ(ε) ≤ δ, bracketed by two bisections on the certified ends of
  δ(ε) — the lower end ε_lo has δ_lo(ε_lo) > δ, so the true value exceeds it;
* ρ: the supremum of D_α/α over the grid :data:`RHO_GRID` (and KL), the lower end only: a grid supremum is a
  lower bound of the supremum over all α > 1.

Where the float path cannot decide a verdict, :mod:`privcheck.audits.escalate` recomputes the one deciding
figure in exact rationals or mpmath interval arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = [
    "Enclosure",
    "LogMassPair",
    "FN_ULPS",
    "U",
    "RHO_GRID",
    "pure_epsilon",
    "delta_at",
    "epsilon_at_delta",
    "renyi_enclosure",
    "kl",
    "rho_lower",
    "widen_down",
    "widen_up",
    "exact_interval",
    "iv_ends",
    "double_at_most",
    "double_at_least",
    "precision",
]

U = 2.0**-52
#: the error assumed for numpy's exp, log, expm1 and log1p, in ulps (measured ≤ 0.6 on this build)
FN_ULPS = 4
_TINY = 2.0**-1060  # covers underflow to subnormals of a few terms
#: the grid of Rényi orders over which ρ = sup D_α/α is taken (the KL limit α → 1 is added)
RHO_GRID = np.concatenate([1.0 + np.logspace(-4, 0, 41)[:-1], np.logspace(np.log10(2.0), 3, 60)])


@dataclass(frozen=True)
class Enclosure:
    """A certified interval [lo, hi] containing an exact value (hi may be inf; lo is never above hi).

    ``lo_exact``/``hi_exact``, where known (rational arithmetic, mpmath intervals), are the exact rational ends;
    ``lo``/``hi`` are those rounded outwards to doubles.  Verdicts compare the exact ends when there are any, so a
    truth within one ulp of a claim is still told apart from it."""

    lo: float
    hi: float
    lo_exact: object = None
    hi_exact: object = None

    def __post_init__(self):
        lo, hi = float(self.lo), float(self.hi)
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise ValueError(f"invalid enclosure [{lo!r}, {hi!r}]")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @classmethod
    def point(cls, v: float) -> "Enclosure":
        return cls(v, v)

    @classmethod
    def lower(cls, v: float) -> "Enclosure":
        """Only a lower end is certified (a grid supremum, a binned density): [v, inf]."""
        return cls(v, math.inf)

    @classmethod
    def exact(cls, lo, hi) -> "Enclosure":
        """From exact ends (Fractions, or ±inf as floats), rounded outwards for the float ends."""
        return cls(double_at_most(lo), double_at_least(hi), lo, hi)

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def _lo_key(self):
        return self.lo_exact if self.lo_exact is not None else _as_key(self.lo)

    def _hi_key(self):
        return self.hi_exact if self.hi_exact is not None else _as_key(self.hi)

    def exceeds(self, value: float) -> bool:
        """Whether the exact value is certainly above ``value`` (a double, read exactly)."""
        return _gt(self._lo_key(), _as_key(value))

    def at_most(self, value: float) -> bool:
        """Whether the exact value is certainly at most ``value``."""
        return not _gt(self._hi_key(), _as_key(value))

    def __and__(self, other: "Enclosure") -> "Enclosure":
        """The intersection of two enclosures of the same value."""
        lo = self if not _gt(other._lo_key(), self._lo_key()) else other
        hi = self if not _gt(self._hi_key(), other._hi_key()) else other
        if _gt(lo._lo_key(), hi._hi_key()):  # cannot happen for valid enclosures; keep the wider one
            return self if self.width >= other.width else other
        return Enclosure(lo.lo, hi.hi, lo.lo_exact, hi.hi_exact)

    @staticmethod
    def sup(encs) -> "Enclosure | None":
        """The enclosure of the maximum of several values: [max of the lower ends, max of the upper ends]."""
        encs = [e for e in encs if e is not None]
        if not encs:
            return None
        lo = max(encs, key=lambda e: _sort_key(e._lo_key()))
        hi = max(encs, key=lambda e: _sort_key(e._hi_key()))
        return Enclosure(lo.lo, max(lo.lo, hi.hi), lo.lo_exact, hi.hi_exact if hi.hi >= lo.lo else None)

    def to_json(self):
        return [None if math.isinf(self.lo) else self.lo, None if math.isinf(self.hi) else self.hi]


def _as_key(v):
    """A float as its exact rational (±inf kept as floats)."""
    if isinstance(v, float) and math.isinf(v):
        return v
    return Fraction(v)


def _gt(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):  # an infinity on one side
        return float(a) > float(b) if not (isinstance(a, Fraction) and isinstance(b, Fraction)) else a > b
    return a > b


def _sort_key(v):
    return (1, 0) if v == math.inf else ((-1, 0) if v == -math.inf else (0, v))


def double_at_most(v) -> float:
    """The largest double ≤ the exact value v (a Fraction or int; a float, ±inf included, is its own answer).
    ``float`` of a Fraction is correctly rounded, so one step corrects it."""
    if isinstance(v, float):
        return v
    f = float(v)
    return f if Fraction(f) <= v else math.nextafter(f, -math.inf)


def double_at_least(v) -> float:
    """The smallest double ≥ the exact value v."""
    if isinstance(v, float):
        return v
    f = float(v)
    return f if Fraction(f) >= v else math.nextafter(f, math.inf)


def _quiet(fn):
    """Run ``fn`` with numpy's floating-point warnings off: every overflow or invalid operation below either
    widens an enclosure to ±inf or is replaced explicitly, so the warnings carry no information for the user."""
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        with np.errstate(all="ignore"):
            return fn(*a, **kw)

    return wrapper


def widen_down(x, rel):
    """x moved towards −inf by a relative ``rel`` and a few subnormals (arrays or floats; ±inf kept)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.where(x > 0, x * (1.0 - rel), x * (1.0 + rel)) - _TINY
    out = np.where(np.isinf(x), x, out)
    return out if out.ndim else float(out)


def widen_up(x, rel):
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.where(x > 0, x * (1.0 + rel), x * (1.0 - rel)) + _TINY
    out = np.where(np.isinf(x), x, out)
    return out if out.ndim else float(out)


def exact_interval(values) -> tuple[np.ndarray, np.ndarray]:
    """Float enclosures [lo, hi] of exact values (floats are exact; Fractions and ints are rounded outwards)."""
    vals = list(values)
    if all(type(v) is float for v in vals):
        a = np.array(vals, dtype=float)
        return a, a.copy()
    exact = [float(v) if isinstance(v, np.floating) else v for v in vals]
    return (
        np.array([double_at_most(v) for v in exact], dtype=float),
        np.array([double_at_least(v) for v in exact], dtype=float),
    )


@_quiet
def _log_enclosure(lo, hi):
    """Enclosures of ln of values in [lo, hi] (≥ 0)."""
    with np.errstate(divide="ignore"):
        a, b = np.log(lo), np.log(hi)
    rel = (FN_ULPS + 1) * U
    # an error of FN ulps of the result, plus one ulp of the smallest log of a normal number's neighbourhood
    return widen_down(a, rel) - 1e-300, widen_up(b, rel) + 1e-300


class LogMassPair:
    """Enclosures of ln P(o), ln Q(o) over a common finite set of outcomes, and of the totals Σ P, Σ Q."""

    def __init__(
        self,
        lp_lo,
        lp_hi,
        lq_lo,
        lq_hi,
        total_p: Enclosure | None = None,
        total_q: Enclosure | None = None,
        off_p: tuple | None = None,
        off_q: tuple | None = None,
    ):
        self.lp_lo, self.lp_hi, self.lq_lo, self.lq_hi = (
            np.asarray(v, dtype=float).reshape(-1) for v in (lp_lo, lp_hi, lq_lo, lq_hi)
        )
        n = self.lp_lo.size
        if any(v.size != n for v in (self.lp_hi, self.lq_lo, self.lq_hi)):
            raise ValueError("the four log-mass arrays must have the same size")
        self.total_p = total_p if total_p is not None else _total(self.lp_lo, self.lp_hi)
        self.total_q = total_q if total_q is not None else _total(self.lq_lo, self.lq_hi)
        #: (an upper bound of max(0, 1 − Σ P), one of max(0, Σ P − 1)): how far the total may be from 1, kept
        #: apart from ``total_p`` because a deficit of 1e-300 is not a double's distance from 1
        self.off_p = off_p if off_p is not None else _off_one_logs(self.lp_lo, self.lp_hi)
        self.off_q = off_q if off_q is not None else _off_one_logs(self.lq_lo, self.lq_hi)

    @classmethod
    def from_logs(cls, lp, lq):
        """Exact log-masses (a ``logpmf`` face: the masses are e^lp, e^lq exactly)."""
        return cls(lp, lp, lq, lq)

    @classmethod
    def from_masses(cls, p_lo, p_hi, q_lo, q_hi, total_p=None, total_q=None):
        """Enclosures of the masses themselves (exact doubles: lo = hi)."""
        a, b = _log_enclosure(np.asarray(p_lo, float), np.asarray(p_hi, float))
        c, d = _log_enclosure(np.asarray(q_lo, float), np.asarray(q_hi, float))
        if total_p is None:
            total_p = _sum_enclosure(np.asarray(p_lo, float), np.asarray(p_hi, float))
        if total_q is None:
            total_q = _sum_enclosure(np.asarray(q_lo, float), np.asarray(q_hi, float))
        return cls(a, b, c, d, total_p, total_q, off_one(p_lo, p_hi), off_one(q_lo, q_hi))

    def swapped(self) -> "LogMassPair":
        return LogMassPair(
            self.lq_lo, self.lq_hi, self.lp_lo, self.lp_hi, self.total_q, self.total_p, self.off_q, self.off_p
        )

    @property
    def size(self) -> int:
        return self.lp_lo.size


def _sum_enclosure(lo, hi) -> Enclosure:
    n = lo.size
    rel = (n + 2) * U
    return Enclosure(max(0.0, widen_down(float(np.sum(lo)), rel)), widen_up(float(np.sum(hi)), rel))


def _up_abs(x: float) -> float:
    """x (a float result within half an ulp of a non-negative quantity) rounded up by one ulp and a subnormal."""
    return max(0.0, math.nextafter(math.nextafter(float(x), math.inf), math.inf))


def off_one(lo, hi) -> tuple[float, float]:
    """Upper bounds of max(0, 1 − Σ m) and max(0, Σ m − 1) for masses m within [lo, hi] (doubles): math.fsum
    rounds the exact Σ − 1 once, so a total of exactly 1 gives (0, 0) and 1 − 1e-300 gives about 1e-300."""
    lo, hi = np.asarray(lo, float).reshape(-1), np.asarray(hi, float).reshape(-1)
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return math.inf, math.inf
    below = -math.fsum(np.concatenate([lo, [-1.0]]).tolist())
    above = math.fsum(np.concatenate([hi, [-1.0]]).tolist())
    return (_up_abs(below) if below > 0 else 0.0), (_up_abs(above) if above > 0 else 0.0)


@_quiet
def _off_one_logs(l_lo, l_hi) -> tuple[float, float]:
    """:func:`off_one` for masses given by enclosures of their logarithms: 1 − Σ e^l = −expm1(l_k) − Σ_{i≠k} e^l_i
    with k the largest term, so that a total within 1e-300 of 1 is seen as such (each term enclosed outwards)."""
    l_lo, l_hi = np.asarray(l_lo, float).reshape(-1), np.asarray(l_hi, float).reshape(-1)
    if l_lo.size == 0:
        return 1.0, 0.0
    if np.isnan(l_lo).any() or np.isnan(l_hi).any() or (l_hi == np.inf).any():
        return math.inf, math.inf
    k = int(np.argmax(l_hi))
    rel = (FN_ULPS + 1) * U
    rest_lo, rest_hi = np.delete(l_lo, k), np.delete(l_hi, k)
    n = rest_lo.size
    s_lo = widen_down(float(np.sum(widen_down(np.exp(rest_lo), rel).clip(0))), (n + 2) * U) if n else 0.0
    s_hi = widen_up(float(np.sum(widen_up(np.exp(rest_hi), rel))), (n + 2) * U) if n else 0.0
    # 1 − Σ ≤ −expm1(l_k_lo) − Σ_rest_lo;  Σ − 1 ≤ expm1(l_k_hi) + Σ_rest_hi  (expm1 increasing)
    below = widen_up(-float(np.expm1(l_lo[k])), rel) - max(float(s_lo), 0.0)
    above = widen_up(float(np.expm1(l_hi[k])), rel) + float(s_hi)
    return (_up_abs(below) if below > 0 else 0.0), (_up_abs(above) if above > 0 else 0.0)


@_quiet
def _total(l_lo, l_hi) -> Enclosure:
    with np.errstate(under="ignore"):
        lo, hi = np.exp(l_lo), np.exp(l_hi)
    rel = (FN_ULPS + 1) * U
    return _sum_enclosure(np.asarray(widen_down(lo, rel)).clip(0), np.asarray(widen_up(hi, rel)))


@_quiet
def pure_epsilon(m: LogMassPair) -> Enclosure:
    """max(0, max_o ln P(o)/Q(o)) over outcomes where P may be positive."""
    lo_cand = m.lp_lo > -np.inf  # certainly positive
    hi_cand = m.lp_hi > -np.inf  # possibly positive
    with np.errstate(invalid="ignore"):
        if np.any(lo_cand & (m.lq_hi == -np.inf)):
            lo = math.inf
        else:
            lo = float(np.max(m.lp_lo[lo_cand] - m.lq_hi[lo_cand], initial=0.0))
        if np.any(hi_cand & (m.lq_lo == -np.inf)):
            hi = math.inf
        else:
            hi = float(np.max(m.lp_hi[hi_cand] - m.lq_lo[hi_cand], initial=0.0))
    return Enclosure(max(0.0, widen_down(lo, 2 * U)), max(0.0, widen_up(hi, 2 * U)))


def _gap_error(eps, l1, l2):
    """An absolute bound of the rounding error of ε + l1 − l2 (two additions)."""
    return (
        2 * U * (abs(eps) + np.abs(np.where(np.isfinite(l1), l1, 0.0)) + np.abs(np.where(np.isfinite(l2), l2, 0.0)))
        + 1e-300
    )


def _hockey_sum(lp, lq_for_gap, eps, lower: bool) -> float:
    """Σ e^lp·max(0, −expm1(ε + lq − lp)) with the gap moved against the side of the bound."""
    on = lp > -np.inf
    lp, lq = lp[on], lq_for_gap[on]
    if lp.size == 0:
        return 0.0
    with np.errstate(invalid="ignore", under="ignore", over="ignore"):
        gap = eps + lq - lp
        gap = np.where(np.isnan(gap), -np.inf, gap)
        err = _gap_error(eps, lq, lp)
        gap = gap + err if lower else gap - err  # a larger gap gives a smaller term
        w = np.maximum(-np.expm1(gap), 0.0)
        t = np.exp(lp) * w
    s = float(np.sum(t))
    rel = (2 * FN_ULPS + 4 + t.size) * U
    if lower:
        return max(0.0, widen_down(s, rel) - t.size * 2.0**-1074)
    return widen_up(s, rel) + t.size * 2.0**-1074


@_quiet
def delta_at(m: LogMassPair, epsilon: float) -> Enclosure:
    """δ(ε) = Σ max(0, P − e^ε Q); at ε = inf, the mass of P where Q = 0."""
    if math.isinf(epsilon):
        return Enclosure(
            _hockey_sum(m.lp_lo, np.where(m.lq_hi == -np.inf, -np.inf, np.inf), 0.0, True),
            _hockey_sum(m.lp_hi, np.where(m.lq_lo == -np.inf, -np.inf, np.inf), 0.0, False),
        )
    lo = _hockey_sum(m.lp_lo, m.lq_hi, epsilon, True)
    hi = _hockey_sum(m.lp_hi, m.lq_lo, epsilon, False)
    return Enclosure(lo, max(lo, hi))


def _bisect(fn, lo: float, hi: float, rel: float = 1e-12, steps: int = 200):
    """For a predicate true at ``lo`` and false at ``hi``, monotone: (last true, first false)."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi or hi - lo <= rel * max(abs(lo), 1e-300):
            break
        if fn(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


@_quiet
def epsilon_at_delta(m: LogMassPair, delta: float) -> Enclosure:
    """The smallest ε ≥ 0 with δ(ε) ≤ δ, as a certified bracket (within a relative 1e-12 when the float
    enclosures are tight)."""
    # lower end: the largest ε found with certified δ_lo(ε) > δ
    if _hockey_sum(m.lp_lo, m.lq_hi, 0.0, True) <= delta:
        lo = 0.0
    elif delta_at(m, math.inf).lo > delta:
        lo = math.inf
    else:
        top = pure_epsilon(m).hi
        top = top if math.isfinite(top) else 1.0
        while _hockey_sum(m.lp_lo, m.lq_hi, top, True) > delta:
            top = 2 * top + 1
        lo, _ = _bisect(lambda e: _hockey_sum(m.lp_lo, m.lq_hi, e, True) > delta, 0.0, top)
    # upper end: the smallest ε found with certified δ_hi(ε) ≤ δ
    if _hockey_sum(m.lp_hi, m.lq_lo, 0.0, False) <= delta:
        hi = 0.0
    elif delta_at(m, math.inf).hi > delta:
        hi = math.inf
    else:
        top = max(lo if math.isfinite(lo) else 0.0, pure_epsilon(m).hi)
        if not math.isfinite(top):
            top = 1.0
        while _hockey_sum(m.lp_hi, m.lq_lo, top, False) > delta:
            top = 2 * top + 1
        _, hi = _bisect(lambda e: _hockey_sum(m.lp_hi, m.lq_lo, e, False) > delta, 0.0, top)
    return Enclosure(lo, max(lo, hi))


def _phi(r, order):
    """φ(r) = expm1((α−1) r) + (α−1) expm1(−r) ≥ 0 (α = 1: ψ(r) = r + expm1(−r)), with an absolute error
    bound."""
    with np.errstate(over="ignore", invalid="ignore"):
        if order == 1.0:
            a, b = r, np.expm1(-r)
        else:
            a, b = np.expm1((order - 1.0) * r), (order - 1.0) * np.expm1(-r)
        v = a + b
        err = (FN_ULPS + 4) * U * (np.abs(a) + np.abs(b))
    return v, err


def _phi_range(r_lo, r_hi, order):
    """[min, max] of φ over [r_lo, r_hi] (φ decreases on r < 0 and increases on r > 0, φ(0) = 0)."""
    vlo, elo = _phi(r_lo, order)
    vhi, ehi = _phi(r_hi, order)
    up = np.maximum(vlo + elo, vhi + ehi)
    down = np.where(r_lo > 0, vlo - elo, np.where(r_hi < 0, vhi - ehi, 0.0))
    up = np.where(np.isnan(up), np.inf, up)
    return np.maximum(down, 0.0), widen_up(up, 2 * U)


def _stable_sum(m: LogMassPair, order: float):
    """[lo, hi] of Σ_o c_α(o) (see the module docstring); inf where some P(o) > 0 = Q(o)."""
    both = (m.lp_hi > -np.inf) & (m.lq_lo > -np.inf)
    only_q = m.lp_hi == -np.inf  # P(o) = 0: c = (α − 1) Q(o)  (KL: Q(o))
    maybe_q0 = (m.lp_hi > -np.inf) & (m.lq_lo == -np.inf)
    sure_q0 = (m.lp_lo > -np.inf) & (m.lq_hi == -np.inf)
    w = 1.0 if order == 1.0 else order - 1.0
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        r_lo = widen_down(m.lp_lo[both] - m.lq_hi[both], 2 * U)
        r_hi = widen_up(m.lp_hi[both] - m.lq_lo[both], 2 * U)
        f_lo, f_hi = _phi_range(np.asarray(r_lo), np.asarray(r_hi), order)
        t_lo = np.exp(m.lp_lo[both]) * f_lo
        t_hi = np.exp(m.lp_hi[both]) * f_hi
        t_lo = np.concatenate([t_lo, w * np.exp(m.lq_lo[only_q])])
        t_hi = np.concatenate([t_hi, w * np.exp(m.lq_hi[only_q])])
    t_lo = np.where(np.isnan(t_lo), 0.0, t_lo)
    t_hi = np.where(np.isnan(t_hi), np.inf, t_hi)
    rel = (2 * FN_ULPS + 6 + t_lo.size) * U
    lo = math.inf if sure_q0.any() else max(0.0, widen_down(float(np.sum(t_lo)), rel) - t_lo.size * 2.0**-1074)
    hi = math.inf if maybe_q0.any() else widen_up(float(np.sum(t_hi)), rel) + t_hi.size * 2.0**-1074
    return lo, max(lo, hi)


def _direct_renyi(m: LogMassPair, order: float) -> Enclosure:
    """1/(α−1) ln Σ e^(α ln P + (1−α) ln Q), by log-sum-exp with outward rounding."""
    a = float(order)
    if np.any((m.lp_lo > -np.inf) & (m.lq_hi == -np.inf)):
        return Enclosure(math.inf, math.inf)
    with np.errstate(invalid="ignore", over="ignore"):
        on_lo = m.lp_lo > -np.inf
        on_hi = m.lp_hi > -np.inf
        if np.any(on_hi & (m.lq_lo == -np.inf)):
            e_hi = None
        else:
            e_hi = a * m.lp_hi[on_hi] + (1 - a) * m.lq_lo[on_hi]
        e_lo = a * m.lp_lo[on_lo] + (1 - a) * m.lq_hi[on_lo]

    def lse(e, lower):
        if e is None:
            return math.inf
        if e.size == 0:
            return -math.inf
        mx = float(np.max(e))
        if mx == -math.inf:
            return mx
        if not math.isfinite(mx):  # an exponent overflowed: this form gives no finite end
            return -math.inf if lower else math.inf
        err_e = (
            4
            * U
            * (
                abs(mx)
                + a * float(np.max(np.abs(m.lp_hi[np.isfinite(m.lp_hi)]), initial=0.0))
                + (a - 1) * float(np.max(np.abs(m.lq_hi[np.isfinite(m.lq_hi)]), initial=0.0))
            )
        )
        with np.errstate(under="ignore", over="ignore", invalid="ignore"):
            s = float(np.sum(np.exp(e - mx)))
        if not math.isfinite(s) or s <= 0:  # exponents beyond a double's range: no finite end from this form
            return -math.inf if lower else math.inf
        ls = math.log(s)
        err = err_e + (FN_ULPS + e.size + 4) * U * (1 + abs(ls)) + 2 * U * abs(mx)
        v = mx + ls
        return v - err if lower else v + err

    lo, hi = lse(e_lo, True), lse(e_hi, False)
    lo = lo / (a - 1) if math.isfinite(lo) else lo
    hi = hi / (a - 1) if math.isfinite(hi) else hi
    lo, hi = widen_down(lo, 2 * U), widen_up(hi, 2 * U)
    return Enclosure(max(0.0, lo) if lo > -math.inf else 0.0, max(0.0, hi) if hi > -math.inf else 0.0)


def _stable_renyi(m: LogMassPair, order: float) -> Enclosure:
    a = float(order)
    c_lo, c_hi = _stable_sum(m, a)
    tp, tq = m.total_p, m.total_q
    if a == 1.0:
        x_lo = c_lo + (tp.lo - tq.hi)
        x_hi = c_hi + (tp.hi - tq.lo)
        lo, hi = widen_down(x_lo, 4 * U) - 4 * U * (tp.hi + tq.hi), widen_up(x_hi, 4 * U) + 4 * U * (tp.hi + tq.hi)
        return Enclosure(max(0.0, lo), max(0.0, hi))
    # S = 1 + x with x = α(ΣP − 1) + (1 − α)(ΣQ − 1) + Σ c
    base_lo = a * (tp.lo - 1.0) + (1.0 - a) * (tq.hi - 1.0)
    base_hi = a * (tp.hi - 1.0) + (1.0 - a) * (tq.lo - 1.0)
    slack = 6 * U * (a * (tp.hi + 1.0) + (a - 1.0) * (tq.hi + 1.0))
    x_lo = widen_down(c_lo + base_lo, 2 * U) - slack
    x_hi = widen_up(c_hi + base_hi, 2 * U) + slack
    with np.errstate(divide="ignore", invalid="ignore"):
        l_lo = math.log1p(x_lo) if x_lo > -1 else -math.inf
        l_hi = math.log1p(x_hi) if math.isfinite(x_hi) and x_hi > -1 else (math.inf if x_hi > -1 else -math.inf)
    rel = (FN_ULPS + 3) * U
    lo = widen_down(l_lo / (a - 1), rel) if math.isfinite(l_lo) else l_lo
    hi = widen_up(l_hi / (a - 1), rel) if math.isfinite(l_hi) else l_hi
    return Enclosure(max(0.0, lo) if lo > -math.inf else 0.0, max(0.0, hi) if hi > -math.inf else 0.0)


@_quiet
def renyi_enclosure(m: LogMassPair, order: float) -> Enclosure:
    """D_α(P‖Q) for α > 1 (α = 1: KL), clipped at 0."""
    if order == 1.0:
        return kl(m)
    stable = _stable_renyi(m, order)
    direct = _direct_renyi(m, order)
    return stable & direct


@_quiet
def kl(m: LogMassPair) -> Enclosure:
    return _stable_renyi(m, 1.0)


def _float_renyi_over(m: LogMassPair, grid) -> np.ndarray:
    """Plain float64 D_α at every order of ``grid`` (midpoints, no certification): only to rank the orders."""
    lp = 0.5 * (m.lp_lo + m.lp_hi)
    lq = 0.5 * (m.lq_lo + m.lq_hi)
    on = np.isfinite(lp)
    lp, lq = lp[on], lq[on]
    if lp.size == 0:
        return np.zeros(len(grid))
    if not np.isfinite(lq).all():
        return np.full(len(grid), np.inf)
    out = np.empty(len(grid))
    r = lp - lq
    with np.errstate(over="ignore", under="ignore"):
        for i, a in enumerate(grid):
            e = lp + (a - 1.0) * r
            mx = float(e.max())
            out[i] = (mx + math.log(float(np.exp(e - mx).sum()))) / (a - 1.0)
    return out


@_quiet
def rho_lower(
    m: LogMassPair, grid=RHO_GRID, certify: int = 3, kl_enclosure: Enclosure | None = None
) -> tuple[float, float]:
    """(ρ_lo, α): a certified lower end of sup_α D_α/α and the order attaining it.

    The orders of ``grid`` are ranked by a plain float64 evaluation of D_α/α; the ``certify`` best of them and
    KL are then computed with outward rounding (KL is taken from ``kl_enclosure`` when the caller has it).  Any
    order's certified D_α/α is a lower bound of ρ, so the ranking's own rounding cannot make the result unsound,
    only less tight."""
    grid = np.asarray(grid, dtype=float)
    best, at = (kl(m) if kl_enclosure is None else kl_enclosure).lo, 1.0
    if math.isinf(best):
        return best, at
    # rank every fourth order, then the neighbours of the best three: D_α/α is smooth in α
    coarse = np.arange(0, grid.size, 4)
    rank = _float_renyi_over(m, grid[coarse]) / grid[coarse]
    top = coarse[np.argsort(-np.nan_to_num(rank, nan=-1.0, posinf=1e308))[:certify]]
    near = np.unique(np.clip(np.concatenate([top + d for d in range(-3, 4)]), 0, grid.size - 1))
    rank = _float_renyi_over(m, grid[near]) / grid[near]
    for i in near[np.argsort(-np.nan_to_num(rank, nan=-1.0, posinf=1e308))[:certify]]:
        a = float(grid[i])
        v = renyi_enclosure(m, a).lo / a
        if v > best:
            best, at = v, a
    return max(0.0, widen_down(best, 2 * U)), at


def _to_fraction(raw) -> Fraction:
    from mpmath.libmp import to_rational

    p, q = to_rational(raw)
    return Fraction(p, q)


def iv_ends(x) -> tuple[Fraction, Fraction]:
    """The exact endpoints of an mpmath interval (±inf as float infinities)."""
    lo, hi = x._mpi_
    from mpmath.libmp import finf, fninf

    a = -math.inf if lo == fninf else (math.inf if lo == finf else _to_fraction(lo))
    b = math.inf if hi == finf else (-math.inf if hi == fninf else _to_fraction(hi))
    return a, b


class precision:
    """``with precision(bits) as iv:`` mpmath's interval context at ``bits`` at least (restored afterwards)."""

    def __init__(self, bits: int):
        self.bits = int(bits)

    def __enter__(self):
        from mpmath import iv

        self.old = iv.prec
        iv.prec = max(self.bits, iv.prec)
        return iv

    def __exit__(self, *exc):
        from mpmath import iv

        iv.prec = self.old
        return False
