"""privcheck's mechanisms: each states its claim as data, apart from its batched sampler.

Registered by name for the command line in :mod:`mechanisms.registry`.
"""

from .finite import FiniteChannel, SequenceChannel, channel_epsilon
from .gaussian import Gaussian, GridGaussian, gaussian_delta
from .laplace import GridLaplace, Laplace, laplace_renyi
from .randomized_response import (
    BinaryRandomizedResponse,
    KaryRandomizedResponse,
    optimal_randomized_response,
    rr_epsilon,
)
from .staircase import GridStaircase, StaircaseNoise, StaircasePattern
from .tree import GridTreeCounter, TreeCounter, dyadic_blocks, prefix_blocks, tree_levels
from .truncation import GridTruncatedMean, TruncatedMean, truncate

__all__ = [
    "FiniteChannel",
    "SequenceChannel",
    "channel_epsilon",
    "Gaussian",
    "GridGaussian",
    "gaussian_delta",
    "GridLaplace",
    "Laplace",
    "laplace_renyi",
    "BinaryRandomizedResponse",
    "KaryRandomizedResponse",
    "optimal_randomized_response",
    "rr_epsilon",
    "StaircaseNoise",
    "GridStaircase",
    "StaircasePattern",
    "TreeCounter",
    "GridTreeCounter",
    "dyadic_blocks",
    "prefix_blocks",
    "tree_levels",
    "TruncatedMean",
    "GridTruncatedMean",
    "truncate",
]
