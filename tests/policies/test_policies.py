"""Policies: the kl machinery against mpmath, the policy contract, and the windowed/plain equivalence."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck.policies import (
    KLUCB,
    KLUCBCF,
    SWKLUCBCF,
    SWUCB,
    UCB1,
    UCBCF,
    Bernoulli,
    Corruption,
    Schedule,
    ThompsonSampling,
    kl_bernoulli,
    kl_lower,
    kl_upper,
    simulate,
)
from privcheck.policies.exploration import level
from privcheck.core import InvalidArgument


@pytest.fixture(autouse=True, scope="module")
def _fifty_digits():
    """The references below in 50-digit arithmetic, set for this module's tests only (a precision set at import
    held for whichever module was imported last)."""
    with mp.workdps(50):
        yield


def reference_upper(p, lev):
    p = mp.mpf(p)
    if p == 1:
        return mp.mpf(1)

    def f(q):
        return (p * mp.log(p / q) if p > 0 else 0) + (1 - p) * mp.log((1 - p) / (1 - q)) - lev

    if f(1 - mp.mpf(10) ** -40) <= 0:
        return mp.mpf(1)
    lo, hi = p, mp.mpf(1)
    for _ in range(170):
        m = (lo + hi) / 2
        if f(m) > 0:
            hi = m
        else:
            lo = m
    return hi


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1), st.floats(1e-8, 5))
def test_kl_upper_is_a_tight_upper_bound(p, lev):
    ref = reference_upper(p, lev)
    got = float(kl_upper(p, lev))
    assert got >= float(ref) - 1e-300  # never below the exact value
    assert got - float(ref) <= 5e-12  # the certified margin is 1e-12 plus the last iterate's error


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.floats(1e-8, 5))
def test_kl_lower_by_symmetry(p, lev):
    lo = float(kl_lower(p, lev))
    assert lo <= p + 1e-15
    assert lo <= 1 - float(reference_upper(1 - p, lev)) + 1e-300
    if lo > 1e-12:
        assert float(kl_bernoulli(p, lo)) >= lev - 1e-9  # nothing below lo is inside the interval


@pytest.mark.parametrize("f,n", [(0.5, 1), (3.0, 10), (np.log(1000), 7), (20.0, 3)])
def test_index_at_zero_mean(f, n):
    assert float(kl_upper(0.0, f / n)) == pytest.approx(1 - math.exp(-f / n), abs=2e-12)
    assert float(kl_upper(0.0, f / n)) >= 1 - math.exp(-f / n)


def test_level_is_f_plus():
    assert level(1, 1.0, 3.0) == 0.0
    assert level(2, 1.0, 3.0) == 0.0  # f(2) = log 2 + 3 log log 2 < 0 (claims G-F2): clipped to 0
    assert level(100, 1.0, 3.0) == pytest.approx(math.log(100) + 3 * math.log(math.log(100)))
    assert level(100, 4.0, 0.0) == pytest.approx(4 * math.log(100))


def _policies(k=3):
    c = Corruption.randomized_response([0.8, 0.7, 0.3][:k], [0.75, 0.8, 0.2][:k])
    return [
        UCB1(k),
        KLUCB(k),
        KLUCB(k, 3.0),
        SWUCB(k, 7),
        KLUCBCF(c),
        UCBCF(c),
        SWKLUCBCF(c, 7),
        ThompsonSampling(k),
        ThompsonSampling(k, c, name="ts-cf"),
    ]


def _history(policy, runs, steps, seed):
    rng = np.random.default_rng(seed)
    state = policy.init(runs)
    for t in range(1, steps + 1):
        arms = policy.act(state, t, rng.random((runs, policy.n_uniforms)))
        state = policy.update(state, t, arms, (rng.random(runs) < 0.3 + 0.2 * arms).astype(float), None)
    return state


@pytest.mark.parametrize("policy", _policies(), ids=lambda p: p.name + str(getattr(p, "window", "")))
def test_batched_equals_one_at_a_time(policy):
    runs, steps = 6, 40
    rng = np.random.default_rng(1)
    U = rng.random((steps, runs, policy.n_uniforms))
    F = rng.random((steps, runs))
    state = policy.init(runs)
    batched = []
    for t in range(1, steps + 1):
        arms = policy.act(state, t, U[t - 1])
        batched.append(arms)
        state = policy.update(state, t, arms, (F[t - 1] < 0.5).astype(float), None)
    for r in range(runs):
        s = policy.init(1)
        for t in range(1, steps + 1):
            a = policy.act(s, t, U[t - 1, r : r + 1])
            assert a[0] == batched[t - 1][r]
            s = policy.update(s, t, a, (F[t - 1, r : r + 1] < 0.5).astype(float), None)


@pytest.mark.parametrize("policy", [p for p in _policies() if hasattr(p, "probs")], ids=lambda p: p.name)
def test_act_draws_from_probs(policy):
    state = _history(policy, 400, 12, seed=3)
    t = 13
    pr = policy.probs(state, t)
    assert np.allclose(pr.sum(axis=1), 1) and np.all(pr >= 0)
    rng = np.random.default_rng(4)
    counts = np.zeros_like(pr)
    reps = 300
    for _ in range(reps):
        a = policy.act(state, t, rng.random((400, 1)))
        assert np.all(pr[np.arange(400), a] > 0)  # never an arm of probability 0
        counts[np.arange(400), a] += 1
    # frequencies match probabilities: at most 6 binomial standard deviations anywhere (false-failure < 1e-6)
    sd = np.sqrt(pr * (1 - pr) / reps)
    assert np.all(np.abs(counts / reps - pr) <= 6 * sd + 1e-12)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_fast_act_equals_argmax_of_indices():
    from privcheck.policies.base import Counts, choose

    rng = np.random.default_rng(0)
    for c in [
        Corruption.randomized_response([0.73] * 3, [0.73] * 3),
        Corruption.randomized_response([0.2] * 3, [0.3] * 3),
        Corruption.identity(3),
        Corruption.randomized_response([0.9, 0.2, 0.6], [0.8, 0.1, 0.5]),
    ]:
        p = KLUCBCF(c)
        N = rng.integers(0, 60, (50_000, 3)).astype(np.int64)
        S = np.floor(N * rng.random((50_000, 3)))
        u = rng.random((50_000, 1))
        for t in (5, 100, 10_000):
            assert np.array_equal(p.act(Counts(N, S), t, u), choose(p.indices(Counts(N, S), t), u[:, 0]))


def test_sliding_window_at_least_horizon_equals_plain():
    c = Corruption.randomized_response([0.73] * 3, [0.73] * 3)
    env = Bernoulli(Schedule([[0.9, 0.6, 0.5]]), c)
    a = simulate(env, SWKLUCBCF(c, window=500, exploration=0.0), 500, 20, seed=5)
    b = simulate(env, KLUCBCF(c, exploration=0.0), 500, 20, seed=5)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.pulls, b.pulls)
    a = simulate(env, SWKLUCBCF(c, window=60, exploration=0.0), 500, 20, seed=5)
    assert not np.array_equal(a.pulls, b.pulls)


def test_window_counts_only_last_w_rounds():
    p = SWUCB(2, window=3)
    s = p.init(1)
    fb = [1.0, 0.0, 1.0, 1.0, 0.0]
    for t, (a, f) in enumerate(zip([0, 0, 1, 0, 1], fb), start=1):
        s = p.update(s, t, np.array([a]), np.array([f]), None)
    # last 3 rounds: (1, 1.0), (0, 1.0), (1, 0.0)
    assert s.N.tolist() == [[1, 2]] and s.S.tolist() == [[1.0, 1.0]]


def test_corruption_inverse_is_clipped():
    c = Corruption.randomized_response([0.8], [0.7])  # g(x) = 0.2 + 0.5x, g([0,1]) = [0.2, 0.7]
    assert c.inverse_clipped(np.array([0.1])).tolist() == [0.0]
    assert c.inverse_clipped(np.array([0.95])).tolist() == [1.0]
    assert c.inverse_clipped(np.array([0.45]))[0] == pytest.approx(0.5)
    dec = Corruption.randomized_response([0.2], [0.3])  # slope −0.5: decreasing
    assert dec.direction.tolist() == [-1]
    mono = Corruption(functions=[lambda x: 0.1 + 0.8 * np.asarray(x) ** 2])
    assert mono.inverse_clipped(np.array([0.1 + 0.8 * 0.25]))[0] == pytest.approx(0.5, abs=1e-12)
    with pytest.raises(InvalidArgument):
        Corruption(functions=[lambda x: np.sin(6 * np.asarray(x)) * 0.5 + 0.5])


def test_policy_arguments():
    with pytest.raises(InvalidArgument):
        KLUCB(1)
    with pytest.raises(InvalidArgument):
        SWUCB(2, window=0)
    with pytest.raises(InvalidArgument):
        KLUCB(2).init(0)


def _mixed_corruption():
    # arm 1 has a decreasing g (p00 + p11 < 1): the lower kl bound is used there
    return Corruption.randomized_response([0.8, 0.3, 0.6], [0.75, 0.2, 0.9])


@pytest.mark.parametrize(
    "make",
    [lambda: KLUCBCF(_mixed_corruption()), lambda: KLUCB(3, 3.0), lambda: SWKLUCBCF(_mixed_corruption(), 30)],
    ids=["kl-ucb-cf", "kl-ucb", "sw"],
)
def test_tabulated_act_equals_row_act(make):
    """The (arm, N, S) table of _act_tabulated gives the same arm as solving run by run, on random integer
    states (ties included: many runs share N and S)."""
    from privcheck.policies import index as I

    policy = make()
    rng = np.random.default_rng(7)
    for _ in range(10):
        R, T = 12_000, int(rng.integers(2, 60))
        N = rng.integers(0, T, (R, 3)).astype(np.int64)
        S = np.floor(rng.random((R, 3)) * (N + 1))
        state = policy.init(1)._replace(N=N, S=S)
        u = rng.random(R)
        t = int(rng.integers(2, 500))
        a1, a2 = np.empty(R, dtype=np.int64), np.empty(R, dtype=np.int64)
        I._act_parallel(*policy._args(state, t), u, a1)
        width = I._tabulable(N, S)
        assert width == N.max() + 1
        I._act_tabulated(*policy._args(state, t), u, a2, width)
        assert np.array_equal(a1, a2)
    # non-integer sums, or too many states for the runs, are not tabulated
    assert I._tabulable(N, S + 0.5) == 0 and I._tabulable(N[:10], S[:10]) == 0


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): the per-state table is also checked kernel by kernel
def test_simulation_identical_with_and_without_the_table(monkeypatch):
    from privcheck.policies import Bernoulli, Schedule, simulate
    from privcheck.policies import index as I

    env = Bernoulli(Schedule([[0.9, 0.5, 0.7]]), _mixed_corruption())
    for policy in (KLUCBCF(_mixed_corruption()), SWKLUCBCF(_mixed_corruption(), 30)):
        a = simulate(env, policy, 120, 20_000, seed=4)
        monkeypatch.setattr(I, "_TABLE_MAX", 0)
        b = simulate(env, policy, 120, 20_000, seed=4)
        monkeypatch.undo()
        assert np.array_equal(a.final, b.final) and np.array_equal(a.pulls, b.pulls)
