"""Finite channels: mechanisms with inputs {0..k−1} and outputs {0..m−1} given by a row-stochastic matrix.

``Q[x, y] = P[output y | input x]``.  The exact LDP level of a channel is the largest log-ratio between two
entries of one output column, max_y max_{x,x'} ln Q[x,y]/Q[x',y]; :func:`channel_epsilon` computes it with
the divergence functions of :mod:`privcheck.core`, and the claim rounds it up.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from privcheck.core import AllPairs, InvalidArgument, PureDP, max_log_ratio, round_up

__all__ = ["FiniteChannel", "SequenceChannel", "channel_epsilon", "MASS_TOLERANCE"]


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


def _row_total_ok(values) -> bool:
    return abs(sum(Fraction(v) for v in values) - 1) <= Fraction(MASS_TOLERANCE)


#: rows of a channel must sum to 1 within this (the exact engine's tolerance for a pmf as given)
MASS_TOLERANCE = 1e-9


class FiniteChannel:
    """Base class: a k×m row-stochastic matrix ``Q`` with sampling by inverse CDF and exact faces.

    The exact face is the matrix as given: ``pmf`` returns its entries, which are the exact rationals they denote
    (a row may sum to 1 only within a few ulps; nothing is renormalised).  ``exact`` may give the entries as
    Fractions instead (``Q`` is then their nearest doubles, used for sampling).  :meth:`from_logs` builds a channel
    whose exact face is a matrix of log-probabilities (``logpmf``; ``pmf`` returns None): the form that keeps a
    probability such as e^(−1000) exact.
    """

    name = "finite-channel"

    def __init__(self, Q, exact=None, logQ=None):
        Q = np.asarray(Q, dtype=float)
        if Q.ndim != 2 or Q.shape[0] < 2 or Q.shape[1] < 1:
            raise InvalidArgument(f"channel matrix of shape {Q.shape} must be k×m with k >= 2 inputs")
        if np.any(~np.isfinite(Q)) or np.any(Q < 0) or np.any(Q > 1):
            raise InvalidArgument("channel probabilities must lie in [0, 1]")
        self._exact = None if logQ is not None else (
            [[float(v) for v in row] for row in Q] if exact is None else [list(row) for row in exact])
        self.logQ = None if logQ is None else np.asarray(logQ, dtype=float)
        if self._exact is not None:
            for i, row in enumerate(self._exact):
                if not _row_total_ok(row):
                    raise InvalidArgument(f"channel row {i} sums to {float(sum(Fraction(v) for v in row))!r}, "
                                          f"not 1 within {MASS_TOLERANCE:g}")
        elif np.any(np.abs(Q.sum(axis=1) - 1) > MASS_TOLERANCE):
            raise InvalidArgument(f"channel rows must sum to 1 (sums: {Q.sum(axis=1).tolist()})")
        self.Q = Q
        self._cdf = np.cumsum(Q, axis=1)
        self._cdf[:, -1] = 1.0

    @classmethod
    def from_logs(cls, logQ, **kw):
        """A channel whose exact face is the matrix of log-probabilities ``logQ`` (doubles, read exactly)."""
        logQ = np.asarray(logQ, dtype=float)
        if logQ.ndim != 2 or np.isnan(logQ).any() or (logQ > 0).any():
            raise InvalidArgument("log-probabilities must be a k×m matrix of values <= 0")
        with np.errstate(under="ignore"):
            Q = np.exp(logQ)
        obj = cls.__new__(cls)
        FiniteChannel.__init__(obj, Q, logQ=logQ)
        for k, v in kw.items():
            setattr(obj, k, v)
        return obj

    @property
    def k(self) -> int:
        return self.Q.shape[0]

    @property
    def epsilon(self) -> float:
        """The exact LDP level of the channel (not rounded)."""
        if self.logQ is not None:
            return _log_channel_epsilon(self.logQ)
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

    def pmf(self, x, outcomes):
        """The exact probabilities as given (None when the exact face is ``logpmf``)."""
        if self._exact is None:
            return None
        row = self._exact[self._index(x)]
        vals = [row[int(o)] for o in np.asarray(outcomes).reshape(-1)]
        if all(isinstance(v, float) for v in vals):
            return np.array(vals, dtype=float)
        return np.array(vals, dtype=object)

    def logpmf(self, x, outcomes) -> np.ndarray:
        idx = np.asarray(outcomes, dtype=int)
        if self.logQ is not None:
            return self.logQ[self._index(x)][idx]
        with np.errstate(divide="ignore"):
            return np.log(self.Q[self._index(x)][idx])


def _log_channel_epsilon(logQ) -> float:
    best = 0.0
    for a in range(logQ.shape[0]):
        for b in range(logQ.shape[0]):
            if a != b:
                best = max(best, max_log_ratio(logQ[a], logQ[b]))
    return best


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

    def pmf(self, x, outcomes):
        """Π_i of the per-report channel's exact probabilities (Fractions), or None when its face is logpmf."""
        x = np.asarray(x).reshape(-1)
        outcomes = np.asarray(outcomes).reshape(-1, self.n)
        rows = [self.channel.pmf(int(v), np.arange(self.channel.Q.shape[1])) for v in x]
        if any(r is None for r in rows):
            return None
        rows = [[Fraction(v) for v in r] for r in rows]
        out = np.empty(len(outcomes), dtype=object)
        for j, o in enumerate(outcomes):
            p = Fraction(1)
            for i, y in enumerate(o):
                p *= rows[i][int(y)]
            out[j] = p
        return out

    def logpmf(self, x, outcomes):
        """Σ_i of the per-report log-probabilities (float sums: approximate; the exact engine uses ``pmf``, or
        these sums with their rounding when the channel's own face is logpmf)."""
        x = np.asarray(x).reshape(-1)
        outcomes = np.asarray(outcomes).reshape(-1, self.n)
        logQ = self.channel.logQ
        if logQ is None:
            with np.errstate(divide="ignore"):
                return np.log(self.channel.Q)[x[None, :], outcomes].sum(axis=1)
        # the per-report logs are exact doubles: their sums are returned exactly, as Fractions
        out = np.empty(len(outcomes), dtype=object)
        for j, o in enumerate(outcomes):
            terms = [float(logQ[int(v), int(y)]) for v, y in zip(x, o)]
            out[j] = -np.inf if any(t == -np.inf for t in terms) else sum(Fraction(t) for t in terms)
        return out
