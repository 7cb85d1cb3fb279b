"""Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed Bandits"
(slides): DP Robust SE's parameter identities, the truncated-mean sensitivity, and the rate table."""

from __future__ import annotations

import sympy as sp

from .checks import register
from .result import require

SRC = "Tao, Wu, Zhao & Wang, Optimal Rates of (Locally) DP Heavy-tailed MAB, Algorithm 3"
u, nu, R, e, L, B, D = sp.symbols("u nu R epsilon L B D", positive=True)


@register(
    "se-bias-noise-balance",
    "T-SE1",
    SRC,
    "with B = (uRε/L)^(1/(1+ν)): u/B^ν = B·L/(Rε) = err = u^(1/(1+ν))(L/(Rε))^(ν/(1+ν))",
)
def balance():
    Bt = (u * R * e / L) ** (1 / (1 + nu))
    err = u ** (1 / (1 + nu)) * (L / (R * e)) ** (nu / (1 + nu))
    for lhs in (u / Bt**nu, Bt * L / (R * e)):
        require(sp.simplify(sp.expand_log(sp.log(lhs / err), force=True)) == 0)
    return "proved", "sympy expand_log(force=True)", "bias = noise·log = err"


@register(
    "se-error-identity",
    "T-SE2",
    SRC,
    "R = u^(1/ν)·24^((1+ν)/ν)·L/(ε D^((1+ν)/ν)) (no ceiling) gives err = D/24, so 12·err = D/2",
)
def err_identity():
    Rv = u ** (1 / nu) * 24 ** ((1 + nu) / nu) * L / (e * D ** ((1 + nu) / nu))
    err = u ** (1 / (1 + nu)) * (L / (Rv * e)) ** (nu / (1 + nu))
    require(sp.simplify(sp.expand_log(sp.log(err / (D / 24)), force=True)) == 0)
    return "proved", "sympy expand_log(force=True)", "err_τ = D_τ/24"


@register(
    "truncated-mean-sensitivity",
    "T-SE4/T-SE5",
    SRC,
    "the mean of R records truncated at B has replace-one sensitivity 2B/R; Lap(2B/(Rε)) then gives ε-DP",
)
def sensitivity():
    a, b = sp.symbols("a b", real=True)
    # truncated records lie in [−B, B]: the largest change of one record is 2B, attained at B → −B
    worst = sp.Max(*[abs(x1 - x2) for x1 in (-B, B) for x2 in (-B, B)]) / R
    require(sp.simplify(worst - 2 * B / R) == 0)
    z = sp.symbols("z", real=True)
    scale = 2 * B / (R * e)
    ratio = (-abs(z) + abs(z - 2 * B / R)) / scale
    require(sp.simplify(ratio.subs(z, -1) - e) == 0)  # attained, and |·| triangle inequality bounds it by ε
    from privcheck import mechanisms
    from fractions import Fraction

    m = mechanisms.TruncatedMean(0.7, bound=3.0)
    exact = Fraction(2) * Fraction(3.0) / (5 * Fraction(0.7))
    require(Fraction(m.scale(5)) >= exact, "the scale is at least 2B/(Rε)")  # rounded up, never down
    require(Fraction(m.scale(5)) <= exact * (1 + Fraction(1, 10**12)), "and within 1e-12 of it")
    return (
        "proved",
        "sympy; implementation's Laplace scale",
        ("worst log density ratio = ε; mechanisms.TruncatedMean uses 2B/(Rε), rounded up for the float mean"),
    )


@register(
    "rate-table-ldp-rows",
    "T-TAB1",
    "Tao et al., summary table",
    "the heavy-tailed LDP rows are the DP rows with ε replaced by ε²",
)
def ldp_rows():
    T, K, Dl = sp.symbols("T K Delta", positive=True)
    dp_inst = sp.log(T) / e * (1 / Dl) ** (1 / nu)
    ldp_inst = sp.log(T) / e**2 * (1 / Dl) ** (1 / nu)
    dp_ind = (K * sp.log(T) / e) ** (nu / (1 + nu)) * T ** (1 / (1 + nu))
    ldp_ind = (K * sp.log(T) / e**2) ** (nu / (1 + nu)) * T ** (1 / (1 + nu))
    require(sp.simplify(dp_inst.subs(e, e**2) - ldp_inst) == 0)
    require(sp.simplify(dp_ind.subs(e, e**2) - ldp_ind) == 0)
    return "proved", "sympy subs", "instance-dependent and instance-independent rows"


