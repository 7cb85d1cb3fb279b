import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck import mechanisms as M
from privcheck.core import InvalidArgument, ReplaceRecord
from privcheck.testing import rr_probabilities


@pytest.fixture(autouse=True, scope="module")
def _thirty_digits():
    """The references below in 30-digit arithmetic, set for this module's tests only (a precision set at import
    held for whichever module was imported last)."""
    with mp.workdps(30):
        yield


def four_ratio_epsilon(p00, p11):
    """Reference: the largest log-ratio over the four (input pair, output) combinations, in mpmath."""
    p00, p11 = mp.mpf(p00), mp.mpf(p11)
    cols = [(p00, 1 - p11), (1 - p00, p11)]  # output 0: (P[0|0], P[0|1]); output 1: (P[1|0], P[1|1])
    best = mp.mpf(0)
    for a, b in cols:
        for num, den in ((a, b), (b, a)):
            if den == 0 and num > 0:
                return math.inf
            if den > 0 and num > 0:
                best = max(best, mp.log(num / den))
    return float(best)


@settings(max_examples=200, deadline=None)
@given(rr_probabilities())
def test_rr_epsilon_is_the_four_ratio_level(p):
    p00, p11 = p
    ref = four_ratio_epsilon(p00, p11)
    got = M.rr_epsilon(p00, p11)
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12) if math.isfinite(ref) else got == math.inf
    assert (
        M.channel_epsilon(M.BinaryRandomizedResponse(p00, p11).Q) == pytest.approx(got, rel=1e-12, abs=1e-12)
        if math.isfinite(ref)
        else True
    )


def test_two_ratio_condition_of_the_seed_is_incomplete():
    # claims G-LDP3: p00 = p11 = 0.01 passes the two-ratio test at any ε >= 0 but is ln 99-LDP
    assert max(0.01 / 0.99, 0.01 / 0.99) < 1
    assert M.rr_epsilon(0.01, 0.01) == pytest.approx(math.log(99))


@pytest.mark.parametrize("eps", [0.125, 0.5, 1.0, 3.0])
def test_optimal_rr_equals_krr_and_staircase_at_k2(eps):
    rr = M.optimal_randomized_response(eps)
    assert rr.p00 == rr.p11 == pytest.approx(math.exp(eps) / (1 + math.exp(eps)))
    assert np.allclose(rr.Q, M.KaryRandomizedResponse(2, eps).Q)
    assert np.allclose(rr.Q, M.StaircasePattern(eps, k=2).Q)
    assert rr.epsilon == pytest.approx(eps, rel=1e-12)
    assert rr.claim.epsilon >= rr.epsilon  # rounded to the safe side
    assert rr.corruption(0.3) == pytest.approx(1 - rr.p00 + (rr.p00 + rr.p11 - 1) * 0.3)
    assert rr.corruption_inverse(rr.corruption(0.3)) == pytest.approx(0.3)


def test_staircase_pattern_columns_are_staircases():
    pat = [[1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1]]
    m = M.StaircasePattern(0.7, pattern=pat)
    Q = m.Q
    for col in Q.T:
        ratios = col[:, None] / col[None, :]
        assert np.all(np.isclose(ratios, 1) | np.isclose(ratios, math.e**0.7) | np.isclose(ratios, math.e**-0.7))
    assert m.epsilon == pytest.approx(0.7)


def test_krr_probabilities():
    m = M.KaryRandomizedResponse(5, 1.0)
    assert m.Q[0, 0] == pytest.approx(math.e / (4 + math.e))
    assert m.Q[0, 1] == pytest.approx(1 / (4 + math.e))
    with pytest.raises(InvalidArgument):
        M.KaryRandomizedResponse(1, 1.0)


def _laplace_renyi_quad(a, t):
    f = lambda z: mp.e ** (-abs(z)) / 2  # noqa: E731
    g = lambda z: mp.e ** (-abs(z - t)) / 2  # noqa: E731
    val = mp.quad(lambda z: f(z) ** a * g(z) ** (1 - a), [-mp.inf, 0, t, mp.inf])
    return float(mp.log(val) / (a - 1))


def test_laplace_renyi_closed_form():
    lap = M.Laplace(1.0)
    assert lap.renyi(2) == pytest.approx(0.6191, abs=1e-4)
    assert lap.renyi(8) == pytest.approx(0.9102, abs=1e-4)
    for a in (1.5, 2, 5, 20):
        assert lap.renyi(a) == pytest.approx(_laplace_renyi_quad(a, 1), rel=1e-10)


def test_gaussian_calibrations():
    g = M.Gaussian.for_zcdp(0.5)
    assert g.sigma == pytest.approx(1.0) and g.renyi(3) == pytest.approx(1.5)
    c = M.Gaussian.classic(0.5, 1e-5)
    assert c.delta_for_epsilon(0.5) <= 1e-5
    a = M.Gaussian.analytic(1.0, 1e-5)
    assert a.delta_for_epsilon(1.0) <= 1e-5 < M.Gaussian(a.sigma * 0.999).delta_for_epsilon(1.0)
    assert a.sigma < M.Gaussian.classic(0.99, 1e-5).sigma  # the analytic calibration needs less noise
    with pytest.raises(InvalidArgument, match="classic"):
        M.Gaussian.classic(1.5, 1e-5)


