"""Gajane, "Local Differential Privacy for Sequential Decision Making in a Changing Environment" (AAAI
2023): Pinsker, the corollaries, the window and the exploration level of SW-KLUCB-CF, Definition 2."""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import sympy as sp

from .checks import register
from .result import require
from .formulas import check_identity, check_inequality

SRC = "Gajane, LDP for Sequential Decision Making in a Changing Environment (AAAI 2023)"
PINSKER = "x*log(x/y)+(1-x)*log((1-x)/(1-y)) >= 2*(x-y)**2"


def _from(result, extra=""):
    return result.status, result.method, (result.detail + extra).strip(), result.counterexample


@register("pinsker", "G-PIN1", SRC + ", after Algorithm 1 (Corollary 1)", "d(x, y) ≥ 2(x − y)² on (0,1)²")
def pinsker():
    x, y = sp.symbols("x y", positive=True)
    d = x * sp.log(x / y) + (1 - x) * sp.log((1 - x) / (1 - y))
    require(sp.simplify(sp.diff(d - 2 * (x - y) ** 2, y) - (y - x) * (2 * y - 1) ** 2 / (y * (1 - y))) == 0)
    return _from(check_inequality(PINSKER, "0<x<1, 0<y<1"), "; ∂/∂y factorises as (y−x)(2y−1)²/(y(1−y))")


@register(
    "pinsker-strict",
    "G-PIN2",
    SRC + ", after Algorithm 1",
    "d(x, y) > 2(x − y)² (the paper's strict form)",
    expected="refuted",
)
def pinsker_strict():
    return _from(check_inequality(PINSKER.replace(">=", ">"), "0<x<1, 0<y<1"), " (equality on the diagonal x = y)")


@register(
    "corollary1-slope",
    "G-C1a",
    SRC + ", Corollary 1",
    "g(μ*) − g(μ_a) = (p00 + p11 − 1)(μ* − μ_a) for randomized response",
)
def corollary1():
    p00, p11, m1, m2 = sp.symbols("p00 p11 mu1 mu2")
    g = lambda m: 1 - p00 + (p00 + p11 - 1) * m  # noqa: E731
    require(sp.expand(g(m1) - g(m2) - (p00 + p11 - 1) * (m1 - m2)) == 0)
    return (
        "proved",
        "sympy expand",
        "with Pinsker, 1/d(λ_a, g(μ*)) ≤ 1/(2 s² Δ_a²): the corollary drops the 1/(2Δ²) factor into Õ (G-C1b)",
    )


@register(
    "corollary2-substitution",
    "G-C2a/G-C2b",
    SRC + ", Corollary 2",
    "at Eq. 2, p00 + p11 − 1 = (e^ε − 1)/(e^ε + 1) = tanh(ε/2)",
)
def corollary2():
    e = sp.symbols("e", positive=True)
    p = sp.exp(e) / (1 + sp.exp(e))
    require(sp.simplify(2 * p - 1 - (sp.exp(e) - 1) / (sp.exp(e) + 1)) == 0)
    return _from(check_identity("(exp(e)-1)/(exp(e)+1)", "tanh(e/2)", "e>0"))


@register(
    "corollary2-typo",
    "G-C2-TYPO",
    "the second rendering of the AAAI 2023 paper, Corollary 2",
    "(ε^ε − 1)/(ε^ε + 1) = tanh(ε/2) (the typo'd form)",
    expected="refuted",
)
def corollary2_typo():
    r = check_identity("(e**e-1)/(e**e+1)", "tanh(e/2)", "e>0")
    e = sp.symbols("e", positive=True)
    lim = sp.limit(((e**e - 1) / (e**e + 1)) / (e / 2), e, 0, "+")
    return (
        r.status,
        r.method,
        f"{r.detail}; and lim ε→0⁺ of the typo'd form over ε/2 is {lim} (it is 0 at ε = 1)",
        r.counterexample,
    )


@register(
    "corollary2-small-epsilon",
    "G-C2c/G-C2d",
    SRC + ", after Corollary 2",
    "(e^ε − 1)/(e^ε + 1) = ε/2 − ε³/24 + ε⁵/240 + O(ε⁷), so the privacy factor is ~4/ε²",
)
def corollary2_small():
    e = sp.symbols("e", positive=True)
    f = (sp.exp(e) - 1) / (sp.exp(e) + 1)
    ser = sp.series(f, e, 0, 7).removeO()
    require(sp.simplify(ser - (e / 2 - e**3 / 24 + e**5 / 240)) == 0)
    require(sp.limit(f / (e / 2), e, 0) == 1)
    require(sp.limit((1 / f**2) / (4 / e**2), e, 0) == 1)
    return "proved", "sympy series and limit", "ratio to ε/2 → 1; 1/f² ~ 4/ε²"


