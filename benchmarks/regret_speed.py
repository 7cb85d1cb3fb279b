"""Speed of the simulator (simulator issue, "Speed").

1. kl-UCB, K = 10 Bernoulli arms with means evenly spaced in [0.1, 0.9], T = 10⁴, 10 runs: the whole
   `privcheck regret` command, timed on its second and later runs (compilation caches count as installed),
   on the compiled loop (`policies._fastloop`, the default when it was built) and with it switched off
   (PRIVCHECK_NO_EXTENSION=1: the numba kernels).  The command is the console script installed beside this
   interpreter (a virtualenv's `bin/privcheck`), not a version-manager shim that may come first on PATH.
   Peer: SMPyBandits 0.9.7's klUCB, as a whole process in its own environment (`--peer-python`, see
   benchmarks/smpybandits_peer.py), alternated with ours in the same run; without it, the 20–33 s the issue
   quotes.
2. kl-UCB-CF, K = 2, T = 100, 10⁵ runs (the shape of a privacy audit): run-steps per second, in process,
   after a warm-up.  Peer: a naive numpy version, 0.7·10⁶ run-steps/s (quoted in the issue).

Usage: python benchmarks/regret_speed.py [--repeats 5] [--peer-python /tmp/smpy/bin/python]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def timed(cmd, env=None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    return time.perf_counter() - t0


def summary(secs) -> str:
    return f"median {statistics.median(secs):.3f} s (min {min(secs):.3f}, max {max(secs):.3f}, {len(secs)} runs)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peer-python", help="the interpreter of SMPyBandits' environment")
    a = ap.parse_args()
    script = Path(sys.executable).parent / "privcheck"
    if not script.exists():
        sys.exit(f"no console script beside {sys.executable}: pip install -e . first")
    means = ",".join(f"{m:.4g}" for m in np.linspace(0.1, 0.9, 10))
    cmd = [
        str(script),
        "regret",
        "--env",
        "bernoulli",
        "--means",
        means,
        "--policies",
        "kl-ucb",
        "--horizon",
        "10000",
        "--runs",
        "10",
        "--seed",
        "1",
    ]
    numba_env = dict(os.environ, PRIVCHECK_NO_EXTENSION="1")
    from privcheck.policies.fastloop import compiled

    print(f"compiled loop built: {compiled()}")
    timed(cmd), timed(cmd, numba_env)  # first runs: fill the compilation caches
    ours, numba_path, peer = [], [], []
    for _ in range(a.repeats):  # alternated, so that the machine's load hits all alike
        ours.append(timed(cmd))
        numba_path.append(timed(cmd, numba_env))
        if a.peer_python:
            peer.append(timed([a.peer_python, str(HERE / "smpybandits_peer.py"), "klUCB"]))
    med = statistics.median(ours)
    print(f"kl-UCB K=10 T=1e4 10 runs, whole command: {summary(ours)}; {10 * 10_000 / med:,.0f} run-steps/s")
    print(f"  the same with PRIVCHECK_NO_EXTENSION=1 (numba kernels): {summary(numba_path)}")
    if peer:
        pm = statistics.median(peer)
        print(
            f"  SMPyBandits 0.9.7 klUCB, whole process: {summary(peer)}; ratio {pm / med:.1f}x "
            f"(numba path {pm / statistics.median(numba_path):.1f}x); target 50x"
        )
    else:
        print(f"  vs SMPyBandits klUCB 20-33 s (quoted): {20 / med:.0f}-{33 / med:.0f}x faster")

    from privcheck.policies import Bernoulli, Corruption, KLUCBCF, Schedule, simulate

    p = 1 / (1 + np.exp(-1.0))
    c = Corruption.randomized_response([p, p], [p, p])
    env = Bernoulli(Schedule([[0.9, 0.8]]), c)
    simulate(env, KLUCBCF(c), 100, 20_000, seed=0)
    rates = []
    for r in range(a.repeats):
        t0 = time.perf_counter()
        simulate(env, KLUCBCF(c), 100, 100_000, seed=r)
        rates.append(100 * 100_000 / (time.perf_counter() - t0))
    print(
        f"kl-UCB-CF K=2 T=100 1e5 runs: median {statistics.median(rates) / 1e6:.2f}e6 run-steps/s "
        f"(min {min(rates) / 1e6:.2f}e6, max {max(rates) / 1e6:.2f}e6) over {a.repeats} repeats; "
        f"vs naive numpy 0.7e6: {statistics.median(rates) / 0.7e6:.1f}x"
    )


if __name__ == "__main__":
    main()
