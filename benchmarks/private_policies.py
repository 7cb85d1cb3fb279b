"""Experiments with the centrally and locally private policies; prints markdown tables for RESULTS.md.

Run: python benchmarks/private_policies.py [runs] [section ...]
(sections: ucb gope oful heavy twin twinucb release; all by default)
(each table's rows can also be produced one at a time with the `privcheck regret` command printed above it)

1. AdaC-UCB vs its non-private twin (episodic UCB), Bernoulli means {0.75, 0.625, 0.5, 0.375, 0.25}, over a ρ grid
   and horizons: regret and the price of privacy (Reg_priv − Reg)/Reg.
2. AdaC-GOPE and AdaR-GOPE-Var vs GOPE on a linear bandit (K = 10 actions and θ* on the unit sphere of R³, N(0, 1)
   noise, --env-seed 0).
3. AdaC-OFUL vs RS-OFUL on the linear contextual bandit of Azize & Basu §VI (K = 10 fresh actions
   N(1/√3·1, I/10) per round, d = 3, θ* on the sphere, N(0, 1) noise; C = 1, λ = 0.1, δ = 0.001), with the unit
   bounds of the paper's assumption (R = L = 1) and with public bounds R = 4, L = 2 that fit the data.
4. DP Robust UCB, DP Robust SE, LDP Robust SE on the three Pareto instances (shape 3), ν ∈ {0.5, 0.9},
   ε ∈ {0.5, 1}, with the published constants (width scale 1) and with widths scaled by 0.1.
5. DP and LDP Robust SE against their non-private twin (robust-se: the same phases, truncated means, no noise) on
   the three Pareto instances, widths scaled by 0.1, T = 10⁵; and over an ε grid on the first instance.
6. DP Robust UCB against its non-private twin (robust-ucb: the same index and truncation, exact sums) on the
   three Pareto instances, ε ∈ {0.5, 1, 8}, published widths and widths scaled by 0.1, T = 10⁵.
7. The exact ε of DP Robust UCB's per-arm tree release (closed form, `TreeCounter.release_epsilon`) at the
   published calibration and with the noise halved, ν ∈ {0.5, 0.9}, over horizons.
All runs of one table share the seed (common random numbers across policies).
"""

import sys
import time

import numpy as np

from privcheck.policies.adac_ucb import AdaCUCB, EpisodicUCB
from privcheck.policies.environments import Bernoulli, Linear, LinearContextual, Pareto, Schedule
from privcheck.policies.gope import GOPE
from privcheck.policies.heavy_tailed import (
    DPRobustSE,
    DPRobustUCB,
    LDPRobustSE,
    NonPrivateRobustSE,
    NonPrivateRobustUCB,
)
from privcheck.policies.oful import OFUL
from privcheck.policies.simulator import simulate

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
SECTIONS = sys.argv[2:] or ["ucb", "gope", "oful", "heavy", "twin", "twinucb", "release"]
SEED = 0
PARETO_INSTANCES = ([0.9, 0.7, 0.5, 0.3, 0.1], [0.9, 0.55, 0.3, 0.15, 0.1], [0.9, 0.85, 0.7, 0.45, 0.1])


def pareto_settings(T):
    """(means text, environment, round-robin regret at T, ν, u = E|X|^(1+ν)) for the three instances × ν."""
    for means in PARETO_INSTANCES:
        env = Pareto(Schedule(means))
        rr = T * float(np.mean(max(means) - np.array(means)))
        for nu in (0.5, 0.9):
            yield ",".join(map(str, means)), env, rr, nu, float(env.moment(nu).max())


def reg(env, pol, T, runs=RUNS):
    s = simulate(env, pol, T, runs, SEED).summary()
    return s["final_regret"], s["stderr"]


def section_ucb():
    print(f"## AdaC-UCB vs episodic UCB ({RUNS} runs, seed {SEED})\n")
    print(
        "`privcheck regret --env bernoulli --means 0.75,0.625,0.5,0.375,0.25 --policies adac-ucb,episodic-ucb "
        f"--rho RHO --horizon T --runs {RUNS} --seed {SEED}`\n"
    )
    print("| T | twin regret | ρ | AdaC-UCB regret | price of privacy |")
    print("|---|---|---|---|---|")
    env = Bernoulli(Schedule([0.75, 0.625, 0.5, 0.375, 0.25]))
    for T in (10**4, 10**5):
        base, bse = reg(env, EpisodicUCB(5), T)
        for rho in (0.01, 0.1, 1.0, 10.0):
            r, se = reg(env, AdaCUCB(5, rho), T)
            print(f"| {T:.0e} | {base:.1f} ± {bse:.1f} | {rho:g} | {r:.1f} ± {se:.1f} | {(r - base) / base:+.3f} |")


