"""The P2B pipeline: encoder, pre-sampling and shuffler (Malekzadeh, Athanasakis, Haddadi & Livshits,
"Privacy-Preserving Bandits", §Architecture, §Methodology and §Privacy).

* **Encoder**: contexts x ∈ R^d to one of k codes — k-means fitted on a *public* sample of contexts (as the
  public code does), each context mapped to its nearest centroid; deterministic given its seed.
* **Pre-sampling**: each early user reports, with probability p, one encoded (code, action, reward) tuple.
* **Shuffler**: drops metadata and order — what it releases is the multiset of tuples, i.e. the histogram of
  tuple counts — and suppresses every tuple seen fewer than l times.  By default the threshold applies to the
  whole released tuple; ``threshold_on="code"`` reproduces the public code, which counts codes only, so a
  user whose (action, reward) is unique inside a large code crowd is released and exposed; ``"none"`` turns
  thresholding off.
* **Claim**: the paper's ε(p, ε̄) = ln(p(2 − p)/(1 − p)·e^ε̄ + 1 − p), which is −ln(1 − p) for ε̄ = 0
  (crowd-blending with pre-sampling, Gehrke et al. 2012), rounded up; its δ = exp(−Ω(l(1 − p)²)) hides a
  constant, so privcheck computes δ* exactly (:func:`crowd_delta`) instead.

δ* — one user changes their tuple from τ to τ'.  With m other users holding τ and m' holding τ', each
reporting with probability p, and the user's own coin B ~ Bern(p) the same in both worlds, the two counts the
change can move are (T(C + B), T(C')) against (T(C), T(C' + B)), C ~ Bin(m, p), C' ~ Bin(m', p), T(n) = n·1{n ≥ l}
(every other count has the same law in both worlds).  Both laws are products, P_m ⊗ Q_m' and Q_m ⊗ P_m'
(P_m the law of T(C + B), Q_m that of T(C)), and δ* is the largest hockey-stick divergence at ε over crowd
sizes 0 ≤ m, m' ≤ M, computed with :func:`privcheck.core.hockey_stick` (the exact engine's function).  The
maximiser is reported; a maximiser on the edge of the search grid doubles M.  At p = 0.5, l = 10:
δ* ≈ 9.8·10⁻³ at (m, m') = (12, 16) — larger than the 7.6·10⁻³ of the add/remove comparison T(C + B) vs T(C)
alone, which is not the neighbour relation of a population.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from privcheck.core import ApproxDP, InvalidArgument, ReplaceUser, check_real, hockey_stick, round_up

from .exact_sampling import bernoulli_double

__all__ = [
    "p2b_epsilon",
    "sharing_probability_for",
    "crowd_delta",
    "CrowdDelta",
    "Encoder",
    "Shuffler",
    "THRESHOLD_MODES",
]

THRESHOLD_MODES = ("tuple", "code", "none")


def check_sharing_probability(p) -> float:
    return check_real("sharing probability p", p, lower=0.0, upper=1.0, upper_open=True)


def check_threshold(l) -> int:
    whole = isinstance(l, (int, np.integer)) or (isinstance(l, float) and l.is_integer())
    if isinstance(l, bool) or not whole or l < 1:
        raise InvalidArgument(f"threshold l={l!r} must be an integer >= 1")
    return int(l)


def p2b_epsilon(p: float, eps_bar: float = 0.0) -> float:
    """ε = ln(p(2 − p)/(1 − p)·e^ε̄ + 1 − p), rounded up; −ln(1 − p) exactly when ε̄ = 0."""
    p = check_sharing_probability(p)
    eps_bar = check_real("eps_bar", eps_bar, lower=0.0)
    if eps_bar == 0:
        return round_up(-math.log1p(-p))
    return round_up(math.log(p * (2 - p) / (1 - p) * math.exp(eps_bar) + 1 - p))


def sharing_probability_for(epsilon: float) -> float:
    """The largest double p with −ln(1 − p) ≤ ε, below 1 whatever ε: the pre-sampling probability of an ε claim
    (ε̄ = 0), so that the claim holds for p as represented."""
    from fractions import Fraction

    from .calibration import at_most, interval_ends

    eps = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
    p = at_most(Fraction(1) - interval_ends(lambda iv: iv.exp(-iv.mpf(eps)))[1])
    return min(p, math.nextafter(1.0, 0.0))


@dataclass(frozen=True)
class CrowdDelta:
    delta: float  # rounded up
    crowds: tuple  # (m, m') where the worst case occurs
    epsilon: float
    searched: int  # M: crowd sizes 0..M were searched


def _laws(m: int, p: float, l: int) -> tuple[np.ndarray, np.ndarray]:
    """(law of T(C + B), law of T(C)) over counts 0 … m + 1, C ~ Bin(m, p), B ~ Bern(p)."""
    c = np.arange(m + 1)
    from scipy.stats import binom  # scipy.stats loads on use: it costs most of a second at import

    pc = binom.pmf(c, m, p)
    q = np.zeros(m + 2)
    s = np.zeros(m + 2)
    np.add.at(q, np.where(c >= l, c, 0), pc)
    np.add.at(s, np.where(c + 1 >= l, c + 1, 0), pc)
    return (1 - p) * q + p * s, q


def crowd_delta(p: float, threshold: int, epsilon: float | None = None, max_crowd: int | None = None) -> CrowdDelta:
    """The exact worst-case δ of the tuple-thresholded shuffler at ε (default ε(p, 0)) over crowd sizes."""
    p, l = check_sharing_probability(p), check_threshold(threshold)
    eps = p2b_epsilon(p) if epsilon is None else check_real("epsilon", epsilon, lower=0.0)
    M = max(2 * l + 20, 40) if max_crowd is None else int(max_crowd)
    with np.errstate(divide="ignore"):
        while True:
            laws = [tuple(np.log(v) for v in _laws(m, p, l)) for m in range(M + 1)]
            best, where = -1.0, (0, 0)
            step = max(1, (M + 1) // 80)  # coarse grid for large M, refined around its maximum below
            grid = list(range(0, M + 1, step))
            for m in grid:
                for m2 in grid:
                    d = _hs(laws, m, m2, eps)
                    if d > best:
                        best, where = d, (m, m2)
            if step > 1:
                lo = [max(0, w - step) for w in where]
                for m in range(lo[0], min(M, where[0] + step) + 1):
                    for m2 in range(lo[1], min(M, where[1] + step) + 1):
                        d = _hs(laws, m, m2, eps)
                        if d > best:
                            best, where = d, (m, m2)
            if max(where) < M or max_crowd is not None or M >= 4096:
                return CrowdDelta(round_up(max(best, 0.0)), where, eps, M)
            M *= 2


def _hs(laws, m, m2, eps) -> float:
    """δ(ε) between P_m ⊗ Q_m' and Q_m ⊗ P_m' (log-probabilities as outer sums)."""
    lp_m, lq_m = laws[m]
    lp_m2, lq_m2 = laws[m2]
    return hockey_stick((lp_m[:, None] + lq_m2[None, :]).ravel(), (lq_m[:, None] + lp_m2[None, :]).ravel(), eps)


class Encoder:
    """k-means codes for contexts: fitted on a public sample (k-means++ start, Lloyd iterations), then each
    context is encoded as the index of its nearest centroid.  Deterministic given ``seed``."""

    def __init__(self, public_contexts, n_codes: int, seed: int = 0, iterations: int = 30):
        X = np.asarray(public_contexts, dtype=float)
        if isinstance(n_codes, bool) or not isinstance(n_codes, (int, np.integer)) or n_codes < 2:
            raise InvalidArgument(f"the number of codes k={n_codes!r} must be an integer >= 2")
        if X.ndim != 2 or X.shape[0] < n_codes or not np.isfinite(X).all():
            raise InvalidArgument(f"the public sample must be a finite (n, d) array with n >= k = {n_codes}")
        self.n_codes = int(n_codes)
        from scipy.cluster.vq import kmeans2  # loaded on use, like scipy.stats

        self.centroids, _ = kmeans2(X, self.n_codes, iter=iterations, minit="++", seed=np.random.default_rng(seed))

    def encode(self, contexts) -> np.ndarray:
        X = np.asarray(contexts, dtype=float)
        shape = X.shape[:-1]
        from scipy.cluster.vq import vq

        codes, _ = vq(X.reshape(-1, X.shape[-1]), self.centroids)
        return codes.reshape(shape).astype(np.int64)

    def decode(self, codes) -> np.ndarray:
        return self.centroids[np.asarray(codes, dtype=np.int64)]


class Shuffler:
    """Pre-sampling + shuffler as a mechanism on populations.

    Input: an (n, 3) integer array, row i the (code, action, reward ∈ {0, 1}) tuple user i would report.
    Output: the released histogram, counts of every possible tuple (k·A·2 of them, index (code·A + action)·2 +
    reward), after each user reported with probability p and the threshold was applied.
    """

    def __init__(
        self, sharing_probability: float, threshold: int, n_codes: int, n_actions: int, threshold_on: str = "tuple"
    ):
        self.p = check_sharing_probability(sharing_probability)
        self.threshold = check_threshold(threshold)
        if threshold_on not in THRESHOLD_MODES:
            raise InvalidArgument(f"threshold_on={threshold_on!r} must be one of {', '.join(THRESHOLD_MODES)}")
        for name, v, least in (("codes k", n_codes, 2), ("actions", n_actions, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
                raise InvalidArgument(f"the number of {name}={v!r} must be an integer >= {least}")
        self.n_codes, self.n_actions, self.threshold_on = int(n_codes), int(n_actions), threshold_on
        self.size = self.n_codes * self.n_actions * 2
        self.relation = ReplaceUser((self.n_codes, self.n_actions, 2))
        self.name = f"p2b-shuffler(p={self.p:g}, l={self.threshold}, threshold on {threshold_on})"

    @functools.cached_property
    def crowd(self) -> CrowdDelta:
        """δ* and its worst crowds, computed when first asked for (at small p the worst crowds are large, and the
        search over them takes minutes: a run that only releases never asks)."""
        return crowd_delta(self.p, self.threshold)

    @property
    def claim(self) -> ApproxDP:
        """(−ln(1 − p), δ*)-DP under replace-one-user; refused when δ* rounds up to 1 (p within ulps of 1), as
        that claim would say nothing — an audit of another claim still runs."""
        if self.crowd.delta >= 1:
            raise InvalidArgument(
                f"p={self.p!r} makes the shuffler's own δ* round up to 1: its claim is vacuous; "
                "audit a stated claim instead (epsilon=, delta=)"
            )
        return ApproxDP(p2b_epsilon(self.p), self.crowd.delta, self.relation)

    def tuple_ids(self, population) -> np.ndarray:
        x = np.asarray(population)
        if x.ndim != 2 or x.shape[1] != 3 or x.dtype.kind not in "iu":
            raise InvalidArgument("a population is an (n, 3) integer array of (code, action, reward) rows")
        code, action, reward = x[:, 0], x[:, 1], x[:, 2]
        if (
            (code < 0).any()
            or (code >= self.n_codes).any()
            or (action < 0).any()
            or (action >= self.n_actions).any()
            or not np.isin(reward, (0, 1)).all()
        ):
            raise InvalidArgument(
                f"population rows need 0 <= code < {self.n_codes}, 0 <= action < "
                f"{self.n_actions} and reward in {{0, 1}}"
            )
        return (code.astype(np.int64) * self.n_actions + action) * 2 + reward

    def release(self, counts: np.ndarray) -> np.ndarray:
        """Apply the threshold to reported tuple counts (..., k·A·2): the shuffler's output."""
        counts = np.asarray(counts)
        if self.threshold_on == "none":
            return counts
        if self.threshold_on == "tuple":
            return np.where(counts >= self.threshold, counts, 0)
        per_code = counts.reshape(*counts.shape[:-1], self.n_codes, -1)
        keep = per_code.sum(axis=-1, keepdims=True) >= self.threshold
        return np.where(keep, per_code, 0).reshape(counts.shape)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        ids = self.tuple_ids(x)
        onehot = np.zeros((ids.size, self.size), dtype=np.int64)
        onehot[np.arange(ids.size), ids] = 1
        reported = bernoulli_double(rng, self.p, (size, ids.size))  # exactly p, not ⌈p·2^53⌉/2^53
        return self.release(reported.astype(np.int64) @ onehot)

    @property
    def example_input(self) -> np.ndarray:
        """A population with a large crowd of one tuple, a crowd near the worst case of δ*, one user whose
        (action, reward) is unique inside the large crowd's code, and one user with a code of their own."""
        l = self.threshold
        rows = [[0, 0, 0]] * (3 * l) + [[1 % self.n_codes, 0, 1]] * (l + 2)
        rows += [[0, 1 % self.n_actions, 1], [min(2, self.n_codes - 1), 0, 0]]
        return np.array(rows, dtype=np.int64)

    def __repr__(self):
        return self.name
