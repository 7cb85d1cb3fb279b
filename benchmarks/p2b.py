"""The P2B synthetic experiment (d = 10, 10 actions, 10 interactions per user, 70 % early users, α = 1, p = 0.5,
l = 10) over early-user counts {10³, 5·10³, 10⁴, 5·10⁴, 10⁵}; prints markdown tables for RESULTS.md and writes
benchmarks/p2b.png (k = 128, tuple threshold).  The time of each point is its wall time on this machine.

Run: python benchmarks/p2b.py [seed]
Each row: privcheck p2b --early-users N --codes K [--threshold-on code] --seed SEED
"""

import sys
import time

from privcheck.policies.p2b import run_p2b
from privcheck.policies.plotting import plot_p2b

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 0
COUNTS = (1000, 5000, 10_000, 50_000, 100_000)
t0 = time.perf_counter()
for codes, mode in ((128, "tuple"), (32, "tuple"), (128, "code")):
    print(f"\n#### k = {codes}, threshold on {mode} (seed {SEED})\n")
    print(
        f"`privcheck p2b --early-users {','.join(map(str, COUNTS))} --codes {codes} --threshold-on {mode} "
        f"--seed {SEED}`\n"
    )
    print(
        "| early users | late users | cold | warm, non-private | P2B | P2B − cold | warm − P2B | released / "
        "shared | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    points = []
    for n in COUNTS:
        s = run_p2b(n, codes=codes, threshold_on=mode, seed=SEED).summary()
        points.append(s)
        a = s["average_reward"]
        cell = lambda k: f"{a[k]['mean']:.4f} [{a[k]['ci95'][0]:.4f}, {a[k]['ci95'][1]:.4f}]"  # noqa: E731
        print(
            f"| {n} | {s['late_users']} | {cell('cold')} | {cell('warm')} | {cell('p2b')} | {cell('p2b-cold')} | "
            f"{cell('warm-p2b')} | {s['released_tuples']} / {s['shared_tuples']} | {s['seconds']:.1f} |"
        )
    if (codes, mode) == (128, "tuple"):
        plot_p2b(points, "benchmarks/p2b.png", f"P2B synthetic, k = 128, p = 0.5, l = 10, tuple threshold, seed {SEED}")
print(
    f"\nε = −ln(1 − 0.5) = {points[0]['epsilon']:.6f}, δ* = {points[0]['delta']:.6g} at crowd sizes "
    f"{tuple(points[0]['worst_crowds'])}; total {time.perf_counter() - t0:.0f} s"
)
