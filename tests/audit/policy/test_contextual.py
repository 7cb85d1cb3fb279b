"""Contextual policies as the field writes them (``act(t, contexts)``): audited under Table DP with the contexts
public — drawn once on the unit sphere, or given — the neighbours differing in one round's rewards."""

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, audit_policy
from privcheck.audits.policy.relations import Interactive, Table
from privcheck.core.sequential import as_policy, public_contexts


class ContextualCommit:
    """Explore four rounds, then play the arm whose context is most aligned with the sign of a noisy reward sum
    (Laplace(scale/ε) on a sum of sensitivity 1: ε-DP at scale 1)."""

    def __init__(self, n_arms, dim, rng, epsilon, scale=1.0):
        self.rng, self.b, self.total, self.w, self.dim = rng, scale / epsilon, 0.0, None, dim

    def act(self, t, contexts):
        if t <= 4:
            return (t - 1) % contexts.shape[0]
        if self.w is None:
            self.w = np.sign(self.total - 2.0 + self.rng.laplace(0.0, self.b)) * np.eye(self.dim)[0]
        return int(np.argmax(contexts @ self.w))

    def update(self, t, arm, reward):
        if t <= 4:
            self.total += reward


def make(n_arms, dim, rng, epsilon):
    return ContextualCommit(n_arms, dim, rng, epsilon)


def make_leaky(n_arms, dim, rng, epsilon):
    return ContextualCommit(n_arms, dim, rng, epsilon, scale=0.02)  # the planted bug: 1/50 of the noise


KW = dict(arms=3, horizon=10, samples=1000, seed=1)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_default_search_refutes_a_contextual_planted_bug_and_not_the_policy():
    bug = audit_policy(make_leaky, PureDP(1.0), "table", **KW)
    assert bug.violates_claim and bug.epsilon_lower > 3
    assert any("contextual (act(t, contexts))" in n and "public" in n for n in bug.notes)
    fine = audit_policy(make, PureDP(1.0), "table", **KW)
    assert not fine.violates_claim


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_contexts_drawn_on_the_sphere_or_given_and_checked():
    c = public_contexts(3, 10, 4)
    assert c.shape == (10, 3, 4) and np.allclose(np.linalg.norm(c, axis=2), 1.0)
    np.testing.assert_array_equal(c, public_contexts(3, 10, 4))  # the same in every audit
    policy = as_policy(make, n_arms=3, horizon=10, claim=PureDP(1.0), dim=4)
    np.testing.assert_array_equal(policy.contexts, c)
    given = np.tile(np.eye(3)[None, :, :2], (10, 1, 1))
    r = audit_policy(make_leaky, PureDP(1.0), "table", contexts=given, **KW)
    assert r.violates_claim and any("as given" in n for n in r.notes)
    with pytest.raises(InvalidArgument, match="contexts= must be numbers of shape"):
        as_policy(make, n_arms=3, horizon=10, claim=PureDP(1.0), contexts=given[:5])
    with pytest.raises(InvalidArgument, match="contexts= applies to a contextual policy"):
        as_policy(lambda rng: _Plain(), n_arms=3, horizon=10, claim=PureDP(1.0), contexts=given)


class _Plain:
    def act(self, t):
        return 0

    def update(self, t, arm, reward):
        pass


@pytest.mark.slow  # slow tier (that workers change no report: the default tier's tests/core/test_execution.py)
def test_a_contextual_audit_is_the_same_on_two_workers():
    one = audit_policy(make_leaky, PureDP(1.0), "table", **KW)
    two = audit_policy(make_leaky, PureDP(1.0), "table", workers=2, **KW)
    assert one.epsilon_lower == two.epsilon_lower and one.witness == two.witness


class SelectShaped:
    """The same policy in LinUCB's shape, as papers' code writes it: select(x) given the round's contexts,
    update(x, arm, reward), its own round counter, arms numbered from 1."""

    def __init__(self, K, d, random_state, eps):
        self.inner, self.t = ContextualCommit(K, d, random_state, eps), 0

    def select(self, x):
        self.t += 1
        return self.inner.act(self.t, x) + 1

    def update(self, x, a, r):
        assert x.shape[1] == self.inner.dim  # told the contexts it chose with
        self.inner.update(self.t, a - 1, r)


def test_linucbs_select_shape_runs_as_the_contextual_protocol():
    from privcheck import adapters
    from privcheck.audits.policy.adapters import PolicyMechanism

    table = np.random.default_rng(5).random((10, 3)).round()
    ref = as_policy(make, n_arms=3, horizon=10, claim=PureDP(1.0))
    adapted = as_policy(adapters.select(SelectShaped, one_based=True), n_arms=3, horizon=10, claim=PureDP(1.0))
    assert "privcheck.adapters.select" in adapted.adapter_note and "K = n_arms" in adapted.adapter_note
    runs = [PolicyMechanism(p, 10, Table()).sample(table, np.random.default_rng(3), 64) for p in (ref, adapted)]
    np.testing.assert_array_equal(*runs)
    with pytest.raises(Exception, match="one_based=True"):  # recognised, but its arms are numbered from 1
        audit_policy(SelectShaped, PureDP(1.0), "table", arms=3, horizon=10, samples=200, screening=100, seed=1)


