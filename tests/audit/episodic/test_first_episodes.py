"""An agent's runs read on their first episodes (privcheck.audits.episodic.first): what is read is what a whole run
outputs first, batched and one-object-per-run agents alike; the plan reads a prefix only where whole runs do not fit
its default, says so, and its reproduce line pins it; a given prefix is checked (one message, exit 2 on the command
line).  The issue's largest corner, refuted on a prefix: benchmarks/RESULTS.md."""

import sys
from pathlib import Path

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, Tapes, audit_episodic
from privcheck.audits.episodic.first import FIRST_LEAST, first_checked, first_fitting, last_changed
from privcheck.audits.episodic.instances import candidate_pairs, mdp_named
from privcheck.audits.episodic.relations import EpisodeJoint
from privcheck.audits.episodic.runs import EpisodicMechanism
from privcheck.audits.sampling import DrawCost
from privcheck.core.episodic import EpisodicAgent
from privcheck.policies.private_ucbvi import make as pucb

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
sys.path.insert(0, str(EXAMPLES))

import private_rl  # noqa: E402  (examples/private_rl.py: a researcher's one-object-per-run agent)


@pytest.mark.parametrize("releases", [None, ("visits", "transitions")])
@pytest.mark.parametrize("factory", [private_rl.make, pucb], ids=["one-object", "batched"])
def test_a_run_read_on_its_first_episodes_is_what_a_whole_run_outputs_first(factory, releases):
    """The ground of every bound read on a prefix: the same generator gives the first episodes' output of a whole run
    to the last bit, so the prefix is a function of the agent's output — its actions (the changed user's own left
    out) or its releases and their changes."""
    K, H, read = 12, 3, 5
    agent = EpisodicAgent(factory, K, H, 2, 2, {"epsilon": 1.0}, "agent")
    x = candidate_pairs(mdp_named("chain", 2, 2), K, H)[0][0]
    whole = EpisodicMechanism(agent, releases, "agent").sample(x, np.random.default_rng(5), 6)
    first = EpisodicMechanism(agent, releases, "agent", read).sample(x, np.random.default_rng(5), 6)
    if releases is None:
        assert first.shape == (6, read * H) and np.array_equal(first, whole[:, : read * H])
        return
    w = whole.shape[1] // (2 * K)  # (a release's values; the draw is the releases, then their changes)
    assert first.shape == (6, 2 * read * w)
    assert np.array_equal(first[:, : read * w], whole[:, : read * w])
    assert np.array_equal(first[:, read * w :], whole[:, K * w : (K + read) * w])
    assert not np.array_equal(whole[:, : read * w], whole[:, read * w : 2 * read * w])  # (the test can fail)


def test_the_search_changes_users_among_the_episodes_read():
    users = {int(np.argmax(x[:, 0])) for x, _, _ in candidate_pairs(mdp_named("chain", 2, 2), 1000, 3, 16)}
    assert users == {0, 7, 14}  # (the first, the middle one, the second to last of the 16 read)
    users = {int(np.argmax(x[:, 0])) for x, _, _ in candidate_pairs(mdp_named("chain", 2, 2), 1000, 3)}
    assert users == {0, 499, 998}


def test_the_longest_prefix_that_fits_is_chosen():
    whole = DrawCost(bytes=96e6, seconds=4.0, values=12_000_000)

    def under(seconds):
        return lambda c: c.seconds <= seconds

    assert first_fitting(1000, whole, under(0.3)) == 64  # 4 s × 64/1000 = 0.256; 128 would be 0.512
    assert first_fitting(1000, whole, under(0.0)) == FIRST_LEAST  # none fits: the least
    assert first_fitting(1000, whole, under(10.0)) == 512  # (a prefix is shorter than the whole)
    assert first_fitting(6, whole, under(0.0)) == 6  # the least reaches every episode
    assert first_fitting(1000, whole, lambda c: c.width <= 12_000 * 32) == 32  # values in proportion
    assert first_fitting(1000, whole, under(0.0), least=40) == 40  # (a given pair's user: least = their episode + 2)


def _pair(user, K=8, H=2):
    z = np.zeros((K, H, 2, 2))
    a = Tapes(np.zeros(K, dtype=int), z, z.astype(int), user=user)
    b = Tapes(np.zeros(K, dtype=int), z, z.astype(int) + (np.arange(K) == user)[:, None, None, None], user=user)
    return a.packed(), b.packed()


class RawVisits:
    """Publishes its visits of each state after every episode, raw (a bug): a few microseconds an episode."""

    def __init__(self, states):
        self.visits = np.zeros(states, dtype=int)

    def act(self, k, h, state):
        return 0

    def update(self, k, h, state, action, reward, next_state):
        self.visits[next_state] += 1


