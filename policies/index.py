"""Index policies: UCB1, kl-UCB, sliding-window UCB, and their corrupt-bandit forms kl-UCB-CF, UCB-CF and
SW-KLUCB-CF — one class, configured.

For each arm with N > 0 pulls (in the window, for windowed policies) and feedback mean λ̂, at round t with
n = t − 1 completed rounds (n ∧ w with a window) and level f⁺(n) (:mod:`policies.exploration`):

* rule ``kl``:        bound = upper(λ̂, f/N) for increasing g, lower(λ̂, f/N) for decreasing g (:mod:`policies.kl`)
* rule ``hoeffding``: bound = λ̂ ± √(f/(2N))

and the index is g⁻¹(bound) clipped to [0, 1] (:mod:`policies.corruption`; the identity when the feedback is
not corrupted).  An arm with no pull (in the window) has index +∞, so every arm is explored; ties are broken
uniformly.  Sources: Auer, Cesa-Bianchi & Fischer 2002 (UCB1); Garivier & Cappé 2011 (kl-UCB); Garivier &
Moulines 2011 (SW-UCB); Gajane, Urvoy & Kaufmann, ALT 2018 (kl-UCB-CF, UCB-CF); Gajane, AAAI 2023,
Algorithm 1 (SW-KLUCB-CF, with window w = ⌈√(4eT/(L_T + 4))⌉ and f(x) = log x + 3 log log x from its
Theorem 1; the window default is checked in ``proofs``).
"""

from __future__ import annotations

import math

import numpy as np

from privcheck.core import InvalidArgument, check_real
from privcheck.core.jit import njit, prange

from .base import (
    Window,
    check_arms,
    check_runs,
    choose,
    init_counts,
    init_window,
    pick,
    tie_probs,
    update_counts,
    update_window,
)
from .corruption import Corruption
from .exploration import level
from .kl import kl_scalar, lower_scalar, upper_bound_cheap, upper_scalar

__all__ = ["IndexPolicy", "UCB1", "KLUCB", "SWUCB", "KLUCBCF", "UCBCF", "SWKLUCBCF", "sw_klucb_window"]

_KL, _HOEFFDING = 0, 1


@njit(cache=True)
def _to_mean(bound, a, affine, intercept, slope):
    """g⁻¹(bound) clipped to g([0, 1]) then [0, 1], for an affine g (the identity when not ``affine``)."""
    if not affine or bound == np.inf:
        return bound
    if slope[a] == 0.0:
        return 1.0
    g0, g1 = intercept[a], intercept[a] + slope[a]
    q = (min(max(bound, min(g0, g1)), max(g0, g1)) - intercept[a]) / slope[a]
    return min(max(q, 0.0), 1.0)


@njit(cache=True)
def _index(rule, N, S, f, direction, affine, intercept, slope, r, a):
    """The index of arm a in run r: the confidence bound on λ, then g⁻¹ of it."""
    return _index_ns(rule, N[r, a], S[r, a], f, direction, affine, intercept, slope, a)


@njit(cache=True)
def _index_ns(rule, n, s, f, direction, affine, intercept, slope, a):
    """The index of arm a with n pulls and feedback sum s."""
    if n == 0:
        return np.inf
    lam = s / n
    if rule == _KL:
        bound = upper_scalar(lam, f / n) if direction[a] >= 0 else lower_scalar(lam, f / n)
    else:
        b = math.sqrt(f / (2.0 * n))
        bound = lam + b if direction[a] >= 0 else lam - b
    return _to_mean(bound, a, affine, intercept, slope)


@njit(cache=True)
def _cheap_upper(rule, N, S, f, direction, affine, intercept, slope, r, a):
    """A number ≥ the index, without logarithms (:func:`policies.kl.upper_bound_cheap` for the kl bound)."""
    n = N[r, a]
    if n == 0:
        return np.inf
    if rule != _KL:
        return _index(rule, N, S, f, direction, affine, intercept, slope, r, a)
    lam = S[r, a] / n
    if direction[a] >= 0:
        bound = upper_bound_cheap(lam, f / n)
    else:
        bound = 1.0 - upper_bound_cheap(1.0 - lam, f / n)
    q = _to_mean(bound, a, affine, intercept, slope)
    return q if q == np.inf else q + 1e-9


