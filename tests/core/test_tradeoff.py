"""Gaussian DP, f-DP and trade-off curves: the certified μ, the claims, the conversions, the audit figure."""

import itertools
import json
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import privcheck as pc
from privcheck.core import InvalidArgument
from privcheck.core import tradeoff as tr
from privcheck.mechanisms.randomized_response import optimal_randomized_response


def _precise(fn):
    """Run at 60 digits whatever precision another test left mpmath at (xdist shares a worker's process)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        with mp.workdps(60):
            return fn(*a, **kw)

    return wrapper


@_precise
def _ninv(p) -> mp.mpf:
    """Φ⁻¹ in mpmath, accurate in both tails (solved on log Φ, so that tiny probabilities keep their digits)."""
    p = mp.mpf(p)
    if p > 0.5:
        return -_ninv(1 - p)
    if p == 0.5:
        return mp.mpf(0)
    guess = -mp.sqrt(-2 * mp.log(p)) if p < 1e-3 else mp.sqrt(2) * mp.erfinv(2 * p - 1)
    return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(p), guess)


@_precise
def _rr_mu(eps) -> mp.mpf:
    t = 1 / (1 + mp.e ** mp.mpf(eps))  # the interior vertex of f_{ε,0}
    return -2 * _ninv(t)


@_precise
def test_ndtri_error_model_holds_with_a_wide_margin():
    from scipy.special import ndtri

    rng = np.random.default_rng(0)
    ps = np.concatenate(
        [
            10 ** rng.uniform(-300, -0.31, 60),
            0.5 + 10 ** rng.uniform(-16, -1, 30),
            1 - 10 ** rng.uniform(-16, -0.31, 30),
            [0.5, 1e-300, 5e-324],
        ]
    )
    worst = 0.0
    for p in ps:
        exact = _ninv(float(p))
        z = float(ndtri(p))
        worst = max(worst, abs(z - exact) / max(abs(exact), mp.mpf(1e-300)))
        assert tr.ndtri_down(p) <= exact <= tr.ndtri_up(p)
    assert worst < tr.NDTRI_REL / 100


def test_certified_mu_edges():
    assert tr.certified_mu(0.0, 0.0) == 0.0  # nothing certified on x
    assert tr.certified_mu(0.0, 0.3) == 0.0
    assert tr.certified_mu(0.2, 0.0) == math.inf  # an event impossible under x'
    assert tr.certified_mu(1.0, 0.5) == math.inf
    assert tr.certified_mu(1.0, 1.0) == 0.0
    assert tr.certified_mu(0.3, 0.5) == 0.0  # p below q: no bound
    # the complement carries what a double near 1 cannot: P(S^c) ≤ 1e-300
    assert tr.certified_mu(1.0 - 1e-16, 0.5, pc_upper=1e-300) > 37.0


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-300, 1.0), st.floats(1e-300, 1.0))
@_precise
def test_certified_mu_never_exceeds_the_exact_value(p, q):
    got = tr.certified_mu(p, q)
    if p == 1 or q == 1:
        assert got == (math.inf if q < 1 else 0.0)
        return
    exact = _ninv(p) - _ninv(q)
    assert got <= max(exact, 0)
    if p > q:
        assert got >= float(exact) - 1e-9 * (1 + abs(float(exact)))


@pytest.mark.parametrize("eps", [1e-6, 1.0, 30.0])
@_precise
def test_exact_mu_of_randomized_response_is_tight_and_claims_at_the_truth_hold(eps):
    m = optimal_randomized_response(eps)
    truth = _rr_mu(eps)
    rep = pc.audit(m, pc.GaussianDP(1.0, pc.AllPairs()), pairs=[(0, 1)], method="exact")
    assert rep.mu_lower <= truth
    assert rep.mu_lower >= float(truth) * (1 - 1e-8)
    above = math.nextafter(float(truth), math.inf)
    if mp.mpf(above) < truth:
        above = math.nextafter(above, math.inf)
    assert not pc.audit(m, pc.GaussianDP(above, pc.AllPairs()), pairs=[(0, 1)], method="exact").violates_claim
    if eps >= 1:  # a claim a relative 1e-9 below the truth is refuted (ε = 1e-6: μ ~ 1e-6, resolution ~1e-15)
        below = float(truth) * (1 - 1e-9)
        assert pc.audit(m, pc.GaussianDP(below, pc.AllPairs()), pairs=[(0, 1)], method="exact").violates_claim


def _brute_mu(P, Q):
    """max over every event of Φ⁻¹(P(S)) − Φ⁻¹(Q(S)) (exact sums; scipy's Φ⁻¹, within 1e-15)."""
    from fractions import Fraction
    from scipy.special import ndtri

    best = 0.0
    n = len(P)
    for k in range(1, n):
        for S in itertools.combinations(range(n), k):
            a = float(sum(Fraction(float(P[i])) for i in S))
            b = float(sum(Fraction(float(Q[i])) for i in S))
            if a > b > 0:
                best = max(best, float(ndtri(a) - ndtri(b)))
    return best


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=3, max_size=6), st.integers(0, 2**31))
def test_prefixes_attain_the_best_event(weights, seed):
    rng = np.random.default_rng(seed)
    P = np.array(weights) / np.sum(weights)
    Q = rng.permutation(P)
    mu, _, _ = tr.pair_tradeoff(P, P, Q, Q)
    exact = _brute_mu(P, Q)
    assert mu <= exact + 1e-12  # totals are 1 only within rounding: allow their few ulps
    assert mu >= exact - 1e-9


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_gaussian_mu_exact_and_planted_half_noise():
    from privcheck.mechanisms.gaussian import Gaussian

    good = Gaussian.for_gdp(1.0)
    assert isinstance(good.claim, pc.GaussianDP) and good.sigma >= 1.0
    rep = pc.audit(good, pc.GaussianDP(1.0, good.relation), method="exact")
    assert not rep.violates_claim and 0.9999 < rep.mu_lower <= 1.0
    bad = Gaussian(0.5)  # half the noise: μ = 2
    rep = pc.audit(bad, pc.GaussianDP(1.0, bad.relation), method="exact")
    assert rep.violates_claim and 1.999 < rep.mu_lower <= 2.0
    rep = pc.audit(bad, pc.GaussianDP(1.0, bad.relation), method="sample", samples=50_000, seed=3)
    assert rep.violates_claim and rep.mu_lower > 1.5


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_grid_gaussian_calibrated_to_mu_and_sampled_audit_not_refuted():
    from privcheck.mechanisms.registry import build_builtin

    m = build_builtin("gaussian", pc.GaussianDP(0.5), {})
    assert m.shift / m.sigma_steps <= 0.5 * (1 - 2**-20)
    assert isinstance(m.claim, pc.ZCDP)  # the claim it can prove; the μ claim is audited
    rep = pc.audit(m, pc.GaussianDP(0.5, m.relation), method="sample", samples=100_000, seed=11)
    assert not rep.violates_claim and 0.4 < rep.mu_lower <= 0.5
    rep = pc.audit(m, pc.GaussianDP(0.5, m.relation), method="exact")
    assert not rep.violates_claim and rep.mu_lower > 0.49999


