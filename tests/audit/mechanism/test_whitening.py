"""The whitened projection's covariance pooled over a screening round's pairs, the separation it reads, and the
score by which a screening round ranks pairs of real vectors."""

import numpy as np
import pytest

from privcheck.audits.mechanism.selection import gaussian_score
from privcheck.audits.mechanism.whitening import mean_of, pooled_covariance, whitened
from privcheck.core import ApproxDP, GaussianDP, ZCDP
from privcheck.core.tradeoff import gdp_delta

D = 48
#: the walks' steps' standard deviations (growing: a later element's shift is the less seen)
STEPS = np.sqrt(1.0 + np.arange(D) / 4)
#: a walk's covariance (a counter's prefix sums: the variances of the steps up to the earlier of i and j)
COV = np.cumsum(STEPS**2)[np.minimum.outer(np.arange(D), np.arange(D))]


def _walks(rng, n, shift_from=None):
    """n random walks of D steps, moved by one from coordinate ``shift_from`` on (a user's element counted in every
    later prefix sum: μ = 1 / its step's standard deviation)."""
    out = (rng.standard_normal((n, D)) * STEPS).cumsum(axis=1)
    if shift_from is not None:
        out[:, shift_from:] += 1.0
    return out


def _exact(shift_from):
    delta = np.where(np.arange(D) >= shift_from, 1.0, 0.0)
    return float(np.sqrt(delta @ np.linalg.solve(COV, delta))), delta


def test_pooled_over_the_pairs_the_direction_is_read_where_no_pair_alone_has_the_rows():
    """Eight pairs of 80 draws a side: fewer rows than 2d on either side of any pair, so a pair's own covariance is
    not offered; pooled over the round's 16 groups, the direction read from the pair's mean difference separates the
    sides nearly as the one the exact covariance gives from that mean difference."""
    rng = np.random.default_rng(0)
    starts = list(range(8))  # (exact μ from 1 to 0.83: a direction 80 draws can find)
    groups = []
    for k in starts:
        groups += [_walks(rng, 80), _walks(rng, 80, k)]
    pooled = pooled_covariance(groups)
    assert pooled is not None
    for j, k in enumerate(starts):
        a, b = groups[2 * j], groups[2 * j + 1]
        diff = b.mean(axis=0) - a.mean(axis=0)
        assert whitened(a, b, diff) is None  # (80 rows of 48 values: fewer than 2d)
        _, delta = _exact(k)
        separation = lambda w: w @ delta / np.sqrt(w @ COV @ w)  # noqa: E731
        w = np.array(whitened(a, b, diff, pooled=pooled))
        assert separation(w) > 0.8 * separation(np.linalg.solve(COV, diff))


def test_the_separation_estimates_each_pairs_mu_without_the_bias_of_its_noise():
    """The mean difference's squared length in the covariance's units exceeds μ² by d·(1/n_a + 1/n_b) on average
    (here 0.096, a tenth of the top pair's μ²): the separation subtracts it, and ranks the pairs
    as their exact μ does where they differ by more than its noise (here 0.09 in μ²)."""
    rng = np.random.default_rng(1)
    starts = [0, 1, 15, 31, 47]  # exact μ: 1, 0.89, 0.46, 0.34, 0.28
    groups = []
    for k in starts:
        groups += [_walks(rng, 1000), _walks(rng, 1000, k)]
    pooled = pooled_covariance(groups)
    got = [pooled.separation(mean_of(groups[2 * j]), mean_of(groups[2 * j + 1])) for j in range(len(starts))]
    exact = [_exact(k)[0] for k in starts]
    for g, e in zip(got, exact):
        assert abs(g * g - e * e) < 0.25, (got, exact)  # (3 standard deviations)
    assert min(got[:2]) > max(got[2:])
    assert pooled_covariance(groups[:1]) is None  # (one group: nothing pooled)
    assert pooled_covariance([g.astype(np.int64) for g in groups]) is None  # (not real vectors)


@pytest.mark.parametrize("claim", [ZCDP(0.5), GaussianDP(1.0), ApproxDP(1.0, 1e-5)])
def test_the_gaussian_score_grows_with_the_separation_from_zero(claim):
    scores = [gaussian_score(claim, mu, 10**6, 0.025) for mu in (0.0, 0.3, 0.6, 1.0, 1.5)]
    assert scores[0] == 0.0 and all(a < b for a, b in zip(scores, scores[1:])), scores


def test_the_gaussian_score_certifies_nearly_the_gaussians_epsilon_and_never_more():
    """At 10⁹ draws a side the best threshold between N(0, 1) and N(1, 1) certifies nearly their ε at δ = 10⁻⁵ (the
    threshold events are the likelihood ratio's), never above it."""
    from scipy.optimize import brentq

    exact = brentq(lambda e: gdp_delta(1.0, e) - 1e-5, 0.0, 20.0)
    got = gaussian_score(ApproxDP(0.1, 1e-5), 1.0, 10**9, 0.025)
    assert 0.9 * exact < got <= exact, (got, exact)


