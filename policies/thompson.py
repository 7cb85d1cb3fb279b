"""Thompson sampling for Bernoulli feedback, plain (TS) and for corrupt bandits (TS-CF).

Posterior Beta(1 + S_a, 1 + N_a − S_a) on the feedback mean λ_a; a draw θ_a is made by inverse CDF from the
caller's uniform (so no hidden randomness), and the policy plays argmax_a g_a⁻¹(θ_a) clipped to [0, 1]
(Gajane, Urvoy & Kaufmann, ALT 2018, TS-CF).  TS is TS-CF with the identity g.  The decision kernel of
Thompson sampling is an integral, so these policies have no ``probs``.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument

from .base import check_arms, check_runs, choose, init_counts, update_counts
from .corruption import Corruption

__all__ = ["ThompsonSampling"]


class ThompsonSampling:
    claim = None  # non-private
    definition = None

    def __init__(self, n_arms: int, corruption: Corruption | None = None, name: str = "ts"):
        self.n_arms = check_arms(n_arms)
        self.corruption = corruption or Corruption.identity(self.n_arms)
        if self.corruption.n_arms != self.n_arms:
            raise InvalidArgument(f"the corruption has {self.corruption.n_arms} arms, the policy {self.n_arms}")
        self.n_uniforms = self.n_arms + 1  # one per posterior draw, one for ties
        self.name = name

    def init(self, runs: int):
        return init_counts(check_runs(runs), self.n_arms)

    def act(self, state, t: int, u) -> np.ndarray:
        from scipy.special import betaincinv  # on use: the other policies' commands never load scipy

        u = np.asarray(u, dtype=float)
        theta = betaincinv(1.0 + state.S, 1.0 + state.N - state.S, u[:, : self.n_arms])
        values = theta if self.corruption.is_identity else self.corruption.inverse_clipped(theta)
        return choose(values, u[:, self.n_arms])

    def update(self, state, t: int, arms, feedback, u=None):
        return update_counts(state, arms, feedback)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms})"