@njit(cache=True)
def _may_reach(rule, N, S, f, direction, affine, intercept, slope, r, a, m):
    """False only when arm a's computed index is provably below m: one divergence instead of a solve.

    With y = g(m) the index reaches m iff the kl bound passes y; the bound is below y − 2e-12 (so that even
    its 1e-12 rounding margin keeps it below y) iff d(λ̂, y ∓ 2e-12) > level on the far side of λ̂.
    """
    n = N[r, a]
    if rule != _KL or n == 0 or m == np.inf or m <= 0.0 or m >= 1.0:  # clipped plateaus tie: no pruning
        return True
    y = intercept[a] + slope[a] * m if affine else m
    lam = S[r, a] / n
    level = f / n
    if direction[a] >= 0:
        y -= 2e-12
        if y <= lam or y >= 1.0:
            return True
    else:
        y += 2e-12
        if y >= lam or y <= 0.0:
            return True
    return kl_scalar(lam, y) <= level * (1.0 + 1e-12) + 1e-15


@njit(cache=True)
def _index_row(rule, N, S, f, direction, affine, intercept, slope, out, r):
    for a in range(N.shape[1]):
        out[a] = _index(rule, N, S, f, direction, affine, intercept, slope, r, a)


@njit(cache=True)
def _act_row(rule, N, S, f, direction, affine, intercept, slope, u, r, cheap, exact):
    """The arm ``pick`` would take from the exact indices, computing only those that can be maximal.

    Arms are visited in decreasing order of a cheap upper bound of their index (``cheap`` is scratch): the
    first is solved exactly, and each next one only if its cheap bound reaches the largest index so far and
    ``_may_reach`` says it can; the visit stops at the first cheap bound below it.  An arm not solved is
    provably below the maximum, so the maximisers — and the arm picked among them — are those of the exact
    indices, whatever the order (tested against ``choose`` on the indices).
    """
    K = N.shape[1]
    best = 0
    for a in range(K):
        cheap[a] = _cheap_upper(rule, N, S, f, direction, affine, intercept, slope, r, a)
        exact[a] = -np.inf
        if cheap[a] > cheap[best]:
            best = a
    m = _index(rule, N, S, f, direction, affine, intercept, slope, r, best)
    exact[best] = m
    cheap[best] = -np.inf
    while True:
        a = 0
        for b in range(1, K):
            if cheap[b] > cheap[a]:
                a = b
        if not cheap[a] >= m:
            break
        cheap[a] = -np.inf
        if _may_reach(rule, N, S, f, direction, affine, intercept, slope, r, a, m):
            exact[a] = _index(rule, N, S, f, direction, affine, intercept, slope, r, a)
            if exact[a] > m:
                m = exact[a]
    return pick(exact, u)


@njit(cache=True)
def _indices_serial(rule, N, S, f, direction, affine, intercept, slope, out):
    for r in range(N.shape[0]):
        _index_row(rule, N, S, f, direction, affine, intercept, slope, out[r], r)


@njit(cache=True, parallel=True)
def _indices_parallel(rule, N, S, f, direction, affine, intercept, slope, out):
    for r in prange(N.shape[0]):
        _index_row(rule, N, S, f, direction, affine, intercept, slope, out[r], r)


@njit(cache=True)
def _act_serial(rule, N, S, f, direction, affine, intercept, slope, u, arms):
    cheap, exact = np.empty(N.shape[1]), np.empty(N.shape[1])
    for r in range(N.shape[0]):
        arms[r] = _act_row(rule, N, S, f, direction, affine, intercept, slope, u[r], r, cheap, exact)


@njit(cache=True, parallel=True)
def _act_parallel(rule, N, S, f, direction, affine, intercept, slope, u, arms):
    R = N.shape[0]
    n_blocks = (R + 1023) // 1024
    for blk in prange(n_blocks):  # scratch buffers once per block of rows, not per row
        cheap, exact = np.empty(N.shape[1]), np.empty(N.shape[1])
        for r in range(blk * 1024, min(R, (blk + 1) * 1024)):
            arms[r] = _act_row(rule, N, S, f, direction, affine, intercept, slope, u[r], r, cheap, exact)


