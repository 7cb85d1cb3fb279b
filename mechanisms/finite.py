"""Finite channels: mechanisms with inputs {0..k−1} and outputs {0..m−1} given by a row-stochastic matrix.

``Q[x, y] = P[output y | input x]``.  The exact LDP level of a channel is the largest log-ratio between two
entries of one output column, max_y max_{x,x'} ln Q[x,y]/Q[x',y]; :func:`channel_epsilon` computes it with
the divergence functions of :mod:`privcheck.core`, and the claim rounds it up.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import AllPairs, InvalidArgument, PureDP, max_log_ratio, round_up

__all__ = ["FiniteChannel", "SequenceChannel", "channel_epsilon"]


def channel_epsilon(Q: np.ndarray) -> float:
    """max over ordered input pairs of max_y ln Q[x,y] − ln Q[x',y] (``inf`` if some column has a 0 and a >0)."""
    with np.errstate(divide="ignore"):
        logQ = np.log(np.asarray(Q, dtype=float))
    best = 0.0
    for a in range(logQ.shape[0]):
        for b in range(logQ.shape[0]):
            if a != b:
                best = max(best, max_log_ratio(logQ[a], logQ[b]))
    return best


class FiniteChannel:
    """Base class: a k×m row-stochastic matrix ``Q`` with sampling by inverse CDF and exact faces."""

    name = "finite-channel"

    def __init__(self, Q):
        Q = np.asarray(Q, dtype=float)
        if Q.ndim != 2 or Q.shape[0] < 2 or Q.shape[1] < 1:
            raise InvalidArgument(f"channel matrix of shape {Q.shape} must be k×m with k >= 2 inputs")
        if np.any(~np.isfinite(Q)) or np.any(Q < 0) or np.any(Q > 1):
            raise InvalidArgument("channel probabilities must lie in [0, 1]")
        if np.any(np.abs(Q.sum(axis=1) - 1) > 1e-9):
            raise InvalidArgument(f"channel rows must sum to 1 (sums: {Q.sum(axis=1).tolist()})")
        self.Q = Q
        self._cdf = np.cumsum(Q, axis=1)
        self._cdf[:, -1] = 1.0

    @property
    def k(self) -> int:
        return self.Q.shape[0]

    @property
    def epsilon(self) -> float:
        """The exact LDP level of the channel (not rounded)."""
        return channel_epsilon(self.Q)

    @property
    def claim(self) -> PureDP:
        eps = self.epsilon
        if not np.isfinite(eps):
            raise InvalidArgument(f"{self.name} is not ε-LDP for any finite ε (an output column mixes 0 and > 0)")
        return PureDP(round_up(eps), AllPairs(tuple(range(self.k))))

    example_input = 0

    def _index(self, x) -> int:
        a = np.asarray(x)
        if a.ndim != 0 or a.dtype.kind not in "biuf" or float(a) != int(a) or not 0 <= int(a) < self.k:
            raise InvalidArgument(f"input {np.asarray(x).tolist()!r} must be an integer in 0..{self.k - 1}")
        return int(a)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        u = rng.random(size)
        y = np.searchsorted(self._cdf[self._index(x)], u, side="right")
        return np.minimum(y, self.Q.shape[1] - 1)

    def support(self, x) -> np.ndarray:
        return np.arange(self.Q.shape[1])

    def logpmf(self, x, outcomes) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.Q[self._index(x)][np.asarray(outcomes, dtype=int)])


class SequenceChannel:
    """A per-report channel applied independently to each entry of a sequence of n inputs.

    P[y | x] = Π_i Q[x_i, y_i].  Under ``AllPairs`` over {0..k−1}^n (any two sequences, as the AAAI 2023
    paper's Definition 2 reads) its exact level is n times the per-report level (claims G-D2a).
    """

    name = "sequence-channel"

    def __init__(self, channel: FiniteChannel, n: int):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InvalidArgument(f"sequence length n={n!r} must be an integer >= 1")
        if n > 12:
            raise InvalidArgument(f"sequence length n={n} is too long to enumerate exactly (at most 12)")
        self.channel, self.n = channel, int(n)
        import itertools

        self.domain = tuple(tuple(s) for s in itertools.product(range(channel.k), repeat=self.n))
        self._outcomes = np.array(list(itertools.product(range(channel.Q.shape[1]), repeat=self.n)))

    @property
    def claim(self) -> PureDP:
        return PureDP(round_up(self.n * self.channel.epsilon), AllPairs(self.domain))

    def sample(self, x, rng, size):
        x = np.asarray(x).reshape(-1)
        return np.stack([self.channel.sample(int(v), rng, size) for v in x], axis=1)

    def support(self, x):
        return self._outcomes

    def logpmf(self, x, outcomes):
        x = np.asarray(x).reshape(-1)
        outcomes = np.asarray(outcomes).reshape(-1, self.n)
        with np.errstate(divide="ignore"):
            logQ = np.log(self.channel.Q)
        return logQ[x[None, :], outcomes].sum(axis=1)
