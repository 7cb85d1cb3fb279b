"""Gaussian differential privacy and trade-off functions (Dong, Roth and Su, "Gaussian Differential Privacy",
JRSS-B 2022), tied to :mod:`privcheck.core.tradeoff`: the formulas the auditor certifies μ with, the
conversions the audit figure draws, and the calibrations of the built-ins to a μ claim."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import sympy as sp

from .checks import register
from .result import require

DRS = "Dong, Roth & Su, Gaussian Differential Privacy (JRSS-B 2022)"


def _digits(n: int):
    """Run a check at n decimal digits of mpmath and restore the caller's precision afterwards."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper():
            with mp.workdps(n):
                return fn()

        return wrapper

    return deco


def _Phi(x):
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


@register(
    "gdp-tradeoff",
    "GDP-1",
    DRS + ", §2.2 and Definition 2.6",
    "T(N(0,1), N(μ,1))(α) = Φ(Φ⁻¹(1 − α) − μ); an event S with P(S) ≥ p, Q(S) ≤ q certifies μ ≥ Φ⁻¹(p) − Φ⁻¹(q)",
)
@_digits(40)
def gdp_tradeoff():
    z, t, mu = sp.symbols("z t mu", real=True)
    mup = sp.symbols("mu_p", positive=True)
    # the likelihood ratio of N(μ,1) to N(0,1) is increasing in z: threshold tests are the most powerful
    llr = sp.expand(-((z - mup) ** 2) / 2 + z**2 / 2)
    require(sp.simplify(sp.diff(llr, z) - mup) == 0)
    # the test rejecting N(0,1) when z > t: α = 1 − Φ(t), β = Φ(t − μ); with t = Φ⁻¹(1 − α), β = G_μ(α)
    alpha = 1 - _Phi(t)
    beta = _Phi(t - mu)
    require(sp.simplify(alpha - _Phi(-t)) == 0)  # Φ(−t) = 1 − Φ(t)
    # (1): G_μ(q) ≤ 1 − p ⇔ Φ⁻¹(1 − q) − μ ≤ Φ⁻¹(1 − p) ⇔ μ ≥ Φ⁻¹(p) − Φ⁻¹(q), as Φ is increasing and
    # Φ⁻¹(1 − x) = −Φ⁻¹(x)
    require(sp.simplify(sp.diff(_Phi(z), z) - sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi)) == 0)
    from privcheck.core.tradeoff import certified_mu, gdp_tradeoff as G

    for m in (0.1, 1.0, 3.0):
        for a in (1e-8, 0.05, 0.5, 0.9):
            t_ = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1)  # Φ⁻¹(1 − a)
            exact = mp.ncdf(t_ - m)
            require(abs(float(G(m)(a)) - float(exact)) <= 1e-12 * float(exact) + 1e-300, f"G_{m}({a})")
            # the certified bound at the curve's own point is at most μ, and within 1e-9 of it
            p, q = float(mp.mpf(1) - exact), a  # rounded to nearest; one step down keeps P(S) ≤ 1 − G_μ(q)
            p = math.nextafter(p, 0.0)
            got = float(certified_mu(p, q))
            require(got <= m and got >= m - 1e-9 * (1 + m), f"certified μ at ({p}, {q}): {got}")
    del alpha, beta
    return (
        "proved",
        "sympy (monotone likelihood ratio, Φ(−t) = 1 − Φ(t)), mpmath at 40 digits",
        "threshold tests are optimal; G_μ matches privcheck.core.tradeoff to 1e-12; certified μ ≤ μ at G_μ's points",
    )


