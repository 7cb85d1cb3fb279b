"""The pytest plugin's power at its defaults: how often ``privcheck.testing.audit_target`` (what
``assert_private`` runs: 6,000 runs per side, each pair screened on 750, confidence 1 − 10⁻⁶, staged and stopping
early) refutes an overclaim of examples/elimination.py's policy — the policy calibrated for ε = f (its Laplace noise
1/f per sum) while the claim is 1, so its true ε is f times the claim — over seeds, with the mean seconds per audit.

Run: python3 benchmarks/plugin_power.py [--factors 1,2,4,10] [--runs 2000,6000] [--seeds 10] [--horizon 1000]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import elimination  # noqa: E402

from privcheck import PureDP  # noqa: E402
from privcheck.testing import DEFAULT_TEST_CONFIDENCE, audit_target  # noqa: E402


def overclaimed(f: float):
    def make(n_arms, horizon, rng):
        return elimination.DPSuccessiveElimination(n_arms, horizon, rng, f)  # calibrated for ε = f

    return make


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--factors", default="1,2,4,10")
    p.add_argument("--runs", default="6000")
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--horizon", type=int, default=1000)
    a = p.parse_args()
    print(
        "| true ε / claimed | runs per side | refuted (of seeds) | mean certified ε | mean stated detectable factor "
        "| mean seconds |"
    )
    print("|---|---|---|---|---|---|")
    for runs in (int(r) for r in a.runs.split(",")):
        for f in (float(x) for x in a.factors.split(",")):
            hits, eps, took, factors = 0, [], [], []
            for seed in range(1, a.seeds + 1):
                t0 = time.perf_counter()
                r = audit_target(
                    overclaimed(f),
                    PureDP(1.0),
                    definition="table",
                    arms=2,
                    horizon=a.horizon,
                    samples=runs,
                    confidence=DEFAULT_TEST_CONFIDENCE,
                    seed=seed,
                )
                took.append(time.perf_counter() - t0)
                hits += r.violates_claim
                eps.append(r.epsilon_lower)
                factors.append((r.extra.get("reach") or {}).get("detectable_factor") or float("nan"))
            print(
                f"| {f:g} | {runs:,} | {hits}/{a.seeds} | {sum(eps) / len(eps):.3g} | "
                f"{sum(factors) / len(factors):.3g} | {sum(took) / len(took):.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