def test_a_screening_round_ranks_a_pair_by_its_separation_unless_an_event_reads_more_and_refutes():
    """With a pooled covariance a pair's worth is what a Gaussian pair of its separation would certify — not its best
    threshold's score on the round's own draws, which the choice inflates — except that an event the separation
    cannot read (a bit window) keeps its score where it refutes the claim on its own."""
    from privcheck.audits.mechanism.events import BitWindow, Statistic, Threshold
    from privcheck.audits.mechanism.screening import _worth
    from privcheck.audits.mechanism.selection import Scoring

    rng = np.random.default_rng(2)
    groups = []
    for k in range(4):
        groups += [_walks(rng, 500), _walks(rng, 500, k)]
    pooled = pooled_covariance(groups)
    s = Scoring(GaussianDP(1.0), 10**6, 0.025)
    a, b = groups[0], groups[1]
    sides = mean_of(a), mean_of(b)
    honest = gaussian_score(s.claim, pooled.separation(*sides), s.n_cert, s.alpha_side)
    shift = Threshold(Statistic("projection", weights=tuple(np.ones(D) / np.sqrt(D))), 0.0, True)
    bits = BitWindow(Statistic("coord", 3), 4, 0.0, 1.0)
    assert 0.5 < honest < 1.0
    assert _worth(s, (1.7, shift, 1, (0, 0, 500)), pooled, sides) == honest  # (inflated by its choice: not read)
    assert _worth(s, (0.9, bits, 1, (0, 0, 500)), pooled, sides) == honest  # (not refuting: the separation's)
    assert _worth(s, (3.0, bits, 1, (0, 0, 500)), pooled, sides) == 3.0  # (refuting on what the separation misses)
    assert _worth(s, (1.7, shift, 1, (0, 0, 500)), None, sides) == 1.7  # (nothing pooled: the score)


def test_a_pair_whose_sides_differ_surely_is_kept_where_no_value_varies():
    """Draws whose every value is fixed on each side (a count released raw, read on a run's first episodes) have no
    covariance to whiten by: none is pooled, and the screening ranks the pairs by their events.  Pooled, the ridge of
    the zero covariance was below the smallest double and the separation NaN, read as 0: the pair whose sides are
    the same tied with the one whose sides differ surely, kept first, and the audit passed a raw count."""
    from privcheck import PureDP, audit

    same = [np.zeros((50, 8)), np.zeros((50, 8))]
    assert pooled_covariance([*same, np.zeros((50, 8)), np.ones((50, 8))]) is None
    assert pooled_covariance([*same, np.zeros((50, 8)), np.eye(50, 8)]) is not None

    def raw(x, rng, size):  # (inputs of one integer part give the same output)
        return np.full((size, 8), float(np.floor(x)))

    report = audit(raw, PureDP(1.0), pairs=[(0, 0.5), (0, 1), (2, 2.5)], samples=500, seed=1)
    assert report.violates_claim and tuple(report.witness["pair"]) in ((0, 1), (1, 0))


def test_a_side_drawn_for_several_pairs_is_read_on_all_its_draws():
    """A stream's neighbours all move one element of the same stream: its side's mean is read on every pair's draws of
    it (the rows summed), each moved side on its own; inputs numpy cannot read as one array are only themselves."""
    from privcheck.audits.mechanism.screening import _side_means

    x, y, z = np.zeros(3), np.array([1.0, 0, 0]), np.array([0, 0, 1.0])
    drawn = [np.full((2, 3), 1.0), np.full((2, 3), 5.0), np.full((4, 3), 4.0), np.full((4, 3), 7.0)]
    (xa, ya), (xb, zb) = _side_means([(x, y), (x.copy(), z)], drawn)
    assert xa[1] == xb[1] == 6 and np.allclose(xa[0], 3.0) and xa[0] is xb[0]  # (2·1 + 4·4) / 6
    assert ya[1] == 2 and np.allclose(ya[0], 5.0) and zb[1] == 4 and np.allclose(zb[0], 7.0)
    ragged = ([1, [2]], [1, [3]])
    ((ra, rb),) = _side_means([ragged], drawn[:2])
    assert ra[1] == 2 and rb[1] == 2


