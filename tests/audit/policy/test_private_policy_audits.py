"""Policy audits that bite: every private policy's noise can be mis-calibrated from the outside
(``noise_multiplier``), its default audit instance makes private releases that decide actions, a schedule with
no release in the horizon is refused as vacuous, and the audit refutes the half-noise copies."""

import json

import numpy as np
import pytest

from privcheck.policies.adac_ucb import AdaCUCB
from privcheck.policies.gope import GOPE
from privcheck.policies.heavy_tailed import DPRobustSE, DPRobustUCB, LDPRobustSE
from privcheck.policies.oful import OFUL
from privcheck.policies.audited import audited
from privcheck.policies.registry import AUDIT_SCHEDULES, POLICIES
from privcheck.audits.policy.api import audit_policy
from privcheck.cli import main
from privcheck.core import InvalidArgument, PureDP, ZCDP

A2 = np.array([[1.0, 0.0], [0.0, 1.0]])
PRIVATE = [n for n, spec in POLICIES.items() if {"rho", "epsilon"} & set(spec.needs)]


def _claim_flags(name):
    return ["--rho", "0.5"] if "rho" in POLICIES[name].needs else ["--epsilon", "1", "--nu", "0.9"]


def test_every_private_policy_has_an_audit_instance():
    assert sorted(PRIVATE) == sorted(AUDIT_SCHEDULES)


@pytest.mark.parametrize(
    "scaled",
    [
        lambda m: AdaCUCB(2, 0.5, noise_multiplier=m).noise_sd(np.array([3.0]))[0],
        lambda m: GOPE(A2, 0.5, noise_multiplier=m).release(1.0, 2).sigma,
        lambda m: GOPE(A2, 0.5, variant="adar-gope-var", noise_multiplier=m).release(1.0, 3).sigma,
        lambda m: OFUL(2, 2, 0.5, actions=A2, noise_multiplier=m).noise_sd,
        lambda m: DPRobustUCB(2, 1.0, 0.9, 1.0, 8, noise_multiplier=m).noise_scale,
        lambda m: DPRobustSE(2, 1.0, 0.9, 1.0, noise_multiplier=m).noise_scale(5, 0.7),
        lambda m: LDPRobustSE(2, 1.0, 0.9, 1.0, noise_multiplier=m).noise_scale(1, 0.7),
    ],
    ids=["adac-ucb", "adac-gope", "adar-gope-var", "adac-oful", "dp-robust-ucb", "dp-robust-se", "ldp-robust-se"],
)
def test_the_noise_multiplier_scales_the_calibrated_noise_and_nothing_else(scaled):
    """m times the noise, up to the grid: each scale is a whole number of grid steps, rounded up."""
    assert scaled(0.5) == pytest.approx(0.5 * scaled(1.0), rel=1e-5)
    assert scaled(3.0) == pytest.approx(3.0 * scaled(1.0), rel=1e-5)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_a_bad_noise_multiplier_is_refused(bad):
    with pytest.raises(InvalidArgument, match="noise_multiplier"):
        AdaCUCB(2, 0.5, noise_multiplier=bad)


def test_the_claim_stays_the_published_one():
    assert GOPE(A2, 0.5, noise_multiplier=0.5).claim == GOPE(A2, 0.5).claim
    assert LDPRobustSE(2, 1.0, 0.9, 1.0, noise_multiplier=0.5).claim.epsilon == 1.0


@pytest.mark.parametrize("name", PRIVATE)
def test_default_instances_are_published_and_release_within_the_horizon(name):
    claim = ZCDP(0.5) if "rho" in POLICIES[name].needs else PureDP(1.0)
    inst = audited(name, arms=2, horizon=None, claim=claim, options={"nu": 0.9})
    policy, horizon, instance = inst.policy, inst.horizon, inst.note
    assert instance["schedule"] == "published" and not instance["note"].startswith("shortened")
    assert all(instance["options"].get(k, 1) == 1 for k in ("phase_scale", "width_scale"))
    if hasattr(policy, "first_release") and inst.definition != "local":
        assert policy.first_release() < horizon
        # the smallest horizon where the releases decide actions: the first release and one round per arm
        assert horizon == max(AUDIT_SCHEDULES[name].horizon, int(policy.first_release()) + 2)
    assert f"horizon {horizon}" in instance["note"] and instance["horizon"] == horizon
    assert instance["note"].startswith("published schedule")


