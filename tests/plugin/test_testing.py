import numpy as np
import pytest
from hypothesis import given, settings

from privcheck import mechanisms as M
from privcheck import PureDP, ReplaceOne
from privcheck.testing import assert_private, epsilons, split_confidence


def test_assert_private_passes_correct_and_fails_buggy():
    rep = assert_private(M.GridLaplace(epsilon=1.0), samples=20_000, method="sample")
    assert rep.confidence == pytest.approx(1 - 1e-6)

    def buggy(x, rng, size):
        return np.asarray(x, float) + rng.laplace(0, 0.3, size)

    with pytest.raises(AssertionError, match="REFUTED"):
        assert_private(buggy, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], samples=20_000)


def test_split_confidence():
    assert split_confidence(0.99, 10) == pytest.approx(0.999)
    with pytest.raises(ValueError):
        split_confidence(1.0, 2)


@settings(max_examples=5, deadline=None)
@given(epsilons(0.2, 3.0))
def test_optimal_rr_is_private_for_every_epsilon(eps):
    assert_private(M.optimal_randomized_response(eps), method="exact")
