"""The interactive audit's adversaries: at each round one sees only the recommendations so far and picks the arm
whose reward the policy observes.  Deterministic adversaries suffice for Interactive DP (Azize & Basu, "Concentrated
Differential Privacy for Bandits", Prop. 2(b)); the built-in family is identity (= Table DP), constant, flipping
and the arm recommended least so far."""

from __future__ import annotations

import numpy as np

__all__ = ["adversaries", "Streaming"]


class Streaming:
    """A built-in adversary that needs only the last recommendations and the counts so far, so that a run's
    history is never held: ``step(last, counts, t, k)``; called as ``f(recommendations, t, k)`` it is any
    adversary.  ``step`` works elementwise over leading axes — ``last`` (n, L) with ``counts`` (n, L, K) gives
    the queries of L rounds at once (a block of a :class:`~privcheck.core.protocols.Steady` policy)."""

    def __init__(self, name: str, step):
        self.__name__, self.step = name, step

    def __call__(self, recs, t, k):
        counts = np.stack([(recs == a).sum(axis=1) for a in range(k)], axis=1)
        return self.step(recs[:, -1], counts, t, k)


class _Constant:
    def __init__(self, c):
        self.c = c

    def __call__(self, last, counts, t, k):
        return np.full(np.shape(last), self.c)


def adversaries(k: int) -> dict:
    """The built-in deterministic adversaries: name -> :class:`Streaming`."""
    out = {
        "identity": Streaming("identity", lambda last, counts, t, k: last),
        "flipping": Streaming("flipping", lambda last, counts, t, k: (last + 1) % k),
        "least-recommended": Streaming("least-recommended", lambda last, counts, t, k: counts.argmin(axis=-1)),
    }
    for c in range(k):
        out[f"constant-{c}"] = Streaming(f"constant-{c}", _Constant(c))
    return out
