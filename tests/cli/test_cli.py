"""`privcheck audit` / `privcheck list` end to end: verdicts, JSON, exit codes, every bad-input case."""

import json
import re
import subprocess
import sys
import textwrap

import pytest

import privcheck


@pytest.fixture
def usermod(tmp_path):
    p = tmp_path / "mymech.py"
    p.write_text(
        textwrap.dedent("""
        import numpy as np
        from privcheck.mechanisms.exact_sampling import discrete_laplace
        G = 2.0 ** -10  # a grid: a float Laplace (rng.laplace) is not DP at all (Mironov), and privcheck shows it
        def noisy_sum(x, rng, size):  # sensitivity 1: (1/G + 1)/2050 steps <= 0.5
            return (np.rint(np.sum(x) / G) + discrete_laplace(rng, 2050, size)) * G
        def noisy_sum_buggy(x, rng, size):
            return np.sum(x) + rng.laplace(0, 0.5, size)
        def one_at_a_time(x, rng):
            return float(noisy_sum(x, rng, 1)[0])
        def wrong_shape(x, rng, size):
            return np.zeros(3)
        def boom(x, rng, size):
            raise RuntimeError("boom")
        def nan(x, rng, size):
            return np.full(size, np.nan)
        def mixed(x, rng, size):
            return [1.0] * (size - 1) + ["a"]
        def ragged(x, rng, size):
            return [[1.0]] * (size - 1) + [[1.0, 2.0]]
        def strings_then_numbers(x, rng, size):
            return np.full(size, "a") if size > 10000 else np.zeros(size)
        def above_five(out):
            return out > 5.0
        NOT_CALLABLE = 3
    """)
    )
    return p


def test_builtin_exact_verdict_and_json(run):
    code, out, err = run("audit", "laplace", "--epsilon", "1")
    assert code == 0 and "not refuted" in out and err == ""
    code, out, _ = run("audit", "randomized-response", "--epsilon", "1", "--method", "exact", "--json")
    d = json.loads(out)
    assert code == 0 and d["method"] == "exact" and d["samples_per_side"] is None and d["confidence"] == 1.0
    assert d["claim"]["type"] == "pure" and "local" in d["claim"]["relation"]


def test_miscalibrated_builtin_is_refuted(run):
    code, out, _ = run("audit", "laplace", "--scale", "0.5", "--epsilon", "1")
    assert code == 1 and "REFUTED" in out
    code, out, _ = run(
        "audit",
        "laplace",
        "--scale",
        "0.5",
        "--epsilon",
        "1",
        "--method",
        "sample",
        "--samples",
        "20000",
        "--seed",
        "1",
        "--json",
    )
    d = json.loads(out)
    assert code == 1 and d["violates_claim"] and d["epsilon_lower"] > 1.0 and d["seed"] == 1
    # staged at 1/64: the quick stage's refutation is quiet (below the claim plus one) and the full stage short, so
    # the audit went on to it
    assert d[
        "samples_per_side"
    ] == 20_000 and "a quick stage (312 draws per side) refuted the claim quietly" in " ".join(d["notes"])


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_builtin_own_claim_and_other_builtins(run):
    assert run("audit", "laplace", "--scale", "2")[0] == 0  # tests its own claim, ε = 0.5
    assert run("audit", "gaussian", "--rho", "0.5")[0] == 0
    assert run("audit", "gaussian", "--epsilon", "2", "--delta", "1e-5")[0] == 0  # analytic calibration
    assert run("audit", "gaussian", "--sigma", "0.5", "--rho", "0.5")[0] == 1
    assert run("audit", "randomized-response", "--p00", "0.01", "--p11", "0.01", "--epsilon", "1")[0] == 1


@pytest.mark.slow  # slow tier: the other builtins' own claims (each also audited by the library's contract suite)
def test_more_builtins_under_their_own_claims(run):
    assert run("audit", "gaussian", "--epsilon", "0.5", "--delta", "1e-5")[0] == 0
    assert run("audit", "gaussian", "--order", "2", "--epsilon", "1")[0] == 0
    assert run("audit", "k-rr", "--k", "3", "--epsilon", "1")[0] == 0
    assert run("audit", "staircase", "--epsilon", "1")[0] == 0
    assert (
        run("audit", "truncated-mean", "--epsilon", "1", "--samples", "20000", "--method", "sample", "--seed", "1")[0]
        == 0
    )


