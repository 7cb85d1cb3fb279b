"""Exact grid noise for the policies: draws keyed by the uniforms of their update protocol.

A policy's ``update(state, t, arms, feedback, u)`` takes its randomness as uniforms ``u`` drawn by the caller, so
that the same runs done one at a time or in a batch, with the same uniforms, are the same runs (common random
numbers: the auditor's neighbouring inputs see the same ones).  An exact sampler (Canonne, Kamath and Steinke,
"The Discrete Gaussian for Differential Privacy", NeurIPS 2020) cannot live on a fixed number of uniforms: it
rejects, and may need any number of random words.  So a noisy update takes :data:`KEY_UNIFORMS` uniforms per run
as a key — their 2 × 53 bits, the exact integers u·2^53 — and each of its draws reads as many 64-bit words as it
needs from the counter-based stream Philox4x64-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3",
SC 2011, the generator numpy ships as ``numpy.random.Philox``) under that key, at counter (block, slot, 0, 0)
for the draw's slot (an arm, a coordinate).  Each run's noise is a function of its own key only — batch and one
by one agree — and, the key being uniform, each draw is exactly the discrete Laplace or discrete Gaussian law
as far as Philox's output is uniform: the assumption every simulation makes of its generator.  The words are
checked bit for bit against ``numpy.random.Philox`` (``tests/test_keyed_noise.py``).

:class:`GridLaplaceRelease` and :class:`GridGaussianRelease` are the policies' releases: the statistic rounded
to a power-of-two grid g, plus g times the exact draw, calibrated like the grid mechanisms (:mod:`.grid`,
:mod:`.gaussian`): rounded neighbours are at most Δ/g + 1 steps apart per coordinate (√d more in ℓ2 over d
coordinates), and the scale in whole steps is rounded up in rationals.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from privcheck.core import InvalidArgument, check_int, check_real
from privcheck.core.jit import njit

from .exact_sampling import gaussian_at, discrete_laplace_words
from .gaussian import ceil_sqrt, steps_for_shift
from .grid import default_grid, from_grid, laplace_steps, to_grid

__all__ = [
    "KEY_UNIFORMS",
    "keys_from_uniforms",
    "philox_block",
    "keyed_discrete_laplace",
    "keyed_discrete_gaussian",
    "GridLaplaceRelease",
    "GridGaussianRelease",
    "laplace_release",
    "gaussian_release",
    "release_each",
]

#: uniforms per run that key a noisy update's draws (2 × 53 random bits)
KEY_UNIFORMS = 2
_M0, _M1 = np.uint64(0xD2E7470EE14C6C93), np.uint64(0xCA5A826395121157)
_W0, _W1 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBB67AE8584CAA73B)
_LO32 = np.uint64(0xFFFFFFFF)
_TWO53 = float(1 << 53)
_S32 = np.uint64(32)
_FIRST_BLOCKS = 4  # 16 words per draw to start with (about 9 used by a discrete Laplace draw); doubled on need
#: σ of the policies' discrete Gaussians in grid steps: 2^26 to 2^27, so that every acceptance test is in int64
GAUSS_BITS = 26


def keys_from_uniforms(u) -> np.ndarray:
    """(n, 2) uint64 keys from (n, ≥ 2) uniforms in [0, 1): the integers ⌊u·2^53⌋ of the first two columns."""
    u = np.asarray(u, dtype=float)
    if u.ndim != 2 or u.shape[1] < KEY_UNIFORMS:
        raise InvalidArgument(f"a noisy update needs {KEY_UNIFORMS} key uniforms per run, got shape {u.shape}")
    out = np.empty((u.shape[0], KEY_UNIFORMS), dtype=np.uint64)
    if not _keys(u, out):
        raise InvalidArgument("key uniforms must lie in [0, 1)")
    return out


@njit(cache=True)
def _keys(u, out):
    """out[i, j] = ⌊u[i, j]·2^53⌋ for the key columns (on every noisy update's path: one compiled pass); False at
    the first uniform outside [0, 1) (NaN included)."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            k = u[i, j] * _TWO53  # exact: a double in [0, 1) times 2^53
            if not (k >= 0.0 and k < _TWO53):
                return False
            out[i, j] = np.uint64(k)  # truncation toward zero is the floor of a non-negative number
    return True


@njit(cache=True, inline="always")
def _mulhilo(a, b):
    """(high, low) 64-bit words of the 128-bit product a·b."""
    a0, a1 = a & _LO32, a >> _S32
    b0, b1 = b & _LO32, b >> _S32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> _S32) + (p01 & _LO32) + (p10 & _LO32)
    return p11 + (p01 >> _S32) + (p10 >> _S32) + (mid >> _S32), a * b


