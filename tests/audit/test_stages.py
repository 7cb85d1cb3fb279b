"""Anytime verdicts: once the input search has kept its pairs, a sampled policy audit samples stages of growing
size — each a sixteenth of the next's runs, at a hundredth of the failure probability — and stops at the first that
refutes; a correct policy goes on to the full sampling at the rest; ``full_budget=True`` samples the full plan only.
(examples/elimination.py's planted reward leak is the loud case.)  A mechanism audit is always staged too: a quick
stage at 1/64 of its draws, a middle one at 1/16 before a sampling estimated at over a few seconds."""

import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from privcheck import PureDP, ReplaceOne, audit, audit_policy
from privcheck.audits.figures import Figures
from privcheck.audits.options import Options
from privcheck.audits.stages import (
    EARLY_SHARE,
    MECHANISM,
    MECHANISM_GO_ON,
    MECHANISM_MIDDLE_AFTER,
    POLICY,
    pinned,
    run_stages,
    said_at,
    stage_seed,
    stages_of,
)
from privcheck.audits.stats import confidence_text
from privcheck.core.enclosure import Enclosure

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import elimination as el  # noqa: E402  (examples/elimination.py)

KW = dict(horizon=160, screening=200, seed=1)


def leak(n_arms, horizon, rng, epsilon):
    """The planted reward leak through the order of the arms, at phases short enough for 160 rounds."""
    return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=25, bug="tie-leak")


def correct(n_arms, horizon, rng, epsilon):
    return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=25)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_loud_leak_stops_at_the_quick_stage_and_says_so():
    r = audit_policy(leak, PureDP(1.0), "table", samples=2000, **KW)
    assert r.violates_claim and r.extra["stage"] == "quick"
    assert r.samples_per_side == 125 and r.confidence == 0.95
    assert any(n.startswith("stopped early: a quick stage (125 runs per side") for n in r.notes)
    assert "shared by the stages of the sampling" in r.certification
    assert r.call.arguments["samples"] == 2000  # the reproduce line runs the stages again
    # its pairs came from the quick stage's own search, at a sixteenth of the search's budget; the full one never ran
    (search,) = [n for n in r.notes if "input search" in n]
    assert search.startswith("the quick stage's input search: ") and "bisection on 4 coupled runs per table" in search


def _result(eps: float):
    """An engine's result as :func:`run_stages` reads it: its certified figures (ε's lower end)."""
    return SimpleNamespace(figures=Figures(Enclosure.lower(eps), None, {}, Enclosure.lower(0.0)))


def _staged(refuting_stage: int | None, samples: int = 2000, seconds: float = 600.0, **options):
    """``run_stages`` on an engine whose ``refuting_stage``-th call (0 the first) refutes; each call is told its
    stage's name, as :func:`stages_of` lists them."""
    ran = []
    opts = Options(**options).with_default_samples(samples)
    names = [name for name, _, _ in stages_of(opts, seconds)]

    def engine(at, seed, stage):
        ran.append((at, seed))
        assert stage == names[len(ran) - 1]
        return "adversary", _result(2.0 if len(ran) - 1 == refuting_stage else 0.5), {}

    return run_stages(PureDP(1.0), opts, 7, engine, seconds), ran


def test_the_quick_stage_samples_a_sixteenth_at_a_hundredth_of_the_failure_probability():
    (stage, at, out, note), ran = _staged(0)
    ((quick, seed),) = ran
    assert quick.samples == 125 == at.samples and quick.progress is None
    assert (quick.screening, quick.screening_round) == (15, 250)  # rounds of 250 runs per side, each pair ≥ 15
    # its time estimate counts the rounds it runs (250 per side shared by 8, 4, then 2 pairs), not the full stage's
    from privcheck.audits.sampling import DrawCost, planned_draws, sampling_seconds

    rounds = planned_draws(8, 0, 0, quick.screening, quick.screening_round)
    assert rounds == 2 * (8 * 31 + 4 * 62 + 2 * 125) != planned_draws(8, 0, 0, quick.screening)
    assert sampling_seconds(DrawCost(8.0, 1e-3), 8, 0, 0, 1, quick.screening, quick.screening_round) == rounds * 1e-3
    assert quick.confidence == pytest.approx(1 - 0.05 * EARLY_SHARE) and seed == stage_seed(7, 0) != 7
    assert stage == "quick" and note.startswith("stopped early: a quick stage (125 runs per side")
    said = said_at(f"all at once with confidence {confidence_text(at.confidence)}", at.confidence, 0.95, stage)
    assert said == "all at once with confidence 95% shared by the stages of the sampling"


