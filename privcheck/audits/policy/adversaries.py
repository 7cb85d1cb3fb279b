"""The interactive audit's adversaries: at each round one sees only the recommendations so far and picks the arm
whose reward the policy observes.  Deterministic adversaries suffice for Interactive DP (Azize & Basu, "Concentrated
Differential Privacy for Bandits", Prop. 2(b)); the built-in family is identity (= Table DP), constant, flipping
and the arm recommended least so far; for a contextual policy, one that also chooses each round's contexts from the
recommendations (``mirroring-contexts``)."""

from __future__ import annotations

import numpy as np

__all__ = ["adversaries", "Streaming", "ContextStreaming"]


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


class ContextStreaming(Streaming):
    """A built-in adversary of a contextual policy that also chooses each round's contexts from the recommendations:
    ``contexts(last, counts, t, public)`` — ``last`` each run's last recommendation (None at round 1), ``public`` the
    round's public contexts (K × d) — returns each run's (n, K, d)."""

    def __init__(self, name: str, step, contexts):
        super().__init__(name, step)
        self.contexts = contexts


def _mirroring(last, counts, t, public):
    """The round's public contexts, reversed in every run whose last recommendation was not arm 0: the contexts
    follow the policy's own decisions, so that whatever moved one decision moves the next users' contexts too."""
    if last is None:
        return public
    sign = np.where(np.asarray(last) == 0, 1.0, -1.0)
    return sign[:, None, None] * public[None]


def adversaries(k: int, contextual: bool = False) -> dict:
    """The built-in deterministic adversaries: name -> :class:`Streaming`; for a ``contextual`` policy also one
    that chooses each round's contexts (:class:`ContextStreaming`: ``mirroring-contexts``, with the identity's
    queries)."""
    out = {
        "identity": Streaming("identity", lambda last, counts, t, k: last),
        "flipping": Streaming("flipping", lambda last, counts, t, k: (last + 1) % k),
        "least-recommended": Streaming("least-recommended", lambda last, counts, t, k: counts.argmin(axis=-1)),
    }
    for c in range(k):
        out[f"constant-{c}"] = Streaming(f"constant-{c}", _Constant(c))
    if contextual:
        out["mirroring-contexts"] = ContextStreaming("mirroring-contexts", lambda last, counts, t, k: last, _mirroring)
    return out
