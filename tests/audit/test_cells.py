"""Divergences certified from the cells of nested events (privcheck.audits.cells): never above the exact divergence
of the laws (mpmath at 60 digits as the oracle), equal to the cells' own divergence where the bounds are exact and
the cells ordered by their ratio, the single event's Bernoulli certificate at one cut, and sound at the edges."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.audits.cells import certified_divergence, certified_rho, divergences, monotone_ratios
from privcheck.audits.stats import bernoulli_renyi


def _exact(p, q, order) -> mpmath.mpf:
    """D_α(p ‖ q) (α = 1: KL) of two finite laws given as exact rationals, at 60 digits."""
    with mpmath.workdps(60):
        if order == 1:
            return mpmath.fsum(a * mpmath.log(a / b) for a, b in zip(p, q) if a > 0)
        s = mpmath.fsum(a**order * b ** (1 - order) for a, b in zip(p, q) if a > 0)
        return mpmath.log(s) / (order - 1)


def _tails(masses, order):
    """The nested tails S_j = the cells from j on (in ``order``), exactly, as mpmath numbers."""
    m = [masses[i] for i in order]
    with mpmath.workdps(60):  # (at 60 digits: a tail summed in doubles is not a bound)
        return [mpmath.fsum(m[j:]) for j in range(1, len(m))]


def _down(v) -> float:
    f = float(v)
    return f if mpmath.mpf(f) <= v else math.nextafter(f, -math.inf)


def _up(v) -> float:
    f = float(v)
    return f if mpmath.mpf(f) >= v else math.nextafter(f, math.inf)


@st.composite
def _laws(draw):
    m = draw(st.integers(2, 7))
    ws = st.floats(1e-6, 1.0)
    p = [mpmath.mpf(w) for w in draw(st.lists(ws, min_size=m, max_size=m))]
    q = [mpmath.mpf(w) for w in draw(st.lists(ws, min_size=m, max_size=m))]
    tiny = draw(st.sampled_from([None, 1e-300, 1e-30]))
    if tiny is not None:  # one cell of one side nearly empty
        p[draw(st.integers(0, m - 1))] = mpmath.mpf(tiny)
    with mpmath.workdps(60):
        sp, sq = mpmath.fsum(p), mpmath.fsum(q)
        p, q = [v / sp for v in p], [v / sq for v in q]
    return p, q, draw(st.permutations(range(m)))


@settings(max_examples=60, deadline=None)
@given(_laws(), st.sampled_from([1.0, 1.0001, 1.5, 2.0, 8.0, 64.0]))
def test_never_above_the_exact_divergence_in_any_order_of_the_cells(laws, order):
    p, q, perm = laws
    P = [_down(v) for v in _tails(p, perm)]  # valid bounds: P rounded down, Q up
    Q = [_up(v) for v in _tails(q, perm)]
    got = certified_divergence(P, Q, order)
    with mpmath.workdps(60):
        assert got <= _exact(p, q, order) + mpmath.mpf(10) ** -40  # (the oracle's own rounding: about 1e-60)


@settings(max_examples=40, deadline=None)
@given(_laws())
def test_ordered_by_ratio_the_bound_is_the_divergence_of_the_cells(laws):
    p, q, _ = laws
    with mpmath.workdps(60):
        perm = sorted(range(len(p)), key=lambda i: p[i] / q[i])  # ratios increasing: nothing to pool
    P = [_down(v) for v in _tails(p, perm)]
    Q = [_up(v) for v in _tails(q, perm)]
    for order in (1.0, 2.0):
        exact = float(_exact(p, q, order))
        got = certified_divergence(P, Q, order)
        assert got <= exact + 1e-40 and got >= exact - 1e-9 * max(1.0, exact)


def test_one_cut_is_the_bernoulli_certificate_of_the_corner():
    for p, q in ((0.3, 0.1), (0.9, 1e-6), (1e-3, 1e-9)):
        for order in (1.0, 1.5, 2.0, 16.0):
            exact = float(bernoulli_renyi(p, q, order))
            got = certified_divergence([p], [q], order)
            assert got <= exact * (1 + 1e-15) and got >= exact * (1 - 1e-9)


def test_a_ladder_reads_a_gaussians_rho_where_one_event_reads_part_of_it():
    from scipy.stats import norm

    mu = 1.0  # N(1, 1) against N(0, 1): D_α = α/2, ρ = 1/2
    ts = np.linspace(-3.0, 4.0, 32)
    P, Q = norm.sf(ts - mu), norm.sf(ts)
    rho, _ = certified_rho(P, Q)
    assert 0.49 < rho <= 0.5
    one = max(float(bernoulli_renyi(norm.sf(t - mu), norm.sf(t), 1.0)) for t in ts)
    assert one < 0.45  # (one event: about 0.4 of ρ at best)


def test_edges_small_divergences_extreme_orders_and_the_other_way():
    from scipy.stats import norm

    mu = math.sqrt(2e-8)  # ρ = 1e-8
    ts = np.linspace(-3.0, 3.0, 16)
    P, Q = norm.sf(ts - mu), norm.sf(ts)
    rho, _ = certified_rho(P, Q)
    assert 0.0 <= rho <= 1e-8
    # leaning the other way: nothing certified, never negative
    assert certified_divergence(Q, P, 1.0) == 0.0 and certified_divergence(Q, P, 2.0) == 0.0
    # huge orders overflow the coefficients: said as 0, never inf or nan
    assert math.isfinite(certified_divergence([0.9], [1e-300], 700.0))
    # bounds that say nothing
    assert certified_divergence([0.0, 0.0], [1.0, 1.0], 2.0) == 0.0


def test_ratios_are_pooled_where_they_would_decrease():
    r = monotone_ratios([0.2, 0.1, 0.3, 0.4], [0.1, 0.3, 0.3, 0.3])
    assert np.all(np.diff(r) >= 0)
    assert r[0] == r[1] == (0.2 + 0.1) / (0.1 + 0.3)
    assert divergences([0.5], [0.1], [1.0, 2.0]).shape == (2,)