@pytest.mark.parametrize("name", PRIVATE)
def test_the_shortened_instances_stay_as_an_option(name):
    claim = ZCDP(0.5) if "rho" in POLICIES[name].needs else PureDP(1.0)
    inst = audited(name, arms=2, horizon=None, claim=claim, options={"nu": 0.9}, schedule="shortened")
    entry, instance = AUDIT_SCHEDULES[name], inst.note
    assert inst.horizon == entry.horizon and instance["horizon"] == entry.horizon
    assert {k: instance["options"][k] for k in entry.options} == entry.options
    assert instance["schedule"] == ("shortened" if entry.options else "published")
    assert instance["note"].startswith(f"{instance['schedule']} schedule")
    if hasattr(inst.policy, "first_release"):
        assert inst.policy.first_release() < inst.horizon


def test_a_published_release_past_reach_falls_back_to_the_shortened_schedule_and_says_so():
    # LDP Robust SE's Table-DP audit: its phase 1 ends at round 2.2·10⁷ at ε = 1, ν = 0.9, K = 2
    inst = audited("ldp-robust-se", claim=PureDP(1.0), definition="table", options={"nu": 0.9})
    assert inst.horizon == 8 and inst.note["schedule"] == "shortened"
    assert "first releases at the end of round 21,878,016, past the 100,000 rounds" in inst.note["note"]
    given = audited("adac-gope", claim=ZCDP(0.5), horizon=800)  # a horizon given: the published schedule at it
    assert given.horizon == 800 and given.note["schedule"] == "published"
    with pytest.raises(InvalidArgument, match="schedule="):
        audited("kl-ucb", claim=PureDP(1.0), definition="table", horizon=4, schedule="shortened")
    with pytest.raises(InvalidArgument, match="one of published, shortened"):
        audited("adac-ucb", claim=ZCDP(0.5), schedule="short")


def test_a_schedule_without_a_release_is_vacuous_bad_input(capsys):
    assert main(["audit", "adac-gope", "--rho", "0.5", "--phase-scale", "1"]) == 2
    err = capsys.readouterr().err
    assert "vacuous: no private release within the horizon" in err and "--phase-scale" in err
    assert main(["audit", "dp-robust-se", "--epsilon", "1", "--nu", "0.9", "--width-scale", "1"]) == 2
    assert "--width-scale" in capsys.readouterr().err
    with pytest.raises(InvalidArgument, match="vacuous"):  # the Python API refuses it too
        audit_policy(GOPE(A2, 0.5), ZCDP(0.5), "interactive", horizon=8, samples=10)
    with pytest.raises(InvalidArgument, match="vacuous"):
        audit_policy(DPRobustSE(2, 1.0, 0.9, 1.0), PureDP(1.0), "table", horizon=8, samples=10)


def test_noise_multiplier_is_refused_where_there_is_no_noise(capsys):
    assert (
        main(
            [
                "audit",
                "kl-ucb",
                "--epsilon",
                "1",
                "--definition",
                "table",
                "--horizon",
                "3",
                "--noise-multiplier",
                "0.5",
            ]
        )
        == 2
    )
    assert "adds no noise" in capsys.readouterr().err
    assert main(["audit", "laplace", "--epsilon", "1", "--noise-multiplier", "0.5"]) == 2
    assert main(["audit", "adac-ucb", "--rho", "0.5", "--phase-scale", "0.5"]) == 2


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_randomized_response_policy_with_a_mis_calibrated_channel_is_refuted_exactly(capsys):
    # the feedback channel is the private part of kl-UCB-CF: its flip probability halved is ε ≈ 1.79 > 1
    base = [
        "audit",
        "kl-ucb-cf",
        "--rr-epsilon",
        "1",
        "--epsilon",
        "1",
        "--definition",
        "table",
        "--horizon",
        "4",
        "--seed",
        "1",
        "--json",
    ]
    assert main(base) == 0
    ok = json.loads(capsys.readouterr().out)
    assert main(base + ["--noise-multiplier", "0.5"]) == 1
    bad = json.loads(capsys.readouterr().out)
    assert ok["method"] == bad["method"] == "exact" and bad["epsilon_lower"] > 1.7
    assert any("flip probability is 0.5 ×" in n for n in bad["notes"])


