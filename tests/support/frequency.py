"""The frequency test the sampler tests share: chi-square goodness of fit at a stated false-alarm rate."""

import numpy as np
from scipy import stats

#: the probability that one frequency test rejects a correct sampler
FALSE_ALARM = 1e-6


def chi2_ok(counts, probs) -> bool:
    """Chi-square goodness of fit (cells with expected count < 5 pooled into the last)."""
    n = counts.sum()
    exp = probs / probs.sum() * n
    keep = exp >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    e = np.append(exp[keep], exp[~keep].sum())
    if e[-1] == 0:
        obs, e = obs[:-1], e[:-1]
    return stats.chisquare(obs, e).pvalue > FALSE_ALARM
