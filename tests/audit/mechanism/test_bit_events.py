"""Bit-level events in the default sampled search (Mironov, "On Significance of the Least Significant Bits for
Differential Privacy", CCS 2012): a textbook floating-point Laplace is refuted without a hand-written event, a
grid mechanism is not, and the trailing-zero count is checked against its definition."""

import math
import struct

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.mechanisms.laplace import GridLaplace
from privcheck import audit
from privcheck.audits.mechanism.events import BitWindow, Statistic, candidates_for, trailing_zero_bits
from privcheck.audits.mechanism.certification import BITS_NOTE
from privcheck.core import PureDP, ReplaceOne


def _tz_reference(v: float) -> int:
    mantissa = struct.unpack("<Q", struct.pack("<d", v))[0] & ((1 << 52) - 1)
    return 52 if mantissa == 0 else (mantissa & -mantissa).bit_length() - 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=20))
def test_trailing_zero_bits_is_the_mantissas(values):
    assert trailing_zero_bits(np.array(values)).tolist() == [_tz_reference(v) for v in values]


def float_laplace(x, rng, size):
    """The textbook mechanism: x + rng.laplace(0, 10) — not ε-DP for any ε."""
    return x + rng.laplace(0.0, 10.0, size)


def test_the_default_search_refutes_the_float_laplace_by_its_bits():
    r = audit(
        float_laplace, PureDP(0.1, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="sample", samples=200_000, seed=4
    )
    assert r.violates_claim and r.epsilon_lower > 1.0
    assert "trailing zero mantissa bits" in r.witness["event_text"] or "+bits" in r.witness["event_text"]
    off = audit(
        float_laplace,
        PureDP(0.1, ReplaceOne("l1", 1.0)),
        pairs=[(0.0, 1.0)],
        method="sample",
        samples=200_000,
        seed=4,
        classifier="off",
    )
    assert off.violates_claim and "trailing zero mantissa bits" in off.witness["event_text"]  # the windows alone
    assert BITS_NOTE in r.notes and BITS_NOTE in off.notes  # said: a floating-point leak


def test_a_leak_in_the_values_is_not_said_to_be_a_floating_point_one():
    """Noise drawn on a grid, twice too little of it: refuted by its values, and no note blames the bits."""
    r = audit(
        GridLaplace(epsilon=0.2),
        PureDP(0.1, ReplaceOne("l1", 1.0)),
        pairs=[(0.0, 1.0)],
        method="sample",
        samples=200_000,
        seed=4,
    )
    assert r.violates_claim and BITS_NOTE not in r.notes


def test_a_grid_laplace_is_not_refuted_by_them():
    m = GridLaplace(epsilon=0.1)
    r = audit(m, PureDP(0.1, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], method="sample", samples=200_000, seed=4)
    assert not r.violates_claim


def test_bit_windows_are_candidates_with_their_counts():
    rng = np.random.default_rng(0)
    a = rng.laplace(0, 3, 3000)
    b = np.round(rng.laplace(1, 3, 3000), 3)  # many trailing zeros near the multiples of 1/8
    stat = Statistic("output")
    events, ka, kb, _ = candidates_for(stat, a, b)
    bits = [(e, c1, c2) for e, c1, c2 in zip(events, ka, kb) if isinstance(e, BitWindow)]
    assert {e.bits for e, _, _ in bits} == {1, 2, 4, 8, 16, 32} and {e.fewer for e, _, _ in bits} == {False, True}
    for e, c1, c2 in bits[:: max(1, len(bits) // 200)] + [t for t in bits if t[0].fewer][:: max(1, len(bits) // 400)]:
        assert c1 == e.indicator(a).sum() and c2 == e.indicator(b).sum()
    ev = BitWindow(stat, 8, -1.0, 2.0)
    assert ev.to_json() == {"kind": "bits", "statistic": "o", "trailing_zero_bits": 8, "low": -1.0, "high": 2.0}
    assert ev.describe() == "{o in [-1, 2) with >= 8 trailing zero mantissa bits}"
    assert ev.indicator(np.array([0.5, 1.0 + 2**-52, 2.0, -1.0])).tolist() == [True, False, False, True]
    odd = BitWindow(stat, 8, -1.0, 2.0, fewer=True)
    assert odd.to_json() == {**ev.to_json(), "fewer": True}
    assert odd.describe() == "{o in [-1, 2) with < 8 trailing zero mantissa bits}"
    assert odd.indicator(np.array([0.5, 1.0 + 2**-52, 2.0, -1.0])).tolist() == [False, True, False, False]


def numerical_sum(x, rng, size):
    """x + Laplace noise of scale 60 (Lyu, Su and Li's numerical SVT's released value, its claim ε = 0.1): near −1 the
    sum from x = 2 is on the grid of 2^-51, from x = 1 on 2^-52's — its odd multiples only x = 1 gives."""
    return x + rng.laplace(0.0, 60.0, size)


def test_the_draws_only_one_side_can_give_are_a_window_of_their_own():
    """A window's draws with fewer trailing zeros than the other side's grid allows: the fixed family that refutes a
    sum off the grid at 15,625 draws a side, without the classifiers (at least k zeros only halves the other
    side's mass there: ε ≥ 0.2 at most)."""
    claim = PureDP(0.1, ReplaceOne("l1", 1.0))
    r = audit(numerical_sum, claim, pairs=[(1.0, 2.0)], method="sample", samples=15_625, seed=3, classifier="off",
              stages=0)  # fmt: skip
    assert r.violates_claim and r.epsilon_lower > 1.0, str(r)
    assert r.witness["event"]["fewer"] and BITS_NOTE in r.notes


def test_integer_and_few_valued_outputs_get_no_bit_windows():
    stat = Statistic("output")
    ints = candidates_for(stat, np.arange(5000), np.arange(5000) + 1)[0]
    few = candidates_for(stat, np.repeat([0.5, 1.5], 1000), np.repeat([0.5, 2.5], 1000))[0]
    assert not any(isinstance(e, BitWindow) for e in [*ints, *few])
    assert math.isfinite(len(ints))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["small", "wide", "bool", "whole", "float"]))
def test_candidate_counts_are_their_events_counts_however_they_are_computed(seed, kind):
    import importlib

    events = importlib.import_module(
        "privcheck.audits.mechanism.events"
    )  # the module (privcheck.audit.audit shadows it)

    rng = np.random.default_rng(seed)
    n1, n2 = rng.integers(1, 3000, 2)
    a, b = {
        "small": lambda: (rng.integers(-3, 4, (n1, 3)), rng.integers(-2, 6, (n2, 3))),
        "wide": lambda: (rng.integers(0, 3000, n1), rng.geometric(0.01, n2)),
        "bool": lambda: (rng.random((n1, 2)) < 0.3, rng.random((n2, 2)) < 0.6),
        "whole": lambda: (
            np.stack([rng.random(n1) < 0.3, rng.geometric(0.002, n1)], axis=1).astype(float),
            np.stack([rng.random(n2) < 0.6, -rng.geometric(0.001, n2)], axis=1).astype(float),
        ),
        "float": lambda: (rng.laplace(0, 3, n1), np.round(rng.laplace(1, 3, n2) * 64) / 64),
    }[kind]()

    def all_candidates():
        out = []
        for stat in events.statistics_for(a, b):
            ev, ka, kb, _ = candidates_for(stat, a, b)
            out.append((ka.tolist(), kb.tolist(), [ev[i].describe() for i in range(len(ev))]))
        return out

    counted = all_candidates()
    # and every candidate's counts are those of its own indicator on the samples (bit windows included) — on the
    # second half of each side's draws for a set ordered on the first half (the draws per side it is of said so)
    h = min(len(a), len(b)) // 2
    for stat in events.statistics_for(a, b):
        ev, ka, kb, drawn = candidates_for(stat, a, b)
        assert set(drawn.tolist()) <= {len(a), len(a) - h}
        for i in rng.choice(len(ev), size=min(len(ev), 60), replace=False):
            xa, xb = (a, b) if drawn[i] == len(a) else (a[h:], b[h:])
            assert (np.count_nonzero(ev[i].indicator(xa)), np.count_nonzero(ev[i].indicator(xb))) == (ka[i], kb[i])
    saved = events._COUNTED_RANGE
    events._COUNTED_RANGE = -1  # every statistic through the sorted path
    try:
        assert all_candidates() == counted
    finally:
        events._COUNTED_RANGE = saved


def test_the_attacks_events_are_bit_windows_of_the_default_search():
    """Mironov's trailing-zeros events (``attacks.trailing_zeros``) are the bit-window family's events: the same
    indicator as reading the mantissa's low bits directly (the oracle below), on scalar and vector outputs."""
    from privcheck.audits.mechanism import attacks

    rng = np.random.default_rng(5)
    x = np.concatenate([rng.laplace(size=20_000), [0.0, -0.0, 1.0, -1.0, 2.0, 1.5, np.inf, np.nan]])
    frac = np.uint64((1 << 52) - 1)
    for k in (0, 2, 4, 8, 52):
        bits = np.ascontiguousarray(x).view(np.uint64) & frac
        with np.errstate(invalid="ignore"):
            oracle = (x >= -1.0) & (x < 2.0) & ((bits & np.uint64((1 << k) - 1)) == 0)
        event = attacks.trailing_zeros(k)
        np.testing.assert_array_equal(event(x), oracle)
        np.testing.assert_array_equal(event(np.stack([x, -x], axis=1)), oracle)
