"""The tree-based (binary) mechanism for continual release of prefix sums.

Over a stream x_1..x_T, every dyadic block [i·2^j + 1, (i+1)·2^j] (level j = 0..L−1, L = ⌊log2 T⌋ + 1) gets
its sum plus independent Lap(L·Δ/ε) noise; the prefix sum S_t is the sum of the ≤ L blocks of the binary
decomposition of t.  Each element lies in at most L blocks, so the vector of noisy block sums, and any
post-processing of it such as the T released prefix sums, is ε-DP when one element moves by at most Δ
(Dwork, Naor, Pitassi & Rothblum 2010; Chan, Shi & Song 2011).

With per-leaf truncation bounds B_t (DP Robust UCB's B_n, which grows with the leaf index), x̃_t =
x_t·1{|x_t| ≤ B_t}, Δ = 2·max_t B_t (the largest bound any leaf can hold), and the relation is
``ReplaceRecord()`` — any single element may change arbitrarily.

:func:`dyadic_blocks` and :func:`prefix_blocks` describe the blocks; :func:`tree_noise_scale` is the one
calibration; :class:`StreamingTrees` keeps, for many runs × arms at once, the same noisy block sums online
(the n-th element closes exactly one block, the one of length 2^i ending at n with i the number of trailing
zeros of n, so each insert draws one noise) — the private sums of DP Robust UCB.
"""

from __future__ import annotations

import math

from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument, PureDP, ReplaceOne, ReplaceRecord, check_int, check_real, round_up
from privcheck.core.jit import njit

from fractions import Fraction

from .exact_sampling import discrete_gaussian, discrete_laplace
from .grid import MAX_GRID_INDEX, MAX_NOISE_STEPS, check_grid, default_grid, from_grid, to_grid, units_at_least
from .noise import as_float_input
from .truncation import truncate

__all__ = [
    "tree_levels",
    "dyadic_blocks",
    "prefix_blocks",
    "tree_noise_scale",
    "TreeCounter",
    "GridTreeCounter",
    "ContinualTree",
    "StreamingTrees",
    "init_trees",
    "tree_insert",
    "grid_tree_insert",
    "tree_sums",
    "tree_means_plus_power",
]


def tree_levels(horizon: int) -> int:
    """L = ⌊log2 T⌋ + 1: the number of levels, and the most blocks an element belongs to."""
    return int(horizon).bit_length()


def tree_noise_scale(epsilon: float, horizon: int, sensitivity: float) -> float:
    """The Laplace scale L·Δ/ε of every block of a tree over ``horizon`` elements (L = :func:`tree_levels`)."""
    from fractions import Fraction

    from .calibration import div_up

    if not math.isfinite(sensitivity):  # an untruncated input: no finite scale
        return math.inf
    return div_up(tree_levels(horizon) * Fraction(sensitivity), Fraction(epsilon))  # rounded up


