"""Exact samplers from random integers: no floating-point arithmetic decides an outcome.

Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020, §5): every draw
below is built from uniform integers of the given :class:`numpy.random.Generator` (``rng.integers``, which is
exact: bounded integers by rejection), compared and added as integers, so the law of each output is exactly
the stated one — the property Mironov's attack on floating-point Laplace noise ("On Significance of the Least
Significant Bits for Differential Privacy", CCS 2012) shows a float sampler lacks.

* :func:`bernoulli` — Bernoulli(n/d) for integers 0 ≤ n ≤ d: ``integers(0, d) < n``;
  :func:`bernoulli_double` — Bernoulli(p) for the rational a double p denotes.
* :func:`bernoulli_exp` — Bernoulli(exp(−n/d)) (CKS Algorithm 1): for γ = n/d ≤ 1, K is the first k ≥ 1 with
  A_k = 0, A_k ~ Bernoulli(γ/k); P[K odd] = exp(−γ).  For γ > 1, ⌊γ⌋ draws of Bernoulli(exp(−1)) and one of
  Bernoulli(exp(−(γ − ⌊γ⌋))), all equal to 1.
* :func:`geometric_exp` — the number of successes of Bernoulli(exp(−1)) before the first failure:
  P[V = v] = (1 − e^(−1)) e^(−v).
* :func:`discrete_laplace` — P[Z = z] ∝ exp(−|z|/t) on the integers, for an integer t ≥ 1 (CKS Algorithm 2:
  U uniform on {0..t−1} kept with probability exp(−U/t), plus t·V, a sign, and the double zero rejected).
* :func:`discrete_gaussian` — P[Z = z] ∝ exp(−z²/(2σ²)) on the integers, for a rational σ² = n/d (CKS
  Algorithm 3: a discrete Laplace of scale ⌊σ⌋ + 1 kept with probability exp(−(|Y| − σ²/t)²/(2σ²))).

The discrete Laplace, and the discrete Gaussian of an integer σ, run in a compiled loop over the Generator's raw
64-bit words (:func:`discrete_laplace_words`, :func:`discrete_gaussian_words`); the rest are vectorised over draws:
each rejection loop runs on the still-pending entries as integer arrays.  Integers stay below 2⁶³ (checked): the
parameters are refused when a product could overflow.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import InvalidArgument, check_int
from privcheck.core.jit import njit

__all__ = [
    "bernoulli",
    "bernoulli_double",
    "bernoulli_exp",
    "geometric_exp",
    "discrete_laplace",
    "discrete_gaussian",
    "bernoulli_exp_words",
    "discrete_laplace_words",
    "discrete_gaussian_words",
    "bernoulli_exp_any",
    "laplace_at",
    "gaussian_at",
    "discrete_laplace_pmf",
    "discrete_gaussian_pmf",
    "discrete_laplace_numpy",
]

_LIMIT = 1 << 62  # every integer formed stays below this
_WORDS_PER_DRAW = 12  # raw words fetched per discrete Laplace draw (about 9 used at t = 10); more on demand
_MAX_FETCH = 1 << 20  # words fetched at a time (8 MB): a larger buffer costs more in page faults than it saves
_GAUSS_WORDS_PER_DRAW = 16  # raw words fetched per discrete Gaussian draw of an integer σ; more on demand
_GAUSS_WORDS_BELOW = 1 << 30  # an integer σ below this is drawn by the compiled loop (its numbers stay in 64 bits)


def _ints(a) -> np.ndarray:
    return np.asarray(a, dtype=np.int64)


def bernoulli(rng: np.random.Generator, n, d) -> np.ndarray:
    """Bernoulli(n/d) per entry (n, d integer arrays or scalars, 0 ≤ n ≤ d, d ≥ 1): ``integers(0, d) < n``."""
    n, d = np.broadcast_arrays(_ints(n), _ints(d))
    if d.size and (d.min() < 1 or n.min() < 0 or (n > d).any()):
        raise InvalidArgument("bernoulli(n/d) needs integers 0 <= n <= d, d >= 1")
    return rng.integers(0, d) < n


def bernoulli_double(rng: np.random.Generator, p: float, shape) -> np.ndarray:
    """Bernoulli(p) draws of the given shape, exactly for the rational the double p ∈ [0, 1] denotes: U < p for a
    uniform U read 64 bits at a time against p's binary expansion (finite: p is dyadic), so P[U < p] = p — where
    ``rng.random() < p`` gives ⌈p·2^53⌉/2^53."""
    f = Fraction(p)
    if not 0 <= f <= 1:
        raise InvalidArgument(f"bernoulli_double: p={p!r} must lie in [0, 1]")
    out = np.zeros(shape, dtype=bool)
    flat = out.reshape(-1)
    pending = np.arange(flat.size)
    rest = f
    while pending.size and rest > 0:
        if rest == 1:
            flat[pending] = True
            break
        scaled = rest * (1 << 64)
        word = math.floor(scaled)
        rest = scaled - word  # p's bits after these 64
        w = rng.bit_generator.random_raw(pending.size)
        flat[pending[w < np.uint64(word)]] = True
        pending = pending[w == np.uint64(word)]  # equal so far: the next 64 bits decide
    return out  # still pending with nothing left of p: U ≥ p


def _bernoulli_exp_le1(rng, n, d) -> np.ndarray:
    """Bernoulli(exp(−n/d)) for 0 ≤ n ≤ d (CKS Algorithm 1)."""
    n, d = np.broadcast_arrays(_ints(n), _ints(d))
    n, d = n.ravel(), d.ravel()
    k = np.ones(n.size, dtype=np.int64)
    pending = np.arange(n.size)
    while pending.size:
        kk = k[pending]
        if int(d[pending].max()) > _LIMIT // int(kk.max() + 1):
            raise InvalidArgument("bernoulli_exp: the denominator is too large for 64-bit integers")
        a = rng.integers(0, d[pending] * kk) < n[pending]  # A_k ~ Bernoulli(γ/k)
        k[pending[a]] += 1
        pending = pending[a]
    return (k % 2) == 1


def bernoulli_exp(rng: np.random.Generator, n, d) -> np.ndarray:
    """Bernoulli(exp(−n/d)) per entry, for integers n ≥ 0, d ≥ 1 (CKS Algorithm 1 and its γ > 1 extension)."""
    n, d = np.broadcast_arrays(_ints(n), _ints(d))
    shape = n.shape
    n, d = n.ravel().copy(), d.ravel()
    if n.size and (d.min() < 1 or n.min() < 0):
        raise InvalidArgument("bernoulli_exp(n/d) needs integers n >= 0, d >= 1")
    whole = n // d
    out = np.ones(n.size, dtype=bool)
    # exp(−γ) = exp(−1)^⌊γ⌋ · exp(−frac): every factor's Bernoulli must be 1 (stop a row at its first 0)
    rows = np.flatnonzero(whole > 0)
    left = whole[rows].copy()
    while rows.size:
        ok = _bernoulli_exp_le1(rng, np.ones(rows.size, dtype=np.int64), np.ones(rows.size, dtype=np.int64))
        out[rows[~ok]] = False
        left -= 1
        keep = ok & (left > 0)
        rows, left = rows[keep], left[keep]
    rows = np.flatnonzero(out)
    if rows.size:
        out[rows] = _bernoulli_exp_le1(rng, n[rows] - whole[rows] * d[rows], d[rows])
    return out.reshape(shape)


def geometric_exp(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` draws of V, the successes of Bernoulli(exp(−1)) before the first failure."""
    v = np.zeros(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        ok = _bernoulli_exp_le1(rng, np.ones(pending.size, dtype=np.int64), np.ones(pending.size, dtype=np.int64))
        v[pending[ok]] += 1
        pending = pending[ok]
    return v


@njit(cache=True, inline="always")
def _below(words, pos, n):
    """(a uniform integer in [0, n), the next position) from the 64-bit words, by rejection below the largest
    multiple of n (exact); (-1, pos) when the words run out.  1 <= n < 2^63."""
    m = np.uint64(n)
    floor = (np.uint64(0) - m) % m  # 2^64 mod n: words below it are rejected
    while pos < words.size:
        w = words[pos]
        pos += 1
        if w >= floor:
            return np.int64(w % m), pos
    return np.int64(-1), pos


@njit(cache=True, inline="always")
def bernoulli_exp_words(words, pos, num, den):
    """(Bernoulli(exp(−num/den)) for 0 <= num <= den < 2^62, next position), CKS Algorithm 1; (-1, pos) when out
    of words.  A_k ~ Bernoulli(num/(den·k)) is one bounded integer while den·k < 2^62, and past that (k beyond
    2^62/den: never, in practice, for the denominators used here) the product of Bernoulli(num/den) and
    Bernoulli(1/k), the same law without the overflow."""
    k = 1
    top = (1 << 62) // den
    while True:
        if k <= top:
            r, pos = _below(words, pos, den * k)
            if r < 0:
                return -1, pos
            hit = r < num
        else:
            r, pos = _below(words, pos, den)
            if r < 0:
                return -1, pos
            hit = r < num
            if hit:
                r, pos = _below(words, pos, k)
                if r < 0:
                    return -1, pos
                hit = r < 1
        if not hit:
            return k % 2, pos
        k += 1


@njit(cache=True)
def laplace_at(words, pos, t):
    """(one discrete Laplace draw of integer scale t from the words at ``pos``, the next position), CKS Algorithm 2;
    (0, -1) when the words run out mid-draw."""
    while True:
        u, pos = _below(words, pos, t)
        if u < 0:
            return np.int64(0), -1
        d, pos = bernoulli_exp_words(words, pos, u, t)
        if d < 0:
            return np.int64(0), -1
        if d == 0:
            continue
        v = 0
        while True:  # Bernoulli(exp(−1)) draws until a 0: A_1 = 1 surely (γ/1 = 1), so start at k = 2
            k = 2
            while True:
                r, pos = _below(words, pos, k)
                if r < 0:
                    return np.int64(0), -1
                if r >= 1:
                    break
                k += 1
            if k % 2 == 0:
                break
            v += 1
        x = u + t * v
        y, pos = _below(words, pos, 2)
        if y < 0:
            return np.int64(0), -1
        if y == 1 and x == 0:
            continue
        return (-x if y == 1 else x), pos


@njit(cache=True)
def bernoulli_exp_any(words, pos, num, den):
    """(Bernoulli(exp(−num/den)), next position) for int64 num ≥ 0, den ≥ 1 — exp(−1) ⌊num/den⌋ times, then the
    fraction, stopping at the first 0 — or (−1, pos) when out of words."""
    whole = num // den
    for _ in range(whole):
        b, pos = bernoulli_exp_words(words, pos, np.int64(1), np.int64(1))
        if b != 1:
            return b, pos
    return bernoulli_exp_words(words, pos, num - whole * den, den)


@njit(cache=True)
def gaussian_at(words, pos, s):
    """(one discrete Gaussian draw of integer σ = s from the words at ``pos``, the next position), or (0, -1) when
    the words run out mid-draw: CKS Algorithm 3 with proposal scale t = s, so the acceptance
    exp(−(|y| − s)²/(2s²)) splits, for d = |y| − s = q·s + r ≥ 0, into exp(−q/2)^q · exp(−rq/s) · exp(−r²/(2s²)),
    every number below 2^63 for s < 2^30."""
    den = 2 * s * s
    while True:
        y, pos = laplace_at(words, pos, s)
        if pos < 0:
            return np.int64(0), -1
        d = abs(y) - s
        if d < 0:
            b, pos = bernoulli_exp_any(words, pos, d * d, den)
        else:
            q, r = d // s, d % s
            b = 1
            for _ in range(q):
                b, pos = bernoulli_exp_any(words, pos, q, np.int64(2))
                if b != 1:
                    break
            if b == 1:
                b, pos = bernoulli_exp_any(words, pos, r * q, s)
            if b == 1:
                b, pos = bernoulli_exp_any(words, pos, r * r, den)
        if b < 0:
            return np.int64(0), -1
        if b == 1:
            return y, pos


@njit(cache=True)
def discrete_laplace_words(words, t, out, start):
    """Fill out[start:] with discrete Laplace draws of scale t from the words: (index of the first draw not
    made, position of the words where it began) — that draw is made again, from the same words, once more
    words are appended (so no draw is cut short or skipped: exact whatever the buffer size)."""
    pos = 0
    for i in range(start, out.size):
        begin = pos
        x, pos = laplace_at(words, pos, t)
        if pos < 0:
            return i, begin
        out[i] = x
    return out.size, pos


@njit(cache=True)
def discrete_gaussian_words(words, s, out, start):
    """:func:`discrete_laplace_words` for discrete Gaussian draws of integer σ = s (1 ≤ s < 2^30).  A kernel of its
    own rather than one loop with a flag: numba then compiles each law's loop alone (with both in one, the discrete
    Laplace's took 6 s to compile here, where it took 2)."""
    pos = 0
    for i in range(start, out.size):
        begin = pos
        y, pos = gaussian_at(words, pos, s)
        if pos < 0:
            return i, begin
        out[i] = y
    return out.size, pos


try:  # the same loops compiled ahead of time (mechanisms/_exactloop.c): no numba start for a sampled audit
    from ._exactloop import discrete_gaussian_words as _compiled_gauss, discrete_laplace_words as _compiled_fill
except ImportError:  # not built: the numba kernels
    _compiled_fill = _compiled_gauss = None


def discrete_laplace(rng: np.random.Generator, t: int, size: int) -> np.ndarray:
    """``size`` draws of the discrete Laplace of integer scale t: P[z] = (1 − e^(−1/t))/(1 + e^(−1/t))·e^(−|z|/t).

    CKS Algorithm 2 in a compiled loop over the Generator's raw 64-bit words (``bit_generator.random_raw``),
    every bounded integer drawn from them by rejection; about 9 words a draw at t = 10.  The loop is the C
    extension ``mechanisms._exactloop`` where it is built, else the numba kernel :func:`discrete_laplace_words`
    (the same draws from the same words).  For t ≥ 2^52 the
    vectorised numpy form :func:`discrete_laplace_numpy` is used (the same law)."""
    t = check_int("t", t)
    size = check_int("size", size, 0)
    if t >= 1 << 52:
        return discrete_laplace_numpy(rng, t, size)
    return _from_words(rng, _compiled_fill or discrete_laplace_words, t, size, _WORDS_PER_DRAW)


def _from_words(rng: np.random.Generator, fill, scale: int, size: int, per_draw: int) -> np.ndarray:
    """``size`` draws made by the compiled loop ``fill(words, scale, out, start)`` from the Generator's raw 64-bit
    words, fetched ``per_draw`` a draw at a time (at most :data:`_MAX_FETCH`) and more on demand: a draw the words
    cut short is made again from its first word once fresh words are appended, so every word is read once and no
    draw is skipped — exact whatever the buffer's size."""
    out = np.empty(size, dtype=np.int64)
    fetch = lambda left: rng.bit_generator.random_raw(min(per_draw * left + 64, _MAX_FETCH))  # noqa: E731
    words = fetch(size)
    i = 0
    while i < size:
        i, begin = fill(words, scale, out, i)
        if i < size:  # out of words mid-draw: keep the unread ones (from that draw's start), append fresh ones
            words = np.concatenate([words[begin:], fetch(size - i)])
    return out


def discrete_laplace_numpy(rng: np.random.Generator, t: int, size: int) -> np.ndarray:
    """:func:`discrete_laplace` vectorised with numpy over the pending draws (any t below 2^60)."""
    t = check_int("t", t)
    size = check_int("size", size, 0)
    if t > _LIMIT // 4:
        raise InvalidArgument(f"discrete_laplace: scale {t} is too large for 64-bit integers")
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        m = pending.size
        u = rng.integers(0, t, size=m)
        keep = _bernoulli_exp_le1(rng, u, np.full(m, t, dtype=np.int64))  # U kept with probability e^(−U/t)
        idx, u = pending[keep], u[keep]
        x = u + t * geometric_exp(rng, idx.size)
        y = rng.integers(0, 2, size=idx.size).astype(bool)  # the sign
        good = ~(y & (x == 0))  # −0 would count zero twice
        out[idx[good]] = np.where(y[good], -x[good], x[good])
        done = np.zeros(m, dtype=bool)
        done[np.flatnonzero(keep)[good]] = True
        pending = pending[~done]
    return out


def _below_big(rng: np.random.Generator, n: int) -> int:
    """A uniform integer in [0, n) for a Python integer n of any size: 62-bit limbs, whole draw rejected above
    the largest multiple of n (exact)."""
    bits = max(n.bit_length(), 1)
    limbs = (bits + 61) // 62
    span = 1 << (62 * limbs)
    top = span - span % n
    while True:
        v = 0
        for w in rng.integers(0, 1 << 62, size=limbs).tolist():
            v = (v << 62) | w
        if v < top:
            return v % n


def _bernoulli_exp_le1_big(rng: np.random.Generator, n: int, d: int) -> bool:
    """Bernoulli(exp(−n/d)) for Python integers 0 ≤ n ≤ d (one draw, CKS Algorithm 1)."""
    k = 1
    while _below_big(rng, d * k) < n:
        k += 1
    return k % 2 == 1


def _bernoulli_exp_big(rng: np.random.Generator, n: int, d: int) -> bool:
    """Bernoulli(exp(−n/d)) for Python integers of any size: ⌊n/d⌋ draws of Bernoulli(exp(−1)) and one of the
    fraction, all 1 (stopping at the first 0)."""
    whole, frac = divmod(n, d)
    for _ in range(whole):
        if not _bernoulli_exp_le1_big(rng, 1, 1):
            return False
    return _bernoulli_exp_le1_big(rng, frac, d)


def discrete_gaussian(rng: np.random.Generator, sigma2: Fraction, size: int, t: int | None = None) -> np.ndarray:
    """``size`` draws of the discrete Gaussian of (rational) variance parameter σ² = ``sigma2``:
    P[z] ∝ exp(−z²/(2σ²)) on the integers (CKS Algorithm 3).  ``t``, the proposal's discrete Laplace scale, is
    ⌊σ⌋ + 1 by default; any positive integer gives the same law (the acceptance probability
    exp(−(|y| − σ²/t)²/(2σ²)) is the target over the proposal, up to a constant), and t = σ for an integer σ keeps
    the acceptance test's numbers small (σ² = t²: (|y| − t)²/(2t²)).  An integer σ below 2^30 — the noise of every
    grid mechanism, counter and policy here — is drawn with t = σ whatever ``t`` says, by a compiled loop over the
    Generator's raw words (:func:`discrete_gaussian_words`, the C extension where built: the same draws; 13 to 15
    words a draw); any other σ² by the vectorised test below, in 64-bit integers where they suffice and in Python
    integers for the rest (far tails, or a σ² given with a large denominator)."""
    s2 = Fraction(sigma2)
    if s2 <= 0:
        raise InvalidArgument(f"discrete_gaussian: sigma2={sigma2} must be > 0")
    size = check_int("size", size, 0)
    if t is not None:
        check_int("t", t)
    root = math.isqrt(s2.numerator) if s2.denominator == 1 else 0
    if root * root == s2 and root < _GAUSS_WORDS_BELOW:  # an integer σ: the compiled loop, its proposal at t = σ
        return _from_words(rng, _compiled_gauss or discrete_gaussian_words, root, size, _GAUSS_WORDS_PER_DRAW)
    t = math.isqrt(s2.numerator // s2.denominator) + 1 if t is None else check_int("t", t)
    # γ(y) = (|y| − σ²/t)²/(2σ²) = (|y|·t·q − p)² / (2·p·q·t²) for σ² = p/q
    p, q = s2.numerator, s2.denominator
    # reduced by c = gcd(tq, p): γ = ((|y|·tq − p)/c)² / (2pqt²/c²)
    c = math.gcd(t * q, p)
    step, off = t * q // c, p // c
    den = 2 * p * q * t * t // (c * c)
    # |y| up to y_fast keeps the numerator, and den·k (k the loop counter, < 64 but for 2^-60), in 64 bits
    root = math.isqrt(_LIMIT)
    y_fast = root // step if den < _LIMIT >> 6 and off <= root else -1
    out = np.empty(size, dtype=np.int64)
    pending = np.arange(size)
    while pending.size:
        m = pending.size
        y = discrete_laplace(rng, t, m)
        a = np.abs(y)
        fast = a <= y_fast
        c = np.zeros(m, dtype=bool)
        accept = np.zeros(m, dtype=bool)
        if fast.any():
            num = (a[fast] * step - off) ** 2
            accept[fast] = bernoulli_exp(rng, num, np.full(num.size, den, dtype=np.int64))
        for i in np.flatnonzero(~fast):  # rare: in 64-bit ranges only beyond ≈ 2^31/σ standard deviations
            accept[i] = _bernoulli_exp_big(rng, (int(a[i]) * step - off) ** 2, den)
        out[pending[accept]] = y[accept]
        pending = pending[~accept]
    return out


def discrete_laplace_pmf(t, z) -> np.ndarray:
    """P[Z = z] of :func:`discrete_laplace` (floats; for tests and the exact faces' reference)."""
    z = np.abs(np.asarray(z, dtype=float))
    r = math.exp(-1.0 / t)
    return (1 - r) / (1 + r) * np.exp(-z / t)


def discrete_gaussian_pmf(sigma2, z, terms: int | None = None) -> np.ndarray:
    """P[Z = z] of :func:`discrete_gaussian` (floats; the normaliser summed over |z| ≤ 40σ + 40)."""
    s2 = float(sigma2)
    n = int(40 * math.sqrt(s2) + 40) if terms is None else terms
    grid = np.arange(-n, n + 1, dtype=float)
    norm = np.exp(-(grid**2) / (2 * s2)).sum()
    return np.exp(-(np.asarray(z, dtype=float) ** 2) / (2 * s2)) / norm
