"""Optimistic value iteration with private counts: the joint-DP episodic agent of "Private Reinforcement Learning
with PAC and Regret Guarantees" (Vietri, Balle, Krishnamurthy and Wu, ICML 2020, Algorithm PUCB, §4), written from
its pseudo-code as a batched agent of the episodic protocol (:mod:`privcheck.core.episodic`), and its non-private
twin (UCB-VI with the same optimism, ``epsilon=None``).

Each episode is one user.  After episode k the agent releases, through one binary-mechanism counter per statistic
(:class:`privcheck.mechanisms.tree.ContinualTree`), the noisy prefix sums over the episodes so far of

* the visits n(s, a),
* the rewards r(s, a), on a grid of step 2^-8 (a reward rounded to it, clipped to [0, 1]),
* the transitions m(s, a, s'),

and the next episode's policy is computed from those releases alone (post-processing: the billboard argument).
Under the replacement of one user's episode each statistic's per-episode element moves by at most 2H in ℓ1 (H
steps removed, H added; rewards in [0, 1]); each element lies in at most L = ⌊log2 K⌋ + 1 blocks; so discrete
Laplace noise of scale ⌈3·L·2H/ε⌉ units on every block (a third of ε per statistic) makes the whole release sequence
ε-DP, and the actions recommended to every other user ε-joint-DP.  The policy: Q_h(s, a) = min(H, r̂ + b + P̂ V_{h+1})
with n⁺ = max(ñ, 1), r̂ = clip(r̃/n⁺, 0, 1), P̂ the clipped noisy transition counts normalised (uniform where none),
and the bonus b = H·sqrt(log(2SAHK/0.1)/n⁺) plus, when private, the counters' noise bound over n⁺ times SH (the
paper's privacy bonus, its constant our choice); greedy in Q, ties to the lowest action.

The published statistics are the run's attributes ``visits``, ``rewards`` and ``transitions`` (what
``releases=`` audits).  ``noise_multiplier`` scales every counter's noise (1: as published; below 1, a
mis-calibrated copy).
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.core import check_int
from privcheck.mechanisms.tree import ContinualTree, tree_levels

from .base import check_noise_multiplier

__all__ = [
    "GreedyPlanned",
    "TabularPlanned",
    "tabular_shapes",
    "count_step",
    "PrivateUCBVI",
    "make",
    "REWARD_GRID_BITS",
    "noise_steps",
    "optimistic_greedy",
    "grid_rewards",
]

#: rewards are released on the grid 2^-REWARD_GRID_BITS
REWARD_GRID_BITS = 8
#: the failure probability of the optimism's confidence sets
_DELTA = 0.1


def noise_steps(epsilon: float, episodes: int, horizon: int, units: int = 1, multiplier: float = 1.0) -> int:
    """The discrete Laplace scale, in units of a statistic's grid (``units`` per 1), of every block of its counter:
    ⌈3·L·2H·units/ε⌉ (a third of ε per statistic; L the tree's levels over ``episodes``), times ``multiplier``."""
    exact = 3 * tree_levels(episodes) * 2 * horizon * units / epsilon
    return max(1, math.ceil(exact * multiplier))


def grid_rewards(rewards) -> np.ndarray:
    """Rewards clipped to [0, 1] and rounded to the grid 2^-REWARD_GRID_BITS, in its units (integers)."""
    return np.rint(np.clip(np.asarray(rewards, dtype=float), 0.0, 1.0) * (1 << REWARD_GRID_BITS)).astype(np.int64)


class GreedyPlanned:
    """A batched episodic agent that keeps each episode's exact statistics in ``_episode`` (name -> array), publishes
    them as its attributes of those names when the episode ends (``_released(name, exact)``: what is published
    now) and acts greedily on the per-step tables its planner ``_plan`` leaves in ``_greedy`` (one (runs, S) array of
    actions a step; ``_runs`` the runs' indices) — PUCB, the locally private agent and DP-LSVI."""

    def act(self, k, h, states):
        """The greedy action of step h in each run's state."""
        return self._greedy[h - 1][self._runs, np.asarray(states, dtype=np.int64)]

    def end_episode(self, k):
        """The episode's statistics released; the next policy planned from the releases."""
        for name, exact in self._episode.items():
            setattr(self, name, self._released(name, exact))
            exact[...] = 0
        self._plan()


def count_step(episode: dict, runs, states, actions, rewards, next_states) -> None:
    """One step of every run counted into a tabular episode's ``visits``, ``rewards`` (grid units: :func:`grid_rewards`)
    and ``transitions``."""
    s, a, nxt = (np.asarray(v, dtype=np.int64) for v in (states, actions, next_states))
    np.add.at(episode["visits"], (runs, s, a), 1)
    np.add.at(episode["rewards"], (runs, s, a), grid_rewards(rewards))
    np.add.at(episode["transitions"], (runs, s, a, nxt), 1)


def tabular_shapes(runs: int, states: int, actions: int) -> dict:
    """The tabular statistics' shapes, batched over runs: ``visits`` and ``rewards`` (runs, S, A), ``transitions``
    (runs, S, A, S)."""
    return {
        "visits": (runs, states, actions),
        "rewards": (runs, states, actions),
        "transitions": (runs, states, actions, states),
    }


class TabularPlanned(GreedyPlanned):
    """A :class:`GreedyPlanned` agent on the tabular statistics (:func:`tabular_shapes`): each step counted into the
    episode's (:func:`count_step`), the releases planned by :func:`optimistic_greedy`, its optimism widened by
    ``_noise`` — PUCB and the locally private agent.  ``_started()`` sets up the episode's counts, the published
    statistics (zeros) and the first plan, once ``runs``, ``S``, ``A``, ``H``, ``K`` and ``_noise`` are set."""

    def _started(self):
        self._episode = self._zero_counts()
        #: what the agent has published (PUCB: the noisy prefix sums; the local agent: the sums of the messages)
        self.visits, self.rewards, self.transitions = self._zero_counts().values()
        self._runs = np.arange(self.runs)
        self._plan()

    def _zero_counts(self) -> dict:
        """The tabular statistics (:func:`tabular_shapes`), every count 0."""
        return {
            name: np.zeros(shape, dtype=np.int64) for name, shape in tabular_shapes(self.runs, self.S, self.A).items()
        }

    def update(self, k, h, states, actions, rewards, next_states):
        """This episode's statistics, kept exact (the user's own record) until the episode ends."""
        count_step(self._episode, self._runs, states, actions, rewards, next_states)

    def _plan(self):
        """Optimistic value iteration on the released statistics."""
        self._greedy = optimistic_greedy(self.visits, self.rewards, self.transitions, self.H, self.K, self._noise)


class PrivateUCBVI(TabularPlanned):
    """The agent (see the module docstring), batched over ``runs``."""

    def __init__(self, episodes, horizon, states, actions, rng, runs=1, epsilon=None, noise_multiplier=1.0):
        self.K, self.H = check_int("episodes", episodes), check_int("horizon", horizon)
        self.S, self.A = check_int("states", states), check_int("actions", actions)
        self.runs = check_int("runs", runs)
        m = check_noise_multiplier(noise_multiplier)
        private = epsilon is not None
        units = 1 << REWARD_GRID_BITS
        steps = (lambda u: noise_steps(epsilon, self.K, self.H, u, m)) if private else (lambda u: None)
        S, A = self.S, self.A
        self._trees = {
            name: ContinualTree(shape, self.K, steps(units if name == "rewards" else 1), rng)
            for name, shape in tabular_shapes(self.runs, S, A).items()
        }
        #: the noise bound of a count, for the privacy bonus (0 for the twin)
        self._noise = 0.0 if not private else steps(1) * tree_levels(self.K) * math.log(3 * S * A * self.K / _DELTA)
        self._started()  # (published: the noisy prefix sums after each episode, rewards in grid units)

    def _released(self, name, exact):
        """The noisy prefix sum of a statistic through its counter, the episode added."""
        return self._trees[name].add(exact)


def optimistic_greedy(visits, rewards, transitions, horizon: int, episodes: int, noise: float) -> list:
    """The greedy actions of optimistic value iteration on noisy statistics, one (runs, S) array per step: visits and
    rewards (runs, S, A), rewards in units of the grid 2^-REWARD_GRID_BITS, transitions (runs, S, A, S), the counts'
    noise bound ``noise`` (0 when exact) — written once for the joint-DP agent and the locally private one
    (:mod:`.ldp_ucbvi`)."""
    H, K = horizon, episodes
    runs, S, A = visits.shape
    n = np.maximum(visits, 1).astype(float)
    r = np.clip(rewards / ((1 << REWARD_GRID_BITS) * n), 0.0, 1.0)
    m = np.maximum(transitions, 0).astype(float)
    total = m.sum(axis=-1, keepdims=True)
    p = np.where(total > 0, m / np.maximum(total, 1.0), 1.0 / S)
    bonus = H * np.sqrt(math.log(2 * S * A * H * K / _DELTA) / n) + noise * S * H / n
    v = np.zeros((runs, S))
    greedy = [None] * H
    for h in reversed(range(H)):
        q = np.minimum(H, r + bonus + np.einsum("rsat,rt->rsa", p, v))
        greedy[h] = np.argmax(q, axis=2)
        v = q.max(axis=2)
    return greedy


def make(episodes, horizon, states, actions, rng, runs=1, epsilon=None, noise_multiplier=1.0):
    """PUCB as an episodic factory (:func:`privcheck.audit_episodic` gives it the instance and the claim's ε): private
    at the claim's ε, the non-private twin without one."""
    return PrivateUCBVI(episodes, horizon, states, actions, rng, runs, epsilon, noise_multiplier)
