"""The conditional bound on the ratio of an event's probabilities, certified on Poissonized draws.

Its validity rests on one fact: given that m draws of both sides fell in the event, the count on x is
Binomial(m, π) with π = p/(p + q) (Poisson counts, independent).  The tests below check the bound's coverage
against that law exactly (every count enumerated, probabilities from scipy's binomial), at the edges of m and π,
and that the engine certifies a pure-ε claim with it — on Poissonized draws, its levels stated — and nothing else.
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
    r = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off")
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
    again = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off")
    assert again.witness == r.witness  # the Poissonized sizes come from the seed


def test_claims_exactly_at_the_truth_are_not_refuted():
    """The rare tell at its own ε, over seeds: the ratio bound stays below the truth."""
    for seed in range(6):
        r = audit(rare_tell(1.5), PureDP(1.5), pairs=[(1, 0)], samples=20_000, seed=seed, classifier="off")
        assert not r.violates_claim and r.epsilon_lower <= 1.5


def test_only_pure_epsilon_is_certified_by_the_ratio():
    for claim in (ApproxDP(1.0, 1e-3), ZCDP(0.5)):
        r = audit(rare_tell(2.0), claim, pairs=[(1, 0)], samples=2_000, seed=1, classifier="off")
        assert "ratio" not in r.witness["bounds"] and "drawn" not in r.witness["counts"]
    r = audit(rare_tell(2.0), ApproxDP(1.0, 0.0), pairs=[(1, 0)], samples=2_000, seed=1, classifier="off")
    assert "ratio" in r.witness["bounds"]  # (ε, 0) is pure ε


def test_the_interval_bounds_of_a_ratio_certified_report_still_hold_each():
    """The two intervals are kept (at half their level) for δ, ρ and μ: they match a recomputation."""
    r = audit(rare_tell(2.0), PureDP(1.0), pairs=[(1, 0)], samples=10_000, seed=4, classifier="off")
    c, b = r.witness["counts"], r.witness["bounds"]
    level = 1 - b["level_per_side"]  # (as printed: to a few ulps)
    assert b["p_lower"] == pytest.approx(float(cp_lower(c["x"], c["drawn"]["x"], level)), rel=1e-12)
    assert b["q_upper"] == pytest.approx(float(cp_upper(c["x_prime"], c["drawn"]["x_prime"], level)), rel=1e-12)
