"""Differentially private successive elimination, written one object per run the way papers' code writes it —
and four planted bugs of the kinds found in published implementations.  The default audit finds where its
decisions are made by itself (a path of neighbouring tables, bisected) and refutes each bug:

    privcheck audit examples/elimination.py:make --epsilon 1 --definition table --arms 2 --horizon 1000 --samples 2000 --screening 500
    privcheck audit examples/elimination.py:make_shared_noise --epsilon 1 --definition table --arms 2 --horizon 1000 --samples 2000 --screening 500
    privcheck audit examples/elimination.py:make_small_noise --epsilon 1 --definition table --arms 2 --horizon 1000 --samples 2000 --screening 500
    privcheck audit examples/elimination.py:make_tie_leak --epsilon 1 --definition table --arms 2 --horizon 1000 --samples 2000 --screening 500
    privcheck audit examples/elimination.py:make_raw_leader --epsilon 1 --definition table --arms 4 --horizon 1000

The policy: phases of ``batch`` pulls of each active arm in turn, each phase on fresh rounds; at the end of a phase
each active arm's reward sum gets its own Laplace(1/ε) noise (a row of the table changes one pulled reward in
[0, 1], so one sum by at most 1; phases use disjoint rounds, so the whole run is ε-DP on reward tables), and an
arm whose noisy mean plus the confidence width falls below the best noisy mean minus it is eliminated.

The bugs: ``make_shared_noise`` adds one Laplace draw to every sum, so the noise cancels in the comparison and
elimination is a deterministic function of the raw sums; ``make_small_noise`` draws noise ten times too small;
``make_tie_leak`` orders the arms within a phase by the parity of the last raw reward it saw; ``make_raw_leader``
compares each arm's noisy mean with the leader's raw one — a leak that grows with the arms: a reward of the leader
moves every other arm's test at once, about (K − 1)ε in all.  At two arms that is one test, and the leader's own
test reads no data: the policy is ε-DP there, and refuted at four.  Audit a policy at the arms it is published with.
"""

import math

import numpy as np


class DPSuccessiveElimination:
    def __init__(self, n_arms, horizon, rng, epsilon, batch=100, bug=None):
        self.k, self.rng, self.eps, self.batch, self.bug = n_arms, rng, epsilon, batch, bug
        self.width = math.sqrt(math.log(4 * n_arms * horizon**2) / (2 * batch))
        self.active = list(range(n_arms))
        self.sums = np.zeros(n_arms)
        self.step = 0  # pulls made in this phase
        self.order = list(self.active)
        self.last_reward = 0.0

    def act(self, t):
        return self.order[self.step % len(self.order)]

    def update(self, t, arm, reward):
        self.sums[arm] += min(max(reward, 0.0), 1.0)
        self.last_reward = reward
        self.step += 1
        if self.step == self.batch * len(self.active):
            self._end_phase()

    def _end_phase(self):
        scale = (0.1 if self.bug == "small-noise" else 1.0) / self.eps
        if self.bug == "shared-noise":  # one draw for all arms: it cancels in every comparison
            noise = np.full(self.k, self.rng.laplace(0.0, scale))
        else:
            noise = self.rng.laplace(0.0, scale, self.k)
        means = {a: (self.sums[a] + noise[a]) / self.batch for a in self.active}
        best = max(means.values())
        if self.bug == "raw-leader":  # the leader's raw mean: one reward moves the test of every other arm
            best = max(self.sums[a] for a in self.active) / self.batch
        self.active = [a for a in self.active if means[a] + self.width >= best - self.width]
        self.sums[:] = 0.0
        self.step = 0
        self.order = list(self.active)
        if self.bug == "tie-leak" and self.last_reward > 0.5:  # the side channel: the order reveals a raw reward
            self.order.reverse()


def make(n_arms, horizon, rng, epsilon):
    return DPSuccessiveElimination(n_arms, horizon, rng, epsilon)


def make_shared_noise(n_arms, horizon, rng, epsilon):
    return DPSuccessiveElimination(n_arms, horizon, rng, epsilon, bug="shared-noise")


def make_small_noise(n_arms, horizon, rng, epsilon):
    return DPSuccessiveElimination(n_arms, horizon, rng, epsilon, bug="small-noise")


def make_tie_leak(n_arms, horizon, rng, epsilon):
    return DPSuccessiveElimination(n_arms, horizon, rng, epsilon, bug="tie-leak")


def make_raw_leader(n_arms, horizon, rng, epsilon):
    return DPSuccessiveElimination(n_arms, horizon, rng, epsilon, bug="raw-leader")
