"""RS-OFUL and AdaC-OFUL: the statistic against its definition, the episode rule, the noise calibration, the
privacy audit (claim not refuted, half noise refuted), the contextual simulator and bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.mechanisms.keyed_noise import gaussian_release
from privcheck.policies.environments import Linear, LinearContextual
from privcheck.policies.oful import OFUL
from privcheck.policies.registry import build_environment, build_policy
from privcheck.policies.simulator import simulate
from privcheck.audits.policy.api import audit_policy
from privcheck.cli import main
from privcheck.core import InvalidArgument, ZCDP

A3 = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-50, 50), min_size=3, max_size=3),
    st.floats(-30, 30),
    st.floats(-30, 30),
    st.sampled_from([1.0, 4.0]),
    st.sampled_from([1.0, 2.0]),
)
def test_one_reward_moves_the_statistic_by_at_most_2R(a, r, r2, R, L):
    """‖ã clip(r) − ã clip(r')‖ ≤ 2R for any action, however large, and any rewards."""
    pol = OFUL(3, 3, rho=1.0, reward_bound=R, action_bound=L)
    a = np.array([a])
    diff = pol.contribution(a, [r]) - pol.contribution(a, [r2])
    assert np.linalg.norm(diff) <= 2 * R * (1 + 1e-12)


def _run(pol, env, T, runs, seed):
    """Drive the policy by hand and keep every state."""
    rng = np.random.default_rng(seed)
    state, states = pol.init(runs), []
    for t in range(1, T + 1):
        noise = env.noise(rng, runs, 1)[:, 0]
        ctx = env.contexts(noise) if getattr(env, "contextual", False) else None
        means = ctx @ env.theta if ctx is not None else np.broadcast_to(env.actions @ env.theta, (runs, env.n_arms))
        arms = pol.act(state, t, rng.random((runs, 1)), ctx)
        fb = env.feedback(noise, means[np.arange(runs), arms], arms)
        state = pol.update(state, t, arms, fb, rng.random((runs, pol.n_update_uniforms)), ctx)
        states.append((ctx, arms, fb, state))
    return states


def test_rarely_switching_estimate_is_the_ridge_solution_at_each_episode_start():
    env = LinearContextual.random(5, 3, np.random.default_rng(0))
    pol = OFUL(5, 3, reward_bound=4.0, action_bound=2.0)
    states = _run(pol, env, 400, 2, seed=1)
    X = [np.zeros((0, 3)) for _ in range(2)]
    y = [np.zeros(0) for _ in range(2)]
    prev = pol.init(2)
    switches = 0
    for ctx, arms, fb, st_ in states:
        for r in range(2):
            X[r] = np.vstack([X[r], ctx[r, arms[r]] / max(2.0, np.linalg.norm(ctx[r, arms[r]]))])
            y[r] = np.append(y[r], np.clip(fb[r], -4, 4))
            V = 0.1 * np.eye(3) + X[r].T @ X[r]
            assert np.allclose(st_.V[r], V)
            if st_.episode[r] != prev.episode[r]:  # an episode starts: det doubled, θ̃ is the ridge estimate
                switches += 1
                assert np.linalg.slogdet(V)[1] > prev.logdet_tau[r] + math.log(2)
                assert np.allclose(st_.theta[r], np.linalg.solve(V, X[r].T @ y[r]))
            else:  # within an episode nothing the policy acts on changes
                assert np.linalg.slogdet(V)[1] <= prev.logdet_tau[r] + math.log(2) + 1e-12
                assert np.array_equal(st_.theta[r], prev.theta[r]) and st_.width[r] == prev.width[r]
        prev = st_
    # the determinant bound: at most d ln(1 + T/(dλ)) / ln(1 + C) episodes after the first
    assert 0 < switches <= 2 * 3 * math.log(1 + 400 / 0.3) / math.log(2)


def test_adac_oful_noise_accumulates_with_variance_2R2_over_rho_per_episode():
    env = Linear(A3, np.array([0.6, 0.8]))
    rho, R = 0.5, 2.0
    pol = OFUL(3, 2, rho=rho, actions=A3, reward_bound=R)
    runs = 4000
    final = _run(pol, env, 60, runs, seed=2)[-1][3]
    m = final.episode - 1
    assert m.min() >= 1
    z = (final.released - final.b_tau) / np.sqrt(m * 2 * R**2 / rho)[:, None]  # standardised: N(0, 1) per coordinate
    assert abs(z.mean()) < 0.05 and abs(z.var() - 1) < 0.06
    # θ̃ = V⁻¹ (b + Σ Y) at the last episode start, not the ridge estimate
    assert not np.allclose(final.theta, np.einsum("rde,re->rd", np.linalg.inv(final.V), final.b))


class _HalfNoise(OFUL):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self._release = gaussian_release(2.0 * self.reward_bound, 4.0 * self.rho, self.dim)  # σ halved


def _audit(policy, pair, samples=60_000):
    return audit_policy(
        policy, ZCDP(0.5), "interactive", horizon=4, pairs=[pair], seed=3, samples=samples, confidence=0.95
    )


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): a power test
def test_adac_oful_claim_holds_and_half_noise_is_refuted():
    """Actions ±1 in one dimension: both have the same width, so the second action reveals the sign of θ̃ after
    the first episode.  The first user's rewards (−1, +1) vs (+1, −1) move a·r by the full 2 whichever action the
    first round pulled."""
    pm = np.array([[1.0], [-1.0]])
    x = np.zeros((4, 2))
    x[0] = [-1.0, 1.0]
    x2 = -x
    ok = _audit(OFUL(2, 1, rho=0.5, actions=pm), (x, x2))
    bad = _audit(_HalfNoise(2, 1, rho=0.5, actions=pm), (x, x2))
    assert not ok.violates_claim and ok.rho_lower > 0.05
    assert bad.violates_claim and bad.rho_lower > 0.5


