"""The mean-difference projection is offered only where the sides' means differ beyond label shuffles."""

import numpy as np
import pytest

from privcheck.audits.mechanism.events import SHUFFLES, Kind, _beyond_shuffles, statistics_for
from privcheck.audits.mechanism.selection import Scoring, best_candidates
from privcheck import audit
from privcheck.core import PureDP


def _offered(a, b) -> bool:
    return any(s.kind == Kind.PROJECTION for s in statistics_for(a, b))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_where_nothing_differs_the_projection_is_offered_about_one_time_in_twenty():
    """Fitted and scored on the same draws, the projection on 64 coordinates of pure noise outranked every other
    event on 2 of 10 seeds (the draws fit its weights); the permutation test lets it through at its level, 1/20."""
    offered = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        offered += _offered(rng.standard_normal((1500, 64)), rng.standard_normal((1500, 64)))
    assert SHUFFLES == 19 and offered <= 5, offered


@pytest.mark.parametrize("seed", range(5))
def test_a_shift_spread_over_every_coordinate_is_offered_and_wins(seed):
    """Each of 64 coordinates moved by a tenth of its noise: no coordinate alone tells the sides apart, their
    projection does — it is offered and chosen.  (On a grid of 2⁻²⁰: a double moved by 0.1 is rounded to the grid
    of its own magnitude, which the bit windows tell apart from the unmoved draws' — a leak too, but not this one.)"""
    rng = np.random.default_rng(seed)
    grid = lambda v: np.round(v * 2.0**20) / 2.0**20  # noqa: E731
    a, b = grid(rng.standard_normal((1500, 64))), grid(rng.standard_normal((1500, 64)) + 0.1)
    assert _offered(a, b)
    top, _ = best_candidates(Scoring(PureDP(1.0), 1500, 1e-6 / 2), a, b, 1)
    assert top[0][1].statistic.kind == Kind.PROJECTION and top[0][0] > 0


def test_the_test_reads_integers_far_from_zero_by_their_differences():
    """An int64 vector near 3·10¹⁵ whose sides differ by one in every coordinate: centred first, the difference
    is seen (converted to float first, it would be rounded away)."""
    rng = np.random.default_rng(3)
    base = np.int64(3 * 10**15)
    a = base + rng.integers(-2, 3, (5000, 10))
    b = base + 1 + rng.integers(-2, 3, (5000, 10))
    assert _offered(a, b)


def test_too_few_draws_to_shuffle_leave_the_projection_offered():
    assert _beyond_shuffles(np.zeros((1, 3)), np.ones((4, 3)))
    assert not _beyond_shuffles(np.zeros((50, 3)), np.zeros((50, 3)))  # no difference: not beyond any shuffle


def test_the_whitened_projection_reads_the_gaussian_likelihood_ratio():
    """Correlated Gaussian outputs (a binary counter's prefix sums): beside the mean difference Δ, the statistic
    along Σ⁻¹Δ — the privacy loss itself — is offered, its direction within a few degrees of the true one; integer
    outputs (action sequences) are not whitened."""
    from privcheck.audits.mechanism.events import statistics_for
    from privcheck.mechanisms.counters import BinaryCounter

    m = BinaryCounter(8, rho=0.5)
    x, y = np.zeros(8), np.zeros(8)
    y[0] = 1.0
    a = m.sample(x, np.random.default_rng(1), 20_000)
    b = m.sample(y, np.random.default_rng(2), 20_000)
    projections = [s for s in statistics_for(a, b) if s.kind == "projection"]
    assert len(projections) == 2
    true = np.linalg.solve(m.covariance(), np.cumsum(y))
    true /= np.linalg.norm(true)
    assert abs(np.dot(projections[1].weights, true)) > 0.99
    assert abs(np.dot(projections[0].weights, true)) < 0.95  # the mean difference alone is not it
    ints = [
        s for s in statistics_for(np.rint(a).astype(np.int64), np.rint(b).astype(np.int64)) if s.kind == "projection"
    ]
    assert len(ints) <= 1


