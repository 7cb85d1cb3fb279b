"""A jointly private least-squares value iteration for a linear MDP, written as a researcher writes it — one object per
run, per-step statistics, the noise of their own — and the feature-norm bug such code has.

The agent is given the environment's features φ(s, a) ∈ ℝ^d with ‖φ‖₂ ≤ 1 (privcheck gives them with ``--dim``).
After each episode it publishes, for every step h, the running sums of the Gram matrix Σ φφᵀ, of Σ φ·r and of
Σ φ·e_{s'}ᵀ, each episode's increment with fresh discrete Gaussian noise, and plans the next episode by optimistic
least squares on what it published.  One user's episode is one increment; replacing it moves each step's Gram matrix
by at most 2‖φ‖² ≤ 2 in Frobenius norm and the two others by at most 2‖φ‖ ≤ 2 (rewards in [0, 1]), so 2√H over the H
steps; σ² = 3·4H/(2ρ) per statistic (a third of ρ each) makes the releases ρ-zCDP, and every other user's actions
ρ-joint-zCDP.  Statistics are counted on grids (φ and r on 2^-4) and the noise is drawn exactly on them.

    privcheck audit examples/linear_rl.py:make --rho 1 --definition joint --episodes 6 --horizon 2 --states 2 \
        --actions 2 --dim 3 --releases gram b m --samples 2000
    privcheck audit examples/linear_rl.py:make_tile_features --rho 1 --definition joint --episodes 6 --horizon 2 \
        --states 2 --actions 2 --releases gram b m --samples 2000
    privcheck audit examples/linear_rl.py:make_exact_rewards --rho 1 --definition joint --episodes 6 --horizon 2 \
        --states 2 --actions 2 --dim 3 --releases gram b m --samples 2000

The planted bugs: ``make_tile_features`` builds its own features by tile coding — 9 tilings, one binary feature
active in each, a common encoding — and calibrates as if ‖φ‖ ≤ 1, where ‖φ‖ = 3: a user moves the Gram matrix 9
times as far and the two others 3 times, ρ up to (81 + 9 + 9)/3 = 33 times the claim; ``make_exact_rewards`` publishes Σ φ·r without noise (only
the Gram matrix and the transitions are noisy, as if rewards were not a user's data).
"""

import math
from fractions import Fraction

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_gaussian

GRID = 16  # φ and r on the grid 1/16: the Gram matrix and Σ φ·r in 1/256, Σ φ·e in 1/16


class PrivateLinearVI:
    def __init__(self, episodes, horizon, states, actions, features, rho, rng, exact_rewards=False):
        self.H, self.S, self.A = horizon, states, actions
        self.phi = np.asarray(features, dtype=float)
        d = self.d = self.phi.shape[2]
        self.units = {"gram": GRID * GRID, "b": GRID * GRID, "m": GRID}
        self.sigma = {n: math.ceil(u * math.sqrt(3 * 4 * horizon / (2 * rho))) for n, u in self.units.items()}
        if exact_rewards:
            self.sigma["b"] = None
        self.gram = np.zeros((horizon, d, d), dtype=np.int64)
        self.b = np.zeros((horizon, d), dtype=np.int64)
        self.m = np.zeros((horizon, d, states), dtype=np.int64)
        # every episode's noise drawn now, in one call a statistic (fresh for each episode: row k is episode k's)
        self.noise = {}
        for name, sigma in self.sigma.items():
            shape = (episodes, *getattr(self, name).shape)
            if sigma is not None:
                draws = discrete_gaussian(rng, Fraction(sigma**2), int(np.prod(shape)), t=sigma)
                self.noise[name] = draws.reshape(shape)
        self.new_episode()
        self.plan()

    def new_episode(self):
        self.step = {"gram": np.zeros_like(self.gram), "b": np.zeros_like(self.b), "m": np.zeros_like(self.m)}

    def act(self, k, h, state):
        return int(self.policy[h - 1, state])

    def update(self, k, h, state, action, reward, next_state):
        f = np.rint(self.phi[state, action] * GRID).astype(np.int64)
        self.step["gram"][h - 1] += np.outer(f, f)
        self.step["b"][h - 1] += f * round(min(max(reward, 0.0), 1.0) * GRID)
        self.step["m"][h - 1, :, next_state] += f

    def end_episode(self, k):
        for name, increment in self.step.items():
            if name in self.noise:
                increment = increment + self.noise[name][k - 1]
            setattr(self, name, getattr(self, name) + increment)
        self.new_episode()
        self.plan()

    def plan(self):
        H, d = self.H, self.d
        v = np.zeros(self.S)
        self.policy = np.zeros((H, self.S), dtype=int)
        for h in reversed(range(H)):
            gram = self.gram[h] / self.units["gram"]
            lam = (gram + gram.T) / 2 + (1 + 3 * self.sigma["gram"] / self.units["gram"] * math.sqrt(d)) * np.eye(d)
            inv = np.linalg.inv(lam)
            w = inv @ (self.b[h] / self.units["b"] + (self.m[h] / self.units["m"]) @ v)
            width = np.sqrt(np.maximum(np.einsum("sad,de,sae->sa", self.phi, inv, self.phi), 0))
            q = np.clip(self.phi @ w + H * math.sqrt(d) * width, 0, H - h)
            self.policy[h] = q.argmax(axis=1)
            v = q.max(axis=1)


def _tile_features(states, actions, tilings=9):
    """Tile coding of the state-action pairs: each of the tilings, offset from the others, puts every pair in a tile
    of its own — a binary feature per tile, one active per tiling, so ‖φ‖ = √tilings = 3."""
    n = states * actions
    phi = np.zeros((states, actions, tilings * n))
    for s in range(states):
        for a in range(actions):
            for j in range(tilings):
                phi[s, a, j * n + (s * actions + a + j) % n] = 1.0
    return phi


def make(episodes, horizon, states, actions, features, rho, rng):
    return PrivateLinearVI(episodes, horizon, states, actions, features, rho, rng)


def make_tile_features(episodes, horizon, states, actions, rho, rng):
    return PrivateLinearVI(episodes, horizon, states, actions, _tile_features(states, actions), rho, rng)


def make_exact_rewards(episodes, horizon, states, actions, features, rho, rng):
    return PrivateLinearVI(episodes, horizon, states, actions, features, rho, rng, exact_rewards=True)
