"""Learned events (a classifier's score, thresholded) in the sampled search: they catch leaks the fixed families
cannot express, are certified like any other event, reproduce from the seed across workers, and never displace a
user's event that certifies more."""

import json

import numpy as np
import pytest

from privcheck import audit
from privcheck.audits.mechanism.learned import Features, _split_label, learned_statistics
from privcheck.core import InvalidArgument, PureDP, Unspecified


def _flip(bits, rng, size, keep):
    """Each of the 10 bits kept with probability ``keep`` (else flipped), as 'yes'/'no' symbols."""
    b = np.asarray(bits, dtype=bool)
    flip = rng.random((size, b.size)) >= keep
    return np.where(b ^ flip, "yes", "no")


def symbol_rr(x, rng, size):
    """Randomized response on each of 10 bits at ε = 0.2 per bit (keep probability e^0.2/(1 + e^0.2)), released
    as symbols: 2.0-DP for inputs differing in all 10 bits, claimed 1.0 — a planted bug only the count of
    'yes' (a classifier feature) exposes at this sample size; no coordinate alone certifies more than 0.2."""
    return _flip(x, rng, size, np.exp(0.2) / (1 + np.exp(0.2)))


def symbol_rr_correct(x, rng, size):
    """The same at ε = 0.1 per bit: 1.0-DP for inputs differing in all 10 bits, exactly the claim."""
    return _flip(x, rng, size, np.exp(0.1) / (1 + np.exp(0.1)))


_PAIR = [([1] * 10, [0] * 10)]
_CLAIM = PureDP(1.0, Unspecified())


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_leak_spread_over_symbols_is_refuted_by_a_learned_event():
    off = audit(symbol_rr, _CLAIM, pairs=_PAIR, method="sample", samples=50_000, seed=3, classifier="off")
    assert not off.violates_claim and off.epsilon_lower < 0.25
    r = audit(symbol_rr, _CLAIM, pairs=_PAIR, method="sample", samples=50_000, seed=3)  # auto
    assert r.violates_claim and r.epsilon_lower > 1.2
    assert "score of" in r.witness["event_text"]
    assert r.witness["event"]["statistic"].startswith("score of ")


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])
def test_the_correct_version_is_not_refuted(seed):
    r = audit(symbol_rr_correct, _CLAIM, pairs=_PAIR, method="sample", samples=50_000, seed=seed)
    assert not r.violates_claim and r.epsilon_lower <= 1.0


def ragged_svt(x, rng, size):
    """A sparse vector that answers '⊥' until the first query above a noisy threshold and then releases that
    query's noisy value and stops: ragged lists of symbols and one number.  The value's noise (scale 1) is far
    too small for the claimed ε = 0.5 (scale 4 would be needed)."""
    q = np.asarray(x, dtype=float)
    rho = rng.laplace(0, 4.0, size)
    out = []
    for r, nu, z in zip(rho, rng.laplace(0, 8.0, (size, q.size)), rng.laplace(0, 1.0, (size, q.size))):
        row = []
        for i in range(q.size):
            if q[i] + nu[i] >= 1.0 + r:
                row.append(float(q[i] + z[i]))
                break
            row.append("⊥")
        out.append(row)
    return out


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_ragged_symbol_lists_are_featurised_and_a_leaky_svt_is_refuted():
    r = audit(
        ragged_svt,
        PureDP(0.5, Unspecified()),
        pairs=[([1, 1, 1, 1, 1], [2, 0, 2, 0, 2])],
        method="sample",
        samples=10_000,
        seed=1,
        classifier="on",
    )
    assert r.violates_claim


@pytest.mark.slow  # slow tier: two classifier audits (workers on the fixed events: the default tier, test_execution)
def test_the_classifier_path_reproduces_across_workers():
    kw = dict(pairs=_PAIR, method="sample", samples=5_000, seed=11, classifier="on")
    r1 = audit(symbol_rr, _CLAIM, **kw)
    r2 = audit(symbol_rr, _CLAIM, workers=2, **kw)
    assert r1.witness == r2.witness and r1.epsilon_lower == r2.epsilon_lower


def test_classifier_mode_is_checked():
    with pytest.raises(InvalidArgument, match="classifier"):
        audit(symbol_rr, _CLAIM, pairs=_PAIR, method="sample", samples=1000, seed=0, classifier="maybe")


