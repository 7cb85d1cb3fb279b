"""The policies' exact noise: Philox words against numpy's, keyed discrete Laplace and Gaussian draws against
their pmfs (false-alarm rate 1e-6 per frequency test), the releases' calibration, and the policies' releases on
their grids — batch and one run at a time alike."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frequency import chi2_ok
from privcheck.mechanisms import GridTruncatedMean, exact_sampling as es
from privcheck.mechanisms import keyed_noise as kn
from privcheck.mechanisms.keyed_noise import (
    GridGaussianRelease,
    GridLaplaceRelease,
    keyed_discrete_gaussian,
    keyed_discrete_laplace,
    keys_from_uniforms,
    philox_block,
)
from privcheck.mechanisms.truncation import mean_sensitivity
from privcheck.policies.heavy_tailed import DPRobustSE, DPRobustUCB, LDPRobustSE
from privcheck.core import InvalidArgument

WORDS = st.integers(0, 2**64 - 1)


@settings(max_examples=40, deadline=None)
@given(WORDS, WORDS, st.integers(1, 2**40), st.integers(0, 2**63 - 1))
def test_philox_block_is_numpys_philox(k0, k1, block, slot):
    """Block j of slot s is numpy's Philox4x64-10 at counter (j, s, 0, 0): numpy increments before it draws."""
    out = np.empty(4, dtype=np.uint64)
    philox_block(np.uint64(k0), np.uint64(k1), np.uint64(block), np.uint64(slot), out, 0)
    ref = np.random.Philox(
        key=np.array([k0, k1], dtype=np.uint64), counter=np.array([block - 1, slot, 0, 0], dtype=np.uint64)
    ).random_raw(4)
    assert np.array_equal(out, ref)


def _keys(n, seed):
    return keys_from_uniforms(np.random.default_rng(seed).random((n, 2)))


@pytest.mark.parametrize("t", [1, 3, 40])
def test_keyed_discrete_laplace_frequencies(t):
    n = 200_000
    z = keyed_discrete_laplace(_keys(n, t), np.zeros(n), t)
    support = np.arange(-12 * t, 12 * t + 1)
    counts = np.array([(z == v).sum() for v in support] + [(np.abs(z) > 12 * t).sum()])
    probs = np.append(
        es.discrete_laplace_pmf(t, support), 2 * es.discrete_laplace_pmf(t, 12 * t + 1) / (1 - math.exp(-1 / t))
    )
    assert chi2_ok(counts, probs)


@pytest.mark.parametrize("s", [1, 2, 5, 33])
def test_keyed_discrete_gaussian_frequencies(s):
    """Small σ exercises every branch of the acceptance split exp(−q/2)^q · exp(−rq/s) · exp(−r²/(2s²))."""
    n = 200_000
    z = keyed_discrete_gaussian(_keys(n, s), np.full(n, 7), s)
    support = np.arange(-6 * s - 2, 6 * s + 3)
    counts = np.array([(z == v).sum() for v in support] + [(np.abs(z) > 6 * s + 2).sum()])
    probs = es.discrete_gaussian_pmf(s * s, support)
    assert chi2_ok(counts, np.append(probs, max(1 - probs.sum(), 0.0)))


def test_keyed_draws_are_functions_of_their_key_and_slot():
    keys = _keys(500, 1)
    a = keyed_discrete_laplace(keys, np.zeros(500), 2**26)
    one_by_one = np.concatenate([keyed_discrete_laplace(keys[i : i + 1], [0], 2**26) for i in range(500)])
    assert np.array_equal(a, one_by_one)
    assert not np.array_equal(a, keyed_discrete_laplace(keys, np.ones(500), 2**26))  # another slot
    g = keyed_discrete_gaussian(keys, np.arange(500), 2**26)
    assert np.array_equal(g[::-1], keyed_discrete_gaussian(keys[::-1], np.arange(500)[::-1], 2**26))


def test_keys_and_rows_are_checked():
    with pytest.raises(InvalidArgument, match="key uniforms"):
        keys_from_uniforms(np.array([[0.5]]))
    with pytest.raises(InvalidArgument, match=r"\[0, 1\)"):
        keys_from_uniforms(np.array([[0.5, 1.0]]))
    for bad in (-0.25, np.nan, np.inf):
        with pytest.raises(InvalidArgument, match=r"\[0, 1\)"):
            keys_from_uniforms(np.array([[0.5, 0.5], [0.5, bad]]))
    assert keys_from_uniforms(np.array([[0.0, 1 - 2**-53]])).tolist() == [[0, 2**53 - 1]]
    wide = np.random.default_rng(1).random((50, 5))  # extra columns are not key columns
    wide[:3, :2] = [[5e-324, 2**-60], [-0.0, 0.5], [2**-53, 1 - 2**-53]]  # subnormal, tiny, −0, the ends
    assert np.array_equal(keys_from_uniforms(wide), np.ldexp(wide[:, :2], 53).astype(np.uint64))
    assert np.array_equal(keys_from_uniforms(wide[:, ::2]), keys_from_uniforms(wide[:, [0, 2]]))  # strided
    with pytest.raises(InvalidArgument, match="scales >= 1"):
        keyed_discrete_laplace(_keys(2, 0), [0, 0], 0)
    with pytest.raises(InvalidArgument, match="scales >= 1"):
        keyed_discrete_laplace(_keys(2, 0), 0, [5, 0])
    with pytest.raises(InvalidArgument, match="slots >= 0"):
        keyed_discrete_laplace(_keys(2, 0), -1, 5)
    with pytest.raises(InvalidArgument, match="n slots"):
        keyed_discrete_laplace(_keys(2, 0), [0, 0, 0], 5)
    # a scalar slot or scale is each row's: the same draws as written out
    assert np.array_equal(
        keyed_discrete_laplace(_keys(3, 9), 2, 40), keyed_discrete_laplace(_keys(3, 9), [2] * 3, [40] * 3)
    )
    with pytest.raises(InvalidArgument, match="2\\^30"):
        keyed_discrete_gaussian(_keys(1, 0), [0], 2**30)


