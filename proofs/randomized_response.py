"""Randomized response (Gajane, "Local Differential Privacy for Sequential Decision Making in a Changing
Environment", AAAI 2023, §"Corruption Mechanism"; Kairouz, Oh & Viswanath 2014), checked symbolically and
tied to :mod:`mechanisms`."""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

from .checks import register
from .result import require

SRC = "Gajane, LDP for Sequential Decision Making in a Changing Environment (AAAI 2023), §Corruption Mechanism"
p00, p11, x, y, eps = sp.symbols("p00 p11 x y epsilon", positive=True)


def _channel():
    return sp.Matrix([[p00, 1 - p11], [1 - p00, p11]])  # rows y, columns x


@register(
    "rr-corruption-function",
    "G-E1",
    SRC + ", Eq. 1",
    "M = [[p00, 1−p11], [1−p00, p11]] has columns summing to 1 and mean g(x) = 1 − p00 + (p00+p11−1)x",
)
def corruption_function():
    M = _channel()
    g = (1 - x) * M[1, 0] + x * M[1, 1]
    require(sp.simplify(M[0, 0] + M[1, 0] - 1) == 0 and sp.simplify(M[0, 1] + M[1, 1] - 1) == 0)
    require(sp.expand(g - (1 - p00 + (p00 + p11 - 1) * x)) == 0)
    require(sp.simplify(sp.diff(g, x) - (p00 + p11 - 1)) == 0)
    inv = sp.solve(sp.Eq(g, y), x)[0]
    require(sp.simplify(inv - (y - 1 + p00) / (p00 + p11 - 1)) == 0)
    from privcheck import mechanisms

    for a, b in [(0.9, 0.7), (0.3, 0.2), (0.731, 0.731)]:
        m = mechanisms.BinaryRandomizedResponse(a, b)
        grid = np.linspace(0, 1, 11)
        ref = [float(g.subs({p00: a, p11: b, x: v})) for v in grid]
        require(np.allclose(m.corruption(grid), ref, atol=1e-14))
        if abs(a + b - 1) > 1e-9:
            require(np.allclose(m.corruption_inverse(m.corruption(grid)), grid, atol=1e-12))
    return (
        "proved",
        "sympy expand/solve; implementation compared on a grid",
        "g' = p00 + p11 − 1, g⁻¹(y) = (y − 1 + p00)/(p00 + p11 − 1); mechanisms.BinaryRandomizedResponse agrees",
    )


def _ratios():
    """Every P[M(a) ∈ S]/P[M(b) ∈ S] over events S ⊂ {0,1} with nonzero denominator and inputs a ≠ b."""
    M = _channel()
    out = set()
    for S in ([0], [1]):
        for a, b in ((0, 1), (1, 0)):
            num = sum(M[s, a] for s in S)
            den = sum(M[s, b] for s in S)
            out.add(sp.simplify(num / den))
    return out


@register(
    "rr-ldp-four-ratios",
    "G-LDP1",
    SRC,
    "ε-LDP of binary randomized response ⟺ max{p00/(1−p11), p11/(1−p00), (1−p11)/p00, (1−p00)/p11} ≤ e^ε",
)
def four_ratios():
    four = {p00 / (1 - p11), p11 / (1 - p00), (1 - p11) / p00, (1 - p00) / p11}
    got = _ratios()
    require(all(any(sp.simplify(a - b) == 0 for b in four) for a in got) and len(got) == 4)
    from privcheck import mechanisms

    rng = np.random.default_rng(0)
    for a, b in rng.uniform(0.01, 0.99, (200, 2)):
        exact = max(math.log(float(r.subs({p00: a, p11: b}))) for r in got)
        require(abs(mechanisms.rr_epsilon(a, b) - max(exact, 0.0)) < 1e-12)
    return (
        "proved",
        "sympy: enumeration of the events S ⊂ {0,1} and ordered input pairs",
        "the four ratios are exactly the event ratios (S = ∅ and S = {0,1} give 0/0 and 1); "
        "privcheck.mechanisms.rr_epsilon agrees on 200 random channels",
    )


@register(
    "rr-two-ratio-condition",
    "G-LDP3",
    SRC,
    "the paper's condition max{p00/(1−p11), p11/(1−p00)} ≤ e^ε characterises ε-LDP",
    expected="refuted",
)
def two_ratio_defect():
    a = b = sp.Rational(1, 100)
    two = max(a / (1 - b), b / (1 - a))
    exact = max(r.subs({p00: a, p11: b}) for r in _ratios())
    require(two < 1 and sp.simplify(exact - 99) == 0)
    return (
        "refuted",
        "exact rational counterexample",
        "p00 = p11 = 0.01: the two ratios are 1/99 (condition holds for every ε ≥ 0) but the channel is only "
        "ln 99 ≈ 4.595-LDP",
        {"p00": 0.01, "p11": 0.01, "two_ratio_max": float(two), "exact_epsilon": math.log(99)},
    )