@pytest.mark.parametrize(
    "label, items",
    [
        ("('⊥', 1.5, None)", ["'⊥'", "1.5", "None"]),
        ("('a, b', (1, 2), 3)", ["'a, b'", "(1, 2)", "3"]),
        ("()", []),
        ("'x'", ["'x'"]),
    ],
)
def test_labels_split_at_top_level(label, items):
    assert _split_label(label) == items


def test_numeric_features_carry_the_bits_and_counts():
    rng = np.random.default_rng(0)
    a = rng.laplace(0, 1, (100, 3))
    f = Features.fit(a, a)
    X = f(a)
    assert X.shape == (100, 3 + 3 * 7) and np.isfinite(X).all()
    svt = rng.integers(-1, 2, (100, 4)).astype(float)
    g = Features.fit(svt, svt)
    assert g.values == (-1.0, 0.0, 1.0) and g(svt).shape == (100, 4 + 12 + 3)
    # extreme values stay finite
    assert np.isfinite(Features.fit(a, a)(np.full((2, 3), np.inf))).all()


def test_learned_statistics_need_something_to_learn():
    const = np.zeros((500, 3))
    assert learned_statistics(const, const, seed=0) == []


def test_a_score_depends_on_the_draw_alone_not_on_its_batch():
    # integer rows that repeat (scored once per distinct row) and rows that do not (floats): either way a row's
    # score is the same in any batch, so a threshold event is a fixed function of the output
    rng = np.random.default_rng(4)
    for a, b in (
        (rng.integers(-1, 2, (3000, 10)), rng.integers(-1, 2, (3000, 10)) + (rng.random((3000, 10)) < 0.1)),
        (rng.laplace(0, 1, (3000, 4)), rng.laplace(0.3, 1, (3000, 4))),
    ):
        for stat in learned_statistics(a, b, seed=1):
            whole = stat(b)
            parts = np.concatenate([stat(b[:7]), stat(b[7:1500]), stat(b[1500:])])
            singles = np.array([stat(b[i : i + 1])[0] for i in range(0, 3000, 299)])
            assert np.array_equal(whole, parts) and np.array_equal(whole[::299], singles), stat.describe()


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_forest_gives_scikit_learns_scores(seed):
    """Forest walks the fitted trees as scikit-learn's predictor does: the same doubles on fresh rows, NaNs and
    values exactly at the thresholds included (the sum in the same order)."""
    from privcheck.audits.mechanism.learned import Forest, _model

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4000, 5))
    X[:, 3] = rng.integers(0, 4, 4000)  # a discrete column: rows land exactly on thresholds
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(size=4000) > 0.7).astype(float)
    X[rng.random(X.shape) < 0.02] = np.nan
    model = _model("trees", seed).fit(X, y)  # the audits' trees, as scikit-learn fits them
    forest = Forest.of(model)
    fresh = rng.normal(size=(3000, 5))
    fresh[:, 3] = rng.integers(0, 4, 3000)
    fresh[rng.random(fresh.shape) < 0.05] = np.nan
    thresholds = np.unique(forest.threshold[~forest.leaf])
    fresh[:100, 0] = rng.choice(thresholds, 100)
    assert np.array_equal(forest.decision_function(fresh), model.decision_function(fresh))


_OFFSET = 3 * 10**15


def geometric_vector(offset: int):
    """Ten coordinates, each x_i + two-sided geometric noise at ε = 0.2, released as int64 at ``offset``: 2-DP for
    inputs apart in all ten coordinates, claimed 1."""

    def mech(x, rng, size):
        a = np.exp(-0.2)
        noise = rng.geometric(1 - a, (size, 10)) - rng.geometric(1 - a, (size, 10))
        return np.int64(offset) + np.asarray(x, dtype=np.int64) + noise

    return mech


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_large_integers_are_read_as_differences_so_an_offset_changes_nothing():
    """At 3·10¹⁵ the unit steps of int64 outputs vanish in float arithmetic (a mean over 50,000 draws rounds by
    more than the leak): the projection, the sign statistic and the learned features read them as differences from
    one draw's.  (The sign statistic was left out where the outputs were centred: the far audit certified 0.83
    where the near one certified 1.51.)"""
    kw = dict(pairs=[([1] * 10, [0] * 10)], method="sample", samples=50_000, seed=3, classifier="off")
    near = audit(geometric_vector(0), _CLAIM, **kw)
    far = audit(geometric_vector(_OFFSET), _CLAIM, **kw)
    assert far.epsilon_lower == pytest.approx(near.epsilon_lower, abs=0.02) and far.epsilon_lower > 0.7
    said = far.witness["event_text"]
    assert "<o − c, (" in said and "with c = (" in said or "Σ w·sign(o − c)" in said and " − (3000000000000" in said