@njit(cache=True, parallel=True)
def _act_tabulated(rule, N, S, f, direction, affine, intercept, slope, u, arms, width):
    """``_act_row`` for many runs whose counts are integers (binary feedback): the index depends on the run only
    through (arm, N, S), so each distinct triple present is solved once per round and looked up by every run
    that has it — bit-identical values, far fewer solves when runs outnumber the states (a privacy audit: 10⁵
    runs, T = 100).  ``width`` = 1 + the largest N."""
    R, K = N.shape
    need = np.zeros((K, width, width), dtype=np.bool_)
    for r in prange(R):  # every writer stores True: the race is benign
        for a in range(K):
            need[a, N[r, a], int(S[r, a])] = True
    table = np.empty((K, width, width))
    for an in prange(K * width):
        a, n = an // width, an % width
        for s in range(n + 1):
            if need[a, n, s]:
                table[a, n, s] = _index_ns(rule, n, float(s), f, direction, affine, intercept, slope, a)
    n_blocks = (R + 1023) // 1024
    for blk in prange(n_blocks):
        vals = np.empty(K)
        for r in range(blk * 1024, min(R, (blk + 1) * 1024)):
            for a in range(K):
                vals[a] = table[a, N[r, a], int(S[r, a])]
            arms[r] = pick(vals, u[r])


PARALLEL_FROM = 8192  # runs × arms: below this, starting threads (~20 µs a call) costs more than it saves
_TABLE_MAX = 1 << 21  # entries of the (arm, N, S) table of _act_tabulated (16 MB of indices)


def _tabulable(N, S) -> int:
    """1 + max N when ``_act_tabulated`` applies and pays (integer sums 0 ≤ S ≤ N, fewer possible (arm, N, S)
    states than runs × arms, a table within _TABLE_MAX); else 0."""
    K = N.shape[1]
    width = int(N.max()) + 1
    if K * width * width > _TABLE_MAX or K * width * (width + 1) // 2 >= N.size:
        return 0
    if not (np.array_equal(S, np.rint(S)) and (S >= 0).all() and (S <= N).all()):
        return 0
    return width


def sw_klucb_window(horizon: int, breakpoints: int) -> int:
    """w = ⌈√(4eT/(L_T + 4))⌉ (Theorem 1 of the AAAI 2023 paper), at least 3 so that f(w) > 0 is reachable."""
    return max(3, math.ceil(math.sqrt(4 * math.e * horizon / (breakpoints + 4))))


