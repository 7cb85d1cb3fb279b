"""The pytest plugin (pytest_privcheck), tested with pytest's own pytester: a correct mechanism passes, a planted
bug fails with its witness and the command that reproduces it, reports are reproducible, settings come from the
command line or pyproject.toml, the false-alarm budget is split by a rule that ignores order and process."""

import contextlib
import io
import json
import math
from pathlib import Path

import pytest

from commit_policy import COMMIT  # tests/support
from privcheck.cli import main

MECHS = """
import numpy as np
from privcheck import PureDP, ReplaceOne
from privcheck.mechanisms.laplace import GridLaplace

CLAIM = PureDP(1.0, ReplaceOne("l1", 1.0))
noisy_count = GridLaplace(epsilon=1.0)


def half_noise(x, rng, size):
    return x + rng.laplace(0.0, 0.5, size)
"""

TESTS = (
    MECHS
    + """

def test_noisy_count(privcheck):
    privcheck.assert_private(noisy_count, CLAIM, pairs=[(0.0, 1.0)], method="sample")


def test_planted_bug_is_caught(privcheck):
    privcheck.assert_refuted(half_noise, CLAIM, pairs=[(0.0, 1.0)])
    privcheck.assert_refuted(half_noise, CLAIM, pairs=[(1.0, 0.0)])
"""
)


@pytest.fixture(autouse=True, scope="module")
def _imported_before_the_inner_runs():
    """pytester removes the modules an inline run imported; numpy's and scipy's extensions cannot be imported
    twice in one process, so everything the inner audits import lazily is imported here first."""
    import hypothesis  # noqa: F401
    import numpy as np

    from privcheck.mechanisms.laplace import GridLaplace
    from privcheck import PureDP, ReplaceOne, audit

    claim = PureDP(1.0, ReplaceOne("l1", 1.0))
    audit(GridLaplace(epsilon=1.0), claim, pairs=[(0.0, 1.0)], method="sample", samples=2000, seed=0)
    audit(lambda x, rng, size: x + rng.laplace(0, 1.0, size), claim, pairs=[(0.0, 1.0)], samples=2000, seed=0)
    np.fft.fft(np.ones(2))
    from privcheck import audit_policy

    class Idle:  # a policy audit's modules (the sequential protocol, the input search, the summaries) too
        def act(self, t):
            return 0

        def update(self, t, arm, reward):
            pass

    audit_policy(lambda: Idle(), claim, "table", arms=2, horizon=4, samples=200, screening=100, seed=0)


def _records(path):
    out = json.loads(path.read_text())
    for r in out:
        r.pop("seconds"), r.pop("versions")
    return out