def test_a_stage_that_does_not_refute_leads_to_the_full_sampling_at_the_rest():
    (stage, at, out, note), ran = _staged(None, seconds=59.0)  # (under a minute: no middle stage)
    assert [o.samples for o, _ in ran] == [125, 2000] and ran[1][1] == 7  # the full stage's draws as alone
    assert at.confidence == pytest.approx(1 - 0.05 * (1 - EARLY_SHARE)) and stage == "full"
    assert note == (
        "staged: a quick stage (125 runs per side, 1% of the failure probability) did not refute the claim (ε ≥ 0.5 "
        "there); the bounds are the full stage's, at the rest"
    )


def test_stages_grow_sixteenfold_and_a_middle_one_can_end_the_audit():
    """At 100,000 runs per side, a full sampling of ten minutes: stages of 500 and 8,000 (16 times the quick
    stage's, more than a sixteenth of the full one's) before the full one, each its own seed; the second refutes (a
    leak in events of a few percent of runs), so the full sampling never runs.  At 10⁶, two middle stages, each a
    sixteenth of the next; at 20,000 one at a quarter (a slow policy's runs sized to ten minutes: the middle stage
    at most a quarter of the full one); before a full sampling of under a minute, none (it ends within the minute
    anyway)."""
    stages = lambda n, s=600.0: stages_of(Options().with_default_samples(n), s)  # noqa: E731
    sizes = lambda n, s=600.0: [o.samples for _, o, _ in stages(n, s)]  # noqa: E731
    assert sizes(100_000) == [500, 8000, 100_000] and sizes(10**6) == [500, 3906, 62_500, 10**6]
    assert sizes(20_000) == [500, 5000, 20_000] and sizes(40_000) == [500, 8000, 40_000]
    assert sizes(2000) == [125, 500, 2000] and sizes(1000) == [64, 1000] and sizes(1000, 59.0) == [1000]
    counts = [len(stages(n)) for n in (1024, 2000, 10**4, 31_999, 32_000, 127_999, 128_000, 10**6, 10**7)]
    assert counts == [3, 3, 3, 3, 3, 3, 3, 4, 5]  # (a middle stage at every staged size; more at 10⁶ and up)
    assert sizes(20_000, 59.0) == [500, 20_000]
    assert sizes(100_000, 59.0) == sizes(100_000, None) == [500, 100_000]
    # an earlier stage's rounds share twice its screening (the quick one's 1,000 runs per side: 8 pairs at 125, 250,
    # 500 each; a middle one's twice an eighth of its runs), the full one screens as the options say
    kept = [(o.screening, o.screening_round) for _, o, _ in stages(100_000)]
    assert kept == [(62, 1000), (125, 2000), (2000, None)]
    (stage, at, out, note), ran = _staged(1, samples=100_000)
    assert [o.samples for o, _ in ran] == [500, 8000] and [s for _, s in ran] == [stage_seed(7, 0), stage_seed(7, 1)]
    assert len({stage_seed(7, 0), stage_seed(7, 1), 7}) == 3
    assert stage == "middle" and at.confidence == pytest.approx(1 - 0.05 * EARLY_SHARE)
    assert note == (
        "stopped early: stage 2 of 3 (8,000 runs per side on the pairs the search kept, 1% of the failure "
        "probability), after a quick stage of 500 runs per side (ε ≥ 0.5 there) that did not, refuted the claim, so "
        "the full sampling (100,000 runs per side) did not run; the bounds are that stage's — full_budget=True "
        "samples the full plan for the full magnitude"
    )
    (stage, at, out, note), ran = _staged(None, samples=100_000)
    assert stage == "full" and at.confidence == pytest.approx(1 - 0.05 * (1 - 2 * EARLY_SHARE))
    assert note == (
        "staged: stages of 500 and 8,000 runs per side (1% of the failure probability each) did not refute the claim "
        "(ε ≥ 0.5 and 0.5 there); the bounds are the full stage's, at the rest"
    )


