"""Mechanisms used by the benchmarks (imported by `privcheck audit benchmarks/targets.py:NAME`)."""

import numpy as np


def noisy_histogram_buggy(x, rng, size):
    """A noisy histogram that uses Laplace scale ε (= 0.7) where 1/ε was meant: true ε = 1/0.7 = 1.4286."""
    x = np.asarray(x, dtype=float)
    return x + rng.laplace(0.0, 0.7, size=(size,) + x.shape)


#: the other users' records of the per-draw count below
_DATABASE = [i % 3 == 0 for i in range(1000)]
#: its grid: outputs are integers over 2^10, exact doubles
_STEPS = 1024


def count_per_draw(x, rng):
    """A count over a database of 1,000 records and the user's ``x``, recomputed and released one draw per call,
    the way a first implementation often looks (no size argument: privcheck calls it once per draw, about 10 µs
    each): exact discrete Laplace noise of 1,025 steps on the grid 2^-10, as the first tutorial's ``safe_count`` —
    (1024 + 1)/1025 = 1-DP."""
    from privcheck.mechanisms.exact_sampling import discrete_laplace

    count = sum(_DATABASE) + float(x)
    return (round(count * _STEPS) + int(discrete_laplace(rng, _STEPS + 1, 1)[0])) / _STEPS


def count_per_draw_half_scale(x, rng):
    """The same with the noise's scale halved by mistake (513 steps): true ε = 1025/513 ≈ 2 for a claim of 1."""
    from privcheck.mechanisms.exact_sampling import discrete_laplace

    count = sum(_DATABASE) + float(x)
    return (round(count * _STEPS) + int(discrete_laplace(rng, (_STEPS + 2) // 2, 1)[0])) / _STEPS