class IndexPolicy:
    """An index policy over K arms (see the module docstring for the index).

    Parameters
    ----------
    n_arms : K ≥ 2.
    rule : ``"kl"`` or ``"hoeffding"``.
    log_coef, exploration : a and c in f(n) = a ln n + c ln ln n.
    window : w, or None for the whole history.
    corruption : the per-arm g; identity when None.
    """

    n_uniforms = 1
    claim = None  # the privacy claim (set when private), and the definition it is audited under
    definition = None

    def __init__(
        self,
        n_arms: int,
        rule: str = "kl",
        log_coef: float = 1.0,
        exploration: float = 0.0,
        window: int | None = None,
        corruption: Corruption | None = None,
        name: str = "index",
    ):
        self.n_arms = check_arms(n_arms)
        if rule not in ("kl", "hoeffding"):
            raise InvalidArgument(f"rule={rule!r} must be 'kl' or 'hoeffding'")
        self.rule = _KL if rule == "kl" else _HOEFFDING
        self.log_coef = check_real("log_coef", log_coef, lower=0.0, lower_open=True)
        self.exploration = check_real("exploration", exploration, lower=0.0)
        if window is not None and (isinstance(window, bool) or int(window) != window or window < 1):
            raise InvalidArgument(f"window={window!r} must be an integer >= 1")
        self.window = None if window is None else int(window)
        self.corruption = corruption or Corruption.identity(self.n_arms)
        if self.corruption.n_arms != self.n_arms:
            raise InvalidArgument(f"the corruption has {self.corruption.n_arms} arms, the policy {self.n_arms}")
        self._zeros = np.zeros(self.n_arms)
        self.name = name

    def init(self, runs: int):
        runs = check_runs(runs)
        if self.window is None:
            return init_counts(runs, self.n_arms)
        return init_window(runs, self.n_arms, self.window)

    def level(self, t: int) -> float:
        n = t - 1 if self.window is None else min(t - 1, self.window)
        return level(n, self.log_coef, self.exploration)

    def corruption_args(self) -> tuple:
        """(direction, affine, intercept, slope): how the kernels see g (``affine`` False for the identity and
        for a non-affine g, whose inverse is applied afterwards)."""
        c = self.corruption
        affine = c.is_affine and not c.is_identity
        intercept = c.intercept if c.is_affine else self._zeros
        slope = c.slope if c.is_affine else self._zeros
        return c.direction, affine, intercept, slope

    def _args(self, state, t):
        return (self.rule, state.N, state.S, self.level(t), *self.corruption_args())

    def indices(self, state, t: int) -> np.ndarray:
        """(runs, K) indices in mean-reward space; +inf for arms not pulled (in the window)."""
        out = np.empty(state.N.shape)
        kernel = _indices_parallel if out.size >= PARALLEL_FROM else _indices_serial
        kernel(*self._args(state, t), out)
        if self.corruption.is_affine:
            return out
        return self.corruption.inverse_clipped(out)

    def act(self, state, t: int, u) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        u = u[:, 0] if u.ndim == 2 else u
        if not self.corruption.is_affine:
            return choose(self.indices(state, t), u)
        arms = np.empty(state.N.shape[0], dtype=np.int64)
        if self.rule == _KL and state.N.size >= PARALLEL_FROM:
            width = _tabulable(state.N, state.S)
            if width:
                _act_tabulated(*self._args(state, t), np.ascontiguousarray(u), arms, width)
                return arms
        kernel = _act_parallel if state.N.size >= PARALLEL_FROM else _act_serial
        kernel(*self._args(state, t), np.ascontiguousarray(u), arms)
        return arms

    def probs(self, state, t: int) -> np.ndarray:
        return tie_probs(self.indices(state, t))

    def update(self, state, t: int, arms, feedback, u=None):
        if isinstance(state, Window):
            return update_window(state, t, arms, feedback)
        return update_counts(state, arms, feedback)

    def __repr__(self):
        return f"{self.name}(K={self.n_arms})"


def UCB1(n_arms: int) -> IndexPolicy:
    """λ̂ + √(2 ln n / N)."""
    return IndexPolicy(n_arms, "hoeffding", log_coef=4.0, name="ucb1")


def KLUCB(n_arms: int, exploration: float = 0.0) -> IndexPolicy:
    return IndexPolicy(n_arms, "kl", exploration=exploration, name="kl-ucb")


def SWUCB(n_arms: int, window: int, xi: float = 0.6) -> IndexPolicy:
    """λ̂_w + √(ξ ln(n ∧ w) / N_w) (Garivier & Moulines 2011, bound B = 1)."""
    return IndexPolicy(
        n_arms,
        "hoeffding",
        log_coef=2.0 * check_real("xi", xi, lower=0.0, lower_open=True),
        window=window,
        name="sw-ucb",
    )


def KLUCBCF(corruption: Corruption, exploration: float = 0.0) -> IndexPolicy:
    return IndexPolicy(corruption.n_arms, "kl", exploration=exploration, corruption=corruption, name="kl-ucb-cf")


def UCBCF(corruption: Corruption, exploration: float = 0.0) -> IndexPolicy:
    return IndexPolicy(corruption.n_arms, "hoeffding", exploration=exploration, corruption=corruption, name="ucb-cf")


def SWKLUCBCF(corruption: Corruption, window: int, exploration: float = 3.0) -> IndexPolicy:
    return IndexPolicy(
        corruption.n_arms, "kl", exploration=exploration, window=window, corruption=corruption, name="sw-klucb-cf"
    )
