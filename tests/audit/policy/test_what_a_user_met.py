"""What a researcher met bringing their own contextual code (issue 71): each ends as they would expect — a false
refutation of a correct policy run in blocks, a reward range widened in silence, a claim parameter overridden by
``--set``, hints that did not parse, a contextual ``get_arm(contexts)`` read as a round, whole arrays printed for a
pair that is not one, contexts of the wrong dimension reaching the user's code, messages in privcheck's own words,
and a script without a main guard running its audit three times."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, TargetError, audit_policy
from privcheck.audits.policy.relations import Joint
from privcheck.audits.policy.joint import JointMechanism, joint_input
from privcheck.core.foreign import shape_of
from privcheck.core.sequential import as_policy

T, K, D = 12, 2, 2


def _contexts(seed=3):
    c = np.random.default_rng(seed).normal(size=(T, K, D))
    return c / np.linalg.norm(c, axis=2, keepdims=True)


class GreedyOnContexts:
    """A batched contextual policy that plays the arm whose context has the larger first feature: every other
    user's action reads their own context only (joint 0-DP).  Its rewards only decide whether it says its next
    rounds as a block (:class:`~privcheck.core.protocols.Steady`) — planned from its own public contexts."""

    n_arms, n_uniforms, contextual, context_bound, name = K, 1, True, 1.0, "greedy-on-contexts"

    def __init__(self):
        self.contexts = _contexts()

    def init(self, runs):
        return np.zeros(runs)

    def act(self, state, t, u, contexts=None):
        return np.argmax(contexts[:, :, 0], axis=1)

    def update(self, state, t, arms, feedback, u, contexts=None):
        return state + feedback

    def steady(self, state, t, most):
        if not (state >= 1).all():
            return np.empty((state.shape[0], 0), dtype=np.int64)
        plan = np.argmax(self.contexts[t - 1 : t - 1 + min(most, T - t + 1), :, 0], axis=1)
        return np.broadcast_to(plan, (state.shape[0], plan.size)).astype(np.int64).copy()

    def accumulate(self, state, t, arms, feedback, u):
        return state + feedback.sum(axis=1)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_correct_policy_that_runs_in_blocks_is_not_refuted_under_joint_dp():
    """Before, a block planned from the policy's own contexts ignored the input's (and wrote the changed user's own
    action): refuted at ε ≥ 2.59 on this seed, its true joint ε being 0."""
    r = audit_policy(GreedyOnContexts(), PureDP(1.0), "joint", horizon=T, seed=1, samples=300, screening=100)
    assert not r.violates_claim and r.epsilon_lower == 0.0, str(r)


def test_a_joint_run_draws_what_it_draws_round_by_round():
    policy = GreedyOnContexts()
    x = joint_input(np.ones((T, K)), -policy.contexts, 4)  # contexts unlike the policy's own, rewards that unlock
    blocks, rounds = JointMechanism(policy, T, Joint()), JointMechanism(policy, T, Joint())
    rounds.blocks = False
    a = blocks.sample(x, np.random.default_rng(0), 50)
    np.testing.assert_array_equal(a, rounds.sample(x, np.random.default_rng(0), 50))
    assert (a[:, 4] == 0).all()  # the changed user's own action left out


def test_rewards_outside_the_range_are_refused_the_default_range_too():
    make = GetArmContexts
    with pytest.raises(InvalidArgument, match=r"the reward 1.5, outside reward_range=\(0, 1\)"):
        audit_policy(make, PureDP(1.0), "table", horizon=4, input=[[0, 1.5]] * 4, reward_range=(0, 1))
    with pytest.raises(InvalidArgument, match=r"the reward 5, outside \[0, 1\], the default reward_range"):
        audit_policy(make, PureDP(1.0), "table", horizon=4, pairs=[([[0, 0]] * 4, [[5, 5]] + [[0, 0]] * 3)])


def test_factory_args_do_not_override_the_claim_and_a_missing_delta_says_delta():
    with pytest.raises(InvalidArgument, match="factory_args= gives epsilon, a parameter of the claim"):
        audit_policy(GetArmContexts, PureDP(1.0), "joint", horizon=T, factory_args={"epsilon": 2})
    with pytest.raises(InvalidArgument, match="factory_args= gives eps, a parameter of the claim"):
        audit_policy(GetArmContexts, PureDP(1.0), "joint", horizon=T, factory_args={"eps": 2})
    with pytest.raises(InvalidArgument, match="factory_args= gives horizon, which the audit gives"):
        audit_policy(GetArmContexts, PureDP(1.0), "joint", horizon=T, factory_args={"horizon": 3})

    def make(n_arms, rng, epsilon, delta):
        return GetArmContexts(n_arms, rng)

    with pytest.raises(InvalidArgument, match="takes delta, a parameter of the claim.*state a claim with delta="):
        audit_policy(make, PureDP(1.0), "joint", horizon=T)


class GetArmContexts:
    """A contextual run in the shape ``get_arm(contexts)`` / ``update(arm, reward)``."""

    def __init__(self, n_arms, rng):
        self.rng = rng

    def get_arm(self, contexts):
        return int(np.argmax(contexts[:, 0] + 0.1 * self.rng.random(len(contexts))))

    def update(self, arm, reward):
        pass


def test_get_arm_of_the_contexts_is_a_contextual_policy():
    assert shape_of(GetArmContexts(2, None)) == "get_arm_contexts"
    policy = as_policy(GetArmContexts, n_arms=2, horizon=6, claim=PureDP(1.0), name="GetArmContexts")
    assert policy.contexts.shape == (6, 2, 2) and "get_arm(contexts)" in policy.adapter_note
    c = np.zeros((6, 2, 2))
    c[:, 1, 0] = 1.0  # arm 1 leads every round
    draws = JointMechanism(policy, 6, Joint()).sample(joint_input(np.zeros((6, 2)), c, 2), np.random.default_rng(0), 3)
    np.testing.assert_array_equal(draws, [[1, 1, 0, 1, 1, 1]] * 3)


def test_a_run_answering_with_every_arms_score_is_told_so_in_its_own_words():
    class Scores(GetArmContexts):
        def get_arm(self, contexts):
            return contexts[:, 0]

    with pytest.raises(TargetError, match=r"get_arm\(contexts\) returned 2 values .*int\(np.argmax\(scores\)\)"):
        audit_policy(Scores, PureDP(1.0), "joint", horizon=6, samples=200, seed=1)


def test_a_pair_differing_in_two_rounds_is_refused_naming_them():
    x, y = np.zeros((6, 2)), np.zeros((6, 2))
    y[1], y[4] = 1, 1
    with pytest.raises(InvalidArgument) as e:
        audit_policy(GetArmContexts, PureDP(1.0), "table", horizon=6, pairs=[(x, y)])
    assert str(e.value).endswith("they differ in 2 rounds (2, 5), not one") and "[[" not in str(e.value)


def test_contexts_of_another_dimension_are_refused_before_the_policy_runs():
    class Fails(GetArmContexts):
        def get_arm(self, contexts):
            raise AssertionError("the user's code ran")

    c3 = np.full((6, 2, 3), 0.5)
    with pytest.raises(InvalidArgument, match=r"dimension 3 \(shape \(6, 2, 3\)\), not dim=2"):
        audit_policy(Fails, PureDP(1.0), "joint", horizon=6, dim=2, contexts=c3)


def test_the_command_line_says_its_own_flags(run, tmp_path):
    (tmp_path / "pol.py").write_text(
        textwrap.dedent(
            """
            import numpy as np

            class FromOne:
                def __init__(self, n_arms, rng, epsilon, delta):
                    self.k, self.rng = n_arms, rng

                def get_arm(self):
                    return int(self.rng.integers(1, self.k + 1))

                def update(self, arm, reward):
                    pass
            """
        )
    )
    (tmp_path / "c.json").write_text("[[[1, 0], [0, 1]]]")
    pol = str(tmp_path / "pol.py") + ":FromOne"
    base = ["audit", pol, "--epsilon", "1", "--definition", "table", "--horizon", "4", "--samples", "100"]
    code, _, err = run(*base, "--set", "epsilon=2", "--delta", "1e-5")
    assert code == 2 and "--set gives epsilon, a parameter of the claim" in err
    code, _, err = run(*base)
    assert code == 2 and "state a claim with --delta" in err and "--set" not in err
    code, _, err = run(*base, "--delta", "1e-5")
    assert code == 2 and "get_arm() returned arm 2" in err and "--one-based)" in err  # a hint that parses:
    code, out, err = run(*base, "--delta", "1e-5", "--one-based")
    assert code == 0 and "arms numbered from 1" in out, err
    code, _, err = run(*base, "--delta", "1e-5", "--one-based", "--table", "[[0, 1.5], [0, 0], [0, 0], [0, 0]]")
    assert code == 2 and "--table holds the reward 1.5" in err and "--input" not in err
    code, _, err = run(*base, "--delta", "1e-5", "--contexts", str(tmp_path / "c.json"))
    assert code == 2 and f"write --contexts @{tmp_path / 'c.json'}" in err


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_script_without_a_main_guard_runs_its_audit_once(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """
            from privcheck import audit_policy, PureDP
            from privcheck.core.execution import unguarded_main

            class Uniform:
                def __init__(self, n_arms, rng):
                    self.rng, self.k = rng, n_arms

                def act(self, t):
                    return int(self.rng.integers(self.k))

                def update(self, t, arm, reward):
                    pass

            print("started", unguarded_main())
            if __name__ == "__main__":
                print("guarded", unguarded_main())
            audit_policy(Uniform, PureDP(1.0), "table", horizon=8, samples=200, seed=1)
            """
        )
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["started script.py, line 15", "guarded None"]
    assert "RuntimeError" not in done.stderr and "script.py, line 18 runs in this process" in done.stderr


def test_a_contextual_table_is_a_typed_value_in_python():
    from privcheck import ContextualTable

    c = _contexts()
    x = ContextualTable(np.zeros((T, K)), c, user=2)
    y = ContextualTable(np.ones((T, K)) * (np.arange(T) == 1)[:, None], c, user=2)  # the user's rewards 0 → 1
    r = audit_policy(GetArmContexts, PureDP(1.0), "joint", horizon=T, pairs=[(x, y)], samples=200, seed=1)
    assert not r.violates_claim and np.asarray(r.witness["pair"]).shape == (2, T, K, 2 + D)
    with pytest.raises(InvalidArgument, match='a joint pair\'s table needs "user"'):
        audit_policy(GetArmContexts, PureDP(1.0), "joint", horizon=T, pairs=[(ContextualTable(x.rewards, c), y)])
