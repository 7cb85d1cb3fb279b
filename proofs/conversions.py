"""Privacy conversions and the Gaussian/Laplace facts the mechanisms rely on (Bun & Steinke 2016; Mironov
2017; Balle & Wang 2018), tied to :mod:`mechanisms`."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import sympy as sp

from .checks import register
from .result import require
from .formulas import check_inequality

BS = "Bun & Steinke, Concentrated Differential Privacy (TCC 2016)"
AZ = "Azize & Basu, Concentrated Differential Privacy for Bandits, §III"


@register("gaussian-renyi", "A-Z1", BS + ", Lemma 2.5", "D_α(N(Δ, σ²) ‖ N(0, σ²)) = αΔ²/(2σ²)")
def gaussian_renyi():
    z = sp.symbols("z", real=True)
    a, s, D = sp.symbols("alpha sigma Delta", positive=True)
    p = sp.exp(-((z - D) ** 2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))
    q = sp.exp(-(z**2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))
    integrand = sp.expand_power_base(p**a * q ** (1 - a), force=True)
    integrand = sp.powsimp(integrand, force=True)
    I = sp.integrate(sp.simplify(integrand), (z, -sp.oo, sp.oo), conds="none")
    D_a = sp.simplify(sp.log(I) / (a - 1))
    D_a = sp.simplify(sp.expand_log(D_a, force=True))
    require(sp.simplify(D_a - a * D**2 / (2 * s**2)) == 0)
    from privcheck import mechanisms

    for sig in (0.5, 1.0, 3.0):
        require(abs(mechanisms.Gaussian(sig).renyi(4.0) - 4.0 / (2 * sig**2)) < 1e-14)
    return "proved", "sympy Gaussian integral", "D_α = αΔ²/(2σ²); mechanisms.Gaussian.renyi agrees"


@register(
    "gaussian-zcdp-calibration",
    "A-Z2/A-Z3",
    BS + ", Prop. 1.6 and 27",
    "σ = Δ/√(2ρ) gives exactly ρ-zCDP; at Hamming distance k the Gaussian gives k²ρ (tight)",
)
def gaussian_calibration():
    a, rho, D, k = sp.symbols("alpha rho Delta k", positive=True)
    sigma = D / sp.sqrt(2 * rho)
    require(sp.simplify(a * D**2 / (2 * sigma**2) / a - rho) == 0)
    require(sp.simplify(a * (k * D) ** 2 / (2 * sigma**2) / a - k**2 * rho) == 0)
    from privcheck import mechanisms

    for r in (0.01, 0.5, 4.0):
        g = mechanisms.Gaussian.for_zcdp(r, 2.0)
        require(abs(g.sigma - 2.0 / math.sqrt(2 * r)) < 1e-12 and abs(g.rho - r) < 1e-12)
    return "proved", "sympy", "privcheck.mechanisms.Gaussian.for_zcdp uses σ = Δ/√(2ρ)"


@register(
    "zcdp-to-approx-dp",
    "A-Z7",
    BS + ", Prop. 1.3",
    "min over α > 1 of ρα + ln(1/δ)/(α − 1) is ρ + 2√(ρ ln(1/δ)), at α* = 1 + √(ln(1/δ)/ρ)",
)
def zcdp_to_dp():
    a, rho, L = sp.symbols("alpha rho L", positive=True)  # L = ln(1/δ)
    obj = rho * a + L / (a - 1)
    crit = [c for c in sp.solve(sp.diff(obj, a), a) if sp.simplify(c - 1).is_positive]
    require(len(crit) == 1 and sp.simplify(crit[0] - (1 + sp.sqrt(L / rho))) == 0)
    require(sp.simplify(obj.subs(a, crit[0]) - (rho + 2 * sp.sqrt(rho * L))) == 0)
    return "proved", "sympy solve(diff)", "ε = ρ + 2√(ρ ln(1/δ))"


@register(
    "zcdp-to-dp-analytic-check",
    "A-Z8",
    BS + "; Balle & Wang (ICML 2018), Thm 8",
    "the exact Gaussian δ(ε) at ε = ρ + 2√(ρ ln(1/δ)) is ≤ δ",
)
def zcdp_analytic():
    from privcheck import mechanisms

    rows = []
    with mp.workdps(40):
        for rho in (0.01, 0.1, 0.5, 1.0, 4.0):
            for delta in (1e-3, 1e-6, 1e-9):
                eps = rho + 2 * math.sqrt(rho * math.log(1 / delta))
                sigma = 1 / math.sqrt(2 * rho)
                s = mp.mpf(1) / sigma
                exact = mp.ncdf(s / 2 - eps / s) - mp.e**eps * mp.ncdf(-s / 2 - eps / s)  # 40 digits
                require(
                    exact <= delta
                    and abs(mechanisms.gaussian_delta(eps, sigma) - float(exact)) <= 1e-12 + 1e-9 * float(exact)
                )
                rows.append(float(exact) / delta)
        return (
            "verified",
            "mpmath (40 digits) on 15 (ρ, δ) pairs; mechanisms.gaussian_delta agrees",
            f"largest δ(ε)/δ = {max(rows):.3g} (the conversion is loose, as expected)",
        )


@register(
    "classic-gaussian-calibration",
    "A-Z10",
    "Dwork & Roth (2014), Thm A.1",
    "σ = Δ√(2 ln(1.25/δ))/ε gives (ε, δ)-DP for ε < 1",
)
def classic():
    from privcheck import mechanisms

    worst = 0.0
    for eps in np.linspace(0.05, 0.99, 20):
        for delta in (1e-2, 1e-5, 1e-10):
            g = mechanisms.Gaussian.classic(float(eps), delta)
            s = mp.mpf(1) / g.sigma
            exact = mp.ncdf(s / 2 - eps / s) - mp.e**eps * mp.ncdf(-s / 2 - eps / s)
            require(exact <= delta)
            worst = max(worst, float(exact) / delta)
    return "verified", "mpmath exact δ(ε) on a 20 × 3 grid", f"largest δ(ε)/δ = {worst:.3g}"


@register(
    "pure-dp-to-zcdp",
    "A-Z5/A-Z6",
    BS + ", Prop. 1.4; " + AZ,
    "ε-DP ⇒ (ε²/2)-zCDP; for randomized response KL = ε·tanh(ε/2) ≤ ε²/2, and sup_α D_α/α ≤ ε²/2",
)
def pure_to_zcdp():
    e = sp.symbols("epsilon", positive=True)
    p = sp.exp(e) / (1 + sp.exp(e))
    kl = p * sp.log(p / (1 - p)) + (1 - p) * sp.log((1 - p) / p)
    require(sp.simplify((kl - e * sp.tanh(e / 2)).rewrite(sp.exp)) == 0)
    ineq = check_inequality("tanh(x) <= x", "x>0")  # at x = ε/2, times ε > 0: ε tanh(ε/2) ≤ ε²/2
    require(ineq.status in ("proved", "verified"))
    from privcheck.core import zcdp_rho

    worst = 0.0
    for ev in (0.1, 0.5, 1.0, 2.0, 4.0, 8.0):
        pv = 1 / (1 + math.exp(-ev))
        r = zcdp_rho(np.log([pv, 1 - pv]), np.log([1 - pv, pv]))
        require(r <= ev**2 / 2 and abs(r - ev * math.tanh(ev / 2)) < 1e-9 * max(1, r))
        worst = max(worst, r / (ev**2 / 2))
    return (
        "proved",
        f"sympy rewrite(exp); tanh x ≤ x by {ineq.method}; privcheck.core.zcdp_rho on 6 values",
        "sup_α D_α/α of randomized response equals ε·tanh(ε/2) (attained as α → 1); largest ratio to ε²/2: "
        f"{worst:.3f}",
    )


@register(
    "laplace-renyi",
    "A-Z (Mironov 2017)",
    "Mironov, Rényi Differential Privacy (CSF 2017), Table II",
    "Laplace b = 1, shift 1: D_α = 1/(α−1) ln[α/(2α−1) e^(α−1) + (α−1)/(2α−1) e^(−α)]; D_2 = 0.6191, D_8 = 0.9102",
)
def laplace():
    from privcheck import mechanisms

    with mp.workdps(30):
        for a in (1.5, 2, 3, 8, 20):
            quad = mp.log(
                mp.quad(
                    lambda z: (mp.e ** (-abs(z)) / 2) ** a * (mp.e ** (-abs(z - 1)) / 2) ** (1 - a),
                    [-mp.inf, 0, 1, mp.inf],
                )
            ) / (a - 1)
            require(abs(mechanisms.laplace_renyi(a, 1.0) - float(quad)) < 1e-12)
        d2, d8 = mechanisms.Laplace(1.0).renyi(2), mechanisms.Laplace(1.0).renyi(8)
        require(round(d2, 4) == 0.6191 and round(d8, 4) == 0.9102)
        return (
            "verified",
            "mpmath quadrature (30 digits) at 5 orders; mechanisms.Laplace.renyi",
            f"D_2 = {d2:.6f}, D_8 = {d8:.6f}",
        )