@pytest.mark.slow  # (the default tier's two minutes: eight screening rounds of a counter, 11 s; run with -m slow)
def test_the_separation_ranks_a_counters_worst_element_first_where_the_scores_do_not():
    """A binary counter of T = 32 (element 0 in 6 blocks, every power of two's in 5: 0.83 of its ρ), a screening
    round of 1,000 draws a side of each candidate pair, 8 seeds: the pairs' worth puts element 0 first on most (6 of
    8 measured), their best events' scores on the round's own draws seldom (1 of 8)."""
    from privcheck.audits.mechanism.screening import _side_means, _worth
    from privcheck.audits.mechanism.selection import SCREEN_SHORTLIST, Scoring, best_candidates
    from privcheck.core.neighbours import EventLevel
    from privcheck.mechanisms.counters import BinaryCounter

    m = BinaryCounter(32, mu=1.0)
    pairs = EventLevel().candidate_pairs(np.zeros(32), np.random.default_rng(0))
    assert pairs[0][0][0] != pairs[0][1][0]  # (the first pair changes element 0)
    s = Scoring(GaussianDP(1.0), 10**6, 0.025)
    by_worth = by_score = 0
    for seed in range(8):
        rng = np.random.default_rng(seed)
        drawn = [m.sample(x, rng, 1000) for p in pairs for x in p]
        pooled, sides = pooled_covariance(drawn), _side_means(pairs, drawn)
        worth, scores = [], []
        for j in range(len(pairs)):
            a, b = drawn[2 * j], drawn[2 * j + 1]
            top, _ = best_candidates(s, a, b, 1, shortlist=SCREEN_SHORTLIST, pooled=pooled)
            worth.append(_worth(s, top[0], pooled, sides[j]))
            scores.append(top[0][0])
        by_worth += int(np.argmax(worth) == 0)
        by_score += int(np.argmax(scores) == 0)
    assert by_worth >= 5 and by_worth > by_score + 2, (by_worth, by_score)


def _grid_tree_round(pairs, n, seed):
    """A screening round of a Laplace tree over 16 elements (exact noise on the grid 2⁻²⁰, calibrated to ε = 1):
    ``n`` draws a side of each pair."""
    from privcheck.mechanisms.tree import GridTreeCounter

    m, rng = GridTreeCounter(1.0, 16), np.random.default_rng(seed)
    return [m.sample(x, rng, n) for p in pairs for x in p]


def test_a_pooled_rounds_event_is_scored_on_the_draws_it_was_not_chosen_on():
    """Where a round's covariance is pooled, a pair's best candidate is chosen on the first half of each side's draws
    and scored on its counts on the second (``screening._best``): chosen among thousands on a round's draws and
    scored on them, an event of a grid Laplace tree's prefix sums (a bit window) claims more than the tree's exact
    ε of 1 — the noise of its choice — where its counts on fresh draws claim less."""
    from privcheck.audits.mechanism.screening import _best
    from privcheck.audits.mechanism.selection import SCREEN_SHORTLIST, Scoring, best_candidates, oriented_counts
    from privcheck.core import PureDP, ReplaceOne

    x = np.zeros(16)
    pairs = [(x, np.where(np.arange(16) == 5, -1.0, 0.0))]  # (element 5: in 3 of the released blocks, ε 0.6)
    a, b = _grid_tree_round(pairs, 2000, 3)
    s = Scoring(PureDP(1.0, ReplaceOne("l1", 1.0)), 10**6, 0.025)
    pooled = pooled_covariance([a, b])
    chosen_on_all, _ = best_candidates(s, a, b, 1, shortlist=SCREEN_SHORTLIST, pooled=pooled)
    assert chosen_on_all[0][0] > 1.0  # (its own score: above the truth)
    score, ev, side, (num, den, h) = _best(s, a, b, pooled)
    assert h == 1000 and (num, den) == oriented_counts(ev, side, a[1000:], b[1000:])
    assert score < 1.0
    plain = _best(s, a, b, None)  # (nothing pooled: chosen and scored on every draw, as before)
    assert plain[0] == chosen_on_all[0][0] and plain[3][2] == 2000


@pytest.mark.slow  # (the default tier's two minutes: two screenings of a Laplace tree's 24 pairs, 9 s)
@pytest.mark.parametrize("seed", [1, 4])
def test_a_grid_laplace_trees_least_private_element_is_kept(seed):
    """The default pairs of a Laplace tree over 16 elements (one-entry changes, spread and sign patterns: 24–26),
    screened within 20,000 draws a side: element 0, in 5 released blocks where any other is in at most 4, is kept
    (6 of 6 seeds measured; 0 of 6 while each pair's events were scored on the draws that chose them)."""
    from privcheck.mechanisms.tree import GridTreeCounter

    from privcheck.audits.mechanism.runner import ChunkRunner
    from privcheck.audits.mechanism.screening import Drawing, screen
    from privcheck.audits.mechanism.selection import Scoring
    from privcheck.core import PureDP, ReplaceOne

    claim = PureDP(1.0, ReplaceOne("l1", 1.0))
    pairs = claim.relation.candidate_pairs(np.zeros(16), np.random.default_rng(seed))
    m = GridTreeCounter(1.0, 16)
    i, _ = screen(Drawing(ChunkRunner(None, None), m, "tree", seed), Scoring(claim, 10**6, 0.025), pairs, 20_000, 2000)
    x, x2 = pairs[i]
    assert np.flatnonzero(x != x2).tolist() == [0]
