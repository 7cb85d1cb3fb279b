"""The vectorised simulator: many independent runs of a policy on an environment, in lockstep.

Randomness (all from one seed, so an experiment is reproducible and policies compared on one seed see the
same draws): the environment noise of time block b (32 rounds) for run chunk c (4096 runs) comes from
``chunk_generator(seed, 0, c, b)`` and the policy's uniforms (those of ``act`` then those of ``update``,
per round) from ``chunk_generator(seed, 1, c, b)``.  The
first runs of an experiment are therefore the same whatever the number of runs.

A contextual environment's action sets come from its noise and reach the policy as a fourth argument of
``act`` and a sixth of ``update`` (only policies with ``contextual = True`` accept them).

Regret is the pseudo-regret Σ_t (max_a μ_a(t) − μ_{a_t}(t)), recorded per run at up to 200 log-spaced
checkpoints (always including T).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from privcheck.core import InvalidArgument, chunk_generator

from .base import check_runs, update_uniforms

__all__ = ["simulate", "SimulationResult", "checkpoints", "TIME_BLOCK", "RUN_CHUNK"]

TIME_BLOCK = 32
RUN_CHUNK = 4096
_FEEDBACK, _UNIFORMS = 0, 1


def checkpoints(horizon: int, n: int = 200) -> np.ndarray:
    pts = np.unique(np.round(np.logspace(0, np.log10(horizon), n)).astype(np.int64))
    return np.unique(np.append(pts[pts <= horizon], horizon))


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
        mean = self.regret.mean(axis=1)
        se = self.regret.std(axis=1, ddof=1) / np.sqrt(self.runs) if self.runs > 1 else np.zeros_like(mean)
        return {"final_regret": float(mean[-1]), "stderr": float(se[-1]),
                "pulls": self.pulls.mean(axis=0).tolist(),
                "curve": {"t": self.t.tolist(), "mean": mean.tolist(), "stderr": se.tolist()}}


@nb.njit(cache=True)
def _record(regret, pulls, gap, arms):
    for r in range(arms.size):
        regret[r] += gap[arms[r]]
        pulls[r, arms[r]] += 1


def _block(fn, seed, stream, runs, b, *args):
    parts = [fn(chunk_generator(seed, stream, c, b), min(RUN_CHUNK, runs - c * RUN_CHUNK), *args)
             for c in range((runs + RUN_CHUNK - 1) // RUN_CHUNK)]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def simulate(env, policy, horizon: int, runs: int, seed: int, progress=None) -> SimulationResult:
    """Run ``policy`` for ``horizon`` rounds on ``runs`` independent copies of ``env``."""
    runs = check_runs(runs)
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < env.n_arms:
        raise InvalidArgument(f"horizon={horizon!r} must be an integer >= the number of arms ({env.n_arms})")
    if policy.n_arms != env.n_arms:
        raise InvalidArgument(f"the policy has {policy.n_arms} arms, the environment {env.n_arms}")
    contextual = getattr(env, "contextual", False)
    if contextual and not getattr(policy, "contextual", False):
        raise InvalidArgument(f"{getattr(policy, 'name', policy)!r} does not take a fresh action set each round")
    horizon = int(horizon)
    rows = np.arange(runs)
    cps = checkpoints(horizon)
    rec = np.empty((cps.size, runs))
    j = 0
    state = policy.init(runs)
    regret = np.zeros(runs)
    pulls = np.zeros((runs, env.n_arms), dtype=np.int64)
    nu, nup = policy.n_uniforms, update_uniforms(policy)
    for b, t0 in enumerate(range(0, horizon, TIME_BLOCK)):
        length = min(TIME_BLOCK, horizon - t0)
        noise = _block(lambda g, n: env.noise(g, n, length), seed, _FEEDBACK, runs, b)
        uni = _block(lambda g, n: g.random((n, length, nu + nup)), seed, _UNIFORMS, runs, b)
        if not contextual:
            mu = env.means(t0, length)
            gap = mu.max(axis=1, keepdims=True) - mu  # (length, K)
        for i in range(length):
            t = t0 + i + 1
            if contextual:  # a fresh action set per run: means and gaps per run
                ctx = env.contexts(noise[:, i])
                means = ctx @ env.theta  # (runs, K)
                arms = policy.act(state, t, uni[:, i, :nu], ctx)
                mean = means[rows, arms]
                state = policy.update(state, t, arms, env.feedback(noise[:, i], mean, arms), uni[:, i, nu:], ctx)
                regret += means.max(axis=1) - mean
                pulls[rows, arms] += 1
            else:
                arms = policy.act(state, t, uni[:, i, :nu])
                state = policy.update(state, t, arms, env.feedback(noise[:, i], mu[i, arms], arms), uni[:, i, nu:])
                _record(regret, pulls, gap[i], arms)
            if t == cps[j]:
                rec[j] = regret
                j += 1
        if progress:
            progress(length)
    return SimulationResult(getattr(policy, "name", repr(policy)), horizon, runs, cps, rec, pulls)
