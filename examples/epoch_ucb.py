"""A differentially private UCB written one object per run, as papers' code writes it — each arm's reward sum
released with fresh Laplace noise whenever its pull count doubles (so each reward enters one release) — and a
planted bug of a kind found in published implementations: the noise drawn once per arm at the start and reused in
every release.  The default command finds where its decisions are made and refutes the bug by itself:

    privcheck audit examples/epoch_ucb.py:make_cached_noise --epsilon 1 --definition table --arms 2 --horizon 200 --seed 1
    privcheck audit examples/epoch_ucb.py:make --epsilon 1 --definition table --arms 2 --horizon 200 --samples 2000

The policy: an arm's rewards (clipped to [0, 1]) are summed over epochs that end when its pull count reaches a
power of two; at the end of an epoch the sum gets its own Laplace(1/ε) draw and is added to the arm's released
total, which the index reads (released mean plus a confidence width and a privacy width).  A row of the table
changes one pulled reward, so one epoch's sum by at most 1: the run is ε-DP on reward tables.

The bug: reusing one draw c per arm, the released totals after m epochs are S + m·c, and 2·(the first) − (the
second) is a raw epoch sum — the noise cancels where the indices compare the totals over time.
"""

import math

import numpy as np


class EpochDPUCB:
    def __init__(self, n_arms, horizon, rng, epsilon, cached_noise=False):
        self.k, self.T, self.rng, self.eps = n_arms, horizon, rng, epsilon
        self.pulls = np.zeros(n_arms, dtype=int)
        self.epoch_sum = np.zeros(n_arms)
        self.total = np.zeros(n_arms)  # the released (noisy) sum
        self.released_at = np.zeros(n_arms, dtype=int)  # the pull count of the last release
        self.cached = rng.laplace(0.0, 1.0 / epsilon, n_arms) if cached_noise else None

    def act(self, t):
        if t <= self.k:
            return t - 1  # each arm once
        n = np.maximum(self.released_at, 1)
        width = np.sqrt(2 * math.log(self.T) / n) + 3 * math.log(self.T) / (self.eps * n)
        return int(np.argmax(self.total / n + width))

    def update(self, t, arm, reward):
        self.pulls[arm] += 1
        self.epoch_sum[arm] += min(max(reward, 0.0), 1.0)
        if self.pulls[arm] & (self.pulls[arm] - 1) == 0:  # a power of two: the epoch ends, its sum is released
            noise = self.cached[arm] if self.cached is not None else self.rng.laplace(0.0, 1.0 / self.eps)
            self.total[arm] += self.epoch_sum[arm] + noise
            self.released_at[arm] = self.pulls[arm]
            self.epoch_sum[arm] = 0.0


def make(n_arms, horizon, rng, epsilon):
    return EpochDPUCB(n_arms, horizon, rng, epsilon)


def make_cached_noise(n_arms, horizon, rng, epsilon):
    return EpochDPUCB(n_arms, horizon, rng, epsilon, cached_noise=True)
