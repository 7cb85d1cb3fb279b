"""P2B: the privacy formula, δ* against brute-force enumeration, the shuffler's threshold, the audit (tuple
thresholding holds; code-only and no thresholding are refuted with δ ≥ p), LinUCB, the encoder, the experiment's
ordering and bad input."""

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.mechanisms.p2b import Encoder, Shuffler, crowd_delta, p2b_epsilon
from privcheck.policies.linucb import LinUCB, fit_model
from privcheck.policies.p2b import Population, run_p2b
from privcheck import audit
from privcheck.cli import main
from privcheck.core import InvalidArgument


@pytest.mark.parametrize("p", [0.01, 0.25, 0.5, 0.632, 0.9])
def test_epsilon_of_presampling(p):
    exact = -mpmath.log(1 - mpmath.mpf(p))
    assert p2b_epsilon(p) >= float(exact) and p2b_epsilon(p) == pytest.approx(float(exact), rel=1e-11)
    general = mpmath.log(p * (2 - p) / (1 - p) + 1 - p)  # the paper's formula at ε̄ = 0
    assert float(general) == pytest.approx(float(exact), rel=1e-12)
    assert (p2b_epsilon(p) < 1) == (p < 1 - math.exp(-1))
    assert p2b_epsilon(p, 0.5) > p2b_epsilon(p)


def _brute_delta(p, l, m, m2, eps):
    """Enumerate every coin pattern of the m + m' others and the user: the two counts, thresholded."""
    P, Q = {}, {}
    for coins in itertools.product((0, 1), repeat=m + m2 + 1):
        w = math.prod(p if c else 1 - p for c in coins)
        c1, c2, b = sum(coins[:m]), sum(coins[m : m + m2]), coins[-1]
        T = lambda n: n if n >= l else 0  # noqa: E731
        P[(T(c1 + b), T(c2))] = P.get((T(c1 + b), T(c2)), 0) + w
        Q[(T(c1), T(c2 + b))] = Q.get((T(c1), T(c2 + b)), 0) + w
    return sum(max(0.0, P.get(o, 0) - math.exp(eps) * Q.get(o, 0)) for o in set(P) | set(Q))


def test_crowd_delta_matches_brute_force_enumeration():
    p, l, M = 0.4, 2, 5
    eps = p2b_epsilon(p)
    brute = max(_brute_delta(p, l, m, m2, eps) for m in range(M + 1) for m2 in range(M + 1))
    got = crowd_delta(p, l, max_crowd=M)
    assert got.delta >= brute and got.delta == pytest.approx(brute, rel=1e-9)
    assert _brute_delta(p, l, *got.crowds, eps) == pytest.approx(brute, rel=1e-9)


def test_crowd_delta_reference_values():
    d = crowd_delta(0.5, 10)
    assert d.crowds == (12, 16) and 9.8e-3 < d.delta < 9.9e-3  # "of order 10⁻²"
    assert crowd_delta(0.5, 20).delta < d.delta < crowd_delta(0.5, 5).delta  # decreasing in l
    assert max(d.crowds) < d.searched  # the maximiser is inside the searched grid


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60),
    st.integers(1, 6),
    st.sampled_from(["tuple", "code"]),
    st.integers(0, 2**32 - 1),
)
@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): 60 hypothesis examples of the shuffler
def test_the_shuffler_never_releases_a_small_crowd(rows, l, mode, seed):
    sh = Shuffler(0.5, l, 4, 2, mode)
    out = sh.sample(np.array(rows, dtype=np.int64), np.random.default_rng(seed), 50)
    if mode == "tuple":
        assert ((out == 0) | (out >= l)).all()
    else:
        per_code = out.reshape(50, 4, 4).sum(axis=2)
        assert ((per_code == 0) | (per_code >= l)).all()
    reported = Shuffler(0.5, l, 4, 2, "none").sample(np.array(rows, dtype=np.int64), np.random.default_rng(seed), 50)
    assert (out <= reported).all() and ((out == 0) | (out == reported)).all()  # suppressed or released whole


