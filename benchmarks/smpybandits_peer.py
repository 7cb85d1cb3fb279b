"""The peer of the simulator-speed row: SMPyBandits 0.9.7's klUCB and UCB on the same instance.

K = 10 Bernoulli arms with means evenly spaced in [0.1, 0.9], T = 10⁴, 10 runs: each policy's own
choice/getReward loop (what SMPyBandits' Evaluator runs per step, without its bookkeeping), timed in one process;
import time reported separately.  SMPyBandits needs numpy < 2 and scipy < 1.14, so it runs in its own environment:

    python3 -m venv /tmp/smpy
    /tmp/smpy/bin/pip install "numpy<2" "scipy<1.14" "SMPyBandits==0.9.7" "numba==0.60.0"
    /tmp/smpy/bin/python benchmarks/smpybandits_peer.py

`python3 benchmarks/regret_speed.py --peer-python /tmp/smpy/bin/python` runs this script (klUCB only) as a
whole process beside the whole `privcheck regret` command and prints the ratio.

Usage: python smpybandits_peer.py [klUCB] [UCB]   (both by default)
"""

import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402
from SMPyBandits.Arms import Bernoulli  # noqa: E402
from SMPyBandits.Policies import UCB, klUCB  # noqa: E402

IMPORTS = time.perf_counter() - t0
MEANS = np.linspace(0.1, 0.9, 10)
T, RUNS = 10_000, 10

for name, cls in (("klUCB", klUCB), ("UCB", UCB)):
    if len(sys.argv) > 1 and name not in sys.argv[1:]:
        continue
    t1 = time.perf_counter()
    regret = []
    for r in range(RUNS):
        np.random.seed(r)  # SMPyBandits' arms draw from numpy's global state: seeding it is its only interface
        arms = [Bernoulli(m) for m in MEANS]
        pol = cls(len(arms))
        pol.startGame()
        total = 0.0
        for t in range(T):
            a = pol.choice()
            pol.getReward(a, arms[a].draw(t))
            total += MEANS.max() - MEANS[a]
        regret.append(total)
    dt = time.perf_counter() - t1
    print(
        f"{name}: {dt:.2f} s for {RUNS} runs x {T} steps ({RUNS * T / dt:,.0f} steps/s), mean regret "
        f"{np.mean(regret):.1f}; imports {IMPORTS:.2f} s",
        flush=True,
    )