def section_gope():
    print(f"\n## GOPE family on a linear bandit (K = 10, d = 3, {RUNS // 2} runs)\n")
    print(
        "`privcheck regret --env linear --arms 10 --dim 3 --policies gope,adac-gope,adar-gope-var --rho RHO "
        f"--horizon T --runs {RUNS // 2} --seed {SEED}`\n"
    )
    print("| T | GOPE | ρ | AdaC-GOPE | AdaR-GOPE-Var |")
    print("|---|---|---|---|---|")
    lin = Linear.random(10, 3, np.random.default_rng(0))
    for T in (10**4, 10**5):
        base, bse = reg(lin, GOPE(lin.actions), T, RUNS // 2)
        for rho in (0.01, 0.1, 1.0):
            a, ase = reg(lin, GOPE(lin.actions, rho, variant="adac-gope"), T, RUNS // 2)
            b, bse2 = reg(lin, GOPE(lin.actions, rho, variant="adar-gope-var"), T, RUNS // 2)
            print(f"| {T:.0e} | {base:.1f} ± {bse:.1f} | {rho:g} | {a:.1f} ± {ase:.1f} | {b:.1f} ± {bse2:.1f} |")


def section_oful():
    T = 10**5
    runs = max(RUNS // 5, 2)
    print(f"\n## RS-OFUL and AdaC-OFUL on a linear contextual bandit (K = 10, d = 3, T = {T:.0e}, {runs} runs)\n")
    print(
        "`privcheck regret --env linear-contextual --arms 10 --dim 3 --policies rs-oful,adac-oful --rho RHO "
        f"[--reward-bound 4 --action-bound 2] --horizon {T} --runs {runs} --seed {SEED}`\n"
    )
    print("| R, L | T | RS-OFUL | ρ | AdaC-OFUL | price of privacy |")
    print("|---|---|---|---|---|---|")
    ctx = LinearContextual.random(10, 3, np.random.default_rng(0))
    for R, L in ((1.0, 1.0), (4.0, 2.0)):
        res = {None: simulate(ctx, OFUL(10, 3, reward_bound=R, action_bound=L), T, runs, SEED)}
        for rho in (0.1, 1.0, 10.0):
            res[rho] = simulate(ctx, OFUL(10, 3, rho, reward_bound=R, action_bound=L), T, runs, SEED)
        for t in (10**4, 10**5):
            j = int(np.searchsorted(res[None].t, t))
            b = res[None].regret[j]
            for rho in (0.1, 1.0, 10.0):
                r = res[rho].regret[j]
                print(
                    f"| {R:g}, {L:g} | {t:.0e} | {b.mean():.1f} ± {b.std(ddof=1) / np.sqrt(runs):.1f} | {rho:g} | "
                    f"{r.mean():.1f} ± {r.std(ddof=1) / np.sqrt(runs):.1f} | {(r.mean() - b.mean()) / b.mean():+.2f} |"
                )


def section_heavy():
    T = 10**5
    runs = max(RUNS // 5, 2)
    print(
        f"\n## Heavy-tailed policies on Pareto instances (T = {T:.0e}, {runs} runs; round-robin regret shown for "
        "reference)\n"
    )
    print(
        "`privcheck regret --env pareto --means MEANS --policies dp-robust-ucb,dp-robust-se,ldp-robust-se "
        f"--epsilon EPS --nu NU [--width-scale 0.1] --horizon {T} --runs {runs} --seed {SEED}`\n"
    )
    print("| means | ν | ε | width scale | round robin | DP Robust UCB | DP Robust SE | LDP Robust SE |")
    print("|---|---|---|---|---|---|---|---|")
    for means, env, rr, nu, u in pareto_settings(T):
        for eps in (0.5, 1.0):
            for sc in (1.0, 0.1):
                cells = [
                    reg(env, DPRobustUCB(5, eps, nu, u, T, width_scale=sc), T, runs),
                    reg(env, DPRobustSE(5, eps, nu, u, width_scale=sc), T, runs),
                    reg(env, LDPRobustSE(5, eps, nu, u, width_scale=sc), T, runs),
                ]
                print(
                    f"| {means} | {nu} | {eps} | {sc} | {rr:.0f} | "
                    + " | ".join(f"{r:.0f} ± {s:.0f}" for r, s in cells)
                    + " |"
                )


def section_twin():
    T, runs, sc = 10**5, max(RUNS // 5, 2), 0.1
    print(
        f"\n## DP / LDP Robust SE against the non-private twin robust-se (T = {T:.0e}, {runs} runs, width scale {sc})\n"
    )
    print(
        "`privcheck regret --env pareto --means MEANS --policies robust-se,dp-robust-se,ldp-robust-se "
        f"--epsilon EPS --nu NU --width-scale {sc} --horizon {T} --runs {runs} --seed {SEED}`\n"
    )
    print("| means | ν | ε | robust-se | DP Robust SE | ratio | LDP Robust SE | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    first = ",".join(map(str, PARETO_INSTANCES[0]))
    for means, env, _, nu, u in pareto_settings(T):
        base, se = reg(env, NonPrivateRobustSE(5, nu, u, width_scale=sc), T, runs)
        for eps in (0.5, 1.0) if means != first or nu != 0.9 else (0.5, 1.0, 2.0, 4.0, 8.0):
            (d, ds), (l, ls) = (
                reg(env, DPRobustSE(5, eps, nu, u, width_scale=sc), T, runs),
                reg(env, LDPRobustSE(5, eps, nu, u, width_scale=sc), T, runs),
            )
            print(
                f"| {means} | {nu} | {eps} | {base:.0f} ± {se:.0f} | {d:.0f} ± {ds:.0f} | "
                f"{d / base:.2f} | {l:.0f} ± {ls:.0f} | {l / base:.2f} |"
            )


def section_twinucb():
    T, runs = 10**5, max(RUNS // 5, 2)
    print(f"\n## DP Robust UCB against the non-private twin robust-ucb (T = {T:.0e}, {runs} runs)\n")
    print(
        "`privcheck regret --env pareto --means MEANS --policies robust-ucb,dp-robust-ucb "
        f"--epsilon EPS --nu NU [--width-scale 0.1] --horizon {T} --runs {runs} --seed {SEED}`\n"
    )
    print("| means | ν | width scale | round robin | robust-ucb | DP Robust UCB ε = 0.5 | ε = 1 | ε = 8 |")
    print("|---|---|---|---|---|---|---|---|")
    for means, env, rr, nu, u in pareto_settings(T):
        for sc in (1.0, 0.1):
            base, se = reg(env, NonPrivateRobustUCB(5, nu, u, T, width_scale=sc), T, runs)
            cells = [reg(env, DPRobustUCB(5, eps, nu, u, T, width_scale=sc), T, runs) for eps in (0.5, 1.0, 8.0)]
            print(
                f"| {means} | {nu} | {sc} | {rr:.0f} | {base:.0f} ± {se:.0f} | "
                + " | ".join(f"{r:.0f} ± {s:.0f} ({r / base:.2f}×)" for r, s in cells)
                + " |",
                flush=True,
            )


def section_release():
    print("\n## Exact ε of DP Robust UCB's per-arm tree release (claim ε = 1; Pareto means 0.9, 0.7)\n")
    print("| ν | T | release ε (published noise) | release ε (noise halved) |")
    print("|---|---|---|---|")
    env = Pareto(Schedule([0.9, 0.7]))
    for nu in (0.5, 0.9):
        u = float(env.moment(nu).max())
        for T in (8, 64, 1024, 10**5):
            pol = DPRobustUCB(2, 1.0, nu, u, T)
            e = pol.release_mechanism().release_epsilon()
            print(f"| {nu} | {T} | {e:.4f} | {2 * e:.4f} |")


t0 = time.perf_counter()
for name in SECTIONS:
    globals()[f"section_{name}"]()
print(f"\n(total {time.perf_counter() - t0:.0f} s)")