@pytest.mark.parametrize(
    "counts, middle",
    [((8, 7), False), ((126, 22), True), ((224, 82), True), ((60, 30), False), ((68, 30), False), ((75, 30), True)],
    ids=["nothing seen", "raw Gram", "unit bound", "a ratio of 2 on 500", "a promise of 0.63", "a promise of 0.73"],
)
def test_a_middle_stage_runs_only_after_a_sign_of_a_leak(counts, middle):
    """The quick stage's certified event, at the probabilities its fresh draws showed, must promise two thirds of the
    claimed ε at the middle stage's 8,000 runs for the middle stage to run: the counts of examples/linear.py's correct
    policy (8 against 7 of 500; a promise of 0), a ratio of 2 on 500 draws (0.50) and 68 against 30 (0.63: the
    middle stage ran at one half) send it to the full stage; those of its two bugs that a middle stage refutes
    (126 against 22, 224 against 82: 1.55 and 0.89) and 75 against 30 (0.73) do not.  Skipping leaves the middle
    stage's share of the failure probability unspent."""
    ran = []
    opts = Options().with_default_samples(100_000)

    def engine(at, seed, stage):
        ran.append(stage)
        c = {"x": counts[0], "x_prime": counts[1], "samples": at.samples}
        return "adversary", SimpleNamespace(figures=_result(0.5).figures, witness={"counts": c}), {}

    stage, at, out, note = run_stages(PureDP(1.0), opts, 7, engine, 600.0)
    assert ran == (["quick", "middle", "full"] if middle else ["quick", "full"]) and stage == "full"
    assert at.confidence == pytest.approx(1 - 0.05 * (1 - 2 * EARLY_SHARE))
    assert ("so the middle stage did not run (its share of the failure probability unspent)" in note) is not middle
    assert ("promised less than 2/3 of the claimed ε" in note) is not middle


@pytest.mark.parametrize("options", [dict(full_budget=True), dict(samples=127)], ids=["full budget", "small"])
def test_the_full_budget_and_small_audits_sample_once_as_they_are(options):
    (stage, at, out, note), ran = _staged(True, **options)
    assert len(ran) == 1 and ran[0] == (Options(**options).with_default_samples(2000), 7) and at is ran[0][0]
    assert stage == "whole" and note is None and stages_of(at)[0][0] == "whole"


def test_a_stage_seed_is_a_seed():
    assert stage_seed(1, 0) == stage_seed(1, 0) != stage_seed(2, 0) and 0 <= stage_seed(2**63 - 1, 3) < 2**63


@pytest.mark.slow
def test_the_full_budget_on_the_loud_leak_and_a_correct_policy_through_both_stages():
    r = audit_policy(leak, PureDP(1.0), "table", samples=2000, full_budget=True, **KW)
    assert r.violates_claim and r.samples_per_side == 2000 and "stage" not in r.extra
    assert "full_budget=True" in r.command
    fine = audit_policy(correct, PureDP(1.0), "table", samples=2000, **KW)
    assert not fine.violates_claim and fine.extra["stage"] == "full" and fine.samples_per_side == 2000
    (search,) = [n for n in fine.notes if "input search" in n]  # the full stage's pairs: the full search's
    assert search.startswith("input search: ") and "bisection on 6 coupled runs per table" in search