@njit(cache=True, inline="always")
def philox_block(k0, k1, c0, c1, out, at):
    """Philox4x64-10 of counter (c0, c1, 0, 0) under key (k0, k1), into out[at:at + 4]."""
    x0, x1, x2, x3 = c0, c1, np.uint64(0), np.uint64(0)
    for _ in range(10):
        hi0, lo0 = _mulhilo(_M0, x0)
        hi1, lo1 = _mulhilo(_M1, x2)
        x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
        k0 += _W0
        k1 += _W1
    out[at], out[at + 1], out[at + 2], out[at + 3] = x0, x1, x2, x3


@njit(cache=True)
def _extend(buf, have, need, k0, k1, slot):
    """The buffer holding at least the first 4·need words of the stream of (key, slot), of which the first
    4·have are already in ``buf`` (grown by doubling): (buffer, blocks now in it)."""
    if 4 * need > buf.size:
        bigger = np.empty(max(4 * need, 2 * buf.size), dtype=np.uint64)
        bigger[: 4 * have] = buf[: 4 * have]
        buf = bigger
    for j in range(have, need):
        philox_block(k0, k1, np.uint64(j + 1), np.uint64(slot), buf, 4 * j)
    return buf, need


@njit(cache=True)
def _laplace_rows(keys, slots, t, out):
    one = np.empty(1, dtype=np.int64)
    buf = np.empty(4 * _FIRST_BLOCKS, dtype=np.uint64)
    for i in range(slots.size):
        have, need = 0, _FIRST_BLOCKS
        while True:  # a draw cut short by the words is made again from a longer prefix of the same stream
            buf, have = _extend(buf, have, need, keys[i, 0], keys[i, 1], slots[i])
            done, _ = discrete_laplace_words(buf[: 4 * have], t[i], one, 0)
            if done == 1:
                break
            need *= 2
        out[i] = one[0]


try:  # the same loops compiled ahead of time (mechanisms/_exactloop.c): numba takes 4–12 s to compile these
    from ._exactloop import keyed_gauss_rows as _compiled_gauss_rows, keyed_laplace_rows as _compiled_laplace_rows
except ImportError:  # not built: the numba kernels
    _compiled_gauss_rows = _compiled_laplace_rows = None


def keyed_discrete_laplace(keys, slots, t) -> np.ndarray:
    """One discrete Laplace draw of integer scale t[i] (P[z] ∝ e^(−|z|/t)) per entry, from the stream of
    (keys[i], slots[i]); CKS Algorithm 2, the compiled loop of :func:`mechanisms.exact_sampling.discrete_laplace`
    (the C extension where built, else the numba kernel: the same draws)."""
    keys, slots, t = _rows(keys, slots, t)
    out = np.empty(slots.size, dtype=np.int64)
    (_compiled_laplace_rows or _laplace_rows)(keys, slots, t, out)
    return out


@njit(cache=True, inline="always")
def _gauss_draw(words, s):
    """(a discrete Gaussian draw of σ = s steps, 1) or (0, 0) when out of words (:func:`~.exact_sampling.gaussian_at`
    from the stream's first word)."""
    y, pos = gaussian_at(words, 0, s)
    return (y, 1) if pos >= 0 else (np.int64(0), 0)


