"""Anytime verdicts: once the input search has kept its pairs, a sampled policy audit samples a quick stage — a
sixteenth of the runs at a hundredth of the failure probability — and stops there when it refutes; a correct policy
goes on to the full sampling at the rest; ``full_budget=True`` samples the full plan only.
(examples/elimination.py's planted reward leak is the loud case.)"""

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from privcheck import PureDP, audit_policy
from privcheck.audits.figures import Figures
from privcheck.audits.options import Options
from privcheck.audits.policy.stages import QUICK_SHARE, quick_seed, run_stages, said_at, stages_of
from privcheck.audits.stats import confidence_text
from privcheck.core.enclosure import Enclosure

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
import elimination as el  # noqa: E402  (examples/elimination.py)

KW = dict(horizon=160, screening=200, seed=1)


def leak(n_arms, horizon, rng, epsilon):
    """The planted reward leak through the order of the arms, at phases short enough for 160 rounds."""
    return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=25, bug="tie-leak")


def correct(n_arms, horizon, rng, epsilon):
    return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=25)


def test_a_loud_leak_stops_at_the_quick_stage_and_says_so():
    r = audit_policy(leak, PureDP(1.0), "table", samples=2000, **KW)
    assert r.violates_claim and r.extra["stage"] == "quick"
    assert r.samples_per_side == 125 and r.confidence == 0.95
    assert any(n.startswith("stopped early: a quick stage (125 runs per side") for n in r.notes)
    assert "shared by a quick stage and the full sampling" in r.certification
    assert r.call.arguments["samples"] == 2000  # the reproduce line runs the stages again


def _result(eps: float):
    """An engine's result as :func:`run_stages` reads it: its certified figures (ε's lower end)."""
    return SimpleNamespace(figures=Figures(Enclosure.lower(eps), None, {}, Enclosure.lower(0.0)))


def _staged(refute_quick: bool, **options):
    ran = []

    def engine(opts, seed):
        ran.append((opts, seed))
        return "adversary", _result(2.0 if refute_quick and len(ran) == 1 else 0.5), {}

    opts = Options(**options).with_default_samples(2000)
    return run_stages(PureDP(1.0), opts, 7, engine), ran


def test_the_quick_stage_samples_a_sixteenth_at_a_hundredth_of_the_failure_probability():
    (stage, at, out, note), ran = _staged(True)
    ((quick, seed),) = ran
    assert quick.samples == 125 == at.samples and quick.screening == 125 and quick.progress is None
    assert quick.confidence == pytest.approx(1 - 0.05 * QUICK_SHARE) and seed == quick_seed(7) != 7
    assert stage == "quick" and note.startswith("stopped early: a quick stage (125 runs per side")
    said = said_at(f"all at once with confidence {confidence_text(at.confidence)}", at.confidence, 0.95, stage)
    assert said == "all at once with confidence 95% shared by a quick stage and the full sampling"


def test_a_stage_that_does_not_refute_leads_to_the_full_sampling_at_the_rest():
    (stage, at, out, note), ran = _staged(False)
    assert [o.samples for o, _ in ran] == [125, 2000] and ran[1][1] == 7  # the full stage's draws as alone
    assert at.confidence == pytest.approx(1 - 0.05 * (1 - QUICK_SHARE)) and stage == "full"
    assert note == (
        "staged: a quick stage (125 runs per side, 1% of the failure probability) did not refute the claim (ε ≥ 0.5 "
        "there); the bounds are the full stage's, at the rest"
    )


@pytest.mark.parametrize("options", [dict(full_budget=True), dict(samples=1000)], ids=["full budget", "small"])
def test_the_full_budget_and_small_audits_sample_once_as_they_are(options):
    (stage, at, out, note), ran = _staged(True, **options)
    assert len(ran) == 1 and ran[0] == (Options(**options).with_default_samples(2000), 7) and at is ran[0][0]
    assert stage == "whole" and note is None and stages_of(at)[0][0] == "whole"


def test_the_quick_seed_is_a_seed():
    assert quick_seed(1) == quick_seed(1) != quick_seed(2) and 0 <= quick_seed(2**63 - 1) < 2**63


@pytest.mark.slow
def test_the_full_budget_on_the_loud_leak_and_a_correct_policy_through_both_stages():
    r = audit_policy(leak, PureDP(1.0), "table", samples=2000, full_budget=True, **KW)
    assert r.violates_claim and r.samples_per_side == 2000 and "stage" not in r.extra
    assert "full_budget=True" in r.command
    fine = audit_policy(correct, PureDP(1.0), "table", samples=2000, **KW)
    assert not fine.violates_claim and fine.extra["stage"] == "full" and fine.samples_per_side == 2000
