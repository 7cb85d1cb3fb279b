"""The episodic protocol (privcheck.core.episodic): response tapes, agents told apart from bandit policies by their
signature, runs on tapes (the changed user's own actions left out, releases read after each episode), and the
episode neighbour relation."""

import numpy as np
import pytest

from privcheck.core import EpisodeNeighbours, InvalidArgument, TargetError
from privcheck.core.episodic import EpisodicAgent, Tapes, is_episodic, run_episodes

K, H, S, A = 4, 2, 3, 2


def _tapes(user=None, seed=0):
    rng = np.random.default_rng(seed)
    return Tapes.checked(
        rng.integers(0, S, K), rng.random((K, H, S, A)), rng.integers(0, S, (K, H, S, A)), (H, S, A), user
    )


class Counting:
    """Plays the number of its past rewards above 1/2, mod A; publishes its visits after each episode."""

    def __init__(self, n_states, nA, rng):
        self.visits, self.high, self.rng = np.zeros(n_states), 0, rng

    def act(self, k, h, state):
        return self.high % 2

    def update(self, k, h, state, action, reward, next_state):
        self.visits[state] += 1
        self.high += reward > 0.5

    def end_episode(self, k):
        pass


def test_tapes_pack_and_unpack_exactly():
    t = _tapes(user=2)
    x = t.packed()
    assert x.shape == (K, 2 + 2 * H * S * A) and list(x[:, 0]) == [0, 0, 1, 0]
    back = Tapes.unpacked(x, H, S, A)
    assert back.user == 2 and np.array_equal(back.rewards, t.rewards)
    assert np.array_equal(back.next_states, t.next_states) and np.array_equal(back.initial, t.initial)


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda x: x.__setitem__((0, 1), S), "initial state"),
        (lambda x: x.__setitem__((0, -1), 0.5), "next state"),
        (lambda x: x.__setitem__((0, 3), np.nan), "NaN"),
        (lambda x: x.__setitem__((slice(None), 0), 1.0), "more than one user"),
    ],
)
def test_bad_tapes_are_refused_naming_what(change, match):
    x = _tapes().packed()
    change(x)
    with pytest.raises(InvalidArgument, match=match):
        Tapes.unpacked(x, H, S, A)
    with pytest.raises(InvalidArgument, match="episodes ×"):
        Tapes.unpacked(x[:, :-1], H, S, A)


def test_agents_are_told_from_bandit_policies_by_signature():
    assert is_episodic(lambda episodes, horizon, rng: None)
    assert is_episodic(lambda n_states, nA, rng: None)
    assert is_episodic(Counting)
    assert not is_episodic(lambda K, horizon, rng, epsilon: None)  # K: a bandit's arms

    class Bandit:
        def act(self, t):
            return 0

        def update(self, t, arm, reward):
            pass

    assert not is_episodic(Bandit)


def test_runs_leave_the_changed_users_actions_out_and_read_releases_each_episode():
    agent = EpisodicAgent(Counting, K, H, S, A, {}, "counting")
    assert agent.ends_episodes and not agent.batched and "n_states = states" in agent.adapter_note
    tapes = _tapes(user=1)
    out = run_episodes(agent, tapes, np.random.default_rng(0), 5)
    assert out.shape == (5, K * H) and np.all(out[:, H : 2 * H] == 0)
    again = run_episodes(agent, Tapes(tapes.initial, tapes.rewards, tapes.next_states), np.random.default_rng(0), 5)
    assert np.all(out[:, :H] == again[:, :H]) and np.all(out[:, 2 * H :] == again[:, 2 * H :])

    class Ones(Counting):
        def act(self, k, h, state):
            return 1

    ones = EpisodicAgent(Ones, K, H, S, A, {}, "ones")
    assert np.all(run_episodes(ones, tapes, np.random.default_rng(0), 2) == np.repeat([[1, 0, 1, 1]], H, axis=1))
    rel = run_episodes(agent, tapes, np.random.default_rng(0), 3, releases=("visits",))
    assert rel.shape == (3, K * S) and np.all(rel[:, -S:].sum(axis=1) == K * H)  # all visits, by the last episode