@njit(cache=True)
def _gauss_rows(keys, slots, s, out):
    buf = np.empty(8 * _FIRST_BLOCKS, dtype=np.uint64)
    for i in range(slots.size):
        have, need = 0, 2 * _FIRST_BLOCKS
        while True:
            buf, have = _extend(buf, have, need, keys[i, 0], keys[i, 1], slots[i])
            y, ok = _gauss_draw(buf[: 4 * have], s[i])
            if ok == 1:
                break
            need *= 2
        out[i] = y


def keyed_discrete_gaussian(keys, slots, s) -> np.ndarray:
    """One discrete Gaussian draw of integer σ = s[i] (P[z] ∝ e^(−z²/(2s²)), 1 ≤ s < 2^30) per entry, from the
    stream of (keys[i], slots[i])."""
    keys, slots, s = _rows(keys, slots, s)
    if s.size and s.max() >= 1 << 30:
        raise InvalidArgument("keyed_discrete_gaussian: σ must stay below 2^30 steps")
    out = np.empty(slots.size, dtype=np.int64)
    (_compiled_gauss_rows or _gauss_rows)(keys, slots, s, out)
    return out


def _rows(keys, slots, scale):
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    if keys.ndim != 2 or keys.shape[1] != 2:
        raise InvalidArgument("keyed draws need keys of shape (n, 2) and n slots")
    n = keys.shape[0]
    return keys, _column(slots, n, 0), _column(scale, n, 1)


def _column(values, n: int, least: int) -> np.ndarray:
    """``values`` (a scalar or n entries) as n contiguous int64 entries, each at least ``least`` — checked once
    for a scalar (the policies' per-round draws pass one scale and one slot: this is on their hot path)."""
    a = np.asarray(values, dtype=np.int64)
    if a.ndim == 0:
        v = int(a)
        if v < least:
            raise InvalidArgument("keyed draws need slots >= 0 and scales >= 1 step")
        out = np.empty(n, dtype=np.int64)
        out.fill(v)
        return out
    if a.shape != (n,):
        raise InvalidArgument("keyed draws need keys of shape (n, 2) and n slots")
    if n and a.min() < least:
        raise InvalidArgument("keyed draws need slots >= 0 and scales >= 1 step")
    return np.ascontiguousarray(a)


class GridLaplaceRelease:
    """ε-DP release of a real statistic whose neighbours differ by at most Δ (a rational: give one that covers the
    statistic's own float rounding, as :func:`mechanisms.truncation.mean_sensitivity` does): the statistic on the
    grid g = :func:`mechanisms.grid.default_grid`(Δ, ε) plus g·Z, Z discrete Laplace of t =
    :func:`mechanisms.grid.laplace_steps`(Δ, g, ε) whole steps — the lattice of
    :class:`mechanisms.GridTruncatedMean` for the same Δ and ε."""

    def __init__(self, sensitivity, epsilon: float):
        self.sensitivity = Fraction(sensitivity)
        if self.sensitivity <= 0:
            raise InvalidArgument(f"sensitivity={sensitivity!r} must be > 0")
        self.epsilon = check_real("epsilon", epsilon, lower=0.0, lower_open=True)
        self.grid = default_grid(float(self.sensitivity), self.epsilon)
        self.t = laplace_steps(self.sensitivity, self.grid, self.epsilon)
        self.scale = self.t * self.grid

    def release(self, values, keys, slots=0) -> np.ndarray:
        """round(v/g)·g + g·Z per entry of ``values`` (n,), Z from the stream of (keys[i], slots[i])."""
        v = np.asarray(values, dtype=float)
        z = keyed_discrete_laplace(keys, np.broadcast_to(np.asarray(slots, dtype=np.int64), v.shape), self.t)
        return from_grid(to_grid(v, self.grid) + z, self.grid)