def test_a_mechanism_is_always_staged_and_a_middle_stage_waits_for_a_long_sampling():
    """A mechanism audit is staged whatever its time (issue 74): a quick stage at 1/64 of the draws, a middle one at
    1/16 when the full sampling is estimated at over MECHANISM_MIDDLE_AFTER seconds (unknown: not)."""
    sizes = lambda n, s: [o.samples for _, o, _ in stages_of(Options().with_default_samples(n), s, MECHANISM)]  # noqa: E731
    assert sizes(10**6, None) == sizes(10**6, 0.5) == sizes(10**6, MECHANISM_MIDDLE_AFTER) == [15_625, 10**6]
    assert sizes(10**6, MECHANISM_MIDDLE_AFTER + 1) == [15_625, 62_500, 10**6]
    assert sizes(4_095, 1.0) == [4_095] and sizes(127, 600.0) == [127]  # a quick stage of 63 draws: below STAGE_MIN
    assert sizes(4_095, 600.0) == [64, 4_095]  # ... but raised to it for a long audit
    assert sizes(4_096, 600.0) == [64, 256, 4_096]  # (a middle stage at least four times the quick one's)
    full = Options(full_budget=True).with_default_samples(10**6)
    assert [n for n, _, _ in stages_of(full, 600.0, MECHANISM)] == ["whole"]


def _half_noise(x, rng, size):
    """x + Laplace noise of scale 1/2, claimed 1-DP: true ε = 2 (and the doubles of a float sum: a leak of its own)."""
    return np.asarray(x, dtype=float) + rng.laplace(0.0, 0.5, size)


def _short_noise(x, rng, size):
    """x + Laplace noise of scale 0.46 on the grid of 2⁻²⁰ (no float leak: x and the noise are on it, the sum exact),
    claimed 1-DP: true ε = 1/0.46 ≈ 2.17."""
    return np.asarray(x, dtype=float) + np.round(rng.laplace(0.0, 0.46, size) * 2.0**20) / 2.0**20


def test_a_mechanism_audit_stops_at_the_quick_stage_and_says_so():
    """Noise 0.46 times what the claim needs, on a grid, is refuted by the quick stage of 4,000 draws per side (1/64)
    — quietly, below the claim plus one, so the audit goes on to its middle stage of 16,000 (its full stage draws
    256,000 values a side), which refutes it loudly and ends it; the report says so, at the audit's confidence shared
    by the stages; the correct grid Laplace goes on to its full sampling; ``full_budget=True`` samples the full plan
    alone, for the full magnitude.  The same noise as floats off the grid plans a middle stage whatever the time, and
    its bits refute it loudly at the quick stage."""
    from privcheck.mechanisms.laplace import GridLaplace

    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=256_000, seed=4, classifier="off")
    r = audit(_short_noise, PureDP(1.0, ReplaceOne("l1", 1.0)), stages=2, **kw)
    assert r.violates_claim and r.extra["stage"] == "middle" and r.samples_per_side == 16_000
    assert r.epsilon_lower >= 2.0  # loud: at least the claim plus one
    (note,) = [n for n in r.notes if n.startswith("staged: a quick stage (4,000 draws per side) refuted the claim q")]
    assert "stage 2 of 3 (16,000 draws per side) refuted it loudly" in note
    assert "confidence 95% shared by the stages of the sampling" in r.certification
    whole = audit(_short_noise, PureDP(1.0, ReplaceOne("l1", 1.0)), full_budget=True, **kw)
    assert whole.violates_claim and "stage" not in whole.extra and whole.samples_per_side == 256_000
    assert whole.epsilon_lower > r.epsilon_lower and "full_budget=True" in whole.command
    floats = audit(_half_noise, PureDP(1.0, ReplaceOne("l1", 1.0)), **kw)
    assert floats.violates_claim and floats.extra["stage"] == "quick" and floats.epsilon_lower >= 2.0
    assert "stages=2" in floats.command and "trailing zero" in floats.witness["event_text"]
    # (the grid Laplace's events reach e^(1 − 2⁻²⁰) of the claimed e: at that edge a 95% audit of it may refute, as
    # seed 4's does — once in 60 seeds, 0 … 59, at 256,000 draws a side)
    kw["seed"] = 5
    fine = audit(GridLaplace(1.0), **kw)
    assert not fine.violates_claim and fine.extra["stage"] == "full" and fine.samples_per_side == 256_000
    assert any(n.startswith("staged: a quick stage (4,000 draws per side") for n in fine.notes)
    alone = audit(GridLaplace(1.0), stages=0, **kw)  # the full stage alone, at the whole failure probability
    assert 0 <= alone.epsilon_lower - fine.epsilon_lower < 0.01 * alone.epsilon_lower