@register(
    "sw-window-minimiser",
    "G-W1",
    SRC + ", Theorem 1",
    "w = √(4eT/(L_T+4)) minimises (L_T+4)w + 4eT/w; the implementation's default is its ceiling",
)
def window():
    w, T, L = sp.symbols("w T L", positive=True)
    obj = (L + 4) * w + 4 * sp.E * T / w
    crit = sp.solve(sp.diff(obj, w), w)
    require(len(crit) == 1 and sp.simplify(crit[0] - sp.sqrt(4 * sp.E * T / (L + 4))) == 0)
    require(sp.simplify(sp.diff(obj, w, 2).subs(w, crit[0])).is_positive)
    from privcheck.policies import sw_klucb_window

    for Tv in (100, 1000, 20000, 10**5, 10**7):
        for Lv in (1, 4, 10):
            exact = math.sqrt(4 * math.e * Tv / (Lv + 4))
            require(sw_klucb_window(Tv, Lv) == max(3, math.ceil(exact)))
    return (
        "proved",
        "sympy solve(diff) and second derivative; implementation on a grid",
        "minimum 4√e·√(T(L_T+4)); policies.sw_klucb_window = max(3, ⌈w⌉)",
    )


@register("sw-log-term-bound", "G-T1a", SRC + ", Theorem 1", "L log √(T/L) ≤ √(LT)/e for all T, L > 0")
def log_term():
    return _from(check_inequality("L*log(sqrt(T/L)) <= sqrt(L*T)/E", "T>0, L>0"))


@register("sw-level-nondecreasing", "G-F1", SRC + ", Theorem 1", "f(x) = log x + 3 log log x is increasing on (1, ∞)")
def level_increasing():
    return _from(check_inequality("1/x + 3/(x*log(x)) > 0", "x>1"))


@register(
    "sw-level-nonnegative",
    "G-F2",
    SRC + ", Algorithm 1 with Theorem 1's f",
    "f(t ∧ w) = log(t∧w) + 3 log log(t∧w) ≥ 0 whenever the index is computed (t ∧ w ≥ 2)",
    expected="refuted",
)
def level_negative():
    with mp.workdps(30):
        root = mp.findroot(lambda v: mp.log(v) + 3 * mp.log(mp.log(v)), 2.2)
        f2 = math.log(2) + 3 * math.log(math.log(2))
        from privcheck.policies.exploration import level

        require(level(2, 1.0, 3.0) == 0.0)  # the implementation uses f⁺
        return (
            "refuted",
            "mpmath findroot and exact evaluation",
            f"f(2) = {f2:.4f} < 0 and f < 0 on (1, {float(root):.7f}): the index set is empty at t ∧ w = 2; "
            "privcheck uses f⁺ = max(f, 0)",
            {"x": 2, "f": f2, "root": float(root)},
        )


@register(
    "definition2-sequences",
    "G-D2a",
    SRC + ", Definition 2",
    "per-step ε-randomized response is ε-LDP for reward sequences (any two sequences, as Definition 2 reads)",
    expected="refuted",
)
def definition2():
    e = sp.Rational(1)
    p = sp.exp(e) / (1 + sp.exp(e))
    worst = {}
    for n in (1, 2, 3):
        seqs = list(itertools.product((0, 1), repeat=n))
        best = 0
        for a, b in itertools.product(seqs, repeat=2):
            for out in seqs:
                pa = sp.prod([p if o == r else 1 - p for o, r in zip(out, a)])
                pb = sp.prod([p if o == r else 1 - p for o, r in zip(out, b)])
                best = max(best, sp.simplify(sp.log(pa / pb)))
        worst[n] = best
        require(sp.simplify(best - n * e) == 0)
    return (
        "refuted",
        "exact enumeration of sequences of length 1–3 (atoms suffice for pure DP)",
        "the worst log-ratio is exactly nε (n = 1, 2, 3 at ε = 1): the definition over arbitrary sequences "
        "only gives nε",
        {"epsilon": 1, "worst_log_ratio": {str(k): float(v) for k, v in worst.items()}},
    )
