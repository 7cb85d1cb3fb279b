"""Tightness and speed of the sampled auditor (issue: foundation, "Speed and tightness").

Runs the whole `privcheck audit` command (process start-up, selection and certification included) for
11 seeds and prints the median and spread of the certified ε lower bound and of the wall time:

* Laplace, sensitivity 1, ε = 1, inputs 0 and 1, 95 % confidence, one certified candidate,
  selection samples = certification samples, at 10⁶ and 10⁷ samples per side;
* a noisy histogram whose Laplace scale is ε instead of 1/ε, claimed ε = 0.7 (true 1.4286), 10⁶ per side.

Usage: python benchmarks/audit_laplace.py [--seeds 11] [--skip-1e7]
"""

import argparse
import statistics
from pathlib import Path

from timing import timed_report

HERE = Path(__file__).resolve().parent
PEERS = {  # figures quoted in the issue, measured on the same machine type
    "DP-Sniper 1e6": (0.9674, 26.5),
    "DP-Sniper defaults (2e8, 90%)": (0.9977, 607.0),
    "StatDP": (0.98, 32.0),
}


def run(cmd):
    return timed_report(cmd)


def series(name, base, seeds):
    eps, secs = [], []
    for s in range(seeds):
        rep, t = run(base + ["--seed", str(s), "--json"])
        eps.append(rep["epsilon_lower"])
        secs.append(t)
    med = statistics.median(eps)
    print(
        f"{name}: median ε_lower {med:.4f} (min {min(eps):.4f}, max {max(eps):.4f}); "
        f"wall time median {statistics.median(secs):.2f} s (min {min(secs):.2f}, max {max(secs):.2f}) "
        f"over {seeds} seeds"
    )
    return med, statistics.median(secs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=11)
    ap.add_argument("--skip-1e7", action="store_true")
    a = ap.parse_args()
    lap = ["privcheck", "audit", "laplace", "--epsilon", "1", "--pair", "0", "1", "--method", "sample"]
    m6, t6 = series("Laplace 1e6/side", lap + ["--samples", "1000000"], a.seeds)
    print(
        f"  vs DP-Sniper at 1e6: ε ratio {m6 / PEERS['DP-Sniper 1e6'][0]:.4f}, "
        f"time ratio {PEERS['DP-Sniper 1e6'][1] / t6:.1f}x faster"
    )
    print(f"  vs StatDP: ε ratio {m6 / PEERS['StatDP'][0]:.4f}, time ratio {PEERS['StatDP'][1] / t6:.1f}x faster")
    if not a.skip_1e7:
        m7, t7 = series("Laplace 1e7/side", lap + ["--samples", "10000000"], a.seeds)
        p = PEERS["DP-Sniper defaults (2e8, 90%)"]
        print(f"  vs DP-Sniper defaults: ε ratio {m7 / p[0]:.4f}, time ratio {p[1] / t7:.1f}x faster")
    hist = [
        "privcheck",
        "audit",
        str(HERE / "targets.py") + ":noisy_histogram_buggy",
        "--epsilon",
        "0.7",
        "--pair",
        "[3,5,2,7]",
        "[3,6,2,7]",
        "--samples",
        "1000000",
    ]
    series("Buggy histogram (claimed 0.7, true 1.4286) 1e6/side", hist, a.seeds)


if __name__ == "__main__":
    main()