@pytest.mark.slow  # slow tier: the sampled tree counter (its own claim is also audited in the contract suite)
def test_tree_counter_own_claim_and_miscalibration(run):
    assert run("audit", "tree-counter", "--epsilon", "1", "--samples", "20000", "--seed", "2")[0] == 0
    assert (
        run("audit", "tree-counter", "--epsilon", "1", "--noise-epsilon", "3", "--samples", "20000", "--seed", "2")[0]
        == 1
    )


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_user_mechanism_pair_and_input(run, usermod):
    code, out, _ = run(
        "audit",
        f"{usermod}:noisy_sum",
        "--epsilon",
        "0.5",
        "--pair",
        "[1,2,3]",
        "[0,2,3]",
        "--samples",
        "20000",
        "--seed",
        "3",
    )
    assert code == 0 and "Reproduce: privcheck audit" in out and "--seed 3" in out
    code, out, _ = run(
        "audit",
        f"{usermod}:noisy_sum",
        "--epsilon",
        "0.5",
        "--input",
        "[1,2,3]",
        "--neighbours",
        "replace-l1",
        "--sensitivity",
        "1",
        "--samples",
        "20000",
        "--seed",
        "3",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["claim"]["relation"] == "replace-l1 (sensitivity 1)" and d["pairs_considered"] > 1
    code, _, _ = run(
        "audit",
        f"{usermod}:noisy_sum_buggy",
        "--epsilon",
        "0.5",
        "--pair",
        "1",
        "0",
        "--samples",
        "20000",
        "--seed",
        "3",
    )
    assert code == 1
    code, out, _ = run(
        "audit", f"{usermod}:one_at_a_time", "--epsilon", "0.5", "--pair", "1", "0", "--samples", "3000", "--seed", "3"
    )
    assert code == 0 and "slow" in out
    code, out, _ = run(
        "audit",
        f"{usermod}:noisy_sum",
        "--epsilon",
        "0.5",
        "--pair",
        "1",
        "0",
        "--samples",
        "20000",
        "--seed",
        "3",
        "--event",
        f"{usermod}:above_five",
    )
    assert code == 0 and "above_five" in out


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_repeatable_pair_and_workers_do_not_change_the_result(run, usermod):
    args = [
        "audit",
        f"{usermod}:noisy_sum",
        "--epsilon",
        "0.5",
        "--pair",
        "1",
        "0",
        "--pair",
        "[0]",
        "[2]",
        "--samples",
        "150000",
        "--seed",
        "8",
        "--json",
    ]
    a = json.loads(run(*args)[1])
    b = json.loads(run(*args, "--workers", "2")[1])
    for d in (a, b):
        d.pop("seconds")
        d.pop("command")
    assert a == b and a["pairs_considered"] == 2


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["audit", "laplace", "--epsilon", "-1"], "--epsilon -1.0 must be >= 0"),
        (["audit", "laplace", "--epsilon", "inf"], "must be finite"),
        (["audit", "laplace", "--epsilon", "nan"], "must be finite"),
        (["audit", "laplace", "--epsilon", "1", "--delta", "1"], "--delta 1.0 must be < 1"),
        (["audit", "laplace", "--epsilon", "1", "--delta", "-0.1"], "--delta -0.1 must be >= 0"),
        (["audit", "gaussian", "--rho", "0"], "--rho 0.0 must be > 0"),
        (["audit", "gaussian", "--rho", "-1"], "--rho -1.0 must be > 0"),
        (["audit", "laplace", "--epsilon", "0"], "must be > 0"),
        (["audit", "laplace", "--epsilon", "abc"], "invalid float value"),
        (["audit", "nosuch", "--epsilon", "1"], "neither a built-in"),
        (["audit", "nosuch.py:f", "--epsilon", "1"], "does not exist"),
        (["audit", "no_such_module_xyz:f", "--epsilon", "1"], "cannot import module"),
        (["audit", "laplace", "--epsilon", "1", "--pair", "[1,", "2"], "is not valid JSON"),
        (["audit", "laplace", "--epsilon", "1", "--pair", "0", "3"], "not neighbours"),
        (["audit", "laplace", "--epsilon", "1", "--pair", "0"], "expected 2 arguments"),
        (["audit", "laplace", "--epsilon", "1", "--samples", "0"], "--samples: '0' must be at least 1"),
        (["audit", "laplace", "--epsilon", "1", "--samples", "-5"], "--samples: '-5' is negative"),
        (["audit", "laplace", "--epsilon", "1", "--plot", "/proc/x.png"], "cannot be written"),
        (
            ["audit", "examples/mypolicy.py:make", "--epsilon", "1", "--arms", "2"],
            "--definition table, view, interactive, local or joint",
        ),
        (
            [
                "audit",
                "kl-ucb-cf",
                "--epsilon",
                "1",
                "--definition",
                "table",
                "--horizon",
                "3",
                "--table",
                "[[0,0],[1]]",
            ],
            "rectangular array",
        ),
        (
            ["audit", "kl-ucb-cf", "--epsilon", "1", "--definition", "table", "--horizon", "1e9", "--method", "exact"],
            "more than the",
        ),
        (
            ["audit", "kl-ucb-cf", "--epsilon", "1", "--definition", "table", "--horizon", "1e9", "--samples", "1000"],
            "in memory",  # (the reward tables: a run's actions are summarised beyond 2,048 rounds)
        ),
        (["audit", "laplace", "--epsilon", "1", "--confidence", "1"], "--confidence 1.0"),
        (["audit", "laplace", "--epsilon", "1", "--confidence", "0"], "--confidence 0.0"),
        (["audit", "laplace", "--epsilon", "1", "--workers", "0"], "--workers: '0' must be at least 1"),
        (["audit", "laplace", "--epsilon", "1", "--method", "magic"], "invalid choice"),
        (["audit", "laplace", "--epsilon", "1", "--classifier", "maybe"], "invalid choice"),
        (["audit", "tree-counter", "--epsilon", "1", "--method", "exact"], "no exact face"),
        (["audit", "laplace", "--epsilon", "1", "--rho", "1"], "give one kind of claim"),
        (["audit", "gaussian", "--mu", "1", "--epsilon", "1"], "give one kind of claim"),
        (["audit", "gaussian", "--mu", "-1"], "mu"),
        (["audit", "gaussian", "--mu", "1", "--delta", "1e-5"], "--delta does not apply"),
        (["audit", "laplace", "--epsilon", "1", "--plot", "figure.jpg"], "format is taken from the suffix"),
        (["audit", "laplace", "--epsilon", "1", "--plot", "no/such/folder/a.png"], "does not exist"),
        (["audit", "laplace", "--order", "2"], "--order needs --epsilon"),
        (["audit", "laplace"], "state the claim"),
        (["audit", "laplace", "--epsilon", "1", "--sigma", "2"], "no parameter --sigma"),
        (["audit", "gaussian", "--epsilon", "1"], "not ε-DP for any finite ε"),
        (["audit", "laplace", "--epsilon", "1", "--neighbours", "replace-l9"], "--neighbours"),
        (["audit"], "required: target"),
        ([], "a command is required"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run, argv, needle):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "fn,needle",
    [
        ("wrong_shape", "axis 0 must index"),
        ("boom", "raised RuntimeError: boom"),
        ("nan", "returned NaN"),
        ("strings_then_numbers", "dtype kind"),
        ("NOT_CALLABLE", "neither a mechanism"),
        ("missing", "has no attribute"),
    ],
)
def test_misbehaving_user_targets(run, usermod, fn, needle):
    code, out, err = run("audit", f"{usermod}:{fn}", "--epsilon", "1", "--pair", "1", "0", "--samples", "70000")
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1


