"""The stated reach against the bound achieved: for targets of known privacy loss, over seeds, the reach's ε (the
bound the chosen event would certify had its probabilities been those seen in selection) beside the certified ε of
the same report, and their ratio.  The reach is an estimate: this measures how well it predicts.

Run: python3 benchmarks/reach_calibration.py [--seeds 10]
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import sequential as ex  # noqa: E402

from privcheck import PureDP, ReplaceOne, audit, audit_policy  # noqa: E402
from privcheck.mechanisms import optimal_randomized_response  # noqa: E402
from privcheck.mechanisms.laplace import GridLaplace  # noqa: E402

L1 = ReplaceOne("l1", 1.0)
TARGETS = {
    "grid Laplace ε = 1, 10⁵ per side": lambda s: audit(
        GridLaplace(epsilon=1.0), PureDP(1.0, L1), pairs=[(0.0, 1.0)], method="sample", samples=100_000, seed=s
    ),
    "grid Laplace ε = 1, 2·10³ per side": lambda s: audit(
        GridLaplace(epsilon=1.0), PureDP(1.0, L1), pairs=[(0.0, 1.0)], method="sample", samples=2_000, seed=s
    ),
    "randomized response ε = 1, 10⁴ per side": lambda s: audit(
        optimal_randomized_response(1.0), method="sample", samples=10_000, seed=s
    ),
    "explore-then-commit T = 40, 2·10³ runs": lambda s: audit_policy(
        ex.make, PureDP(1.0), "table", arms=2, horizon=40, samples=2_000, seed=s
    ),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=10)
    seeds = range(1, p.parse_args().seeds + 1)
    print("| target | mean certified ε | mean reach ε | reach / certified (min … max) | mean detectable factor |")
    print("|---|---|---|---|---|")
    for name, run in TARGETS.items():
        got, said, factors = [], [], []
        for s in seeds:
            r = run(s)
            got.append(r.epsilon_lower)
            said.append(r.extra["reach"]["epsilon"])
            factors.append(r.extra["reach"]["detectable_factor"] or float("nan"))
        ratios = [a / b for a, b in zip(said, got) if b > 0]
        print(
            f"| {name} | {statistics.mean(got):.3f} | {statistics.mean(said):.3f} | "
            f"{statistics.mean(ratios):.2f} ({min(ratios):.2f} … {max(ratios):.2f}) | {statistics.mean(factors):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