def test_ldp_reports_half_noise_refuted_exactly(capsys):
    base = ["audit", "ldp-robust-se", "--epsilon", "1", "--nu", "0.9", "--seed", "1", "--json"]
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["epsilon_lower"] > 0.999  # the extreme pair ±B: ε itself
    assert main(base + ["--noise-multiplier", "0.5"]) == 1
    assert json.loads(capsys.readouterr().out)["epsilon_lower"] > 1.999


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_report_names_the_definition_and_the_instance(capsys):
    assert main(["audit", "adac-ucb", "--rho", "0.5", "--samples", "500", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        "as Interactive DP" in out
        and "5 adversaries" in out
        and "instance: published schedule: adac-ucb, 2 arms, horizon 8" in out
    )
    assert (
        main(["audit", "kl-ucb-cf", "--rr-epsilon", "1", "--epsilon", "1", "--definition", "table", "--horizon", "3"])
        == 0
    )
    assert "as Table DP" in capsys.readouterr().out
    assert main(
        ["audit", "adac-oful", "--rho", "0.5", "--schedule", "shortened", "--samples", "100", "--screening", "100"]
        + ["--seed", "1", "--json"]
    ) in (0, 1)
    instance = json.loads(capsys.readouterr().out)["instance"]  # a shortened schedule, said in the JSON
    assert instance["schedule"] == "shortened" and instance["options"]["width_scale"] == 1e-3


@pytest.mark.slow  # slow tier: each audit is a whole command at the policy default of 10^5 runs (12–25 s)
@pytest.mark.parametrize("name", ["adac-ucb", "adac-gope", "adar-gope-var", "adac-oful", "dp-robust-se"])
def test_the_half_noise_copy_is_refuted_and_the_policy_is_not(name, capsys):
    # on the shortened schedules (the published ones take minutes each: benchmarks/policy_power.py)
    base = ["audit", name, *_claim_flags(name), "--schedule", "shortened", "--seed", "1", "--json"]
    assert main(base) == 0
    ok = json.loads(capsys.readouterr().out)
    assert main(base + ["--noise-multiplier", "0.5"]) == 1
    bad = json.loads(capsys.readouterr().out)
    figure = "rho_lower" if "rho" in POLICIES[name].needs else "epsilon_lower"
    assert bad[figure] > ok[figure]


def test_dp_robust_ucb_audit_table_keeps_every_reward_whole_and_grows():
    policy = DPRobustUCB(2, 1.0, 0.9, 1.0, 8)
    table = policy.audit_table(8)
    bounds = [float(policy.bound(n)) for n in (1, 1, 2, 2, 3, 3, 4, 4)]  # B_⌈t/K⌉: an arm's n-th pull near round nK
    np.testing.assert_array_equal(table[:, 0], bounds)
    np.testing.assert_array_equal(table[:, 1], [-b for b in bounds])
    assert np.all(np.diff(table[:, 0]) >= 0) and table[-1, 0] > table[0, 0]


@pytest.mark.slow  # three seconds; its bound is near the claim (1.02–1.07 over seeds 1–3): a seed, not a margin
def test_dp_robust_ucb_with_a_tenth_of_its_noise_is_refuted_on_its_published_schedule(capsys):
    base = ["audit", "dp-robust-ucb", "--epsilon", "1", "--nu", "0.9", "--seed", "1", "--json"]
    assert main(base) == 0
    assert main(base + ["--noise-multiplier", "0.1"]) == 1


def test_schedule_on_a_target_without_one_is_one_clear_line(capsys):
    assert main(["audit", "laplace", "--epsilon", "1", "--schedule", "shortened"]) == 2
    assert "--schedule applies to policy targets only" in capsys.readouterr().err
    assert (
        main(
            ["audit", "kl-ucb", "--epsilon", "1", "--definition", "table", "--horizon", "4", "--schedule", "shortened"]
        )
        == 2
    )
    assert "kl-ucb is audited as given" in capsys.readouterr().err
