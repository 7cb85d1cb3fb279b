"""A red-team corpus of finite faces, each with its figures computed exactly: the oracle of the soundness tests
(tests/audit/test_figures_against_truth.py) and of ``benchmarks/soundness.py``.

A face is a pair of finite measures P = M(0), Q = M(1) on a few outcomes, given to privcheck in one of the ways a
user gives them — exact fractions, doubles (whose rows sum to 1 only within ulps), logarithms (``logpmf``),
masses far below the double range, rows whose totals are off 1 within the accepted tolerance — and read by the
oracle exactly as privcheck must read them: a double is the rational it denotes, a log-mass ``l`` is the real
e^l, and nothing is renormalised.  The truth of every figure is computed in mpmath at 300 bits from those
exact values: pure ε, δ(ε), ε at δ, D_α, KL, ρ on privcheck's grid of orders, and μ as the supremum over every
event (all subsets of the support, not only the likelihood-ratio prefixes).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np

KINDS = ("fraction", "double", "log", "tiny", "off-one")
PREC = 300  # bits


@dataclass
class Face:
    """A finite mechanism on inputs 0 and 1 with the given face values (pmf or logpmf)."""

    values: tuple  # (values of input 0, values of input 1): Fractions, doubles or log doubles
    logs: bool
    name: str = "corpus face"

    def support(self, x):
        return list(range(len(self.values[0])))

    def pmf(self, x, outcomes):
        return None if self.logs else [self.values[int(x)][int(o)] for o in outcomes]

    def logpmf(self, x, outcomes):
        return [self.values[int(x)][int(o)] for o in outcomes]

    def sample(self, x, rng, size):  # never used by the exact engine
        raise NotImplementedError


def _weights(rng, n, zeros: bool):
    w = [int(v) for v in rng.integers(1, 1000, n)]
    if zeros and n > 1 and rng.random() < 0.3:
        w[int(rng.integers(n))] = 0
    return w


def random_face(rng: np.random.Generator, kind: str, n: int | None = None) -> tuple[Face, list, list]:
    """(face, P, Q): the values of inputs 0 and 1 as the oracle reads them exactly — Fractions, or log doubles
    when ``face.logs`` (:func:`exact_masses`)."""
    n = int(rng.integers(1, 6)) if n is None else n
    rows = []
    for _ in range(2):
        w = _weights(rng, n, zeros=kind in ("fraction", "double"))
        if sum(w) == 0:
            w[0] = 1
        rows.append([Fraction(v, sum(w)) for v in w])
    if rng.random() < 0.25:  # an input that does not matter: the truth is 0
        rows[1] = list(rows[0])
    if kind == "tiny":  # some masses far below the double range
        for r in rows:
            j = int(rng.integers(n))
            scale = Fraction(1, 2 ** int(rng.integers(1080, 1400)))
            moved = r[j] * (1 - scale)
            r[j] = r[j] * scale
            r[(j + 1) % n] += moved if n > 1 else 0
            if n == 1:
                r[j] = Fraction(1)
    if kind == "off-one":  # rows off 1 within the accepted tolerance (1e-9), as rows normalised from doubles
        for r in rows:
            k = int(rng.integers(1, 1000))
            sign = 1 if rng.random() < 0.5 else -1
            f = 1 + sign * Fraction(k, 10**12)
            r[:] = [v * f for v in r]
            if sum(r) > 1 + Fraction(1, 10**9) or any(v > 1 for v in r):
                r[:] = [v / f for v in r]
    if kind == "double" or kind == "off-one":
        vals = tuple(tuple(float(v) for v in r) for r in rows)
        return Face(vals, False), [Fraction(v) for v in vals[0]], [Fraction(v) for v in vals[1]]
    if kind == "log":
        vals = tuple(tuple(math.log(v) if v > 0 else -math.inf for v in r) for r in rows)
        return Face(vals, True), list(vals[0]), list(vals[1])
    vals = tuple(tuple(rows[i]) for i in range(2))
    return Face(vals, False), list(vals[0]), list(vals[1])


def exact_masses(values, logs: bool) -> list:
    """The masses a face's values denote, as mpmath numbers at the working precision: a Fraction exactly, a
    log double as e^l."""
    if logs:
        return [mp.exp(mp.mpf(v)) if v > -math.inf else mp.mpf(0) for v in values]
    return [mp.mpf(v.numerator) / v.denominator for v in values]


def truth(P, Q, epsilon: float, delta: float, orders, prec: int = PREC, logs: bool = False) -> dict:
    """Every figure of the ordered pair (P, Q) and its swap (the supremum of the two orders, as the engines
    report for a pair), in mpmath at ``prec`` bits (masses of 2^−1400 beside masses near 1 need about 3,000:
    D_α − 0 is then 2^−1000 of a sum near 1)."""
    with mp.workprec(PREC):  # μ from exact subset sums (Fractions) where the values are exact: 300 bits do
        out = {"mu": max(_mu(P, Q, logs), _mu(Q, P, logs))}
    with mp.workprec(prec):
        P, Q = exact_masses(P, logs), exact_masses(Q, logs)
        for key, fn in (("epsilon", _pure), ("kl", _kl)):
            out[key] = max(fn(P, Q), fn(Q, P))
        out["delta"] = max(_delta(P, Q, mp.mpf(epsilon)), _delta(Q, P, mp.mpf(epsilon)))
        out["renyi"] = {a: max(_renyi(P, Q, a), _renyi(Q, P, a)) for a in orders}
        out["epsilon_at_delta"] = max(_eps_at(P, Q, mp.mpf(delta)), _eps_at(Q, P, mp.mpf(delta)))
        return out


def _support(P, Q):
    """The (p, q) of the outcomes where P is positive, or None when Q is 0 at one of them (every figure is ∞)."""
    pairs = [(p, q) for p, q in zip(P, Q) if p > 0]
    return None if any(q == 0 for _, q in pairs) else pairs


def _pure(P, Q):
    pairs = _support(P, Q)
    return mp.inf if pairs is None else max([mp.mpf(0)] + [mp.log(p) - mp.log(q) for p, q in pairs])


def _delta(P, Q, eps):
    e = mp.exp(eps) if eps != mp.inf else mp.inf
    return sum((max(mp.mpf(0), p - e * q) if q > 0 or e != mp.inf else p) for p, q in zip(P, Q))


def _kl(P, Q):
    pairs = _support(P, Q)
    return mp.inf if pairs is None else max(sum((p * (mp.log(p) - mp.log(q)) for p, q in pairs), mp.mpf(0)), mp.mpf(0))


def _renyi(P, Q, a):
    pairs = _support(P, Q)
    if pairs is None:
        return mp.inf
    a = mp.mpf(a)
    s = sum((p**a * q ** (1 - a) for p, q in pairs), mp.mpf(0))
    return max(mp.log(s) / (a - 1), mp.mpf(0)) if s > 0 else mp.mpf(0)


def _eps_at(P, Q, delta):
    """The smallest ε ≥ 0 with δ(ε) ≤ δ (bisection to far below a double's resolution)."""
    if _delta(P, Q, mp.mpf(0)) <= delta:
        return mp.mpf(0)
    if _delta(P, Q, mp.inf) > delta:
        return mp.inf
    lo, hi = mp.mpf(0), mp.mpf(1)
    while _delta(P, Q, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _delta(P, Q, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _mu(P, Q, logs: bool):
    """sup over events S of Φ⁻¹(P(S)) − Φ⁻¹(Q(S)), every subset of the support (0 at S = ∅), with P(S) and
    1 − P(S) taken exactly from Fractions (1 − 2^−1200 is not 1), or from the masses at 300 bits for logs."""
    best = mp.mpf(0)
    n = len(P)
    for k in range(1, n + 1):
        for S in itertools.combinations(range(n), k):
            if logs:
                p, q = (sum(exact_masses([V[i] for i in S], True)) for V in (P, Q))
                pc, qc = 1 - p, 1 - q
            else:
                p, q = (sum((V[i] for i in S), Fraction(0)) for V in (P, Q))
                pc, qc = 1 - p, 1 - q
            if p <= 0:
                continue
            if q <= 0 or (pc <= 0 < qc):
                return mp.inf
            if pc <= 0 or qc <= 0:
                continue
            best = max(best, _ndtri(p, pc) - _ndtri(q, qc))
    return best


def _mpf(v):
    return mp.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mp.mpf(v)


def _ndtri(p, pc):
    """Φ⁻¹(p) for 0 < p < 1 given p and 1 − p exactly: −Φ⁻¹(1 − p) above 1/2 (accurate near 1), by bisection."""
    if p > Fraction(1, 2) if isinstance(p, Fraction) else p > 0.5:
        return -_ndtri(pc, p)
    p = _mpf(p)
    if p > mp.mpf(2) ** -1000:  # Newton from the double's Φ⁻¹: each step doubles the digits
        from scipy.special import ndtri

        z = mp.mpf(float(ndtri(float(p))))
        for _ in range(5):
            z -= (mp.ncdf(z) - p) / mp.npdf(z)
        return z
    lo, hi = mp.mpf(-40), mp.mpf(0)
    while mp.ncdf(lo) > p:
        lo *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if mp.ncdf(mid) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def double_at_least(v) -> float:
    """The smallest double ≥ the mpmath number v (inf stays inf)."""
    if v == mp.inf:
        return math.inf
    f = float(v)
    return f if mp.mpf(f) >= v else math.nextafter(f, math.inf)


@dataclass
class Tally:
    """What a run of the corpus found: claims tried, and every failure by class (all must be empty)."""

    claims: int = 0
    faces: int = 0
    false_refutations: list = None
    above_truth: list = None
    crashes: list = None
    missed: list = None  # a claim 1e-9 below a truth the exact engine resolves, not refuted

    def __post_init__(self):
        for f in ("false_refutations", "above_truth", "crashes", "missed"):
            setattr(self, f, [])

    def failures(self) -> list:
        return self.false_refutations + self.above_truth + self.crashes + self.missed


def _short(values) -> str:
    """The face's values, each to 6 digits (a Fraction of 2^1300 would fill a screen)."""
    return str(
        [
            [
                f"{float(v):.6g}"
                if float(v) != 0 or v == 0
                else f"2^{math.log2(v.numerator) - math.log2(v.denominator):.1f}"
                for v in row
            ]
            for row in values
        ]
    )


def _below(v) -> float:
    return float(v * (1 - mp.mpf("1e-9")))


def check_face(rng: np.random.Generator, kind: str, tally: Tally, epsilon: float = 0.5, delta: float = 0.05) -> None:
    """Audit one random face of ``kind`` against claims at its truth (never refuted) and 1e-9 below it (refuted
    where the exact engine's escalation resolves it: pure ε, δ(ε), D_2), and check every reported lower bound
    against the truth."""
    import privcheck as pc
    from privcheck.core.enclosure import RHO_GRID

    face, P, Q = random_face(rng, kind)
    orders = (1.01, 2.0, 64.0)  # near 1, the middle, large: claims at each; the grid's orders are checked below
    prec = 3200 if kind == "tiny" else PREC
    t = truth(P, Q, epsilon, delta, orders, prec, face.logs)
    if list(face.values[0]) == list(face.values[1]):  # the same measure: 0, not the oracle's 1e-90 (but D_α of
        # a measure with itself is ln(ΣP)/(α − 1), positive when the total is above 1)
        t.update(epsilon=mp.mpf(0), kl=mp.mpf(0), mu=mp.mpf(0), delta=mp.mpf(0), epsilon_at_delta=mp.mpf(0))
    with mp.workprec(prec):
        P, Q = exact_masses(P, face.logs), exact_masses(Q, face.logs)
        rho_grid = max([t["kl"]] + [max(_renyi(P, Q, a), _renyi(Q, P, a)) / a for a in RHO_GRID])
    rel = pc.AllPairs(domain=(0, 1))
    tally.faces += 1
    cases = []  # (claim, "holds" | "refute")
    if t["epsilon"] < mp.inf:
        cases.append((pc.PureDP(double_at_least(t["epsilon"]), rel), "holds"))
        if t["epsilon"] > 1e-300:
            cases.append((pc.PureDP(_below(t["epsilon"]), rel), "refute"))
    if double_at_least(t["delta"]) < 1:
        cases.append((pc.ApproxDP(epsilon, double_at_least(t["delta"]), rel), "holds"))
    if t["delta"] > 1e-290:
        cases.append((pc.ApproxDP(epsilon, _below(t["delta"]), rel), "refute"))
    if t["epsilon_at_delta"] < mp.inf:
        cases.append((pc.ApproxDP(double_at_least(t["epsilon_at_delta"]), delta, rel), "holds"))
    for a in orders:
        if t["renyi"][a] < mp.inf:
            cases.append((pc.RenyiDP(a, max(double_at_least(t["renyi"][a]), 5e-324), rel), "holds"))
            if t["renyi"][a] > 1e-80:  # below, the oracle's own rounding at 300 bits
                cases.append((pc.RenyiDP(a, _below(t["renyi"][a]), rel), "refute"))
    if rho_grid < mp.inf:
        cases.append((pc.ZCDP(max(double_at_least(rho_grid), 5e-324), rel), "holds"))
    if t["mu"] < mp.inf:
        cases.append((pc.GaussianDP(max(double_at_least(t["mu"]), 5e-324), rel), "holds"))
    for claim, want in cases:
        tally.claims += 1
        where = f"{kind} face {_short(face.values)} claim {claim}"
        try:
            rep = pc.audit(face, claim, method="exact", seed=0)
        except Exception as e:  # noqa: BLE001 — every crash is a finding
            tally.crashes.append(f"{where}: {type(e).__name__}: {e}")
            continue
        if want == "holds" and rep.violates_claim:
            tally.false_refutations.append(f"{where}: refuted ({rep.extra.get('certification')})")
        if want == "refute" and not rep.violates_claim:
            tally.missed.append(f"{where}: not refuted ({rep.extra.get('certification')})")
        kl_lower = (rep.extra.get("kl_enclosure") or [None])[0]
        checks = [
            ("epsilon", rep.epsilon_lower, t["epsilon"]),
            ("mu", rep.mu_lower, t["mu"]),
            ("rho", rep.rho_lower, rho_grid),
            ("KL", kl_lower, t["kl"]),
        ]
        for a, got in (rep.renyi_lower or {}).items():  # every order reported, the grid's and the claim's
            with mp.workprec(prec):
                checks.append((f"D_{a:g}", got, max(_renyi(P, Q, a), _renyi(Q, P, a))))
        for name, got, true in checks:
            if got is not None and mp.mpf(got) > true * (1 + mp.mpf(2) ** -150):  # the oracle's own rounding
                tally.above_truth.append(f"{where}: {name} ≥ {got!r} above the truth {mp.nstr(true, 17)}")
        if isinstance(claim, pc.ApproxDP) and claim.epsilon == epsilon and rep.delta_lower is not None:
            if mp.mpf(rep.delta_lower) > t["delta"] * (1 + mp.mpf(2) ** -250):
                tally.above_truth.append(f"{where}: δ ≥ {rep.delta_lower!r} above {mp.nstr(t['delta'], 17)}")


def random_rules(rng: np.random.Generator, horizon: int = 2) -> list:
    """Decision-rule tables (two arms, binary rewards): rule t has 4^(t−1) rows (P[arm 0], P[arm 1]) of doubles,
    some rows off 1 by k·1e-12 (within the accepted tolerance) as rows normalised from doubles are."""
    rules = []
    for t in range(horizon):
        rule = []
        for _ in range(4**t):
            p = float(rng.integers(1, 1000)) / 1000
            row = [p, 1 - p]
            if rng.random() < 0.5:
                row = [v * (1 - int(rng.integers(1, 1000)) * 1e-12) for v in row]
            rule.append(row)
        rules.append(rule)
    return rules


def _sequence_law(rules, x, definition):
    """{action sequence: exact probability} of a decision-rule policy on input ``x`` (rows as given)."""
    T = len(rules)
    out = {}
    for seq in itertools.product((0, 1), repeat=T):
        pr, idx = Fraction(1), 0
        for t, a in enumerate(seq):
            pr *= Fraction(rules[t][idx][a])
            r = int(x[t][a]) if definition == "table" else int(x[t])
            idx = 4 * idx + 2 * a + r
        out[seq] = pr
    return out


def rules_truth(rules, definition, epsilon):
    """(ε, δ(ε), μ) of a decision-rule policy: the suprema over every ordered neighbour pair of binary inputs."""
    T = len(rules)
    if definition == "table":
        rows = list(itertools.product((0, 1), repeat=2))
        inputs = list(itertools.product(rows, repeat=T))
    else:
        inputs = list(itertools.product((0, 1), repeat=T))
    laws = {x: _sequence_law(rules, x, definition) for x in inputs}
    seqs = sorted(next(iter(laws.values())))
    eps, dlt, mu = mp.mpf(0), mp.mpf(0), mp.mpf(0)
    with mp.workprec(PREC):
        for x in inputs:
            for y in inputs:
                if x == y or sum(a != b for a, b in zip(x, y)) != 1:
                    continue
                P, Q = [laws[x][s] for s in seqs], [laws[y][s] for s in seqs]
                Pm, Qm = exact_masses(P, False), exact_masses(Q, False)
                eps = max(eps, _pure(Pm, Qm))
                dlt = max(dlt, _delta(Pm, Qm, mp.mpf(epsilon)))
                mu = max(mu, _mu(P, Q, False))
    return eps, dlt, mu


def check_rules(rng: np.random.Generator, definition: str, tally: Tally, epsilon: float = 0.5) -> None:
    """A random decision-rule policy against claims at its brute-force truth (never refuted), every reported
    lower bound at most that truth."""
    import privcheck as pc
    from privcheck.policies.tabular import TabularPolicy
    from privcheck.audits.policy.api import audit_policy

    rules = random_rules(rng)
    eps, dlt, mu = rules_truth(rules, definition, epsilon)
    tally.faces += 1
    cases = []
    if eps < mp.inf:
        cases.append(pc.PureDP(double_at_least(eps)))
    if double_at_least(dlt) < 1:
        cases.append(pc.ApproxDP(epsilon, double_at_least(dlt)))
    if mu < mp.inf:
        cases.append(pc.GaussianDP(max(double_at_least(mu), 5e-324)))
    for claim in cases:
        tally.claims += 1
        where = f"{definition} rules {rules} claim {claim}"
        try:
            rep = audit_policy(TabularPolicy({"rules": rules}), claim, definition, method="exact", seed=0)
        except Exception as e:  # noqa: BLE001 — every crash is a finding
            tally.crashes.append(f"{where}: {type(e).__name__}: {e}")
            continue
        if rep.violates_claim:
            tally.false_refutations.append(f"{where}: refuted ({rep.extra.get('certification')})")
        for name, got, true in (("epsilon", rep.epsilon_lower, eps), ("mu", rep.mu_lower, mu)):
            if got is not None and mp.mpf(got) > true * (1 + mp.mpf(2) ** -150):
                tally.above_truth.append(f"{where}: {name} ≥ {got!r} above the truth {mp.nstr(true, 17)}")
