"""A user's environment as the MDP an episodic audit draws its users from: the table ``P[s][a]`` of gymnasium's
toy-text environments read exactly (transitions, outcomes, rewards mapped to [0, 1], the start distribution), the
tapes drawn from it one outcome a step, and the audit and the command line taking it (examples/gridworld.py, a
researcher's own environment)."""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, audit_episodic
from privcheck.audits.episodic.instances import mdp_for, mdp_of_env, said_in_python, tapes_of
from privcheck.audits.reproduction import python_call
from privcheck.policies.private_ucbvi import make as pucb

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
from gridworld import GOAL, PIT, SlipperyGrid  # noqa: E402


class Table:
    """The least a toy-text environment is: its table (and, where given, its start distribution)."""

    def __init__(self, P, initial=None):
        self.P = P
        if initial is not None:
            self.initial_state_distrib = initial


class Wrapper:
    """A wrapper that does not pass the table on (as gymnasium's do): the environment is its ``unwrapped``."""

    def __init__(self, env):
        self.unwrapped = env


def test_the_table_is_read_exactly():
    env = SlipperyGrid()
    m = mdp_of_env(env)
    S, A = 6, 4
    assert m.transitions.shape == (S, A, S) and m.rewards.shape == (S, A) and m.name == "SlipperyGrid"
    np.testing.assert_allclose(m.transitions.sum(axis=-1), 1.0, atol=1e-15)
    for s in range(S):
        for a in range(A):
            want = np.zeros(S)
            for p, to, r, _ in env.P[s][a]:
                want[to] += p
            np.testing.assert_allclose(m.transitions[s, a], want, atol=1e-15)
            mean = sum(p * (r + 10) / 20 for p, _, r, _ in env.P[s][a])  # (rewards in [-10, 10] mapped to [0, 1])
            assert m.rewards[s, a] == pytest.approx(mean, abs=1e-15)
    np.testing.assert_array_equal(m.initial, np.eye(S)[0])
    assert "mapped to [0, 1] by r ↦ (r + 10)/20" in m.note and "6 states, 4 actions" in m.note
    # a dict of dicts and a list of lists are the same table; a wrapper's unwrapped table is read
    listed = Table([[env.P[s][a] for a in range(A)] for s in range(S)], env.initial_state_distrib)
    for other in (listed, Wrapper(env)):
        o = mdp_of_env(other)
        np.testing.assert_array_equal(o.transitions, m.transitions)
        for x, y in zip(o.outcomes, m.outcomes):
            np.testing.assert_array_equal(x, y)


def test_tapes_are_outcomes_of_the_table_at_its_probabilities():
    """Every step of a tape is one outcome of its (s, a) — next state and reward together — and the outcomes' counts
    over 4,000 users match their probabilities (a fixed seed: the tapes are the audit's inputs)."""
    env = SlipperyGrid()
    m = mdp_of_env(env)
    t = tapes_of(m, 4000, 2)
    for s in range(6):
        for a in range(4):
            nxt, rew = t.next_states[:, :, s, a].ravel(), t.rewards[:, :, s, a].ravel()
            allowed = {(to, (r + 10) / 20) for _, to, r, _ in env.P[s][a]}
            assert set(zip(nxt.tolist(), rew.tolist())) <= allowed
            for p, to, _, _ in env.P[s][a]:
                if s not in (PIT, GOAL) and p > 0.5:  # the move meant: 0.8 (or 0.9 against a wall)
                    share = np.mean(nxt == to)
                    assert abs(share - sum(q for q, t2, _, _ in env.P[s][a] if t2 == to)) < 0.02
    assert np.all(t.initial == 0)


def test_rewards_within_the_unit_interval_are_kept_and_a_missing_start_is_state_0():
    P = {0: {0: [(0.5, 0, 0.25, False), (0.5, 1, 1.0, True)]}, 1: {0: [(1.0, 1, 0.0, True)]}}
    m = mdp_of_env(Table(P))
    assert m.rewards[0, 0] == pytest.approx(0.625) and "mapped" not in m.note
    assert "every user starts in state 0" in m.note and m.initial.tolist() == [1.0, 0.0]
    constant = mdp_of_env(Table({0: {0: [(1.0, 0, -1.0, False)]}}))
    assert constant.rewards.tolist() == [[0.0]] and "its rewards, all -1, taken as 0" in constant.note


