"""The releases view (issue 72, item 4): what a policy publishes, audited instead of its actions.  A policy whose
noisy statistic is released every round but whose actions hide it (it explores in turn, whatever the data, for
the horizon audited) passes an audit of its actions at ε ≥ 0 whatever its noise; read where it publishes, the raw
statistic and half its noise are refuted and the calibrated one is not."""

from fractions import Fraction

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, ZCDP, audit_policy
from privcheck.mechanisms.exact_sampling import discrete_gaussian

GRID = 2.0**-20


class RoundRobinWithReleases:
    """Plays the arms in turn and publishes, after each update, ``sums``: each arm's reward sum plus exact Gaussian
    noise of standard deviation ``sd`` on a grid, redrawn every round (``fresh``) — each round's release ρ-zCDP for
    one reward in [0, 1] at ρ = 1/(2 sd²)·(1 + 2^−20)², composed over the T releases a reward enters."""

    def __init__(self, n_arms, rng, sd, fresh=True, horizon=8):
        self.k, self.sd, self.fresh = n_arms, sd, fresh
        self.raw = np.zeros(n_arms, dtype=np.int64)
        self.sums = None  # nothing published before the first update
        steps = max(1, int(np.ceil(sd / GRID)))
        # every round's noise drawn at once (one call a run: the same law as a draw a round); none for sd = 0
        draws = discrete_gaussian(rng, Fraction(steps * steps), horizon * n_arms, t=steps) if sd > 0 else None
        self.noises = None if draws is None else draws.reshape(horizon, -1)

    def act(self, t):
        return (t - 1) % self.k

    def update(self, t, arm, reward):
        self.raw[arm] += int(round(reward / GRID))
        if self.sd == 0:
            self.sums = self.raw * GRID
            return
        noise = self.noises[t - 1 if self.fresh else 0]
        self.sums = (self.raw + noise) * GRID


def _make(sd, fresh=True):
    def make(n_arms, rng):
        return RoundRobinWithReleases(n_arms, rng, sd, fresh)

    make.__name__ = f"releases_sd_{sd}"
    return make


# one reward enters its arm's sum for the 4 − t releases after it at T = 4; the worst is the first round's: 4 releases
# of sensitivity 1 each: ρ = 4/(2 sd²) — sd = 2 gives ρ = 0.5
T, CLAIM = 4, ZCDP(0.5)
KW = dict(horizon=T, samples=1000, screening=200, seed=1, classifier="off", workers=1)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_actions_say_nothing_and_the_releases_say_it_all():
    actions = audit_policy(_make(0.0), CLAIM, "table", **KW)
    assert not actions.violates_claim and actions.epsilon_lower == 0.0  # round robin: the actions read no data
    raw = audit_policy(_make(0.0), CLAIM, "table", releases=("sums",), **KW)
    assert raw.violates_claim and any("outputs are what the policy publishes" in n for n in raw.notes)


@pytest.mark.slow  # (8 s: exact noise drawn by every run object)
def test_the_calibrated_release_passes_and_half_its_noise_does_not():
    ok = audit_policy(_make(2.0), CLAIM, "table", releases="sums", **KW)
    assert not ok.violates_claim, str(ok)
    bug = audit_policy(_make(0.5), CLAIM, "table", releases="sums", **KW)  # ρ = 8: sixteen times the claim
    assert bug.violates_claim


def test_releases_are_refused_where_they_cannot_be_read():
    with pytest.raises(InvalidArgument, match="releases= applies to table, view and joint audits"):
        audit_policy(_make(2.0), PureDP(1.0), "interactive", horizon=T, releases="sums")
    with pytest.raises(InvalidArgument, match="must name attributes of the policy's runs"):
        audit_policy(_make(2.0), PureDP(1.0), "table", horizon=T, releases=("not a name",))
    with pytest.raises(InvalidArgument, match='with releases= use "sample"'):
        audit_policy(_make(2.0), PureDP(1.0), "table", horizon=T, releases="sums", method="exact")


def test_a_missing_release_is_named(run, tmp_path):
    from privcheck import TargetError

    with pytest.raises(TargetError, match="releases names 'V', which its runs do not have after round 1's update"):
        audit_policy(_make(2.0), CLAIM, "table", releases=("V",), **KW)


class BatchedSums:
    """A batched policy (the protocol of privcheck's built-ins): round robin, its state's ``sums`` the raw running
    sums of each arm, one row a run — published raw."""

    n_arms, n_uniforms, name = 2, 0, "batched-sums"

    def init(self, runs):
        return {"sums": np.zeros((runs, 2))}

    def act(self, state, t, u):
        return np.full(state["sums"].shape[0], (t - 1) % 2)

    def update(self, state, t, arms, feedback, u):
        sums = state["sums"].copy()
        sums[np.arange(sums.shape[0]), arms] += feedback
        return _State(sums)


class _State(dict):
    def __init__(self, sums):
        super().__init__(sums=sums)
        self.sums = sums


def test_a_batched_policy_publishes_from_its_state():
    r = audit_policy(BatchedSums(), CLAIM, "table", releases="sums", **KW)
    assert r.violates_claim
    from privcheck.audits.policy.adapters import released

    state = _State(np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(released(BatchedSums(), state, ("sums",), 3, 1, "b"), state.sums)


class ContextualSums:
    """A contextual run (``act(t, contexts)``) that publishes ``total``, the raw sum of the rewards it has seen."""

    def __init__(self, n_arms, rng):
        self.rng, self.total = rng, 0.0

    def act(self, t, contexts):
        return int(self.rng.integers(len(contexts)))

    def update(self, t, arm, reward):
        self.total += reward


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_joint_dp_reads_what_a_contextual_policy_publishes():
    r = audit_policy(ContextualSums, CLAIM, "joint", releases="total", **KW)
    assert r.violates_claim and r.definition == "joint"
    assert any("outputs are what the policy publishes" in n for n in r.notes)


class PublishesByMethod(RoundRobinWithReleases):
    """The same policy publishing through a method: ``releases()`` returns a dict of its released statistics."""

    def releases(self):
        return None if self.sums is None else {"sums": self.sums, "rounds": np.array([1.0])}


def test_a_releases_method_is_called_and_the_first_sentence_says_what_was_read():
    from privcheck.audits.present.text import report_text

    def make(n_arms, rng):
        return PublishesByMethod(n_arms, rng, 0.0)

    r = audit_policy(make, CLAIM, "table", releases="releases", **{**KW, "samples": 300, "screening": 100})
    assert r.violates_claim, str(r)
    assert "as Table DP (read on what the policy publishes: releases) is REFUTED" in report_text(r).splitlines()[0]