@register(
    "gdp-to-dp",
    "GDP-2",
    DRS + ", Corollary 2.13",
    "μ-GDP ⇔ (ε, δ_μ(ε))-DP for all ε ≥ 0, δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)",
)
@_digits(50)
def gdp_to_dp():
    z = sp.symbols("z", real=True)
    mu, e = sp.symbols("mu epsilon", positive=True)
    p = sp.exp(-((z - mu) ** 2) / 2) / sp.sqrt(2 * sp.pi)
    q = sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi)
    t = e / mu + mu / 2  # where p = e^ε q; p > e^ε q beyond it
    require(sp.simplify(sp.log(p / q).subs(z, t) - e) == 0)
    hockey = sp.integrate(p, (z, t, sp.oo)) - sp.exp(e) * sp.integrate(q, (z, t, sp.oo))
    require(sp.simplify(hockey - (_Phi(-e / mu + mu / 2) - sp.exp(e) * _Phi(-e / mu - mu / 2))) == 0)
    from privcheck.core.tradeoff import gdp_delta, profile, gdp_tradeoff as G

    for m in (0.05, 1.0, 4.0):
        for eps in (0.0, 0.5, 3.0, 30.0):
            exact = mp.ncdf(-eps / m + m / 2) - mp.e**eps * mp.ncdf(-eps / m - m / 2)
            got = float(gdp_delta(m, eps))
            require(abs(got - float(exact)) <= 1e-9 * float(exact) + 1e-300, f"δ_{m}({eps}): {got} vs {exact}")
            if float(exact) > 1e-6:  # the profile of the curve (Proposition 2.12) on privcheck's α grid
                require(abs(float(profile(G(m), [eps])[0]) - float(exact)) <= 2e-3 * float(exact))
    return (
        "proved",
        "sympy hockey-stick integral; mpmath at 50 digits",
        "δ_μ(ε) in closed form; gdp_delta agrees to 1e-9, the grid profile of G_μ to 0.2%",
    )


@register(
    "dp-tradeoff",
    "GDP-3",
    DRS + ", Proposition 2.5 (Wasserman & Zhou 2010)",
    "(ε, δ)-DP ⇔ f_{ε,δ}-DP, f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^(−ε)(1 − δ − α)): the trade-off of the "
    "four-point pair (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0) vs its mirror",
)
def dp_tradeoff():
    e, d = sp.symbols("epsilon delta", positive=True)
    E = sp.exp(e)
    P = [d, (1 - d) * E / (1 + E), (1 - d) / (1 + E), 0]
    Q = list(reversed(P))
    # outcomes in decreasing P/Q (∞, e^ε, e^−ε, 0): the vertices of T(Q, P) are the prefixes' (Q(S), 1 − P(S))
    verts = [(0, 1)]
    for k in range(1, 5):
        verts.append((sum(Q[:k]), 1 - sum(P[:k])))
    f1 = lambda a: 1 - d - E * a  # noqa: E731
    f2 = lambda a: (1 - d - a) / E  # noqa: E731
    # vertex 1 (0, 1 − δ) and 2 lie on the first piece, 2 and 3 on the second, 4 is (1, 0)
    require(sp.simplify(verts[1][1] - f1(verts[1][0])) == 0)
    require(sp.simplify(verts[2][1] - f1(verts[2][0])) == 0)
    require(sp.simplify(verts[2][1] - f2(verts[2][0])) == 0)
    require(sp.simplify(verts[3][1] - f2(verts[3][0])) == 0)
    require(sp.simplify(verts[4][0] - 1) == 0 and sp.simplify(verts[4][1]) == 0)
    from privcheck.core.tradeoff import dp_tradeoff as f

    for eps, delta in ((0.5, 0.0), (1.0, 1e-5), (700.0, 0.1)):
        for a in (0.0, 1e-9, 0.2, 0.7, 1.0):
            want = max(0.0, 1 - delta - math.exp(min(eps, 700)) * a, math.exp(-eps) * (1 - delta - a))
            require(abs(float(f(eps, delta)(a)) - want) <= 1e-12, f"f_{eps},{delta}({a})")
    return (
        "proved",
        "sympy (the vertices of the four-point pair lie on f_{ε,δ})",
        "f_{ε,δ} is that pair's trade-off; privcheck.core.tradeoff.dp_tradeoff agrees (ε up to 700)",
    )


