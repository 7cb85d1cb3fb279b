"""A joint-DP optimistic value iteration written as a researcher writes it — one object per run, counts per (step,
state, action), a binary-mechanism counter of their own — and the planted bugs such code has.

One user is one episode.  After each episode the agent publishes, for every (h, s, a), noisy prefix sums over the
episodes so far of the visits, the rewards (in hundredths) and the transitions to each next state; the next
episode's greedy policy is optimistic value iteration on those releases alone.  A user's episode moves each
statistic's per-episode element by at most 2H in ℓ1 when their tape is replaced (H steps removed, H added; rewards
in [0, 1]); each element lies in at most L = ⌊log₂ K⌋ + 1 blocks of the tree; a third of ε per statistic gives
discrete Laplace noise of scale 3·L·2H/ε (in the statistic's units) on every block, and the releases are ε-DP — the
actions every other user sees, their post-processing, ε-joint-DP.

    privcheck audit examples/private_rl.py:make --epsilon 1 --definition joint --episodes 50 --horizon 3 \
        --states 2 --actions 2 --releases visits rewards transitions
    privcheck audit examples/private_rl.py:make_reused_noise --epsilon 1 --definition joint --episodes 50 \
        --horizon 3 --states 2 --actions 2 --releases visits rewards transitions
    privcheck audit examples/private_rl.py:make_uncomposed --epsilon 1 --definition joint --episodes 50 \
        --horizon 3 --states 2 --actions 2 --releases visits rewards transitions
    privcheck audit examples/private_rl.py:make_raw_count --epsilon 1 --definition joint --episodes 50 \
        --horizon 3 --states 2 --actions 2 --releases visits rewards transitions

The planted bugs: ``make_reused_noise`` draws each counter's noise once and adds it to every episode's prefix sums
(the differences of two releases are then exact: one user's visits show); ``make_uncomposed`` splits ε over the H
steps and gives each (h, s, a) counter scale H/ε, as if a user moved one count by one — the tree's levels, the three
statistics and the replacement's factor 2 not composed (36 times too little noise at K = 50, H = 3); ``make_raw_count``
publishes the visit counts without noise (only rewards and transitions noisy).
"""

import math

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_laplace

#: rewards are counted in hundredths
REWARD_UNITS = 100


class TreeCounter:
    """The binary mechanism over episodes for a whole array of counts: integer elements, discrete Laplace noise of
    ``scale`` on every dyadic block; ``reuse`` (a bug) draws one noise per count at the start instead and adds it to
    the exact prefix sums every episode."""

    def __init__(self, shape, episodes, scale, rng, reuse=False):
        self.shape, self.scale, self.rng, self.reuse = shape, scale, rng, reuse
        levels = int(episodes).bit_length()
        self.alpha = np.zeros((levels, *shape), dtype=np.int64)
        self.noisy = np.zeros((levels, *shape), dtype=np.int64)
        self.total = np.zeros(shape, dtype=np.int64)
        self.once = self._noise() if reuse else None
        self.t = 0

    def _noise(self):
        if self.scale is None:
            return np.zeros(self.shape, dtype=np.int64)
        return discrete_laplace(self.rng, self.scale, int(np.prod(self.shape))).reshape(self.shape)

    def add(self, x):
        self.t += 1
        self.total += x
        if self.reuse:
            return self.total + self.once
        i = (self.t & -self.t).bit_length() - 1  # the level of the block that closes now
        self.alpha[i] = self.alpha[:i].sum(axis=0) + x
        self.alpha[:i] = 0
        self.noisy[i] = self.alpha[i] + self._noise()
        self.noisy[:i] = 0
        return self.noisy.sum(axis=0)


class PrivateVI:
    def __init__(self, episodes, horizon, states, actions, epsilon, rng, bug=None):
        self.K, self.H, self.S, self.A = episodes, horizon, states, actions
        H, S, A = horizon, states, actions
        levels = int(episodes).bit_length()
        scale = math.ceil(3 * levels * 2 * H / epsilon)
        if bug == "uncomposed":
            scale = math.ceil(H / epsilon)
        reuse = bug == "reused"
        self.counters = {
            "visits": TreeCounter((H, S, A), episodes, None if bug == "raw" else scale, rng, reuse),
            "rewards": TreeCounter((H, S, A), episodes, scale * REWARD_UNITS, rng, reuse),
            "transitions": TreeCounter((H, S, A, S), episodes, scale, rng, reuse),
        }
        self.noise_bound = 0 if scale is None else scale * levels * math.log(3 * S * A * H * episodes / 0.1)
        self.visits = np.zeros((H, S, A), dtype=np.int64)
        self.rewards = np.zeros((H, S, A), dtype=np.int64)
        self.transitions = np.zeros((H, S, A, S), dtype=np.int64)
        self._new_episode()
        self.plan()

    def _new_episode(self):
        self.ep = {name: np.zeros(c.shape, dtype=np.int64) for name, c in self.counters.items()}

    def plan(self):
        H, S = self.H, self.S
        n = np.maximum(self.visits, 1)
        r = np.clip(self.rewards / (REWARD_UNITS * n), 0, 1)
        m = np.maximum(self.transitions, 0)
        p = m / np.maximum(m.sum(axis=-1, keepdims=True), 1)
        p[m.sum(axis=-1) == 0] = 1 / S
        bonus = H * np.sqrt(np.log(2 * S * self.A * H * self.K / 0.1) / n) + self.noise_bound * S / n
        v = np.zeros(S)
        self.policy = np.zeros((H, S), dtype=int)
        for h in reversed(range(H)):
            q = np.minimum(H, r[h] + bonus[h] + p[h] @ v)
            self.policy[h] = q.argmax(axis=1)
            v = q.max(axis=1)

    def act(self, k, h, state):
        return self.policy[h - 1, state]

    def update(self, k, h, state, action, reward, next_state):
        self.ep["visits"][h - 1, state, action] += 1
        self.ep["rewards"][h - 1, state, action] += round(reward * REWARD_UNITS)
        self.ep["transitions"][h - 1, state, action, next_state] += 1

    def end_episode(self, k):
        for name, counter in self.counters.items():
            setattr(self, name, counter.add(self.ep[name]))
        self._new_episode()
        self.plan()


def make(episodes, horizon, states, actions, epsilon, rng):
    return PrivateVI(episodes, horizon, states, actions, epsilon, rng)


def make_reused_noise(episodes, horizon, states, actions, epsilon, rng):
    return PrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="reused")


def make_uncomposed(episodes, horizon, states, actions, epsilon, rng):
    return PrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="uncomposed")


def make_raw_count(episodes, horizon, states, actions, epsilon, rng):
    return PrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="raw")
