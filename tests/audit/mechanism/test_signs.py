"""The sign statistic Σ w·sign(o − c): offered where several coordinates' means differ by three standard errors,
read as the likelihood ratio of independent Laplace noise reads it — on a vector of discrete Laplace counts whose
shift is spread over many coordinates it certifies more than the mean-difference projection, and it is an event like
any other: certified on fresh draws, never above the truth."""

import numpy as np
import pytest

from privcheck import PureDP, audit
from privcheck.audits.mechanism import events
from privcheck.audits.mechanism.events import Kind, Threshold, statistics_for
from privcheck.mechanisms.exact_sampling import discrete_laplace

D, SHIFTED, T = 40, 24, 8  # 24 of 40 counts moved by one, scale 8: ε = 24/8 = 3


class Counts:
    """D counts with discrete Laplace noise of scale T each; x moves the first SHIFTED by x[0]."""

    name = "counts"

    def sample(self, x, rng, size):
        shift = np.zeros(D, dtype=np.int64)
        shift[:SHIFTED] = int(np.asarray(x).ravel()[0])
        return discrete_laplace(rng, T, size * D).reshape(size, D) + shift


def _signs(a, b):
    return [s for s in statistics_for(a, b) if s.kind == Kind.SIGNS]


def test_it_is_offered_on_the_moved_coordinates_with_cuts_halfway_and_reads_signs():
    rng = np.random.default_rng(0)
    a, b = Counts().sample([0], rng, 20_000), Counts().sample([1], rng, 20_000)
    (st,) = _signs(a, b)
    w = np.asarray(st.weights)
    assert np.count_nonzero(w[:SHIFTED]) >= SHIFTED - 2 and np.count_nonzero(w[SHIFTED:]) <= 1 and w.max() == 1.0
    assert np.allclose(np.asarray(st.cuts)[:SHIFTED], 0.5)
    row = np.zeros((1, D))
    row[0, :SHIFTED] = 1
    assert st(row)[0] == pytest.approx(np.abs(w[:SHIFTED]).sum() - np.abs(w[SHIFTED:]).sum() * 1)  # (o > c: +1)
    text = Threshold(st, 3.0, True).describe()
    assert text.startswith("{Σ w·sign(o − c) over") and "·sign(o[" in text


@pytest.mark.parametrize("seed", range(3))
def test_where_the_sides_are_one_law_it_is_seldom_offered(seed):
    rng = np.random.default_rng(seed)
    a, b = Counts().sample([0], rng, 5000), Counts().sample([0], rng, 5000)
    assert len(_signs(a, b)) == 0 or np.count_nonzero(_signs(a, b)[0].weights) <= 3


PAIR = [(np.array([0.0]), np.array([1.0]))]


def test_it_refutes_a_spread_shift_and_stays_below_the_truth():
    """20,000 draws a side, the full stage alone, the fixed families: ε ≥ 1.25 (seed 4), refuted."""
    r = audit(Counts(), PureDP(1.0), pairs=PAIR, samples=20_000, seed=4, stages=0, classifier="off")
    assert r.violates_claim and 1.0 < r.epsilon_lower <= 3.0
    assert "sign(o" in r.witness["event"]["statistic"]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_without_it_the_projection_does_not_refute_the_same_shift(monkeypatch):
    """The same audit without the sign statistic: the best event is the mean-difference projection's, ε ≥ 0.85."""
    monkeypatch.setattr(events, "_signs", lambda *args: None)
    r = audit(Counts(), PureDP(1.0), pairs=PAIR, samples=20_000, seed=4, stages=0, classifier="off")
    assert not r.violates_claim and r.epsilon_lower < 1.0


def test_a_rows_value_is_a_function_of_the_row_alone_and_the_sum_of_its_terms():
    """The statistic is summed term by term over the coordinates of nonzero weight: a row's value is the same
    whichever rows are evaluated with it (a matrix product's sums rounded by where the row fell in its block), equal
    to the exact sum within rounding, and a coordinate of weight zero — a NaN there — is never read."""
    from fractions import Fraction

    rng = np.random.default_rng(5)
    a, b = Counts().sample([0], rng, 20_000), Counts().sample([1], rng, 20_000)
    (st,) = _signs(a, b)
    rows = Counts().sample([0], rng, 70_000).astype(float)  # (more rows than one block)
    v = st(rows)
    perm = rng.permutation(rows.shape[0])
    assert np.array_equal(st(rows[perm]), v[perm])
    assert np.array_equal(np.concatenate([st(rows[:3]), st(rows[3:40_001]), st(rows[40_001:])]), v)
    w, cuts = np.asarray(st.weights), np.asarray(st.cuts)
    for r, got in zip(rows[:50], v[:50]):
        exact = sum(Fraction(float(wi)) * int(np.sign(o - c)) for wi, o, c in zip(w, r, cuts) if wi != 0)
        assert abs(Fraction(float(got)) - exact) <= Fraction(1, 2**40)
    zero = int(np.flatnonzero(w == 0)[0])
    poisoned = rows[:5].copy()
    poisoned[:, zero] = np.nan
    assert np.array_equal(st(poisoned), v[:5])


def test_large_integers_are_read_from_the_centre_exactly():
    """Counts near 2⁴⁵ (beyond what a double holds to a unit after arithmetic) are centred in int64 before their signs
    are read (the cuts are from the centre)."""
    rng = np.random.default_rng(6)
    base = 2**45
    a, b = Counts().sample([0], rng, 20_000) + base, Counts().sample([1], rng, 20_000) + base
    (st,) = _signs(a, b)
    assert st.centre
    small = (a[:1000] - np.array(st.centre, dtype=np.int64)).astype(float)
    plain = events.Statistic("signs", weights=st.weights, cuts=st.cuts)
    assert np.array_equal(st(a[:1000]), plain(small))
