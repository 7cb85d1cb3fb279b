"""Mechanisms used by the benchmarks (imported by `privcheck audit benchmarks/targets.py:NAME`)."""

import numpy as np


def noisy_histogram_buggy(x, rng, size):
    """A noisy histogram that uses Laplace scale ε (= 0.7) where 1/ε was meant: true ε = 1/0.7 = 1.4286."""
    x = np.asarray(x, dtype=float)
    return x + rng.laplace(0.0, 0.7, size=(size,) + x.shape)
