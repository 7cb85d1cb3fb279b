"""Local DP of a contextual policy's reports: the randomizer a run applies to one user's data before it leaves them.

A locally private contextual bandit has each user send a privatized report of their context and reward; its
guarantee is ε-LDP of that report: for any two users' data (x, r) and (x', r') — every context of norm at most L,
every reward in [0, 1] — the report's distributions are within e^ε.  A run exposes its randomizer as
``report(contexts, reward)`` (the round's contexts, ``n_arms × dim``, and the reward; it draws from the run's own
generator), returning what the user sends — numbers, in any shape.  :class:`RunReports` makes it a mechanism whose
input is one user's data, ``[reward, *contexts.ravel()]``, each draw a fresh run of the factory (its own
generator); :func:`report_pairs` proposes the pairs: the reward moved from 0 to 1, the contexts reversed, turned a
quarter turn, or both.  A lower bound never certifies privacy.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument, PureDP, Unspecified
from privcheck.core.errors import TargetError, raised
from privcheck.core.sequential import SequentialPolicy

__all__ = ["RunReports", "report_pairs", "reports_of"]


class RunReports:
    """One user's report from a contextual run (``run.report(contexts, reward)``), as a mechanism: the input is
    ``[reward, *contexts.ravel()]`` (contexts ``n_arms × dim``), the output the report, flattened."""

    def __init__(self, policy):
        self.policy = policy
        self.n_arms, self.dim = policy.n_arms, policy.contexts.shape[2]
        self.claim = PureDP(1.0, relation=Unspecified())  # (the audit's claim replaces it)
        self.name = f"{policy.name}'s reports"

    def __repr__(self) -> str:
        return f"RunReports({self.policy.name})"

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.shape != (1 + self.n_arms * self.dim,):
            raise InvalidArgument(
                f"a user's data must be [reward, *contexts.ravel()], {1 + self.n_arms * self.dim} numbers"
            )
        reward, contexts = float(x[0]), x[1:].reshape(self.n_arms, self.dim)
        seeds = rng.integers(2**63, size=size)
        out = None
        for i, s in enumerate(seeds.tolist()):
            run = self.policy.make_run(np.random.default_rng(s))
            try:
                report = np.asarray(run.report(contexts.copy(), reward), dtype=float).ravel()
            except Exception as exc:
                raise raised(
                    TargetError, f"{self.policy.name}: report(…) raised {type(exc).__name__}: {exc}", exc
                ) from None
            if out is None:
                out = np.empty((size, report.size))
            elif report.size != out.shape[1]:
                raise TargetError(f"{self.policy.name}: report(…) returned {report.size} numbers, then {out.shape[1]}")
            out[i] = report
        return out if out is not None else np.empty((0, 1))


def report_pairs(policy, levels=(0.0, 1.0)) -> list:
    """Pairs of one user's data: the first public round's contexts with the reward at the low level against the
    high (0 and 1 by default), the contexts reversed, turned a quarter turn, and reversed with the reward moved —
    every context within the bound."""
    lo, hi = levels
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
    """The run's randomizer as a mechanism when the policy is contextual and its runs have ``report``; else None."""
    if not isinstance(policy, SequentialPolicy) or policy.contexts is None:
        return None
    probe = policy.make_run(np.random.default_rng(0))
    return RunReports(policy) if callable(getattr(probe, "report", None)) else None
