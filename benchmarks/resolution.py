"""The exact engines' resolution: how far below the truth each certified lower end sits.

For each case the truth is computed independently (closed forms in mpmath at 50 digits, or rational
arithmetic), the exact engine is run on the pair (0, 1), and the relative gap (truth − lower end)/truth is
printed.  A claim further below the truth than this gap is refuted; one closer is not (it is "not refuted",
never wrongly refuted).

    python3 benchmarks/resolution.py
"""

from __future__ import annotations

import mpmath as mp

from privcheck import mechanisms as M
from privcheck import ApproxDP, PureDP, ReplaceOne, ZCDP, audit
from privcheck.core import AllPairs


def _laplace_delta(eps_mech, eps):
    # δ(ε) of Lap(0, b) vs Lap(1, b), b = 1/ε_mech: 1 − e^((ε − ε_mech)/2) for ε < ε_mech
    return 1 - mp.exp((mp.mpf(eps) - mp.mpf(eps_mech)) / 2)


def main():
    mp.mp.dps = 50
    rows = []
    for eps in (1e-6, 1e-4, 0.01, 1.0, 30.0):
        lap = M.Laplace(epsilon=eps)
        truth = 1 / mp.mpf(lap.scale)
        r = audit(lap, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1)
        rows.append((f"laplace ε = {eps:g}: pure ε", truth, r.epsilon_lower))
    lap = M.Laplace(epsilon=1.0)
    r = audit(lap, ApproxDP(0.5, 1e-9, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], seed=1)
    rows.append(("laplace ε = 1: δ at ε = 0.5", _laplace_delta(1 / lap.scale, 0.5), r.delta_lower))
    for rho in (1e-8, 1e-5, 0.5, 50.0):
        g = M.Gaussian.for_zcdp(rho)
        truth = 1 / (2 * mp.mpf(g.sigma) ** 2)
        r = audit(g, ZCDP(rho, g.relation), pairs=[(0.0, 1.0)], seed=1)
        rows.append((f"gaussian ρ = {rho:g}: ρ", truth, r.rho_lower))
        rows.append((f"gaussian ρ = {rho:g}: D_2", 2 * truth, r.renyi_lower[2.0]))
    for eps in (1e-6, 1.0, 45.0, 1000.0):
        ch = M.optimal_randomized_response(eps)
        truth = mp.mpf(float(ch.logQ[0][0])) - mp.mpf(float(ch.logQ[0][1]))
        r = audit(ch, PureDP(eps, AllPairs((0, 1))), seed=1)
        rows.append((f"randomized response ε = {eps:g}: pure ε", truth, r.epsilon_lower))
    print(f"{'case':<40} {'truth':>24} {'certified lower end':>24} {'relative gap':>13}")
    for name, truth, lo in rows:
        gap = (truth - mp.mpf(lo)) / truth
        print(f"{name:<40} {mp.nstr(truth, 17):>24} {lo!r:>24} {float(gap):>13.2e}")
        if gap < 0:
            raise SystemExit(f"UNSOUND: {name}")
    print(
        "(every gap ≥ 0: no lower end above its truth; largest gap "
        f"{max(float((t - mp.mpf(l)) / t) for _, t, l in rows):.2e})"
    )


if __name__ == "__main__":
    main()
