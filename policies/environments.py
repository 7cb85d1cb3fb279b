"""Bandit environments: stationary and piecewise-stationary means, Bernoulli / Gaussian / Pareto rewards,
optionally seen through a corruption (randomized response, or any monotone g).

An environment gives, for rounds t0 + 1 … t0 + length,

* ``means(t0, length)`` — (length, K) true mean rewards (the pseudo-regret is computed from these);
* ``noise(rng, runs, length)`` — (runs, length, m) the round's randomness, m numbers per (run, round);
* ``feedback(noise, means, arms)`` — what the pulled arms return, given that round's noise (runs, m) and
  the pulled arms' means: an inverse-CDF transform, so every arm would answer from the same noise.  Only
  one arm is observed per round, so coupling the arms within a round changes no observable distribution,
  while every policy of a comparison sees the same noise (common random numbers) and no runs × T × K
  array is ever held.

Piecewise-stationary means (Gajane, AAAI 2023): L segments with equally spaced change points, the first
segment starting at t = 1.  Corrupt feedback of a Bernoulli reward R through randomized response
(p00, p11): F = R w.p. p_RR, flipped otherwise, so E[F] = g(μ) = 1 − p00 + (p00 + p11 − 1)μ; through a
non-affine monotone g the feedback is Bernoulli(g(μ)) directly.  Pareto rewards (heavy tails): classical
Pareto with shape α (3 by default) and scale x_m = μ(α − 1)/α so that the mean is μ; u = E|X|^(1+ν) =
α x_m^(1+ν)/(α − 1 − ν) is computed (:meth:`Pareto.moment`), not assumed.

A *contextual* environment (``contextual = True``, :class:`LinearContextual`) draws a fresh action set per run
and round: ``contexts(noise)`` gives the (runs, K, d) actions of that round from its noise, and the means are
then per run, ``contexts @ θ*``; the simulator passes the action set to the policy.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument, check_real

from .corruption import Corruption

__all__ = [
    "Schedule",
    "Bernoulli",
    "Gaussian",
    "Pareto",
    "Linear",
    "LinearContextual",
    "parse_means",
    "alternating_schedule",
    "unit_sphere",
]


class Schedule:
    """Means per segment (L, K) with equally spaced change points over ``horizon``."""

    def __init__(self, segments, horizon: int | None = None):
        seg = np.atleast_2d(np.asarray(segments, dtype=float))
        if seg.ndim != 2 or seg.shape[1] < 2:
            raise InvalidArgument("means must give at least 2 arms")
        if not np.all(np.isfinite(seg)):
            raise InvalidArgument("means must be finite numbers")
        self.segments = seg
        self.horizon = horizon
        if seg.shape[0] > 1 and horizon is None:
            raise InvalidArgument("a piecewise-stationary schedule needs the horizon")

    @property
    def n_arms(self) -> int:
        return self.segments.shape[1]

    @property
    def n_segments(self) -> int:
        return self.segments.shape[0]

    def segment_of(self, t: np.ndarray) -> np.ndarray:
        """Segment of round t (1-based): ⌊(t − 1)·L/T⌋."""
        if self.n_segments == 1:
            return np.zeros_like(t)
        return np.minimum((t - 1) * self.n_segments // self.horizon, self.n_segments - 1)

    def means(self, t0: int, length: int) -> np.ndarray:
        return self.segments[self.segment_of(np.arange(t0 + 1, t0 + length + 1))]


def parse_means(text: str) -> np.ndarray:
    """``0.9,0.8x9`` → 10 arms; segments separated by ``;`` (each with the same number of arms)."""
    if not text or not text.strip():
        raise InvalidArgument("means= must not be empty")
    rows = []
    for seg in text.split(";"):
        row = []
        for item in seg.split(","):
            item = item.strip()
            if not item:
                raise InvalidArgument(f"means={text!r} has an empty entry")
            value, _, count = item.partition("x")
            try:
                v = float(value)
                n = int(count) if count else 1
            except ValueError:
                raise InvalidArgument(f"means= entry {item!r} must be a number or NUMBERxCOUNT") from None
            if n < 1:
                raise InvalidArgument(f"means= entry {item!r} repeats a value {n} times")
            row += [v] * n
        rows.append(row)
    if len({len(r) for r in rows}) != 1:
        raise InvalidArgument(f"means={text!r}: every segment must list the same number of arms")
    return np.array(rows)


def alternating_schedule(n_arms: int, n_segments: int) -> np.ndarray:
    """L segments in which the best arm changes at every change point: arm (i mod K) has mean 0.9 in segment
    i, the others evenly spaced in [0.1, 0.5]."""
    others = np.linspace(0.1, 0.5, n_arms - 1)
    seg = np.empty((n_segments, n_arms))
    for i in range(n_segments):
        best = i % n_arms
        seg[i] = np.insert(others, best, 0.9)
    return seg


class _Env:
    corruption: Corruption

    def __init__(self, schedule: Schedule, corruption: Corruption | None):
        self.schedule = schedule
        self.n_arms = schedule.n_arms
        self.corruption = corruption or Corruption.identity(self.n_arms)
        if self.corruption.n_arms != self.n_arms:
            raise InvalidArgument(f"the corruption has {self.corruption.n_arms} arms, the means {self.n_arms}")

    def means(self, t0: int, length: int) -> np.ndarray:
        return self.schedule.means(t0, length)


class Bernoulli(_Env):
    """Bernoulli rewards with the schedule's means, seen through ``corruption`` (identity by default)."""

    name = "bernoulli"

    def __init__(self, schedule: Schedule, corruption: Corruption | None = None):
        seg = schedule.segments
        if np.any(seg < 0) or np.any(seg > 1):
            raise InvalidArgument(f"Bernoulli means must lie in [0, 1] (got {seg.ravel().tolist()})")
        super().__init__(schedule, corruption)

    def noise(self, rng: np.random.Generator, runs: int, length: int) -> np.ndarray:
        return rng.random((runs, length, 2))

    def feedback(self, noise, mean, arms) -> np.ndarray:
        c = self.corruption
        reward = noise[:, 0] < mean
        if c.is_identity:
            return reward.astype(float)
        if c.is_affine:  # randomized response on the reward: P[F = 1 | R] = g(R)
            return (noise[:, 1] < np.where(reward, c.g1[arms], c.g0[arms])).astype(float)
        lam = np.array([float(c.functions[a](m)) for a, m in zip(arms.tolist(), np.atleast_1d(mean).tolist())])
        return (noise[:, 1] < lam).astype(float)


