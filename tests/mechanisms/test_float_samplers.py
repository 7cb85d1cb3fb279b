"""Float-safe mechanisms: exact samplers from random integers, the Laplace mechanism on a grid, and Mironov's
bit-level attack — caught on the textbook float sampler, harmless on the grid.

Frequency tests use a stated false-alarm rate: each chi-square test rejects a correct sampler with probability
1e-6, each normal-approximation test with probability below 1e-6 (|z| > 5)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from privcheck.mechanisms import exact_sampling as es
from privcheck.mechanisms.laplace import GridLaplace, Laplace
from privcheck import audit
from frequency import chi2_ok as _chi2_ok
from privcheck.core import InvalidArgument, PureDP, ReplaceOne


@pytest.mark.parametrize("n,d", [(0, 1), (1, 3), (1, 1), (5, 2), (7, 1000)])
def test_bernoulli_exp_frequency(n, d):
    rng = np.random.default_rng(n * 1000 + d)
    draws = es.bernoulli_exp(rng, np.full(200_000, n), np.full(200_000, d))
    p = math.exp(-n / d)
    z = (draws.mean() - p) / math.sqrt(p * (1 - p) / draws.size) if 0 < p < 1 else 0.0
    assert abs(z) < 5 and (p < 1 or draws.all())


def test_bernoulli_exp_algorithm_is_exp_exactly():
    """CKS Algorithm 1's law, in rationals: P[K odd] = Σ_k odd P[K = k], P[K = k] = γ^(k−1)/(k−1)! · (1 − γ/k),
    equals the Taylor series of e^(−γ) term by term (to 30 terms: the rest is below 1e-30)."""
    for gamma in (Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 9)):
        p_odd, fact = Fraction(0), Fraction(1)
        for k in range(1, 32):
            pk = gamma ** (k - 1) / fact * (1 - gamma / k)
            fact *= k
            if k % 2:
                p_odd += pk
        taylor = sum((-gamma) ** j / math.factorial(j) for j in range(31))
        assert abs(p_odd - taylor) < Fraction(1, 10**28)


@pytest.mark.parametrize("t", [1, 3, 10])
def test_discrete_laplace_frequencies(t):
    z = es.discrete_laplace(np.random.default_rng(t), t, 400_000)
    support = np.arange(-12 * t, 12 * t + 1)
    inside = z[np.abs(z) <= 12 * t]  # conditioned on the window: the pmf restricted to it
    counts = np.bincount(inside + 12 * t, minlength=support.size)
    assert _chi2_ok(counts, es.discrete_laplace_pmf(t, support))
    assert es.discrete_laplace_numpy(np.random.default_rng(0), t, 10).dtype == np.int64


def test_discrete_laplace_numpy_form_has_the_same_law():
    z = es.discrete_laplace_numpy(np.random.default_rng(5), 3, 200_000)
    support = np.arange(-36, 37)
    counts = np.bincount(z[np.abs(z) <= 36] + 36, minlength=support.size)
    assert _chi2_ok(counts, es.discrete_laplace_pmf(3, support))


@pytest.mark.parametrize("sigma2", [Fraction(1, 4), Fraction(2), Fraction(10), Fraction(1), Fraction(9)])
def test_discrete_gaussian_frequencies(sigma2):
    """The vectorised test (σ² = 1/4, 2, 10) and the compiled loop of an integer σ (σ² = 1, 9) draw the law."""
    z = es.discrete_gaussian(np.random.default_rng(int(sigma2 * 4)), sigma2, 200_000)
    lim = int(8 * math.sqrt(sigma2)) + 3
    support = np.arange(-lim, lim + 1)
    counts = np.bincount(z[np.abs(z) <= lim] + lim, minlength=support.size)
    assert _chi2_ok(counts, es.discrete_gaussian_pmf(sigma2, support))


def test_draws_do_not_depend_on_how_the_words_are_fetched(monkeypatch):
    """The compiled loop restarts a draw cut short by the end of its words from that draw's first word once more
    are appended: with a buffer of 1 word per draw (many refills) the draws are the same as with 12."""
    a = es.discrete_laplace(np.random.default_rng(9), 7, 20_000)
    g = es.discrete_gaussian(np.random.default_rng(9), Fraction(49), 20_000)
    monkeypatch.setattr(es, "_WORDS_PER_DRAW", 1)
    monkeypatch.setattr(es, "_GAUSS_WORDS_PER_DRAW", 1)
    b = es.discrete_laplace(np.random.default_rng(9), 7, 20_000)
    assert np.array_equal(a, b)
    assert np.array_equal(g, es.discrete_gaussian(np.random.default_rng(9), Fraction(49), 20_000, t=3))


def test_big_integer_path_is_exact_in_law():
    rng = np.random.default_rng(3)
    big = 1 << 80
    draws = [es._bernoulli_exp_big(rng, big // 2, big) for _ in range(20_000)]  # e^(−1/2)
    p = math.exp(-0.5)
    assert abs((np.mean(draws) - p) / math.sqrt(p * (1 - p) / 20_000)) < 5
    assert {es._below_big(rng, 3) for _ in range(200)} == {0, 1, 2}


def test_bad_parameters_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidArgument):
        es.discrete_laplace(rng, 0, 3)
    with pytest.raises(InvalidArgument):
        es.discrete_gaussian(rng, Fraction(0), 3)
    with pytest.raises(InvalidArgument):
        es.bernoulli(rng, 3, 2)


# --------------------------------------------------------------------------------------------- the grid Laplace
def test_grid_laplace_outputs_lie_on_the_grid_and_satisfy_the_claim():
    m = GridLaplace(epsilon=0.1)
    assert m.grid == 2.0**-20 and m.claim.epsilon <= 0.1
    out = m.sample(0.3, np.random.default_rng(1), 1000)
    assert np.array_equal(out / m.grid, np.rint(out / m.grid))
    assert (m.sensitivity / m.grid + 1) / m.t <= 0.1  # the rounded inputs are at most Δ + g apart
    assert GridLaplace(epsilon=1.0).claim.epsilon == 1.0  # t = 2^20 + 1 exactly: ε exact, not rounded past it


@pytest.mark.parametrize("eps", [1e-6, 1e-4, 0.1, 1.0, 30.0, 700.0])
def test_grid_laplace_exact_audit_is_tight(eps):
    """The grid costs at most 2^−19 of ε (one step of sensitivity, the scale rounded up to whole steps); the
    audit of the pair 0/1 (on the grid: Δ/g steps) is tight to the mechanism's own exact ε."""
    m = GridLaplace(epsilon=eps)
    truth = float(m.sensitivity / m.grid / m.t)  # on-grid pair: Δ/g steps of noise scale t
    assert truth >= eps * (1 - 2.0**-19)
    r = audit(m, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert not r.violates_claim and truth * (1 - 1e-5) <= r.epsilon_lower <= truth  # 1e-5: the binning at ε = 1e-6


def test_grid_laplace_with_half_the_noise_is_refuted():
    m = GridLaplace(scale=0.5)
    r = audit(m, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert r.violates_claim and r.epsilon_lower > 1.99


def test_grid_rejects_what_it_cannot_hold():
    with pytest.raises(InvalidArgument, match="power of two"):
        GridLaplace(epsilon=1.0, grid=0.3)
    with pytest.raises(InvalidArgument, match="too large"):
        GridLaplace(epsilon=1.0).sample(1e12, np.random.default_rng(0), 2)


def _trailing_zeros(k):
    from privcheck.audits.mechanism.attacks import trailing_zeros

    return trailing_zeros(k)


def test_mironovs_attack_catches_the_float_sampler_and_not_the_grid():
    claim = PureDP(0.1, ReplaceOne("l1", 1.0))
    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=200_000, seed=2, event=_trailing_zeros(4))
    float_report = audit(Laplace(epsilon=0.1), claim, **kw)
    grid_report = audit(GridLaplace(epsilon=0.1), claim, **kw)
    assert float_report.violates_claim and float_report.epsilon_lower > 0.3
    assert not grid_report.violates_claim


# ------------------------------------------------------------------------- the other grid built-ins (so far)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_grid_truncated_mean_is_tight_and_its_mis_calibration_caught():
    from privcheck.mechanisms.truncation import GridTruncatedMean

    m = GridTruncatedMean(1.0, 1.0)
    x = [0.5, -0.25, 1.0, 0.0]
    pair = [(x, [0.5, -0.25, -1.0, 0.0])]
    ok = audit(m, m.claim, pairs=pair, method="exact", seed=1)
    assert not ok.violates_claim and ok.epsilon_lower > 0.9999
    loose = audit(GridTruncatedMean(2.0, 1.0), m.claim, pairs=pair, method="exact", seed=1)
    assert loose.violates_claim and loose.epsilon_lower > 1.999
    out = m.sample(x, np.random.default_rng(0), 100)
    g = m.lattice(4).grid
    assert np.array_equal(out / g, np.rint(out / g))


def test_grid_tree_counter_release_and_grid():
    from privcheck.mechanisms.tree import GridTreeCounter

    m = GridTreeCounter(1.0, 8)
    assert m.release_epsilon() <= 1.0 and m.claim.epsilon == 1.0
    out = m.sample(np.linspace(-1, 1, 8), np.random.default_rng(0), 50)
    assert out.shape == (50, 8) and np.array_equal(out / m.grid, np.rint(out / m.grid))
    half = GridTreeCounter(1.0, 8, grid=m.grid)
    half.t //= 2
    assert half.release_epsilon() > 1.99  # the closed form sees half the noise


@pytest.mark.parametrize(
    "name,params,x,x2",
    [
        ("laplace", {}, 0.0, 1.0),
        ("truncated-mean", {}, [0.0, 0.5], [1.0, 0.5]),
        ("tree-counter", {"horizon": 2}, [0.0, 0.0], [1.0, 0.0]),
        ("staircase", {}, 0.0, 1.0),
        ("gaussian", {"rho": 0.005}, 0.0, 1.0),
    ],
)
def test_mironovs_event_does_not_refute_the_grid_built_ins(name, params, x, x2):
    from privcheck.mechanisms.registry import build_builtin

    params = dict(params)
    claim = _zcdp(params.pop("rho")) if "rho" in params else PureDP(0.1)
    m = build_builtin(name, claim, params)
    assert m.sampler == "exact"
    event = _trailing_zeros(4)
    r = audit(m, m.claim, pairs=[(x, x2)], method="sample", samples=100_000, seed=3, event=event)
    assert not r.violates_claim


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_attack_from_the_command_line(capsys):
    from privcheck.cli import main

    base = [
        "audit",
        "laplace",
        "--epsilon",
        "0.1",
        "--pair",
        "0",
        "1",
        "--method",
        "sample",
        "--samples",
        "100000",
        "--event",
        "privcheck.audits.mechanism.attacks:trailing_zeros_4",
        "--seed",
        "1",
    ]
    assert main(base + ["--sampler", "float"]) == 1
    out = capsys.readouterr().out
    assert "REFUTED" in out and "not protected against bit-level attacks" in out
    assert main(base) == 0


@pytest.mark.parametrize("eps", [1e-13, 1e-9, 700.0, 1e6, 1e308])
def test_grid_laplace_at_the_edges_of_epsilon(eps, recwarn):
    m = GridLaplace(epsilon=eps)
    assert m.claim.epsilon <= eps and m.t < 2**44
    out = m.sample(1.0, np.random.default_rng(0), 1000)
    assert np.array_equal(out / m.grid, np.rint(out / m.grid))
    if 1e-9 <= eps <= 1e6:
        r = audit(m, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1)
        assert not r.violates_claim
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_an_epsilon_no_exact_grid_can_hold_is_refused_with_the_way_out():
    with pytest.raises(InvalidArgument, match='sampler="float"'):
        GridLaplace(epsilon=1e-14)


# ------------------------------------------------------------------------------------------ the grid staircase
def test_grid_staircase_pmf_and_draws():
    from privcheck.mechanisms.staircase import GridStaircase

    m = GridStaircase(1.0, grid=2.0**-3)  # stairs of 9 steps, 3 of them inner
    P, L, lb = m.period, m.inner, m._lb
    support = np.arange(-60, 61)
    w = np.exp((np.abs(support) // P + (np.abs(support) % P >= L)) * lb)
    total = math.exp(m._log_total())
    assert total == pytest.approx(
        sum(math.exp((n // P + (n % P >= L)) * lb) * (1 if n == 0 else 2) for n in range(0, 4000)), rel=1e-12
    )
    z = m._noise(np.random.default_rng(4), 300_000)
    inside = z[np.abs(z) <= 60]  # conditioned on the window: the pmf restricted to it
    counts = np.bincount(inside + 60, minlength=support.size)
    assert _chi2_ok(counts, w)
    o = np.array([-2.0, -0.125, 0.0, 0.6, 3.0])
    assert np.allclose(np.exp(m.logcdf(0.0, o)) + np.exp(m.logsf(0.0, o)), 1.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize(  # (the edges in the default tier, the middle in the slow one: the default tier's two minutes)
    "eps", [1e-4, *(pytest.param(e, marks=pytest.mark.slow) for e in (0.01, 1.0, 30.0)), 700.0]
)
def test_grid_staircase_exact_audit_is_tight_and_miscalibration_caught(eps):
    from privcheck.mechanisms.staircase import GridStaircase

    m = GridStaircase(eps)
    r = audit(m, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert not r.violates_claim and r.epsilon_lower >= float(m.epsilon_exact) * (1 - 1e-5)
    loose = audit(
        GridStaircase(2 * eps), PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1
    )
    assert loose.violates_claim


# ------------------------------------------------------------------------------------------- the grid Gaussian
def _grid_mp_tail(mech, m):
    """ln P[Z ≥ m] of a grid mechanism's noise at an integer m, independently in mpmath (40 digits)."""
    import mpmath as mp

    from privcheck.mechanisms.gaussian import GridGaussian
    from privcheck.mechanisms.staircase import GridStaircase

    if isinstance(mech, GridLaplace):
        r = mp.exp(-mp.mpf(1) / mech.t)
        return mp.log(r**m / (1 + r)) if m >= 1 else mp.log(1 - r ** (1 - m) / (1 + r))
    if isinstance(mech, GridStaircase):  # brute force over 40 stairs (the rest is below e^(−60))
        P, L, b = (
            mech.period,
            mech.inner,
            mp.exp(-mp.mpf(mech.epsilon_exact.numerator) / mech.epsilon_exact.denominator),
        )
        w = lambda n: b ** (n // P + (1 if n % P >= L else 0))  # noqa: E731
        total = 2 * mp.fsum(w(n) for n in range(0, 40 * P)) - w(0)
        tail = mp.fsum(w(abs(n)) for n in range(m, 40 * P))
        return mp.log(tail / total)
    assert isinstance(mech, GridGaussian)
    s = mp.mpf(mech.sigma_steps) ** 2
    f = lambda z: mp.exp(-z * z / (2 * s))  # noqa: E731
    total = 2 * mp.sumem(f, [1, mp.inf]) + 1
    if m >= 1:
        return mp.log(mp.sumem(f, [m, mp.inf]) / total)
    return mp.log(1 - mp.sumem(f, [1 - m, mp.inf]) / total)


@pytest.mark.parametrize(
    "build",
    [
        lambda: GridLaplace(epsilon=0.3),
        lambda: __import__("privcheck.mechanisms", fromlist=["x"]).GridStaircase(1.5, grid=2.0**-3),
        lambda: __import__("privcheck.mechanisms.gaussian", fromlist=["x"]).GridGaussian.for_zcdp(0.5),
    ],
    ids=["laplace", "staircase", "gaussian"],
)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_grid_step_cdfs_within_a_sixteenth_of_the_stated_error(build):
    import mpmath as mp

    from privcheck.audits.mechanism.exact import DENSITY_LOG_ERROR

    mech = build()
    scale = getattr(mech, "scale", None) or getattr(mech, "sigma", None) or mech.period * mech.grid
    rng = np.random.default_rng(2)
    pts = rng.uniform(-12, 12, 8) * scale
    with mp.workdps(40):
        for o, c, s in zip(pts, mech.logcdf(0.0, pts), mech.logsf(0.0, pts)):
            z = math.floor(o / mech.grid)
            for v, t in ((s, _grid_mp_tail(mech, z + 1)), (c, _grid_mp_tail(mech, -z))):  # P[Z ≤ z] = P[Z ≥ −z]
                assert abs(mp.mpf(float(v)) - t) <= DENSITY_LOG_ERROR / 16 * (1 + abs(v)), (o, v, t)


def _zcdp(rho):
    from privcheck.core import ZCDP, ReplaceOne as R

    return ZCDP(rho, R("l2", 1.0))


@pytest.mark.parametrize("rho", [1e-8, 1e-5, 0.5, 50.0])
def test_grid_gaussian_exact_audit_is_tight(rho):
    from privcheck.mechanisms.gaussian import GridGaussian

    m = GridGaussian.for_zcdp(rho)
    truth = float(Fraction((m.shift - 1) ** 2, 2 * m.sigma_steps**2))  # the on-grid pair 0/1: D − 1 steps
    assert truth >= rho * (1 - 2.0**-18) and m.claim.rho == rho
    r = audit(m, m.claim, pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert not r.violates_claim and r.rho_lower >= truth * (1 - 3e-5)  # the binning's resolution at ρ = 1e-8


def test_grid_gaussian_calibrates_across_rho():
    """From ρ = 1e-24 (the grid coarsens so that σ stays within 2^40 steps) to 1e8, the σ in steps meets the
    claim and is the smallest that does; below, a clear refusal."""
    from privcheck.mechanisms.gaussian import GridGaussian

    for rho in np.logspace(-24, 8, 33):
        m = GridGaussian.for_zcdp(float(rho))
        assert (1 << 16) <= m.sigma_steps < (1 << 40)
        assert m.rho_exact <= Fraction(float(rho)) < Fraction(m.shift**2, 2 * (m.sigma_steps - 1) ** 2)
    with pytest.raises(InvalidArgument, match='sampler="float"'):
        GridGaussian.for_zcdp(1e-30)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_grid_gaussian_approx_and_renyi_calibrations():
    from privcheck.mechanisms.gaussian import GridGaussian
    from privcheck.core import ApproxDP, RenyiDP

    m = GridGaussian.for_approx(1.0, 1e-5)
    assert m.delta_for_epsilon(1.0) <= 1e-5
    bigger = GridGaussian(m.sigma_steps - 1, m.grid, 1.0)
    assert bigger.delta_for_epsilon(1.0) > 1e-5 * (1 - 1e-6)  # the smallest σ (in steps) that meets δ
    r = audit(m, ApproxDP(1.0, 1e-5, ReplaceOne("l2", 1.0)), pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert not r.violates_claim and r.delta_lower > 0.99999e-5
    rd = GridGaussian.for_renyi(2.0, 1.0)
    assert rd.rho_exact <= Fraction(1, 2) and isinstance(rd.claim, RenyiDP)


def test_grid_gaussian_with_half_the_noise_is_refuted():
    from privcheck.mechanisms.gaussian import GridGaussian

    m = GridGaussian.for_zcdp(0.5)
    half = GridGaussian(m.sigma_steps // 2, m.grid, 1.0)
    r = audit(half, _zcdp(0.5), pairs=[(0.0, 1.0)], method="exact", seed=1)
    assert r.violates_claim and r.rho_lower > 1.99


def test_grid_gaussian_draws_follow_its_face():
    from privcheck.mechanisms.gaussian import GridGaussian

    m = GridGaussian(1 << 16, 2.0**-16, 1.0)  # σ = 2^16 steps = 1
    out = m.sample(0.0, np.random.default_rng(6), 200_000)
    edges = np.linspace(-3, 3, 25)
    counts = np.histogram(out, bins=np.concatenate([[-np.inf], edges, [np.inf]]))[0]
    cdf = np.exp(m.logcdf(0.0, edges))
    probs = np.diff(np.concatenate([[0.0], cdf, [1.0]]))
    assert _chi2_ok(counts, probs)


class _Words:
    """A stand-in Generator whose raw words are given: bernoulli_double's comparisons, checked word by word."""

    def __init__(self, words):
        self.bit_generator = self
        self.words = list(words)

    def random_raw(self, n):
        out, self.words = self.words[:n], self.words[n:]
        return np.array(out, dtype=np.uint64)


def test_bernoulli_double_compares_uniform_bits_with_the_exact_rational():
    p = 2.0**-60 + 2.0**-100  # a double whose expansion takes two words: p·2^64 = 16 + 2^-36, then 2^28
    assert math.floor(Fraction(p) * 2**64) == 16 and (Fraction(p) * 2**64 - 16) * 2**64 == 2**28
    rng = _Words([15, 17, 16, 16, 16, 2**28 - 1, 2**28, 2**28 + 1])
    # below; above; equal then below; equal, equal and nothing of p left (U ≥ p); equal then above
    assert es.bernoulli_double(rng, p, 5).tolist() == [True, False, True, False, False]
    assert es.bernoulli_double(_Words([0]), 1 / 3, 1).tolist() == [True]
    assert es.bernoulli_double(_Words([]), 0.0, 3).tolist() == [False] * 3
    assert es.bernoulli_double(_Words([]), 1.0, 2).tolist() == [True] * 2
    # rng.random() < 2^-70 is true whenever the 53-bit uniform is 0 (probability 2^-53, 2^17 times too likely)
    assert not es.bernoulli_double(_Words([1]), 2.0**-70, 1)[0]


@pytest.mark.parametrize("p", [1 / 3, 0.9, 2.0**-7])
def test_bernoulli_double_frequency(p):
    x = es.bernoulli_double(np.random.default_rng(5), p, 400_000)
    assert abs(x.mean() - p) / math.sqrt(p * (1 - p) / x.size) < 5


_LOOPS = {
    "laplace": ("_compiled_fill", "discrete_laplace_words"),
    "gauss": ("_compiled_gauss", "discrete_gaussian_words"),
}


@pytest.mark.skipif(es._compiled_fill is None, reason="privcheck.mechanisms._exactloop is not built")
@pytest.mark.parametrize(
    "law,t",
    [("laplace", t) for t in (1, 2, 10, 2**20 + 1, 2**51)]
    # (the slow tier: numba compiles the Gaussian kernel in seconds, and the C loop is what runs)
    + [pytest.param("gauss", s, marks=pytest.mark.slow) for s in (1, 2, 10, 2**20 + 1, 2**30 - 1)],
)
def test_compiled_loops_are_the_numba_kernels(law, t):
    """The C loop and the numba reference give the same draws and the same stopping point from the same words,
    whether the words suffice or run out mid-draw (for every cut of a short buffer)."""
    compiled, kernel = (getattr(es, n) for n in _LOOPS[law])
    words = np.random.default_rng(t).bit_generator.random_raw(8000)
    a, b = np.zeros(300, dtype=np.int64), np.zeros(300, dtype=np.int64)
    assert compiled(words, t, a, 0) == tuple(kernel(words, t, b, 0))
    assert np.array_equal(a, b)
    for cut in range(0, 90, 7):
        a, b = np.zeros(20, dtype=np.int64), np.zeros(20, dtype=np.int64)
        assert compiled(words[:cut], t, a, 3) == tuple(kernel(words[:cut], t, b, 3))
        assert np.array_equal(a, b)


def test_compiled_discrete_laplace_loop_checks_its_buffers():
    if es._compiled_fill is None:
        pytest.skip("privcheck.mechanisms._exactloop is not built")
    out = np.zeros(3, dtype=np.int64)
    with pytest.raises(ValueError, match="uint64"):
        es._compiled_fill(np.zeros(5, dtype=np.int64), 3, out, 0)
    with pytest.raises(ValueError, match="int64"):
        es._compiled_fill(np.zeros(5, dtype=np.uint64), 3, np.zeros(3, dtype=np.int32), 0)
    with pytest.raises(ValueError, match="writable"):
        ro = np.zeros(3, dtype=np.int64)
        ro.flags.writeable = False
        es._compiled_fill(np.zeros(5, dtype=np.uint64), 3, ro, 0)
    with pytest.raises(ValueError, match="t >= 1"):
        es._compiled_fill(np.zeros(5, dtype=np.uint64), 0, out, 0)
    with pytest.raises(ValueError, match="2\\^30"):
        es._compiled_gauss(np.zeros(5, dtype=np.uint64), 2**30, out, 0)


@pytest.mark.parametrize("num,den", [(2**61, 2**61), (1, 3), (3 * 2**59, 2**61)])
def test_bernoulli_exp_words_frequency_including_past_the_overflow_split(num, den):
    """At den = 2^61 the steps k ≥ 3 take the split Bernoulli(num/den)·Bernoulli(1/k) (den·k would pass 2^62)."""
    words = np.random.default_rng(num % 1000 + den % 1000).bit_generator.random_raw(3_000_000)
    pos, hits, n = 0, 0, 0
    while n < 100_000:
        b, pos = es.bernoulli_exp_words(words, pos, num, den)
        hits, n = hits + b, n + 1
    p = math.exp(-num / den)
    assert abs(hits / n - p) / math.sqrt(p * (1 - p) / n) < 5


def test_discrete_gaussian_far_beyond_64_bits():
    """σ = 2^31 steps: every acceptance test takes the Python-integer path, including γ ≥ 1 (which once recursed
    without end); the draws have the discrete Gaussian's spread and tails."""
    z = es.discrete_gaussian(np.random.default_rng(8), Fraction(2**62), 20_000, t=2**31)
    sd = z.std() / 2**31
    assert abs(sd - 1) < 5 * math.sqrt(0.5 / z.size)  # the standard deviation's own standard error ≈ 1/√(2n)
    assert abs(np.mean(np.abs(z) > 2**32) - 2 * stats_sf(2.0)) < 5 * math.sqrt(0.0455 / z.size)


def stats_sf(x):
    return 0.5 * math.erfc(x / math.sqrt(2))


@pytest.mark.parametrize("claim", ["zcdp", "renyi", "approx"])
def test_grid_gaussian_vectors_meet_the_claim_in_every_dimension(claim):
    """A d-vector's σ (in steps) gives (Δ/g + ⌈√d⌉)²/(2σ²) ≤ ρ for the claim's ρ (for (ε, δ): Bun–Steinke's
    conversion back to ε within δ), is the smallest that does (or the scalar σ), and the draws are independent
    coordinates on the grid with that spread."""
    from privcheck.mechanisms.gaussian import GridGaussian

    m = {
        "zcdp": lambda: GridGaussian.for_zcdp(0.5),
        "renyi": lambda: GridGaussian.for_renyi(2.0, 1.0),
        "approx": lambda: GridGaussian.for_approx(1.0, 1e-5),
    }[claim]()
    rho = m.vector_rho
    if claim == "approx":
        L = math.log(1e5)
        assert float(rho) + 2 * math.sqrt(float(rho) * L) <= 1.0
    for d in (1, 2, 3, 10, 1000):
        s = m.steps_for(d)
        D = Fraction(1) / Fraction(m.grid) + math.ceil(math.sqrt(d))
        assert D * D / (2 * s * s) <= rho
        assert s == m.sigma_steps or D * D / (2 * (s - 1) ** 2) > rho
    out = m.sample([0.25, -3.0, 7.5], np.random.default_rng(3), 20_000)
    assert out.shape == (20_000, 3) and np.array_equal(out, np.rint(out / m.grid) * m.grid)
    sd = (out - np.rint(np.array([0.25, -3.0, 7.5]) / m.grid) * m.grid).std(axis=0) / (m.steps_for(3) * m.grid)
    assert np.all(np.abs(sd - 1) < 5 * math.sqrt(0.5 / 20_000))
    assert abs(np.corrcoef(out[:, 0], out[:, 1])[0, 1]) < 5 / math.sqrt(20_000)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_grid_gaussian_vector_with_half_the_noise_is_refuted():
    from privcheck.mechanisms.gaussian import GridGaussian

    m = GridGaussian.for_zcdp(0.5)
    half = GridGaussian(m.sigma_steps // 2, m.grid, 1.0)  # σ given: vectors use it as it is
    assert half.steps_for(2) == half.sigma_steps
    r = audit(half, _zcdp(0.5), pairs=[([0.0, 0.0], [1.0, 0.0])], method="sample", samples=100_000, seed=2)
    assert r.violates_claim
    ok = audit(m, _zcdp(0.5), pairs=[([0.0, 0.0], [1.0, 0.0])], method="sample", samples=100_000, seed=2)
    assert not ok.violates_claim
