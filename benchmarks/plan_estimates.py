"""How close a policy audit's plan is to the time it takes: the estimates announced to the progress callable
(``plan(total, unit, seconds=)``), each as the total it implies (when it was announced, plus its seconds) — the
first before any run (an upper figure: the sampling of the most pairs a search keeps), the last once the input
search has kept its pairs — against the wall time of the whole audit, on a fast policy (the
explore-then-commit of examples/sequential.py, a few µs per round) and on a slow one (the same with about 0.2 ms of
work per round, as a policy in pure Python with a model update per round), each at the sizes given.

Run: python3 benchmarks/plan_estimates.py [--quick]
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import sequential as ex  # noqa: E402

from privcheck import PureDP, audit_policy  # noqa: E402


class Slow:
    """Explore-then-commit with ~0.2 ms of busy work per act (a policy's own model update)."""

    def __init__(self, n_arms, horizon, rng, epsilon):
        self.inner = ex.ExploreThenCommit(n_arms, horizon, rng, epsilon)

    def act(self, t):
        end = time.perf_counter() + 2e-4
        while time.perf_counter() < end:
            pass
        return self.inner.act(t)

    def update(self, t, arm, reward):
        self.inner.update(t, arm, reward)


def make_slow(n_arms, horizon, rng, epsilon):
    return Slow(n_arms, horizon, rng, epsilon)


class Plan:
    """Keeps each plan's estimate as the total it implies: the time it was announced plus its seconds."""

    def __init__(self):
        self.t0, self.totals = time.perf_counter(), []

    def plan(self, total, unit=None, seconds=None):
        if seconds is not None:
            self.totals.append(time.perf_counter() - self.t0 + seconds)

    def __call__(self, n):
        pass


def row(name, factory, horizon, **kw):
    plan = Plan()
    audit_policy(factory, PureDP(1.0), "table", arms=2, horizon=horizon, seed=1, progress=plan, **kw)
    took = time.perf_counter() - plan.t0
    said = " ".join(f"{k}={v}" for k, v in kw.items())
    first, last = plan.totals[0], plan.totals[-1]
    print(
        f"| {name} | {horizon} | {said} | {first:.1f} | {last:.1f} | {took:.1f} | {first / took:.2f} | "
        f"{last / took:.2f} |",
        flush=True,
    )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    quick = p.parse_args().quick
    print(
        "| policy | T | options | planned before the search (s) | planned after it (s) | took (s) | before / took "
        "| after / took |"
    )
    print("|---|---|---|---|---|---|---|---|")
    row("fast (explore-then-commit)", ex.make, 200, samples=5000)
    row("fast (explore-then-commit)", ex.make, 200, samples=20000)
    row("slow (~0.2 ms per round)", make_slow, 40, samples=200, screening=200)
    if not quick:
        row("slow (~0.2 ms per round)", make_slow, 40, samples=1000, screening=500)


if __name__ == "__main__":
    main()
