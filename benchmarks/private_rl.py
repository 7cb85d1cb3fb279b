"""Private reinforcement learning: how fast the default command refutes each planted bug of examples/private_rl.py,
what its correct version's pass reaches, and how many episode-steps a second the agents run.

    python3 benchmarks/private_rl.py --bugs                  # the default command on each example, K=50 H=3 S=2 A=2
    python3 benchmarks/private_rl.py --bugs --size 200,5,5,3 # K,H,S,A
    python3 benchmarks/private_rl.py --throughput            # episode-steps a second: PUCB batched, the example
    python3 benchmarks/private_rl.py --local --size 20,10,5,3  # local DP per report: examples/ldp_rl.py, the built-in
    python3 benchmarks/private_rl.py --linear 3 --size 6,2,2,2  # a linear MDP: examples/linear_rl.py, DP-LSVI (ρ = 1)

Bugs: ``privcheck audit examples/private_rl.py:NAME --epsilon 1 --definition joint`` at the size, with ``--releases
visits rewards transitions`` (what the agent publishes) and, for the correct version, on its actions too; printed:
the verdict, the certified ε, the stage that ended it, the runs per side and the seconds of the whole command (a
fresh process).  Local: ``privcheck audit examples/ldp_rl.py:NAME --epsilon 1 --definition local`` on each planted
bug and the correct version, then the built-in locally private agent (privcheck.policies.ldp_ucbvi) as published and
with a quarter of its noise; printed likewise.  Throughput: runs of the batched built-ins, PUCB
(privcheck.policies.private_ucbvi) and the locally private agent (privcheck.policies.ldp_ucbvi), and of the
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
#: (target, definition, what else the command is given, the view said in the table)
BUGS = [
    ("examples/private_rl.py:make_raw_count", "joint", RELEASES, "releases"),
    ("examples/private_rl.py:make_reused_noise", "joint", RELEASES, "releases"),
    ("examples/private_rl.py:make_uncomposed", "joint", RELEASES, "releases"),
    ("examples/private_rl.py:make", "joint", RELEASES, "releases"),
    ("examples/private_rl.py:make", "joint", [], "actions"),
]
LOCAL = [
    ("examples/ldp_rl.py:make_reused_noise", "local", [], "reports"),
    ("examples/ldp_rl.py:make_raw_visits", "local", [], "reports"),
    ("examples/ldp_rl.py:make_uncomposed", "local", [], "reports"),
    ("examples/ldp_rl.py:make_float_noise", "local", [], "reports"),
    ("examples/ldp_rl.py:make", "local", [], "reports"),
    ("privcheck.policies.ldp_ucbvi:make", "local", [], "reports"),
    ("privcheck.policies.ldp_ucbvi:make", "local", ["--set", "noise_multiplier=0.25"], "reports, ¼ noise"),
]

LINEAR = [
    ("examples/linear_rl.py:make_tile_features", "joint", ["--releases", "gram", "b", "m"], "releases"),
    ("examples/linear_rl.py:make_exact_rewards", "joint", ["--releases", "gram", "b", "m"], "releases"),
    ("examples/linear_rl.py:make", "joint", ["--releases", "gram", "b", "m"], "releases"),
    ("privcheck.policies.dp_lsvi:make", "joint", ["--releases", "gram", "rewards", "transitions"], "releases"),
    (
        "privcheck.policies.dp_lsvi:make",
        "joint",
        ["--releases", "gram", "rewards", "transitions", "--set", "noise_multiplier=0.25"],
        "releases, ¼ noise",
    ),
]


def bugs(size, seed: int, rows=BUGS, claim=("--epsilon", "1")) -> None:
    K, H, S, A = size
    print(f"K = {K}, H = {H}, S = {S}, A = {A}, claim {' '.join(claim)}, seed {seed}\n")
    print("| agent | view | verdict | certified ε | stage | runs per side | seconds |\n|---|---|---|---|---|---|---|")
    for target, definition, more, view in rows:
        name = target.rsplit(":", 1)[1] if target.startswith("examples/") else target
        argv = [sys.executable, "-m", "privcheck.cli", "audit", target, *claim]
        argv += ["--definition", definition, "--episodes", str(K), "--horizon", str(H), "--states", str(S)]
        argv += ["--actions", str(A), *more, "--seed", str(seed), "--json", "--quiet"]
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
        took = time.perf_counter() - t0
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
    from privcheck.policies.dp_lsvi import make as lsvi
    from privcheck.policies.ldp_ucbvi import make as ldp
    from privcheck.policies.private_ucbvi import make

    K, H, S, A = size
    tapes = tapes_of(chain(S, A), K, H)
    print("| agent | runs | episode-steps a second |\n|---|---|---|")
    for label, factory, runs, params, dim in (
        ("PUCB, batched (privcheck.policies.private_ucbvi)", make, 4096, {"epsilon": 1.0}, None),
        ("LDP, batched (privcheck.policies.ldp_ucbvi)", ldp, 4096, {"epsilon": 1.0}, None),
        ("DP-LSVI, batched, d = 3 (privcheck.policies.dp_lsvi)", lsvi, 4096, {"rho": 1.0}, 3),
        ("the example, one object per run (examples/private_rl.py:make)", private_rl.make, 200, {"epsilon": 1.0}, None),
    ):
        agent = EpisodicAgent(factory, K, H, S, A, params, label, dim=dim)
        run_episodes(agent, tapes, np.random.default_rng(0), min(runs, 16))
        t0 = time.perf_counter()
        run_episodes(agent, tapes, np.random.default_rng(1), runs)
        took = time.perf_counter() - t0
        print(f"| {label} | {runs:,} | {runs * K * H / took:,.0f} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bugs", action="store_true")
    p.add_argument("--throughput", action="store_true")
    p.add_argument("--local", action="store_true")
    p.add_argument("--linear", type=int, metavar="DIM", help="a linear MDP's agents, given features of this dimension")
    p.add_argument("--size", default="50,3,2,2", help="K,H,S,A")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.split(","))
    if args.throughput:
        throughput(size)
    if args.bugs:
        bugs(size, args.seed)
    if args.local:
        bugs(size, args.seed, LOCAL)
    if args.linear:
        rows = [
            (t, d, [*more, "--dim", str(args.linear)] if "tile_features" not in t else [*more], v)
            for t, d, more, v in LINEAR
        ]
        bugs(size, args.seed, rows, ("--rho", "1"))


if __name__ == "__main__":
    main()