class Gaussian(_Env):
    """N(μ, σ²) rewards (uncorrupted)."""

    name = "gaussian"

    def __init__(self, schedule: Schedule, sigma: float = 1.0):
        super().__init__(schedule, None)
        self.sigma = check_real("sigma", sigma, lower=0.0, lower_open=True)

    def noise(self, rng, runs, length):
        return rng.standard_normal((runs, length, 1))

    def feedback(self, noise, mean, arms):
        return mean + self.sigma * noise[:, 0]


class Pareto(_Env):
    """Classical Pareto rewards with shape α and the scale that gives each mean (means must be > 0)."""

    name = "pareto"

    def __init__(self, schedule: Schedule, shape: float = 3.0):
        super().__init__(schedule, None)
        self.shape = check_real("shape", shape, lower=1.0, lower_open=True)
        if np.any(schedule.segments <= 0):
            raise InvalidArgument("Pareto means must be > 0")

    def scale(self, means):
        return np.asarray(means) * (self.shape - 1) / self.shape

    def moment(self, nu: float) -> np.ndarray:
        """u = E|X|^(1+ν) per arm (first segment): α x_m^(1+ν)/(α − 1 − ν), finite iff ν < α − 1."""
        nu = check_real("nu", nu, lower=0.0, upper=1.0, lower_open=True)
        if nu >= self.shape - 1:
            raise InvalidArgument(f"E|X|^(1+ν) is infinite for ν={nu} >= α − 1 = {self.shape - 1}")
        xm = self.scale(self.schedule.segments[0])
        return self.shape * xm ** (1 + nu) / (self.shape - 1 - nu)

    def noise(self, rng, runs, length):
        return 1.0 - rng.random((runs, length, 1))  # in (0, 1]

    def feedback(self, noise, mean, arms):
        return self.scale(mean) * noise[:, 0] ** (-1.0 / self.shape)


