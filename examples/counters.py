"""Counters under continual observation, written as a researcher writes them — a function ``f(x, rng, size)`` of a
stream x of T values in [0, 1], returning ``size`` release sequences of its T noisy prefix sums — and the planted bugs
such code has.

The binary (tree) mechanism: every dyadic block of the stream gets its sum plus Gaussian noise, and the prefix sum
at t adds the blocks of t's binary decomposition.  Each element lies in at most L = ⌊log₂ T⌋ + 1 blocks, so noise of
variance L·Δ²/(2ρ) on every block makes the blocks — and the prefixes, their post-processing — ρ-zCDP under
event-level neighbours (one element replaced).  The noise is drawn exactly, on a grid of 2^−20 (values and sums in
integer steps, the discrete Gaussian from privcheck's exact samplers): a float normal added in doubles leaks through
its low bits, and an audit reads them.

    privcheck audit examples/counters.py:binary --rho 4 --stream-length 16
    privcheck audit examples/counters.py:variance_as_sd --rho 4 --stream-length 16
    privcheck audit examples/counters.py:reused_noise --rho 4 --stream-length 16
    privcheck audit examples/counters.py:missing_level --rho 4 --stream-length 16
    privcheck audit examples/counters.py:binary --rho 4 --stream-length 16 --neighbours user:4,2
    privcheck audit examples/counters.py:user_level --rho 4 --stream-length 16 --neighbours user:4,2

The planted bugs: ``variance_as_sd`` passes the variance where the sampler expects a standard deviation (at
ρ = 4 and T = 16 the variance is below 1: too little noise, ρ 1.6 times the claim); ``missing_level`` calibrates for
⌊log₂ T⌋ levels, one fewer than the tree has when T is a power of two (ρ too small by a factor L/(L − 1): 5 against
4 at T = 16, a quiet bug that one event's two probabilities do not refute and the cells of a ladder of thresholds on
the likelihood-ratio statistic do); ``reused_noise`` draws each level's noise
once and adds it to every block of the level (a change in one element then shows in the differences of the
releases, where the noise cancels).  ``user_level`` is calibrated for one user's k participations (the blocks one
user's k elements at least b apart lie in), where ``binary`` — correct for one element — is not private for k.
"""

from fractions import Fraction

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_gaussian

#: values, noise and sums are integer multiples of this step: exact doubles
GRID = 2.0**-20
#: the ρ every counter here is calibrated to (its audits state it: --rho 4)
RHO = 4.0


def _levels(T: int) -> int:
    return T.bit_length()  # ⌊log₂ T⌋ + 1


def _tree(x, rng, size, sd, reuse=False):
    """The prefix sums of x with noise of standard deviation ``sd`` on every dyadic block (in grid steps)."""
    T = len(x)
    units = np.rint(np.asarray(x, dtype=float) / GRID).astype(np.int64)
    steps = max(1, int(np.ceil(sd / GRID)))
    out = np.zeros((size, T), dtype=np.int64)
    for j in range(_levels(T)):
        w = 1 << j
        n = T // w
        sums = units[: n * w].reshape(n, w).sum(axis=1)
        if reuse:  # the bug: one draw per level, added to every block of it
            noise = discrete_gaussian(rng, Fraction(steps * steps), size, t=steps)[:, None]
        else:
            noise = discrete_gaussian(rng, Fraction(steps * steps), size * n, t=steps).reshape(size, n)
        blocks = sums + noise
        for t in range(1, T + 1):
            if t & w:  # t's decomposition has the block of size w that ends where t's higher blocks stop
                out[:, t - 1] += blocks[:, (t >> j) - 1]
    return out * GRID


def binary(x, rng, size, rho=RHO):
    """The binary mechanism, ρ-zCDP for one element replaced (values in [0, 1])."""
    L = _levels(len(x))
    return _tree(x, rng, size, np.sqrt(L * (1 + GRID) ** 2 / (2 * rho)))


def variance_as_sd(x, rng, size, rho=RHO):
    L = _levels(len(x))
    variance = L * (1 + GRID) ** 2 / (2 * rho)
    return _tree(x, rng, size, variance)  # the bug: a variance where the standard deviation goes


def missing_level(x, rng, size, rho=RHO):
    L = int(np.log2(len(x)))  # the bug: ⌊log₂ T⌋, one level short when T is a power of two
    return _tree(x, rng, size, np.sqrt(L * (1 + GRID) ** 2 / (2 * rho)))


def reused_noise(x, rng, size, rho=RHO):
    L = _levels(len(x))
    return _tree(x, rng, size, np.sqrt(L * (1 + GRID) ** 2 / (2 * rho)), reuse=True)


def user_level(x, rng, size, rho=RHO, participations=4):
    """The binary mechanism for one user's ``participations`` elements: each of them in at most L blocks, so noise
    for k·L blocks' worth of change (a user's k elements may share blocks: k²·L bounds the squared change)."""
    L = _levels(len(x))
    k = participations
    return _tree(x, rng, size, np.sqrt(k * k * L * (1 + GRID) ** 2 / (2 * rho)))
