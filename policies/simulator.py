"""The vectorised simulator: many independent runs of a policy on an environment, in lockstep.

Randomness (all from one seed, so an experiment is reproducible and policies compared on one seed see the
same draws): the environment noise of time block b (32 rounds) for run chunk c (4096 runs) comes from
``chunk_generator(seed, 0, c, b)`` and the policy's uniforms (those of ``act`` then those of ``update``,
per round) from ``chunk_generator(seed, 1, c, b)``.  The first runs of an experiment are therefore the same
whatever the number of runs, and each run chunk is a pure task (:func:`simulate_chunk`): :func:`experiment` runs
the chunks of every policy on an executor (this process, ``workers`` processes or a Dask cluster) and
reduces what they send back (:class:`Moments`), so its summaries do not depend on where the chunks ran.

A contextual environment's action sets come from its noise and reach the policy as a fourth argument of
``act`` and a sixth of ``update`` (only policies with ``contextual = True`` accept them).

Regret is the pseudo-regret Σ_t (max_a μ_a(t) − μ_{a_t}(t)), recorded per run at up to 200 log-spaced
checkpoints (always including T).

Index policies on Bernoulli environments run each time block in one call of a compiled loop
(:mod:`policies.fastloop`), with the same draws and arithmetic as the policy's own ``act``/``update``.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from privcheck.core import InvalidArgument, chunk_generator
from privcheck.core.jit import njit
from privcheck.core.protocols import Contextual, Named, checked_actions, provides
from privcheck.core.execution import Serial, plan
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_time, time_probe
from privcheck.core.sequential import SequentialPolicy
from privcheck.core.targets import resolve

from .base import check_runs, update_uniforms
from .fastloop import block_runner


def _contextual(obj) -> bool:
    """Whether an environment draws (or a policy takes) a fresh action set each round."""
    return provides(obj, Contextual) and bool(obj.contextual)


def _name(policy) -> str:
    return policy.name if provides(policy, Named) else type(policy).__name__


__all__ = [
    "simulate",
    "simulate_chunk",
    "experiment",
    "Moments",
    "SimulationResult",
    "checkpoints",
    "TIME_BLOCK",
    "RUN_CHUNK",
]

TIME_BLOCK = 32
RUN_CHUNK = 4096
_FEEDBACK, _UNIFORMS = 0, 1


def checkpoints(horizon: int, n: int = 200) -> np.ndarray:
    pts = np.unique(np.round(np.logspace(0, np.log10(horizon), n)).astype(np.int64))
    return np.unique(np.append(pts[pts <= horizon], horizon))


@dataclass
class Moments:
    """What a chunk of runs sends back: per checkpoint, the number of runs, the mean regret and the sum of squared
    deviations from it; and the pulls of each arm summed over the runs.  Chunks merge exactly in chunk order
    (the pairwise update of Chan, Golub and LeVeque), which is the same arithmetic whichever executor ran them;
    shipping the centred sum of squares instead of the raw one avoids cancellation when the regret is large
    and its spread small."""

    n: int
    mean: np.ndarray
    m2: np.ndarray
    pulls: np.ndarray

    @classmethod
    def of(cls, regret: np.ndarray, pulls: np.ndarray) -> "Moments":
        mean = regret.mean(axis=1)
        return cls(regret.shape[1], mean, ((regret - mean[:, None]) ** 2).sum(axis=1), pulls.sum(axis=0))

    def merge(self, other: "Moments") -> "Moments":
        n = self.n + other.n
        d = other.mean - self.mean
        return Moments(
            n,
            self.mean + d * (other.n / n),
            self.m2 + other.m2 + d * d * (self.n * other.n / n),
            self.pulls + other.pulls,
        )

    def summary(self, t: np.ndarray) -> dict:
        se = np.sqrt(self.m2 / (self.n - 1) / self.n) if self.n > 1 else np.zeros_like(self.mean)
        return {
            "final_regret": float(self.mean[-1]),
            "stderr": float(se[-1]),
            "pulls": (self.pulls / self.n).tolist(),
            "curve": {"t": t.tolist(), "mean": self.mean.tolist(), "stderr": se.tolist()},
        }


def _merged(parts) -> Moments:
    out = parts[0]
    for p in parts[1:]:
        out = out.merge(p)
    return out


@dataclass
class SimulationResult:
    policy: str
    horizon: int
    runs: int
    t: np.ndarray  # checkpoints
    regret: np.ndarray  # (len(t), runs) cumulative pseudo-regret
    pulls: np.ndarray  # (runs, K)

    @property
    def final(self) -> np.ndarray:
        return self.regret[-1]

    def summary(self) -> dict:
        """Mean and standard error per checkpoint, reduced chunk by chunk as :func:`experiment` does."""
        parts = [
            Moments.of(self.regret[:, c : c + RUN_CHUNK], self.pulls[c : c + RUN_CHUNK])
            for c in range(0, self.runs, RUN_CHUNK)
        ]
        return _merged(parts).summary(self.t)


@njit(cache=True)
def _record(regret, pulls, gap, arms):
    for r in range(arms.size):
        regret[r] += gap[arms[r]]
        pulls[r, arms[r]] += 1


def _check(env, policy, horizon, runs) -> tuple[int, int]:
    runs = check_runs(runs)
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < env.n_arms:
        raise InvalidArgument(f"horizon={horizon!r} must be an integer >= the number of arms ({env.n_arms})")
    if policy.n_arms != env.n_arms:
        raise InvalidArgument(f"the policy has {policy.n_arms} arms, the environment {env.n_arms}")
    if _contextual(env) and not _contextual(policy):
        raise InvalidArgument(f"{_name(policy)!r} does not take a fresh action set each round")
    return int(horizon), runs


def _chunks(runs: int) -> list[tuple[int, int]]:
    """(index, runs) of each run chunk."""
    return [(c, min(RUN_CHUNK, runs - c * RUN_CHUNK)) for c in range((runs + RUN_CHUNK - 1) // RUN_CHUNK)]


def simulate_chunk(env, policy, horizon: int, seed: int, chunk: int, runs: int, progress=None):
    """Run chunk ``chunk`` (``runs`` runs) of an experiment: (regret at the checkpoints (len(t), runs), pulls
    (runs, K)).  A pure function of its arguments; ``env`` and ``policy`` may be descriptions."""
    env, policy = resolve(env), resolve(policy)
    contextual = _contextual(env)
    rows = np.arange(runs)
    cps = checkpoints(horizon)  # int64
    rec = np.empty((cps.size, runs))
    j = 0
    state = policy.init(runs)
    regret = np.zeros(runs)
    pulls = np.zeros((runs, env.n_arms), dtype=np.int64)
    nu, nup = policy.n_uniforms, update_uniforms(policy)
    fused = block_runner(env, policy, runs)  # the compiled loop, where it applies (never contextual)
    name = _name(policy)
    for b, t0 in enumerate(range(0, horizon, TIME_BLOCK)):
        length = min(TIME_BLOCK, horizon - t0)
        noise = env.noise(chunk_generator(seed, _FEEDBACK, chunk, b), runs, length)
        uni = chunk_generator(seed, _UNIFORMS, chunk, b).random((runs, length, nu + nup))
        if not contextual:
            mu = env.means(t0, length)
            gap = mu.max(axis=1, keepdims=True) - mu  # (length, K)
        if fused is not None:
            j = fused(state, t0, noise, uni, mu, gap, regret, pulls, cps, rec, j)
        else:
            # a policy written one object per run: its batch's global generators swapped once for the block
            with policy.held(state) if isinstance(policy, SequentialPolicy) else nullcontext():
                for i in range(length):
                    t = t0 + i + 1
                    if contextual:  # a fresh action set per run: means and gaps per run
                        ctx = env.contexts(noise[:, i])
                        means = ctx @ env.theta  # (runs, K)
                        arms = checked_actions(
                            policy.act(state, t, uni[:, i, :nu], ctx), runs, env.n_arms, name, policy
                        )
                        mean = means[rows, arms]
                        fb = env.feedback(noise[:, i], mean, arms)
                        state = policy.update(state, t, arms, fb, uni[:, i, nu:], ctx)
                        regret += means.max(axis=1) - mean
                        pulls[rows, arms] += 1
                    else:
                        arms = checked_actions(policy.act(state, t, uni[:, i, :nu]), runs, env.n_arms, name, policy)
                        fb = env.feedback(noise[:, i], mu[i, arms], arms)
                        state = policy.update(state, t, arms, fb, uni[:, i, nu:])
                        _record(regret, pulls, gap[i], arms)
                    if t == cps[j]:
                        rec[j] = regret
                        j += 1
        if progress:
            progress(length * runs)
    return rec, pulls


def simulate(env, policy, horizon: int, runs: int, seed: int, progress=None) -> SimulationResult:
    """Run ``policy`` for ``horizon`` rounds on ``runs`` independent copies of ``env``, in this process, keeping
    every run's curve.  ``progress(n)`` is told of every n run-rounds done."""
    horizon, runs = _check(env, policy, horizon, runs)
    parts = [simulate_chunk(env, policy, horizon, seed, c, n, progress) for c, n in _chunks(runs)]
    rec = np.concatenate([p[0] for p in parts], axis=1)
    pulls = np.concatenate([p[1] for p in parts])
    return SimulationResult(_name(policy), horizon, runs, checkpoints(horizon), rec, pulls)