def _mechanism_staged(bounds: list, values: int, off_grid: bool = True, staging=MECHANISM):
    """``run_stages`` as a mechanism audit's, ``bounds`` the ε each stage's engine certifies (claim ε = 1): the stages
    run, and what the audit answered."""
    ran = []
    opts = Options().with_default_samples(1_000_000)

    def engine(at, seed, stage):
        ran.append(stage)
        return _result(bounds[len(ran) - 1])

    return run_stages(PureDP(1.0), opts, 7, engine, 1.0, staging, lambda r: r, off_grid, values), ran


def test_a_quiet_refutation_of_a_short_mechanism_audit_goes_on_and_the_largest_bound_is_reported():
    """A refutation below the claim plus LOUD (1 nat) does not end a mechanism audit whose full stage draws at most
    MECHANISM_GO_ON values a side: the next stage runs, a loud one ends it, and the largest certified bound is
    reported (every stage's holds at once); above MECHANISM_GO_ON values, and for a policy, every refutation ends it."""
    (stage, at, out, note), ran = _mechanism_staged([1.5, 1.7, 3.0], MECHANISM_GO_ON)
    assert ran == ["quick", "middle", "full"] and stage == "full" and out.figures.epsilon.lo == 3.0
    assert note.startswith("staged: a quick stage (15,625 draws per side) refuted the claim quietly (ε ≥ 1.5 there")
    assert "the bounds are the full stage's" in note
    (stage, at, out, note), ran = _mechanism_staged([1.5, 1.7, 1.2], 10**6)  # the largest, the middle stage's
    assert ran == ["quick", "middle", "full"] and stage == "middle" and out.figures.epsilon.lo == 1.7
    assert at.samples == 62_500 and "stage 2 of 3's (62,500 draws per side, 1% of" in note
    (stage, at, out, note), ran = _mechanism_staged([1.5, 2.5, 9.0], 10**6)  # loud at the middle stage: it ends
    assert ran == ["quick", "middle"] and stage == "middle" and out.figures.epsilon.lo == 2.5
    assert "refuted it loudly, so the full sampling (1,000,000 draws per side) did not run" in note
    (stage, _, out, note), ran = _mechanism_staged([0.5, 1.5, 3.0], 10**6)  # quiet at the middle stage
    assert ran == ["quick", "middle", "full"] and stage == "full" and note.startswith("staged: stage 2 of 3")
    (stage, _, out, note), ran = _mechanism_staged([1.5, 1.7, 3.0], MECHANISM_GO_ON + 1)  # too long to go on
    assert ran == ["quick"] and stage == "quick" and note.startswith("stopped early: a quick stage")
    (stage, _, out, note), ran = _mechanism_staged([1.5, 1.7, 3.0], 10, staging=POLICY)
    assert ran == ["quick"] and stage == "quick"
    (stage, _, out, note), ran = _mechanism_staged([1.5, 3.0], 10**6, off_grid=False)  # no middle stage planned
    assert ran == ["quick", "full"] and stage == "full" and out.figures.epsilon.lo == 3.0


def test_a_small_mechanism_audit_is_not_staged():
    r = audit(_half_noise, PureDP(1.0, ReplaceOne("l1", 1.0)), pairs=[(0.0, 1.0)], samples=4_000, seed=1)
    assert r.violates_claim and "stage" not in r.extra and r.samples_per_side == 4_000


