"""Planted bugs in a policy written one object per run (examples/elimination.py: DP successive elimination): the
noise shared by all arms, the noise ten times too small, a reward leaked through the order of the arms.  The
default search finds where the policy decides, with nothing hand-built, and refutes each; the correct policy is
not refuted.  Horizons of 160 in the default tier, 1,000 (the examples' own) in the slow tier.  And a bug whose leak
grows with the arms (the leader's raw mean in every arm's test): ε-DP at two arms, about 3ε at four."""

import sys
from pathlib import Path

import pytest

from privcheck import PureDP, audit_policy

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
import elimination as el  # noqa: E402  (examples/elimination.py)

BUGS = ("shared-noise", "small-noise", "tie-leak")


def _factory(bug, batch):
    def make(n_arms, horizon, rng, epsilon):
        return el.DPSuccessiveElimination(n_arms, horizon, rng, epsilon, batch=batch, bug=bug)

    return make


@pytest.mark.parametrize(  # (the other two bugs and the correct policy: the slow tier, here and at 1,000 rounds below)
    "bug", ["tie-leak", *(pytest.param(b, marks=pytest.mark.slow) for b in (None, "shared-noise", "small-noise"))]
)
def test_the_default_search_refutes_each_planted_bug_and_not_the_policy(bug):
    r = audit_policy(_factory(bug, 25), PureDP(1.0), "table", horizon=160, samples=1000, screening=200, seed=1)
    assert r.violates_claim == (bug is not None), (bug, r.epsilon_lower, r.witness)
    if bug is not None:
        assert r.epsilon_lower > 4 and r.witness["event_text"].startswith("the action at round ")
    else:
        assert r.epsilon_lower <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("make", [el.make, el.make_shared_noise, el.make_small_noise, el.make_tie_leak])
def test_at_a_thousand_rounds(make):
    r = audit_policy(make, PureDP(1.0), "table", horizon=1000, samples=2000, screening=500, seed=1)
    assert r.violates_claim == (make is not el.make), (make.__name__, r.epsilon_lower)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@pytest.mark.parametrize("arms, samples", [(4, 1000), (2, 500)])
def test_a_leak_that_grows_with_the_arms_is_refuted_at_four_and_not_at_two(arms, samples):
    """The leader's raw mean in every other arm's test: one reward of the leader moves K − 1 tests at once.  At two
    arms that is one test, and the leader's own test reads no data: the policy is ε-DP there (not refuted, its bound
    at most 1); at four, three tests: refuted."""
    kw = dict(arms=arms, horizon=160, samples=samples, screening=200, seed=1)
    r = audit_policy(_factory("raw-leader", 25), PureDP(1.0), "table", **kw)
    assert r.violates_claim == (arms == 4), (arms, r.epsilon_lower, r.witness)


@pytest.mark.slow
@pytest.mark.parametrize("arms", [4, 2])
def test_the_leak_that_grows_with_the_arms_at_a_thousand_rounds(arms):
    r = audit_policy(el.make_raw_leader, PureDP(1.0), "table", arms=arms, horizon=1000, samples=2000, seed=1)
    assert r.violates_claim == (arms == 4), (arms, r.epsilon_lower)


@pytest.mark.slow
def test_the_report_is_the_same_with_two_workers():
    kw = dict(horizon=160, samples=1000, screening=200, seed=2)
    a = audit_policy(_factory("tie-leak", 25), PureDP(1.0), "table", **kw).to_dict()
    b = audit_policy(_factory("tie-leak", 25), PureDP(1.0), "table", workers=2, **kw).to_dict()
    for d in (a, b):
        d.pop("seconds"), d.pop("versions")
    assert a == b
