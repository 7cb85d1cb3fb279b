"""The compiled simulation loop (policies._fastloop) against the numba path, and the deferred start of numba."""

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck.policies import (
    KLUCB,
    KLUCBCF,
    SWKLUCBCF,
    UCB1,
    UCBCF,
    Bernoulli,
    Corruption,
    Gaussian,
    Schedule,
    ThompsonSampling,
    fastloop,
    simulate,
)
from privcheck.policies.kl import kl_upper, upper_bound_cheap

RR1 = 1 / (1 + np.exp(-1.0))


def both_paths(env, policy, horizon, runs, seed, monkeypatch):
    fast = simulate(env, policy, horizon, runs, seed)
    with monkeypatch.context() as m:
        m.setattr(fastloop, "_ext", None)
        slow = simulate(env, policy, horizon, runs, seed)
    return fast, slow


def assert_same(fast, slow):
    assert np.array_equal(fast.regret, slow.regret)
    assert np.array_equal(fast.pulls, slow.pulls)


def test_extension_is_built():
    """CI installs with a C compiler: a build that silently failed would leave only the slow path."""
    assert fastloop.compiled()


CASES = {
    "kl-ucb spread": (Bernoulli(Schedule([np.linspace(0.1, 0.9, 10)])), KLUCB(10), 3000, 10),
    "ucb1": (Bernoulli(Schedule([np.linspace(0.1, 0.9, 10)])), UCB1(10), 3000, 10),
    "kl-ucb-cf behind RR(1)": (
        Bernoulli(Schedule([[0.9] + [0.8] * 9]), Corruption.randomized_response([RR1] * 10, [RR1] * 10)),
        KLUCBCF(Corruption.randomized_response([RR1] * 10, [RR1] * 10)),
        3000,
        10,
    ),
    "decreasing g, piecewise, c = 3": (
        Bernoulli(
            Schedule([[0.5, 0.6, 0.4], [0.7, 0.2, 0.1]], horizon=2000),
            Corruption.randomized_response([0.2, 0.3, 0.7], [0.3, 0.2, 0.9]),
        ),
        KLUCBCF(Corruption.randomized_response([0.2, 0.3, 0.7], [0.3, 0.2, 0.9]), exploration=3.0),
        2000,
        20,
    ),
    "ucb-cf decreasing g": (
        Bernoulli(Schedule([[0.5, 0.6, 0.4]]), Corruption.randomized_response([0.2, 0.3, 0.7], [0.3, 0.2, 0.9])),
        UCBCF(Corruption.randomized_response([0.2, 0.3, 0.7], [0.3, 0.2, 0.9])),
        2000,
        20,
    ),
    "all tied": (Bernoulli(Schedule([[0.5, 0.5, 0.5]])), KLUCB(3), 1000, 30),
    "means 0 and 1": (Bernoulli(Schedule([[0.0, 1.0, 1.0]])), KLUCB(3), 1000, 30),
    "many runs": (
        Bernoulli(Schedule([[0.9, 0.8]]), Corruption.randomized_response([RR1] * 2, [RR1] * 2)),
        KLUCBCF(Corruption.randomized_response([RR1] * 2, [RR1] * 2)),
        60,
        4095,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_loop_equals_numba_path(case, monkeypatch):
    env, policy, horizon, runs = CASES[case]
    assert fastloop.block_runner(env, policy, runs) is not None
    assert_same(*both_paths(env, policy, horizon, runs, 7, monkeypatch))


@settings(max_examples=15, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(0, 2**31),
    st.sampled_from(["kl", "hoeffding"]),
    st.booleans(),
    st.sampled_from([0.0, 3.0]),
)
def test_compiled_loop_equals_numba_path_random(k, seed, rule, corrupt, c):
    rng = np.random.default_rng(seed)
    means = np.round(rng.random(k), 1)  # rounded: ties between arms happen
    corruption = None
    if corrupt:
        p00, p11 = rng.uniform(0.05, 0.95, k), rng.uniform(0.05, 0.95, k)
        corruption = Corruption.randomized_response(p00, p11)
    env = Bernoulli(Schedule([means]), corruption)
    from privcheck.policies import IndexPolicy

    policy = IndexPolicy(k, rule, log_coef=1.0 if rule == "kl" else 4.0, exploration=c, corruption=corruption)
    fast = simulate(env, policy, 400, 6, seed)
    saved = fastloop._ext
    fastloop._ext = None
    try:
        slow = simulate(env, policy, 400, 6, seed)
    finally:
        fastloop._ext = saved
    assert_same(fast, slow)


def test_pairs_not_covered_take_the_general_path():
    c = Corruption.randomized_response([RR1] * 2, [RR1] * 2)
    env = Bernoulli(Schedule([[0.9, 0.8]]), c)
    assert fastloop.block_runner(env, KLUCBCF(c), 10) is not None
    assert fastloop.block_runner(env, KLUCBCF(c), 4096) is None  # wide: numba's threads and table
    assert fastloop.block_runner(env, SWKLUCBCF(c, window=50), 10) is None  # sliding window
    assert fastloop.block_runner(env, ThompsonSampling(2), 10) is None
    assert fastloop.block_runner(Gaussian(Schedule([[0.9, 0.8]])), KLUCB(2), 10) is None
    g = Corruption(functions=[lambda x: 0.1 + 0.8 * x**2] * 2)  # monotone, not affine
    assert fastloop.block_runner(Bernoulli(Schedule([[0.9, 0.8]]), g), KLUCBCF(g), 10) is None
    res = simulate(env, SWKLUCBCF(c, window=50), 200, 4, 1)
    assert res.regret.shape[1] == 4


def test_bad_buffers_are_refused_not_read():
    ext = fastloop._ext
    R, K, L = 3, 2, 4
    N, S = np.zeros((R, K), np.int64), np.zeros((R, K))
    args = [
        0,
        1.0,
        0.0,
        np.ones(K, np.int64),
        False,
        np.zeros(K),
        np.ones(K),
        False,
        np.zeros(K),
        np.ones(K),
        N,
        S,
        np.zeros((R, L, 2)),
        np.zeros((R, L, 1)),
        1,
        np.zeros((L, K)),
        np.zeros((L, K)),
        np.zeros(R),
        np.zeros((R, K), np.int64),
        0,
        np.array([1, 2], np.int64),
        np.zeros((2, R)),
        0,
        np.zeros((R, K)),
        np.zeros((R, K)),
        np.full((R, K), -1, np.int64),
    ]
    assert ext.index_bernoulli_block(*args) == 2  # rounds 1..4 pass both checkpoints
    bad = list(args)
    bad[12] = np.zeros((R, L, 1))  # noise with one column instead of two
    with pytest.raises(ValueError):
        ext.index_bernoulli_block(*bad)
    bad = list(args)
    bad[10] = np.zeros((R, K + 1), np.int64)
    with pytest.raises(ValueError, match="N: dimension 1"):
        ext.index_bernoulli_block(*bad)
    # the same byte length, the wrong dtype or shape: refused before anything is read
    for i, arr, why in [
        (10, np.zeros((R, 2 * K), np.int32), "N: expected int64"),
        (11, np.zeros((R, K), np.float32), None),
        (11, np.zeros((K, R)), "S: dimension 0"),
        (12, np.zeros((R, 2, L)), "noise"),
        (15, np.zeros(L * K), "mu: expected 2 dimensions"),
        (18, np.zeros((R, K)), "pulls: expected int64"),
        (10, np.zeros((K, R), np.int64).T, "N: expected a C-contiguous writable"),
        (17, np.zeros(R).view(np.int64), "regret: expected float64"),
    ]:
        bad = list(args)
        bad[i] = arr
        with pytest.raises(ValueError, match=why):
            ext.index_bernoulli_block(*bad)
    frozen = np.zeros((R, K), np.int64)
    frozen.flags.writeable = False
    bad = list(args)
    bad[10] = frozen
    with pytest.raises(ValueError, match="writable"):
        ext.index_bernoulli_block(*bad)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@settings(max_examples=300, deadline=None)
@given(st.one_of(st.floats(0, 1), st.floats(0, 1e-6), st.floats(1 - 1e-6, 1)), st.floats(1e-12, 50.0))
def test_cheap_kl_bound_is_above_the_solved_bound(p, lev):
    u = kl_upper(p, lev)
    c = upper_bound_cheap(p, lev)
    assert c >= u
    assert c <= min(p + np.sqrt(lev / 2) + 1e-9, 1.0) + 1e-15  # never looser than Pinsker


def test_numba_is_not_loaded_by_a_compiled_regret_command():
    code = (
        "import sys, io, contextlib\n"
        "from privcheck.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = main(['regret', '--env', 'bernoulli', '--means', '0.2,0.5,0.8', '--policies', 'kl-ucb,ucb1',"
        " '--horizon', '500', '--runs', '3', '--seed', '1'])\n"
        "assert rc in (0, None), rc\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_deferred_kernels_start_numba_on_first_call():
    code = (
        "import sys\n"
        "import policies, mechanisms\n"
        "assert 'numba' not in sys.modules\n"
        "import numpy as np\n"
        "from policies import KLUCB\n"
        "p = KLUCB(2)\n"
        "p.act(p.init(5000), 1, np.full(5000, 0.5))\n"
        "assert 'numba' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


@pytest.mark.slow
def test_kernels_calling_kernels_compile_from_a_cold_cache(tmp_path):
    # a fresh numba cache, so that the kernels are typed and compiled here (≈ 5 s): a kernel calling a kernel
    # compiles against the callee's dispatcher, and the parallel kernel's prange loops become parfors
    code = (
        "import numpy as np\n"
        "from policies import KLUCB, index\n"
        "from privcheck.core import jit\n"
        "p = KLUCB(2)\n"
        "p.act(p.init(5000), 1, np.full(5000, 0.5))\n"  # the tabulated parallel kernel
        "import numba\n"
        "assert index.prange is jit.prange\n"  # nothing patched
        "assert isinstance(index._index_ns, jit.Deferred)\n"
        "assert isinstance(index._index_ns._dispatcher, numba.core.registry.CPUDispatcher)\n"
        "d = index._act_tabulated._dispatcher\n"
        "assert d.get_metadata(d.signatures[0])['parfor_diagnostics'].count_parfors() >= 3\n"
        "from mechanisms import tree\n"
        "assert isinstance(tree._insert.dispatcher(), numba.core.registry.CPUDispatcher)\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
