"""P2B's agents as one contextual policy (privcheck.policies.p2b_agents): the pre-sampling probability of the
claim, the release the later users learn from (tuple thresholding hides a user whose tuple is unique, code-only
thresholding shows them), the warm model the experiment fits, and the joint audits of both thresholds."""

import math

import numpy as np
import pytest

from privcheck import ApproxDP, audit_policy
from privcheck.core import InvalidArgument
from privcheck.mechanisms.p2b import Shuffler, crowd_delta, sharing_probability_for
from privcheck.policies.p2b import released_model
from privcheck.policies.p2b_agents import P2BAgents, claim, make, make_code_threshold


@pytest.mark.parametrize("eps", [1e-6, math.log(2), 1.0, 700.0])
def test_the_sharing_probability_keeps_the_claim_as_represented(eps):
    p = sharing_probability_for(eps)
    assert 0 < p < 1 and -math.log1p(-p) <= eps * (1 + 1e-12)
    if eps == 1e-6:  # (δ*'s worst crowds are of thousands at this p: its search takes minutes)
        assert P2BAgents(2, 2, 4, np.random.default_rng(0), eps).shuffler.p == p  # the agents never ask for δ*
    elif eps < 700:
        c = claim(eps)
        assert c.epsilon >= eps and c.delta == crowd_delta(p, 10).delta


def _run(policy, contexts, rewards):
    actions = []
    for t in range(1, len(contexts) + 1):
        a = policy.act(t, contexts[t - 1])
        policy.update(t, a, rewards[t - 1])
        actions.append(a)
    return actions


@pytest.mark.parametrize("threshold_on, shown", [("tuple", False), ("code", True)])
def test_a_user_unique_inside_a_code_crowd_is_released_only_by_code_thresholding(threshold_on, shown):
    T = 80  # 40 early users, every arm of every user alike: one code, the arms tied
    contexts = np.broadcast_to([0.6, 0.0], (T, 2, 2))
    rewards = np.zeros(T)
    rewards[0] = 1.0  # one early user clicked
    seen = []
    for seed in range(20):
        p = P2BAgents(2, 2, T, np.random.default_rng(seed), 1.0, threshold_on=threshold_on)
        _run(p, contexts, rewards)
        released = p.shuffler.release(p.counts)
        seen.append(released.reshape(-1, 2)[:, 1].sum() > 0)  # any click released
        model = released_model(released, p.encoder, 2, 2)
        np.testing.assert_allclose(p.agent.init(1, model).b, p.warm.b)  # the later users' model is the release's
    assert any(seen) == shown and (not shown or 5 <= sum(seen) <= 15)  # shown when the user shared (p ≈ 0.63)


def test_the_factories_and_bad_rewards():
    rng = np.random.default_rng(0)
    assert make(2, 2, 10, rng, 1.0, 1.0).shuffler.threshold_on == "tuple"
    assert make_code_threshold(2, 2, 10, rng, 1.0, 1.0).shuffler.threshold_on == "code"
    p = make(2, 2, 10, rng, 1.0, 1.0)
    a = p.act(1, np.eye(2))
    with pytest.raises(InvalidArgument, match=r"P2B's rewards are clicks: a reward in \[0, 1\], not -1"):
        p.update(1, a, -1.0)
    assert claim(1.0) == Shuffler(sharing_probability_for(1.0), 10, 2, 2).claim


@pytest.mark.slow
def test_the_joint_audit_refutes_code_thresholding_and_not_tuple_thresholding():
    c = claim(1.0)
    said = ApproxDP(1.0, 0.0215)
    assert said.epsilon <= c.epsilon and said.delta >= c.delta
    kw = dict(arms=2, dim=2, horizon=60, seed=1, samples=3000)
    assert audit_policy(make_code_threshold, said, "joint", **kw).violates_claim
    assert not audit_policy(make, said, "joint", **kw).violates_claim