def unit_sphere(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """n points drawn uniformly on the unit sphere of R^d."""
    x = rng.standard_normal((n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


class Linear(Gaussian):
    """A linear bandit: K fixed actions a_k ∈ R^d, reward ⟨θ*, a_k⟩ + N(0, σ²).  :meth:`random` draws the
    actions and θ* on the unit sphere (the experiments of Azize & Basu)."""

    name = "linear"

    def __init__(self, actions, theta, sigma: float = 1.0):
        A = np.asarray(actions, dtype=float)
        th = np.asarray(theta, dtype=float)
        if A.ndim != 2 or th.shape != (A.shape[1],) or not (np.isfinite(A).all() and np.isfinite(th).all()):
            raise InvalidArgument("a linear bandit needs finite actions (K, d) and θ* of length d")
        self.actions, self.theta = A, th
        super().__init__(Schedule(A @ th), sigma)

    @property
    def dim(self) -> int:
        return self.actions.shape[1]

    @classmethod
    def random(cls, n_arms: int, dim: int, rng: np.random.Generator, sigma: float = 1.0) -> "Linear":
        if n_arms < 2 or dim < 1:
            raise InvalidArgument(f"a linear bandit needs >= 2 actions and dimension >= 1 (got {n_arms}, {dim})")
        return cls(unit_sphere(rng, n_arms, dim), unit_sphere(rng, 1, dim)[0], sigma)


class LinearContextual:
    """A linear contextual bandit: every round, each run faces K fresh actions a ~ N(c·1/√d, s² I_d) and the reward
    of a is ⟨θ*, a⟩ + N(0, σ²) — the experiments of Azize & Basu, "Concentrated Differential Privacy for Bandits"
    (§VI: c = 1, s² = 1/10, actions near the unit sphere).  :meth:`random` draws θ* on the unit sphere."""

    name = "linear-contextual"
    contextual = True

    def __init__(self, n_arms: int, theta, sigma: float = 1.0, centre: float = 1.0, spread: float = 0.1**0.5):
        th = np.asarray(theta, dtype=float)
        if th.ndim != 1 or th.size < 1 or not np.isfinite(th).all():
            raise InvalidArgument("θ* must be a finite vector")
        if isinstance(n_arms, bool) or not isinstance(n_arms, (int, np.integer)) or n_arms < 2:
            raise InvalidArgument(f"a contextual bandit needs an integer >= 2 actions per round (got {n_arms!r})")
        self.n_arms, self.dim, self.theta = int(n_arms), th.size, th
        self.sigma = check_real("sigma", sigma, lower=0.0, lower_open=True)
        self.centre = check_real("centre", centre) / np.sqrt(self.dim)
        self.spread = check_real("spread", spread, lower=0.0)

    @classmethod
    def random(cls, n_arms: int, dim: int, rng: np.random.Generator, sigma: float = 1.0) -> "LinearContextual":
        if dim < 1:
            raise InvalidArgument(f"a contextual bandit needs dimension >= 1 (got {dim})")
        return cls(n_arms, unit_sphere(rng, 1, dim)[0], sigma)

    def noise(self, rng: np.random.Generator, runs: int, length: int) -> np.ndarray:
        """K·d numbers for the action set, then one for the reward."""
        return rng.standard_normal((runs, length, self.n_arms * self.dim + 1))

    def contexts(self, noise) -> np.ndarray:
        """The round's action sets (runs, K, d) from its noise (runs, K·d + 1)."""
        return self.centre + self.spread * noise[:, :-1].reshape(-1, self.n_arms, self.dim)

    def feedback(self, noise, mean, arms) -> np.ndarray:
        return mean + self.sigma * noise[:, -1]
