"""A locally private optimistic agent written as a researcher writes it — one object per run, the user's randomizer a
method of its own, noise from numpy's generator — and the planted bugs such code has.

One user is one episode and never shows the server their trajectory.  At the end of it, ``report(trajectory)`` (the
user's side) counts, for every (h, s, a), their visits, their reward (in hundredths) and their transitions to each
next state, and adds two-sided geometric noise (the discrete Laplace: the difference of two geometric draws) to every
count; ``end_episode`` sends that message and the server adds it to its sums, from which the next episode's greedy
policy is planned.  Two trajectories of H steps move each of the three count vectors by at most 2H in ℓ1 (two counts
a step; 200H hundredths of reward), so scale 3·2H/ε on every count (a third of ε per vector) makes the message ε-DP
in the trajectory: ε-LDP, whatever policy the user followed.

    privcheck audit examples/ldp_rl.py:make --epsilon 1 --definition local --episodes 20 --horizon 3 \
        --states 2 --actions 2
    privcheck audit examples/ldp_rl.py:make_reused_noise --epsilon 1 --definition local --episodes 20 \
        --horizon 3 --states 2 --actions 2
    privcheck audit examples/ldp_rl.py:make_uncomposed --epsilon 1 --definition local --episodes 20 \
        --horizon 3 --states 2 --actions 2
    privcheck audit examples/ldp_rl.py:make_raw_visits --epsilon 1 --definition local --episodes 20 \
        --horizon 3 --states 2 --actions 2
    privcheck audit examples/ldp_rl.py:make_float_noise --epsilon 1 --definition local --episodes 20 \
        --horizon 3 --states 2 --actions 2

The planted bugs: ``make_reused_noise`` draws the noise once, when the agent starts, and adds the same noise to every
user's message (each message alone is as noisy as it should be; two messages' difference is exact);
``make_uncomposed`` splits ε over the H steps and calibrates each step's counts to one count moved (scale H/ε): a
step moves two counts, and the H steps and three vectors compose, so its ε is 6ε; ``make_raw_visits`` sends the visit
counts without noise (the rewards and transitions noisy); ``make_float_noise`` is the textbook calibration with
numpy's continuous ``laplace`` added to the counts in floating point — correct on the reals, and not on doubles: which
doubles a noisy count can be depends on the count (Mironov, "On Significance of the Least Significant Bits for
Differential Privacy", CCS 2012), and the low bits of a message tell a 0 from a 1.
"""

import numpy as np


class LocallyPrivateVI:
    def __init__(self, episodes, horizon, states, actions, epsilon, rng, bug=None):
        self.K, self.H, self.S, self.A = episodes, horizon, states, actions
        self.rng, self.bug = rng, bug
        self.scale = 3 * 2 * horizon / epsilon
        if bug == "uncomposed":
            self.scale = horizon / epsilon
        shape = (horizon, states, actions)
        self.sums = {"visits": np.zeros(shape), "rewards": np.zeros(shape), "transitions": np.zeros((*shape, states))}
        self.units = {"visits": 1, "rewards": 100, "transitions": 1}
        self.fixed_noise = {n: self._noise(n, v.shape) for n, v in self.sums.items()} if bug == "reused" else None
        self.trajectory = []
        self.plan()

    def _noise(self, name, shape):
        t = self.scale * self.units[name]
        if self.bug == "float":
            return self.rng.laplace(0.0, t, size=shape)
        p = 1 - np.exp(-1 / t)
        return self.rng.geometric(p, size=shape) - self.rng.geometric(p, size=shape)

    def report(self, trajectory):
        """The user's side: their episode's counts (rewards in hundredths), each with noise."""
        counts = {n: np.zeros(v.shape, dtype=float if self.bug == "float" else int) for n, v in self.sums.items()}
        for h, (s, a, r, s2) in enumerate(trajectory):
            counts["visits"][h, s, a] += 1
            counts["rewards"][h, s, a] += round(r * 100)
            counts["transitions"][h, s, a, s2] += 1
        for name, c in counts.items():
            if self.bug == "raw" and name == "visits":
                continue
            c += self.fixed_noise[name] if self.fixed_noise is not None else self._noise(name, c.shape)
        return counts

    def plan(self):
        H, S, A = self.H, self.S, self.A
        n = np.maximum(self.sums["visits"], 1.0)
        r = np.clip(self.sums["rewards"] / (100 * n), 0.0, 1.0)
        m = np.maximum(self.sums["transitions"], 0.0)
        total = m.sum(axis=-1, keepdims=True)
        p = np.where(total > 0, m / np.maximum(total, 1e-12), 1.0 / S)
        bonus = np.sqrt(np.log(2 * S * A * H * self.K / 0.1) / n) + self.scale * np.sqrt(self.K) / n
        v = np.zeros(S)
        self.policy = np.zeros((H, S), dtype=int)
        for h in reversed(range(H)):
            q = np.minimum(H - h, r[h] + bonus[h] + p[h] @ v)
            self.policy[h] = q.argmax(axis=1)
            v = q.max(axis=1)

    def act(self, k, h, state):
        return int(self.policy[h - 1, state])

    def update(self, k, h, state, action, reward, next_state):
        self.trajectory.append((state, action, reward, next_state))

    def end_episode(self, k):
        message = self.report(self.trajectory)
        for name, value in message.items():
            self.sums[name] += value
        self.trajectory = []
        self.plan()


def make(episodes, horizon, states, actions, epsilon, rng):
    return LocallyPrivateVI(episodes, horizon, states, actions, epsilon, rng)


def make_reused_noise(episodes, horizon, states, actions, epsilon, rng):
    return LocallyPrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="reused")


def make_uncomposed(episodes, horizon, states, actions, epsilon, rng):
    return LocallyPrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="uncomposed")


def make_raw_visits(episodes, horizon, states, actions, epsilon, rng):
    return LocallyPrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="raw")


def make_float_noise(episodes, horizon, states, actions, epsilon, rng):
    return LocallyPrivateVI(episodes, horizon, states, actions, epsilon, rng, bug="float")
