"""A user's event and a user's statistic for the sampled auditor (``--event``); both compete with the built-in
candidates.

    privcheck audit examples/broken.py:float_laplace --epsilon 0.5 --pair 0 1 --method sample --event examples/event.py:many_trailing_zeros
    privcheck audit examples/mymech.py:noisy_sum --epsilon 0.5 --pair '[1,2,3]' '[0,2,3]' --method sample --event examples/event.py:magnitude
"""

import numpy as np


def many_trailing_zeros(outputs):
    """An event (booleans): the double's mantissa ends in at least 8 zero bits — Mironov's observation."""
    bits = np.ascontiguousarray(outputs, dtype=np.float64).view(np.uint64)
    return (bits & np.uint64(0xFF)) == 0


def magnitude(outputs):
    """A statistic (numbers), thresholded both ways by the auditor."""
    return np.abs(outputs)