@pytest.mark.slow  # slow tier (python3 -m pytest -m slow): a regret comparison over runs
def test_rs_oful_learns_a_contextual_bandit_and_adac_oful_stays_close_at_low_privacy():
    env = LinearContextual.random(10, 3, np.random.default_rng(0))
    T, runs = 20_000, 10
    bounds = {"reward_bound": 4.0, "action_bound": 2.0}
    base = simulate(env, OFUL(10, 3, **bounds), T, runs, seed=4)
    private = simulate(env, OFUL(10, 3, rho=10.0, **bounds), T, runs, seed=4)
    uniform_gap = 0.4  # E[max_a μ − mean_a μ] is about 0.49 on this instance (measured over 10^5 rounds)
    assert base.final.mean() < 0.05 * uniform_gap * T
    assert private.final.mean() <= 3.0 * base.final.mean()


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_bad_input_and_registry(capsys):
    with pytest.raises(InvalidArgument, match="rho"):
        OFUL(3, 2, rho=0.0)
    with pytest.raises(InvalidArgument, match="norm"):
        OFUL(2, 2, rho=1.0, actions=[[2.0, 0.0], [0.0, 1.0]], strict=True)
    strict = OFUL(2, 2, rho=1.0, strict=True, action_bound=2.0)
    with pytest.raises(InvalidArgument, match="norm"):
        strict.act(strict.init(1), 1, np.zeros((1, 1)), np.array([[[3.0, 0.0], [0.0, 1.0]]]))
    pol = OFUL(3, 2)
    with pytest.raises(InvalidArgument, match="each round"):
        pol.act(pol.init(1), 1, np.zeros((1, 1)))
    with pytest.raises(InvalidArgument, match="shape"):
        pol.act(pol.init(1), 1, np.zeros((1, 1)), np.zeros((1, 2, 2)))
    env = build_environment("linear-contextual", None, 100, arms=4, dim=2)
    with pytest.raises(InvalidArgument, match="fresh action set"):
        build_policy("gope", env, 100)
    with pytest.raises(InvalidArgument, match="fresh action set"):
        simulate(env, build_policy("kl-ucb", build_environment("bernoulli", "0.5x4", 100), 100), 100, 1, 0)
    assert (
        main(
            [
                "regret",
                "--env",
                "linear-contextual",
                "--arms",
                "4",
                "--dim",
                "2",
                "--policies",
                "rs-oful,adac-oful",
                "--rho",
                "1",
                "--reward-bound",
                "3",
                "--horizon",
                "100",
                "--runs",
                "2",
            ]
        )
        == 0
    )
    assert main(["regret", "--env", "linear-contextual", "--policies", "adac-oful", "--horizon", "50"]) == 2
    assert "--rho" in capsys.readouterr().err
    assert main(["regret", "--env", "linear", "--policies", "rs-oful", "--reward-bound", "0", "--horizon", "50"]) == 2
    assert "--reward-bound" in capsys.readouterr().err
    assert main(["regret", "--env", "linear-contextual", "--dim", "0", "--policies", "rs-oful", "--horizon", "50"]) == 2
    audit = ["audit", "adac-oful", "--rho", "0.5", "--horizon", "4", "--samples", "200", "--screening", "100", "--json"]
    assert main(audit) in (0, 1)


def test_adac_oful_is_audited_on_a_fresh_public_action_set_each_round_unless_fixed_is_asked_for():
    from privcheck import ZCDP
    from privcheck.policies.audited import audited

    inst = audited("adac-oful", claim=ZCDP(0.5), arms=2)
    c = inst.policy.contexts
    assert inst.policy.actions is None and c.shape == (inst.horizon, 2, 2)
    np.testing.assert_allclose(c[:, 0], -c[:, 1])  # ±c_t
    np.testing.assert_allclose(np.linalg.norm(c, axis=2), 1.0)
    assert inst.note["action_set"] == "contexts" and "±c_t" in inst.note["note"]
    fixed = audited("adac-oful", claim=ZCDP(0.5), arms=2, options={"action_set": "fixed"})
    assert fixed.policy.actions is not None and "±e₁" in fixed.note["note"]
    with pytest.raises(InvalidArgument, match="action_set='both' must be one of contexts, fixed"):
        audited("adac-oful", claim=ZCDP(0.5), arms=2, options={"action_set": "both"})
    with pytest.raises(InvalidArgument, match="action_set= applies to the private contextual built-ins"):
        audited("adac-ucb", claim=ZCDP(0.5), arms=2, options={"action_set": "fixed"})
