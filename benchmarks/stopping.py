"""Stopping when decided (``stop_early=True``): its savings on broken targets and its price on correct ones.

Each target is audited twice with the same seed and sample size, with one look (today's certification) and with
looks at samples/4^j (``privcheck.audits.sampling.looks``); printed: the certified bound, the draws per
side certified, and the wall time of each, and their ratios.

* mechanisms, 10⁶ draws per side on the pair (0, 1), ε = 1: a Laplace with half its noise (broken), the grid
  Laplace of privcheck (correct);
* policies (``examples/elimination.py``, phases of 25 pulls, T = 160, 20,000 runs per side, the default input
  search): the shared-noise bug (broken), the correct policy.

    python3 benchmarks/stopping.py
"""

import sys
import time
from pathlib import Path

from privcheck.mechanisms.laplace import GridLaplace
from privcheck import PureDP, ReplaceOne, audit, audit_policy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import elimination as el  # noqa: E402


def half_noise(x, rng, size):
    return x[0] + rng.laplace(0.0, 0.5, size)


def factory(bug):
    def make(n_arms, horizon, rng, epsilon):
        return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=25, bug=bug)

    return make


def timed(go):
    t0 = time.perf_counter()
    r = go()
    return r, time.perf_counter() - t0


def main():
    claim = PureDP(1.0, ReplaceOne("l1", 1.0))
    mech = dict(pairs=[([0.0], [1.0])], samples=1_000_000, method="sample", seed=5)
    pol = dict(horizon=160, samples=20_000, screening=500, seed=5)
    cases = {
        "Laplace, half the noise (broken)": lambda s: audit(half_noise, claim, stop_early=s, **mech),
        "grid Laplace (correct)": lambda s: audit(GridLaplace(epsilon=1.0), claim, stop_early=s, **mech),
        "elimination, shared noise (broken)": lambda s: audit_policy(
            factory("shared-noise"), PureDP(1.0), "table", stop_early=s, **pol
        ),
        "elimination (correct)": lambda s: audit_policy(factory(None), PureDP(1.0), "table", stop_early=s, **pol),
    }
    print("| target | verdict | ε ≥ (one look → looks) | draws per side | wall s (one look → looks) | ratio |")
    print("|---|---|---|---|---|---|")
    for name, go in cases.items():
        a, ta = timed(lambda: go(False))
        b, tb = timed(lambda: go(True))
        assert a.violates_claim == b.violates_claim, name
        verdict = "refuted" if b.violates_claim else "not refuted"
        print(
            f"| {name} | {verdict} | {a.epsilon_lower:.4g} → {b.epsilon_lower:.4g} "
            f"({b.epsilon_lower / a.epsilon_lower:.3f}×) | {a.samples_per_side:,} → {b.samples_per_side:,} | "
            f"{ta:.1f} → {tb:.1f} | {tb / ta:.2f} |"
        )


if __name__ == "__main__":
    main()
