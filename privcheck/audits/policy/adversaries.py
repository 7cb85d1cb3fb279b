"""The interactive audit's adversaries: at each round one sees only the recommendations so far and picks the arm
whose reward the policy observes.  Deterministic adversaries suffice for Interactive DP (Azize & Basu, "Concentrated
Differential Privacy for Bandits", Prop. 2(b)); the built-in family is identity (= Table DP), constant, flipping
and the arm recommended least so far."""

from __future__ import annotations

import numpy as np

__all__ = ["adversaries"]


def _identity(recs, t, k):
    return recs[:, -1]


def _flipping(recs, t, k):
    return (recs[:, -1] + 1) % k


def _least_recommended(recs, t, k):
    counts = np.stack([(recs == a).sum(axis=1) for a in range(k)], axis=1)
    return counts.argmin(axis=1)


def adversaries(k: int) -> dict:
    """The built-in deterministic adversaries: name -> function(recommendations so far (runs, t), t, K)."""
    out = {"identity": _identity, "flipping": _flipping, "least-recommended": _least_recommended}
    for c in range(k):
        out[f"constant-{c}"] = (lambda c: lambda recs, t, kk: np.full(recs.shape[0], c))(c)
    return out
