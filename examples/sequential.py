"""Policies written one object per run, as papers' code writes them, and audited as written.

A factory returns one run of the policy: ``act(t)`` gives the arm of round t (1-based), ``update(t, arm, reward)``
feeds back the reward of the arm played.  privcheck passes the factory whichever of ``n_arms``, ``horizon``,
``rng`` (that run's generator) and the claim's ``epsilon``/``delta``/``rho``/``mu`` it declares:

    privcheck audit examples/sequential.py:make --epsilon 1 --definition table --arms 2 --horizon 40 --samples 5000
    privcheck audit examples/sequential.py:make_shared_noise --epsilon 1 --definition table --arms 2 --horizon 40 --samples 5000
    privcheck audit examples/sequential.py:make_gaussian_noise --epsilon 1 --definition table --arms 2 --horizon 40
    privcheck audit examples/sequential.py:make_raw_reexplore --epsilon 1 --definition table --arms 2 --horizon 100 --seed 1
    privcheck regret --env bernoulli --means 0.9,0.5 --policies examples/sequential.py:make --epsilon 1 --horizon 200 --runs 50

The first is explore-then-commit with Laplace noise on each arm's sum (ε-DP on reward tables); the second adds
one Laplace draw to both sums, so the noise cancels in the comparison and the commitment is a deterministic
function of the raw sums: refuted.  The third draws Gaussian noise at the Laplace's scale — a quiet leak: at
the tables where the commitment is a coin toss its ratios stay within e^ε, but Gaussian tails are too light for
pure DP, and on tables where one arm is committed to in a few percent of runs the ratio passes e^{1.5ε}.  The
fourth adds a hand-written "safety" re-exploration after the commitment — with probability 10⁻⁴ a round, play the
arm that looks best so far — reading the raw sums where the noisy ones were meant: a leak that lives in the few
runs in a thousand that re-explore — refuted by the default command on each of the seeds 1 to 13, in 21–36 s
(its search takes the pair at the commitment's raw tie, where the raw sums' argmax flips, and a look during the
screening of its pairs certifies the event the screening found, before the selection and certification).  Below them, adapters for
the other shapes policies are written in.
"""

import numpy as np


class ExploreThenCommit:
    """Pull the arms in turn for ``m`` rounds each, then play for ever the arm of the largest noisy sum."""

    def __init__(self, n_arms, horizon, rng, epsilon, shared_noise=False, gaussian=False, reexplore=0.0):
        self.k, self.rng, self.reexplore = n_arms, rng, reexplore
        self.m = max(1, horizon // (2 * n_arms))  # exploration pulls per arm: the commitment falls inside T
        self.scale = 1.0 / epsilon  # a row changes one pulled reward in [0, 1]: one sum by at most 1
        self.shared, self.gaussian = shared_noise, gaussian
        self.sums = np.zeros(n_arms)
        self.choice = None

    def act(self, t):
        if t <= self.k * self.m:
            return (t - 1) % self.k
        if self.choice is None:
            if self.shared:  # the bug: one draw for every arm cancels in the argmax
                noisy = self.sums + self.rng.laplace(0.0, self.scale)
            elif self.gaussian:  # the bug: light tails, whose ratios grow without bound away from the middle
                noisy = self.sums + self.rng.normal(0.0, self.scale, self.k)
            else:
                noisy = self.sums + self.rng.laplace(0.0, self.scale, self.k)
            self.choice = int(np.argmax(noisy))
        if self.reexplore and self.rng.random() < self.reexplore:
            return int(np.argmax(self.sums))  # the bug: the raw sums, where the noisy ones were meant
        return self.choice

    def update(self, t, arm, reward):
        if t <= self.k * self.m:
            self.sums[arm] += min(max(reward, 0.0), 1.0)


def make(n_arms, horizon, rng, epsilon):
    return ExploreThenCommit(n_arms, horizon, rng, epsilon)


def make_shared_noise(n_arms, horizon, rng, epsilon):
    return ExploreThenCommit(n_arms, horizon, rng, epsilon, shared_noise=True)


def make_gaussian_noise(n_arms, horizon, rng, epsilon):
    return ExploreThenCommit(n_arms, horizon, rng, epsilon, gaussian=True)


def make_raw_reexplore(n_arms, horizon, rng, epsilon):
    return ExploreThenCommit(n_arms, horizon, rng, epsilon, reexplore=1e-4)


# ------------------------------------------------------------------ adapters for other shapes


# The field's other shapes — get_arm() / update(arm, reward), get_arm(t), step(last_reward, last_arm), SMPyBandits'
# choice() / getReward(arm, reward), arms from 0 or from 1 — are wrapped by privcheck.adapters, in one call or one
# command-line option (--adapter NAME, --one-based), and recognised without it when the arms start at 0.
#
# A module drawing from a generator of its own at module level (``rng = np.random.default_rng()``) is audited by
# replacing that generator per run:
#
#     import theirmodule
#     from privcheck import adapters
#
#     def make(n_arms, horizon, rng, epsilon):
#         theirmodule.rng = rng  # each run draws from the generator privcheck gives it
#         return theirmodule.DPSuccessiveElimination(n_arms, horizon, epsilon)
#
#     make = adapters.get_arm(make)  # its runs: get_arm() / update(arm, reward)
#
# (numpy's and Python's global generators are seeded per batch of runs by privcheck itself.)
