"""P2B's privacy formula (Malekzadeh, Athanasakis, Haddadi & Livshits, "Privacy-Preserving Bandits",
MLSys 2020, §Privacy; pre-sampling with crowd-blending, Gehrke et al. 2012)."""

from __future__ import annotations

import sympy as sp

from .checks import register
from .result import require

SRC = "Malekzadeh et al., Privacy-Preserving Bandits (MLSys 2020), §Privacy"
p = sp.symbols("p", positive=True)
eb = sp.symbols("epsbar", nonnegative=True)
EPS = sp.log(p * (2 - p) / (1 - p) * sp.exp(eb) + (1 - p))


@register("p2b-epsilon-at-zero", "P-EPS2", SRC, "ε(p, ε̄ = 0) = −ln(1 − p) (ln 2 at p = 1/2)")
def at_zero():
    require(sp.simplify(sp.exp(EPS.subs(eb, 0)) - 1 / (1 - p)) == 0)
    require(sp.simplify(EPS.subs({eb: 0, p: sp.Rational(1, 2)}) - sp.log(2)) == 0)
    return "proved", "sympy simplify", "p(2−p)/(1−p) + (1−p) = 1/(1−p)"


@register("p2b-small-epsilon", "P-EPS5", SRC, "with ε̄ = 0, ε < 1 ⟺ p < 1 − 1/e")
def small():
    sol = sp.solve(sp.Eq(-sp.log(1 - p), 1), p)
    require(len(sol) == 1 and sp.simplify(sol[0] - (1 - sp.exp(-1))) == 0)
    require(sp.simplify(sp.diff(-sp.log(1 - p), p) - 1 / (1 - p)) == 0)  # > 0 on [0, 1)
    return "proved", "sympy solve; −ln(1−p) is increasing", "threshold p* = 1 − 1/e ≈ 0.632121"


@register("p2b-monotone", "P-EPS3", SRC, "ε(p, ε̄) is strictly increasing in p on [0, 1) for ε̄ ≥ 0")
def monotone():
    c = sp.symbols("c", positive=True)  # c = e^ε̄ ≥ 1
    inner = p * (2 - p) / (1 - p) * c + (1 - p)
    target = (c - 1) * (p**2 - 2 * p + 2) + 1
    require(sp.simplify(sp.diff(inner, p) - target / (1 - p) ** 2) == 0)
    # (c − 1)(p² − 2p + 2) + 1 > 0: p² − 2p + 2 = (p − 1)² + 1 > 0 and c ≥ 1
    return (
        "proved",
        "sympy: d(inner)/dp = [(c−1)(p²−2p+2) + 1]/(1−p)² with c = e^ε̄ ≥ 1",
        "numerator positive because p² − 2p + 2 = (p−1)² + 1 > 0",
    )
