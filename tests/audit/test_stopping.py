"""Stopping when decided: certification in looks at samples/4^j draws per side, the failure probability split
over them (an interim share of 0.1), stopping at the first look that refutes the claim.  Every bound reported
holds at the stated confidence wherever it stopped (union bound over the looks)."""

import pytest

from privcheck.mechanisms.laplace import GridLaplace

from privcheck import PureDP, ReplaceOne, audit
from privcheck.audits.sampling import FIRST_LOOK, INTERIM_SHARE, looks

CLAIM = PureDP(1.0, ReplaceOne("l1", 1.0))


def half_noise(x, rng, size):
    return x[0] + rng.laplace(0.0, 0.5, size)


right_noise = GridLaplace(epsilon=1.0)  # (a float rng.laplace leaks through its bits)


@pytest.mark.parametrize("samples", [1, 999, 3999, 4000, 64_000, 10**6, 10**9])
def test_the_looks_spend_the_failure_probability_once(samples):
    plan = looks(samples, True)
    assert plan[-1][0] == samples and sum(s for _, s in plan) == pytest.approx(1.0, abs=1e-12)
    assert all(a < b for (a, _), (b, _) in zip(plan, plan[1:]))
    assert plan[0][0] >= FIRST_LOOK or len(plan) == 1
    if len(plan) > 1:
        assert sum(s for _, s in plan[:-1]) == pytest.approx(INTERIM_SHARE)
    assert looks(samples, False) == [(samples, 1.0)]


def test_a_planted_bug_stops_at_the_first_look_and_says_so():
    kw = dict(pairs=[([0.0], [1.0])], samples=256_000, seed=3)
    r = audit(half_noise, CLAIM, stop_early=True, **kw)
    assert r.violates_claim and r.samples_per_side == r.witness["looks"]["stopped_at"] < 256_000
    assert r.witness["counts"]["samples"] == r.samples_per_side
    assert any("stopped early: refuted" in n for n in r.notes)
    assert "--stop-early" in r.command or "stop_early=True" in r.command


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_correct_mechanism_runs_to_the_end_at_a_small_price():
    kw = dict(pairs=[([0.0], [1.0])], samples=256_000, seed=4)
    once = audit(right_noise, CLAIM, method="sample", **kw)
    staged = audit(right_noise, CLAIM, method="sample", stop_early=True, **kw)
    assert not staged.violates_claim and staged.samples_per_side == 256_000
    assert staged.witness["looks"]["stopped_at"] == 256_000
    assert staged.epsilon_lower > 0.9 * once.epsilon_lower  # other draws, and 0.9 of the failure probability


def test_stop_early_must_be_a_boolean():
    from privcheck import InvalidArgument

    with pytest.raises(InvalidArgument, match="stop_early"):
        audit(half_noise, CLAIM, pairs=[([0.0], [1.0])], samples=1000, stop_early="yes")


@pytest.mark.parametrize("eps, refuted", [(1e-6, True), (700.0, False)])
def test_looks_at_the_edges_of_the_claim(eps, refuted):
    """A claim far below the truth stops at the first look; one far above it is never refuted at any look."""
    claim = PureDP(eps, ReplaceOne("l1", 1.0))
    r = audit(half_noise, claim, pairs=[([0.0], [1.0])], samples=64_000, seed=6, stop_early=True)
    assert r.violates_claim == refuted
    assert r.samples_per_side == (looks(64_000, True)[0][0] if refuted else 64_000)
