"""Local DP per report of an episodic agent (privcheck.audit_episodic(..., "local")): a run's report(trajectory) is
audited as a one-shot randomizer over pairs of one user's trajectories, after an earlier user's on the same run —
so a randomizer that keeps its noise between users is refuted on the messages' difference, a mis-calibrated one on
the message, a calibrated one is not refuted; the shapes and bad input are one message naming the argument (exit 2
on the command line).  The example file's bugs at the default command: tests/cli/test_examples.py (slow tier)."""

from pathlib import Path

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, audit_episodic
from privcheck.audits.episodic.reports import EpisodeReports, trajectory_pairs
from privcheck.cli import main
from privcheck.core.episodic import EpisodicAgent
from privcheck.policies.ldp_ucbvi import make as ldp

K, H, S, A = 5, 2, 2, 2
ROOT = Path(__file__).resolve().parents[3]


class Reporter:
    """A step agent whose user sends their episode's reward sum with two-sided geometric noise of scale H/ε (one
    user's sum moves by at most H): ``reuse`` draws that noise once per run, ``scale`` overrides it."""

    def __init__(self, n_states, n_actions, horizon, epsilon, rng, reuse=False, scale=None):
        self.rng, self.rewards = rng, []
        self.t = scale if scale is not None else horizon / epsilon
        self.once = self._noise() if reuse else None

    def _noise(self):
        p = 1 - np.exp(-1 / self.t)
        return int(self.rng.geometric(p) - self.rng.geometric(p))

    def select_action(self, state):
        return 0

    def update(self, state, action, reward, next_state):
        self.rewards.append(reward)

    def report(self, trajectory):
        total = sum(round(r) for _, _, r, _ in trajectory)
        return [total + (self.once if self.once is not None else self._noise())]


def _audit(factory, **kw):
    args = dict(episodes=K, horizon=H, states=S, actions=A, seed=2, samples=1000)
    return audit_episodic(factory, PureDP(1.0), "local", **{**args, **kw})


def test_a_randomizer_that_keeps_its_noise_between_users_is_refuted_on_the_difference_and_a_fresh_one_is_not():
    reused = _audit(lambda n_states, n_actions, horizon, epsilon, rng: Reporter(S, A, H, epsilon, rng, reuse=True))
    assert reused.violates_claim and reused.epsilon_lower > 2 and reused.definition == "local"
    text = str(reused)
    assert "as local DP per report" in text and "less the earlier user's" in text
    assert "(0,0,0→0) (0,0,0→0) against (1,1,1→1) (1,1,1→1)" in text
    assert "makes a step agent" in text  # (the step-level shape, read through the adapter)
    fresh = _audit(Reporter)
    assert not fresh.violates_claim and 0 < fresh.epsilon_lower <= 1
    assert "audit_episodic(" in str(fresh.reproduction) and '"local"' in str(fresh.reproduction)


@pytest.mark.slow  # (the default tier's two minutes: the built-in with a quarter of its noise is refuted there)
def test_a_randomizer_with_a_tenth_of_its_noise_is_refuted_on_the_message():
    small = _audit(lambda n_states, n_actions, horizon, epsilon, rng: Reporter(S, A, H, epsilon, rng, scale=0.2))
    assert small.violates_claim and small.epsilon_lower > 1.5


def test_the_builtin_locally_private_agent_holds_at_its_claim_and_a_quarter_of_its_noise_does_not():
    assert not _audit(ldp, samples=1500).violates_claim
    quarter = _audit(ldp, samples=1500, factory_args={"noise_multiplier": 0.25})
    assert quarter.violates_claim and quarter.epsilon_lower > 1


def test_the_builtin_agents_message_is_its_own_randomizer_and_end_episode_sends_one():
    run = ldp(K, H, S, A, np.random.default_rng(0), runs=3, epsilon=None)
    sent = run.report([(0, 1, 1.0, 1), (1, 1, 0.5, 0)])
    assert [v.shape for v in sent] == [(3, S, A), (3, S, A), (3, S, A, S)]
    assert sent[0][:, 0, 1].tolist() == [1, 1, 1] and sent[1][:, 1, 1].tolist() == [128, 128, 128]
    for h, (s, a, r, n) in enumerate([(0, 1, 1.0, 1), (1, 1, 0.5, 0)]):
        run.update(1, h + 1, np.full(3, s), np.full(3, a), np.full(3, r), np.full(3, n))
    run.end_episode(1)
    assert np.array_equal(run.visits, sent[0]) and np.array_equal(run.transitions, sent[2])


def test_the_default_pair_moves_every_step_and_the_packed_input_is_checked():
    ((a, b),) = trajectory_pairs(3, 4, 2)
    assert a.shape == b.shape == (2, 12) and np.array_equal(a[0], b[0]) and np.array_equal(a, np.zeros((2, 12)))
    assert b[1].reshape(3, 4).tolist() == [[3, 1, 1, 3]] * 3
    agent = EpisodicAgent(ldp, K, 3, 4, 2)
    mech = EpisodeReports(agent, "ldp")
    out = mech.sample(b, np.random.default_rng(0), 7)
    width = 4 * 2 + 4 * 2 + 4 * 2 * 4
    assert out.shape == (7, 3 * width) and np.array_equal(
        out[:, 2 * width :], out[:, width : 2 * width] - out[:, :width]
    )
    bad = b.copy()
    bad[1, 3] = 0  # (the first step's next state is not the second step's state)
    with pytest.raises(InvalidArgument, match="not the next state of the step before"):
        mech.sample(bad, np.random.default_rng(0), 2)


class NoReport:
    def __init__(self, states, rng):
        pass

    def act(self, k, h, state):
        return 0

    def update(self, k, h, state, action, reward, next_state):
        pass


@pytest.mark.parametrize(
    "factory, kw, match",
    [
        (NoReport, {}, r"runs need report\(trajectory\)"),
        (ldp, {"releases": ("visits",)}, "releases= reads what the server publishes"),
        (
            ldp,
            {"pairs": [(np.zeros((3, 4)), np.zeros((3, 4)))]},
            r"pairs=\[0\] holds a side of shape \(3, 4\): give the audited user.s 2 steps",
        ),
        (ldp, {"pairs": [(np.zeros((2, 8)), np.ones((2, 8)))]}, "the earlier user's trajectory"),
        (ldp, {"pairs": [(np.zeros((2, 4)), np.full((2, 4), 5.0))]}, "not one of the 2 states"),
    ],
)
def test_bad_input_is_one_message_naming_the_argument(factory, kw, match):
    with pytest.raises(InvalidArgument, match=match):
        _audit(factory, **kw)


def test_the_command_line_audits_a_file_agent_locally_and_refuses_bad_input_with_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code = main(
        [
            "audit",
            "examples/ldp_rl.py:make_raw_visits",
            "--epsilon",
            "1",
            "--definition",
            "local",
            "--episodes",
            "3",
            "--horizon",
            "2",
            "--states",
            "2",
            "--actions",
            "2",
            "--samples",
            "500",
            "--seed",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and "REFUTED" in out and "number 1 of the audited user's message is > 0" in out
    code = main(
        ["audit", "examples/private_rl.py:make", "--epsilon", "1", "--definition", "local", "--episodes", "3"]
        + ["--horizon", "2", "--states", "2", "--actions", "2"]
    )
    captured = capsys.readouterr()
    assert code == 2 and "report(trajectory)" in captured.err and "Traceback" not in captured.err
