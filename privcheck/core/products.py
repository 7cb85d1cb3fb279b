"""A finite randomizer applied to each of n reports: the product mechanism the local-DP audit of a sequence
needs, written over the finite-face protocol (``support`` with ``pmf`` or ``logpmf``) so that the auditor
composes any such randomizer without knowing its class.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from .claims import PureDP
from .divergences import round_up
from .errors import InvalidArgument, check_int
from .neighbours import AllPairs

__all__ = ["SequenceChannel", "MAX_SEQUENCE_LENGTH"]

#: the longest sequence enumerated exactly (k^n outcomes)
MAX_SEQUENCE_LENGTH = 12


class SequenceChannel:
    """A per-report randomizer applied independently to each entry of a sequence of n inputs.

    P[y | x] = Π_i P[y_i | x_i].  Under ``AllPairs`` over {0..k−1}^n (any two sequences, as the AAAI 2023
    paper's Definition 2 reads) its exact level is n times the per-report level (claims G-D2a).  The
    randomizer needs ``k`` inputs 0..k−1, ``support``, ``sample``, ``claim`` and ``pmf`` or ``logpmf``.
    """

    name = "sequence-channel"

    def __init__(self, channel, n: int):
        n = check_int("sequence length n", n)
        if n > MAX_SEQUENCE_LENGTH:
            raise InvalidArgument(
                f"sequence length n={n} is too long to enumerate exactly (at most {MAX_SEQUENCE_LENGTH})"
            )
        self.channel, self.n = channel, int(n)
        self._reports = np.asarray(channel.support(0))
        self.domain = tuple(tuple(s) for s in itertools.product(range(channel.k), repeat=self.n))
        self._outcomes = np.array(list(itertools.product(range(len(self._reports)), repeat=self.n)))

    @property
    def claim(self) -> PureDP:
        return PureDP(round_up(self.n * self.channel.claim.epsilon), AllPairs(self.domain))

    def sample(self, x, rng, size):
        x = np.asarray(x).reshape(-1)
        return np.stack([self.channel.sample(int(v), rng, size) for v in x], axis=1)

    def support(self, x):
        return self._reports[self._outcomes]

    def _rows(self, x, face):
        fn = getattr(self.channel, face, None)
        if not callable(fn):
            return None
        rows = [fn(int(v), self._reports) for v in np.asarray(x).reshape(-1)]
        return None if any(r is None for r in rows) else rows

    def _index(self, outcomes):
        lookup = {v: i for i, v in enumerate(self._reports.tolist())}
        out = np.asarray(outcomes).reshape(-1, self.n)
        return [[lookup[v] for v in row] for row in out.tolist()]

    def pmf(self, x, outcomes):
        """Π_i of the randomizer's exact probabilities (Fractions), or None when its face is logpmf."""
        rows = self._rows(x, "pmf")
        if rows is None:
            return None
        rows = [[Fraction(v) for v in r] for r in rows]
        out = np.empty(len(self._index(outcomes)), dtype=object)
        for j, o in enumerate(self._index(outcomes)):
            p = Fraction(1)
            for i, y in enumerate(o):
                p *= rows[i][y]
            out[j] = p
        return out

    def logpmf(self, x, outcomes):
        """Σ_i of the randomizer's log-probabilities, summed exactly (Fractions; the per-report logs are exact
        doubles) — −inf where a report is impossible."""
        rows = self._rows(x, "logpmf")
        out = np.empty(len(self._index(outcomes)), dtype=object)
        for j, o in enumerate(self._index(outcomes)):
            terms = [float(rows[i][y]) for i, y in enumerate(o)]
            out[j] = -np.inf if any(t == -np.inf for t in terms) else sum(Fraction(t) for t in terms)
        return out