def dyadic_blocks(horizon: int) -> np.ndarray:
    """(n_blocks, 2) array of [start, stop) 0-based element ranges, level by level (level 0 first)."""
    blocks = []
    for j in range(tree_levels(horizon)):
        w = 1 << j
        for i in range(horizon // w):
            blocks.append((i * w, (i + 1) * w))
    return np.asarray(blocks, dtype=np.int64).reshape(-1, 2)


def prefix_blocks(horizon: int) -> np.ndarray:
    """(T, L) array: row t−1 lists the block ids whose union is [0, t); −1 pads unused slots."""
    L = tree_levels(horizon)
    index = {tuple(b): n for n, b in enumerate(dyadic_blocks(horizon).tolist())}
    out = np.full((horizon, L), -1, dtype=np.int64)
    for t in range(1, horizon + 1):
        start, slot = 0, 0
        for j in reversed(range(L)):
            if t & (1 << j):
                out[t - 1, slot] = index[(start, start + (1 << j))]
                start += 1 << j
                slot += 1
    return out


class TreeCounter:
    """Continual release of the T prefix sums of a stream, with Laplace noise on every dyadic block.

    Parameters
    ----------
    epsilon : ε > 0 for the whole released sequence.
    horizon : T, the stream length.
    sensitivity : Δ, the most one element may move (relation ``ReplaceOne('l1', Δ)``); ignored with ``bounds``.
    bounds : optional per-leaf truncation bounds B_1..B_T; then Δ = 2·max B_t and the relation is
        ``ReplaceRecord()``.
    """

    name = "tree-counter"
    sampler = "float"  # floating-point noise: not protected against bit-level attacks (no grid form yet)

    def __init__(self, epsilon: float, horizon: int, sensitivity: float = 1.0, bounds=None):
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.horizon = check_int("horizon", horizon)
        if bounds is not None:
            b = np.asarray(bounds, dtype=float)
            if b.shape != (self.horizon,) or not np.all(np.isfinite(b)) or np.any(b <= 0):
                raise InvalidArgument(f"bounds must be {self.horizon} positive numbers")
            self.bounds = b
            self.sensitivity = 2.0 * float(b.max())
        else:
            self.bounds = None
            self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        self.levels = tree_levels(self.horizon)
        self.scale = tree_noise_scale(self.epsilon, self.horizon, self.sensitivity)
        self._blocks = dyadic_blocks(self.horizon)
        self._prefix = prefix_blocks(self.horizon)

    @property
    def example_input(self):
        return np.zeros(self.horizon)

    @property
    def claim(self) -> PureDP:
        rel = ReplaceRecord() if self.bounds is not None else ReplaceOne("l1", self.sensitivity)
        return PureDP(round_up(self.epsilon), rel)

    def stream(self, x) -> np.ndarray:
        """The input as the stream of T elements the tree sums, truncated with ``bounds``."""
        a = as_float_input(x)
        if a.shape != (self.horizon,):
            raise InvalidArgument(f"input of shape {a.shape} must be a stream of {self.horizon} numbers")
        return truncate(a, self.bounds) if self.bounds is not None else a

    def dyadic_sums(self, elements: np.ndarray) -> np.ndarray:
        """The sum over every dyadic block of ``elements`` (one cumulative sum, differenced)."""
        c = np.concatenate([np.zeros(1, dtype=elements.dtype), np.cumsum(elements)])
        return c[self._blocks[:, 1]] - c[self._blocks[:, 0]]

    def block_sums(self, x) -> np.ndarray:
        return self.dyadic_sums(self.stream(x))

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        sums = self.block_sums(x)
        noisy = sums + rng.laplace(0.0, self.scale, size=(size, sums.size))
        noisy = np.concatenate([noisy, np.zeros((size, 1))], axis=1)  # id −1 → the zero column
        return noisy[:, self._prefix].sum(axis=2)

    def release_epsilon(self) -> float:
        """The exact pure ε of the released prefix sums, which can be below the calibrated ε.

        Each prefix [0, t) is the union of its binary decomposition, and prefix t brings exactly one new block,
        [t − lowbit(t), t); so the T released sums are a unit-triangular (invertible, Jacobian 1) image of T
        independent Laplace blocks, and replacing element n moves the density ratio by at most
        c_n·Δ_n/scale, where c_n counts the *released* blocks containing n and Δ_n is 2B_n (or the
        sensitivity).  The calibration L·Δ/ε counts all L levels and the largest Δ, so the release is
        max_n c_n Δ_n/scale ≤ ε."""
        used = np.unique(self._prefix[self._prefix >= 0])
        cover = np.zeros(self.horizon + 1)
        np.add.at(cover, self._blocks[used, 0], 1.0)
        np.add.at(cover, self._blocks[used, 1], -1.0)
        c = np.cumsum(cover)[:-1]  # released blocks containing each element
        delta = 2.0 * self.bounds if self.bounds is not None else np.full(self.horizon, self.sensitivity)
        return float((c * delta).max() / self.scale)

    def __repr__(self):
        return f"TreeCounter(epsilon={self.epsilon!r}, horizon={self.horizon}, sensitivity={self.sensitivity!r})"


class GridTreeCounter(TreeCounter):
    """The tree-based counter on a grid: every element (truncated first, with ``bounds``) rounded to a power-of-two
    grid g, the dyadic block sums taken exactly in integers, and g times an exact discrete Laplace draw of integer
    scale t = ⌈L·(Δ/g + 1)/ε⌉ added to every block (an element moves by at most Δ/g + 1 grid steps and lies in at
    most L blocks); the released prefix sums n·g are exact doubles.  ``grid``: default the largest power of two
    ≤ Δ·2^−20·min(1, 1/ε)."""

    sampler = "exact"

    def __init__(self, epsilon: float, horizon: int, sensitivity: float = 1.0, bounds=None, grid=None):
        super().__init__(epsilon, horizon, sensitivity, bounds)
        self.grid = default_grid(self.sensitivity, self.epsilon) if grid is None else check_grid(grid)
        steps = Fraction(self.sensitivity) / Fraction(self.grid) + 1
        self.t = units_at_least(self.levels * steps / Fraction(self.epsilon))
        if self.t >= MAX_NOISE_STEPS:
            raise InvalidArgument(
                f"the noise is {self.t:.3g} grid steps: too fine a grid for this ε (give a coarser "
                f'grid=, or sampler="float")'
            )
        self.scale = self.t * self.grid

    @property
    def claim(self) -> PureDP:
        rel = ReplaceRecord() if self.bounds is not None else ReplaceOne("l1", self.sensitivity)
        return PureDP(self.epsilon, rel)

    def block_sums(self, x) -> np.ndarray:
        """The dyadic block sums of the grid indices of the (truncated) elements, exact int64."""
        return self.dyadic_sums(to_grid(self.stream(x), self.grid))

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        sums = self.block_sums(x)
        noisy = sums + discrete_laplace(rng, self.t, size * sums.size).reshape(size, sums.size)
        noisy = np.concatenate([noisy, np.zeros((size, 1), dtype=np.int64)], axis=1)  # id −1 → the zero column
        return from_grid(noisy[:, self._prefix].sum(axis=2), self.grid)

    def release_epsilon(self) -> float:
        """The exact pure ε of the released prefix sums (as :meth:`TreeCounter.release_epsilon`, in grid steps:
        element n moves c_n released blocks by at most Δ_n/g + 1 steps each, against the scale t)."""
        used = np.unique(self._prefix[self._prefix >= 0])
        cover = np.zeros(self.horizon + 1)
        np.add.at(cover, self._blocks[used, 0], 1.0)
        np.add.at(cover, self._blocks[used, 1], -1.0)
        c = np.cumsum(cover)[:-1]
        delta = 2.0 * self.bounds if self.bounds is not None else np.full(self.horizon, self.sensitivity)
        return float((c * (delta / self.grid + 1)).max() / self.t)

    def __repr__(self):
        return (
            f"GridTreeCounter(epsilon={self.epsilon!r}, horizon={self.horizon}, "
            f"sensitivity={self.sensitivity!r}, grid={self.grid!r})"
        )


class StreamingTrees(NamedTuple):
    """One tree per (run, arm), filled online.  ``exact[r, a, i]`` is the sum of the open or last closed block
    of level i, ``noisy[r, a, i]`` that block's released (noisy) sum, ``count[r, a]`` the elements inserted."""

    exact: np.ndarray  # (runs, K, L)
    noisy: np.ndarray  # (runs, K, L)
    count: np.ndarray  # (runs, K) int64


def init_trees(runs: int, n_arms: int, horizon: int) -> StreamingTrees:
    L = tree_levels(horizon)
    return StreamingTrees(
        np.zeros((runs, n_arms, L)), np.zeros((runs, n_arms, L)), np.zeros((runs, n_arms), dtype=np.int64)
    )


@njit(cache=True, inline="always")
def _put(exact, noisy, count, r, a, x, noise):
    """Element x appended to tree (r, a): the block it closes gets ``noise``."""
    count[r, a] += 1
    n = count[r, a]
    i = 0
    while (n >> i) & 1 == 0:
        i += 1
    total = x
    for j in range(i):  # the closed block of level i is the union of the lower open ones and x
        total += exact[r, a, j]
        exact[r, a, j] = 0.0
        noisy[r, a, j] = 0.0
    exact[r, a, i] = total
    noisy[r, a, i] = total + noise


@njit(cache=True)
def _insert(exact, noisy, count, arms, x, noise):
    for r in range(arms.size):
        _put(exact, noisy, count, r, arms[r], x[r], noise[r])


@njit(cache=True)
def _grid_insert(exact, noisy, count, arms, x, bounds, g, steps, most):
    """:func:`_insert` of the elements truncated at ``bounds`` and rounded to the grid g, the noise ``steps``·g;
    0 when done, 1 when a tree was full, 2 when an element or a noise left the grid's exact range (nothing
    inserted then)."""
    v = np.empty(arms.size)
    for r in range(arms.size):
        n = count[r, arms[r]]
        if n >= bounds.size:
            return 1
        v[r] = x[r] if abs(x[r]) <= bounds[n] else 0.0  # the n-th element's bound B_n (NaN, ±inf beyond it)
        if abs(steps[r]) >= most or not abs(v[r]) / g < most // 2:
            return 2
    for r in range(arms.size):
        _put(exact, noisy, count, r, arms[r], np.rint(v[r] / g) * g, steps[r] * g)
    return 0


def tree_insert(trees: StreamingTrees, arms, x, noise) -> StreamingTrees:
    """A new state with x[r] appended to tree (r, arms[r]); ``noise[r]`` is the noise of the block it closes."""
    new = StreamingTrees(trees.exact.copy(), trees.noisy.copy(), trees.count.copy())
    if new.count.max(initial=0) >= 1 << new.exact.shape[2]:
        raise InvalidArgument("a tree is full: more elements than its horizon")
    _insert(
        new.exact,
        new.noisy,
        new.count,
        np.asarray(arms, dtype=np.int64),
        np.asarray(x, dtype=float),
        np.asarray(noise, dtype=float),
    )
    return new


def grid_tree_insert(trees: StreamingTrees, arms, x, bounds, grid: float, steps) -> StreamingTrees:
    """A new state with x[r] appended to tree (r, arms[r]) as :class:`GridTreeCounter` streams it: truncated at
    ``bounds[n]`` (:func:`mechanisms.truncate`; n the elements the tree held, so ``bounds`` is B_1..B_T), rounded
    to the power-of-two ``grid`` (:func:`mechanisms.grid.to_grid`, refused as it refuses an element past its exact
    range) and closing its block with noise ``steps[r]``·grid — the same doubles as those steps one by one, in one
    compiled pass (DP Robust UCB's update, every round)."""
    new = StreamingTrees(trees.exact.copy(), trees.noisy.copy(), trees.count.copy())
    b = np.asarray(bounds, dtype=float)
    if b.ndim != 1 or b.size > 1 << new.exact.shape[2]:
        raise InvalidArgument("bounds must be one truncation bound per element the trees can hold")
    code = _grid_insert(
        new.exact,
        new.noisy,
        new.count,
        np.asarray(arms, dtype=np.int64),
        np.asarray(x, dtype=float),
        b,
        float(grid),
        np.asarray(steps, dtype=np.int64),
        MAX_GRID_INDEX,
    )
    if code == 1:
        raise InvalidArgument("a tree is full: more elements than its horizon")
    if code == 2:
        raise InvalidArgument("an element's bound or a noise left the grid's exact range: give a coarser grid=")
    return new


@njit(cache=True, inline="always")
def _prefix(noisy, r, a, n):
    """Tree (r, a)'s released sum of its first n elements: the noisy blocks of n's binary decomposition."""
    s = 0.0
    i = 0
    while n >> i:
        if (n >> i) & 1:
            s += noisy[r, a, i]
        i += 1
    return s


@njit(cache=True)
def _sums(noisy, count, out):
    for r in range(count.shape[0]):
        for a in range(count.shape[1]):
            out[r, a] = _prefix(noisy, r, a, count[r, a])


@njit(cache=True)
def _means_plus_power(noisy, count, scale, level, power, out):
    for r in range(count.shape[0]):
        for a in range(count.shape[1]):
            n = count[r, a]
            out[r, a] = _prefix(noisy, r, a, n) / n + scale * (level / n) ** power if n else np.inf


def tree_sums(trees: StreamingTrees) -> np.ndarray:
    """(runs, K) released prefix sums: the noisy blocks of the binary decomposition of each count."""
    out = np.empty(trees.count.shape)
    _sums(trees.noisy, trees.count, out)
    return out


def tree_means_plus_power(trees: StreamingTrees, scale: float, level: float, power: float) -> np.ndarray:
    """(runs, K) released prefix sums over counts n plus the width scale·(level/n)^power, +∞ for a tree with no
    element yet — a robust UCB's index (DP Robust UCB's, every round) in one compiled pass, the power the C
    library's ``pow`` (numpy's vectorised power may differ from it in the last bit)."""
    out = np.empty(trees.count.shape)
    _means_plus_power(trees.noisy, trees.count, float(scale), float(level), float(power), out)
    return out


class ContinualTree:
    """The binary mechanism online over many streams at once, exactly on integers: every stream of ``shape`` (a
    batch of runs × the statistics of each) receives one element a step, for at most ``horizon`` steps; the n-th
    element closes the dyadic block of length 2^i ending at n (i the trailing zeros of n), whose exact sum gets
    discrete Laplace noise of scale ``steps`` (P(z) ∝ exp(−|z|/steps): :func:`~.exact_sampling.discrete_laplace`,
    exact from random integers); the released prefix sum is the sum of the noisy blocks of n's binary decomposition
    — the levels kept are exactly those (a level whose bit is unset was cleared when a higher one closed).

    Each element lies in at most L = :func:`tree_levels` (horizon) blocks, so a change of d units in one element
    moves the noisy blocks by L·d in ℓ1 and the whole release sequence — and anything computed from it — is
    (L·Δ/steps)-DP when the streams' elements move by at most Δ in ℓ1 altogether (Chan, Shi & Song 2011).
    ``steps=None`` releases the exact prefix sums (a non-private twin).  Elements are integers (a grid's units).

    With ``sigma2`` (a :class:`~fractions.Fraction`, in units squared) instead of ``steps``, every block gets the
    discrete Gaussian of that variance parameter (:func:`~.exact_sampling.discrete_gaussian`, exact): the release
    sequence is then (L·Δ₂²/(2σ²))-zCDP when the elements move by at most Δ₂ in ℓ2 altogether (Canonne, Kamath and
    Steinke, "The Discrete Gaussian for Differential Privacy", Theorem 4, composed over the L blocks)."""

    def __init__(self, shape, horizon: int, steps: int | None, rng: np.random.Generator, sigma2=None):
        if steps is not None and sigma2 is not None:
            raise InvalidArgument("a ContinualTree takes steps= (discrete Laplace) or sigma2= (discrete Gaussian)")
        self.shape, self.steps, self.rng = tuple(int(n) for n in np.atleast_1d(shape)), steps, rng
        self.sigma2 = None if sigma2 is None else Fraction(sigma2)
        levels = tree_levels(check_int("horizon", horizon))
        self.exact = np.zeros((levels, *self.shape), dtype=np.int64)
        self.noisy = np.zeros((levels, *self.shape), dtype=np.int64)
        self.n = 0

    def add(self, x) -> np.ndarray:
        """Add one element to every stream (integers of ``shape``) and return the noisy prefix sums after it."""
        self.n += 1
        if self.n >= 1 << self.exact.shape[0]:
            raise InvalidArgument(f"a ContinualTree of {self.exact.shape[0]} levels received element {self.n}")
        i = (self.n & -self.n).bit_length() - 1
        self.exact[i] = self.exact[:i].sum(axis=0) + np.asarray(x, dtype=np.int64)
        self.exact[:i] = 0
        noise = 0
        if self.steps is not None:
            noise = discrete_laplace(self.rng, self.steps, int(np.prod(self.shape))).reshape(self.shape)
        elif self.sigma2 is not None:
            noise = discrete_gaussian(self.rng, self.sigma2, int(np.prod(self.shape))).reshape(self.shape)
        self.noisy[i] = self.exact[i] + noise
        self.noisy[:i] = 0
        return self.noisy.sum(axis=0)
