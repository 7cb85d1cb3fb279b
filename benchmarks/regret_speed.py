"""Speed of the simulator (simulator issue, "Speed").

1. kl-UCB, K = 10 Bernoulli arms with means evenly spaced in [0.1, 0.9], T = 10⁴, 10 runs: the whole
   `privcheck regret` command, timed on its second and later runs (numba's compilation cache counts as
   installed).  Peer: SMPyBandits 0.9.7's klUCB, 20–33 s on the same machine type (figure quoted in the
   issue, not re-run here).
2. kl-UCB-CF, K = 2, T = 100, 10⁵ runs (the shape of a privacy audit): run-steps per second, in process,
   after a warm-up.  Peer: a naive numpy version, 0.7·10⁶ run-steps/s (quoted in the issue).

Usage: python benchmarks/regret_speed.py [--repeats 5]
"""

import argparse
import statistics
import subprocess
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    means = ",".join(f"{m:.4g}" for m in np.linspace(0.1, 0.9, 10))
    cmd = ["privcheck", "regret", "--env", "bernoulli", "--means", means, "--policies", "kl-ucb",
           "--horizon", "10000", "--runs", "10", "--seed", "1"]
    subprocess.run(cmd, check=True, capture_output=True)  # first run: fills the compilation cache
    secs = []
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        secs.append(time.perf_counter() - t0)
    med = statistics.median(secs)
    print(f"kl-UCB K=10 T=1e4 10 runs, whole command: median {med:.2f} s (min {min(secs):.2f}, max {max(secs):.2f}) "
          f"over {a.repeats} runs; {10 * 10_000 / med:,.0f} run-steps/s; vs SMPyBandits klUCB 20-33 s: "
          f"{20 / med:.0f}-{33 / med:.0f}x faster")

    from policies import Bernoulli, Corruption, KLUCBCF, Schedule, simulate
    p = 1 / (1 + np.exp(-1.0))
    c = Corruption.randomized_response([p, p], [p, p])
    env = Bernoulli(Schedule([[0.9, 0.8]]), c)
    simulate(env, KLUCBCF(c), 100, 20_000, seed=0)
    rates = []
    for r in range(a.repeats):
        t0 = time.perf_counter()
        simulate(env, KLUCBCF(c), 100, 100_000, seed=r)
        rates.append(100 * 100_000 / (time.perf_counter() - t0))
    print(f"kl-UCB-CF K=2 T=100 1e5 runs: median {statistics.median(rates) / 1e6:.2f}e6 run-steps/s "
          f"(min {min(rates) / 1e6:.2f}e6, max {max(rates) / 1e6:.2f}e6) over {a.repeats} repeats; "
          f"vs naive numpy 0.7e6: {statistics.median(rates) / 0.7e6:.1f}x")


if __name__ == "__main__":
    main()
