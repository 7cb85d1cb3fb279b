"""Privacy claims as tests, with privcheck's pytest plugin (installed with privcheck: no conftest, no import).

Run: pytest examples/test_privacy.py   (add --privcheck-report audits.json for a machine-readable record)
"""

from privcheck.mechanisms.exact_sampling import discrete_laplace
from privcheck import PureDP, ReplaceOne

CLAIM = PureDP(0.5, ReplaceOne("l1", 1.0))


def noisy_count(x, rng, size):
    """x on a grid of 2⁻¹⁰ plus exact discrete Laplace noise: 0.5-DP for counts of sensitivity 1."""
    return (round(x * 1024) + discrete_laplace(rng, 2050, size)) / 1024


def half_noise(x, rng, size):
    """A planted bug: half the noise (and floating-point noise, whose low bits leak)."""
    return x + rng.laplace(0.0, 1.0, size)


def test_noisy_count_is_private(privcheck):
    privcheck.assert_private(noisy_count, CLAIM, pairs=[(0.0, 1.0)])


def test_the_planted_bug_is_caught(privcheck):
    privcheck.assert_refuted(half_noise, CLAIM, pairs=[(0.0, 1.0)])
