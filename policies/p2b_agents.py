"""P2B's agents as one policy, one object per run, in the contextual protocol — so that the pipeline's guarantee
can be audited where it is used: on the recommendations the agents make, not only on the shuffler's histogram.

Malekzadeh, Athanasakis, Haddadi & Livshits, "Privacy-Preserving Bandits" (§Architecture, §Privacy): early users
each run their own LinUCB and share, with probability p, one (code, action, reward) tuple — their context encoded
to one of k codes — through a shuffler that suppresses tuples seen fewer than l times; later users start from a
model fitted on what the shuffler released.  The paper claims (ε, δ)-DP for each early user's data with
ε = −ln(1 − p) (no local noise, ε̄ = 0) and a δ that it leaves as exp(−Ω(l(1 − p)²)); privcheck computes the exact
δ* of the tuple-thresholded shuffler (:func:`privcheck.mechanisms.p2b.crowd_delta`).  Everything a later user is
shown is a function of the released histogram and of that user's own context and coins, so the same (ε, δ*) is a
*joint* DP guarantee for the run below: one user's row — their contexts and rewards — changed, every other user's
recommendation watched (``definition="joint"``).

One run is a population in arrival order, one interaction per user (the joint-DP protocol's unit):

* users of rounds 1 … ⌊early_fraction·T⌋ are early: a cold disjoint LinUCB (A = I, b = 0, so the arm of longest
  context, ties broken at random) recommends an arm; with probability p (exactly, :func:`bernoulli_double`) the
  user shares (code of the recommended arm's context, arm, click), the click Bernoulli(reward) for a reward in
  [0, 1] (the reward itself when it is 0 or 1);
* at the first later round the shuffler releases its thresholded histogram and the warm model is fitted on it,
  codes decoded to their centroids (:func:`policies.p2b.released_model`, the experiment's own);
* every later user acts once from their own copy of the warm model (disjoint LinUCB with the arm's context as
  its feature, α = 1) — a copy per user, as in :mod:`policies.p2b`.

The encoder is k-means fitted once on a public sample — 20,000 points uniform in the ball of radius L, seed 0 —
as the public code fits it on public data.  ``make`` thresholds on the whole tuple (the paper's shuffler);
``make_code_threshold`` on the code alone, as the public code does, which releases a user whose (action,
reward) is unique inside a large code's crowd.  The pre-sampling probability is the largest double with
−ln(1 − p) ≤ ε (:func:`privcheck.mechanisms.p2b.sharing_probability_for`); the claim to audit is (ε, δ*) with δ*
of that p and l (:func:`claim`)::

    audit_policy(make, claim(1.0), "joint", arms=2, dim=2, horizon=100)
"""

from __future__ import annotations

import functools

import numpy as np

from privcheck.core import ApproxDP, InvalidArgument
from privcheck.mechanisms.exact_sampling import bernoulli_double
from privcheck.mechanisms.p2b import Encoder, Shuffler, sharing_probability_for

from .linucb import LinUCB
from .p2b import released_model

__all__ = ["P2BAgents", "make", "make_code_threshold", "claim", "PUBLIC_SAMPLE"]

#: the public sample the encoder is fitted on
PUBLIC_SAMPLE = 20_000


@functools.lru_cache(maxsize=16)
def _encoder(dim: int, codes: int, bound: float) -> Encoder:
    """k-means codes fitted on a public sample uniform in the ball of radius ``bound`` (seed 0): the same in every
    run, as a public encoder is."""
    rng = np.random.default_rng(0)
    v = rng.standard_normal((PUBLIC_SAMPLE, dim))
    v *= (bound * rng.random(PUBLIC_SAMPLE) ** (1.0 / dim) / np.linalg.norm(v, axis=1))[:, None]
    return Encoder(v, codes, seed=0)


class P2BAgents:
    """A population of P2B agents, one user per round (the module's docstring says how)."""

    def __init__(
        self,
        n_arms: int,
        dim: int,
        horizon: int,
        rng: np.random.Generator,
        epsilon: float,
        context_bound: float = 1.0,
        threshold: int = 10,
        codes: int = 4,
        early_fraction: float = 0.5,
        threshold_on: str = "tuple",
    ):
        self.k, self.d, self.rng = n_arms, dim, rng
        self.shuffler = Shuffler(sharing_probability_for(epsilon), threshold, codes, n_arms, threshold_on)
        self.encoder = _encoder(dim, codes, float(context_bound))
        self.early = max(1, int(early_fraction * horizon))
        self.agent = LinUCB(n_arms, dim)
        self.cold = self.agent.init(1)
        self.counts = np.zeros(self.shuffler.size, dtype=np.int64)
        self.warm = None

    def act(self, t, contexts):
        x = np.asarray(contexts, dtype=float)
        if t > self.early and self.warm is None:
            model = released_model(self.shuffler.release(self.counts), self.encoder, self.k, self.d)
            self.warm = self.agent.init(1, model)
        state = self.cold if self.warm is None else self.warm
        self.x = x
        return int(self.agent.act(state, t, self.rng.random((1, 1)), x[None])[0])

    def update(self, t, arm, reward):
        if t > self.early:
            return
        if not 0 <= reward <= 1:
            raise InvalidArgument(f"P2B's rewards are clicks: a reward in [0, 1], not {reward!r}")
        if not bernoulli_double(self.rng, self.shuffler.p, 1)[0]:
            return
        click = int(bernoulli_double(self.rng, float(reward), 1)[0])
        code = int(self.encoder.encode(self.x[arm])[()])
        self.counts[(code * self.k + arm) * 2 + click] += 1


def make(n_arms, dim, horizon, rng, epsilon, context_bound):
    """P2B's agents, the shuffler thresholding whole tuples (the paper's)."""
    return P2BAgents(n_arms, dim, horizon, rng, epsilon, context_bound)


def make_code_threshold(n_arms, dim, horizon, rng, epsilon, context_bound):
    """P2B's agents, the shuffler thresholding codes alone (the public code's)."""
    return P2BAgents(n_arms, dim, horizon, rng, epsilon, context_bound, threshold_on="code")


def claim(epsilon: float, threshold: int = 10, n_arms: int = 2) -> ApproxDP:
    """The claim P2B's agents are audited against: (ε, δ*) of the tuple-thresholded shuffler at the pre-sampling
    probability ``make`` uses for ``epsilon`` (the relation of the claim is the shuffler's; a joint audit reads ε
    and δ)."""
    return Shuffler(sharing_probability_for(epsilon), threshold, 2, n_arms).claim
