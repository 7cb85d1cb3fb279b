"""AdaC-UCB on the 5-arm instance of Azize & Basu (means 0.75 … 0.25), T = 10⁶, 20 runs: wall time.

Run: python benchmarks/adac_ucb_speed.py [T] [runs]
Prints the wall time of the simulation (the policy's twin in the same run for comparison) and the regrets.
"""

import sys
import time

from privcheck.policies.adac_ucb import AdaCUCB, EpisodicUCB
from privcheck.policies.environments import Bernoulli, Schedule
from privcheck.policies.simulator import simulate

T = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**6
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
env = Bernoulli(Schedule([0.75, 0.625, 0.5, 0.375, 0.25]))
for pol in (AdaCUCB(5, 1.0), EpisodicUCB(5)):
    t0 = time.perf_counter()
    res = simulate(env, pol, T, RUNS, seed=0)
    dt = time.perf_counter() - t0
    s = res.summary()
    print(
        f"{pol!r}: T = {T:,}, {RUNS} runs: {dt:.1f} s ({dt / T * 1e6:.1f} µs per round for all runs); "
        f"regret {s['final_regret']:.1f} ± {s['stderr']:.1f}"
    )