def _chunk_moments(env, policy, horizon, seed, chunk, runs, progress=None) -> Moments:
    return Moments.of(*simulate_chunk(env, policy, horizon, seed, chunk, runs, progress))


def plan_experiment(
    env, policies: dict, horizon: int, runs: int, workers: int = 1, max_hours: float = DEFAULT_MAX_HOURS
) -> float:
    """The experiment's estimated seconds: each policy timed on a short stretch (at most 256 rounds of at most
    :data:`RUN_CHUNK` runs, after one untimed block that pays the start-up), scaled to the horizon and the runs;
    refused beyond ``max_hours``."""
    seconds = 0.0
    for pol in policies.values():
        pol = resolve(pol)
        r, t = min(runs, RUN_CHUNK), min(horizon, 256)
        simulate_chunk(env, pol, min(horizon, TIME_BLOCK), 0, 0, r)
        _, took = time_probe(simulate_chunk, env, pol, t, 0, 0, r)
        seconds += took / (r * t) * horizon * runs
    seconds /= max(1, min(workers, len(policies) * len(_chunks(runs))))
    check_time(
        seconds,
        f"{len(policies)} policies for {runs:,} runs of {horizon:,} rounds",
        "fewer runs, or a smaller horizon",
        max_hours,
    )
    return seconds