def test_the_sign_statistic_of_large_integers_is_the_small_ones_moved():
    """The sign statistic reads large integers as differences from one draw's, so that moving every output by
    3·10¹⁵ moves its cuts with them and leaves its values (it was left out where outputs were centred)."""
    from privcheck.audits.mechanism.events import statistics_for

    rng = np.random.default_rng(2)
    a = rng.geometric(0.3, size=(4000, 6)) + 1  # x′'s side one unit lower on every coordinate
    b = rng.geometric(0.3, size=(4000, 6))
    signs = lambda o: next(s for s in statistics_for(o + 0, b + (o[0, 0] - a[0, 0])) if s.kind == "signs")  # noqa: E731
    near, far = signs(a), signs(a + _OFFSET)
    assert not near.centre and far.centre == tuple(int(v) for v in a[0] + _OFFSET)
    assert np.allclose(near(a), far(a + _OFFSET), rtol=1e-12) and np.allclose(near(b), far(b + _OFFSET), rtol=1e-12)
    assert np.allclose(near.weights, far.weights, rtol=1e-12)  # (the means of the differences, rounded otherwise)
    assert np.array_equal(np.add(far.centre, far.cuts) - _OFFSET, near.cuts) and " − (3000000000000" in far.describe()


def test_a_statistic_of_many_values_is_not_fitted_by_a_set_of_them():
    """The user's statistic, the sum of the ten coordinates, takes a few hundred values: a set of them ordered on the
    draws it was scored on looked best in selection and certified ε ≥ 0.37 on this seed where a threshold on the same
    sum certifies 0.85 (the sets are now ordered on half the selection draws and counted on the other half)."""
    kw = dict(pairs=[([1] * 10, [0] * 10)], method="sample", samples=50_000, seed=6, classifier="off")
    r = audit(geometric_vector(0), _CLAIM, event=lambda o: o.sum(axis=1), **kw)
    assert r.epsilon_lower > 0.75, (r.epsilon_lower, r.witness["event_text"])


def test_learned_features_keep_large_integers_and_extreme_values():
    rng = np.random.default_rng(0)
    a = geometric_vector(_OFFSET)([1] * 10, rng, 2000)
    b = geometric_vector(_OFFSET)([0] * 10, rng, 2000)
    feats = Features.fit(a, b)
    X = feats(a)[:, :10]
    assert feats.centre == tuple(int(v) for v in a[0]) and (X == (a - a[0]).astype(float)).all()
    assert learned_statistics(a, b, 0, models=("trees",))  # features that vary: something to learn
    from privcheck.audits.mechanism.learned import _value

    v = _value(np.array([-np.inf, -1e300, -2e12, 5.0, 2e12, 1e300, np.inf, np.nan]))
    assert np.isfinite(v).all() and (np.diff(v[:7]) > 0).all() and v[3] == 5.0 and v[7] == 0.0


def test_outputs_on_a_grid_are_read_by_their_values_and_float_samplers_by_their_bits():
    """The grid rule: the built-in exact samplers' outputs lie on 2^k·ℤ with spare low bits (the classifiers get
    their values only); a float sampler's, at float64 or cast from float32, do not; nor do infinities,
    subnormals or zeros alone."""
    from privcheck.mechanisms.gaussian import GridGaussian
    from privcheck.mechanisms.laplace import GridLaplace
    from privcheck.audits.mechanism.events import grid_exponent

    rng = np.random.default_rng(0)
    lap = GridLaplace(1.0)
    a, b = lap.sample(0.0, rng, 20_000), lap.sample(1.0, rng, 20_000)
    assert grid_exponent(a, b) == round(np.log2(lap.grid))
    feats = Features.fit(a, b)
    assert (feats.grid, feats.mantissa) == (round(np.log2(lap.grid)), 0) and "on the grid" in feats.describe()
    assert feats(a).shape == (20_000, 1)
    g = GridGaussian(2**20, 2.0**-20)
    assert grid_exponent(g.sample(0.0, rng, 5000), g.sample(1.0, rng, 5000)) is not None
    floats = rng.laplace(0, 1, 20_000)
    assert grid_exponent(floats) is None and Features.fit(floats, floats).mantissa == 52
    single = rng.normal(size=20_000).astype(np.float32).astype(np.float64)  # float32 results cast to double
    assert grid_exponent(single) is None and Features.fit(single, single).mantissa == 23
    assert grid_exponent(single.astype(np.float32)) is None
    for odd in (np.array([0.0, 1.0, np.inf]), np.zeros(10), np.array([5e-324, 1.0]), np.arange(10)):
        assert grid_exponent(odd) is None
    assert grid_exponent(np.array([0.5, -3.0, 7.25])) == -2  # quarters, far from the mantissa's end