@_precise
def test_discrete_gaussian_behaves_like_variance_sigma2_minus_one_twelfth():
    """The measurement behind GridGaussian.for_gdp's margin: μ/(D/σ) − 1 ≈ 1/(24σ²)."""
    for s in (2, 5):
        zs = range(-16 * s, 16 * s + 1)
        w = [mp.e ** (-(mp.mpf(z) ** 2) / (2 * s * s)) for z in zs]
        tot = mp.fsum(w)
        up = [mp.fsum(w[i:]) / tot for i in range(len(w))]  # P[Z ≥ z]
        best = max(_ninv(up[i - 1]) - _ninv(up[i]) for i in range(1, len(w)) if up[i] > 1e-20 and 1 - up[i - 1] > 1e-20)
        excess = float(best * s - 1)
        assert 0 < excess and abs(excess * s * s - 1 / 24) < 0.002


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_fdp_claim_behaves_as_its_gdp_twin_and_bad_functions_are_rejected():
    from privcheck.mechanisms.gaussian import Gaussian

    g1 = tr.gdp_tradeoff(1.0)
    claim = pc.FDP(g1, name="G_1")
    assert claim.kind() == "G_1-DP"
    good, bad = Gaussian(1.0), Gaussian(0.5)
    assert not pc.audit(good, pc.FDP(g1, good.relation, "G_1"), method="exact").violates_claim
    rep = pc.audit(bad, pc.FDP(g1, bad.relation, "G_1"), method="exact")
    assert rep.violates_claim and rep.extra["fgap_lower"] > 0.1
    rep = pc.audit(bad, pc.FDP(lambda a: float(g1(a)), bad.relation, "G_1"), method="sample", samples=50_000, seed=1)
    assert rep.violates_claim  # a scalar function is vectorised
    for f, what in (
        (lambda a: np.minimum(1.0, 1 - a + 0.1), "above 1"),
        (lambda a: 1.5 - a, r"\[0, 1\]"),
        (lambda a: 0.2 * a * (1 - a), "non-increasing"),
        (lambda a: np.where(a < 0.5, 1 - 1.9 * a, 0.05 * (1 - a)), "convex"),
        ("f", "function"),
    ):
        with pytest.raises(InvalidArgument, match=what):
            pc.FDP(f)