@register(
    "pure-dp-to-gdp",
    "GDP-4",
    DRS + ", §2.3",
    "ε-DP ⇒ μ-GDP with μ = 2Φ⁻¹(e^ε/(1 + e^ε)), tightly (randomized response attains it); the built-ins "
    "calibrated to a μ claim from ε-DP use ε = ln Φ(μ/2) − ln Φ(−μ/2)",
)
@_digits(80)  # e^ε/(1 + e^ε) is within e^−115 of 1 at μ = 30
def pure_dp_to_gdp():
    e = sp.symbols("epsilon", positive=True)
    E = sp.exp(e)
    a = 1 / (1 + E)  # the interior vertex of f_{ε,0}: α = β = 1/(1 + e^ε)
    require(sp.simplify((1 - E * a) - a) == 0 and sp.simplify((1 - a) / E - a) == 0)
    # G_μ is convex and f_{ε,0} piecewise linear with vertices (0, 1), (a, a), (1, 0): G_μ ≤ f_{ε,0} iff
    # G_μ(a) ≤ a iff Φ⁻¹(1 − a) − μ ≤ Φ⁻¹(a) = −Φ⁻¹(1 − a) iff μ ≥ 2Φ⁻¹(1 − a) = 2Φ⁻¹(e^ε/(1 + e^ε))
    require(sp.simplify(1 - a - E / (1 + E)) == 0)
    from privcheck.core.tradeoff import mu_of_pure_epsilon, pure_epsilon_of_mu

    for mu in (1e-6, 0.3, 1.0, 5.0, 30.0):
        eps = pure_epsilon_of_mu(mu)
        exact = mp.log(mp.ncdf(mu / 2)) - mp.log(mp.ncdf(-mu / 2))
        require(
            Fraction(eps) <= Fraction(str(mp.nstr(exact, 35))) and eps >= float(exact) * (1 - 1e-11), f"ε for μ = {mu}"
        )
        back = 2 * mp.sqrt(2) * mp.erfinv(2 * mp.e**eps / (1 + mp.e**eps) - 1)
        require(back <= mu, f"2Φ⁻¹(e^ε/(1+e^ε)) = {back} > μ = {mu}")
        require(abs(mu_of_pure_epsilon(eps) - float(back)) <= 1e-9 * (1 + float(back)), f"mu_of_pure_epsilon({eps})")
    from privcheck.core import GaussianDP
    from privcheck.mechanisms.registry import build_builtin

    rr = build_builtin("randomized-response", GaussianDP(1.0), {})  # calibrated through pure_epsilon_of_mu
    e1 = pure_epsilon_of_mu(1.0)
    require(abs(rr.p00 - math.exp(e1) / (1 + math.exp(e1))) <= 1e-15 and rr.p00 == rr.p11)
    return (
        "proved",
        "sympy (the vertex of f_{ε,0}); mpmath at 80 digits",
        "μ = 2Φ⁻¹(e^ε/(1+e^ε)); pure_epsilon_of_mu rounds ε down, and its μ is at most the claim",
    )


@register(
    "gdp-to-zcdp",
    "GDP-5",
    DRS + ", Proposition 2.8 and Blackwell's theorem; Bun & Steinke 2016",
    "μ-GDP ⇒ (μ²/2)-zCDP: a pair whose trade-off is at least G_μ is a post-processing of N(μ,1) vs N(0,1), "
    "whose D_α is αμ²/2",
)
def gdp_to_zcdp():
    from .conversions import gaussian_renyi

    # D_α(N(Δ, σ²) ‖ N(0, σ²)) = αΔ²/(2σ²), proved by the gaussian-renyi check; at Δ = μ, σ = 1
    require(gaussian_renyi()[0] == "proved", "the Gaussian Rényi divergence")
    a, mu = sp.symbols("alpha mu", positive=True)
    D, s = sp.symbols("Delta sigma", positive=True)
    D_a = (a * D**2 / (2 * s**2)).subs({D: mu, s: 1})
    require(sp.simplify(D_a / a - mu**2 / 2) == 0)
    return "proved", "sympy Gaussian integral (gaussian-renyi)", "D_α(N(μ,1) ‖ N(0,1))/α = μ²/2 for every α > 1"