def test_the_whitened_projection_is_offered_while_its_covariance_costs_at_most_its_ceiling(monkeypatch):
    """Its covariance is read on max(2d, work/d²) rows a side, and offered while that costs at most the larger of
    ``work`` and WHITENED_MOST multiply-adds — beyond the rows' budget (a counter of 2,048 releases: 2³⁴), not beyond
    the ceiling.  (The constants scaled down: d = 16 costs 32·16² = 2¹³, d = 20 costs 40·20² > 2¹³.)"""
    from privcheck.audits.mechanism import whitening

    monkeypatch.setattr(whitening, "WHITENED_MOST", 1 << 13)
    rng = np.random.default_rng(0)
    for d, offered in ((16, True), (20, False)):
        a, b = rng.standard_normal((100, d)), rng.standard_normal((100, d)) + 0.5
        assert (whitening.whitened(a, b, b.mean(axis=0) - a.mean(axis=0), 1 << 10) is not None) is offered
        assert whitening.whitened(a, b, b.mean(axis=0) - a.mean(axis=0), 1 << 14) is not None  # (its own ceiling)
    a = rng.standard_normal((31, 16))  # fewer rows than 2d: never
    assert whitening.whitened(a, a + 1, np.ones(16), 1 << 20) is None


def test_the_selection_reads_the_covariance_on_more_rows_and_its_direction_separates_more():
    """The audit's own selection, made once, reads the whitened projection's covariance on more rows than a screening
    round: on a random walk's noise (a counter's prefix sums, the covariance min(i, j)), shifted from coordinate 20
    on, the direction it finds separates the sides nearer the likelihood ratio's exact separation (from the exact
    covariance) than the one read on 2d rows — the screening's budget at this width."""
    from privcheck.audits.mechanism.whitening import whitened

    d, n = 64, 4000
    rng = np.random.default_rng(0)
    cov = np.minimum.outer(np.arange(1, d + 1), np.arange(1, d + 1)).astype(float)
    delta = np.where(np.arange(d) >= 20, 1.0, 0.0)
    a = rng.standard_normal((n, d)).cumsum(axis=1)
    b = rng.standard_normal((n, d)).cumsum(axis=1) + delta
    diff = b.mean(axis=0) - a.mean(axis=0)
    exact = float(np.sqrt(delta @ np.linalg.solve(cov, delta)))
    separation = lambda w: float(w @ delta / np.sqrt(w @ cov @ w))  # noqa: E731
    screened = separation(np.array(whitened(a, b, diff, 2 * d * d * d)))  # (2d rows)
    selected = separation(np.array(whitened(a, b, diff, n * d * d)))  # (every row)
    assert screened < selected <= exact
    assert selected > 0.9 * exact > screened


def test_a_raw_coordinate_among_noisy_ones_is_offered_and_refuted():
    """A count released raw among 400 noisy ones: its mean moves by one where the noise moves theirs by more, so it is
    not among the 16 coordinates whose means differ most — it is offered for its difference against its noise, and an
    event on it refutes."""

    def released(x, rng, size):
        out = np.round(rng.laplace(0, 100, (size, 400)))
        out[:, 123] = np.asarray(x, dtype=float)[0]  # (the raw count)
        return out

    rng = np.random.default_rng(0)
    a, b = released([0.0], rng, 2000), released([1.0], rng, 2000)
    top = np.argsort(-np.abs(b.mean(axis=0) - a.mean(axis=0)))[:16]
    assert 123 not in top
    assert any(s.kind == Kind.COORD and s.index == 123 for s in statistics_for(a, b))
    r = audit(released, PureDP(1.0), pairs=[([0.0], [1.0])], seed=1, samples=2000)
    assert r.violates_claim and "o[123]" in r.witness["event_text"]