def test_a_forest_on_one_feature_is_scored_by_its_steps():
    """Trees whose splits all read one feature give a step function of it: looked up by bisection, the same doubles
    as scikit-learn's at the thresholds, beyond every one and between; a NaN still goes where its node says."""
    from privcheck.audits.mechanism.learned import Forest, _model

    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=6000), np.zeros(6000)])
    y = (np.sin(3 * X[:, 0]) + rng.normal(size=6000) > 0).astype(float)
    model = _model("trees", 1).fit(X, y)
    forest = Forest.of(model)
    j, breaks, table = forest.steps
    assert j == 0 and table.size == breaks.size + 1
    fresh = np.column_stack([rng.normal(size=9000) * 3, np.zeros(9000)])
    fresh[:200, 0] = rng.choice(breaks, 200)
    fresh[200:210, 0] = [np.inf, -np.inf, 1e300, -1e300, 0.0, -0.0, breaks[0], breaks[-1], 1e-300, -1e-300]
    assert np.array_equal(forest.decision_function(fresh), model.decision_function(fresh))
    fresh[5, 0] = np.nan
    assert np.array_equal(forest.decision_function(fresh), model.decision_function(fresh))
    for rows in (100, 9000):  # walked in numpy, and by the compiled loop
        for walk in (forest._walk_levels, forest._walk_compiled):
            assert np.array_equal(walk(fresh[:rows]), model.decision_function(fresh[:rows]))


def test_a_forest_is_walked_in_numpy_while_the_compiled_loop_is_cold_within_a_budget(monkeypatch):
    """While the compiled walk has not run in this process, a call of up to COLD_ROWS rows is walked in numpy (its
    first call loads numba) — until such calls have walked COLD_BUDGET rows together; then, or once it is warm,
    only calls of up to FEW_ROWS rows are."""
    from privcheck.audits.mechanism import learned

    ways = []
    monkeypatch.setattr(learned.Forest, "_walk_levels", lambda self, X: ways.append("numpy"))
    monkeypatch.setattr(learned.Forest, "_walk_compiled", lambda self, X: ways.append("compiled"))
    monkeypatch.setattr(learned, "_cold", [0])
    monkeypatch.setattr(learned, "COLD_ROWS", 10_000)
    monkeypatch.setattr(learned, "COLD_BUDGET", 25_000)
    kernel = learned._forest_scores
    monkeypatch.setattr(kernel, "_warm", False)
    forest = object.__new__(learned.Forest)
    for rows in (10_000, 10_001, 4096, 10_000, 5000, 5000, 100):
        forest._walk(np.zeros((rows, 1)))
    assert ways == ["numpy", "compiled", "numpy", "numpy", "numpy", "compiled", "numpy"]
    assert learned._cold == [25_000]  # (the calls of FEW_ROWS or fewer not counted)
    monkeypatch.setattr(kernel, "_warm", True)
    ways.clear()
    for rows in (5000, 4096):
        forest._walk(np.zeros((rows, 1)))
    assert ways == ["compiled", "numpy"]


def test_a_learned_event_no_better_than_the_fixed_one_takes_none_of_the_failure_probability():
    """The grid Laplace: the learned event (on its values: the grid rule, said in a note) is no better than the
    threshold on draws neither was chosen on, so only the threshold is certified and the bound is the one without
    the classifiers, to the last digit."""
    from privcheck.mechanisms.laplace import GridLaplace

    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=300_000, seed=2)
    on = audit(GridLaplace(1.0), **kw)
    off = audit(GridLaplace(1.0), classifier="off", **kw)
    assert on.epsilon_lower == off.epsilon_lower and on.candidates_certified == 1
    assert any("read the values only" in n and "2^-20" in n for n in on.notes)
    assert not any("values only" in n for n in off.notes)


def _band(x, rng, size):
    """A grid Laplace (ε = 1) whose leak lives in a band: on x = 1, a tenth of the draws are moved to a uniform point
    of [2, 2.5) on the same grid — 1.35- to 1.75-DP across the band, but no threshold sees more than about 0.9 (the
    band's excess is diluted by the tail beyond it)."""
    from privcheck.mechanisms.laplace import GridLaplace

    out = np.asarray(GridLaplace(1.0).sample(0.0, rng, size), dtype=float)
    if x == 1.0:
        hit = rng.random(size) < 0.1
        out[hit] = (rng.integers(0, 2**19, int(hit.sum())) + 2**21) * 2.0**-20
    return out


