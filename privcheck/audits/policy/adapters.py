"""The adapters that make a policy a mechanism: "run the policy for T rounds on this input" with the action
sequences of independent runs as its draws (:class:`PolicyMechanism`, Table and View DP), and the same against an
adversary choosing the queried arms (:class:`InteractiveMechanism`, Interactive DP)."""

from __future__ import annotations

import time

import numpy as np

from privcheck.core import InvalidArgument, TargetError, chunk_generator
from privcheck.core.rng import PROBE_STREAM
from privcheck.core.protocols import checked_actions, update_uniforms

from ..mechanism.events import Statistic
from ..mechanism.sampled import DrawCost

__all__ = ["PolicyMechanism", "InteractiveMechanism"]


class _pulls:
    def __init__(self, k):
        self.k = k

    def __call__(self, acts):
        return (acts == self.k).sum(axis=1)


class _first:
    def __init__(self, k, horizon):
        self.k, self.horizon = k, horizon

    def __call__(self, acts):
        hit = acts == self.k
        return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, self.horizon + 1)


def _switches(acts):
    return (acts[:, 1:] != acts[:, :-1]).sum(axis=1)


class PolicyMechanism:
    """Running a policy for T rounds on one input (a reward table, or a list of observed rewards) as a
    mechanism: ``sample(x, rng, size)`` returns (size, T) action sequences of ``size`` independent runs.
    Feedback goes through ``channel`` (a binary randomizer with ``Q``) when one is given."""

    def __init__(self, policy, horizon: int, definition: str, channel=None, name: str = "policy"):
        self.policy, self.horizon, self.definition, self.channel, self.name = policy, horizon, definition, channel, name

    def cost(self, runs: int = 1024, rounds: int = 64):
        """A run's cost: its T int64 actions held, and the seconds of T rounds, timed on ``runs`` runs of the
        first ``rounds`` rounds of an all-zero input (after one untimed call that pays the start-up)."""
        t = min(self.horizon, rounds)
        short = PolicyMechanism(self.policy, t, self.definition, self.channel, self.name)
        x0 = np.zeros((t, self.policy.n_arms) if self.definition == "table" else (t,))
        rng = np.random.default_rng(0)
        short.sample(x0, rng, 8)
        t0 = time.perf_counter()
        short.sample(x0, rng, runs)
        per_run_round = (time.perf_counter() - t0) / (runs * t)
        return DrawCost(bytes=8.0 * self.horizon, seconds=per_run_round * self.horizon)

    def coupled_differences(self, pairs, seed: int, runs: int = 16) -> list:
        """For each pair, how many of ``runs`` coupled runs — the same randomness on x and on x' — play
        differently: all 0 when no input tried made the actions depend on the data (on these runs)."""
        out = []
        for i, (x, y) in enumerate(pairs):
            a = self.sample(x, chunk_generator(seed, PROBE_STREAM, 1 + i), runs)
            b = self.sample(y, chunk_generator(seed, PROBE_STREAM, 1 + i), runs)
            out.append(int((a != b).any(axis=1).sum()))
        return out

    def statistics(self):
        """Features of an action sequence for the sampled engine: pulls of each arm, the first round each arm is
        played (T + 1 if never), and the number of switches."""
        K, T = self.policy.n_arms, self.horizon
        out = []
        for k in range(K):
            out.append(Statistic("user", fn=_pulls(k), fn_name=f"pulls_of_arm_{k}"))
            out.append(Statistic("user", fn=_first(k, T), fn_name=f"first_round_of_arm_{k}"))
        out.append(Statistic("user", fn=_switches, fn_name="switches"))
        return out

    def query(self, recs, t):
        """The arm whose reward the policy observes at round t: the one it played (Table and View DP)."""
        return recs[:, -1]

    def sample(self, x, rng, size):
        x = np.asarray(x, dtype=float)
        want = (self.horizon, self.policy.n_arms) if self.definition == "table" else (self.horizon,)
        if x.shape != want:
            raise InvalidArgument(
                f"input of shape {x.shape} must be {'a reward table' if len(want) == 2 else 'a reward list'} "
                f"of shape {want}"
            )
        nup = update_uniforms(self.policy)
        state = self.policy.init(size)
        recs = np.empty((size, self.horizon), dtype=np.int64)
        for t in range(1, self.horizon + 1):
            recs[:, t - 1] = checked_actions(
                self.policy.act(state, t, rng.random((size, self.policy.n_uniforms))),
                size,
                self.policy.n_arms,
                self.name,
            )
            arms = self.query(recs[:, :t], t)
            reward = x[t - 1, arms] if self.definition == "table" else np.full(size, x[t - 1])
            if self.channel is not None:
                q1 = self.channel.Q[reward.astype(np.int64), 1]  # P[report 1 | reward]
                feedback = (rng.random(size) < q1).astype(float)
            else:
                feedback = reward
            state = self.policy.update(state, t, arms, feedback, rng.random((size, nup)) if nup else None)
        return recs


class InteractiveMechanism(PolicyMechanism):
    """The policy against an adversary, as a mechanism: input a reward table, output the recommendations."""

    def __init__(self, policy, horizon, adversary, channel=None, name="policy"):
        super().__init__(policy, horizon, "table", channel, name)
        self.adversary = adversary

    def query(self, recs, t):
        try:
            q = np.asarray(self.adversary(recs, t, self.policy.n_arms), dtype=np.int64)
        except Exception as exc:
            raise TargetError(f"the adversary raised {type(exc).__name__}: {exc}") from None
        if q.shape != (recs.shape[0],) or q.min() < 0 or q.max() >= self.policy.n_arms:
            raise TargetError(f"the adversary must return one arm in 0..{self.policy.n_arms - 1} per run")
        return q
