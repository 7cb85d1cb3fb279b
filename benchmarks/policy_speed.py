"""Run-rounds per second of each built-in private policy as a policy audit draws its runs.

Each policy's audited instance (``privcheck.policies.audited.audited``: the claim's calibration, its audit schedule)
is run by ``PolicyMechanism.sample`` — the loop of every sampled Table DP audit — on an all-zero reward table, for
``--runs`` runs of ``--horizon`` rounds, after one untimed warm-up call; the best of ``--repeats`` is printed.
The issue's target is 10⁶ run-rounds per second per policy; the kl-UCB simulator is the peer (its own vectorised
loop, ``policies.simulator.simulate``, measured in the same run).

    python3 benchmarks/policy_speed.py [--runs 1000] [--horizon 1000] [--repeats 3] [--schedule shortened]

Policies whose actions are fixed for stretches (an episode's or a phase's schedule) run those stretches as blocks
(``privcheck.core.protocols.Steady``); the table says which do.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

from privcheck.policies.audited import audited
from privcheck.audits.policy.relations import Table
from privcheck.policies.registry import build_environment, build_policy
from privcheck.policies.simulator import simulate
from privcheck import PureDP, ZCDP
from privcheck.audits.policy.adapters import PolicyMechanism
from privcheck.core.protocols import Steady, provides

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import best_of  # noqa: E402

PRIVATE = {  # name: (claim, the options it needs)
    "adac-ucb": (ZCDP(0.5), {}),
    "dp-robust-ucb": (PureDP(1.0), {"nu": 0.9}),
    "dp-robust-se": (PureDP(1.0), {"nu": 0.9}),
    "ldp-robust-se": (PureDP(1.0), {"nu": 0.9}),
    "adac-gope": (ZCDP(0.5), {}),
    "adar-gope-var": (ZCDP(0.5), {}),
    "adac-oful": (ZCDP(0.5), {}),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--horizon", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--schedule", choices=("published", "shortened"), default="published")
    args = ap.parse_args(argv)
    n, T = args.runs, args.horizon
    print(f"{n:,} runs × {T:,} rounds, best of {args.repeats}, {args.schedule} schedules")
    print("| policy | instance | blocks | run-rounds per second | µs per round (all runs) |")
    print("|---|---|---|---|---|")
    env = build_environment("bernoulli", "0.6,0.5", T)
    peer = build_policy("kl-ucb", env, T)
    s = best_of(args.repeats, lambda: simulate(env, peer, T, n, seed=1))
    print(f"| kl-ucb (the simulator, peer) | 2 arms | | {n * T / s:.3g} | {s / T * 1e6:.1f} |")
    for name, (claim, options) in PRIVATE.items():
        inst = audited(name, claim=claim, horizon=T, options=options, schedule=args.schedule)
        mech = PolicyMechanism(inst.policy, T, Table())
        x = np.zeros((T, inst.policy.n_arms))
        s = best_of(args.repeats, lambda: mech.sample(x, np.random.default_rng(0), n))
        blocks = "yes" if provides(inst.policy, Steady) else ""
        print(f"| {name} | {inst.policy} | {blocks} | {n * T / s:.3g} | {s / T * 1e6:.1f} |")


if __name__ == "__main__":
    main()