def test_profile_of_points_is_the_supremum_over_them():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(0, 1, 300), rng.uniform(0, 1, 300)
    eps = np.linspace(0, 6, 50)
    brute = np.clip(np.max(1 - b[None, :] - np.exp(eps)[:, None] * a[None, :], axis=1), 0, 1)
    assert np.allclose(tr.profile((a, b), eps), brute, rtol=0, atol=1e-12)


def test_conversions_agree_with_each_other():
    eps = np.array([0.0, 0.5, 1.0, 2.0])
    for mu in (0.5, 1.0, 2.0):
        got = tr.profile(tr.gdp_tradeoff(mu), eps)
        want = tr.gdp_delta(mu, eps)
        assert np.all(got <= want + 1e-12) and np.all(got >= want * (1 - 2e-3))
    f = tr.dp_tradeoff(1.0, 1e-5)
    assert abs(tr.profile(f, [1.0])[0] - 1e-5) < 1e-12
    assert tr.profile(tr.dp_tradeoff(1.0), [1.0])[0] < 1e-15
    # ε-DP ⇒ μ-GDP: G_μ(ε) lies below f_{ε,0} everywhere and touches it at the vertex
    for e in (0.1, 1.0, 5.0):
        mu = tr.mu_of_pure_epsilon(e)
        a = tr.ALPHA_GRID
        assert np.all(tr.gdp_tradeoff(mu)(a) <= tr.dp_tradeoff(e)(a) + 1e-12)
        assert tr.pure_epsilon_of_mu(mu) <= e
    # a Rényi claim's curve: the two-point pairs on it meet the claim and those just below do not
    from privcheck.audits.stats import bernoulli_renyi

    f = tr.bernoulli_tradeoff(lambda p, q: (bernoulli_renyi(p, q, 2.0) <= 0.5) & (bernoulli_renyi(q, p, 2.0) <= 0.5))
    for a in (0.05, 0.3):
        b = float(f(a))
        assert bernoulli_renyi(1 - b, a, 2.0) <= 0.5 + 1e-9
        assert bernoulli_renyi(1 - (b - 1e-3), a, 2.0) > 0.5 or bernoulli_renyi(a, 1 - (b - 1e-3), 2.0) > 0.5


def test_report_json_carries_mu_and_certified_tradeoff_points():
    from privcheck.mechanisms.laplace import GridLaplace, Laplace

    m = GridLaplace(epsilon=1.0)  # (noise on a grid: the float Laplace's bits refute it on a few hundred draws)
    rep = pc.audit(m, pc.PureDP(1.0, m.claim.relation), method="sample", samples=20_000, seed=5, candidates=3)
    d = json.loads(rep.to_json())
    t = d["tradeoff"]
    # three fixed candidates and the best learned one beside them (real outputs: boosted trees by default)
    assert t["kind"] == "sampled" and len(t["points"]) == rep.candidates_certified == 4
    assert sum(p["chosen"] for p in t["points"]) == 1
    chosen = next(p for p in t["points"] if p["chosen"])
    b = d["witness"]["bounds"]
    assert chosen["alpha"] == b["q_upper"] and chosen["beta"] >= 1 - b["p_lower"]
    assert chosen["alpha_low"] <= chosen["alpha"] and chosen["beta_low"] <= chosen["beta"]
    assert d["mu_lower"] == pytest.approx(float(tr.certified_mu(b["p_lower"], b["q_upper"])))
    m = Laplace(epsilon=1.0)
    rep = pc.audit(m, pc.GaussianDP(2.0, m.claim.relation), method="exact")
    d = json.loads(rep.to_json())
    assert d["claim"]["type"] == "gdp" and d["claim"]["mu"] == 2.0
    assert d["tradeoff"]["kind"] == "exact" and len(d["tradeoff"]["points"]) <= 200
    assert "μ ≥" in str(rep).splitlines()[1].split(":")[1].split(";")[0]  # the headline figure is μ


