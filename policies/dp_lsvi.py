"""Least-squares value iteration with private statistics in a linear MDP: the joint-DP agent of the DP-LSVI-UCB family
("Differentially Private Exploration in Reinforcement Learning with Linear Representation", Luyo, Garcelon, Lazaric
and Pirotta, 2021, §4 — its model-based form for a known, finite state space), written as a batched agent of the
episodic protocol (:mod:`privcheck.core.episodic`), with its non-private twin (no claim).

The agent is given the public features φ(s, a) ∈ ℝ^d, ‖φ‖₂ ≤ 1 (``features``: the audit's
:func:`~privcheck.core.episodic.linear_features`, on the grid 2^-4).  After episode k it releases, for every step h,
through one binary-mechanism counter per statistic (:class:`privcheck.mechanisms.tree.ContinualTree`, discrete
Gaussian noise), the noisy prefix sums over the episodes so far of

* the Gram matrix Λ_h = Σ φφᵀ (``gram``, in units of 2^-8),
* the reward vector Σ φ·r (``rewards``, rewards on the grid 2^-4; units of 2^-8),
* the transition matrix Σ φ·e_{s'}ᵀ (``transitions``, d × S; units of 2^-4),

and plans from those releases alone: w_h = Λ̃_h⁻¹(b_h + M_h V_{h+1}), Q_h(s, a) = min(H − h + 1, φᵀw_h +
β‖φ‖_{Λ̃_h⁻¹}), Λ̃_h the symmetrised noisy Gram matrix shifted by its noise's bound plus 1, β = H·√d (the paper's
optimism up to its constants, our choice); greedy, ties to the lowest action.

Privacy.  Replacing one user's episode moves each step's Λ_h by at most ‖φφᵀ‖_F + ‖φ'φ'ᵀ‖_F ≤ 2 (in ℓ2 over its
entries), b_h by at most 2 and M_h by at most 2, so each statistic's per-episode element moves by at most 2√H in ℓ2
over the H steps; each element lies in at most L = ⌊log₂ K⌋ + 1 blocks.  Discrete Gaussian noise of variance σ² =
6·L·H/ρ (times the statistic's units squared, σ rounded up to whole units) on every block makes each statistic's
releases (ρ/3)-zCDP, all three ρ-zCDP, and the actions every other user sees — post-processing — ρ-joint-zCDP.  A
claim of (ε, δ)-DP is met through ρ = (√(ε + ln(1/δ)) − √ln(1/δ))², the largest ρ whose zCDP implies it
("Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds", Bun and Steinke, Proposition
1.3).  ``noise_multiplier`` scales σ (1: as published; below 1, a mis-calibrated copy).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, check_int
from privcheck.core.episodic import FEATURE_GRID_BITS
from privcheck.mechanisms.tree import ContinualTree, tree_levels

from .base import check_noise_multiplier
from .private_ucbvi import GreedyPlanned

__all__ = ["PrivateLSVI", "make", "gaussian_rho", "noise_sigma"]

#: the units of each statistic per 1: Λ and b in 2^-8 (φ and r on 2^-4), M in 2^-4
_UNITS = {
    "gram": 1 << (2 * FEATURE_GRID_BITS),
    "rewards": 1 << (2 * FEATURE_GRID_BITS),
    "transitions": 1 << FEATURE_GRID_BITS,
}


def gaussian_rho(rho=None, epsilon=None, delta=None) -> float | None:
    """The zCDP budget the agent calibrates to: ``rho`` where the claim gives one, else the largest ρ whose zCDP
    implies (``epsilon``, ``delta``)-DP; None for the non-private twin (no claim parameter)."""
    if rho is not None:
        return float(rho)
    if epsilon is None and delta is None:
        return None
    if epsilon is None or not delta:
        raise InvalidArgument(
            "the Gaussian agent's noise meets a zCDP claim (rho=) or an (ε, δ) claim with δ > 0 (epsilon= and delta=), "
            "not a pure ε-DP claim"
        )
    log = math.log(1 / float(delta))
    return (math.sqrt(float(epsilon) + log) - math.sqrt(log)) ** 2


def noise_sigma(rho: float, episodes: int, horizon: int, units: int, multiplier: float = 1.0) -> int:
    """The standard deviation, in whole units, of every block of a statistic's counter: ⌈units·√(6·L·H/ρ)⌉ (a third
    of ρ per statistic; L the tree's levels over ``episodes``), times ``multiplier``."""
    return max(1, math.ceil(units * math.sqrt(6 * tree_levels(episodes) * horizon / rho) * multiplier))


