"""Bandit policies, environments and the vectorised simulator.

Registered by name for the command line in :mod:`privcheck.policies.registry`.
"""

from .base import Counts, Policy, Window, choose, tie_probs
from .corruption import Corruption
from .environments import Bernoulli, Gaussian, Pareto, Schedule, alternating_schedule, parse_means
from .index import KLUCB, KLUCBCF, SWKLUCBCF, SWUCB, UCB1, UCBCF, IndexPolicy, sw_klucb_window
from .kl import kl_bernoulli, kl_lower, kl_upper
from .simulator import SimulationResult, checkpoints, simulate
from .thompson import ThompsonSampling

__all__ = [
    "Policy",
    "Counts",
    "Window",
    "choose",
    "tie_probs",
    "Corruption",
    "Bernoulli",
    "Gaussian",
    "Pareto",
    "Schedule",
    "alternating_schedule",
    "parse_means",
    "IndexPolicy",
    "UCB1",
    "KLUCB",
    "SWUCB",
    "KLUCBCF",
    "UCBCF",
    "SWKLUCBCF",
    "sw_klucb_window",
    "kl_bernoulli",
    "kl_upper",
    "kl_lower",
    "simulate",
    "SimulationResult",
    "checkpoints",
    "ThompsonSampling",
]
