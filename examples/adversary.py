"""An interactive adversary: it sees only the recommendations so far and chooses which arm's reward the policy
observes each round.

    privcheck audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition interactive --horizon 4 --arms 2 \
        --method sample --adversary examples/adversary.py:contrarian --samples 20000
"""

import numpy as np


def contrarian(recommendations, t, n_arms):
    """Query the arm other than the last recommended one (arm 0 in the first round)."""
    if t == 0:
        return np.zeros(recommendations.shape[0], dtype=np.int64)
    return (recommendations[:, t - 1] + 1) % n_arms
