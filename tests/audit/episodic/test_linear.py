"""Linear MDPs (``dim=``): the public features an agent is given lie on their grid with norms at most 1; an agent that
asks for features without a dimension is one message; the built-in DP-LSVI is not refuted at its zCDP claim on its
releases and a fiftieth of its noise is; its (ε, δ) calibration is the zCDP conversion's; the Gaussian tree counter
draws the discrete Gaussian.  The example's feature-norm bug at the default command: benchmarks/private_rl.py."""

import math
from fractions import Fraction

import numpy as np
import pytest

from privcheck import ApproxDP, InvalidArgument, Tapes, audit_episodic
from privcheck.core.episodic import FEATURE_GRID_BITS, EpisodicAgent, linear_features
from privcheck.mechanisms.tree import ContinualTree
from privcheck.policies.dp_lsvi import gaussian_rho, make as lsvi

K, H, S, A, D = 4, 2, 2, 2, 3


@pytest.mark.parametrize("states, actions, dim", [(2, 2, 3), (3, 2, 6), (4, 3, 5), (2, 2, 9), (1, 1, 1)])
def test_the_features_are_public_on_their_grid_with_norms_at_most_one(states, actions, dim):
    phi = linear_features(states, actions, dim)
    assert phi.shape == (states, actions, dim)
    grid = phi * (1 << FEATURE_GRID_BITS)
    assert np.array_equal(grid, np.round(grid)) and np.all(np.linalg.norm(phi, axis=2) <= 1.0)
    assert np.all(np.linalg.norm(phi, axis=2) > 0.5) and np.array_equal(phi, linear_features(states, actions, dim))
    if dim >= states * actions:  # one-hot: norm 1 exactly, every pair apart
        assert np.allclose(np.linalg.norm(phi, axis=2), 1.0)


def test_an_agent_that_asks_for_features_needs_a_dimension():
    with pytest.raises(InvalidArgument, match="declares features: a linear MDP's agent — give dim="):
        EpisodicAgent(lsvi, K, H, S, A, {"rho": 1.0}, "lsvi")
    made = EpisodicAgent(lsvi, K, H, S, A, {"rho": 1.0}, "lsvi", dim=D)
    assert made.instance == {"episodes": K, "horizon": H, "states": S, "actions": A, "dim": D}


def _pair():
    z = np.zeros((K, H, S, A))
    moved = np.zeros((K, H, S, A), dtype=int)
    moved[0] = 1
    a = Tapes(np.zeros(K, dtype=int), z, z.astype(int), user=0)
    b = Tapes(np.zeros(K, dtype=int), z + (np.arange(K) == 0)[:, None, None, None], moved, user=0)
    return a, b


def _audit(claim, **kw):
    args = dict(episodes=K, horizon=H, states=S, actions=A, dim=D, seed=1, samples=600, pairs=[_pair()])
    return audit_episodic(lsvi, claim, "joint", releases=("gram", "rewards", "transitions"), **{**args, **kw})


def test_the_builtin_dp_lsvi_holds_at_its_claim_on_its_releases_and_a_fiftieth_of_its_noise_does_not():
    """An (ε, δ) claim, calibrated through the zCDP conversion (a ρ claim's score is the slower to certify: the ρ
    path is the benchmark's, benchmarks/private_rl.py --linear)."""
    ok = _audit(ApproxDP(1.0, 1e-5))
    assert not ok.violates_claim and "dim=3" in str(ok.reproduction)
    low = _audit(ApproxDP(1.0, 1e-5), factory_args={"noise_multiplier": 0.02})
    assert low.violates_claim and low.epsilon_lower > 1


def test_an_epsilon_delta_claim_is_met_through_the_zcdp_conversion_and_a_pure_one_is_refused():
    rho = gaussian_rho(epsilon=1.0, delta=1e-5)
    assert rho + 2 * math.sqrt(rho * math.log(1e5)) == pytest.approx(1.0, rel=1e-12)
    assert gaussian_rho(rho=0.3) == 0.3 and gaussian_rho() is None
    with pytest.raises(InvalidArgument, match="not a pure ε-DP claim"):
        gaussian_rho(epsilon=1.0)


def test_a_gaussian_tree_counter_draws_the_discrete_gaussian_and_takes_one_noise():
    tree = ContinualTree((20_000,), 4, None, np.random.default_rng(0), sigma2=Fraction(9))
    first = tree.add(np.zeros(20_000, dtype=np.int64))
    assert first.dtype == np.int64 and abs(first.var() - 9) < 0.4 and abs(first.mean()) < 0.1
    with pytest.raises(InvalidArgument, match="steps= .* or sigma2="):
        ContinualTree((2,), 4, 3, np.random.default_rng(0), sigma2=Fraction(9))