@register(
    "rr-optimality",
    "G-OPT1/G-OPT2",
    SRC + ", Eq. 2 (Result 1)",
    "max p00 + p11 under ε-LDP is attained at p00 = p11 = e^ε/(1+e^ε)",
)
def optimality():
    s = sp.symbols("s", positive=True)
    t = 1 + s  # e^ε > 1
    a, b = sp.symbols("a b", real=True)  # p00, p11 without sign assumptions, so that p = 0 can be solved for
    cons = [(a + t * b, t), (t * a + b, t), (a, 0), (b, 0), (a, 1), (b, 1)]
    # vertices of {p00 + t p11 ≤ t, t p00 + p11 ≤ t, 0 ≤ p ≤ 1}: intersections of pairs of constraint lines
    verts = set()
    for (l1, r1), (l2, r2) in itertools.combinations(cons, 2):
        sol = sp.solve([sp.Eq(l1, r1), sp.Eq(l2, r2)], [a, b], dict=True)
        for v in sol:
            if len(v) == 2:
                verts.add((sp.simplify(v[a]), sp.simplify(v[b])))

    def feasible(v):
        va, vb = v
        conds = [t - va - t * vb, t - t * va - vb, va, vb, 1 - va, 1 - vb]
        return all(
            sp.simplify(c).is_nonnegative is not False and (sp.simplify(c).is_nonnegative or sp.simplify(c) == 0)
            for c in conds
        )

    feas = [v for v in verts if feasible(v)]
    star = (t / (1 + t), t / (1 + t))
    require(any(sp.simplify(v[0] - star[0]) == 0 and sp.simplify(v[1] - star[1]) == 0 for v in feas))
    for v in feas:  # the optimum beats every vertex: the gap is a function of s > 0 that sympy signs
        gap = sp.simplify(2 * star[0] - v[0] - v[1])
        require(gap.is_nonnegative or gap == 0)
    # LP duality certificate: y = (1/(1+t), 1/(1+t)) ≥ 0 with Aᵀy = (1, 1) and bᵀy = primal value
    yv = sp.Matrix([1 / (1 + t), 1 / (1 + t)])
    A = sp.Matrix([[1, t], [t, 1]])
    require(sp.simplify(A.T * yv - sp.Matrix([1, 1])) == sp.zeros(2, 1))
    require(sp.simplify(sp.Matrix([t, t]).dot(yv) - 2 * star[0]) == 0)
    from privcheck import mechanisms
    from scipy.optimize import linprog

    for e in np.linspace(0.05, 6, 25):
        te = math.exp(e)
        lp = linprog([-1, -1], A_ub=[[1, te], [te, 1]], b_ub=[te, te], bounds=[(0, 1), (0, 1)])
        m = mechanisms.optimal_randomized_response(e)
        require(abs((m.p00 + m.p11) + lp.fun) < 1e-9 and abs(m.p00 - te / (1 + te)) < 1e-14)
    return (
        "proved",
        "sympy vertex enumeration with e^ε = 1 + s, s > 0; LP dual certificate; scipy linprog and the "
        "implementation on 25 values of ε",
        f"{len(feas)} feasible vertices; dual y = (1/(1+e^ε), 1/(1+e^ε)) closes the duality gap; "
        "privcheck.mechanisms.optimal_randomized_response is the optimum",
    )


@register("rr-eq2-tight", "G-E2a", SRC + ", Eq. 2", "every ratio of Eq. 2 equals e^(±ε): exactly ε-LDP, not less")
def eq2_tight():
    p = sp.exp(eps) / (1 + sp.exp(eps))
    vals = {sp.simplify(r.subs({p00: p, p11: p})) for r in _ratios()}
    require(vals == {sp.exp(eps), sp.exp(-eps)})
    return "proved", "sympy", "the event ratios of Eq. 2 are {e^ε, e^−ε}"


@register(
    "rr-staircase-equivalence",
    "G-ST1/G-ST2",
    SRC + "; Kairouz, Oh & Viswanath (2014), Thm 14",
    "Eq. 2 equals k-ary randomized response and the staircase pattern at k = 2; staircase columns have ratios e^(±ε)",
)
def staircase():
    k = 2
    e = sp.exp(eps)
    krr = sp.Matrix([[e / (k - 1 + e), 1 / (k - 1 + e)], [1 / (k - 1 + e), e / (k - 1 + e)]])
    p = e / (1 + e)
    eq2 = sp.Matrix([[p, 1 - p], [1 - p, p]])
    require(sp.simplify(krr - eq2) == sp.zeros(2, 2))
    from privcheck import mechanisms

    for ev in (0.3, 1.0, 2.5):
        a = mechanisms.StaircasePattern(ev, pattern=[[1, 0], [1, 0], [0, 1], [0, 1]]).Q
        for col in a.T:
            r = np.log(col[:, None] / col[None, :])
            require(np.all(np.isclose(np.abs(r), 0) | np.isclose(np.abs(r), ev)))
        require(np.allclose(mechanisms.StaircasePattern(ev, k=2).Q, mechanisms.optimal_randomized_response(ev).Q))
    return (
        "proved",
        "sympy; implementation column ratios on the 4-input binary pattern",
        "k-RR at k = 2 is Eq. 2; mechanisms.StaircasePattern columns are staircases",
    )