@register(
    "rate-table-bounded-rows",
    "T-TAB2",
    "Tao et al., summary table",
    "the bounded-reward LDP row is the DP row with ε replaced by ε²",
    expected="refuted",
)
def bounded_rows():
    T, K, Dl = sp.symbols("T K Delta", positive=True)
    dp = K * sp.log(T) / e + K * sp.log(T) / Dl
    ldp = K * sp.log(T) / (e**2 * Dl)
    diff = sp.simplify(dp.subs(e, e**2) - ldp)
    pt = {K: 2, T: 100, Dl: sp.Rational(1, 2), e: sp.Rational(1, 2)}
    val = diff.subs(pt)
    require(val != 0)
    return (
        "refuted",
        "sympy subs and an exact point",
        "DP cost is additive (K log T/ε) and LDP multiplicative (1/ε²): no ε → ε² substitution maps one to the other",
        {k.name: float(v) for k, v in pt.items()} | {"difference": float(val)},
    )


@register(
    "rate-table-nu-one-ldp",
    "T-NU1a",
    "Tao et al., summary table",
    "at ν = 1 the heavy-tailed LDP instance-dependent row equals the bounded LDP row",
)
def nu_one_ldp():
    T, Dl = sp.symbols("T Delta", positive=True)
    heavy = (sp.log(T) / e**2) * (1 / Dl) ** (1 / nu)
    bounded = (1 / e**2) * sp.log(T) / Dl
    require(sp.simplify(heavy.subs(nu, 1) - bounded) == 0)
    return "proved", "sympy subs", "(log T/ε²)(1/Δ) at ν = 1"


@register(
    "rate-table-nu-one-dp",
    "T-NU1b",
    "Tao et al., summary table",
    "at ν = 1 the heavy-tailed DP instance-dependent row reduces to the bounded DP row",
    expected="refuted",
)
def nu_one_dp():
    T, Dl = sp.symbols("T Delta", positive=True)
    heavy = (sp.log(T) / e) * (1 / Dl) ** (1 / nu)
    bounded = sp.log(T) / e + sp.log(T) / Dl
    ratio = sp.simplify(heavy.subs(nu, 1) / bounded)
    require(sp.simplify(ratio - 1 / (e + Dl)) == 0)
    pt = {e: sp.Rational(1, 2), Dl: sp.Rational(1, 4)}
    return (
        "refuted",
        "sympy simplify and an exact point",
        "the ratio is 1/(ε + Δ) ≠ 1: heavy-tailed DP is strictly harder, consistent with the class inclusion "
        "but not a reduction",
        {"epsilon": 0.5, "Delta": 0.25, "ratio": float(ratio.subs(pt))},
    )


@register(
    "dp-robust-ucb-truncation",
    "T-UCB1",
    "Tao et al., DP Robust UCB (Algorithm 1)",
    "B_n = (εun/log^1.5 T)^(1/(1+ν)) balances the truncation bias u/B^ν and the tree noise B·log^1.5 T/(εn)",
)
def robust_ucb():
    n, T = sp.symbols("n T", positive=True)
    Bn = (e * u * n / sp.log(T) ** sp.Rational(3, 2)) ** (1 / (1 + nu))
    bias = u / Bn**nu
    noise = Bn * sp.log(T) ** sp.Rational(3, 2) / (e * n)
    require(sp.simplify(sp.expand_log(sp.log(bias / noise), force=True)) == 0)
    return "proved", "sympy expand_log(force=True)", "bias = noise at B_n"
