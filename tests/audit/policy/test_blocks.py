"""Blocks: a policy whose actions are fixed for stretches (an episode's or a phase's schedule:
:class:`~privcheck.core.protocols.Steady`) runs those stretches as one step, and its draws are the same as round by
round — bit for bit, the same uniforms consumed — in Table DP, against every built-in adversary, on whole sequences
and on summaries; a summary recorded by blocks equals one recorded round by round."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck.policies.adac_ucb import AdaCUCB
from privcheck.audits.policy.relations import Interactive, Table
from privcheck.policies.gope import GOPE
from privcheck.policies.heavy_tailed import DPRobustSE, LDPRobustSE
from privcheck.policies.oful import OFUL
from privcheck.audits.policy import adapters
from privcheck.audits.policy.adapters import InteractiveMechanism, PolicyMechanism
from privcheck.audits.policy.adversaries import adversaries
from privcheck.audits.policy.summaries import ActionSummary
from privcheck.core.protocols import Steady, provides

A2 = np.array([[1.0, 0.0], [-1.0, 0.0]])
POLICIES = {
    "adac-ucb": lambda: AdaCUCB(2, 0.5),
    "ldp-robust-se": lambda: LDPRobustSE(2, 1.0, 0.9, 1.0, width_scale=1e-3),
    "adac-gope": lambda: GOPE(A2, 0.5, phase_scale=1e-3),
    "dp-robust-se": lambda: DPRobustSE(2, 1.0, 0.9, 1.0, width_scale=1e-3),
    "adac-oful": lambda: OFUL(2, 2, 0.5, actions=A2, width_scale=1e-3),
    "adac-oful (3 actions)": lambda: OFUL(3, 2, 0.5, actions=np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8]])),
}


def _both(make_mech, x, seed, runs):
    fast, slow = make_mech(), make_mech()
    slow.blocks = False
    return fast.sample(x, np.random.default_rng(seed), runs), slow.sample(x, np.random.default_rng(seed), runs)


def _table(policy, T, seed):
    """Rewards at the policy's two extremes, flipped at random: the runs' decisions go both ways."""
    x = policy.audit_table(T) if hasattr(policy, "audit_table") else np.ones((T, 2))
    flip = np.random.default_rng(seed).random(x.shape) < 0.5
    return np.where(flip, -x, x) if x.min() < 0 else np.where(flip, 1 - x, x)


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(sorted(POLICIES)),
    st.integers(2, 300),
    st.integers(1, 9),
    st.integers(0, 2**32 - 1),
    st.sampled_from([None, *adversaries(2)]),
    st.booleans(),
)
@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_blocks_draw_what_rounds_draw(name, T, runs, seed, adversary, summarised):
    policy = POLICIES[name]()
    assert provides(policy, Steady)
    x = _table(policy, T, seed)
    with pytest.MonkeyPatch.context() as mp:
        if summarised:  # summaries from 16 rounds on: blocks cross windows and chosen rounds
            mp.setattr(adapters, "FULL_SEQUENCE_ROUNDS", 16)
        if adversary is None:
            a, b = _both(lambda: PolicyMechanism(policy, T, Table()), x, seed, runs)
        else:
            adv = adversaries(2)[adversary]
            a, b = _both(lambda: InteractiveMechanism(policy, T, Interactive(), adv), x, seed, runs)
    np.testing.assert_array_equal(a, b)


def test_small_blocks_and_a_history_keeping_adversary(monkeypatch):
    policy, T = AdaCUCB(2, 0.5), 400
    x = _table(policy, T, 3)
    whole, _ = _both(lambda: PolicyMechanism(policy, T, Table()), x, 7, 12)
    monkeypatch.setattr(adapters, "BLOCK_CELLS", 24)  # blocks of 2 rounds at 12 runs
    small, rounds = _both(lambda: PolicyMechanism(policy, T, Table()), x, 7, 12)
    np.testing.assert_array_equal(small, whole)
    np.testing.assert_array_equal(rounds, whole)

    def reader(recs, t, k):  # a user's adversary reads the whole history: no blocks, the same protocol
        return (recs[:, -1] + (recs.shape[1] % 2)) % k

    a, b = _both(lambda: InteractiveMechanism(policy, T, Interactive(), reader), x, 7, 12)
    np.testing.assert_array_equal(a, b)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(1, 200), st.integers(1, 6), st.integers(0, 2**32 - 1), st.data())
def test_a_summary_recorded_by_blocks_equals_one_recorded_by_rounds(K, T, n, seed, data):
    acts = np.random.default_rng(seed).integers(0, K, (n, T))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, T), max_size=6))) | {0, T})
    s = ActionSummary(K, T, first_release=T // 3)
    by_rounds, by_blocks = s.start(n), s.start(n)
    for t in range(1, T + 1):
        s.record(by_rounds, t, acts[:, t - 1])
    for a, b in zip(cuts, cuts[1:]):
        if b - a == 1:
            s.record(by_blocks, b, acts[:, a])
        elif b > a:
            s.record_block(by_blocks, a + 1, acts[:, a:b])
    np.testing.assert_array_equal(s.finish(by_blocks), s.finish(by_rounds))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(0, 9), min_size=2, max_size=4), st.integers(0, 2**32 - 1))
def test_a_block_plans_and_sums_as_its_rounds_do(runs, todo, seed):
    from privcheck.policies.episodes import init_episodes, next_arms, planned_arms, record, record_block

    ep = init_episodes(runs, len(todo), np.array(todo) + np.arange(len(todo)) % 2)
    plan = planned_arms(ep, 50)
    assert plan.shape[1] == min(50, max(int(ep.todo.sum(axis=1).min()) - 1, 0))
    feedback = np.random.default_rng(seed).normal(size=plan.shape) * 1e3
    block, rounds = record_block(ep, feedback), ep
    for j in range(plan.shape[1]):
        np.testing.assert_array_equal(next_arms(rounds), plan[:, j])
        rounds, ended = record(rounds, feedback[:, j])
        assert not ended.any()  # the last pull of an episode is never in a block
    for mine, theirs in zip(block, rounds):
        np.testing.assert_array_equal(mine, theirs)  # the sums bit for bit
