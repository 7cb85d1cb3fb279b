"""The conditional bound on the ratio of an event's probabilities, certified on Poissonized draws.

Its validity rests on one fact: given that m draws of both sides fell in the event, the count on x is
Binomial(m, π) with π = p/(p + q) (Poisson counts, independent).  The tests below check the bound's coverage
against that law exactly (every count enumerated, probabilities from scipy's binomial), at the edges of m and π,
and that the engine certifies (ε, δ) claims with it — pure ε alone, ε at δ > 0 and δ(ε) with p's lower bound — on
Poissonized draws, its levels stated, and nothing else.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import binom

from privcheck import ApproxDP, PureDP, ZCDP, audit
from privcheck.audits.figures import Needs, event_figures, with_ratio
from privcheck.audits.stats import cp_lower, cp_upper, ratio_epsilon


def _false_alarm(m: int, pi: float, alpha: float) -> float:
    """P[ratio_epsilon(K, m − K, α) > max(0, ln(π/(1 − π)))] for K ~ Binomial(m, π): exact, over every count (the
    bound is clipped at 0, as every ε is)."""
    k = np.arange(m + 1)
    over = ratio_epsilon(k, m - k, alpha) > max(0.0, math.log(pi) - math.log1p(-pi))
    return float(binom.pmf(k[over], m, pi).sum())


@pytest.mark.parametrize("m", [1, 2, 7, 40, 333, 5000])
@pytest.mark.parametrize("pi", [1e-6, 0.01, 0.3, 0.5, 0.7311, 0.99, 1 - 1e-6])
@pytest.mark.parametrize("alpha", [0.05, 1e-4])
def test_the_ratio_bound_exceeds_the_truth_with_probability_at_most_alpha(m, pi, alpha):
    assert _false_alarm(m, pi, alpha) <= alpha * (1 + 1e-9)


def test_the_ratio_bound_is_tight_where_the_binomial_allows():
    """Not a bound that never bites: at m = 5000 the false-alarm probability is near α (within a factor 1.5)."""
    assert _false_alarm(5000, 0.7311, 0.05) > 0.05 / 1.5


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.floats(1e-12, 0.5))
def test_the_ratio_bound_is_monotone_and_zero_without_counts(k, k2, alpha):
    e = float(ratio_epsilon(k, k2, alpha))
    assert e >= 0 and float(ratio_epsilon(k + 1, k2, alpha)) >= e and float(ratio_epsilon(k, k2 + 1, alpha)) <= e
    assert float(ratio_epsilon(0, k2, alpha)) == 0.0


def test_the_ratio_bound_at_the_edges():
    assert float(ratio_epsilon(0, 0, 0.05)) == 0.0
    # every draw in the event on one side: finite, ln(1/(1 − π_lo)) with π_lo = α^(1/m)
    m = 10**6
    assert float(ratio_epsilon(m, 0, 0.05)) == pytest.approx(-math.log1p(-(0.05 ** (1 / m))), rel=1e-6)
    # far beyond ε = 700: no overflow, the bound is what the counts allow
    assert 13 < float(ratio_epsilon(10**7, 0, 1e-9)) < 20
    # a ratio of 1 + 1e-6 is not certified on a million draws
    assert float(ratio_epsilon(500_000, 499_999, 0.05)) == 0.0


def test_the_ratio_lifts_pure_epsilon_and_the_delta_it_implies():
    nd = Needs(1.0, 0.0, (), True)
    p_lo, q_hi = 0.004, 0.002  # two intervals: ε ≥ ln 2
    base = event_figures(p_lo, q_hi, nd, "")
    lifted = with_ratio(base, 0.9, 0.1, p_lo, nd)  # the ratio: p/q ≥ 9
    assert base.epsilon.lo == pytest.approx(math.log(2), rel=1e-9) and base.delta.lo == 0
    assert lifted.epsilon.lo == pytest.approx(math.log(9), rel=1e-9) and lifted.epsilon.lo <= math.log(9)
    # δ at ε = 1: p − e q ≥ p_lo (1 − e/9), rounded down
    assert 0 < lifted.delta.lo <= p_lo * (1 - math.e / 9) and lifted.delta.lo == pytest.approx(p_lo * (1 - math.e / 9))
    # a ratio below the two intervals' changes nothing
    assert with_ratio(base, 0.6, 0.4, p_lo, nd).epsilon.lo == base.epsilon.lo


def test_masses_of_1e300_and_ratios_beyond_the_double_range():
    nd = Needs(1.0, 0.0, (), True)
    base = event_figures(1e-300, 1e-300, nd, "")
    lifted = with_ratio(base, 1 - 1e-16, 1e-300, 1e-300, nd)
    assert 690 < lifted.epsilon.lo < 691 and lifted.delta.lo <= 1e-300
    assert with_ratio(base, 1e-300, 1.0, 1e-300, nd).delta.lo == 0.0  # q ≤ p·1e300: nothing implied


def rare_tell(epsilon: float, rare: float = 0.01):
    """A randomized response of one bit that, with probability ``rare``, answers at ``epsilon`` on symbols of its own
    (2 or 3) and otherwise at 0.5 (0 or 1): exactly ε-DP for ε ≥ 0.5, its largest ratio on the rare symbols only."""

    def mech(x, rng, size):
        tell = rng.random(size) < rare
        e = np.where(tell, epsilon, 0.5)
        truthful = rng.random(size) < np.exp(e) / (1 + np.exp(e))
        answer = np.where(truthful, int(x), 1 - int(x))
        return answer + 2 * tell

    return mech


def test_a_leak_on_one_draw_in_a_hundred_is_refuted_by_the_ratio():
    """A 2× overclaim living in 1% of draws, at 10,000 draws per side: the ratio bound certifies ε ≥ 1.41 where the
    two intervals alone, each at the candidate's whole half, certify 1.24 on the same counts (the power against
    this overclaim: 0.97 against 0.89, simulated in benchmarks/interval_comparison.py)."""
    r = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off", stages=0)
    assert r.violates_claim, r.summary()
    c, b = r.witness["counts"], r.witness["bounds"]
    assert set(c["drawn"]) == {"x", "x_prime"} and c["drawn"]["x"] != 10_000 and c["samples"] == 10_000
    assert b["ratio"]["level"] == pytest.approx(1 - 0.05 / (2 * r.candidates_certified))
    ratio = math.log(b["ratio"]["share_lower"]) - math.log(b["ratio"]["other_upper"])
    assert r.epsilon_lower == pytest.approx(ratio, rel=1e-9) and r.epsilon_lower <= 2.0
    half = 1 - b["ratio"]["level"]  # the two intervals at the level they had before the ratio bound
    lo, hi = cp_lower(c["x"], c["drawn"]["x"], half), cp_upper(c["x_prime"], c["drawn"]["x_prime"], half)
    apart = math.log(lo) - math.log(hi)
    assert r.epsilon_lower > apart + 0.1
    assert "conditional bound on their ratio" in r.certification
    again = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off", stages=0)
    assert again.witness == r.witness  # the Poissonized sizes come from the seed


def test_claims_exactly_at_the_truth_are_not_refuted():
    """The rare tell at its own ε, over seeds: the ratio bound stays below the truth."""
    for seed in range(6):
        r = audit(rare_tell(1.5), PureDP(1.5), pairs=[(1, 0)], samples=20_000, seed=seed, classifier="off")
        assert not r.violates_claim and r.epsilon_lower <= 1.5


def test_epsilon_delta_claims_are_certified_by_the_ratio_and_rho_is_not():
    for claim in (ApproxDP(1.0, 1e-3), ApproxDP(1.0, 0.0), PureDP(1.0)):
        r = audit(rare_tell(2.0), claim, pairs=[(1, 0)], samples=2_000, seed=1, classifier="off")
        assert "ratio" in r.witness["bounds"] and "drawn" in r.witness["counts"]
    r = audit(rare_tell(2.0), ZCDP(0.5), pairs=[(1, 0)], samples=2_000, seed=1, classifier="off")
    assert "ratio" not in r.witness["bounds"] and "drawn" not in r.witness["counts"]


def test_the_ratio_lifts_epsilon_at_delta_and_delta_with_p_lower_bound():
    """δ > 0: q ≤ p·r with r = 1/9, so ε at δ ≥ ln((p_lo − δ)/(p_lo/9)) and δ at ε ≥ p_lo(1 − e^ε/9), rounded
    down; p_lo ≤ δ implies nothing for ε."""
    nd = Needs(1.0, 1e-3, (), True)
    p_lo, q_hi = 0.004, 0.002
    base = event_figures(p_lo, q_hi, nd, "")
    assert base.epsilon.lo == pytest.approx(math.log(0.003 / 0.002), rel=1e-9)
    lifted = with_ratio(base, 0.9, 0.1, p_lo, nd)
    want = math.log(p_lo - 1e-3) - math.log(p_lo / 9)  # ln 6.75
    assert lifted.epsilon.lo <= want and lifted.epsilon.lo == pytest.approx(want, rel=1e-12)
    assert 0 < lifted.delta.lo <= p_lo * (1 - math.e / 9) and lifted.delta.lo == pytest.approx(p_lo * (1 - math.e / 9))
    # the pure ratio (ln 9) is not ε at δ: it would overstate the lift
    assert lifted.epsilon.lo < math.log(9)
    tiny = Needs(1.0, 0.005, (), True)  # δ above p_lo: ε at δ stays what the intervals gave (0)
    assert with_ratio(event_figures(p_lo, q_hi, tiny, ""), 0.9, 0.1, p_lo, tiny).epsilon.lo == 0.0
    # masses of 1e-300 against δ = 1e-310: no overflow, nothing above the truth
    small = Needs(1.0, 1e-310, (), True)
    far = with_ratio(event_figures(1e-300, 1e-300, small, ""), 1 - 1e-16, 1e-300, 1e-300, small)
    assert 690 < far.epsilon.lo < 691


def _engine_at_delta(k, kp, nk, nkp, alpha, delta):
    """What the engine certifies for ε at ``delta`` from one event's counts — its own bound (the two intervals at
    α/4 each, the ratio at α/2 with the α/4 lower bound on p)."""
    from privcheck.audits.mechanism.certification import certified_bound as _bound

    return _bound(ApproxDP(1.0, delta), k, kp, nk, nkp, alpha / 2)


@pytest.mark.parametrize(
    "p, eps, delta, n", [(0.01, 1.0, 1e-5, 2_000), (0.01, 2.0, 3e-3, 20_000), (0.5, 1.0, 0.1, 500)]
)
def test_epsilon_at_delta_certified_by_the_ratio_exceeds_the_truth_at_most_alpha_of_the_time(p, eps, delta, n):
    """Poissonized sizes, 20,000 simulated certifications of one event at its own ε at δ, ln(p − δ) − ln q: the
    share above it is at most α = 0.05 (the union of three bounds: about 0.02 is seen)."""
    rng = np.random.default_rng(7)
    q = p / math.exp(eps)
    truth = math.log(p - delta) - math.log(q)
    nk, nkp = rng.poisson(n, (2, 20_000))
    got = _engine_at_delta(rng.binomial(nk, p), rng.binomial(nkp, q), nk, nkp, 0.05, delta)
    assert (got > truth).mean() <= 0.05 and got.mean() > 0


def test_a_rare_leak_under_an_epsilon_delta_claim_is_refuted_by_the_ratio():
    """The rare tell at ε = 2 under a claim of (1, 10⁻⁴), 10,000 draws per side: the ratio bound, read with p's
    lower bound, certifies ε at δ above the two intervals' on the same counts, and refutes."""
    r = audit(rare_tell(2.0), ApproxDP(1.0, 1e-4), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off", stages=0)
    assert r.violates_claim, r.summary()
    c, b = r.witness["counts"], r.witness["bounds"]
    assert c["drawn"]["x"] != 10_000  # Poissonized
    r_hi = b["ratio"]["other_upper"] / b["ratio"]["share_lower"]
    want = math.log(b["p_lower"] - 1e-4) - math.log(b["p_lower"] * r_hi)
    assert r.epsilon_lower == pytest.approx(want, rel=1e-9) and r.epsilon_lower <= want * (1 + 1e-12)
    apart = math.log(b["p_lower"] - 1e-4) - math.log(b["q_upper"])
    assert r.epsilon_lower > apart + 0.1 and r.epsilon_lower <= 2.0
    assert "conditional bound on their ratio" in r.certification


def test_epsilon_delta_claims_exactly_at_the_truth_are_not_refuted():
    for seed in range(6):
        r = audit(rare_tell(1.5), ApproxDP(1.5, 1e-6), pairs=[(1, 0)], samples=20_000, seed=seed, classifier="off")
        assert not r.violates_claim and r.epsilon_lower <= 1.5


def test_the_interval_bounds_of_a_ratio_certified_report_still_hold_each():
    """The two intervals are kept (at half their level) for δ, ρ and μ: they match a recomputation."""
    r = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off")
    c, b = r.witness["counts"], r.witness["bounds"]
    level = 1 - b["level_per_side"]  # (as printed: to a few ulps)
    assert b["p_lower"] == pytest.approx(float(cp_lower(c["x"], c["drawn"]["x"], level)), rel=1e-12)
    assert b["q_upper"] == pytest.approx(float(cp_upper(c["x_prime"], c["drawn"]["x_prime"], level)), rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(1e-300, 1.0),
    st.floats(1e-300, 1.0),
    st.floats(1e-300, 1.0),
    st.floats(1e-310, 0.5),
    st.sampled_from([1e-6, 1.0, 50.0, 700.0]),
)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_lifted_figures_never_exceed_what_the_bounds_imply_exactly(p_lo, share, other, delta, eps):
    """Every double as the rational it denotes, in 60-digit arithmetic: ε at δ ≤ ln((p_lo − δ)/(p_lo·r)) and δ at ε ≤
    p_lo(1 − e^ε·r), r = other/share — the lift never states more than the three bounds imply (ε from 10⁻⁶ to 700,
    masses down to 1e-300)."""
    import mpmath

    with mpmath.workdps(60):
        nd = Needs(eps, delta, (), True)
        lifted = with_ratio(event_figures(p_lo, 1.0, nd, ""), share, other, p_lo, nd)
        P, S, O, D = (mpmath.mpf(v) for v in (p_lo, share, other, delta))
        r = O / S
        if P > D:
            assert lifted.epsilon.lo <= max(0, mpmath.log((P - D) / (P * r)))
        else:
            assert lifted.epsilon.lo == 0.0
        assert lifted.delta.lo <= max(0, P * (1 - mpmath.exp(eps) * r))
