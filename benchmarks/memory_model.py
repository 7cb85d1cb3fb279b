"""The plan's memory model against what an audit holds: the binary counter audited at T releases and n draws a side
(``stages=0``, one worker: every draw made in the one process), each in a fresh process, whose peak resident memory
(``ru_maxrss``) grows over the audit by what the audit held at most; beside it, what the plan's model
(``privcheck.audits.sampling.held_bytes``) counts for the same plan — the pairs screened, the selection drawn, the
chunks and the sampler's measured cost.

    python3 benchmarks/memory_model.py                       # T = 1,024, 2,048, 4,096 at 20,000 draws a side
    python3 benchmarks/memory_model.py --sizes 2048:30000    # T:n, comma-separated
    python3 benchmarks/memory_model.py --one 1024 20000      # one row, as JSON (what the rows run)

The model should count more than the process held, never less: a plan it passes must not run out of memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def one(T: int, n: int) -> dict:
    import numpy as np

    from privcheck import audit
    from privcheck.audits import sampling
    from privcheck.audits.mechanism.api import draw_cost
    from privcheck.mechanisms import counters

    m = counters.BinaryCounter(T, rho=0.5)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    r = audit(m, input=np.zeros(T), samples=n, seed=1, stages=0, workers=1)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    d = r.to_dict()
    cost = draw_cost(m, np.zeros(T), 1, "counter", min(n, 4096), n)
    sel, pairs, screening = d["selection_samples_per_side"], d["pairs_considered"], sampling.MIN_SCREEN
    model = sampling.held_bytes(cost, n, sel, 1, pairs, screening)
    return {
        "T": T,
        "n": n,
        "selection": sel,
        "pairs": pairs,
        "rho_lower": r.rho_lower,
        "seconds": seconds,
        "grown": peak - before,
        "model": model,
        "side": n * T * 8,
        "chunk": cost.per_chunk,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1024:20000,2048:20000,4096:20000", help="T:n pairs, comma-separated")
    p.add_argument("--one", nargs=2, type=int, metavar=("T", "N"), help="one row in this process, as JSON")
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    print(
        "| T | draws a side | selection | pairs | peak grew (GB) | model (GB) | grew / model | side (GB) | chunk | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        T, n = (int(v) for v in size.split(":"))
        out = subprocess.run([sys.executable, __file__, "--one", str(T), str(n)], capture_output=True, text=True)
        if out.returncode:
            print(f"| {T} | {n:,} | failed: {out.stderr.strip().splitlines()[-1]} |", flush=True)
            continue
        g = json.loads(out.stdout.strip().splitlines()[-1])
        gb = 2.0**30
        print(
            f"| {T:,} | {n:,} | {g['selection']:,} | {g['pairs']} | {g['grown'] / gb:.2f} | {g['model'] / gb:.2f} | "
            f"{g['grown'] / g['model']:.2f} | {g['side'] / gb:.2f} | {g['chunk']:,} | {g['seconds']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
