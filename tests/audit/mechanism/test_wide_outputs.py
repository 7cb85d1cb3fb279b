"""The search reads wide outputs a block at a time (a policy's or agent's releases: tens of thousands of values a
draw): each blocked reading gives what the whole-array one gives, whatever the block size."""

import numpy as np
import pytest

from privcheck.audits.mechanism import events, learned
from privcheck.audits.mechanism.runner import _joined


def _small_blocks(monkeypatch):
    monkeypatch.setattr(events, "_KEY_BLOCK", 7)  # (a few values a block: every reading below is cut many times)


@pytest.mark.parametrize("dtype", [np.float64, np.float16, np.int64, np.bool_])
def test_distinct_rows_counts_the_rows_of_the_parts_together(monkeypatch, dtype):
    """Rows of few small values — doubles whose information is in their high bits, where a product of words alone
    once merged 35 distinct rows into 23 — counted over two parts as over their concatenation; −0.0 is 0.0."""
    _small_blocks(monkeypatch)
    rng = np.random.default_rng(5)
    for _ in range(8):
        d = int(rng.integers(1, 6))
        a = np.round(rng.laplace(size=(int(rng.integers(1, 300)), d)) / 2).astype(dtype)
        b = np.round(rng.laplace(size=(int(rng.integers(0, 300)), d)) / 2).astype(dtype)
        rows = {tuple(r) for r in (np.concatenate([a, b]).astype(float) + 0.0).tolist()}
        assert events._distinct_rows(a, b) == len(rows)
    assert events._distinct_rows(np.array([[0.0, 1.0], [-0.0, 1.0]])) == 1
    assert events._distinct_rows(np.zeros((0, 3))) == 0


def test_column_variances_and_row_blocks_are_the_whole_arrays(monkeypatch):
    _small_blocks(monkeypatch)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 23)) * 1e3
    assert np.array_equal(events.column_var(x), x.var(axis=0))
    w = rng.standard_normal(23)
    blocked = events._by_rows(x, lambda r: np.sign(r - 1.0) @ w)
    assert np.allclose(blocked, np.sign(x - 1.0) @ w, rtol=1e-12, atol=1e-12)
    proj = events.Statistic("projection", weights=tuple(w.tolist()))
    assert np.allclose(proj(x), x @ w, rtol=1e-12, atol=1e-9)


def test_the_sign_statistic_and_the_centre_read_blocks_as_the_whole(monkeypatch):
    """The sign statistic chosen on blocks of columns is the one chosen on the whole (weights to 12 digits: the
    mean absolute deviations are summed in another order), its cuts read only where its weights are not 0; the
    centre of large values is found in blocks of rows."""
    rng = np.random.default_rng(2)
    a = rng.laplace(size=(400, 60)) * 5
    b = rng.laplace(size=(400, 60)) * 5
    b[:, :20] += 2.0
    whole = events._signs(a, b)
    _small_blocks(monkeypatch)
    blocked = events._signs(a, b)
    assert whole is not None and blocked is not None
    assert np.allclose(whole.weights, blocked.weights, rtol=1e-12, atol=0)
    on = np.asarray(whole.weights) != 0
    assert np.array_equal(np.asarray(whole.cuts)[on], np.asarray(blocked.cuts)[on])
    assert np.all(np.asarray(blocked.cuts)[~on] == 0)
    big = a + 2.0**40
    assert events.centre_of(big) == tuple(float(v) for v in big[0])
    assert events.centre_of(a) == ()


def test_the_float_check_reads_blocks_as_the_whole():
    rng = np.random.default_rng(3)
    for few in (learned.FEW_VALUES, learned.FEW_VALUES + 1):
        a = rng.choice(np.arange(few, dtype=float), size=(3000, 40))
        b = a[::-1].copy()
        head = np.concatenate([a[:2048].ravel(), b[:2048].ravel()])
        assert learned.real_valued(a, b) == (np.unique(head).size > learned.FEW_VALUES)


def test_joined_draws_are_the_concatenation_and_release_their_chunks():
    chunks = [np.arange(6).reshape(3, 2), np.arange(4, dtype=np.int32).reshape(2, 2), np.ones((1, 2), dtype=np.int64)]
    expected = np.concatenate(chunks)
    held = list(chunks)
    out = _joined(held)
    assert np.array_equal(out, expected) and out.dtype == expected.dtype and held == []


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.bool_])
def test_coordinates_read_a_group_of_columns_at_a_time_give_each_ones_own_candidates(monkeypatch, dtype):
    """The selection copies the coordinates' columns a group at a time, a block of rows at a time
    (:func:`~privcheck.audits.mechanism.events.coordinate_values`): every coordinate statistic's candidates and counts
    are those read from its own column, in the statistics' order, whatever the groups and blocks."""
    from privcheck.audits.mechanism.selection import _found

    rng = np.random.default_rng(7)
    a = (rng.laplace(size=(3000, 9)) * 2).round().astype(dtype)
    b = (rng.laplace(size=(2500, 9)) * 2 + np.arange(9) / 4).round().astype(dtype)
    stats = events.statistics_for(a, b)
    assert sum(st.kind == events.Kind.COORD for st in stats) >= 4
    own = [events.candidates_for(st, a, b) for st in stats]
    own = [f for f in own if f[0]]
    monkeypatch.setattr(events, "COLUMN_VALUES", 2 * 3000)  # (two coordinates a group)
    monkeypatch.setattr(events, "_COLUMN_BLOCK", 5)  # (a few rows a block)
    cols = events._columns(a, [4, 0, 4])
    assert cols.flags.c_contiguous and np.array_equal(cols, a[:, [4, 0, 4]].T)
    grouped = _found(stats, a, b)
    assert len(grouped) == len(own)
    for (e1, ka1, kb1, d1), (e2, ka2, kb2, d2) in zip(own, grouped):
        assert len(e1) == len(e2) and [e1[i].describe() for i in (0, len(e1) - 1)] == [
            e2[i].describe() for i in (0, len(e2) - 1)
        ]
        assert np.array_equal(ka1, ka2) and np.array_equal(kb1, kb2) and np.array_equal(d1, d2)
