"""Anytime verdicts: a sampled policy audit runs a quick stage — the whole audit at a sixteenth of the runs and a
hundredth of the failure probability — and stops there when it refutes; a correct policy goes on to the full audit
at the rest; ``full_budget=True`` runs the full audit only.  (examples/elimination.py's planted reward leak is
the loud case.)"""

import sys
from pathlib import Path

import pytest

from privcheck import PureDP, audit_policy
from privcheck.audits.options import Options
from privcheck.audits.policy.stages import QUICK_SHARE, quick_seed, staged
from privcheck.audits.report import AuditReport, Call
from privcheck.audits.stats import confidence_text
from privcheck.audits.verdict import Verdict

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
    assert "shared by a quick stage and the full audit" in r.certification
    assert r.call.arguments["samples"] == 2000  # the reproduce line runs the stages again


def _report(opts, seed, refuted: bool):
    """A stage's report as the sampled audit would make it (the fields :func:`staged` reads and says)."""
    return AuditReport(
        "p",
        PureDP(1.0),
        Verdict.REFUTED if refuted else Verdict.NOT_REFUTED,
        2.0 if refuted else 0.5,
        None,
        None,
        {},
        "sample",
        opts.samples,
        opts.confidence,
        {},
        0.0,
        seed,
        certification=f"sampling: all at once with confidence {confidence_text(opts.confidence)}",
        notes=(f"certified by sampling: all at once with confidence {confidence_text(opts.confidence)}",),
        call=Call("audit_policy", "p", {"samples": opts.samples, "seed": 1}),
    )


def _staged(refute_quick: bool, **options):
    ran = []

    def run(opts, seed):
        ran.append((opts, seed))
        return _report(opts, seed, refute_quick and len(ran) == 1)

    opts = Options(**options).with_default_samples(2000)
    return staged(run, opts, 7), ran


def test_the_quick_stage_is_the_whole_audit_at_a_sixteenth_and_a_hundredth_of_the_failure_probability():
    r, ran = _staged(True)
    ((quick, seed),) = ran
    assert quick.samples == 125 and quick.screening == 125 == quick.screening_given and not quick.sized
    assert quick.confidence == pytest.approx(1 - 0.05 * QUICK_SHARE) and quick.progress is None
    assert seed == quick_seed(7) != 7
    assert r.confidence == 0.95 and r.extra["stage"] == "quick" and r.call.arguments["samples"] == 2000
    assert r.certification.endswith("confidence 95% shared by a quick stage and the full audit")
    assert r.notes[0] == f"certified by {r.certification}" and r.notes[-1].startswith("stopped early")


def test_a_stage_that_does_not_refute_leads_to_the_full_audit_at_the_rest():
    r, ran = _staged(False)
    assert [o.samples for o, _ in ran] == [125, 2000] and ran[1][1] == 7  # the full stage's draws as alone
    assert ran[1][0].confidence == pytest.approx(1 - 0.05 * (1 - QUICK_SHARE))
    assert r.extra["stage"] == "full" and r.confidence == 0.95 and r.samples_per_side == 2000
    assert r.notes[-1] == (
        "staged: a quick stage (125 runs per side, 1% of the failure probability) did not refute the claim (ε ≥ 0.5 "
        "there); the bounds are the full stage's, at the rest"
    )


@pytest.mark.parametrize("options", [dict(full_budget=True), dict(samples=1000)], ids=["full budget", "small"])
def test_the_full_budget_and_small_audits_run_once_as_they_are(options):
    r, ran = _staged(True, **options)
    assert len(ran) == 1 and ran[0] == (Options(**options).with_default_samples(2000), 7)
    assert "stage" not in r.extra and r.confidence == 0.95


def test_the_quick_seed_is_a_seed():
    assert quick_seed(1) == quick_seed(1) != quick_seed(2) and 0 <= quick_seed(2**63 - 1) < 2**63


@pytest.mark.slow
def test_the_full_budget_on_the_loud_leak_and_a_correct_policy_through_both_stages():
    r = audit_policy(leak, PureDP(1.0), "table", samples=2000, full_budget=True, **KW)
    assert r.violates_claim and r.samples_per_side == 2000 and "stage" not in r.extra
    assert "full_budget=True" in r.command
    fine = audit_policy(correct, PureDP(1.0), "table", samples=2000, **KW)
    assert not fine.violates_claim and fine.extra["stage"] == "full" and fine.samples_per_side == 2000


def test_a_quick_stage_beyond_max_hours_leaves_the_refusal_to_the_full_plan():
    from privcheck.core.resources import ResourceRefused

    ran = []

    def run(opts, seed):
        ran.append(opts.samples)
        if len(ran) == 1:
            raise ResourceRefused("the quick stage's plan is beyond max_hours")
        return _report(opts, seed, False)

    r = staged(run, Options().with_default_samples(2000), 7)
    assert ran == [125, 2000] and "stage" not in r.extra  # the full audit, as alone (it refuses when it must)
