"""G-optimal phased elimination for linear bandits: GOPE, AdaC-GOPE and AdaR-GOPE-Var.

Finite action set A ⊂ R^d, rewards ⟨θ*, a⟩ + noise.  Phase ℓ = 1, 2, … (Lattimore & Szepesvári, "Bandit
Algorithms", Alg. 12; Azize & Basu, "Concentrated Differential Privacy for Bandits", §IV and App. H):

* β_ℓ = 2^−ℓ, δ_ℓ = δ/(Kℓ(ℓ+1)); a G-optimal design π_ℓ on the active set A_ℓ (:mod:`policies.design`,
  g(π) ≤ (1 + η)d, support ≤ d(d+1)/2); each a in the support is played T_ℓ(a) = ⌈c_ℓ π_ℓ(a)⌉ times
  (:mod:`policies.episodes`), with c_ℓ = (8d/β_ℓ²) ln(4/δ_ℓ) for GOPE and, for the private forms, plus
  (2d/β_ℓ) √((2/ρ) f(d, δ_ℓ)), f(d, δ) = d + 2√(d ln(2/δ)) + 2 ln(2/δ);
* V_ℓ = Σ_a T_ℓ(a) a aᵀ and θ̂_ℓ = V_ℓ⁻¹ Σ_t a_t r_t over this phase only (older phases are forgotten);
* **AdaC-GOPE**: θ̃_ℓ = θ̂_ℓ + V_ℓ^(−1/2) N(0, σ_ℓ² I).  V_ℓ^(−1/2) Σ a_t r_t moves by at most
  2·max_{a ∈ supp} ‖a‖_{V_ℓ⁻¹} when one reward in [−1, 1] changes, so σ_ℓ² = 2 max_{a ∈ supp} ‖a‖²_{V_ℓ⁻¹}/ρ is
  the ρ-zCDP Gaussian calibration (:meth:`mechanisms.Gaussian.for_zcdp`), computed from the *realised* V_ℓ —
  with an exact design it would be 2d/(ρ c_ℓ), but Frank–Wolfe stops at g ≤ (1 + η)d and the ceilings
  change V_ℓ, so the ideal value could under-noise;
* **AdaR-GOPE-Var**: Gaussian noise on each per-action reward sum instead (the vector of sums moves by at most
  2 in ℓ2: σ² = 2/ρ per sum), then θ̃_ℓ = V_ℓ⁻¹ Σ_a a S̃_a; it uses AdaC-GOPE's c_ℓ;
* eliminate a when max_b ⟨θ̃_ℓ, b − a⟩ > 2β_ℓ; the last action standing is played for ever.

The private statistic uses clip(r, −1, 1) and a/max(1, ‖a‖) (the sensitivities need |r| ≤ 1 and ‖a‖ ≤ 1; the
experiments' N(0, 1) noise breaks the first); wider public bounds R and L can be given (see :class:`GOPE`).
Each reward enters one phase's statistic and the phases are disjoint, so each private form is ρ-Interactive
zCDP.  The released vectors (AdaC-GOPE: V_ℓ^(−1/2) Σ a r, then multiplied by V_ℓ^(−1/2); AdaR-GOPE-Var: the sums)
are on a grid with exact discrete Gaussian noise keyed by the update's uniforms
(:class:`mechanisms.keyed_noise.GridGaussianRelease`).  Designs are computed in the span of the active actions
(d is then its dimension).  The realised η of every design is kept in ``last_eta``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from privcheck.mechanisms.keyed_noise import KEY_UNIFORMS, gaussian_release, keys_from_uniforms
from privcheck.core import InvalidArgument, TableNeighbours, ZCDP, check_real

from .base import check_noise_multiplier, check_runs, extreme_table
from .design import g_optimal_design, span_basis
from .episodes import Episodes, FOREVER, init_episodes, next_arms, planned_arms, record, record_block, restart

__all__ = ["GOPE", "clip_actions"]

VARIANTS = ("gope", "adac-gope", "adar-gope-var")


def clip_actions(actions, bound: float = 1.0) -> np.ndarray:
    """a / max(L, ‖a‖) along the last axis: a/L inside the ball of radius L = ``bound``, projected onto the unit
    sphere outside it.  With L = 1 this is a / max(1, ‖a‖)."""
    A = np.asarray(actions, dtype=float)
    return A / np.maximum(bound, np.linalg.norm(A, axis=-1, keepdims=True))


def check_bounds(reward_bound, action_bound) -> tuple[float, float]:
    return (
        check_real("reward_bound", reward_bound, lower=0.0, lower_open=True),
        check_real("action_bound", action_bound, lower=0.0, lower_open=True),
    )


class GOPEState(NamedTuple):
    ep: Episodes
    active: np.ndarray  # (runs, K) bool
    eta: np.ndarray  # (runs,) realised η of the current phase's design


class GOPE:
    """GOPE (``rho=None``), AdaC-GOPE (``variant='adac-gope'``) or AdaR-GOPE-Var (``variant='adar-gope-var'``).

    ``strict=True`` asks for the guarantee without clipping: an action of norm above ``action_bound`` is then an
    input error.  ``reward_bound`` R and ``action_bound`` L generalise the unit bounds: the statistic uses
    clip(r, −R, R) and a/max(L, ‖a‖) (θ is then estimated in units of a/L, which keeps the model linear for
    ‖a‖ ≤ L) and every sensitivity is multiplied by R.
    """

    n_uniforms = 0
    claim = None  # the privacy claim (set when private), and the definition it is audited under
    definition = None

    def __init__(
        self,
        actions,
        rho: float | None = None,
        delta: float = 0.001,
        variant: str | None = None,
        eta: float = 0.01,
        strict: bool = False,
        reward_bound: float = 1.0,
        action_bound: float = 1.0,
        noise_multiplier: float = 1.0,
        phase_scale: float = 1.0,
    ):
        A = np.asarray(actions, dtype=float)
        if A.ndim != 2 or A.shape[0] < 2 or not np.isfinite(A).all():
            raise InvalidArgument("actions must be a finite (K, d) array with K >= 2")
        self.reward_bound, self.action_bound = check_bounds(reward_bound, action_bound)
        norms = np.linalg.norm(A, axis=1)
        if strict and norms.max() > self.action_bound * (1 + 1e-12):
            raise InvalidArgument(
                f"an action has norm {norms.max():.6g} > {self.action_bound:g}: the unclipped "
                f"guarantee needs ‖a‖ <= {self.action_bound:g}"
            )
        self.actions = clip_actions(A, self.action_bound)
        self.n_arms, self.dim = A.shape
        variant = variant or ("gope" if rho is None else "adac-gope")
        if variant not in VARIANTS:
            raise InvalidArgument(f"variant={variant!r} must be one of {', '.join(VARIANTS)}")
        if (variant == "gope") != (rho is None):
            raise InvalidArgument("GOPE is the non-private variant: give rho exactly for adac-gope and adar-gope-var")
        self.variant, self.name = variant, variant
        self.rho = None if rho is None else check_real("rho", rho, lower=0.0, lower_open=True)
        self.delta = check_real("delta", delta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        self.eta = check_real("eta", eta, lower=0.0, lower_open=True)
        self.noise_multiplier = check_noise_multiplier(noise_multiplier)
        self.phase_scale = check_real("phase_scale", phase_scale, lower=0.0, lower_open=True)
        self.n_update_uniforms = KEY_UNIFORMS  # the key of a phase's release noise
        # the privacy it asserts (none for the non-private twin) and which neighbours that is about
        self.claim = None if self.rho is None else ZCDP(self.rho, TableNeighbours())
        self.definition = None if self.rho is None else "interactive"
        if self.rho is not None:
            # the ρ of a release: σ is m times the published one (m the noise multiplier, 1 as published)
            self._release_rho = self.rho / self.noise_multiplier**2
        self._schedules: dict = {}
        self._first = self._schedule(1, np.ones(self.n_arms, dtype=bool))

    # ------------------------------------------------------------------------------------------- phases
    def phase_length(self, ell: int, dim: int) -> float:
        """c_ℓ, times ``phase_scale`` (1: as published; smaller shortens every phase — a privacy audit's
        instance, where phases must end within a short horizon; the noise of each release is calibrated to the
        realised V_ℓ either way, so the privacy does not depend on it)."""
        beta, dl = 2.0**-ell, self.delta / (self.n_arms * ell * (ell + 1))
        c = 8 * dim / beta**2 * math.log(4 / dl)
        if self.rho is not None:
            f = dim + 2 * math.sqrt(dim * math.log(2 / dl)) + 2 * math.log(2 / dl)
            c += 2 * dim / beta * math.sqrt(2 / self.rho * f)
        return c * self.phase_scale

    def _schedule(self, ell: int, active: np.ndarray) -> tuple[np.ndarray, float]:
        """(T_ℓ(a) for every action, realised η) for phase ℓ on the active set: public, so computed once per
        (ℓ, active set) and shared by the runs."""
        key = (ell, np.asarray(active, dtype=bool).tobytes())
        if key not in self._schedules:
            self._schedules[key] = self._new_schedule(ell, np.asarray(active, dtype=bool))
        todo, eta = self._schedules[key]
        return todo.copy(), eta

    def _new_schedule(self, ell: int, active: np.ndarray) -> tuple[np.ndarray, float]:
        idx = np.flatnonzero(active)
        todo = np.zeros(self.n_arms, dtype=np.int64)
        if idx.size == 1:
            todo[idx] = FOREVER
            return todo, 0.0
        design = g_optimal_design(self.actions[idx], self.eta)
        c = self.phase_length(ell, design.dim)
        todo[idx] = np.where(design.weights > 0, np.ceil(c * design.weights), 0).astype(np.int64)
        return todo, design.eta

    def release(self, sensitivity: float, dim: int):
        """The grid Gaussian release of a ``dim``-vector of ℓ2 sensitivity Δ at ρ/m² (m the noise multiplier): its
        σ is m times the published Δ/√(2ρ), up to the grid."""
        return gaussian_release(sensitivity, self._release_rho, dim)

    def estimate(self, n: np.ndarray, s: np.ndarray, u: np.ndarray) -> np.ndarray:
        """θ̃ (m, d) for m runs that played the same phase schedule: pull counts n (K,), clipped reward sums
        s (m, K), update uniforms u (m, 2): the key of the release's noise."""
        s, u = np.atleast_2d(s), np.atleast_2d(u)
        sup = np.flatnonzero(n > 0)
        Q = span_basis(self.actions[sup])
        B = self.actions @ Q  # coordinates in the span of the support
        V = B[sup].T @ (n[sup, None] * B[sup])
        if self.variant == "adar-gope-var":  # every per-action sum released: ℓ2 sensitivity 2R
            rel = self.release(2.0 * self.reward_bound, sup.size)
            s = s.copy()
            s[:, sup] = rel.release_vectors(s[:, sup], keys_from_uniforms(u))
        if self.variant != "adac-gope":
            theta = np.linalg.solve(V, B[sup].T @ s[:, sup].T).T  # (m, r)
        else:  # V^(−1/2) Σ a r released, then θ̃ = V^(−1/2)·(release) = θ̂ + V^(−1/2) z
            w, U = np.linalg.eigh(V)
            root_inv = U @ np.diag(w**-0.5) @ U.T  # V^(−1/2)
            sens = 2.0 * math.sqrt(float(np.einsum("ij,jk,ik->i", B[sup], np.linalg.inv(V), B[sup]).max()))
            rel = self.release(sens * self.reward_bound, Q.shape[1])
            y = (s[:, sup] @ B[sup]) @ root_inv  # (m, r): rows of V^(−1/2) B_supᵀ s
            theta = rel.release_vectors(y, keys_from_uniforms(u)) @ root_inv
        return theta @ Q.T

    def audit_table(self, horizon: int) -> np.ndarray:
        """Rewards at ±R, the clipping bound: a neighbour then moves a·r by the full sensitivity 2R‖a‖."""
        return extreme_table(horizon, self.n_arms, self.reward_bound)

    def first_release(self) -> float:
        """The round at whose end the first private estimate is released — the end of phase 1, public — or
        inf when there is none (one action: it is played for ever)."""
        todo = self._first[0]
        return math.inf if (todo >= FOREVER).any() else float(todo.sum())

    # ----------------------------------------------------------------------------------------- protocol
    def init(self, runs: int) -> GOPEState:
        runs = check_runs(runs)
        todo, eta = self._first
        return GOPEState(
            init_episodes(runs, self.n_arms, todo), np.ones((runs, self.n_arms), dtype=bool), np.full(runs, eta)
        )

    def act(self, state: GOPEState, t: int, u=None) -> np.ndarray:
        return next_arms(state.ep)

    def steady(self, state: GOPEState, t: int, most: int) -> np.ndarray:
        """The actions of the next rounds of the phase's design, up to the last pull of the first phase to end."""
        return planned_arms(state.ep, most)

    def accumulate(self, state: GOPEState, t: int, arms, feedback, u=None) -> GOPEState:
        """The state after a :meth:`steady` block: its rewards, clipped to ±R, summed as :meth:`update` sums them."""
        ep = record_block(state.ep, np.clip(feedback, -self.reward_bound, self.reward_bound))
        return GOPEState(ep, state.active, state.eta)

    def update(self, state: GOPEState, t: int, arms, feedback, u) -> GOPEState:
        ep, ended = record(state.ep, np.clip(feedback, -self.reward_bound, self.reward_bound))
        if not ended.any():
            return GOPEState(ep, state.active, state.eta)
        u = np.asarray(u, dtype=float)
        runs = np.flatnonzero(ended)
        active, eta = state.active.copy(), state.eta.copy()
        todo = np.zeros((runs.size, self.n_arms), dtype=np.int64)
        groups: dict = {}  # runs that ended the same phase with the same schedule share V
        for i, r in enumerate(runs):
            groups.setdefault((int(ep.number[r]), ep.n[r].tobytes()), []).append(i)
        for (ell, _), members in groups.items():
            rows = runs[members]
            values = self.estimate(ep.n[rows[0]], ep.s[rows], u[rows]) @ self.actions.T  # (m, K)
            best = np.where(active[rows], values, -np.inf).max(axis=1, keepdims=True)
            active[rows] &= ~(best - values > 2.0 * 2.0**-ell)
            sets, which = np.unique(active[rows], axis=0, return_inverse=True)  # the runs' distinct active sets
            which, members = which.reshape(-1), np.asarray(members)
            for j, act in enumerate(sets):
                at = which == j
                todo[members[at]], eta[rows[at]] = self._schedule(ell + 1, act)
        return GOPEState(restart(ep, runs, todo), active, eta)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms}, d={self.dim}" + ("" if self.rho is None else f", rho={self.rho}") + ")"