class SignedCommit(ContextualCommit):
    """The same decision on rewards in [−1, 1]: a reward moves the sum by up to 2, the noise scale 2/ε."""

    def __init__(self, n_arms, dim, rng, epsilon, scale=2.0):
        super().__init__(n_arms, dim, rng, epsilon, scale)

    def act(self, t, contexts):
        if t <= 4:
            return (t - 1) % contexts.shape[0]
        if self.w is None:
            self.w = np.sign(self.total + self.rng.laplace(0.0, self.b)) * np.eye(self.dim)[0]
        return int(np.argmax(contexts @ self.w))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_rewards_in_minus_one_one_are_searched_between_their_extremes():
    def half(n_arms, dim, rng, epsilon):  # calibrated for [0, 1]: half the noise [−1, 1] needs
        return SignedCommit(n_arms, dim, rng, epsilon, scale=1.0)

    def fine(n_arms, dim, rng, epsilon):
        return SignedCommit(n_arms, dim, rng, epsilon)

    kw = dict(KW, reward_range=(-1, 1), samples=1000)
    bug = audit_policy(half, PureDP(1.0), "table", **kw)
    assert bug.violates_claim and np.asarray(bug.witness["pair"]).min() == -1.0
    assert not audit_policy(fine, PureDP(1.0), "table", **kw).violates_claim
    with pytest.raises(InvalidArgument, match="outside reward_range=\\(-1, 1\\)"):
        audit_policy(fine, PureDP(1.0), "table", input=np.full((10, 3), 2.0), **kw)
    with pytest.raises(InvalidArgument, match="lo < hi"):
        audit_policy(fine, PureDP(1.0), "table", **dict(kw, reward_range=(1, -1)))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_action_sets_whose_size_changes_by_round():
    seen = []

    class Sizes:  # records the size of each action set; plays the last arm offered
        def __init__(self, rng):
            pass

        def act(self, t, contexts):
            seen.append(contexts.shape[0])
            return contexts.shape[0] - 1

        def update(self, t, arm, reward):
            pass

    from privcheck.audits.policy.adapters import PolicyMechanism

    c = public_contexts(3, 4, 2)
    c[1, 2] = np.nan  # round 2: arms 0 and 1 only
    c[2, [0, 2]] = np.nan  # round 3: arm 1 only
    policy = as_policy(Sizes, n_arms=3, horizon=4, claim=PureDP(1.0), contexts=c)
    draws = PolicyMechanism(policy, 4, Table()).sample(np.zeros((4, 3)), np.random.default_rng(0), 2)
    np.testing.assert_array_equal(draws, [[2, 1, 1, 2]] * 2)  # the run's index among the arms offered, mapped back
    assert seen[-8:] == [3, 3, 2, 2, 1, 1, 3, 3]  # two runs, round by round
    leaky = audit_policy(make_leaky, PureDP(1.0), "table", contexts=c[None].repeat(3, 0).reshape(12, 3, 2)[:10], **KW)
    assert leaky.violates_claim
    half = c.copy()
    half[0, 0, 1] = np.nan  # a row partly NaN
    with pytest.raises(InvalidArgument, match="a whole row of NaN"):
        as_policy(Sizes, n_arms=3, horizon=4, claim=PureDP(1.0), contexts=half)
    none = c.copy()
    none[3] = np.nan
    with pytest.raises(InvalidArgument, match="no arm is offered at round 4"):
        as_policy(Sizes, n_arms=3, horizon=4, claim=PureDP(1.0), contexts=none)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_an_interactive_adversary_chooses_the_contexts_from_the_recommendations():
    from privcheck.audits.policy.adapters import InteractiveMechanism
    from privcheck.audits.policy.adversaries import adversaries

    seen = []

    class Signs:  # plays 1 at round 1, then arm 0; records the sign of its contexts' first feature
        def __init__(self, rng):
            pass

        def act(self, t, contexts):
            seen.append(np.sign(contexts[0, 0]))
            return 1 if t == 1 else 0

        def update(self, t, arm, reward):
            pass

    c = np.abs(public_contexts(2, 3, 2))  # every first feature positive
    policy = as_policy(Signs, n_arms=2, horizon=3, claim=PureDP(1.0), contexts=c)
    adv = adversaries(2, contextual=True)["mirroring-contexts"]
    InteractiveMechanism(policy, 3, Interactive(), adv).sample(np.zeros((3, 2)), np.random.default_rng(0), 1)
    assert seen[-3:] == [1.0, -1.0, 1.0]  # round 2 follows round 1's arm 1: reversed; round 3 follows arm 0
    r = audit_policy(
        make_leaky, PureDP(1.0), "interactive", arms=3, horizon=10, samples=300, screening=100, seed=1, full_budget=True
    )  # (full_budget: every adversary sampled, after the first that refutes too)
    assert "mirroring-contexts" in r.extra["per_adversary_epsilon_lower"] and r.violates_claim


def test_a_report_of_contexts_with_arms_not_offered_is_json():
    import json

    c = public_contexts(3, 10, 2)
    c[6, 1] = np.nan  # after the policy's first four rounds
    r = audit_policy(make_leaky, PureDP(1.0), "table", contexts=c, screening=100, **dict(KW, samples=300))
    d = json.loads(r.to_json(allow_nan=False))
    assert d["verdict"] == r.verdict.value
