"""Heavy-tailed bandits under central and local DP: DP Robust UCB, DP Robust SE and LDP Robust SE.

Tao, Wu, Zhao & Wang, "Optimal Rates of (Locally) Differentially Private Heavy-tailed Multi-Armed Bandits"
(Algorithms 1 and 3).  Rewards satisfy E|X|^(1+ν) ≤ u with ν ∈ (0, 1]; truncation x̃ = x·1{|x| ≤ B}
(:func:`mechanisms.truncate`) bounds what one reward can do.

* **DP Robust UCB** (Algorithm 1): pull every arm once, then a_t = argmax_a Ŝ_a/n_a +
  18 u^(1/(1+ν)) (ln(2t⁴) ln^(1.5+1/ν) T/(n_a ε))^(ν/(1+ν)).  Arm a's n-th reward is truncated at
  B_n = (ε u n/ln^1.5 T)^(1/(1+ν)) and inserted into arm a's tree-based counter; Ŝ_a is its private prefix
  sum.  Every block gets Lap(L·2B_T/ε) (:func:`mechanisms.tree.tree_noise_scale`; Δ = 2B_T, the largest bound
  a leaf can hold): ε-DP on streams that differ in one reward, hence on reward tables that differ in one row.
* **DP Robust SE** (Algorithm 3): phases τ = 1, 2, …, D_τ = 2^−τ, L_τ = ln(4|S|τ²/β) with S the arms still
  active, R_τ = ⌈u^(1/ν) 24^((1+ν)/ν) L_τ/(ε D_τ^((1+ν)/ν)) + 1⌉ pulls of each active arm (round-robin),
  truncation at B_τ = (u R_τ ε/L_τ)^(1/(1+ν)), μ̃_a = mean of the truncated rewards + Lap(2B_τ/(R_τ ε))
  (:class:`mechanisms.TruncatedMean`'s calibration), err_τ = u^(1/(1+ν)) (L_τ/(R_τ ε))^(ν/(1+ν)), and a is
  eliminated when μ̃_max − μ̃_a > 12 err_τ.  Each reward enters one arm's mean in one phase: ε-DP.
* **LDP Robust SE**: the same phases, but every reward is truncated at B_τ and perturbed by Lap(2B_τ/ε) on the
  user's side before the learner sees it (B_τ is public: it depends on τ and |S| only), so each report is
  ε-LDP.  The slides give no constants; the ones used here are derived as follows.  A report
  y = x̃ + Lap(b), b = 2B/ε, has bias |E y − μ| ≤ u/B^ν, variance ≤ u B^(1−ν) + 2b² =: v, and is
  sub-exponential with scale B + b; Bernstein's inequality for the mean of R reports gives, with probability
  ≥ 1 − 2e^(−L), the half-width

      w(R, B) = u/B^ν + √(2vL/R) + 2(B + b)L/R.

  B_τ = (u ε √(R/(8L)))^(1/(1+ν)) balances the bias against the Laplace term, and R_τ is the smallest R with
  w ≤ D_τ/4; a is eliminated when μ̃_max − μ̃_a > 2w.  This is the (Rε²)^(−ν/(2(1+ν))) rate of truncation +
  Laplace, which is the known minimax rate of ε-LDP mean estimation under a (1+ν)-th moment bound (Duchi,
  Jordan & Wainwright 2018) — not the faster rate stated on the slides, which later work disputes.

The published constants (18 in the UCB index, 24 in R_τ) make the phases enormous — DP Robust SE's first phase
alone is about 10⁶ pulls per arm at ν = 0.5, ε = 0.5 — so every policy takes ``width_scale`` s (default 1, the
published/derived constants): each confidence width is multiplied by s (18 → 18s; DP SE's 24 → 24s, i.e.
R_τ computed with 24s and elimination at 12·s·err_τ; LDP SE's R_τ the smallest R with s·w ≤ D_τ/4 and
elimination at 2·s·w).  s < 1 voids the regret guarantees, never the privacy: privacy does not depend on the
widths.

* **Robust SE** (``robust-se``), the non-private twin both SE variants are compared with: the same phases,
  round-robin and elimination, the truncated mean without noise.  With the threshold B_τ = (u R_τ/L_τ)^(1/(1+ν))
  the truncated mean of R i.i.d. rewards is within 4 u^(1/(1+ν)) (L/R)^(ν/(1+ν)) of μ with probability
  ≥ 1 − 2e^(−L) (bias ≤ u/B^ν plus Bernstein with variance ≤ u B^(1−ν) and deviations ≤ 2B give the constant
  1 + √2 + 2/3 < 4; 4 is the constant of Bubeck, Cesa-Bianchi & Lugosi, "Bandits with heavy tail", Lemma 1);
  R_τ is the smallest R with that width ≤ D_τ/4 (times s), and a is eliminated when μ̂_max − μ̂_a > 2·s·width.

* **Robust UCB** (``robust-ucb``), DP Robust UCB's non-private twin: the same index policy and truncation
  schedule with the exact sums (the same trees, no noise) — Bubeck, Cesa-Bianchi & Lugosi's robust UCB with the
  truncated mean at a fixed confidence level δ = T^(−2): the n-th reward of an arm truncated at
  B_n = (u n/(2 ln T))^(1/(1+ν)) and the index μ̂ + 4 u^(1/(1+ν)) (2 ln T/n)^(ν/(1+ν)) (times s).  Their
  anytime version re-truncates every past reward as t grows; the fixed level keeps one running sum per arm,
  as DP Robust UCB does, so the two differ only in what privacy adds (noise, ε in B_n and the wider index).

Every noisy value is released on a grid with exact integer noise (Mironov's attack on floating-point Laplace
noise does not apply): DP Robust UCB's trees are :class:`mechanisms.GridTreeCounter` at ε/m (elements rounded to
its grid, each block's noise an exact discrete Laplace draw), and each SE mean or LDP report is
:class:`mechanisms.keyed_noise.GridLaplaceRelease` — the lattice of :class:`mechanisms.GridTruncatedMean`, the
LDP audit's report randomizer.  The draws are keyed by the update's uniforms (see :mod:`mechanisms.keyed_noise`).

All SE variants play the last active arm for ever.  Under an interactive audit they credit the observed
reward to the arm they scheduled.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from privcheck.mechanisms import GridTreeCounter, GridTruncatedMean, truncate
from privcheck.mechanisms.keyed_noise import (
    KEY_UNIFORMS,
    keyed_discrete_laplace,
    keys_from_uniforms,
    laplace_release,
    release_each,
)
from privcheck.mechanisms.tree import StreamingTrees, grid_tree_insert, init_trees, tree_insert, tree_means_plus_power
from privcheck.mechanisms.truncation import mean_sensitivity
from privcheck.core import InvalidArgument, PureDP, TableNeighbours, check_int, check_real

from .base import check_arms, check_noise_multiplier, check_runs, choose, extreme_table
from .episodes import Episodes, FOREVER, init_episodes, next_arms, planned_arms, record, record_block, restart

__all__ = [
    "DPRobustUCB",
    "NonPrivateRobustUCB",
    "RobustSE",
    "NonPrivateRobustSE",
    "DPRobustSE",
    "LDPRobustSE",
    "check_nu",
]


def check_nu(nu) -> float:
    return check_real("nu", nu, lower=0.0, upper=1.0, lower_open=True)


def _set_common(policy, n_arms, epsilon, nu, u, width_scale, noise_multiplier=1.0) -> None:
    """The checked parameters every heavy-tailed policy has; ``epsilon=None`` makes the non-private twin."""
    policy.n_arms = check_arms(n_arms)
    policy.noise_multiplier = check_noise_multiplier(noise_multiplier)
    policy.width_scale = check_real("width_scale", width_scale, lower=0.0, lower_open=True)
    policy.private = epsilon is not None
    policy.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True) if policy.private else None
    policy.nu = check_nu(nu)
    policy.u = check_real("u", u, lower=0.0, lower_open=True)
    policy.reward_domain = (-math.inf, math.inf)  # private for any real reward: the truncation bounds each one's say


def _check_horizon(horizon) -> int:
    return check_int("horizon", horizon, 2)


class DPRobustUCB:
    """Algorithm 1 of Tao et al. (see the module docstring); ε-DP on reward tables differing in one row.  With
    ``epsilon=None`` its non-private twin ``robust-ucb`` (see the module docstring)."""

    n_uniforms = 1  # ties

    def __init__(
        self,
        n_arms: int,
        epsilon: float | None,
        nu: float,
        u: float,
        horizon: int,
        width_scale: float = 1.0,
        noise_multiplier: float = 1.0,
    ):
        _set_common(self, n_arms, epsilon, nu, u, width_scale, noise_multiplier)
        self.horizon = _check_horizon(horizon)
        self._log = math.log(self.horizon)
        self.n_update_uniforms = KEY_UNIFORMS if self.private else 0  # the key of the closed block's noise
        self.counter = None
        self.noise_scale = 0.0
        #: B_1..B_T: an arm's n-th reward is truncated at B_n (looked up every round)
        self.bounds = self.bound(np.arange(1, self.horizon + 1))
        if self.private:  # each arm's tree is the grid tree counter at ε/m (m the noise multiplier)
            self.counter = GridTreeCounter(self.epsilon / self.noise_multiplier, self.horizon, bounds=self.bounds)
            self.noise_scale = self.counter.scale
        c = 18.0 if self.private else 4.0
        self._width = c * self.width_scale * self.u ** (1.0 / (1.0 + self.nu))
        self._power = self.nu / (1.0 + self.nu)
        self.name = "dp-robust-ucb" if self.private else "robust-ucb"
        self.claim = PureDP(self.epsilon, TableNeighbours()) if self.private else None
        self.definition = "table" if self.private else None

    def bound(self, n):
        """B_n = (ε u n/ln^1.5 T)^(1/(1+ν)); non-private: (u n/(2 ln T))^(1/(1+ν))."""
        level = self.epsilon / self._log**1.5 if self.private else 1.0 / (2.0 * self._log)
        return (level * self.u * np.asarray(n, dtype=float)) ** (1.0 / (1.0 + self.nu))

    def audit_table(self, horizon: int) -> np.ndarray:
        """Arm 0's rewards at +B and the others' at −B, B at row t the truncation bound B_⌈t/K⌉: an arm pulled about
        once in K rounds keeps them whole, and a neighbour moves its sum by 2B_n — more than 2B_1 the later the row,
        while the tree's noise is calibrated to B_T throughout (a table at ±B_1 shows less of the release: at
        a tenth of the noise, T = 8, ε ≥ 0.95 where this one certifies 1.02–1.07, seeds 1–3)."""
        rows = np.arange(1, int(horizon) + 1)
        b = np.asarray(self.bound(-(-rows // self.n_arms)), dtype=float)
        table = np.repeat(-b[:, None], self.n_arms, axis=1)
        table[:, 0] = b
        return table

    def first_release(self) -> float:
        """The round at whose end the private sums first decide an action: K (every arm is pulled once first)."""
        return float(self.n_arms)

    def init(self, runs: int) -> StreamingTrees:
        return init_trees(check_runs(runs), self.n_arms, self.horizon)

    def release_mechanism(self):
        """What one arm's tree releases over T insertions: the :class:`mechanisms.GridTreeCounter` this policy
        inserts into — its truncation bounds B_1..B_T, grid and noise steps."""
        if not self.private:
            raise InvalidArgument("robust-ucb releases its sums without noise: it has no privacy to audit")
        return self.counter

    def indices(self, state: StreamingTrees, t: int) -> np.ndarray:
        if self.private:
            level = math.log(2.0 * float(t) ** 4) * self._log ** (1.5 + 1.0 / self.nu) / self.epsilon
        else:
            level = 2.0 * self._log
        return tree_means_plus_power(state, self._width, level, self._power)  # mean + width·(level/n)^power

    def act(self, state: StreamingTrees, t: int, u) -> np.ndarray:
        return choose(self.indices(state, t), u)

    def update(self, state: StreamingTrees, t: int, arms, feedback, u) -> StreamingTrees:
        arms = np.asarray(arms, dtype=np.int64)
        if self.private:  # the element truncated and on the counter's grid, its block's noise exact on the grid
            steps = keyed_discrete_laplace(keys_from_uniforms(u), 0, self.counter.t)
            return grid_tree_insert(state, arms, feedback, self.bounds, self.counter.grid, steps)
        n = state.count[np.arange(arms.size), arms]  # exact sums: the same trees without noise
        x = truncate(feedback, self.bounds[np.minimum(n, self.horizon - 1)])  # a full tree refuses the insert
        return tree_insert(state, arms, x, np.zeros(arms.size))

    def __repr__(self):
        return f"{self.name}(K={self.n_arms}, epsilon={self.epsilon}, nu={self.nu}, u={self.u:.4g})"


def NonPrivateRobustUCB(n_arms: int, nu: float, u: float, horizon: int, width_scale: float = 1.0) -> DPRobustUCB:
    return DPRobustUCB(n_arms, None, nu, u, horizon, width_scale)


class SEState(NamedTuple):
    ep: Episodes
    active: np.ndarray  # (runs, K) bool
    bound: np.ndarray  # (runs,) B_τ of the current phase


class RobustSE:
    """Successive elimination for heavy tails: central (``local=False``) or local (``local=True``) ε-DP, or
    with ``epsilon=None`` the non-private twin (``robust-se``): the same phases and round-robin, truncated means
    without noise."""

    n_uniforms = 0

    def __init__(
        self,
        n_arms: int,
        epsilon: float | None,
        nu: float,
        u: float,
        beta: float = 0.05,
        local: bool = False,
        width_scale: float = 1.0,
        noise_multiplier: float = 1.0,
    ):
        _set_common(self, n_arms, epsilon, nu, u, width_scale, noise_multiplier)
        self.beta = check_real("beta", beta, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
        self.local = bool(local)
        if self.local and not self.private:
            raise InvalidArgument("local=True needs the ε of the reports")
        self.n_update_uniforms = KEY_UNIFORMS if self.private else 0  # the key of the reports' or means' noise
        self._phases: dict = {}
        self.name = "ldp-robust-se" if self.local else "dp-robust-se" if self.private else "robust-se"
        self.claim = PureDP(self.epsilon, TableNeighbours()) if self.private else None
        self.definition = ("local" if self.local else "table") if self.private else None

    # ------------------------------------------------------------------------------------- phase constants
    def _level(self, tau: int, active: int) -> float:
        return math.log(4.0 * active * tau * tau / self.beta)

    def phase(self, tau: int, active: int) -> tuple[int, float, float]:
        """(R_τ, B_τ, elimination gap) for phase τ with ``active`` arms: public, computed once per (τ, |S|)."""
        key = (tau, active)
        if key not in self._phases:
            self._phases[key] = self._new_phase(tau, active)
        return self._phases[key]

    def _new_phase(self, tau: int, active: int) -> tuple[int, float, float]:
        e, nu, u, L, D, sc = self.epsilon, self.nu, self.u, self._level(tau, active), 2.0**-tau, self.width_scale
        if not self.private:  # the smallest R with 4 s·u^(1/(1+ν)) (L/R)^(ν/(1+ν)) <= D/4
            R = math.ceil(u ** (1 / nu) * (16.0 * sc) ** ((1 + nu) / nu) * L / D ** ((1 + nu) / nu))
            err = 4.0 * u ** (1 / (1 + nu)) * (L / R) ** (nu / (1 + nu))
            return R, (u * R / L) ** (1 / (1 + nu)), 2.0 * sc * err
        if not self.local:
            R = math.ceil(u ** (1 / nu) * (24.0 * sc) ** ((1 + nu) / nu) * L / (e * D ** ((1 + nu) / nu)) + 1)
            B = (u * R * e / L) ** (1 / (1 + nu))
            err = u ** (1 / (1 + nu)) * (L / (R * e)) ** (nu / (1 + nu))
            return R, B, 12.0 * sc * err
        lo, hi = 1, 2
        while sc * self._width(hi, L) > D / 4:
            lo, hi = hi, 2 * hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if sc * self._width(mid, L) <= D / 4 else (mid, hi)
        R = hi
        return R, self._local_bound(R, L), 2.0 * sc * self._width(R, L)

    def _local_bound(self, R: int, L: float) -> float:
        return (self.u * self.epsilon * math.sqrt(R / (8.0 * L))) ** (1 / (1 + self.nu))

    def _width(self, R: int, L: float) -> float:
        B = self._local_bound(R, L)
        b = 2.0 * B / self.epsilon
        v = self.u * B ** (1 - self.nu) + 2.0 * b * b
        return self.u / B**self.nu + math.sqrt(2.0 * v * L / R) + 2.0 * (B + b) * L / R

    def noise_scale(self, R: int, B: float) -> float:
        """The Laplace scale of a mean of R rewards truncated at B (a user's report: R = 1): 2B/(Rε), the
        sensitivity of the mean over ε, times the noise multiplier — on the grid, a whole number of steps."""
        return self.mean_release(R, B).scale

    def audit_table(self, horizon: int) -> np.ndarray:
        """Rewards at ±B_1, phase 1's truncation bound: a neighbour moves an arm's phase-1 mean by 2B_1/R_1,
        the sensitivity its noise is calibrated to."""
        return extreme_table(horizon, self.n_arms, self.phase(1, self.n_arms)[1])

    def first_release(self) -> float:
        """The round at whose end the first noisy means are used — the end of phase 1 (K·R_1 pulls), public."""
        return float(self.n_arms * self.phase(1, self.n_arms)[0])

    def report_mechanism(self, tau: int = 1) -> GridTruncatedMean:
        """The per-report randomizer of LDP Robust SE in phase τ (all arms active): one truncated record on the
        grid plus exact discrete Laplace noise of scale 2B_τ/ε — a :class:`mechanisms.GridTruncatedMean` over
        R = 1 record (with the noise multiplier m, the one calibrated to ε/m: the noise this policy adds)."""
        return GridTruncatedMean(self.epsilon / self.noise_multiplier, self.phase(tau, self.n_arms)[1])

    def mean_release(self, R: int, B: float):
        """The grid Laplace release of a mean of R records truncated at B, at ε/m (a report: R = 1)."""
        return laplace_release(mean_sensitivity(B, R), self.epsilon / self.noise_multiplier)

    # ----------------------------------------------------------------------------------------- protocol
    def init(self, runs: int) -> SEState:
        runs = check_runs(runs)
        R, B, _ = self.phase(1, self.n_arms)
        return SEState(init_episodes(runs, self.n_arms, R), np.ones((runs, self.n_arms), dtype=bool), np.full(runs, B))

    def act(self, state: SEState, t: int, u=None) -> np.ndarray:
        return next_arms(state.ep)

    def steady(self, state: SEState, t: int, most: int) -> np.ndarray:
        """The arms of the next rounds of the phase, up to the last pull of the first phase to end."""
        return planned_arms(state.ep, most)

    def accumulate(self, state: SEState, t: int, arms, feedback, u=None) -> SEState:
        """The state after a :meth:`steady` block: its rewards truncated — and in the local form each released as
        its user's report, from that round's uniforms — and summed, as :meth:`update` does round by round."""
        x = truncate(feedback, state.bound[:, None])
        if self.local:
            runs, L = x.shape
            keys = keys_from_uniforms(np.asarray(u).transpose(1, 0, 2).reshape(runs * L, -1))  # run-major, as x
            x = release_each(x.ravel(), np.repeat(state.bound, L), keys, 0, lambda B: self.mean_release(1, B)).reshape(
                runs, L
            )
        return SEState(record_block(state.ep, x), state.active, state.bound)

    def update(self, state: SEState, t: int, arms, feedback, u) -> SEState:
        x = truncate(feedback, state.bound)
        if self.local:  # the user's side: the learner never sees x, only its grid release
            x = release_each(x, state.bound, keys_from_uniforms(u), 0, lambda B: self.mean_release(1, B))
        ep, ended = record(state.ep, x)
        if not ended.any():
            return SEState(ep, state.active, state.bound)
        runs = np.flatnonzero(ended)
        active, bound = state.active.copy(), state.bound.copy()
        todo = np.zeros((runs.size, self.n_arms), dtype=np.int64)
        phases = [(int(ep.number[r]), int(active[r].sum())) for r in runs]
        means = ep.s[runs] / np.array([self.phase(*p)[0] for p in phases], dtype=float)[:, None]
        if self.private and not self.local:  # each run's K means released, the runs grouped by phase
            keys = np.repeat(keys_from_uniforms(np.asarray(u)[runs]), self.n_arms, axis=0)
            slots = np.tile(np.arange(self.n_arms), runs.size)
            distinct = sorted(set(phases))
            index = {p: j for j, p in enumerate(distinct)}
            which = np.repeat([index[p] for p in phases], self.n_arms)
            released = release_each(
                means.ravel(), which, keys, slots, lambda j: self.mean_release(*self.phase(*distinct[j])[:2])
            )
            means = released.reshape(means.shape)
        for i, r in enumerate(runs):
            act = active[r]
            tau, k = phases[i]
            R, B, gap = self.phase(tau, k)
            mean = np.where(act, means[i], -np.inf)
            act = act & ~(mean.max() - mean > gap)
            active[r] = act
            k = int(act.sum())
            if k == 1:
                todo[i, act] = FOREVER
            else:
                R, bound[r], _ = self.phase(tau + 1, k)
                todo[i, act] = R
        return SEState(restart(ep, runs, todo), active, bound)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms}, epsilon={self.epsilon}, nu={self.nu}, u={self.u:.4g})"


def NonPrivateRobustSE(n_arms: int, nu: float, u: float, beta: float = 0.05, width_scale: float = 1.0) -> RobustSE:
    return RobustSE(n_arms, None, nu, u, beta, width_scale=width_scale)


def DPRobustSE(
    n_arms: int,
    epsilon: float,
    nu: float,
    u: float,
    beta: float = 0.05,
    width_scale: float = 1.0,
    noise_multiplier: float = 1.0,
) -> RobustSE:
    return RobustSE(
        n_arms, epsilon, nu, u, beta, local=False, width_scale=width_scale, noise_multiplier=noise_multiplier
    )


def LDPRobustSE(
    n_arms: int,
    epsilon: float,
    nu: float,
    u: float,
    beta: float = 0.05,
    width_scale: float = 1.0,
    noise_multiplier: float = 1.0,
) -> RobustSE:
    return RobustSE(
        n_arms, epsilon, nu, u, beta, local=True, width_scale=width_scale, noise_multiplier=noise_multiplier
    )