def raw_visits(episodes, states, epsilon):
    return RawVisits(states)


def test_a_prefix_is_chosen_only_where_whole_runs_do_not_fit(monkeypatch):
    """With the default plan's ten minutes made 0.12 s, whole runs of a raw count at K = 64 do not fit 200 runs a
    side: the audit reads a prefix, says why and what a bound on it says, refutes the bug there, and its reproduce
    line pins the prefix; with samples= given, the whole runs are read as asked."""
    import privcheck.audits.policy.plan as plan

    monkeypatch.setattr(plan, "DEFAULT_POLICY_MINUTES", 0.002)
    args = dict(episodes=64, horizon=3, states=2, actions=2, releases=("visits",), seed=2, pairs=[_pair(1, 64, 3)])
    report = audit_episodic(raw_visits, PureDP(1.0), "joint", **args)
    read = report.call.arguments["first_episodes"]
    assert FIRST_LEAST <= read < 64 and read & (read - 1) == 0
    assert report.violates_claim and report.extra["first_episodes"] == read
    notes = " ".join(report.notes)
    assert f"each run read on its first {read} of the 64 episodes (a whole run took" in notes
    assert "a bound that does not refute says nothing of them" in notes
    assert f"read after each of the first {read} of the 64 episodes" in notes
    assert f"first_episodes={read}" in report.command  # (the reproduce line)
    args.update(episodes=16, samples=100, pairs=[_pair(1, 16, 3)])  # (sized= false: never a prefix)
    given = audit_episodic(raw_visits, PureDP(1.0), "joint", **args)
    assert "first_episodes" not in given.call.arguments and "first" not in given.notes[0]


def test_a_given_prefix_reads_the_given_pairs_change_and_is_said():
    assert last_changed([_pair(2), _pair(5)]) == 5
    args = dict(episodes=8, horizon=2, states=2, actions=2, releases=("rewards",), samples=150, seed=1)
    report = audit_episodic(private_rl.make_raw_count, PureDP(1.0), "joint", pairs=[_pair(1)], first_episodes=4, **args)
    assert report.call.arguments["first_episodes"] == 4 and "(as first_episodes= says)" in " ".join(report.notes)
    agent = EpisodicAgent(pucb, 8, 2, 2, 2, {"epsilon": 1.0}, "agent")
    assert first_checked(8, agent, EpisodeJoint()) is None  # (all of them: the whole run, said as none)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(first_episodes=1), "first_episodes=1 must be an integer >= 2"),
        (dict(first_episodes=9), "first_episodes=9 is more than the episodes=8"),
        (dict(first_episodes=4, pairs=[_pair(5)]), "does not reach the given pairs' changed user \\(episode 6\\)"),
        (dict(first_episodes=4, definition="local"), "first_episodes=4 applies to joint DP per episode"),
    ],
)
def test_a_prefix_that_cannot_be_read_is_one_message(kw, match):
    args = dict(definition="joint", episodes=8, horizon=2, states=2, actions=2, seed=1, samples=100)
    args.update(kw)
    definition = args.pop("definition")
    with pytest.raises(InvalidArgument, match=match):
        audit_episodic(pucb, PureDP(1.0), definition, **args)


def test_the_command_line_reads_a_prefix(run):
    base = ["audit", "privcheck.policies.private_ucbvi:make", "--epsilon", "1", "--definition", "joint"]
    sizes = ["--episodes", "8", "--horizon", "2", "--states", "2", "--actions", "2"]
    code, _, err = run(*base, *sizes, "--first-episodes", "9")
    assert code == 2 and "--first-episodes 9 is more than the --episodes 8" in err
    code, out, _ = run(*base, *sizes, "--first-episodes", "4", "--samples", "300", "--seed", "1")
    assert code == 0 and "each run read on its first 4 of the 8 episodes" in out and "--first-episodes 4" in out


def test_the_command_lines_reproduce_line_pins_the_prefix_it_chose(run, monkeypatch):
    import privcheck.audits.policy.plan as plan

    monkeypatch.setattr(plan, "DEFAULT_POLICY_MINUTES", 0.002)  # (whole runs of 64 episodes do not fit 0.12 s)
    sizes = "--episodes 64 --horizon 3 --states 2 --actions 2 --releases visits --seed 2".split()
    code, out, _ = run("audit", f"{__file__}:raw_visits", "--epsilon", "1", "--definition", "joint", *sizes)
    reproduce = next(line for line in out.splitlines() if "Reproduce:" in line)
    read = int(reproduce.split("--first-episodes ")[1].split()[0])
    assert code == 1 and f"each run read on its first {read} of the 64 episodes" in out and read < 64
