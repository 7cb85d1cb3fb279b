"""Local DP of a policy's reports: the randomizer a run applies to one user's data before it leaves them.

A locally private bandit has each user send a privatized report of their reward (and, in a contextual one, their
context); its guarantee is ε-LDP of that report: for any two users' data the report's distributions are within
e^ε — every reward in [0, 1] (or the range given), every context of norm at most L.  A run exposes its randomizer as
``report(reward)``, or ``report(contexts, reward)`` when it is contextual (the round's contexts, ``n_arms × dim``); it
draws from the run's own generator and returns what the user sends — numbers, in any shape.  :class:`RunReports`
makes it a mechanism whose input is one user's data, ``[reward]`` or ``[reward, *contexts.ravel()]``, each draw a
fresh run of the factory (its own generator); :func:`report_pairs` proposes the pairs: the reward moved from the
low level to the high and, with contexts, the contexts reversed, turned a quarter turn, or both.  A lower bound never
certifies privacy.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument, PureDP, Unspecified
from privcheck.core.errors import TargetError, raised
from privcheck.core.protocols import SendsReports, provides
from privcheck.core.sequential import SequentialPolicy

__all__ = ["RunReports", "report_pairs", "reports_of"]


class RunReports:
    """One user's report from a run, as a mechanism: the input is ``[reward]`` (``run.report(reward)``) or, for a
    contextual run, ``[reward, *contexts.ravel()]`` (``run.report(contexts, reward)``, contexts ``n_arms × dim``);
    the output the report, flattened."""

    def __init__(self, policy):
        self.policy = policy
        self.contextual = policy.contexts is not None
        self.n_arms, self.dim = policy.n_arms, policy.contexts.shape[2] if self.contextual else 0
        self.claim = PureDP(1.0, relation=Unspecified())  # (the audit's claim replaces it)
        self.name = f"{policy.name}'s reports"
        self.signature = "report(contexts, reward)" if self.contextual else "report(reward)"

    def __repr__(self) -> str:
        return f"RunReports({self.policy.name})"

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.shape != (1 + self.n_arms * self.dim,):
            data = "[reward, *contexts.ravel()]" if self.contextual else "[reward]"
            raise InvalidArgument(f"a user's data must be {data}, {1 + self.n_arms * self.dim} numbers")
        reward, contexts = float(x[0]), x[1:].reshape(self.n_arms, self.dim)
        seeds = rng.integers(2**63, size=size)
        out = None
        for i, s in enumerate(seeds.tolist()):
            run = self.policy.make_run(np.random.default_rng(s))
            try:
                sent = run.report(contexts.copy(), reward) if self.contextual else run.report(reward)
                report = np.asarray(sent, dtype=float).ravel()
            except Exception as exc:
                raise raised(
                    TargetError, f"{self.policy.name}: {self.signature} raised {type(exc).__name__}: {exc}", exc
                ) from None
            if out is None:
                out = np.empty((size, report.size))
            elif report.size != out.shape[1]:
                raise TargetError(
                    f"{self.policy.name}: {self.signature} returned {out.shape[1]} numbers, then {report.size}"
                )
            out[i] = report
        return out if out is not None else np.empty((0, 1))


def report_pairs(policy, levels=(0.0, 1.0)) -> list:
    """Pairs of one user's data: the reward at the low level against the high (0 and 1 by default) — for a
    contextual policy with the first public round's contexts, and the contexts reversed, turned a quarter turn, and
    reversed with the reward moved, every context within the bound."""
    lo, hi = levels
    if policy.contexts is None:
        return [(np.array([lo]), np.array([hi]))]
    c = policy.contexts[0]
    turned = c.copy()
    if c.shape[1] >= 2:
        turned[:, 0], turned[:, 1] = -c[:, 1], c[:, 0]
    else:
        turned = -c

    def data(r, ctx):
        return np.concatenate([[r], ctx.ravel()])

    return [
        (data(lo, c), data(hi, c)),
        (data(lo, c), data(lo, -c)),
        (data(lo, c), data(lo, turned)),
        (data(lo, c), data(hi, -c)),
    ]


def reports_of(policy):
    """The run's randomizer as a mechanism when the policy's runs have ``report`` (one object per run); else None."""
    if not isinstance(policy, SequentialPolicy):
        return None
    probe = policy.make_run(np.random.default_rng(0))
    return RunReports(policy) if provides(probe, SendsReports) else None
