"""Scale-out: the same audit on local worker processes and on a 2-worker Dask LocalCluster.

    python benchmarks/scaleout.py [SAMPLES_PER_SIDE] [REPEATS]      (defaults 10^8 and 3)

Audits the built-in Laplace (ε = 1, scale 1) on the pair (0, 1) with SAMPLES_PER_SIDE certification samples per
side, seed 1, in three ways, interleaved and repeated: one process, ``workers=2`` (a process pool) and a Dask
LocalCluster of 2 single-threaded worker processes that is started once beforehand (its start-up is timed
separately; ``--scheduler local`` pays it on every command).  Two selection sizes: the default (10⁷ per side,
scored in the calling process, so identical work for every executor) and 10⁵ (the certification wave is then
almost all of the work: the stricter comparison); then the command line end to end, a fresh process per run.
Prints median wall times, the Dask/processes ratio, whether
the reports are identical, the throughput per worker and the projection for 10¹⁰ samples per side.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time

from privcheck import audit
from privcheck.audits.mechanism.runner import MAX_CHUNKS_PER_TASK, TASKS_PER_WORKER
from privcheck.core import CHUNK_SIZE, PureDP, ReplaceOne
from privcheck.core.targets import Described

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**8
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
CLAIM = PureDP(1.0, ReplaceOne("l1", 1.0))
TARGET = Described("privcheck.mechanisms.registry:build_builtin", {"name": "laplace", "claim": CLAIM, "params": {}})


def tasks_for(n, workers):
    """Certification tasks for n samples per side on ``workers``, cut as privcheck.audits.mechanism.runner cuts them."""
    chunks = math.ceil(n / CHUNK_SIZE)
    per = max(1, min(MAX_CHUNKS_PER_TASK, math.ceil(chunks / (TASKS_PER_WORKER * workers))))
    return 2 * math.ceil(chunks / per)


def run(selection, **where):
    t0 = time.perf_counter()
    rep = audit(
        TARGET, CLAIM, pairs=[([0.0], [1.0])], method="sample", samples=N, selection_samples=selection, seed=1, **where
    )
    d = rep.to_dict()
    d.pop("seconds")
    return time.perf_counter() - t0, d


def main():
    from distributed import LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50)
    startup = time.perf_counter() - t0
    print(f"{N:.0e} samples per side, {REPEATS} repeats; LocalCluster(2 workers) start-up {startup:.2f} s")
    try:
        run(10**5, scheduler=cluster.scheduler_address)  # warm the workers' imports (numba, scipy)
        run(10**5, workers=2)
        for selection in (10**7, 10**5):
            times = {"1 process": [], "workers=2": [], "dask 2 workers": []}
            reports = {}
            for _ in range(REPEATS):
                for label, where in (
                    ("1 process", {}),
                    ("workers=2", {"workers": 2}),
                    ("dask 2 workers", {"scheduler": cluster.scheduler_address}),
                ):
                    t, d = run(selection, **where)
                    times[label].append(t)
                    reports[label] = d
            med = {k: statistics.median(v) for k, v in times.items()}
            same = reports["1 process"] == reports["workers=2"] == reports["dask 2 workers"]
            print(
                f"\nselection {selection:.0e} per side: epsilon_lower {reports['1 process']['epsilon_lower']:.6f}, "
                f"reports identical: {same}"
            )
            for k, v in times.items():
                print(f"  {k:<15} median {med[k]:7.2f} s   (runs: {', '.join(f'{x:.2f}' for x in v)})")
            ratio = med["dask 2 workers"] / med["workers=2"]
            print(
                f"  dask / workers=2 = {ratio:.3f} (overhead {100 * (ratio - 1):+.1f} %); "
                f"with the cluster start-up: {(med['dask 2 workers'] + startup) / med['workers=2']:.3f}"
            )
            if selection == 10**5:
                draws = 2 * N + 2 * selection
                per_worker = draws / med["dask 2 workers"] / 2
                single = draws / med["1 process"]
                print(
                    f"  throughput: {single / 1e6:.1f} M draws/s in one process; "
                    f"{per_worker / 1e6:.1f} M draws/s per Dask worker"
                )
                # charged per task: the measured cost of the Dask run beyond the pool's, spread over its tasks, or
                # the ~1 ms per task that Dask's documentation states, whichever is larger
                overhead = max(1e-3, (med["dask 2 workers"] - med["workers=2"]) / tasks_for(N, 2))
                for w in (16, 64):
                    tasks = tasks_for(1e10, w)
                    t = 2e10 / (per_worker * w) + tasks * overhead / w
                    print(
                        f"  projection, 10^10 per side on {w} workers: {t:7.0f} s certification "
                        f"({tasks} tasks, {overhead * 1e3:.1f} ms overhead charged per task)"
                    )
    finally:
        cluster.close()
    end_to_end()


def end_to_end():
    """The command line as a user runs it, each time a fresh process: ``--workers 2`` pays the fork server's
    imports, ``--scheduler local --workers 2`` the cluster's start-up and its workers' imports."""
    import subprocess

    base = [
        "privcheck",
        "audit",
        "laplace",
        "--epsilon",
        "1",
        "--method",
        "sample",
        "--samples",
        str(N),
        "--seed",
        "1",
        "--json",
    ]
    times = {"--workers 2": [], "--scheduler local --workers 2": []}
    outs = {}
    for _ in range(REPEATS):
        for flags in times:
            t0 = time.perf_counter()
            out = subprocess.run(base + flags.split(), capture_output=True, text=True, check=True).stdout
            times[flags].append(time.perf_counter() - t0)
            d = json.loads(out)
            d.pop("seconds")
            outs[flags] = d
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"\ncommand line, default selection, fresh process each time: reports identical: "
        f"{outs['--workers 2'] == outs['--scheduler local --workers 2']}"
    )
    for k, v in times.items():
        print(f"  {k:<30} median {med[k]:6.2f} s   (runs: {', '.join(f'{x:.2f}' for x in v)})")
    print(f"  ratio {med['--scheduler local --workers 2'] / med['--workers 2']:.3f}")


if __name__ == "__main__":
    main()
