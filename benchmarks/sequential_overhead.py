"""The per-round cost of the sequential policy protocol beyond the policy's own code.

A policy whose ``act`` and ``update`` do nothing is run (a) by the audit's adapter — ``PolicyMechanism`` over
``SequentialPolicy``, as a Table DP audit draws its runs — and (b) by a bare Python loop calling the same two
methods for the same runs and rounds: (a) − (b), per run-round, is what privcheck adds (the arms checked and
collected, the rewards looked up and fed back, the global generators swapped per batch).  Target ≤ 2 µs.

    python3 benchmarks/sequential_overhead.py [--runs 4096] [--horizon 500] [--repeats 5]
"""

import argparse
import statistics
import time

import numpy as np

from privcheck.audits.policy.adapters import PolicyMechanism
from privcheck.audits.policy.relations import Table
from privcheck.core.sequential import as_policy


class Idle:
    def act(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


def make():
    return Idle()


def bare(runs: int, horizon: int) -> float:
    objs = [make() for _ in range(runs)]
    t0 = time.perf_counter()
    for t in range(1, horizon + 1):
        arms = [o.act(t) for o in objs]
        for o, a in zip(objs, arms):
            o.update(t, a, 0.0)
    return time.perf_counter() - t0


def adapter(runs: int, horizon: int) -> float:
    mech = PolicyMechanism(as_policy(make, n_arms=2), horizon, Table(), name="idle")
    x = np.zeros((horizon, 2))
    t0 = time.perf_counter()
    mech.sample(x, np.random.default_rng(0), runs)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=4096)
    ap.add_argument("--horizon", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    n = a.runs * a.horizon
    adapter(64, 10)  # start-up
    b = [bare(a.runs, a.horizon) / n * 1e6 for _ in range(a.repeats)]
    s = [adapter(a.runs, a.horizon) / n * 1e6 for _ in range(a.repeats)]
    over = [x - y for x, y in zip(s, b)]
    print(f"{a.runs:,} runs × {a.horizon:,} rounds, {a.repeats} repeats (median [min, max]), µs per run-round:")
    print(f"  bare loop (the policy's own calls)  {statistics.median(b):.3f} [{min(b):.3f}, {max(b):.3f}]")
    print(f"  privcheck's adapter                 {statistics.median(s):.3f} [{min(s):.3f}, {max(s):.3f}]")
    print(f"  overhead                            {statistics.median(over):.3f} [{min(over):.3f}, {max(over):.3f}]")


if __name__ == "__main__":
    main()
