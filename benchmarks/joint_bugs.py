"""Time and verdict of the default joint-DP audit (no table, no pair, no sample size: the command a user types) of
examples/linear.py's calibrated policies and planted bugs, each as `privcheck audit examples/linear.py:NAME
--epsilon 1 --definition joint --arms 2 --dim 2 --horizon T` (plus --context-bound 4 for the bound bug and its
fix; --definition local for the locally private pair), the wall time of the whole audit in this process.

Run: python3 benchmarks/joint_bugs.py [--horizon T] [--samples N]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import linear  # noqa: E402

from privcheck import PureDP, audit_policy  # noqa: E402

CASES = [  # (factory, what, definition, options)
    ("make_raw_gram", "planted: the raw Gram matrix", "joint", {}),
    ("make_unit_bound", "planted: noise for L = 1, bound 4", "joint", {"context_bound": 4.0}),
    ("make_shared_noise", "planted: one noise for every arm's model", "joint", {}),
    ("make_local_raw_context", "planted: the raw context in a local report", "local", {}),
    ("make", "calibrated (one model)", "joint", {}),
    ("make", "calibrated (one model), bound 4", "joint", {"context_bound": 4.0}),
    ("make_per_arm", "calibrated (a model per arm)", "joint", {}),
    ("make_local", "calibrated (local reports on a grid)", "local", {}),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--horizon", type=int, default=12)
    p.add_argument("--samples", type=int, default=None)
    a = p.parse_args()
    print("| factory | what | definition | T | runs per side | verdict | certified ε ≥ | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for name, what, definition, kw in CASES:
        t0 = time.perf_counter()
        r = audit_policy(
            getattr(linear, name),
            PureDP(1.0),
            definition,
            arms=2,
            dim=2,
            horizon=a.horizon,
            seed=1,
            **({} if a.samples is None else {"samples": a.samples}),
            **kw,
        )
        took = time.perf_counter() - t0
        print(
            f"| {name} | {what} | {definition} | {a.horizon} | {r.samples_per_side:,} | {r.verdict} | "
            f"{r.epsilon_lower:.3g} | {took:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
