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

from privcheck.core.products import SequenceChannel  # noqa: E402  (defined with the protocols it composes)


def channel_epsilon(Q: np.ndarray) -> float:
    """max over ordered input pairs of max_y ln Q[x,y] − ln Q[x',y] (``inf`` if some column has a 0 and a >0)."""
    with np.errstate(divide="ignore"):
        return _log_channel_epsilon(np.log(np.asarray(Q, dtype=float)))


def _log_channel_epsilon(logQ) -> float:
    """The same from the log-probabilities."""
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
        self._exact = (
            None
            if logQ is not None
            else ([[float(v) for v in row] for row in Q] if exact is None else [list(row) for row in exact])
        )
        self.logQ = None if logQ is None else np.asarray(logQ, dtype=float)
        if self._exact is not None:
            for i, row in enumerate(self._exact):
                if not _row_total_ok(row):
                    raise InvalidArgument(
                        f"channel row {i} sums to {float(sum(Fraction(v) for v in row))!r}, "
                        f"not 1 within {MASS_TOLERANCE:g}"
                    )
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
