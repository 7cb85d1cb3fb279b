"""Planted bugs, for trying privcheck on mechanisms that are wrong.

privcheck audit examples/broken.py:half_noise --epsilon 0.5 --pair 0 1 --method sample      # refuted
privcheck audit examples/broken.py:float_laplace --epsilon 0.5 --pair 0 1 --method sample   # refuted by its bits
"""

from privcheck.mechanisms.exact_sampling import discrete_laplace


def half_noise(x, rng, size):
    """Claimed 0.5-DP, but with half the noise it needs (it is 1-DP)."""
    return (round(float(x) * 1024) + discrete_laplace(rng, 1025, size)) / 1024


def float_laplace(x, rng, size):
    """The textbook x + Lap(2): 0.5-DP over the reals, not over doubles (Mironov, CCS 2012)."""
    return float(x) + rng.laplace(0.0, 2.0, size)
