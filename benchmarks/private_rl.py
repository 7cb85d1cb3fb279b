"""Private reinforcement learning: how fast the default command refutes each planted bug of examples/private_rl.py,
what its correct version's pass reaches, and how many episode-steps a second the agents run.

    python3 benchmarks/private_rl.py --bugs                  # the default command on each example, K=50 H=3 S=2 A=2
    python3 benchmarks/private_rl.py --bugs --size 200,5,5,3 # K,H,S,A
    python3 benchmarks/private_rl.py --throughput            # episode-steps a second: PUCB batched, the example

Bugs: ``privcheck audit examples/private_rl.py:NAME --epsilon 1 --definition joint`` at the size, with ``--releases
visits rewards transitions`` (what the agent publishes) and, for the correct version, on its actions too; printed:
the verdict, the certified ε, the stage that ended it, the runs per side and the seconds of the whole command (a
fresh process).  Throughput: runs of the batched built-in PUCB (privcheck.policies.private_ucbvi) and of the
example's one-object-per-run agent on the chain MDP's users, timed in this process after a first batch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RELEASES = ["--releases", "visits", "rewards", "transitions"]
BUGS = [
    ("make_raw_count", RELEASES),
    ("make_reused_noise", RELEASES),
    ("make_uncomposed", RELEASES),
    ("make", RELEASES),
    ("make", []),
]


def bugs(size, seed: int) -> None:
    K, H, S, A = size
    print(f"K = {K}, H = {H}, S = {S}, A = {A}, claim ε = 1, seed {seed}\n")
    print("| agent | view | verdict | certified ε | stage | runs per side | seconds |\n|---|---|---|---|---|---|---|")
    for name, more in BUGS:
        argv = [sys.executable, "-m", "privcheck.cli", "audit", f"examples/private_rl.py:{name}", "--epsilon", "1"]
        argv += ["--definition", "joint", "--episodes", str(K), "--horizon", str(H), "--states", str(S)]
        argv += ["--actions", str(A), *more, "--seed", str(seed), "--json", "--quiet"]
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
        took = time.perf_counter() - t0
        view = "releases" if more else "actions"
        try:
            r = json.loads(done.stdout)
        except ValueError:
            print(f"| {name} | {view} | error: {done.stderr.strip()[-200:]} | | | | {took:.1f} |", flush=True)
            continue
        stage = r.get("stage") or "whole"
        print(
            f"| {name} | {view} | {r['verdict']} | {r['epsilon_lower']:.4g} | {stage} | {r['samples_per_side']:,} | "
            f"{took:.1f} |",
            flush=True,
        )


def throughput(size) -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    import private_rl

    from privcheck.audits.episodic.instances import chain, tapes_of
    from privcheck.core.episodic import EpisodicAgent, run_episodes
    from privcheck.policies.private_ucbvi import make

    K, H, S, A = size
    tapes = tapes_of(chain(S, A), K, H)
    print("| agent | runs | episode-steps a second |\n|---|---|---|")
    for label, factory, runs in (
        ("PUCB, batched (privcheck.policies.private_ucbvi)", make, 4096),
        ("the example, one object per run (examples/private_rl.py:make)", private_rl.make, 200),
    ):
        agent = EpisodicAgent(factory, K, H, S, A, {"epsilon": 1.0}, label)
        run_episodes(agent, tapes, np.random.default_rng(0), min(runs, 16))
        t0 = time.perf_counter()
        run_episodes(agent, tapes, np.random.default_rng(1), runs)
        took = time.perf_counter() - t0
        print(f"| {label} | {runs:,} | {runs * K * H / took:,.0f} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bugs", action="store_true")
    p.add_argument("--throughput", action="store_true")
    p.add_argument("--size", default="50,3,2,2", help="K,H,S,A")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.split(","))
    if args.throughput:
        throughput(size)
    if args.bugs:
        bugs(size, args.seed)


if __name__ == "__main__":
    main()
