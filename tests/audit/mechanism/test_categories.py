"""When a statistic is treated as categorical (sets of its values as events): at most 512 values, each seen four
times on average.  Sets of values seen about once are fitted to the sample they were chosen on — the set of the
x-side's distinct action sequences scores n against 0 where nothing leaks — and they outranked a leaking pair in a
quick stage's screening of 125 runs per pair (P2B's code-threshold bug went to the full sampling)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.audits.mechanism.events import (
    MIN_REPEATS,
    InSet,
    Kind,
    Statistic,
    candidates_for,
    categorical,
    statistics_for,
)
from privcheck.audits.mechanism.selection import SCREEN_SHORTLIST, Scoring, best_candidates
from privcheck.core import PureDP


def test_a_category_is_one_of_at_most_512_values_seen_four_times_on_average():
    assert categorical(10, 40) and not categorical(11, 40) and MIN_REPEATS == 4
    assert categorical(512, 10**6) and not categorical(513, 10**6)
    assert categorical(1, 4) and not categorical(1, 3)


def _sequences(n: int, seed: int) -> np.ndarray:
    """n action sequences of 100 rounds over two arms, the same law on both sides: all distinct."""
    return np.random.default_rng(seed).integers(0, 2, (n, 100)).astype(np.int8)


@pytest.mark.parametrize("n", [60, 125, 250])
def test_unseen_again_sequences_are_not_a_category_nor_fitted_by_a_set(n):
    a, b = _sequences(n, 1), _sequences(n, 2)
    assert not any(s.kind == Kind.ROW for s in statistics_for(a, b))
    top, _ = best_candidates(Scoring(PureDP(1.0), n, 0.025 / 2), a, b, 1, shortlist=SCREEN_SHORTLIST)
    score, event, _, counts = top[0]
    # nothing leaks: no set of sequences is chosen, and the best fixed event (a projection fitted to the sample)
    # scores far below what the set of x's sequences scored (about 3.1 at 125 runs)
    assert not isinstance(event, InSet) and score < 1.2, (event.describe(), counts)


def test_a_small_output_alphabet_is_still_a_category_at_few_draws():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 10, 30), rng.integers(0, 10, 30)  # 10 values over 60 draws: six each on average
    events, _, _, _ = candidates_for(Statistic("output"), a, b)
    assert any(isinstance(e, InSet) for e in events)
    rows = np.stack([a % 2, a // 2], axis=1), np.stack([b % 2, b // 2], axis=1)
    assert any(s.kind == Kind.ROW for s in statistics_for(*rows))


def test_unique_floats_get_thresholds_not_sets():
    rng = np.random.default_rng(4)
    events, _, _, _ = candidates_for(Statistic("output"), rng.normal(size=200), rng.normal(size=200))
    assert len(events) and not any(isinstance(e, InSet) for e in events)


def test_sets_of_values_are_ordered_on_half_the_draws_and_counted_on_the_other():
    """Where nothing leaks, a set of values ordered by their ratio on the draws it is counted on is fitted to them: of
    300 values seen ten times each, the values where x happened to lead most held 163 of x's 1,500 draws against 33 of
    x''s, and scored ε ≈ 0.8 (a set outranked events that certify more).  Ordered on the first half and counted on the
    second, its counts are honest: every candidate kept scores 0, and a set says it was counted on half the draws."""
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 300, 1500), rng.integers(0, 300, 1500)
    events, ka, kb, drawn = candidates_for(Statistic("output"), a, b)
    sets = drawn < a.size
    assert sets.any() and set(drawn[sets].tolist()) == {750} and set(drawn[~sets].tolist()) == {1500}
    assert all(len(events[i].values) >= 2 for i in np.flatnonzero(sets)[:50])  # a set of one is an atom
    top, _ = best_candidates(Scoring(PureDP(1.0), 1500, 0.025 / 2), a, b, 4)
    assert all(score == 0.0 for score, _, _, _ in top), [(s, e.describe(), c) for s, e, _, c in top]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 600),
    st.integers(1, 41),
    st.sampled_from([np.int8, np.int16, np.int64, np.uint8]),
    st.integers(1, 8),
    st.integers(0, 2**31),
)
def test_whole_rows_are_grouped_as_numpy_groups_them(n, width, dtype, distinct, seed):
    """Whole rows (action sequences as bytes) are grouped by a hash of their words and checked: the same values,
    in the same order, and the same inverse as np.unique — for rows of any width (words padded) and dtype."""
    from privcheck.audits.mechanism.events import _unique_rows

    rng = np.random.default_rng(seed)
    kinds = rng.integers(0, 3, (distinct, width)).astype(dtype)
    r = np.ascontiguousarray(kinds[rng.integers(0, distinct, n)])
    rows = r.view(np.dtype((np.void, r.dtype.itemsize * width))).ravel()
    values, inverse = np.unique(rows, return_inverse=True)
    got_values, got_inverse = _unique_rows(rows)
    assert np.array_equal(got_values, values) and np.array_equal(got_inverse, inverse.ravel())


def test_rows_whose_hashes_collide_are_grouped_by_numpy(monkeypatch):
    """Two different rows with one hash (every multiplier 0: all rows collide) are told apart by the check, which
    then hands the rows to np.unique."""
    from privcheck.audits.mechanism import events

    monkeypatch.setattr(events, "_ROW_MULTIPLIERS", np.zeros(1 << 12, dtype=np.uint64))
    r = np.array([[0, 1], [1, 0], [0, 1]], dtype=np.int64)
    rows = r.view(np.dtype((np.void, 16))).ravel()
    values, inverse = events._unique_rows(rows)
    assert len(values) == 2 and inverse.tolist() == [0, 1, 0]
