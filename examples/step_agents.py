"""Episodic agents written at the step level, as code against a gymnasium-style environment is — audited as written.

A **step agent** is an object with ``select_action(state)`` and ``update(state, action, reward, next_state, done)``;
privcheck runs it on the users' response tapes (one user an episode) and reads what it publishes from it.
``CountingAgent`` explores with an optimistic bonus on its own counts and, at the end of every episode, publishes
noisy visit counts per (state, action) — fresh Laplace noise per release, calibrated for K releases of a count vector
that one user's episode moves by at most 2H in ℓ1 (scale 2·H·K/ε: ε-DP by composition).  ``make_raw_counts`` is the
planted bug: it publishes the counts without noise.

A **training loop** declares ``env`` and runs itself on it — ``env.reset()``, then ``env.step(action)`` until
``truncated`` — episode after episode; privcheck gives it an environment whose k-th episode is the k-th user's tape and
audits the actions it steps with.  ``train`` explores each action for one episode, then commits, for every later
episode, to the action whose explored episode earned more — the difference of two users' returns, moved by at most H
by either of them, with Laplace noise of scale H/ε: every other user's actions are ε-DP in it (joint DP).
``train_small_noise`` is the planted bug: noise of scale 1/ε, as if a user moved the difference by one.

    privcheck audit examples/step_agents.py:make --epsilon 1 --definition joint --episodes 20 --horizon 3 \
        --states 2 --actions 2 --releases counts --samples 2000
    privcheck audit examples/step_agents.py:make_raw_counts --epsilon 1 --definition joint --episodes 20 \
        --horizon 3 --states 2 --actions 2 --releases counts --samples 2000
    privcheck audit examples/step_agents.py:train --epsilon 1 --definition joint --episodes 10 --horizon 3 \
        --states 2 --actions 2 --samples 4000
    privcheck audit examples/step_agents.py:train_small_noise --epsilon 1 --definition joint --episodes 10 \
        --horizon 3 --states 2 --actions 2 --samples 4000
"""

import numpy as np


class CountingAgent:
    """Optimism on its own counts; noisy counts per (state, action) published after every episode."""

    def __init__(self, n_states, n_actions, horizon, n_episodes, epsilon, rng, raw=False):
        self.n = np.zeros((n_states, n_actions))
        self.scale = 2 * horizon * n_episodes / epsilon
        self.rng, self.raw = rng, raw
        self.counts = None  # nothing published before the first episode ends

    def select_action(self, state):
        bonus = 1.0 / np.sqrt(1.0 + self.n[state])
        return int(np.argmax(bonus))

    def update(self, state, action, reward, next_state, done):
        self.n[state, action] += 1
        if done:  # the episode's last step: publish
            noise = 0.0 if self.raw else self.rng.laplace(0.0, self.scale, self.n.shape)
            self.counts = self.n + noise


def make(n_states, n_actions, horizon, n_episodes, epsilon, rng):
    return CountingAgent(n_states, n_actions, horizon, n_episodes, epsilon, rng)


def make_raw_counts(n_states, n_actions, horizon, n_episodes, epsilon, rng):
    return CountingAgent(n_states, n_actions, horizon, n_episodes, epsilon, rng, raw=True)


def _run_episode(env, action):
    """One episode playing ``action`` throughout; its return."""
    env.reset()
    total, truncated = 0.0, False
    while not truncated:
        _, reward, terminated, truncated, _ = env.step(action)
        total += reward
    return total


def train(env, episodes, horizon, epsilon, rng, sensitivity=None):
    """Explore action 0, then 1, for an episode each; commit to the better by their noisy return difference."""
    scale = (horizon if sensitivity is None else sensitivity) / epsilon
    diff = _run_episode(env, 0) - _run_episode(env, 1)
    best = 0 if diff + rng.laplace(0.0, scale) >= 0 else 1
    for _ in range(episodes - 2):
        _run_episode(env, best)


def train_small_noise(env, episodes, horizon, epsilon, rng):
    return train(env, episodes, horizon, epsilon, rng, sensitivity=1.0)
