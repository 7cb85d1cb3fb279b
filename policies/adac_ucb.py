"""AdaC-UCB and its non-private twin (episodic UCB with forgetting).

Azize & Basu, "Concentrated Differential Privacy for Bandits" (App. C; A. Azize's thesis, Alg. 7 and eq. 5.4),
for rewards in [0, 1]:

* play every arm once; then episodes ℓ = 1, 2, …: at the episode's first round t_ℓ pick
  a_ℓ = argmax_a I_a and play it until its pull count N_a doubles;
* the statistic of arm a is the mean μ̂_a of the rewards of its *last* episode only (n = N_a/2 of them; older
  rewards are forgotten), released once, when that episode ends, as μ̃_a = μ̂_a + N(0, σ²) with
  σ = 1/(n√(2ρ)) — the Gaussian mechanism calibrated to ρ-zCDP for a mean of n rewards in [0, 1], whose
  sensitivity is 1/n (:meth:`mechanisms.Gaussian.for_zcdp`);
* I_a = μ̃_a + √((1/(2n) + 1/(ρn²)) · β · ln t_ℓ), β = 1 as in the paper's experiments.

Each reward enters one release (the episode of the arm it was credited to), the episodes are disjoint and
their boundaries depend on earlier releases only: the policy is ρ-Interactive zCDP (the paper's Theorem 12).
The twin ``EpisodicUCB(rho=None)`` has the same episodes and forgetting, no noise and no 1/(ρn²) term.

Rewards are clipped to [0, 1] before they enter the statistic (the sensitivity 1/n needs it).  Under an
interactive audit the policy credits the reward it observes to the arm it scheduled.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from privcheck.mechanisms.keyed_noise import KEY_UNIFORMS, gaussian_release, keys_from_uniforms, release_each
from privcheck.core import TableNeighbours, ZCDP, check_real

from .base import check_arms, check_noise_multiplier, check_runs, choose
from .episodes import Episodes, init_episodes, next_arms, planned_arms, record, record_block, restart

__all__ = ["EpisodicUCB", "AdaCUCB"]


class EpisodicState(NamedTuple):
    ep: Episodes
    mean: np.ndarray  # (runs, K) released statistic of each arm's last episode
    n: np.ndarray  # (runs, K) number of rewards behind it


class EpisodicUCB:
    """Episodic UCB with doubling, forgetting episodes; private (AdaC-UCB) when ``rho`` is given."""

    n_uniforms = 0
    claim = None  # the privacy claim (set when private), and the definition it is audited under
    definition = None

    def __init__(self, n_arms: int, rho: float | None = None, beta: float = 1.0, noise_multiplier: float = 1.0):
        self.n_arms = check_arms(n_arms)
        self.noise_multiplier = check_noise_multiplier(noise_multiplier)
        self.rho = None if rho is None else check_real("rho", rho, lower=0.0, lower_open=True)
        self.beta = check_real("beta", beta, lower=0.0, lower_open=True)
        self.n_update_uniforms = KEY_UNIFORMS + 1  # the key of the releases' noise, one for ties
        self.name = "episodic-ucb" if self.rho is None else "adac-ucb"
        # the privacy it asserts (none for the non-private twin) and which neighbours that is about
        self.claim = None if self.rho is None else ZCDP(self.rho, TableNeighbours())
        self.definition = None if self.rho is None else "interactive"

    def release(self, n: int):
        """The grid Gaussian release of a mean of n rewards (sensitivity 1/n) at ρ/m², m the noise multiplier: its
        σ is m times the published one, up to the grid."""
        return gaussian_release(1.0 / n, self.rho / self.noise_multiplier**2)

    def noise_sd(self, n: np.ndarray) -> np.ndarray:
        """σ of the released statistic of a mean of n rewards (0 for the non-private twin)."""
        n = np.asarray(n)
        if self.rho is None:
            return np.zeros(n.shape)
        return np.vectorize(lambda k: self.release(int(k)).sigma, otypes=[float])(n)

    def bonus(self, n: np.ndarray, t: int) -> np.ndarray:
        var = 1.0 / (2.0 * n) + (0.0 if self.rho is None else 1.0 / (self.rho * n * n))
        return np.sqrt(var * self.beta * math.log(t))

    def init(self, runs: int) -> EpisodicState:
        runs = check_runs(runs)
        return EpisodicState(
            init_episodes(runs, self.n_arms, 1),
            np.zeros((runs, self.n_arms)),
            np.zeros((runs, self.n_arms), dtype=np.int64),
        )

    def act(self, state: EpisodicState, t: int, u=None) -> np.ndarray:
        return next_arms(state.ep)

    def steady(self, state: EpisodicState, t: int, most: int) -> np.ndarray:
        """The arms of the next rounds up to the last pull of the first episode to end (an audit's block)."""
        return planned_arms(state.ep, most)

    def accumulate(self, state: EpisodicState, t: int, arms, feedback, u=None) -> EpisodicState:
        """The state after a :meth:`steady` block: its rewards, clipped, summed into the episode as :meth:`update`
        sums them."""
        return EpisodicState(record_block(state.ep, np.clip(feedback, 0.0, 1.0)), state.mean, state.n)

    def update(self, state: EpisodicState, t: int, arms, feedback, u) -> EpisodicState:
        ep, ended = record(state.ep, np.clip(feedback, 0.0, 1.0))
        if not ended.any():
            return EpisodicState(ep, state.mean, state.n)
        runs = np.flatnonzero(ended)
        u = np.asarray(u, dtype=float)[runs]
        n_ep, s_ep = ep.n[runs], ep.s[runs]
        released = n_ep > 0  # the arms this episode pulled: their statistics are renewed
        safe = np.maximum(n_ep, 1)
        fresh = s_ep / safe
        if self.rho is not None:
            rows, arms = np.nonzero(released)
            fresh[rows, arms] = release_each(
                fresh[rows, arms], safe[rows, arms], keys_from_uniforms(u)[rows], arms, lambda k: self.release(int(k))
            )
        mean, n = state.mean.copy(), state.n.copy()
        mean[runs] = np.where(released, fresh, mean[runs])
        n[runs] = np.where(released, n_ep, n[runs])
        index = mean[runs] + self.bonus(n[runs], t + 1)  # the next episode starts at t_ℓ = t + 1
        nxt = choose(index, u[:, KEY_UNIFORMS])
        todo = np.zeros((runs.size, self.n_arms), dtype=np.int64)
        todo[np.arange(runs.size), nxt] = ep.N[runs, nxt]  # until its count doubles
        return EpisodicState(restart(ep, runs, todo), mean, n)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms}" + ("" if self.rho is None else f", rho={self.rho}") + ")"


def AdaCUCB(n_arms: int, rho: float, beta: float = 1.0, noise_multiplier: float = 1.0) -> EpisodicUCB:
    return EpisodicUCB(n_arms, check_real("rho", rho, lower=0.0, lower_open=True), beta, noise_multiplier)
