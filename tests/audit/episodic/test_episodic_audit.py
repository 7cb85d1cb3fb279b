"""Episodic agents' audits (privcheck.audit_episodic and ``privcheck audit`` on an agent): a count released raw is
refuted on one given pair in a few hundred runs, the built-in PUCB is not refuted at its claim, bad input is one
message naming the argument (exit 2 on the command line).  The planted bugs at the papers' sizes, with the search:
benchmarks/private_rl.py."""

import sys
from pathlib import Path

import numpy as np
import pytest

from privcheck import InvalidArgument, PureDP, Tapes, audit_episodic
from privcheck.policies.private_ucbvi import make as pucb

K, H, S, A = 4, 2, 2, 2


class Visits:
    """Publishes its visits of each state after every episode: raw (a bug), or with two-sided geometric noise of
    scale 2H·K/ε per count and episode (a user moves at most 2H counts of a release, K releases)."""

    def __init__(self, episodes, horizon, states, epsilon, rng, raw=False):
        self.n, self.rng, self.raw = np.zeros(states, dtype=int), rng, raw
        self.scale = 2 * horizon * episodes / epsilon
        self.visits = self.n.copy()

    def act(self, k, h, state):
        return 0

    def update(self, k, h, state, action, reward, next_state):
        self.n[next_state] += 1

    def end_episode(self, k):
        if self.raw:
            self.visits = self.n.copy()
            return
        p = 1 - np.exp(-1 / self.scale)
        self.visits = self.n + self.rng.geometric(p, self.n.size) - self.rng.geometric(p, self.n.size)


def _pair():
    z = np.zeros((K, H, S, A))
    a = Tapes(np.zeros(K, dtype=int), z, z.astype(int), user=0)
    b = Tapes(np.zeros(K, dtype=int), z, np.ones((K, H, S, A), dtype=int) * (np.arange(K) == 0)[:, None, None, None], 0)
    return a, b


def _audit(factory, **kw):
    args = dict(episodes=K, horizon=H, states=S, actions=A, seed=3, samples=400, pairs=[_pair()], releases=("visits",))
    return audit_episodic(factory, PureDP(1.0), "joint", **{**args, **kw})


def test_a_count_released_raw_is_refuted_and_its_noisy_version_is_not():
    raw = _audit(lambda episodes, horizon, states, epsilon, rng: Visits(episodes, horizon, states, epsilon, rng, True))
    assert raw.violates_claim and raw.epsilon_lower > 2 and raw.definition == "joint"
    text = str(raw)
    assert "read on what the agent publishes after each episode: visits" in text
    assert "user 1's (episode 1): next states all 1 → all 0" in text or "next states all 0 → all 1" in text
    noisy = _audit(Visits)
    assert not noisy.violates_claim
    assert noisy.call.arguments["episodes"] == K and "privcheck.audit_episodic(" in str(noisy.reproduction)
    assert "episodes=4, horizon=2, states=2, actions=2" in str(noisy.reproduction)


def _pucb(releases, samples, pairs=None):
    return audit_episodic(
        pucb,
        PureDP(1.0),
        episodes=K,
        horizon=H,
        states=S,
        actions=A,
        seed=1,
        samples=samples,
        releases=releases,
        pairs=pairs,
    )


def test_pucb_is_not_refuted_at_its_claim_on_its_releases():
    a, b = _pair()
    b = Tapes(b.initial, b.rewards + (np.arange(K) == 0)[:, None, None, None], b.next_states, 0)
    r = _pucb(("visits", "rewards", "transitions"), 1000, [(a, b)])
    assert not r.violates_claim and r.extra["episodic"] == {"episodes": K, "horizon": H, "states": S, "actions": A}


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@pytest.mark.parametrize("releases", [None, ("visits", "rewards", "transitions")])
def test_pucb_is_not_refuted_at_its_claim_on_more_runs(releases):
    assert not _pucb(releases, 4000).violates_claim


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(definition="table"), "does not apply to an episodic agent"),
        (dict(method="exact"), "method='exact' must be auto or sample"),
        (dict(episodes=1), "episodes=1"),
        (dict(mdp="grid"), "mdp='grid' must be one of chain, riverswim, random"),
        (dict(releases=("1x",)), "releases="),
        (dict(states=0), "states=0 must be an integer >= 1"),
    ],
)
def test_bad_input_names_the_argument(kw, match):
    args = dict(definition="joint", episodes=K, horizon=H, states=S, actions=A, seed=1, samples=100)
    args.update(kw)
    definition = args.pop("definition")
    with pytest.raises(InvalidArgument, match=match):
        audit_episodic(pucb, PureDP(1.0), definition, **args)


def test_the_command_line_audits_an_agent_and_refuses_what_it_cannot(run):
    base = ["audit", "privcheck.policies.private_ucbvi:make", "--epsilon", "1"]
    code, _, err = run(*base, "--definition", "joint", "--episodes", "4", "--horizon", "2")
    assert code == 2 and "needs --states, --actions" in err
    code, _, err = run(
        *base, "--definition", "joint", "--episodes", "4", "--horizon", "2", "--states", "2", "--actions", "2.5"
    )
    assert code == 2 and "--actions 2.5 must be a count" in err
    code, _, err = run(
        *base, "--definition", "table", "--episodes", "4", "--horizon", "2", "--states", "2", "--actions", "2"
    )
    assert code == 2 and "--definition table does not apply to an episodic agent: give one of joint" in err
    code, out, err = run(
        *base,
        "--definition",
        "joint",
        "--episodes",
        "4",
        "--horizon",
        "2",
        "--states",
        "2",
        "--actions",
        "2",
        "--samples",
        "1000",
        "--seed",
        "2",
    )
    assert code == 0 and "as joint DP per episode" in out and "Reproduce: privcheck audit" in out


def test_the_fields_step_level_shapes_are_audited_as_written():
    """examples/step_agents.py: a training loop whose commitment's noise is H times too small is refuted on the
    actions it steps with, and a step agent (select_action/update) that publishes raw counts on its releases; the
    reports say how the code was run."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
    try:
        import step_agents as ex
    finally:
        sys.path.pop(0)
    k = 6
    z = np.zeros((k, H, S, A))
    first = np.ones((k, H, S, A)) * (np.arange(k) == 0)[:, None, None, None]  # the first user rewards everything
    pair = (Tapes(np.zeros(k, dtype=int), z, z.astype(int), 0), Tapes(np.zeros(k, dtype=int), first, z.astype(int), 0))
    kw = dict(episodes=k, horizon=H, states=S, actions=A, seed=1, pairs=[pair])
    loop = audit_episodic(ex.train_small_noise, PureDP(1.0), "joint", samples=300, **kw)
    assert loop.violates_claim and "runs its own loop on a gymnasium-style environment" in str(loop)
    moved = (pair[0], Tapes(np.zeros(k, dtype=int), z, first.astype(int), 0))  # ... moves to state 1 throughout
    kw["pairs"] = [moved]
    step = audit_episodic(ex.make_raw_counts, PureDP(1.0), "joint", samples=200, releases=("counts",), **kw)
    assert step.violates_claim and "makes a step agent: its select_action(state)" in str(step)