def experiment(
    env,
    policies: dict,
    horizon: int,
    runs: int,
    seed: int,
    executor=None,
    progress=None,
    max_hours: float = DEFAULT_MAX_HOURS,
) -> dict:
    """``{name: summary}`` for each policy of ``policies`` (name → policy, or a description of one), every run
    chunk of every policy a task on ``executor`` (default: this process) that sends back only its
    :class:`Moments`.  The summaries equal ``simulate(...).summary()`` and do not depend on the executor.
    ``progress(n)`` is told of every n run-rounds done, after the plan with its estimated time
    (:func:`plan_experiment`)."""
    env_obj = resolve(env)
    for pol in policies.values():
        horizon, runs = _check(env_obj, resolve(pol), horizon, runs)
    tasks = [(name, (env, pol, horizon, seed, c, n)) for name, pol in policies.items() for c, n in _chunks(runs)]
    executor = executor or Serial()
    seconds = plan_experiment(env_obj, policies, horizon, runs, executor.workers, max_hours)
    plan(progress, horizon * runs * len(policies), seconds=seconds)
    for pol in policies.values():
        executor.check(pol)
    if isinstance(executor, Serial):  # in this process, a chunk reports its rounds as they go (one long run too)
        moments = [_chunk_moments(*t, progress=progress) for _, t in tasks]
    else:
        moments = executor.map(_chunk_moments, [t for _, t in tasks], [horizon * t[5] for _, t in tasks], progress)
    t = checkpoints(horizon)
    return {name: _merged([m for (nm, _), m in zip(tasks, moments) if nm == name]).summary(t) for name in policies}
