"""One contract suite over every registered policy, as tests/mechanisms/test_mechanism_contract.py is over every
mechanism.

Every policy of ``policies.registry.POLICIES`` passes the same tests: the batched step equals a loop of single
runs given the same uniforms and feedback (which also makes it deterministic under a seed); ``probs`` rows,
where a policy has them, are distributions and ``act`` draws from them; the claim is data (a claim with its
relation and the definition it is audited under, or ``None`` for a non-private policy); and every private
policy's own claim is not refuted by ``privcheck audit NAME`` at a small horizon.  The audits are seeded and
certify at 95 %, so for these fixed seeds the outcome is deterministic; a correct policy would be wrongly
refuted with probability at most 5 % per seed.
"""

import numpy as np
import pytest

from privcheck.policies.registry import POLICIES, build_environment, build_policy
from privcheck.audits.policy.api import DEFINITIONS
from privcheck.core import PureDP, ZCDP

OPTIONS = {"rho": 0.5, "epsilon": 1.0, "nu": 0.9, "window": 7}
HORIZON = 60


def _setup(name):
    spec = POLICIES[name]
    if spec.linear:
        env = build_environment("linear", None, HORIZON, arms=4, dim=2)
    else:
        env = build_environment("corrupt-bernoulli", "0.7,0.5,0.3", HORIZON, rr_epsilon=1.0)
    return env, build_policy(name, env, HORIZON, OPTIONS)


def _feedback(env, F):
    return F * 2.0 - 0.5 if getattr(env, "dim", None) else (F < 0.5).astype(float)


@pytest.fixture(params=sorted(POLICIES))
def name(request):
    return request.param


def test_batched_step_equals_single_runs(name):
    env, policy = _setup(name)
    from privcheck.policies.base import update_uniforms

    runs, steps = 5, 40
    nup = update_uniforms(policy)
    rng = np.random.default_rng(11)
    U = rng.random((steps, runs, policy.n_uniforms))
    V = rng.random((steps, runs, max(nup, 1)))
    F = _feedback(env, rng.random((steps, runs)))
    state = policy.init(runs)
    batched = []
    for t in range(1, steps + 1):
        arms = policy.act(state, t, U[t - 1])
        batched.append(np.asarray(arms))
        state = policy.update(state, t, arms, F[t - 1], V[t - 1] if nup else None)
    batched = np.stack(batched, axis=1)
    assert batched.shape == (runs, steps) and batched.min() >= 0 and batched.max() < policy.n_arms
    for r in range(runs):
        s = policy.init(1)
        for t in range(1, steps + 1):
            a = policy.act(s, t, U[t - 1, r : r + 1])
            assert int(a[0]) == batched[r, t - 1], f"{name}: run {r} differs at step {t}"
            s = policy.update(s, t, a, F[t - 1, r : r + 1], V[t - 1, r : r + 1] if nup else None)


ENUMERABLE = [n for n in sorted(POLICIES) if callable(getattr(_setup(n)[1], "probs", None))]


@pytest.mark.parametrize("name", ENUMERABLE)
def test_probs_are_distributions_and_act_draws_from_them(name):
    env, policy = _setup(name)
    runs = 300
    rng = np.random.default_rng(3)
    state = policy.init(runs)
    for t in range(1, 13):
        arms = policy.act(state, t, rng.random((runs, policy.n_uniforms)))
        state = policy.update(state, t, arms, _feedback(env, rng.random(runs)), None)
    pr = policy.probs(state, 13)
    assert np.allclose(pr.sum(axis=1), 1) and np.all(pr >= 0)
    reps, counts = 200, np.zeros_like(pr)
    for _ in range(reps):
        a = policy.act(state, 13, rng.random((runs, policy.n_uniforms)))
        assert np.all(pr[np.arange(runs), a] > 0)
        counts[np.arange(runs), a] += 1
    # at most 6 binomial standard deviations anywhere (false-failure probability < 1e-6)
    assert np.all(np.abs(counts / reps - pr) <= 6 * np.sqrt(pr * (1 - pr) / reps) + 1e-12)


def test_claim_is_data(name):
    _, policy = _setup(name)
    claim = getattr(policy, "claim", None)
    if claim is None:
        assert getattr(policy, "definition", None) is None
        return
    assert isinstance(claim, (PureDP, ZCDP)) and claim.relation is not None
    assert policy.definition in DEFINITIONS


PRIVATE = [n for n in sorted(POLICIES) if _setup(n)[1].claim is not None]
AUDIT_ARGS = {
    "adac-ucb": ["--rho", "0.5"],
    "adac-gope": ["--rho", "0.5"],
    "adar-gope-var": ["--rho", "0.5"],
    "adac-oful": ["--rho", "0.5"],
    "dp-robust-ucb": ["--epsilon", "1", "--nu", "0.9"],
    "dp-robust-se": ["--epsilon", "1", "--nu", "0.9"],
    "ldp-robust-se": ["--epsilon", "1", "--nu", "0.9"],
}
# (each on its shortened audit instance, policies.registry.AUDIT_SCHEDULES, for the default tier's time; the
# published schedules are audited in benchmarks/policy_power.py)


def test_every_private_policy_has_audit_arguments():
    assert sorted(AUDIT_ARGS) == PRIVATE


# the slow tier: adac-oful (4 s, a linear bandit's episodes), the two GOPE policies (3 s each) and adac-ucb (2 s):
# their Interactive DP audit runs in the default tier on adac-ucb at 500 runs
# (tests/audit/policy/test_private_policy_audits.py), and their mechanisms are checked there by
# tests/policies/test_private_policies.py
_SLOW_AUDITS = {"adac-oful", "adac-gope", "adar-gope-var", "adac-ucb"}


@pytest.mark.parametrize(
    "policy_name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW_AUDITS else n for n in PRIVATE]
)
def test_own_claim_not_refuted_by_privcheck_audit(policy_name, run):
    import json

    code, out, err = run(
        "audit",
        policy_name,
        *AUDIT_ARGS[policy_name],
        "--schedule",
        "shortened",
        "--samples",
        "2000",
        "--seed",
        "1",
        "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["violates_claim"] is False
    _, policy = _setup(policy_name)
    assert report["definition"] == policy.definition  # no --definition given: the policy's own is audited