def _erf_iv(x, terms: int = 80):
    """An enclosure of erf(x) for an interval |x| ≤ 3 (mpmath's interval erf does not converge): the Taylor series
    (2/√π) Σ (−1)^n x^(2n+1)/(n!(2n+1)), alternating with decreasing terms once n > x², truncated with the
    first omitted term as the error bound."""
    iv = mp.iv
    require(abs(x).b <= 3, "the series enclosure is for |x| <= 3")
    s, term = iv.mpf(0), x  # term = (−1)^n x^(2n+1)/n!
    for n in range(terms):
        s += term / (2 * n + 1)
        term = -term * x * x / (n + 1)
    err = abs(term).b / (2 * terms + 1)
    return 2 / iv.sqrt(iv.pi) * (s + iv.mpf([-err, err]))


@register(
    "discrete-gaussian-gdp",
    "GDP-6",
    "Canonne, Kamath & Steinke, The Discrete Gaussian for Differential Privacy (NeurIPS 2020); " + DRS,
    "unlike the continuous Gaussian, the discrete Gaussian of σ steps at "
    "integer shift D is not (D/σ)-GDP: at σ = 1, D = 1 one event certifies μ > 1.04",
)
def discrete_gaussian_gdp():
    # σ = 1, D = 1: the event {Z ≥ 0} under N_Z(1, 1) against {Z ≥ 0} under N_Z(0, 1), i.e. a = P[Z ≥ −1],
    # b = P[Z ≥ 0]; (D/σ)-GDP would need Φ⁻¹(a) − Φ⁻¹(b) ≤ 1.  In interval arithmetic: the weights over
    # |z| ≤ 40 (the rest is below e^−800), and a rational z0 ≥ Φ⁻¹(b) (Φ(z0) ≥ b certified); then a > Φ(1 + z0)
    # proves Φ⁻¹(a) > 1 + Φ⁻¹(b).
    iv = mp.iv
    iv.prec = 200
    w = {z: iv.exp(-(iv.mpf(z) ** 2) / 2) for z in range(-40, 41)}
    tail = iv.mpf([0, mp.mpf(2) ** -1100])
    total = sum(w.values(), iv.mpf(0)) + 2 * tail
    a = (sum((v for z, v in w.items() if z >= -1), iv.mpf(0)) + tail) / total
    b = (sum((v for z, v in w.items() if z >= 0), iv.mpf(0)) + tail) / total
    Phi = lambda x: (1 + _erf_iv(iv.mpf(x) / iv.sqrt(2))) / 2  # noqa: E731
    z0 = Fraction(1, 4)
    while not Phi(iv.mpf(z0.numerator) / z0.denominator).a >= b.b:
        z0 += Fraction(1, 1000)
    rhs = Phi(1 + iv.mpf(z0.numerator) / z0.denominator)
    if a.a > rhs.b:
        lo = float(mp.sqrt(2) * (mp.erfinv(2 * mp.mpf(a.a) - 1) - mp.erfinv(2 * mp.mpf(b.b) - 1)))
        return (
            "verified",
            "mpmath interval arithmetic at 200 bits",
            f"σ = 1 step, shift D = 1: P[Z ≥ −1] ≥ {float(a.a):.12f} > Φ(1 + {z0}) ≥ Φ(1 + Φ⁻¹(P[Z ≥ 0])), "
            f"so μ ≥ {lo:.6f} > D/σ = 1 (the excess is about (D/σ)/(24σ²): like a continuous Gaussian of variance "
            "σ² − 1/12)",
            {"sigma_steps": 1, "shift": 1, "mu_at_event": lo},
        )
    return "undecided", "mpmath interval arithmetic at 200 bits", "the interval evaluation could not separate the two"
