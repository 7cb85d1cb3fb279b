"""A user's mechanism, as privcheck audits it: ``f(x, rng, size)`` returns ``size`` independent draws, using only
the Generator it is given.

    privcheck audit examples/mymech.py:noisy_sum --epsilon 0.5 --pair '[1,2,3]' '[0,2,3]'
    privcheck audit examples/mymech.py:noisy_sum --epsilon 0.5 --input '[1,2,3]' --neighbours replace-l1 --sensitivity 1

The sum of the entries on a grid of 2⁻¹⁰ plus exact discrete Laplace noise: moving the input by 1 in ℓ1 moves the
sum by at most 1 (after rounding to the grid, by at most 1 + 2⁻¹⁰ = 1025/1024), and noise of scale 2050 grid
steps gives ε = 1025/2050 = 0.5.  Adding ``rng.laplace`` to a double instead would leak through its low bits.
"""

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_laplace


def noisy_sum(x, rng, size):
    total = float(np.sum(x))
    return (round(total * 1024) + discrete_laplace(rng, 2050, size)) / 1024