class PrivateLSVI(GreedyPlanned):
    """The agent (see the module docstring), batched over ``runs``."""

    def __init__(self, episodes, horizon, states, actions, features, rng, runs=1, rho=None, noise_multiplier=1.0):
        self.K, self.H = check_int("episodes", episodes), check_int("horizon", horizon)
        self.S, self.A = check_int("states", states), check_int("actions", actions)
        self.runs = check_int("runs", runs)
        phi = np.asarray(features, dtype=float)
        if phi.ndim != 3 or phi.shape[:2] != (self.S, self.A):
            raise InvalidArgument(
                f"features of shape {phi.shape} must be (states, actions, dim) = ({self.S}, {self.A}, d)"
            )
        grid = float(1 << FEATURE_GRID_BITS)
        if not np.array_equal(np.round(phi * grid), phi * grid) or np.any(np.linalg.norm(phi, axis=2) > 1):
            raise InvalidArgument(f"features must lie on the grid 2^-{FEATURE_GRID_BITS} with norms at most 1")
        self.phi, self.d = phi, phi.shape[2]
        self._phi_units = np.rint(phi * grid).astype(np.int64)  # (S, A, d)
        m = check_noise_multiplier(noise_multiplier)
        R, H, d, S = self.runs, self.H, self.d, self.S
        shapes = {"gram": (R, H, d, d), "rewards": (R, H, d), "transitions": (R, H, d, S)}
        self._sigma = {n: None if rho is None else noise_sigma(rho, self.K, H, _UNITS[n], m) for n in shapes}
        self._trees = {
            n: ContinualTree(shape, self.K, None, rng, None if rho is None else Fraction(self._sigma[n] ** 2))
            for n, shape in shapes.items()
        }
        self._episode = {n: np.zeros(shape, dtype=np.int64) for n, shape in shapes.items()}
        #: what the agent has published: the noisy prefix sums after each episode (in their units)
        self.gram = np.zeros(shapes["gram"], dtype=np.int64)
        self.rewards = np.zeros(shapes["rewards"], dtype=np.int64)
        self.transitions = np.zeros(shapes["transitions"], dtype=np.int64)
        self._runs = np.arange(R)
        self._plan()

    def update(self, k, h, states, actions, rewards, next_states):
        """This episode's statistics of step h, kept exact until the episode ends."""
        s, a, nxt = (np.asarray(v, dtype=np.int64) for v in (states, actions, next_states))
        f = self._phi_units[s, a]  # (runs, d)
        r = np.rint(np.clip(np.asarray(rewards, dtype=float), 0.0, 1.0) * (1 << FEATURE_GRID_BITS)).astype(np.int64)
        e = self._episode
        e["gram"][:, h - 1] += f[:, :, None] * f[:, None, :]
        e["rewards"][:, h - 1] += f * np.broadcast_to(r, (self.runs,))[:, None]
        e["transitions"][self._runs, h - 1, :, nxt] += f

    def _released(self, name, exact):
        """The noisy prefix sum of a statistic through its counter, the episode added."""
        return self._trees[name].add(exact)

    def _plan(self):
        """Least-squares value iteration on the released statistics, optimistic in the noisy Gram matrix's norm."""
        H, d, S = self.H, self.d, self.S
        u = _UNITS
        shift = 0.0
        if self._sigma["gram"] is not None:  # the noise's bound: the Gram matrix stays positive definite
            shift = 3.0 * self._sigma["gram"] / u["gram"] * math.sqrt(tree_levels(self.K) * d)
        eye = np.eye(d)
        v = np.zeros((self.runs, S))
        greedy = [None] * H
        beta = H * math.sqrt(d)
        for h in reversed(range(H)):
            gram = self.gram[:, h] / u["gram"]
            lam = (gram + np.swapaxes(gram, 1, 2)) / 2 + (1.0 + shift) * eye
            inv = np.linalg.inv(lam)
            target = self.rewards[:, h] / u["rewards"] + np.einsum(
                "rds,rs->rd", self.transitions[:, h] / u["transitions"], v
            )
            w = np.einsum("rde,re->rd", inv, target)
            mean = np.einsum("sad,rd->rsa", self.phi, w)
            width = np.sqrt(np.maximum(np.einsum("sad,rde,sae->rsa", self.phi, inv, self.phi), 0.0))
            q = np.clip(mean + beta * width, 0.0, H - h)
            greedy[h] = np.argmax(q, axis=2)
            v = q.max(axis=2)
        self._greedy = greedy


def make(
    episodes, horizon, states, actions, features, rng, runs=1, rho=None, epsilon=None, delta=None, noise_multiplier=1.0
):
    """DP-LSVI as an episodic factory of a linear MDP (:func:`privcheck.audit_episodic` with ``dim=`` gives it the
    features, the instance and the claim's parameters): private at the claim's ρ, or at the ρ an (ε, δ) claim
    allows; the non-private twin without a claim parameter."""
    return PrivateLSVI(
        episodes, horizon, states, actions, features, rng, runs, gaussian_rho(rho, epsilon, delta), noise_multiplier
    )