@pytest.mark.parametrize(
    "env, match",
    [
        (object(), "must be a built-in's name .* or an environment with a table P"),
        (Table({}), "has no states"),
        (Table({0: {0: [(1.0, 0, 0.0, False)]}, 1: {}}), "same actions"),
        (Table({0: {0: [(0.5, 0, 0.0, False)]}}), "summing to 0.5, not 1"),
        (Table({0: {0: [(1.0, 3, 0.0, False)]}}), r"next state in 0 … 0"),
        (Table({0: {0: [(1.0, 0, float("nan"), False)]}}), "finite reward"),
        (Table({0: {0: [(1.0,)]}}), r"must be \(probability, next state, reward, terminated\)"),
        (Table({0: {0: [(1.0, None, 0.0, False)]}}), r"must be \(probability, next state, reward, terminated\)"),
        (Table({1: {0: [(1.0, 0, 0.0, False)]}}), "keyed 0"),
        (Table({0: {0: [(1.0, 0, 0.0, False)]}}, [0.5]), "initial_state_distrib must be 1 probabilities"),
    ],
)
def test_a_table_that_is_not_one_is_refused_by_name(env, match):
    with pytest.raises(InvalidArgument, match=match):
        mdp_of_env(env)


def test_the_size_is_the_environments_and_a_class_is_made():
    assert mdp_for(SlipperyGrid, None, None).rewards.shape == (6, 4)
    with pytest.raises(InvalidArgument, match="states=2 but the environment mdp= has 6 states"):
        mdp_for(SlipperyGrid(), 2, None)

    def broken():
        raise RuntimeError("no map file")

    with pytest.raises(InvalidArgument, match="mdp=broken: made with no arguments, it raised RuntimeError"):
        mdp_for(broken, None, None)
    with pytest.raises(InvalidArgument, match="states=None, actions=2: give both for the built-in MDP mdp='chain'"):
        mdp_for("chain", None, 2)
    assert said_in_python(SlipperyGrid) == "SlipperyGrid" and said_in_python(SlipperyGrid()) == "SlipperyGrid()"
    made = Wrapper(SlipperyGrid())  # as gymnasium.make returns it: a wrapper carrying the registered spec
    made.spec = SimpleNamespace(id="FrozenLake-v1", kwargs={"map_name": "4x4"})
    assert said_in_python(made) == "gymnasium.make('FrozenLake-v1', map_name='4x4')"
    with pytest.raises(InvalidArgument, match="give both for the built-in MDP mdp='chain', or an environment"):
        audit_episodic(pucb, PureDP(1.0), "joint", episodes=4, horizon=2, states=2)


def test_an_agent_is_audited_on_the_users_of_an_environment():
    """PUCB on the grid's users: the size is the environment's, the note says where the users
    came from, and the Python reproduce line names the environment."""
    r = audit_episodic(
        pucb,
        PureDP(1.0),
        "joint",
        episodes=4,
        horizon=2,
        mdp=SlipperyGrid,
        samples=200,
        seed=2,
    )
    assert not r.violates_claim and r.extra["episodic"] == {"episodes": 4, "horizon": 2, "states": 6, "actions": 4}
    assert r.extra["mdp"] == "SlipperyGrid"
    assert any("the users' tapes are drawn from the environment SlipperyGrid" in n for n in r.notes)
    assert "mdp=SlipperyGrid," in python_call(r.reproduction)


def test_the_command_line_takes_an_environment_file(run, tmp_path):
    grid = str(Path(__file__).resolve().parents[3] / "examples" / "gridworld.py")
    base = ["audit", "privcheck.policies.private_ucbvi:make", "--epsilon", "1", "--definition", "joint"]
    code, out, err = run(
        *base, "--episodes", "4", "--horizon", "2", "--mdp", f"{grid}:SlipperyGrid", "--samples", "200", "--seed", "1"
    )
    assert code == 0 and "SlipperyGrid (6 states, 4 actions" in out and err == ""
    code, _, err = run(*base, "--episodes", "4", "--horizon", "2", "--mdp", "grid")
    assert code == 2 and "--mdp grid must be a built-in (chain, riverswim, random) or an environment" in err
    code, _, err = run(*base, "--episodes", "4", "--horizon", "2", "--states", "3", "--mdp", f"{grid}:SlipperyGrid")
    assert code == 2 and "6 states" in err and "Traceback" not in err
    code, _, err = run(*base, "--episodes", "4", "--horizon", "2", "--mdp", f"{grid}:START")
    assert code == 2 and "P[s][a]" in err and "Traceback" not in err
