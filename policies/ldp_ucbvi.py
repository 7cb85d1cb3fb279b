"""Optimistic value iteration on locally privatized episodes: the locally private episodic agent of "Local
Differential Privacy for Regret Minimization in Reinforcement Learning" (Garcelon, Perchet, Pike-Burke and Pirotta,
NeurIPS 2021; the LDP-OBI family, §4), written from its description as a batched agent of the episodic protocol
(:mod:`privcheck.core.episodic`), with the non-private twin (``epsilon=None``).

Each episode is one user, who never shows the server their trajectory: at its end they send a message — their
episode's visits n(s, a), rewards r(s, a) (on the grid 2^-8) and transitions m(s, a, s'), every cell with discrete
Laplace noise of its own.  Two trajectories of H steps move each of these count vectors by at most 2H in ℓ1 (H steps
out, H in; rewards in [0, 1]), so a scale of ⌈3·2H/ε⌉ units per cell (a third of ε per statistic) makes the message
ε-DP in the user's trajectory whatever the policy they followed: ε-LDP.  The server sums the messages and plans as
the joint-DP agent does (:func:`.private_ucbvi.optimistic_greedy`), its optimism widened by the summed noise.

The user's randomizer is the run's ``report(trajectory)`` — the H steps ``(state, action, reward, next_state)`` of
one episode in, the message out (one per run) — what ``definition="local"`` audits; ``end_episode`` sends the same
randomizer's message for the episode just played.  The server's sums are the run's attributes ``visits``, ``rewards``
and ``transitions``.  ``noise_multiplier`` scales the noise (1: as published; below 1, a mis-calibrated copy).
"""

from __future__ import annotations

import math

from privcheck.core import check_int
from privcheck.mechanisms.exact_sampling import discrete_laplace

from .base import check_noise_multiplier
from .private_ucbvi import REWARD_GRID_BITS, TabularPlanned, count_step

__all__ = ["LocalUCBVI", "make", "report_steps"]

#: the statistics a message holds, in its order
_STATISTICS = ("visits", "rewards", "transitions")


def report_steps(epsilon: float, horizon: int, units: int = 1, multiplier: float = 1.0) -> int:
    """The discrete Laplace scale, in units of a statistic's grid (``units`` per 1), of every cell of a user's
    message: ⌈3·2H·units/ε⌉ (a third of ε per statistic, ℓ1 sensitivity 2H), times ``multiplier``."""
    return max(1, math.ceil(3 * 2 * horizon * units / epsilon * multiplier))


class LocalUCBVI(TabularPlanned):
    """The agent (see the module docstring), batched over ``runs``."""

    def __init__(self, episodes, horizon, states, actions, rng, runs=1, epsilon=None, noise_multiplier=1.0):
        self.K, self.H = check_int("episodes", episodes), check_int("horizon", horizon)
        self.S, self.A = check_int("states", states), check_int("actions", actions)
        self.runs, self.rng = check_int("runs", runs), rng
        m = check_noise_multiplier(noise_multiplier)
        units = 1 << REWARD_GRID_BITS
        private = epsilon is not None
        S, A = self.S, self.A
        self._scales = {
            name: report_steps(epsilon, self.H, units if name == "rewards" else 1, m) if private else None
            for name in _STATISTICS
        }
        #: the noise bound of a summed count, for the optimism (0 for the twin)
        self._noise = 0.0
        if private:
            self._noise = self._scales["visits"] * math.sqrt(2 * self.K * math.log(3 * S * A * self.K / 0.1))
        self._started()  # (published: what the server holds, the sums of the users' messages)

    def _released(self, name, exact):
        """The server's sum, the user's message of this statistic added (sent as the episode ends)."""
        return getattr(self, name) + self._noisy(name, exact)

    def report(self, trajectory):
        """The user's randomizer on one episode's steps ``(state, action, reward, next_state)``: their visits,
        rewards and transitions with noise, one message per run."""
        exact = self._zero_counts()
        for state, action, reward, next_state in trajectory:  # (the one trajectory, counted in every run)
            count_step(exact, self._runs, state, action, reward, next_state)
        return tuple(self._noisy(n, exact[n]) for n in _STATISTICS)

    def _noisy(self, name: str, value):
        """A statistic with discrete Laplace noise of its scale on every cell of every run (none for the twin)."""
        t = self._scales[name]
        return value + (0 if t is None else discrete_laplace(self.rng, t, value.size).reshape(value.shape))


def make(episodes, horizon, states, actions, rng, runs=1, epsilon=None, noise_multiplier=1.0):
    """The locally private agent as an episodic factory (:func:`privcheck.audit_episodic` gives it the instance and
    the claim's ε): private at the claim's ε, the non-private twin without one."""
    return LocalUCBVI(episodes, horizon, states, actions, rng, runs, epsilon, noise_multiplier)