def test_the_stages_the_estimate_chose_are_said_and_the_seed_reproduces_them_on_any_machine(monkeypatch):
    """The stage plan the sampling's estimated time chose (a measurement of the machine) is pinned in the call and
    said by the reproduce line; given back as ``stages=``, it gives the same report where the estimate would choose
    otherwise; ``stages=`` given chooses the plan; sizes alone decide where no estimate could change it."""
    import privcheck.audits.mechanism.api as api
    from privcheck.mechanisms.laplace import GridLaplace

    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=2**17, seed=3, classifier="off")
    with monkeypatch.context() as m:  # a slow machine: a long sampling, so a quick and a middle stage
        m.setattr(api, "MECHANISM", replace(MECHANISM, middle_after=0.0))
        m.setattr("privcheck.audits.stages.shows_a_sign", lambda *a: True)
        slow = audit(GridLaplace(1.0), **kw)
    assert slow.call.arguments["options"]["stages"] == 2 and "stages=2" in slow.command
    assert any(n.startswith("staged: stages of 2,048 and 8,192 draws per side") for n in slow.notes)
    with monkeypatch.context() as m:  # (the middle stage's sign as the slow run saw it)
        m.setattr("privcheck.audits.stages.shows_a_sign", lambda *a: True)
        again = audit(GridLaplace(1.0), stages=2, **kw)  # this machine: its estimate would not run a middle stage
    assert (again.epsilon_lower, again.samples_per_side, again.notes) == (slow.epsilon_lower, 2**17, slow.notes)
    fast = audit(GridLaplace(1.0), **kw)
    assert fast.call.arguments["options"]["stages"] == 1 and fast.extra["stage"] == "full"
    assert fast.epsilon_lower != slow.epsilon_lower  # (the failure probability split otherwise)
    alone = audit(GridLaplace(1.0), stages=0, **kw)
    assert "stage" not in alone.extra and not any(n.startswith("staged") for n in alone.notes)
    small = audit(GridLaplace(1.0), **{**kw, "samples": 4_000})  # a quick stage below STAGE_MIN: no estimate
    assert "stages" not in small.call.arguments["options"]
    policy = Options().with_default_samples(2000)  # a policy's quick stage always, and a middle one at a quarter
    assert pinned(policy, 1e9).stages == 2 and pinned(policy, 59.0).stages == 1
    assert pinned(Options().with_default_samples(1000), 59.0).stages is None  # a quick stage below STAGE_MIN
    assert pinned(Options().with_default_samples(1000), 1e9).stages == 1  # ... raised to it for a long audit


def test_the_options_help_says_how_short_an_audit_goes_on_after_a_quiet_refutation():
    from privcheck.audits.options import OPTION

    assert f"its full stage at most {MECHANISM_GO_ON:,} values a side" in OPTION["full_budget"].help


def test_a_long_audit_of_a_slow_agent_gets_a_quick_stage_of_64_runs_where_a_sixteenth_is_fewer():
    """Runs sized to ten minutes of a slow agent may number under a thousand a side: a sixteenth is below the 64-run
    minimum, so a long audit (estimated over a minute) is staged at 64 runs, and the plan is pinned for the seed; a
    short one is not staged; nor is a full stage under twice 64 — the least a policy's runs are sized to (200) is."""
    opts = Options().with_default_samples(965)
    assert [(name, o.samples) for name, o, _ in stages_of(opts, 600.0)] == [("quick", 64), ("full", 965)]
    assert [name for name, _, _ in stages_of(opts, 30.0)] == ["whole"]
    assert pinned(opts, 600.0).stages == 1 and pinned(opts, 30.0).stages is None
    given = replace(opts, stages=1)  # the reproduce line's: the same plan whatever the estimate
    assert [(name, o.samples) for name, o, _ in stages_of(given, 1.0)] == [("quick", 64), ("full", 965)]
    assert [name for name, _, _ in stages_of(Options().with_default_samples(127), 600.0)] == ["whole"]
    assert [(name, o.samples) for name, o, _ in stages_of(Options().with_default_samples(200), 600.0)] == [
        ("quick", 64),
        ("full", 200),
    ]
