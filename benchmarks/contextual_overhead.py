"""The contextual protocol's overhead per run-round: a run whose act and update do nothing, timed through privcheck
(PolicyMechanism.sample: Table DP with the contexts public; JointMechanism.sample: joint DP, the contexts read from
each input) against the same calls made in a bare Python loop — the overhead is the difference (issue 48 asks for at
most 3 µs beyond the policy's own code).

Run: python3 benchmarks/contextual_overhead.py
"""

import time
import numpy as np
from privcheck import PureDP
from privcheck.audits.policy.relations import Joint, Table
from privcheck.core.sequential import as_policy
from privcheck.audits.policy.adapters import PolicyMechanism
from privcheck.audits.policy.joint import JointMechanism, joint_input


class Plain:
    def __init__(self, rng):
        pass

    def act(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


class Ctx:
    def __init__(self, rng):
        pass

    def act(self, t, contexts):
        return 0

    def update(self, t, arm, reward):
        pass


T, runs, K = 200, 2000, 5


def bare(cls, ctx):
    # the policy's own code alone: the same calls in a Python loop
    objs = [cls(None) for _ in range(runs)]
    c = np.zeros((K, 4))
    t0 = time.perf_counter()
    for t in range(1, T + 1):
        for o in objs:
            a = o.act(t, c) if ctx else o.act(t)
            o.update(t, a, 0.0)
    return (time.perf_counter() - t0) / (runs * T)


def timed(mech, x):
    mech.sample(x, np.random.default_rng(0), 8)
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        mech.sample(x, np.random.default_rng(1), runs)
        best = min(best, time.perf_counter() - t0)
    return best / (runs * T)


p = as_policy(Plain, n_arms=K, horizon=T, claim=PureDP(1.0))
c = as_policy(Ctx, n_arms=K, horizon=T, claim=PureDP(1.0), dim=4)
own_p, own_c = bare(Plain, False), bare(Ctx, True)
tp = timed(PolicyMechanism(p, T, Table()), np.zeros((T, K)))
tc = timed(PolicyMechanism(c, T, Table()), np.zeros((T, K)))
tj = timed(JointMechanism(c, T, Joint()), joint_input(np.zeros((T, K)), c.contexts, 0))
print(f"T={T} K={K} dim=4 runs={runs}: per run-round, µs (the policy's own calls alone / through privcheck / overhead)")
print(f"act(t)           : {own_p * 1e6:.2f} / {tp * 1e6:.2f} / {(tp - own_p) * 1e6:.2f}")
print(f"act(t, contexts) : {own_c * 1e6:.2f} / {tc * 1e6:.2f} / {(tc - own_c) * 1e6:.2f}  (Table DP, contexts public)")
print(f"act(t, contexts) : {own_c * 1e6:.2f} / {tj * 1e6:.2f} / {(tj - own_c) * 1e6:.2f}  (joint DP, from the input)")
