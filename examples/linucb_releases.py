"""A jointly private LinUCB that publishes its noisy statistics every round, written as papers' code writes it, and
the release bugs such code has — audited where it publishes (``--releases V b``), not where it acts.

Each round a user arrives with the arms' contexts (n_arms × dim, norms at most 1) and is recommended the arm of
largest x·θ + ‖x‖_A, θ = A b and A = (V + I)⁻¹ of the last noisy statistics; after the user's reward, the policy
updates the Gram matrix V = Σ x xᵀ and b = Σ x r of what it saw and *publishes* them with fresh noise (the billboard
of "Differentially Private Contextual Linear Bandits", Shariff and Sheffet: every later recommendation is
post-processing of the releases, so the releases' privacy is the policy's joint privacy).  One user's (x, r) moves V
by at most ‖x xᵀ − x′x′ᵀ‖_F ≤ 2 and b by ‖x r − x′r′‖ ≤ 2, in each of the at most T releases after their round:
noise of variance σ² = 4T/ρ on every entry makes the T releases ρ-zCDP (composition, ρ = T·8/(2σ²); the sensitivities
taken 1 % larger, for the statistics' rounding onto the grid).  The noise is drawn exactly on a grid of 2^−20 (the
discrete Gaussian), and the statistics are rounded onto that grid before it is added: a Gram matrix of contexts on
the grid has finer bits (x xᵀ: 2^−40), which the noise would not cover — an audit of the releases reads them (this
example's own first draft, refuted through its low bits).

    privcheck audit examples/linucb_releases.py:make --rho 1 --definition joint --arms 2 --dim 2 --horizon 6 --releases V b --samples 2000
    privcheck audit examples/linucb_releases.py:make_raw_gram --rho 1 --definition joint --arms 2 --dim 2 --horizon 6 --releases V b --samples 2000
    privcheck audit examples/linucb_releases.py:make_shared_noise --rho 1 --definition joint --arms 2 --dim 2 --horizon 6 --releases V b --samples 2000
    privcheck audit examples/linucb_releases.py:make_half_noise --rho 1 --definition joint --arms 2 --dim 2 --horizon 6 --releases V b --samples 2000

The planted bugs: ``make_raw_gram`` publishes V without noise ("it holds no rewards") and ``make_shared_noise`` adds
to b the first row of V's noise (one draw for both: V's first row minus b is then exact) — both refuted in about 8 s;
``make_half_noise`` halves the noise's standard deviation (ρ four times the claim): one event's two probabilities
certified only ρ ≥ 0.91 from 2,000 runs a side, the cells of a ladder of thresholds on the releases'
likelihood-ratio statistic certify ρ ≥ 1.15 — refuted.  Audited on its actions alone, a policy like this passes whatever its noise does
where its recommendations hardly move — the proof is about the releases, and so is this audit.
"""

from fractions import Fraction

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_gaussian

GRID = 2.0**-20


def _on_grid(a):
    return np.rint(np.asarray(a, dtype=float) / GRID) * GRID


class NoisyLinUCB:
    def __init__(self, n_arms, dim, horizon, rng, rho, bug=None):
        self.d, self.rng, self.bug = dim, rng, bug
        sd = 1.01 * np.sqrt(4 * horizon / rho) * (0.5 if bug == "half_noise" else 1.0)
        self.steps = int(np.ceil(sd / GRID))
        self.gram, self.vec = np.zeros((dim, dim)), np.zeros(dim)  # the raw statistics
        self.V, self.b = np.zeros((dim, dim)), np.zeros(dim)  # the published ones (nothing yet)

    def _noise(self, n):
        return discrete_gaussian(self.rng, Fraction(self.steps * self.steps), n, t=self.steps) * GRID

    def act(self, t, contexts):
        self.x = _on_grid(contexts)
        A = np.linalg.pinv(self.V + np.eye(self.d))
        theta = A @ self.b
        width = np.einsum("kd,de,ke->k", self.x, A, self.x)
        return int(np.argmax(self.x @ theta + np.sqrt(np.maximum(width, 0.0))))

    def update(self, t, arm, reward):
        x = self.x[arm]
        self.gram = self.gram + np.outer(x, x)
        self.vec = self.vec + x * _on_grid(reward)
        W = self._noise(self.d * self.d).reshape(self.d, self.d)
        w = W[0].copy() if self.bug == "shared_noise" else self._noise(self.d)
        self.V = _on_grid(self.gram) + (0.0 if self.bug == "raw_gram" else W)
        self.b = _on_grid(self.vec) + w


def make(n_arms, dim, horizon, rng, rho):
    return NoisyLinUCB(n_arms, dim, horizon, rng, rho)


def make_raw_gram(n_arms, dim, horizon, rng, rho):
    return NoisyLinUCB(n_arms, dim, horizon, rng, rho, bug="raw_gram")


def make_half_noise(n_arms, dim, horizon, rng, rho):
    return NoisyLinUCB(n_arms, dim, horizon, rng, rho, bug="half_noise")


def make_shared_noise(n_arms, dim, horizon, rng, rho):
    return NoisyLinUCB(n_arms, dim, horizon, rng, rho, bug="shared_noise")