def test_a_band_on_a_scalar_is_refuted_by_the_trees_fitted_without_the_library():
    """One feature (a grid scalar's value): the boosted trees are fitted here, on its cells (:class:`Steps`), and find
    the band the thresholds cannot; with the classifiers off the audit does not refute."""
    kw = dict(pairs=[(1.0, 0.0)], method="sample", samples=50_000, seed=1)
    on = audit(_band, _CLAIM, **kw)
    off = audit(_band, _CLAIM, classifier="off", **kw)
    assert on.violates_claim and on.epsilon_lower > 1.2, (on.epsilon_lower, on.witness["event_text"])
    assert "score of trees on values on the grid 2^-20" in on.witness["event_text"]
    assert not off.violates_claim and off.epsilon_lower < 1.0


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_trees_on_one_feature_order_its_cells_as_scikit_learns_do():
    """Boosting on one feature's cells against scikit-learn's trees on the same draws (a likelihood ratio that rises
    and falls): a step function of the value, constant on each cell, whose scores on fresh draws rank like
    scikit-learn's (Spearman ≥ 0.95) and tell the sides apart as well (AUC within 0.01); and on draws alike on both
    sides, spread as much as scikit-learn's by fitting the noise (their standard deviations within 20 %)."""
    from scipy.stats import rankdata, spearmanr

    from privcheck.audits.mechanism.learned import Steps, _model

    rng = np.random.default_rng(4)

    def draws(n):
        x = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * np.sin(2 * x)))).astype(float)
        return x, y

    x, y = draws(20_000)
    ours = Steps.fit(x, y)
    theirs = _model("trees", 1).fit(x[:, None], y)
    fresh, label = draws(20_000)
    a, b = ours.decision_function(fresh[:, None]), theirs.decision_function(fresh[:, None])
    assert spearmanr(a, b).statistic >= 0.95

    def auc(s):
        r = rankdata(s)
        k = int(label.sum())
        return (r[label == 1].sum() - k * (k + 1) / 2) / (k * (label.size - k))

    assert abs(auc(a) - auc(b)) < 0.01 and auc(a) > 0.6
    cells = np.searchsorted(ours.breaks, fresh, side="left")
    assert all(np.unique(a[cells == c]).size == 1 for c in np.unique(cells)[:50])
    noise = (rng.random(x.size) < 0.5).astype(float)
    spread = [
        np.std(m.decision_function(x[:, None]))
        for m in (Steps.fit(x, noise), _model("trees", 1).fit(x[:, None], noise))
    ]
    assert 0.8 < spread[0] / spread[1] < 1.2, spread


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_grid_scalar_s_audit_does_not_import_the_classifiers_library():
    """The cheap case: on a grid scalar the classifiers see one feature, so neither the prefetch nor the fit imports
    scikit-learn (in a fresh process, the import cost more than the rest of the learned events); a float sampler's
    values and bits still use it (sampled in full: its quick stage of 312 draws, too few to train on, refutes it by a
    bit window)."""
    import subprocess
    import sys

    code = (
        "import sys; from privcheck import audit; from privcheck.mechanisms import laplace; "
        "kw = dict(pairs=[(0.0, 1.0)], method='sample', samples=20_000, seed=1); "
        "r = audit(laplace.GridLaplace(1.0), **kw); print('sklearn' in sys.modules, r.extra['classifier']); "
        "r = audit(laplace.Laplace(1.0), full_budget=True, **kw); "
        "print('sklearn' in sys.modules, r.extra['classifier'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "auto", "True", "auto"], out


def test_outputs_that_give_no_candidate_event_are_audited_not_crashed():
    """Every output a distinct string, too few draws for the classifiers: no candidate event can be formed; the empty
    event is certified (ε ≥ 0), the report says why — this crashed the certification's counting before."""

    def unique(x, rng, size):
        return np.array([f"{x}:{v!r}" for v in rng.random(size)])

    r = audit(unique, PureDP(0.5, Unspecified()), pairs=[(0, 1)], method="sample", samples=300, seed=1)
    assert not r.violates_claim and r.epsilon_lower == 0
    assert any(n.startswith("no candidate event could be formed on the selection draws") for n in r.notes)
    assert "{} (no event could be formed" in str(r) and json.loads(r.to_json())["witness"]["event"] == {"kind": "empty"}