@pytest.mark.parametrize("eps,sigma", [(0.5, 1.0), (1.0, 2.0), (2.0, 0.7)])
def test_gaussian_delta_matches_quadrature(eps, sigma):
    pdf = lambda z, m: mp.npdf(z, m, sigma)  # noqa: E731
    ref = mp.quad(lambda z: max(0, pdf(z, 0) - mp.e**eps * pdf(z, 1)), [-mp.inf, 0.5 - eps * sigma**2, mp.inf])
    assert M.gaussian_delta(eps, sigma) == pytest.approx(float(ref), rel=1e-8, abs=1e-15)


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): the sampler's frequencies at 10^6 draws
def test_staircase_noise_density_cdf_and_sampler():
    s = M.StaircaseNoise(1.0, sensitivity=2.0)
    k = np.arange(-30, 30)
    cuts = np.sort(np.concatenate([2.0 * k, 2.0 * (k + s.gamma), -2.0 * (k + s.gamma)]))
    total = mp.quad(lambda z: mp.e ** float(s.logpdf(0, z)), np.unique(cuts).tolist())
    assert float(total) == pytest.approx(1.0, abs=1e-6)
    z = s.sample(0.0, np.random.default_rng(1), 400_000)
    for t in (-3.1, -0.5, 0.0, 0.7, 2.3, 5.0):
        assert (z <= t).mean() == pytest.approx(float(np.exp(s.logcdf(0, t))), abs=4e-3)
        assert float(np.exp(s.logcdf(0, t)) + np.exp(s.logsf(0, t))) == pytest.approx(1.0)
    # ratio of densities for shifts up to Δ never exceeds e^ε
    o = np.linspace(-10, 10, 20001)
    for shift in (0.3, 1.0, 2.0):
        assert np.max(s.logpdf(0, o) - s.logpdf(shift, o)) <= 1.0 + 1e-12


def test_truncated_mean():
    m = M.TruncatedMean(1.0, bound=2.0)
    assert np.allclose(M.truncate([1, -3, 2, 2.5], 2.0), [1, 0, 2, 0])
    assert m.scale(4) == pytest.approx(2 * 2 / (4 * 1.0))
    assert isinstance(m.claim.relation, ReplaceRecord)
    z = m.sample([1, -3, 2, 2.5], np.random.default_rng(0), 200_000)
    assert z.mean() == pytest.approx(0.75, abs=0.01)
    # sensitivity 2B/R: the extreme neighbours move the truncated mean by exactly 2B/R
    assert M.truncate([2, 0, 0, 0], 2).mean() - M.truncate([-2, 0, 0, 0], 2).mean() == pytest.approx(1.0)


@pytest.mark.parametrize("T", [1, 2, 5, 8, 13, 64])
def test_tree_decomposition(T):
    blocks, prefix = M.dyadic_blocks(T), M.prefix_blocks(T)
    L = M.tree_levels(T)
    assert L == math.floor(math.log2(T)) + 1
    cover = np.zeros(T, dtype=int)
    for a, b in blocks:
        cover[a:b] += 1
    assert cover.max() <= L  # every element lies in at most L blocks
    for t in range(1, T + 1):  # the blocks of prefix t partition [0, t)
        ids = prefix[t - 1][prefix[t - 1] >= 0]
        covered = np.zeros(T, dtype=int)
        for i in ids:
            a, b = blocks[i]
            covered[a:b] += 1
        assert np.array_equal(covered, (np.arange(T) < t).astype(int))


def test_tree_counter_is_unbiased_and_uses_max_bound():
    x = np.arange(1.0, 9.0)
    tc = M.TreeCounter(1.0, 8)
    z = tc.sample(x, np.random.default_rng(0), 20_000)
    assert z.shape == (20_000, 8)
    assert np.allclose(z.mean(axis=0), np.cumsum(x), atol=0.6)
    assert tc.scale == pytest.approx(4 * 1.0 / 1.0)
    tb = M.TreeCounter(1.0, 8, bounds=np.linspace(1, 4, 8))
    assert tb.sensitivity == 8.0 and isinstance(tb.claim.relation, ReplaceRecord)
    assert np.allclose(tb.block_sums(np.full(8, 3.5))[:8], np.where(np.linspace(1, 4, 8) >= 3.5, 3.5, 0.0))


@pytest.mark.parametrize(
    "bad",
    [
        lambda: M.Laplace(),
        lambda: M.Laplace(1, scale=1),
        lambda: M.Laplace(-1),
        lambda: M.BinaryRandomizedResponse(1.2, 0.5),
        lambda: M.TreeCounter(1, 0),
        lambda: M.StaircaseNoise(0),
        lambda: M.TruncatedMean(1, -1),
        lambda: M.StaircasePattern(1, pattern=[[2, 0], [0, 1]]),
    ],
)
def test_bad_parameters(bad):
    with pytest.raises(InvalidArgument):
        bad()


def test_bad_inputs():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidArgument):
        M.optimal_randomized_response(1).sample(2, rng, 3)
    with pytest.raises(InvalidArgument):
        M.TruncatedMean(1, 1).sample([], rng, 3)
    with pytest.raises(InvalidArgument):
        M.TreeCounter(1, 4).sample([1, 2], rng, 3)


@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 8))
def test_rr_claim_never_understates(eps):
    m = M.optimal_randomized_response(eps)
    assert m.claim.epsilon >= M.channel_epsilon(m.Q)