def test_a_correct_mechanism_passes_and_a_planted_bug_is_caught(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000")
    res.assert_outcomes(passed=2)
    res.stdout.fnmatch_lines(
        [
            "*= privcheck =*",
            "*test_noisy_count*not refuted*20,000*",
            "*test_planted_bug_is_caught*refuted*",
            "3 audits; false-alarm probability used *",
        ]
    )


POLICIES = (
    "from privcheck import PureDP\n"
    + COMMIT
    + """

def test_my_bandit(privcheck):
    privcheck.assert_private(make, PureDP(1.0), definition="table", arms=2, horizon=8)


def test_its_planted_bug(privcheck):
    privcheck.assert_refuted(make_small_noise, PureDP(1.0), definition="table", arms=2, horizon=8)
"""
)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_policy_factory_is_audited_by_the_fixture(pytester):
    pytester.makepyfile(test_my_bandits=POLICIES)
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-policy-samples", "3000")
    res.assert_outcomes(passed=2)
    res.stdout.fnmatch_lines(  # the planted bug stopped at the quick stage (3,000 / 16), the correct one ran on
        ["*test_its_planted_bug*make_small_noise*refuted*187*", "*test_my_bandit*not refuted*3,000*", "2 audits; *"]
    )


def test_a_refuted_claim_fails_with_its_witness_and_the_command(pytester):
    pytester.makepyfile(
        test_bad=MECHS
        + """

def test_wrong(privcheck):
    privcheck.assert_private(half_noise, CLAIM, pairs=[(0.0, 1.0)])


def test_missed(privcheck):
    privcheck.assert_refuted(noisy_count, CLAIM, pairs=[(0.0, 1.0)], method="sample")
"""
    )
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000")
    res.assert_outcomes(failed=2)
    res.stdout.fnmatch_lines(
        [
            "*privacy claim refuted: half_noise*(seed *)",
            "*is REFUTED.*",
            "*Witness: x = *",
            "*Reproduce: privcheck audit test_bad.py:half_noise --epsilon 1.0 --neighbours "
            "replace-l1 --sensitivity 1.0 --pair 0.0 1.0 --method sample --samples 20000 "
            "--confidence 0.99999* --seed *",
            "*privacy claim not refuted (expected a refutation)*",
        ]
    )


def test_the_reproduce_line_reproduces(pytester):
    pytester.makepyfile(
        test_bad=MECHS
        + """

def test_wrong(privcheck):
    privcheck.assert_private(half_noise, CLAIM, pairs=[(0.0, 1.0)])
"""
    )
    report = pytester.path / "audits.json"
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-report", str(report))
    (rec,) = json.loads(report.read_text())
    argv = rec["command"].split()[1:]
    argv[1] = str(pytester.path / argv[1])  # the file, from this test's directory
    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # the command, run in this process
        code = main([*argv, "--json"])
    again = json.loads(out.getvalue())
    assert code == 1 and again["epsilon_lower"] == rec["epsilon_lower"] and again["witness"] == rec["witness"]


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_reports_are_identical_across_reruns_and_seeds_follow_the_base_seed(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    a, b, c = (pytester.path / f"{n}.json" for n in "abc")
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-report", str(a))
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-report", str(b))
    pytester.runpytest(
        "-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-report", str(c), "--privcheck-seed", "7"
    )
    ra, rb, rc = _records(a), _records(b), _records(c)
    assert ra == rb and len(ra) == 3
    assert [r["seed"] for r in ra] != [r["seed"] for r in rc]
    assert {r["nodeid"] for r in ra} == {"test_mechs.py::test_noisy_count", "test_mechs.py::test_planted_bug_is_caught"}


def test_the_budget_is_split_over_tests_and_audits(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    path = pytester.path / "r.json"
    pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--privcheck-samples",
        "20000",
        "--privcheck-false-alarm",
        "0.01",
        "--privcheck-report",
        str(path),
    )
    recs = _records(path)
    base = 6 / math.pi**2 / 2  # two tests use the fixture; the first audit of each gets 6/π² of its half
    by_test = {}
    for r in recs:
        by_test.setdefault(r["nodeid"], []).append(r["confidence_share"])
    assert sorted(by_test["test_mechs.py::test_noisy_count"]) == [pytest.approx(base)]
    assert sorted(by_test["test_mechs.py::test_planted_bug_is_caught"]) == [
        pytest.approx(base / 4),
        pytest.approx(base),
    ]
    for r in recs:
        assert r["confidence"] == pytest.approx(1 - 0.01 * r["confidence_share"], abs=1e-15)
    assert sum(r["false_alarm_used"] for r in recs) <= 0.01


@pytest.mark.slow  # 7 s of subprocesses; the default tier keeps the seeds' derivation from node ids and arguments
def test_xdist_workers_give_the_same_records(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    one, two = pytester.path / "one.json", pytester.path / "two.json"
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-report", str(one))
    res = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--privcheck-samples", "20000", "--privcheck-report", str(two)
    )
    res.assert_outcomes(passed=2)
    res.stdout.fnmatch_lines(["*= privcheck =*", "3 audits; *"])
    assert _records(one) == _records(two)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_pyproject_settings_are_read_and_the_command_line_wins(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    pytester.makefile(".toml", pyproject='[tool.privcheck]\nsamples = 5000\nseed = 3\n"false-alarm" = 0.001\n')
    path = pytester.path / "r.json"
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-report", str(path))
    recs = _records(path)
    planned = lambda r, n: f"--samples {n} " in r["command"] or f"samples={n}," in r["command"]  # noqa: E731
    assert all(planned(r, 5000) for r in recs)  # (a refuted one may stop before: --stop-early)
    assert {r["samples_per_side"] for r in recs if not r["violates_claim"]} == {5000}
    assert sum(r["false_alarm_used"] for r in recs) <= 0.001
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-report", str(path), "--privcheck-samples", "6000")
    assert all(planned(r, 6000) for r in _records(path))


def test_bad_settings_are_usage_errors(pytester):
    pytester.makepyfile(test_mechs=TESTS)
    pytester.makefile(".toml", pyproject="[tool.privcheck]\nsampels = 5000\n")
    res = pytester.runpytest("-p", "no:cacheprovider")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*'sampels' is not one of samples, policy-samples, false-alarm, seed, slow*"])
    (pytester.path / "pyproject.toml").unlink()
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-false-alarm", "2")
    assert res.ret == pytest.ExitCode.USAGE_ERROR


def test_the_slow_tier_is_skipped_unless_asked(pytester):
    pytester.makepyfile(
        test_mechs=MECHS
        + """
import pytest


@pytest.mark.privcheck_slow
def test_big(privcheck):
    privcheck.assert_private(noisy_count, CLAIM, pairs=[(0.0, 1.0)], method="sample")
"""
    )
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000").assert_outcomes(skipped=1)
    pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000", "--privcheck-slow").assert_outcomes(
        passed=1
    )


@pytest.mark.slow  # (a pytester run of a hypothesis search: 5 s)
def test_hypothesis_examples_get_their_own_seeds_and_a_shrunk_failure_reproduces(pytester):
    pytester.makepyfile(
        test_hyp=MECHS
        + """
from hypothesis import given, settings, strategies as st


def scaled(x, rng, size):
    return x + rng.integers(0, 2, size)  # x or x + 1: the two inputs' outputs overlap in one value only


@settings(max_examples=8, deadline=None, database=None)
@given(st.floats(0.5, 4.0))
def test_a_coin_is_not_eps_private(privcheck, eps):
    # {x} has mass 1/2 under x and 0 under x + 1: every claim fails, every example, every shrink
    privcheck.assert_private(scaled, PureDP(eps, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)])
"""
    )
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "20000")
    res.assert_outcomes(failed=1)  # one shrunk failure, replayed with its own seed: no Flaky error
    res.stdout.fnmatch_lines(
        ["*privacy claim refuted: scaled*(seed *)", "*Reproduce: privcheck audit test_hyp.py:scaled*"]
    )
    res.stdout.no_fnmatch_line("*Flaky*")


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_plugin_costs_nothing_when_unused(pytester):
    pytester.makepyfile(
        test_plain="""
import sys

def test_nothing_imported():
    assert "privcheck" not in sys.modules and "numpy" not in sys.modules
"""
    )
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly")
    res.assert_outcomes(passed=1)


def test_the_readme_example_runs(pytester):
    example = (Path(__file__).resolve().parents[2] / "examples" / "test_privacy.py").read_text()
    pytester.makepyfile(test_privacy=example)
    res = pytester.runpytest("-p", "no:cacheprovider", "--privcheck-samples", "50000")
    res.assert_outcomes(passed=2)


def test_assert_private_has_one_set_of_defaults():
    """The plugin restates privcheck.testing's defaults (it may not import privcheck before a test uses it)."""
    import pytest_privcheck
    from privcheck import testing

    plugin = pytest_privcheck
    assert (plugin.DEFAULT_SAMPLES, plugin.DEFAULT_POLICY_SAMPLES, plugin.DEFAULT_FALSE_ALARM, plugin.DEFAULT_SEED) == (
        testing.TEST_SAMPLES,
        testing.TEST_POLICY_SAMPLES,
        testing.TEST_FALSE_ALARM,
        testing.TEST_SEED,
    )
