"""One contract suite over every built-in mechanism of the registry.

Statistical checks are seeded; each sampled audit runs at 95 % confidence, so for a fixed seed a correct
mechanism would be wrongly refuted with probability at most 5 % — the seeds below are fixed, so the
outcome is deterministic, and a failure after a change signals a real difference.
"""

import math

import numpy as np
import pytest

from privcheck.mechanisms.registry import BUILTINS
from privcheck import audit
from privcheck.core import ApproxDP, PureDP, ZCDP, has_finite_face

SMALL = 40_000


#: the built-ins calibrated to a zCDP claim (the Gaussian mechanism and the Gaussian counters)
ZCDP_BUILT_INS = {"gaussian", "binary-counter", "honaker-counter", "smooth-binary-counter", "toeplitz-counter"}


def build(name):
    b = BUILTINS[name]
    claim = ZCDP(0.5) if name in ZCDP_BUILT_INS else PureDP(1.0)
    return b.build(claim, {})


def builtins(*slow: str) -> list:
    """Every built-in's name as a parameter, those named in ``slow`` in the slow tier."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in slow else n for n in sorted(BUILTINS)]


#: the Gaussian counters: 16 exact releases a draw, 12–16 s a sampled audit at 40,000 draws (the slow tier)
COUNTERS = tuple(sorted(ZCDP_BUILT_INS - {"gaussian"}))


@pytest.fixture(params=sorted(BUILTINS))
def mech(request):
    return build(request.param)


def example(m):
    return getattr(m, "example_input", 0)


def test_leading_axis_indexes_draws(mech):
    x = example(mech)
    for size in (1, 7):
        out = np.asarray(mech.sample(x, np.random.default_rng(0), size))
        assert out.shape[0] == size


def test_deterministic_under_a_seed(mech):
    x = example(mech)
    a = mech.sample(x, np.random.default_rng(123), 50)
    b = mech.sample(x, np.random.default_rng(123), 50)
    assert np.array_equal(a, b)


def test_claim_is_data(mech):
    assert isinstance(mech.claim, (PureDP, ApproxDP, ZCDP))
    assert mech.claim.relation is not None


def test_exact_faces_are_distributions(mech):
    x = example(mech)
    if has_finite_face(mech):
        lp = mech.logpmf(x, mech.support(x))
        assert np.exp(lp).sum() == pytest.approx(1.0, abs=1e-12)
    elif callable(getattr(mech, "logcdf", None)):
        for o in (-3.0, 0.0, 0.4, 5.0):
            assert float(np.exp(mech.logcdf(x, o)) + np.exp(mech.logsf(x, o))) == pytest.approx(1.0, abs=1e-12)
        z = mech.sample(x, np.random.default_rng(5), 100_000)
        for o in (-0.5, 0.0, 0.4, 1.2):
            assert (z <= o).mean() == pytest.approx(float(np.exp(mech.logcdf(x, o))), abs=0.01)


@pytest.mark.parametrize("name", builtins("tree-counter", *COUNTERS))  # (the tree: 3 s of screening its pairs)
def test_claim_not_refuted_by_sampled_audit(name):
    mech = build(name)
    r = audit(mech, method="sample", samples=SMALL, seed=11)
    assert not r.violates_claim, str(r)


@pytest.mark.parametrize("name", builtins("truncated-mean"))  # (the truncated mean's sampled side, 3 s)
def test_exact_and_sampled_agree(name):
    mech = build(name)
    try:
        exact = audit(mech, method="exact", seed=3)
    except Exception as exc:  # only mechanisms without an exact face may decline
        assert "exact" in str(exc)
        return
    assert not exact.violates_claim, str(exact)
    sampled = audit(mech, method="sample", samples=SMALL, seed=3)
    # the certified bound is below the truth (at 95 %), and not uselessly far below it
    assert sampled.rho_lower <= exact.rho_lower * (1 + 1e-9)
    assert sampled.epsilon_lower <= exact.epsilon_lower + 1e-9
    if isinstance(mech.claim, ZCDP):
        assert sampled.rho_lower >= 0.5 * exact.rho_lower
    else:
        assert math.isfinite(exact.epsilon_lower)
        assert sampled.epsilon_lower >= 0.6 * exact.epsilon_lower