def test_an_agent_that_misbehaves_is_named():
    class Bad(Counting):
        def act(self, k, h, state):
            return A  # not an action

    agent = EpisodicAgent(Bad, K, H, S, A, {}, "bad")
    with pytest.raises(TargetError, match=r"bad: act\(1, 1, …\) returned 2, not an action among 0 … 1"):
        run_episodes(agent, _tapes(), np.random.default_rng(0), 1)
    with pytest.raises(InvalidArgument, match="requires window"):
        EpisodicAgent(lambda episodes, window: Counting(S, A, None), K, H, S, A, {}, "w")
    with pytest.raises(InvalidArgument, match="releases= names 'nothing'"):
        run_episodes(EpisodicAgent(Counting, K, H, S, A, {}, "c"), _tapes(), np.random.default_rng(0), 1, ("nothing",))


def test_episode_neighbours_differ_in_the_marked_users_tape_only():
    rel = EpisodeNeighbours()
    a = _tapes(user=1).packed()
    b = a.copy()
    b[1, 2:] = 0.0
    assert rel.contains(a, b)
    c = b.copy()
    c[2, 3] += 1.0
    assert not rel.contains(a, c)  # another user's tape changed too
    assert not rel.contains(_tapes().packed(), _tapes(seed=1).packed())  # nobody marked


class StepCounting:
    """Counting written as a step agent: select_action(state), update(state, action, reward, next_state, done)."""

    def __init__(self, n_states, n_actions, rng):
        self.visits, self.high, self.ends = np.zeros(n_states), 0, 0

    def select_action(self, state):
        return self.high % 2

    def update(self, state, action, reward, next_state, done):
        self.visits[state] += 1
        self.high += reward > 0.5
        self.ends += bool(done)


def train(env, episodes, rng):
    """Counting written as a training loop on a gymnasium-style environment."""
    high = 0
    for _ in range(episodes):
        state, _ = env.reset()
        truncated = False
        while not truncated:
            state, reward, terminated, truncated, _ = env.step(high % env.action_space.n)
            high += reward > 0.5


def test_a_step_agent_and_a_training_loop_run_as_the_protocol_does():
    """The field's step-level shapes give the same actions as the protocol's own agent on the same tapes (the marked
    user's own as 0), and a step agent's releases are read from it; ``done`` is told at each episode's last step."""
    t = _tapes(user=1)
    want = run_episodes(EpisodicAgent(Counting, K, H, S, A), t, np.random.default_rng(0), 3)
    stepped = EpisodicAgent(StepCounting, K, H, S, A)
    assert is_episodic(StepCounting) and "select_action(state)" in stepped.adapter_note
    assert np.array_equal(run_episodes(stepped, t, np.random.default_rng(0), 3), want)
    pub = run_episodes(stepped, t, np.random.default_rng(0), 2, releases=("visits", "ends"))
    assert pub.shape == (2, K * (S + 1)) and list(pub[0, S :: S + 1]) == [1, 2, 3, 4]  # (a done per episode)
    looped = EpisodicAgent(train, K, H, S, A)
    assert is_episodic(train) and "gymnasium-style environment" in looped.adapter_note
    assert np.array_equal(run_episodes(looped, t, np.random.default_rng(0), 3), want)
    with pytest.raises(InvalidArgument, match="training loop"):
        run_episodes(looped, t, np.random.default_rng(0), 1, releases=("visits",))


def _loop(bad):
    def loop(env, episodes):
        for k in range(episodes):
            env.reset()
            for h in range(H):
                if bad == "short" and k == episodes - 1:
                    return
                if bad == "reset" and h == 1:
                    env.reset()
                env.step(7 if bad == "action" else 0)
            if bad == "step":
                env.step(0)

    return loop


@pytest.mark.parametrize(
    "bad, match",
    [
        ("short", "ran 3 whole episodes of the 4"),
        ("reset", "reset\\(\\) in the middle of episode 1"),
        ("action", "step\\(7\\) at step 1 of episode 1: not an action among 0 … 1"),
        ("step", "step\\(\\) before reset\\(\\)"),
    ],
)
def test_a_training_loop_that_breaks_the_environment_is_told_how(bad, match):
    with pytest.raises(TargetError, match=match):
        run_episodes(EpisodicAgent(_loop(bad), K, H, S, A), _tapes(), np.random.default_rng(0), 1)


def test_a_contextual_bandit_class_is_not_taken_for_a_step_agent():
    class LinUCBish:
        def __init__(self, K, d, rng):
            pass

        def select_action(self, context):
            return 0

        def update(self, context, action, reward):
            pass

    assert not is_episodic(LinUCBish)