@pytest.mark.parametrize("B,eps", [(0.7, 1.0), (3.0, 1e-4), (1e-3, 50.0)])
def test_the_ldp_report_release_is_the_audited_randomizer(B, eps):
    """A report released by LDP Robust SE is on the lattice of GridTruncatedMean over one record — the report
    randomizer its local audit examines exactly."""
    rel = GridLaplaceRelease(mean_sensitivity(B, 1), eps)
    lat = GridTruncatedMean(eps, B).lattice(1)
    assert (rel.grid, rel.t) == (lat.grid, lat.t)


@pytest.mark.parametrize("delta,rho,d", [(1.0, 0.5, 1), (0.25, 1e-8, 3), (2.0, 50.0, 10), (1e-3, 1e-3, 2)])
def test_the_gaussian_release_meets_its_rho_and_is_the_smallest_that_does(delta, rho, d):
    rel = GridGaussianRelease(delta, rho, d)
    D = Fraction(delta) / Fraction(rel.grid) + math.ceil(math.sqrt(d)) + 1
    assert D * D / (2 * rel.s**2) <= Fraction(rho) < D * D / (2 * (rel.s - 1) ** 2)
    assert 2**26 <= rel.s < 2**28
    out = rel.release_vectors(np.full((4, d), 0.3), _keys(4, 2))
    assert np.array_equal(out, np.rint(out / rel.grid) * rel.grid)  # on the grid


def _ldp_reports(policy, rewards, keys_u):
    state = policy.init(keys_u.shape[0])
    out = []
    for t, r in enumerate(rewards, start=1):
        arms = policy.act(state, t)
        before = state.ep.s.copy()
        state = policy.update(state, t, arms, np.full(keys_u.shape[0], r), keys_u[:, t - 1])
        out.append((state.ep.s - before)[np.arange(arms.size), arms])
    return np.array(out)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_private_policy_releases_lie_on_their_grids():
    """LDP Robust SE's reports, DP Robust SE's means and DP Robust UCB's tree blocks are whole grid steps."""
    rng = np.random.default_rng(4)
    pol = LDPRobustSE(2, 1.0, 0.9, 1.0)
    u = rng.random((50, 6, 2))
    reports = _ldp_reports(pol, [0.3, -0.7, 0.11, 5.0, 0.2, 0.4], u)
    B = pol.phase(1, 2)[1]
    g = GridTruncatedMean(1.0, B).lattice(1).grid
    assert np.array_equal(reports, np.rint(reports / g) * g) and np.unique(reports).size > 100
    ucb = DPRobustUCB(2, 1.0, 0.9, 1.0, 8)
    state = ucb.init(20)
    for t in range(1, 9):
        arms = ucb.act(state, t, rng.random((20, 1)))
        state = ucb.update(state, t, arms, rng.normal(size=20), rng.random((20, 2)))
    g = ucb.counter.grid
    assert np.array_equal(state.noisy, np.rint(state.noisy / g) * g)
    se = DPRobustSE(2, 1.0, 0.9, 1.0)
    R, B, _ = se.phase(1, 2)
    rel = se.mean_release(R, B)
    m = rel.release(np.array([0.123456789, -0.5]), np.repeat(_keys(1, 3), 2, axis=0), np.arange(2))
    assert np.array_equal(m, np.rint(m / rel.grid) * rel.grid)


_C = pytest.mark.skipif(kn._compiled_gauss_rows is None, reason="privcheck.mechanisms._exactloop is not built")


@pytest.mark.slow  # compiles the numba reference kernels (4–12 s on a fresh machine)
@_C
@pytest.mark.parametrize("s", [1, 2, 5, 33, 2**26, 2**29])
def test_the_c_keyed_loops_draw_what_the_numba_kernels_draw(s):
    rng = np.random.default_rng(s)
    keys = kn.keys_from_uniforms(rng.random((3000, 2)))
    slots = rng.integers(0, 20, 3000)
    scale = np.full(3000, s, dtype=np.int64)
    for compiled, reference in (
        (kn._compiled_gauss_rows, kn._gauss_rows),
        (kn._compiled_laplace_rows, kn._laplace_rows),
    ):
        a, b = np.empty(3000, dtype=np.int64), np.empty(3000, dtype=np.int64)
        compiled(keys, slots, scale, a)
        reference(keys, slots, scale, b)
        assert np.array_equal(a, b)


@_C
def test_the_c_keyed_loops_check_their_buffers():
    keys, slots, scale = np.zeros((3, 2), dtype=np.uint64), np.zeros(3, dtype=np.int64), np.ones(3, dtype=np.int64)
    out = np.empty(3, dtype=np.int64)
    for bad in (
        (keys.astype(np.int64), slots, scale, out),
        (keys, slots.astype(np.int32), scale, out),
        (keys[:2], slots, scale, out),
        (keys, slots, scale, out[:2]),
        (keys, slots, scale, out.astype(float)),
        (keys, slots, np.zeros(3, dtype=np.int64), out),
        (keys, slots - 1, scale, out),
    ):
        with pytest.raises(ValueError):
            kn._compiled_gauss_rows(*bad)
    ro = out.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        kn._compiled_laplace_rows(keys, slots, scale, ro)
    with pytest.raises(ValueError, match="2\\^30"):
        kn._compiled_gauss_rows(keys, slots, np.full(3, 1 << 30, dtype=np.int64), out)