def _audit(mode, samples=50_000, **options):
    sh = Shuffler(0.5, 10, 4, 2, mode)
    return audit(sh, samples=samples, seed=5, method="sample", **options)


# the default tier audits the built-in (tuple thresholding): tests/mechanisms/test_mechanism_contract.py
@pytest.mark.slow
def test_audit_does_not_refute_tuple_thresholding():
    r = _audit("tuple")
    assert not r.violates_claim


@pytest.mark.slow  # (the default tier's two minutes: the built-in shuffler is audited there, by the contract tests)
@pytest.mark.parametrize("mode", ["code", "none"])
def test_audit_exposes_code_only_and_no_thresholding(mode):
    r = _audit(mode, full_budget=True)  # the full plan, for the full magnitude (a look may refute sooner)
    assert r.violates_claim and r.delta_lower >= 0.45  # δ ≥ p = 0.5, up to sampling error


def test_linucb_sherman_morrison_and_warm_start():
    rng = np.random.default_rng(0)
    agent = LinUCB(3, 4)
    X, A, R = rng.random((30, 4)), rng.integers(0, 3, 30), rng.integers(0, 2, 30)
    model = fit_model(3, 4, X, A, R)
    state = agent.init(1)
    for x, a, r in zip(X, A, R):
        state = agent.update(state, 1, np.array([a]), np.array([float(r)]), None, x[None])
    assert np.allclose(state.A_inv[0], np.linalg.inv(model.A)) and np.allclose(state.b[0], model.b)
    warm = agent.init(2, model)
    x = rng.random((2, 4))
    assert np.allclose(agent.index(warm, x), agent.index(LinUCB(3, 4).init(2, model), x))
    theta = np.linalg.solve(model.A, model.b[..., None])[..., 0]
    width = np.sqrt(np.einsum("d,kde,e->k", x[0], np.linalg.inv(model.A), x[0]))
    assert np.allclose(agent.index(warm, x)[0], theta @ x[0] + width)


def test_encoder_is_deterministic_and_nearest_centroid():
    pop = Population.synthetic(seed=3)
    public = pop.contexts(np.random.default_rng(1), (2000,))
    e1, e2 = Encoder(public, 16, seed=4), Encoder(public, 16, seed=4)
    assert np.array_equal(e1.centroids, e2.centroids)
    x = pop.contexts(np.random.default_rng(2), (50,))
    codes = e1.encode(x)
    dist = ((x[:, None, :] - e1.centroids[None]) ** 2).sum(axis=2)
    assert np.array_equal(codes, dist.argmin(axis=1))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_cold_below_p2b_below_warm_from_5000_early_users():
    """With k = 32 codes and the sound (tuple) threshold: paired 95 % intervals of the differences exclude 0."""
    s = run_p2b(5000, codes=32, seed=1).summary()["average_reward"]
    assert s["p2b-cold"]["ci95"][0] > 0 and s["warm-p2b"]["ci95"][0] > 0


def test_bad_input(capsys):
    for kwargs in (
        {"sharing_probability": 1.0},
        {"sharing_probability": -0.1},
        {"threshold": 0},
        {"codes": 1},
        {"codes": 200},
    ):
        with pytest.raises(InvalidArgument):
            run_p2b(100, **{"codes": 8, **kwargs})
    with pytest.raises(InvalidArgument, match="population"):
        Shuffler(0.5, 10, 4, 2).sample(np.array([[4, 0, 0]]), np.random.default_rng(0), 1)
    for argv in (
        ["p2b", "--early-users", "100", "--sharing-probability", "1"],
        ["p2b", "--early-users", "100", "--threshold", "0"],
        ["p2b", "--early-users", "100", "--codes", "1"],
        ["p2b", "--early-users", "100", "--codes", "128"],
        ["audit", "p2b-shuffler", "--sharing-probability", "1.5", "--threshold", "10"],
        ["audit", "p2b-shuffler", "--sharing-probability", "0.5", "--threshold", "0"],
        ["audit", "p2b-shuffler", "--sharing-probability", "0.5", "--threshold-on", "bogus"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error" in err
    assert main(["p2b", "--early-users", "300", "--codes", "8", "--json", "--seed", "2"]) == 0
