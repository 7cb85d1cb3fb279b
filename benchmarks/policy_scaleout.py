"""Scale-out of policy audits: the same audit in one process, on ``workers=2`` local processes and on a 2-worker
Dask LocalCluster (started once beforehand, its start-up timed apart), with identical reports.

    python3 benchmarks/policy_scaleout.py [RUNS_PER_SIDE] [REPEATS]      (defaults 20000 and 2)

Two targets, each at RUNS_PER_SIDE runs per side, seed 1, its whole sampled audit (search, screening, selection,
certification): the built-in DP Robust UCB on its published schedule (ε = 1, ν = 0.9, T = 8, round by round: its
index moves every round) and a policy written one object per run the way papers' code writes it
(``examples/elimination.py:make``, Table DP, K = 2, T = 200).  Prints the median wall time of each executor, the
speed-up over one process, whether the reports are identical (all but their seconds), and the projection to n
workers from the share of the work that ran on workers.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from privcheck import PureDP, audit_policy

RUNS = int(float(sys.argv[1])) if len(sys.argv) > 1 else 20_000
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))


def targets():
    from privcheck.policies.audited import audited

    import elimination

    inst = audited("dp-robust-ucb", claim=PureDP(1.0), options={"nu": 0.9})
    yield (
        "dp-robust-ucb (published, T = 8)",
        dict(policy=inst.policy, definition=inst.definition, horizon=inst.horizon, name="dp-robust-ucb"),
    )
    yield (
        "elimination.py:make (one object per run, T = 200)",
        dict(policy=elimination.make, definition="table", horizon=200, arms=2, name="elimination"),
    )


def run(target: dict, **execution):
    t0 = time.perf_counter()
    report = audit_policy(claim=PureDP(1.0), samples=RUNS, screening=RUNS // 4, seed=1, **target, **execution)
    return time.perf_counter() - t0, report


def same(a, b) -> bool:
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k not in ("seconds", "call")}  # noqa: E731
    return strip(a) == strip(b)


def main():
    from distributed import LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50)
    print(
        f"{RUNS:,} runs per side, {REPEATS} repeats; LocalCluster(2 workers) start-up {time.perf_counter() - t0:.2f} s"
    )
    print("| target | executor | median s | speed-up | report identical to one process |")
    print("|---|---|---|---|---|")
    for label, target in targets():
        run(target, scheduler=cluster.scheduler_address)  # warm the workers' imports
        ways = [
            ("one process", {}),
            ("workers=2", {"workers": 2}),
            ("Dask, 2 workers", {"scheduler": cluster.scheduler_address}),
        ]
        times, reports = {}, {}
        for _ in range(REPEATS):
            for name, ex in ways:
                s, rep = run(target, **ex)
                times.setdefault(name, []).append(s)
                reports[name] = rep
        base = statistics.median(times["one process"])
        for name, _ in ways:
            m = statistics.median(times[name])
            print(f"| {label} | {name} | {m:.1f} | {base / m:.2f}× | {same(reports[name], reports['one process'])} |")
    cluster.close()


if __name__ == "__main__":
    main()
