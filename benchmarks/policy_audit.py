"""Speed of the policy auditor (policy-auditor issue, "Speed").

1. Exact Table-DP δ(ε) for a random finite (decision-rule) policy, T = 8, K = 2, binary rewards: all 4^8 tables,
   every neighbour pair (target ≤ 60 s).
2. Sampled Table-DP audit of kl-UCB-CF behind ε = 1 randomized response, K = 2, T = 50, 10⁶ runs per side,
   selection and pair search included, the whole `privcheck audit` command (target ≤ 120 s).

Usage: python benchmarks/policy_audit.py [--samples 1000000]
"""

import argparse
import subprocess
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=1_000_000)
    a = ap.parse_args()
    from policies.tabular import TabularPolicy
    from privcheck.audit.policy import audit_policy
    from privcheck.core import ApproxDP

    rng = np.random.default_rng(8)
    rules = {"rules": [[[1 - v, v] for v in rng.uniform(0.05, 0.95, 4 ** t).tolist()] for t in range(8)]}
    t0 = time.perf_counter()
    r = audit_policy(TabularPolicy(rules), ApproxDP(0.5, 0.1), "table", method="exact")
    print(f"exact Table DP, random tabular policy T=8 K=2: {time.perf_counter() - t0:.1f} s "
          f"({r.extra['pairs_considered']:,} ordered pairs; δ(0.5) = {r.delta_lower:.4f}, ε at δ=0.1 ≥ {r.epsilon_lower:.4f})")
    cmd = ["privcheck", "audit", "kl-ucb-cf", "--rr-epsilon", "1", "--epsilon", "1", "--definition", "table",
           "--horizon", "50", "--arms", "2", "--samples", str(a.samples), "--seed", "1", "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    import json
    d = json.loads(out.stdout)
    print(f"sampled Table DP, kl-UCB-CF + RR(1), T=50, {a.samples:,} runs/side: {secs:.1f} s whole command; "
          f"ε_lower {d['epsilon_lower']:.4f}, verdict {'refuted' if d['violates_claim'] else 'not refuted'}, "
          f"{d['pairs_considered']} candidate pairs")


if __name__ == "__main__":
    main()
