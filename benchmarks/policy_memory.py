"""Memory of a policy audit against the horizon: each audit runs in a fresh process and reports its peak resident
memory (``ru_maxrss``) and wall time.

The audited policy is AdaC-UCB at ρ = 0.5 (the built-in instance), Table DP, on one given pair (the all-zero table
and its neighbour with the first row at 1), so that the input search — whose cost grows with the horizon and is not
what is measured here — does not run; ``--samples`` runs per side.  Up to 2,048 rounds the audit holds whole
action sequences; beyond, fixed-width summaries (``privcheck.audits.policy.summaries``), so memory stops growing
with the horizon except for the two reward tables (T × K doubles each).

    python3 benchmarks/policy_memory.py [--horizons 1e3,1e4,1e5] [--samples 20]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from privcheck.policies.audited import audited
from privcheck import ZCDP, audit_policy
T, n = int(float(sys.argv[1])), int(sys.argv[2])
inst = audited("adac-ucb", claim=ZCDP(0.5), horizon=T)
x = np.zeros((T, 2)); y = x.copy(); y[0] = 1.0
t0 = time.perf_counter()
r = audit_policy(inst.policy, ZCDP(0.5), "table", horizon=T, pairs=[(x, y)], samples=n, seed=1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
kept = any("summaries" in m for m in r.notes)
print(json.dumps({"horizon": T, "seconds": time.perf_counter() - t0, "peak_mb": peak, "rho_lower": r.rho_lower,
                  "summaries": kept}))
"""


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--horizons", default="1e3,1e4,1e5")
    ap.add_argument("--samples", type=int, default=20)
    args = ap.parse_args(argv)
    print("| horizon | draws kept | peak memory (MB) | wall (s) | certified ρ ≥ |")
    print("|---|---|---|---|---|")
    for h in args.horizons.split(","):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, h, str(args.samples)], capture_output=True, text=True, check=True
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        kept = "summaries" if r["summaries"] else "sequences"
        print(f"| {r['horizon']:,} | {kept} | {r['peak_mb']:.0f} | {r['seconds']:.1f} | {r['rho_lower']:.3g} |")


if __name__ == "__main__":
    main()
