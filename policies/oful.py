"""Rarely switching OFUL for linear contextual bandits: RS-OFUL and AdaC-OFUL.

Each round t brings an action set (K actions in R^d: fixed for a linear bandit, fresh for a contextual one) and
the reward of the chosen action is ⟨θ*, a⟩ + noise.  Following Abbasi-Yadkori, Pál & Szepesvári, "Improved
Algorithms for Linear Stochastic Bandits" (rarely switching OFUL), and Azize & Basu, "Concentrated Differential
Privacy for Bandits" (AdaC-OFUL, §IV-B and App. F):

* V_0 = λI, b_0 = 0; after round t, V_t = V_{t−1} + ã_t ã_tᵀ and b_t = b_{t−1} + ã_t clip(r_t, −R, R), where
  ã = a / max(L, ‖a‖) (the sensitivity below needs ‖ã‖ ≤ 1 and |r| ≤ R; the experiments' Gaussian contexts and
  N(0, 1) noise break the unit bounds R = L = 1, so the statistic clips — the non-private twin clips too, so
  that the two differ by the privacy noise only).  θ is estimated in units of ã: inside the ball of radius L,
  ⟨Lθ*, a/L⟩ = ⟨θ*, a⟩ and the model stays linear, while projecting an action of norm above L, or clipping a
  reward, makes it misspecified — a public L and R large enough for the data keep the regret sublinear at the
  price of a privacy noise R times larger;
* a new episode ℓ starts after round t when det V_t > (1 + C) det V_τ (τ: the last episode start).  Only then
  are the estimate and the confidence width refreshed: θ̃ = V_t⁻¹ (b_t + Σ_{m ≤ ℓ} Y_m);
* **AdaC-OFUL**: Y_ℓ ~ N(0, (2/ρ) I_d) drawn at each episode start.  The released sums b_{τ_ℓ} + Σ_{m≤ℓ} Y_m are a
  post-processing of the per-episode increments (b_{τ_ℓ} − b_{τ_{ℓ−1}}) + Y_ℓ, each over its own block of rounds;
  one user's reward moves its block's increment by ‖ã(r − r')‖ ≤ 2R, so each increment is the ρ-zCDP Gaussian
  mechanism (σ² = (2R)²/(2ρ)) and, the blocks being disjoint, the policy is ρ-Interactive zCDP.  Nothing is
  forgotten, so the noise variance grows as (ℓ − 1)·2/ρ.  The first episode starts with no data: its statistic
  is the constant 0 and gets no noise.  Each increment is released on a grid, with exact discrete Gaussian
  noise keyed by the update's uniforms (:class:`mechanisms.keyed_noise.GridGaussianRelease`), and the released
  sums are the running totals of those grid values — exact doubles;
* act: argmax_a ⟨θ̃, ã⟩ + β̃ ‖ã‖_{V_τ⁻¹} over the round's actions (ties by the round's uniform).

Confidence width (``delta`` split evenly between the two terms):

* β = σ √(2 ln(2/δ) + d ln(1 + t/(λd))) + √λ L S — OFUL's self-normalised bound with actions ã of norm ≤ 1,
  rewards σ-sub-Gaussian around ⟨Lθ*, ã⟩ and ‖θ*‖ ≤ S (σ = 1, S = 1 by default);
* AdaC-OFUL adds a bound on ‖Σ_m Y_m‖_{V_τ⁻¹}: the sum of m = ℓ − 1 draws is N(0, (2R²m/ρ) I), and
  P[‖Z‖ ≥ s(√d + x)] ≤ e^(−x²/2) for Z ~ N(0, s² I) (Gaussian Lipschitz concentration), so with
  δ_m = δ/(2m(m + 1)) (summing to δ/2 over episodes), γ = R√(2m/ρ) (√d + √(2 ln(1/δ_m))) / √λ_min(V_τ).
  V_τ is a function of the actions only, so its smallest eigenvalue is public; the paper bounds it through its
  context assumption instead.

Every number above is a documented choice; the paper's own constants were lost from the copy we have.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from privcheck.mechanisms.keyed_noise import KEY_UNIFORMS, gaussian_release, keys_from_uniforms
from privcheck.core import InvalidArgument, TableNeighbours, ZCDP, check_int, check_real

from .base import check_arms, check_noise_multiplier, check_runs, choose, extreme_table
from .gope import check_bounds, clip_actions

__all__ = ["OFUL", "OFULState"]


class OFULState(NamedTuple):
    V: np.ndarray  # (runs, d, d) design matrix after the last round
    b: np.ndarray  # (runs, d) Σ ã r (clipped)
    logdet_tau: np.ndarray  # (runs,) ln det V at the episode start
    V_inv_tau: np.ndarray  # (runs, d, d) V⁻¹ at the episode start
    theta: np.ndarray  # (runs, d) θ̃ of the current episode
    width: np.ndarray  # (runs,) β̃ of the current episode
    released: np.ndarray  # (runs, d) the private statistic at the episode start: Σ over releases of (increment + Y_m)
    b_tau: np.ndarray  # (runs, d) b at the episode start (the last release)
    episode: np.ndarray  # (runs,) ℓ


class OFUL:
    """RS-OFUL (``rho=None``) or AdaC-OFUL (ρ given) with K actions per round in R^``dim``.

    ``actions`` (K, d) fixes the action set (a linear bandit); without it the caller passes each round's action
    set to ``act`` and ``update`` (a contextual bandit).  ``reward_bound`` R and ``action_bound`` L are the public
    bounds of the statistic (1 and 1: Assumption 1 of the paper).  ``strict=True`` asks for the guarantee without
    clipping: an action of norm above L is then an input error.
    """

    n_uniforms = 1
    claim = None  # the privacy claim (set when private), and the definition it is audited under
    definition = None
    contextual = True

    def __init__(
        self,
        n_arms: int,
        dim: int,
        rho: float | None = None,
        *,
        actions=None,
        lam: float = 0.1,
        switch: float = 1.0,
        delta: float = 0.001,
        sigma: float = 1.0,
        bound: float = 1.0,
        strict: bool = False,
        reward_bound: float = 1.0,
        action_bound: float = 1.0,
        noise_multiplier: float = 1.0,
        width_scale: float = 1.0,
    ):
        self.n_arms = check_arms(n_arms)
        # the optimism width times s (1: as published): s < 1 voids the regret bound, never the privacy, which
        # does not depend on the widths — an audit's instance, where the noisy estimate must decide the action
        self.width_scale = check_real("width_scale", width_scale, lower=0.0, lower_open=True)
        self.noise_multiplier = check_noise_multiplier(noise_multiplier)
        self.dim = check_int("dim", dim)
        self.rho = None if rho is None else check_real("rho", rho, lower=0.0, lower_open=True)
        self.lam = check_real("lam", lam, lower=0.0, lower_open=True)
        self.switch = check_real("switch", switch, lower=0.0, lower_open=True)
        self.delta = check_real("delta", delta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        self.sigma = check_real("sigma", sigma, lower=0.0)
        self.bound = check_real("bound", bound, lower=0.0)
        self.strict = bool(strict)
        self.reward_bound, self.action_bound = check_bounds(reward_bound, action_bound)
        self.actions = None
        if actions is not None:
            A = np.asarray(actions, dtype=float)
            if A.shape != (self.n_arms, self.dim) or not np.isfinite(A).all():
                raise InvalidArgument(f"actions must be a finite ({self.n_arms}, {self.dim}) array")
            self._check_norms(A)
            self.actions, self._clipped = A, clip_actions(A, self.action_bound)
        self.name = "rs-oful" if self.rho is None else "adac-oful"
        self.n_update_uniforms = 0 if self.rho is None else KEY_UNIFORMS
        # the privacy it asserts (none for the non-private twin) and which neighbours that is about
        self.claim = None if self.rho is None else ZCDP(self.rho, TableNeighbours())
        self.definition = None if self.rho is None else "interactive"
        if self.rho is not None:
            # ‖ã(r − r')‖ ≤ 2R; σ m times the published one (m the noise multiplier, 1 as published)
            self._release = gaussian_release(2.0 * self.reward_bound, self.rho / self.noise_multiplier**2, self.dim)
            self.noise_sd = self._release.sigma

    def audit_table(self, horizon: int) -> np.ndarray:
        """Rewards at ±R, the clipping bound: a neighbour then moves ã·r by the full sensitivity 2R."""
        return extreme_table(horizon, self.n_arms, self.reward_bound)

    def _check_norms(self, A):
        if self.strict and np.linalg.norm(A, axis=-1).max() > self.action_bound * (1 + 1e-12):
            raise InvalidArgument(
                f"an action has norm > {self.action_bound:g}: the unclipped guarantee needs "
                f"‖a‖ <= {self.action_bound:g}"
            )

    # ------------------------------------------------------------------------------------------ widths
    def beta(self, t: int) -> float:
        """OFUL's radius after t rounds, with failure probability δ/2."""
        d = self.dim
        return (
            self.sigma * math.sqrt(2 * math.log(2 / self.delta) + d * math.log(1 + t / (self.lam * d)))
            + math.sqrt(self.lam) * self.action_bound * self.bound
        )

    def noise_radius(self, draws: np.ndarray, lam_min: np.ndarray) -> np.ndarray:
        """A bound on ‖Σ_m Y_m‖_{V⁻¹} after ``draws`` noise draws, given λ_min(V); each holds w.p. 1 − δ/(2m(m+1))."""
        m = np.asarray(draws, dtype=float)
        if self.rho is None:
            return np.zeros_like(m)
        safe = np.maximum(m, 1.0)
        r = (
            self.noise_sd
            * np.sqrt(safe)
            * (math.sqrt(self.dim) + np.sqrt(2 * np.log(2 * safe * (safe + 1) / self.delta)))
        )
        return np.where(m > 0, r / np.sqrt(lam_min), 0.0)

    # ----------------------------------------------------------------------------------------- protocol
    def init(self, runs: int) -> OFULState:
        runs, d = check_runs(runs), self.dim
        V = np.broadcast_to(self.lam * np.eye(d), (runs, d, d)).copy()
        return OFULState(
            V,
            np.zeros((runs, d)),
            np.full(runs, d * math.log(self.lam)),
            np.linalg.inv(V),
            np.zeros((runs, d)),
            np.full(runs, self.beta(0)),
            np.zeros((runs, d)),
            np.zeros((runs, d)),
            np.ones(runs, dtype=np.int64),
        )

    def _actions(self, contexts):
        """The round's actions as the statistic sees them, ã = a / max(L, ‖a‖): (K, d) fixed or (runs, K, d)."""
        if contexts is None:
            if self.actions is None:
                raise InvalidArgument(f"{self.name} without a fixed action set needs each round's actions")
            return self._clipped
        A = np.asarray(contexts, dtype=float)
        if A.ndim != 3 or A.shape[1:] != (self.n_arms, self.dim):
            raise InvalidArgument(f"each round's actions must have shape (runs, {self.n_arms}, {self.dim})")
        self._check_norms(A)
        return clip_actions(A, self.action_bound)

    def index(self, state: OFULState, contexts=None) -> np.ndarray:
        """⟨θ̃, ã⟩ + β̃ ‖ã‖_{V_τ⁻¹} for every run and action (runs, K)."""
        A = self._actions(contexts)
        if A.ndim == 2:
            mean = state.theta @ A.T
            norm2 = np.einsum("kd,rde,ke->rk", A, state.V_inv_tau, A)
        else:
            mean = np.einsum("rkd,rd->rk", A, state.theta)
            norm2 = np.einsum("rkd,rde,rke->rk", A, state.V_inv_tau, A)
        return mean + self.width_scale * state.width[:, None] * np.sqrt(np.maximum(norm2, 0.0))

    def act(self, state: OFULState, t: int, u, contexts=None) -> np.ndarray:
        return choose(self.index(state, contexts), np.asarray(u, dtype=float)[:, 0])

    def contribution(self, actions, rewards) -> np.ndarray:
        """ã·clip(r, −R, R) row by row: what one round adds to the statistic b."""
        return clip_actions(actions, self.action_bound) * self._clip(rewards)[:, None]

    def _clip(self, rewards) -> np.ndarray:
        return np.clip(np.asarray(rewards, dtype=float), -self.reward_bound, self.reward_bound)

    def steady(self, state: OFULState, t: int, most: int) -> np.ndarray:
        """The arms of the next rounds of the episode (an audit's block), on fixed actions: within an episode θ̃,
        V_τ⁻¹ and the width are fixed, so each run plays its index's unique argmax until det V has grown by
        1 + switch — a run whose index ties (its choice then reads a uniform) or a fresh action set: no block.  The
        block stops short of any switch (a bound on det V's growth, a margin for rounding), so that every switch
        happens round by round."""
        runs = state.b.shape[0]
        if self.actions is None:
            return np.empty((runs, 0), dtype=np.int64)
        index = self.index(state)
        top = np.sort(index, axis=1)
        if (top[:, -1] <= top[:, -2]).any() or not np.isfinite(index).all():
            return np.empty((runs, 0), dtype=np.int64)
        arm = index.argmax(axis=1)
        # the round-by-round update adds the observed action's x xᵀ (an adversary's query may differ from the
        # arm played), and ln det(V + Σ x_j x_jᵀ) ≤ ln det V + Σ ln(1 + x_jᵀ V⁻¹ x_j): with the largest q over the
        # actions, n pulls of any of them cannot switch while n·ln(1 + q_max) stays below the room left
        q = np.einsum("kd,rde,ke->rk", self._clipped, np.linalg.inv(state.V), self._clipped).max(axis=1)
        room = state.logdet_tau + math.log1p(self.switch) - np.linalg.slogdet(state.V)[1]
        room = room - 1e-9 * np.maximum(1.0, np.abs(state.logdet_tau))  # rounding of the round-by-round slogdet
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            n = np.where(q > 0, np.floor(np.maximum(room, 0.0) / np.log1p(q)), np.inf)  # pulls with no switch
        L = int(min(most, max(0.0, float(n.min()) - 1.0)))
        return np.repeat(arm[:, None], L, axis=1)

    def accumulate(self, state: OFULState, t: int, arms, feedback, u=None) -> OFULState:
        """The state after a :meth:`steady` block: V and b summed round by round, with the actions observed
        (``arms``, as :meth:`update` is given them), as :meth:`update` sums them — no episode switches in it."""
        V, b = state.V, state.b
        clipped = self._clip(feedback)
        for j in range(arms.shape[1]):
            x = self._clipped[arms[:, j]]
            V = V + x[:, :, None] * x[:, None, :]
            b = b + x * clipped[:, j][:, None]
        return state._replace(V=V, b=b)

    def update(self, state: OFULState, t: int, arms, feedback, u=None, contexts=None) -> OFULState:
        if contexts is None:
            x = self._actions(None)[arms]
        else:  # act has checked the round's action set; only the chosen actions enter the statistic
            x = clip_actions(np.asarray(contexts, dtype=float)[np.arange(state.b.shape[0]), arms], self.action_bound)
        V = state.V + x[:, :, None] * x[:, None, :]
        b = state.b + x * self._clip(feedback)[:, None]  # x is already ã: this is contribution(a, r)
        logdet = np.linalg.slogdet(V)[1]
        new = logdet > state.logdet_tau + math.log1p(self.switch)
        if not new.any():
            return OFULState(
                V,
                b,
                state.logdet_tau,
                state.V_inv_tau,
                state.theta,
                state.width,
                state.released,
                state.b_tau,
                state.episode,
            )
        s = np.flatnonzero(new)
        released, b_tau, episode = state.released.copy(), state.b_tau.copy(), state.episode.copy()
        episode[s] += 1
        if self.rho is not None:  # the increment since the last release, on the grid, with its fresh noise Y
            released[s] += self._release.release_vectors(b[s] - b_tau[s], keys_from_uniforms(np.asarray(u)[s]))
        else:
            released[s] = b[s]
        b_tau[s] = b[s]
        V_inv_tau, theta, width, logdet_tau = (
            state.V_inv_tau.copy(),
            state.theta.copy(),
            state.width.copy(),
            state.logdet_tau.copy(),
        )
        V_inv_tau[s] = np.linalg.inv(V[s])
        theta[s] = np.einsum("rde,re->rd", V_inv_tau[s], released[s])
        width[s] = self.beta(t) + self.noise_radius(episode[s] - 1, np.linalg.eigvalsh(V[s])[:, 0])
        logdet_tau[s] = logdet[s]
        return OFULState(V, b, logdet_tau, V_inv_tau, theta, width, released, b_tau, episode)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms}, d={self.dim}" + ("" if self.rho is None else f", rho={self.rho}") + ")"
