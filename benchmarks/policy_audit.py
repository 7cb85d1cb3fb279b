"""Speed of the policy auditor (policy-auditor issue, "Speed").

1. Exact Table-DP δ(ε) for a random finite (decision-rule) policy, T = 8, K = 2, binary rewards: all 4^8 tables,
   every neighbour pair (target ≤ 60 s).
2. Sampled Table-DP audit of kl-UCB-CF behind ε = 1 randomized response, K = 2, T = 50, 10⁶ runs per side,
   selection and pair search included, the whole `privcheck audit` command (target ≤ 120 s).
3. Exact Interactive DP (every deterministic adversary, every neighbour pair): a random decision-rule policy at
   T = 4 and 5, and kl-UCB-CF behind ε = 1 randomized response at T = 4 and 5 (feedback patterns summed out).

Usage: python benchmarks/policy_audit.py [--samples 1000000] [--only table|sampled|interactive]
"""

import argparse
import subprocess
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--only", choices=("table", "sampled", "interactive"))
    a = ap.parse_args()
    if a.only in (None, "table"):
        table_exact()
    if a.only in (None, "sampled"):
        sampled(a.samples)
    if a.only in (None, "interactive"):
        interactive()


def table_exact():
    from privcheck.policies.tabular import TabularPolicy
    from privcheck.audits.policy.api import audit_policy
    from privcheck.core import ApproxDP

    rng = np.random.default_rng(8)
    rules = {"rules": [[[1 - v, v] for v in rng.uniform(0.05, 0.95, 4**t).tolist()] for t in range(8)]}
    t0 = time.perf_counter()
    r = audit_policy(TabularPolicy(rules), ApproxDP(0.5, 0.1), "table", method="exact")
    print(
        f"exact Table DP, random tabular policy T=8 K=2: {time.perf_counter() - t0:.1f} s "
        f"({r.extra['pairs_considered']:,} ordered pairs; δ(0.5) = {r.delta_lower:.4f}, "
        f"ε at δ=0.1 ≥ {r.epsilon_lower:.4f})",
        flush=True,
    )


def sampled(samples):
    import json

    cmd = [
        "privcheck",
        "audit",
        "kl-ucb-cf",
        "--rr-epsilon",
        "1",
        "--epsilon",
        "1",
        "--definition",
        "table",
        "--horizon",
        "50",
        "--arms",
        "2",
        "--samples",
        str(samples),
        "--seed",
        "1",
        "--json",
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    d = json.loads(out.stdout)
    print(
        f"sampled Table DP, kl-UCB-CF + RR(1), T=50, {samples:,} runs/side: {secs:.1f} s whole command; "
        f"ε_lower {d['epsilon_lower']:.4f}, verdict {'refuted' if d['violates_claim'] else 'not refuted'}, "
        f"{d['pairs_considered']} candidate pairs",
        flush=True,
    )


def interactive():
    from privcheck import mechanisms as M
    from privcheck.policies import Corruption, KLUCBCF
    from privcheck.policies.tabular import TabularPolicy
    from privcheck.audits.policy.api import audit_policy
    from privcheck.core import ApproxDP

    rr = M.optimal_randomized_response(1.0)
    c = Corruption.randomized_response([rr.p00] * 2, [rr.p11] * 2)
    for T in (4, 5):
        rng = np.random.default_rng(8)
        rules = {"rules": [[[1 - v, v] for v in rng.uniform(0.05, 0.95, 4**t).tolist()] for t in range(T)]}
        for label, pol, ch in (
            ("random tabular policy", TabularPolicy(rules), None),
            ("kl-UCB-CF + RR(1)", KLUCBCF(c), rr),
        ):
            t0 = time.perf_counter()
            r = audit_policy(pol, ApproxDP(1.0, 0.01), "interactive", horizon=T, channel=ch, method="exact")
            table = audit_policy(pol, ApproxDP(1.0, 0.01), "table", horizon=T, channel=ch, method="exact")
            print(
                f"exact Interactive DP, {label}, T={T} K=2: {time.perf_counter() - t0:.1f} s (with the Table audit); "
                f"{r.extra['pairs_considered']:,} pairs; δ(1) ≥ {r.delta_lower:.6f} (Table {table.delta_lower:.6f}), "
                f"ε at δ=0.01 ≥ {r.epsilon_lower:.4f} (Table {table.epsilon_lower:.4f}), "
                f"ρ ≥ {r.rho_lower:.4f} (Table {table.rho_lower:.4f})",
                flush=True,
            )


if __name__ == "__main__":
    main()