@pytest.mark.parametrize("suffix", ["png", *(pytest.param(s, marks=pytest.mark.slow) for s in ("pdf", "svg"))])
def test_audit_figure_is_written_at_the_stated_size(tmp_path, suffix):
    from privcheck.mechanisms.laplace import Laplace
    from privcheck.audits.present.figure import DPI, FIGSIZE

    m = Laplace(epsilon=1.0)
    rep = pc.audit(
        m, pc.PureDP(1.0, m.claim.relation), method="exact" if suffix == "png" else "sample", samples=10_000, seed=2
    )
    path = tmp_path / f"audit.{suffix}"
    fig = rep.figure(path)
    assert tuple(fig.get_size_inches()) == FIGSIZE and len(fig.axes) == 2
    data = path.read_bytes()
    if suffix == "png":
        import matplotlib.image

        img = matplotlib.image.imread(path)
        assert img.shape[:2] == (round(FIGSIZE[1] * DPI), round(FIGSIZE[0] * DPI))
    else:
        assert data.startswith(b"%PDF" if suffix == "pdf" else b"<?xml")


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_cli_mu_claims_and_plot(tmp_path, capsys):
    from privcheck.cli import main

    assert main(["audit", "gaussian", "--mu", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "1-GDP" in out and "not refuted" in out and "μ ≥ 0.99999" in out
    assert main(["audit", "gaussian", "--sigma", "0.5", "--mu", "1", "--quiet"]) == 1
    assert "REFUTED" in capsys.readouterr().out
    png = tmp_path / "table.png"
    assert main(
        [
            "audit",
            "tabular",
            "--rules",
            "examples/rules.json",
            "--mu",
            "3",
            "--definition",
            "table",
            "--plot",
            str(png),
            "--quiet",
            "--json",
        ]
    ) in (0, 1)
    d = json.loads(capsys.readouterr().out)
    assert png.stat().st_size > 10_000 and d["tradeoff"]["kind"] == "exact" and d["mu_lower"] >= 0


@pytest.mark.slow
def test_mu_audits_hold_their_confidence_and_catch_a_fifth_less_noise():
    """The grid Gaussian at μ = 1, ten seeds at confidence 0.999: no refutation (each false alarm has
    probability ≤ 0.001); σ cut by a fifth (μ = 1.25): refuted on every seed at 10⁶ draws per side."""
    from privcheck.mechanisms.gaussian import GridGaussian
    from privcheck.mechanisms.registry import build_builtin

    good = build_builtin("gaussian", pc.GaussianDP(1.0), {})
    claim = pc.GaussianDP(1.0, good.relation)
    for seed in range(10):
        rep = pc.audit(good, claim, method="sample", samples=300_000, confidence=0.999, seed=seed)
        assert not rep.violates_claim, str(rep)
    bad = GridGaussian(int(good.sigma_steps * 0.8), good.grid, good.sensitivity)
    for seed in range(5):
        rep = pc.audit(bad, claim, method="sample", samples=1_000_000, seed=seed)
        assert rep.violates_claim and 1.1 < rep.mu_lower <= 1.25 / (1 - 1e-6)


def test_mu_at_the_edges_eps_700_and_rho_1e_8():
    from privcheck.mechanisms.gaussian import Gaussian

    m = optimal_randomized_response(700.0)  # masses of e^−700 ≈ 1e-304: the complements carry μ
    rep = pc.audit(m, pc.GaussianDP(70.0, pc.AllPairs()), pairs=[(0, 1)], method="exact")
    assert rep.violates_claim and 74 < rep.mu_lower < math.inf
    g = Gaussian.for_zcdp(1e-8)  # μ = Δ/σ = √(2ρ) = 1.41421e-4
    rep = pc.audit(g, pc.GaussianDP(math.sqrt(2e-8), g.relation), method="exact")
    assert not rep.violates_claim and math.sqrt(2e-8) * 0.999 < rep.mu_lower <= math.sqrt(2e-8)