class GridGaussianRelease:
    """ρ-zCDP release of a d-vector statistic of ℓ2 sensitivity Δ: each coordinate on the grid g (the largest power
    of two ≤ σ·2^−26 for σ = Δ/√(2ρ)) plus g·Z_i, Z_i independent discrete Gaussians of s whole steps.  Rounded
    neighbours differ by an integer vector of ℓ2 norm at most D = Δ/g + √d (+ 1 for the float errors of the
    statistic, far below a step), and the discrete Gaussian has D_α ≤ αD²/(2s²) for integer shifts (Canonne,
    Kamath and Steinke, Theorem 4, and coordinate by coordinate for vectors): s is the smallest integer with
    s² ≥ D²/(2ρ), in rationals (√d rounded up)."""

    def __init__(self, sensitivity: float, rho: float, dim: int = 1):
        self.sensitivity = check_real("sensitivity", sensitivity, lower=0.0, lower_open=True)
        self.rho = check_real("rho", rho, lower=0.0, lower_open=True)
        self.dim = check_int("dim", dim)
        sigma = self.sensitivity / math.sqrt(2.0 * self.rho)
        if not math.isfinite(sigma) or sigma * 2.0**-GAUSS_BITS < math.ldexp(1.0, -1000):
            raise InvalidArgument(f"ρ = {rho!r} at Δ = {sensitivity!r}: no grid Gaussian (σ out of range)")
        self.grid = math.ldexp(1.0, math.frexp(sigma)[1] - 1 - GAUSS_BITS)
        self.s = steps_for_shift(Fraction(self.sensitivity) / Fraction(self.grid) + ceil_sqrt(self.dim) + 1, self.rho)
        if self.s >= 1 << 30:
            raise InvalidArgument(
                f"ρ = {rho!r} at Δ = {sensitivity!r} in {dim} coordinates needs σ of {self.s} "
                f"grid steps: beyond the keyed sampler's 2^30"
            )
        self.sigma = self.s * self.grid

    def release(self, values, keys, slots=0) -> np.ndarray:
        """round(v/g)·g + g·Z per entry of ``values`` (n,), Z from the stream of (keys[i], slots[i])."""
        v = np.asarray(values, dtype=float)
        z = keyed_discrete_gaussian(keys, np.broadcast_to(np.asarray(slots, dtype=np.int64), v.shape), self.s)
        return from_grid(to_grid(v, self.grid) + z, self.grid)

    def release_vectors(self, values, keys, slot0: int = 0) -> np.ndarray:
        """values (n, d): every coordinate released, coordinate i from slot slot0 + i of its row's key."""
        v = np.asarray(values, dtype=float)
        n, d = v.shape
        out = self.release(
            v.ravel(), np.repeat(np.asarray(keys, dtype=np.uint64), d, axis=0), np.tile(np.arange(slot0, slot0 + d), n)
        )
        return out.reshape(n, d)


@lru_cache(maxsize=4096)
def laplace_release(sensitivity, epsilon: float) -> GridLaplaceRelease:
    """The :class:`GridLaplaceRelease` of (Δ, ε), built once."""
    return GridLaplaceRelease(sensitivity, epsilon)


@lru_cache(maxsize=4096)
def gaussian_release(sensitivity: float, rho: float, dim: int = 1) -> GridGaussianRelease:
    """The :class:`GridGaussianRelease` of (Δ, ρ, d), built once."""
    return GridGaussianRelease(sensitivity, rho, dim)


def release_each(values, group, keys, slots, make) -> np.ndarray:
    """Entry i of ``values`` (n,) released by ``make(group[i])`` (a cached release, such as the one of the
    sensitivity group[i]) from the stream of (keys[i], slots[i]): one call per distinct group."""
    v = np.asarray(values, dtype=float)
    group = np.broadcast_to(np.asarray(group), v.shape)
    slots = np.broadcast_to(np.asarray(slots, dtype=np.int64), v.shape)
    keys = np.asarray(keys, dtype=np.uint64)
    out = np.empty(v.shape)
    for gval in np.unique(group):
        m = group == gval
        out[m] = make(gval.item()).release(v[m], keys[m], slots[m])
    return out