@pytest.mark.parametrize("fn", ["mixed", "ragged"])
def test_mixed_and_ragged_outputs_are_audited_as_labels(run, usermod, fn):
    """Outputs that mix types or lengths are audited (as labels), not refused."""
    code, out, err = run("audit", f"{usermod}:{fn}", "--epsilon", "1", "--pair", "1", "0", "--samples", "20000")
    assert code == 0 and "not refuted" in out and err == ""


def test_pairs_not_neighbours_under_stated_relation(run, usermod):
    code, _, err = run(
        "audit",
        f"{usermod}:noisy_sum",
        "--epsilon",
        "1",
        "--pair",
        "[0,0]",
        "[1,1]",
        "--neighbours",
        "replace-l1",
        "--sensitivity",
        "1",
    )
    assert code == 2 and "not neighbours" in err


def test_list(run):
    code, out, _ = run("list")
    assert code == 0 and "laplace" in out and "--scale" in out and "gaussian" in out
    d = json.loads(run("list", "--json")[1])
    assert {m["name"] for m in d["mechanisms"]} >= {
        "laplace",
        "gaussian",
        "randomized-response",
        "k-rr",
        "staircase",
        "staircase-pattern",
        "truncated-mean",
        "tree-counter",
    }


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_console_script_runs_and_stdout_has_only_the_report():
    out = subprocess.run(
        [sys.executable, "-m", "privcheck.cli", "audit", "randomized-response", "--epsilon", "1", "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and out.stderr == ""
    json.loads(out.stdout)


# ------------------------------------------------------------------------------------------------ regret


def test_regret_table_json_and_plot(run, tmp_path):
    png = tmp_path / "r.png"
    code, out, err = run(
        "regret",
        "--env",
        "corrupt-bernoulli",
        "--means",
        "0.9,0.8x3",
        "--rr-epsilon",
        "1",
        "--policies",
        "kl-ucb-cf,ucb-cf,ts-cf,kl-ucb",
        "--horizon",
        "300",
        "--runs",
        "5",
        "--seed",
        "2",
        "--plot",
        str(png),
    )
    assert code == 0 and "kl-ucb-cf" in out and "Reproduce" in out and png.stat().st_size > 1000
    code, out, _ = run(
        "regret",
        "--env",
        "piecewise-bernoulli",
        "--means",
        "0.9,0.1;0.1,0.9",
        "--rr-epsilon",
        "1",
        "--policies",
        "sw-klucb-cf,kl-ucb-cf",
        "--horizon",
        "400",
        "--runs",
        "4",
        "--seed",
        "2",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and set(d) == {"schema_version", "env", "horizon", "runs", "seed", "policies"}
    s = d["policies"]["sw-klucb-cf"]
    assert set(s) == {"final_regret", "stderr", "pulls", "curve"} and len(s["curve"]["t"]) <= 200
    code, out, _ = run(
        "regret",
        "--env",
        "piecewise-bernoulli",
        "--breakpoints",
        "4",
        "--policies",
        "sw-ucb",
        "--horizon",
        "200",
        "--runs",
        "2",
        "--json",
        "--seed",
        "1",
    )
    assert code == 0
    for env in ("gaussian", "pareto"):
        assert (
            run(
                "regret",
                "--env",
                env,
                "--means",
                "0.9,0.5",
                "--policies",
                "kl-ucb,ucb1",
                "--horizon",
                "100",
                "--runs",
                "2",
            )[0]
            == 0
        )


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--env", "nope", "--means", "0.5,0.4"], "unknown environment"),
        (["--env", "bernoulli", "--means", "0.5,0.4", "--policies", "nope"], "unknown policy"),
        (["--env", "bernoulli", "--means", "1.5,0.4"], "must lie in [0, 1]"),
        (["--env", "bernoulli", "--means", "0.5,0.4", "--horizon", "1"], "must be >= the number of arms"),
        (["--env", "corrupt-bernoulli", "--means", "0.5,0.4", "--rr-epsilon", "0"], "--rr-epsilon 0.0 must be > 0"),
        (["--env", "corrupt-bernoulli", "--means", "0.5,0.4", "--rr-epsilon", "-1"], "must be > 0"),
        (["--env", "corrupt-bernoulli", "--means", "0.5,0.4"], "needs --rr-epsilon"),
        # an old command's --epsilon (the feedback channel's level, now --rr-epsilon) is told where that went
        (["--env", "corrupt-bernoulli", "--means", "0.5,0.4", "--epsilon", "1"], "is --rr-epsilon"),
        (["--env", "bernoulli", "--means", "0.5,,0.4"], "empty entry"),
        (["--env", "bernoulli", "--means", "0.5xq"], "NUMBERxCOUNT"),
        (["--env", "bernoulli", "--means", "0.5,0.4;0.4,0.5"], "piecewise-bernoulli"),
        (["--env", "gaussian", "--means", "0.5,0.4", "--policies", "ts"], "needs Bernoulli feedback"),
        (["--env", "bernoulli", "--means", "0.5,0.4", "--runs", "0"], "--runs: '0' must be at least 1"),
        (["--env", "bernoulli", "--means", "0.5,0.4", "--horizon", "1e12"], "more than the ceiling"),
        (["--env", "bernoulli", "--means", "0.5,0.4", "--plot", "/no/such/dir/x.png"], "does not exist"),
    ],
)
def test_regret_bad_input(run, argv, needle):
    base = {"--policies": "kl-ucb", "--horizon": "50"}
    args = list(argv)
    for k, v in base.items():
        if k not in args:
            args += [k, v]
    code, out, err = run("regret", *args)
    assert code == 2 and out == "" and needle in err and err.count("\n") == 1


# ------------------------------------------------------------------------------------------ the front door


def test_version_and_list_by_kind(run):
    code, out, _ = run("--version")  # (answered before the commands are imported)
    assert code == 0 and out.startswith("privcheck ") and out.strip() == f"privcheck {privcheck.__version__}"
    for kind, needle in (
        ("policies", "kl-ucb-cf"),
        ("environments", "piecewise-bernoulli"),
        ("experiments", "fig2b"),
        ("checks", "zcdp-to-approx-dp"),
        ("mechanisms", "laplace"),
        ("rl", "privcheck.policies.private_ucbvi:make"),
    ):
        code, out, err = run("list", kind)
        assert code == 0 and needle in out and err == ""
    code, out, err = run("list", "--kind", "rl")
    assert code == 0 and "--mdp riverswim" in out and err == ""
    code, _, err = run("list", "rl", "--kind", "policies")
    assert code == 2 and "say one kind" in err
    code, out, _ = run("list", "--json")
    kinds = {"schema_version", "mechanisms", "policies", "environments", "rl", "experiments", "checks"}
    assert set(json.loads(out)) == kinds
    code, _, err = run("list", "nope")
    assert code == 2 and "invalid choice" in err


def test_quiet_silences_the_progress_bar(monkeypatch):
    import argparse
    import sys

    from privcheck.cli.common import Progress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    with Progress(argparse.Namespace(quiet=True)) as p:
        assert p.update is None
    with Progress(argparse.Namespace(quiet=False)) as p:
        assert p.update is not None


def test_randomness_outside_the_generator_is_detected(run, tmp_path):
    (tmp_path / "outside.py").write_text(
        textwrap.dedent("""
        import numpy as np

        def leaky(x, rng, size):
            return x + np.random.default_rng().laplace(0, 2, size)
    """)
    )
    code, out, err = run(
        "audit",
        f"{tmp_path}/outside.py:leaky",
        "--epsilon",
        "5",
        "--pair",
        "0",
        "1",
        "--samples",
        "5000",
        "--seed",
        "1",
    )
    assert "outside the generator it is given" in out and "Reproduce:" not in out
    code, out, err = run("audit", "laplace", "--epsilon", "1", "--method", "sample", "--samples", "5000", "--seed", "1")
    assert "outside the generator" not in out and "Reproduce: privcheck audit laplace" in out


def test_verify_names_the_point_of_a_refutation(run):
    code, out, _ = run("verify", "--identity", "x+1", "x+2")
    assert code == 1 and "counterexample: {'x':" in out


def test_user_policies_in_regret_and_the_arms_message(run, monkeypatch):
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    code, out, err = run(
        "regret",
        "--env",
        "bernoulli",
        "--means",
        "0.9,0.5",
        "--horizon",
        "200",
        "--runs",
        "3",
        "--policies",
        "kl-ucb,examples/mypolicy.py:make",
        "--seed",
        "1",
    )
    assert code == 0 and "examples/mypolicy.py:make" in out, err
    for argv in (
        ("regret", "--env", "bernoulli", "--arms", "1", "--horizon", "10", "--policies", "ucb1"),
        ("audit", "kl-ucb", "--epsilon", "1", "--definition", "table", "--arms", "1", "--horizon", "3"),
    ):
        code, _, err = run(*argv)
        assert code == 2 and "a bandit needs at least 2 arms" in err


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_headline_is_the_figure_the_claim_is_about(run):
    _, out, _ = run("audit", "gaussian", "--rho", "0.5")
    assert out.splitlines()[1].startswith("  Certified exactly (no sampling): ρ ≥ ")
    _, out, _ = run("audit", "randomized-response", "--epsilon", "0.5", "--delta", "0.3")
    line = out.splitlines()[1]
    assert ": δ ≥ 0 at ε = 0.5; ε ≥ 0 at δ = 0.3;" in line
    _, out, _ = run("audit", "gaussian", "--order", "2", "--epsilon", "1")
    assert ": D_2 ≥ " in out.splitlines()[1]


def test_large_witnesses_show_the_differing_record():
    from privcheck.audits.present.text import pair_text as _pair_text

    x = [[0.0, 0.0]] * 40
    y = [list(r) for r in x]
    y[17] = [1.0, 1.0]
    assert _pair_text(x, y) == "x = 40×2 of 0.0, x' = x but row 17: [0.0, 0.0] → [1.0, 1.0]"
    assert _pair_text(0.0, 1.0) == "x = 0.0, x' = 1.0"


def test_infinite_outputs_give_no_numpy_warning(run, tmp_path):
    (tmp_path / "infm.py").write_text(
        textwrap.dedent("""
        import numpy as np

        def f(x, rng, size):
            return np.where(rng.random(size) < 0.5, np.inf, x + 0.0)
    """)
    )
    code, out, err = run("audit", f"{tmp_path}/infm.py:f", "--epsilon", "1", "--pair", "0", "1", "--samples", "5000")
    assert code == 1 and err == ""


def test_every_flag_has_a_help_line():
    import argparse

    from privcheck.cli import make_parser

    sub = [a for a in make_parser()._actions if isinstance(a, argparse._SubParsersAction)][0]
    missing = [
        (name, a.option_strings[-1])
        for name, sp in sub.choices.items()
        for a in sp._actions
        if a.option_strings and not a.help
    ]
    assert missing == []


def test_long_planned_work_is_announced_once(monkeypatch, capsys):
    import argparse

    from privcheck.cli import common

    clock = iter([30.0, 35.0, 36.0, 37.0])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    with common.Progress(argparse.Namespace(quiet=False), total=1000) as p:
        p.update(10)  # the first report (its start-up is not counted): the rate is measured from here
        p.update(2)  # 2 draws in 5 s: 988 more take about 41 min
        p.update(10)
        p.update(10)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "about 41 min left for 1,000 draws planned" in err
    with common.Progress(argparse.Namespace(quiet=True), total=1000) as p:
        assert p.update is None


class _Recorder:
    """A progress callable that keeps its plans and the units it is told of."""

    def __init__(self):
        self.plans, self.done = [], 0

    def plan(self, total, unit=None, seconds=None):
        self.plans.append((total, unit))
        self.done = 0

    def __call__(self, n):
        self.done += n


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_every_engine_announces_its_plan_and_does_exactly_that_much():
    from privcheck.mechanisms.registry import BUILTINS
    from privcheck import PureDP, audit
    from privcheck import audit_policy
    from privcheck.policies.audited import audited
    from privcheck.proofs.catalogue import run_catalogue

    lap = BUILTINS["laplace"].build(PureDP(1.0), {})
    cases = {  # engine: (run it with a recorder, the unit it plans in)
        "sampled, pairs screened": (
            lambda r: audit(lap, method="sample", samples=3000, input=0.0, seed=1, progress=r),
            None,
        ),
        "exact mechanism": (lambda r: audit(lap, method="exact", seed=1, progress=r), " pairs"),
        "checks": (lambda r: run_catalogue(["corollary1-slope", "gaussian-zcdp-calibration"], r), " checks"),
    }
    inst = audited("kl-ucb-cf", claim=None, arms=2, horizon=3, rr_epsilon=1.0)
    pol, channel = inst.policy, inst.channel
    for definition, method, unit in (
        ("table", "exact", " inputs"),
        ("interactive", "exact", " inputs"),
        ("interactive", "sample", " runs"),  # (the whole plan, the quick stage's, the plan left, the sampling's)
    ):
        cases[f"{definition} {method}"] = (
            lambda r, d=definition, m=method: audit_policy(
                pol, PureDP(1.0), d, horizon=3, channel=channel, method=m, seed=1, samples=2000, progress=r
            ),
            unit,
        )
    for name, (go, unit) in cases.items():
        r = _Recorder()
        go(r)
        staged = name == "interactive sample"  # a quick stage, then the whole plan again and for the pairs kept
        assert len(r.plans) == 1 + 3 * staged and {u for _, u in r.plans} == {unit}, (name, r.plans)
        # (the plan said first counts the quick stage too; said again before the full search, what is left)
        assert not staged or r.plans[0][0] - r.plans[2][0] >= r.plans[1][0], r.plans
        assert r.done == r.plans[-1][0] > 0, (name, r.done, r.plans)


def test_a_plan_restarts_the_count_and_the_estimate(monkeypatch, capsys):
    import argparse

    from privcheck.cli import common

    clock = iter([0.5, 3.0, 4.5, 5.0])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    with common.Progress(argparse.Namespace(quiet=False)) as p:  # no plan yet: nothing to estimate against
        p(5)  # work before the plan is not counted against it
        p.update.plan(10_000, " inputs")
        p.update(1)  # at 0.5 s: the first input, with the start-up
        p.update(9)  # 9 more in 2.5 s: 9,990 more take about 46 min
        p.update(10)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "about 46 min left for 10,000 inputs planned" in err


def test_a_plan_made_again_is_said_again_only_when_its_estimate_moved(monkeypatch, capsys):
    import argparse

    from privcheck.cli import common
    from privcheck.core.execution import plan

    clock = iter([0.0, 10.0, 20.0, 30.0])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    with common.Progress(argparse.Namespace(quiet=False)) as p:
        plan(p.update, 7_000, " runs", seconds=600.0, ceiling=True)  # said at 0 s: at most 10 min
        p.update.plan(6_000, " runs", seconds=560.0)  # at 10 s, 590 s were left: not news
        p.update.plan(1_600, " runs", seconds=130.0)  # at 20 s, 580 s were left: said again
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "at most about 10 min left for 7,000 runs planned (the search decides" in err[0]
    assert "revised: about 2 min left for 1,600 runs planned" in err[1], err


def test_an_earlier_stages_plan_moves_the_bar_without_silencing_the_full_stages_estimate(monkeypatch, capsys):
    """A staged audit's earlier stage counts to a plan of its own, untimed; its rate, measured over a second, must
    not use up the one notice: the full stage's plan of 10 minutes that follows is still said."""
    import argparse

    from privcheck.cli import common
    from privcheck.core.execution import plan, untimed

    clock = iter([0.0, 0.5, 2.0, 3.0, 3.5])
    monkeypatch.setattr(common.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(common.sys.stderr, "isatty", lambda: False, raising=False)
    with common.Progress(argparse.Namespace(quiet=False)) as p:
        quick = untimed(p.update)
        plan(quick, 1_000, " runs", seconds=5.0)  # the stage's plan: its time not said
        quick(10)  # at 0 s
        quick(490)  # at 0.5 s
        quick(500)  # at 2 s: measured, a few seconds left, nothing to say
        assert p.total == 1_000 and p._done == 1_000
        plan(p.update, 20_000, " runs", seconds=600.0)  # the full stage: said
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "about 10 min left for 20,000 runs planned" in err[0], err


def test_library_messages_are_said_as_flags_and_reprs_are_left_alone():
    from privcheck.cli import _command_parser, make_parser
    from privcheck.cli.common import as_flags

    audit_parser = _command_parser(make_parser(), ["audit", "laplace"])
    cases = {
        'use method="sample"': "use --method sample",
        "give horizon= for the exact engine": "give --horizon for the exact engine",
        "a neighbour relation (neighbours= and sensitivity=)": "a neighbour relation (--neighbours and --sensitivity)",
        "give pairs=, or input= to search": "give --pair, or --input to search",
        "rr_epsilon=0.5 must be > 0": "--rr-epsilon 0.5 must be > 0",
        "PureDP(epsilon=0.3, relation=AllPairs(domain=(0, 1)))": "PureDP(epsilon=0.3, relation=AllPairs(domain=(0, 1)))",  # noqa: E501
        "not_a_flag=3 stays": "not_a_flag=3 stays",
    }
    for message, said in cases.items():
        assert as_flags(message, audit_parser) == said, message


def test_naming_your_own_target_the_mistakes_newcomers_make_are_said_as_what_to_type(run):
    code, _, err = run("audit", "examples/sequential.py", "--epsilon", "1", "--definition", "table")
    assert code == 2 and "names a file" in err and "examples/sequential.py:NAME" in err and "make_shared_noise" in err
    code, _, err = run("audit", "examples/sequential.py:make", "--epsilon", "1", "--horizon", "40")
    assert code == 2 and "is a bandit policy" in err and "--definition table, view, interactive, local or joint" in err
    code, _, err = run("audit", "examples/sequential.py:make", "--epsilon", "1", "--definition", "table")
    assert code == 2 and "--horizon" in err
    # (even 200 runs per side, each pair screened on 100, take longer than 0.07 s)
    code, _, err = run(
        "audit", "examples/sequential.py:make", "--epsilon", "1", "--definition", "table", "--horizon", "200",
        "--max-hours", "0.00002",
    )  # fmt: skip
    assert code == 2 and "--max-hours" in err and "max_hours" not in err and "never below 200" in err
    assert "--samples" in err


def test_the_policys_privacy_parameter_has_one_name_in_list_audit_and_regret(run):
    code, out, _ = run("list", "policies")
    assert "(needs --epsilon, --nu)" in out and "--dp-epsilon" not in out
    args = ["--env", "bernoulli", "--means", "0.9,0.5", "--policies", "dp-robust-se", "--nu", "0.9", "--horizon", "20"]
    new = run("regret", *args, "--epsilon", "1", "--runs", "2", "--seed", "1", "--json")
    old = run("regret", *args, "--dp-epsilon", "1", "--runs", "2", "--seed", "1", "--json")
    assert new[0] == old[0] == 0 and "now spelled --epsilon" in old[2]
    strip = lambda o: {k: v for k, v in json.loads(o).items() if k not in ("command", "seconds")}  # noqa: E731
    assert strip(new[1]) == strip(old[1])


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_sized_audit_that_stopped_early_is_reproduced_at_its_sized_runs(run, monkeypatch):
    """A policy whose runs the library sized, refuted by a quick stage: the reproduce line gives the sized runs per
    side (what the audit was), not the quick stage's (which sampled fewer)."""
    from dataclasses import replace

    import privcheck.cli.audit as cli_audit

    real = cli_audit.audit_policy

    def sized(*args, **kwargs):  # the library's sizing, said as it says it, of a run size small enough for a test
        r = real(*args, **{**kwargs, "samples": 2000, "screening": 200})
        note = "runs per side sized to the policy's measured cost: 2,000 (the default 100,000 would take …)"
        call = replace(r.call, arguments={**r.call.arguments, "samples": 2000})
        return replace(r, notes=(*r.notes, note), call=call)

    monkeypatch.setattr(cli_audit, "audit_policy", sized)
    argv = ("audit", "examples/elimination.py:make_tie_leak", "--epsilon", "1", "--definition", "table")
    code, out, _ = run(*argv, "--arms", "2", "--horizon", "250", "--seed", "1")
    assert code == 1 and "stopped early: a quick stage (125 runs per side" in out
    # (the screening it ran at, too, and the stages its estimate chose: a quick one, no middle one under a minute)
    assert out.rstrip().endswith("--seed 1 --samples 2000 --screening 200 --stages 1")


@pytest.mark.slow  # slow tier: sized by the machine's speed (the ceiling itself: tests/audit/policy/test_plan_check.py)
def test_a_ceiling_sizes_the_runs_around_the_search_and_the_screening_shrinks_with_them(run):
    """Under --max-hours tighter than the default's ten minutes, a policy's runs are sized to what the input search
    leaves of it, each pair screened on a quarter of them (the flag not typed is not passed: the library shrinks only
    a screening not given); the reproduce line repeats the runs, from which the screening is derived again.  (The
    runs were sized to the whole ceiling and screened on 2,000 each, and the plan, search included, was refused.)"""
    argv = ["audit", "examples/sequential.py:make", "--epsilon", "1", "--definition", "table", "--arms", "2"]
    # (3.6 s: at 1.8 s the runs sized under the other worker's load were 527–3,123 — near the floor of 200; on one
    # worker: sized to two, the runs pass 8,000, where a quarter is the default screening and the note says none)
    code, out, err = run(*argv, "--horizon", "40", "--seed", "1", "--max-hours", "0.001", "--workers", "1")
    assert code == 0, err
    (note,) = [line for line in out.splitlines() if "runs per side sized" in line]
    runs, screened = (int(w.replace(",", "")) for w in re.findall(r"(?:cost: |screened on )([\d,]+)", note))
    assert 200 < runs < 100_000 and screened == runs // 4  # (and the stages the time estimate chose: pinned)
    assert re.search(rf"--samples {runs} --stages [12]$", out.rstrip())


def test_a_selection_fitted_to_memory_is_said_in_the_reproduce_line(run, monkeypatch, tmp_path):
    """A mechanism audit whose default selection sample would not fit in memory draws the most that fit
    (privcheck.audits.sampling.fitted_selection), and its reproduce line gives them: a machine of another size
    would choose another number."""
    from privcheck.audits import sampling
    from privcheck.core import resources

    monkeypatch.setattr(sampling, "MIN_FITTED_SELECTION", 1000)  # (as tests/audit/mechanism/test_audit.py)
    limit = sampling.held_bytes(sampling.DrawCost(128.0, 0.0, values=16, holds=sampling.SAMPLER_HOLDS), 3000, 2750, 1)
    for where in (resources, sampling):
        monkeypatch.setattr(where, "memory_limit", lambda: int(limit))
    (tmp_path / "wide.py").write_text(
        "def wide(x, rng, size):\n    return x + rng.normal(0.0, 1.0, (size, 16))\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    argv = ("audit", "wide.py:wide", "--epsilon", "1", "--pair", "0", "1", "--samples", "3000", "--stages", "0")
    code, out, err = run(*argv, "--workers", "1", "--classifier", "off", "--seed", "1")
    assert code == 1, err  # (16 normals shifted by one each: no pure-DP claim holds)
    assert "memory holds at once" in out and out.rstrip().endswith("--seed 1 --selection-samples 2700")
