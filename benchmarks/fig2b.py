"""Reproduce ALT 2018 (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for Preserving Local Privacy") Fig. 2b:
kl-UCB-CF on 10 Bernoulli arms (0.9, then 0.8 nine times) seen through optimal ε-randomized response,
T = 10⁵, for ε ∈ {1/8, 1/4, 1/2, 1, 2, 4, 8} and both exploration levels c = 0 and c = 3.

Prints a markdown table (mean final regret ± standard error over the runs) next to the values read from the
paper's log-scale plot (±20 %), and writes benchmarks/fig2b.png.

Usage: python benchmarks/fig2b.py [--runs 100] [--horizon 100000]
"""

import argparse
import time
from pathlib import Path

import numpy as np

from privcheck.policies import Bernoulli, Corruption, KLUCBCF, Schedule, simulate

PAPER = {0.125: 8500, 0.25: 7000, 0.5: 4000, 1: 1500, 2: 480, 4: 220, 8: 190}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--horizon", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2018)
    a = ap.parse_args()
    mu = np.array([0.9] + [0.8] * 9)
    rows, t_all = {}, time.perf_counter()
    for eps in PAPER:
        p = 1 / (1 + np.exp(-eps))
        c = Corruption.randomized_response(np.full(10, p), np.full(10, p))
        env = Bernoulli(Schedule([mu]), c)
        for expl in (0.0, 3.0):
            t0 = time.perf_counter()
            s = simulate(env, KLUCBCF(c, expl), a.horizon, a.runs, seed=a.seed).summary()
            rows[(eps, expl)] = (s["final_regret"], s["stderr"], time.perf_counter() - t0)
            print(
                f"eps={eps:g} c={expl:g}: {s['final_regret']:.0f} ± {s['stderr']:.0f} ({rows[(eps, expl)][2]:.0f} s)",
                flush=True,
            )
    total = time.perf_counter() - t_all
    print()
    print("| ε | paper (Fig. 2b, ±20 %) | kl-UCB-CF, c = 0 | kl-UCB-CF, c = 3 |")
    print("|---|---|---|---|")
    for eps, ref in PAPER.items():
        r0, r3 = rows[(eps, 0.0)], rows[(eps, 3.0)]
        print(f"| {eps:g} | ≈ {ref} | {r0[0]:.0f} ± {r0[1]:.0f} | {r3[0]:.0f} ± {r3[1]:.0f} |")
    print(f"\n{a.runs} runs, T = {a.horizon}, seed {a.seed}; total {total:.0f} s")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    e = list(PAPER)
    ax.plot(e, list(PAPER.values()), "ks--", label="paper (read from plot)")
    for expl, mk in ((0.0, "o-"), (3.0, "^-")):
        m = [rows[(x, expl)][0] for x in e]
        se = [rows[(x, expl)][1] for x in e]
        ax.errorbar(e, m, yerr=1.96 * np.array(se), fmt=mk, label=f"privcheck, c = {expl:g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel(f"regret at T = {a.horizon}")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = Path(__file__).with_name("fig2b.png")
    fig.savefig(out, dpi=120)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
