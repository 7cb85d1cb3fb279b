"""privcheck.adapters: the field's shapes of one-object-per-run policies run as the sequential protocol, with the
factory's parameters matched by name (and the user's own through factory_args / --set)."""

import json

import numpy as np
import pytest

from commit_policy import ShortCommit  # tests/support

from privcheck import InvalidArgument, PureDP, adapters, audit_policy
from privcheck.audits.policy.relations import Table
from privcheck.core.sequential import as_policy


Commit = ShortCommit  # tests/support/commit_policy.py


class GetArm:  # get_arm() / update(arm, reward), arms from 1, the field's names for the keywords
    def __init__(self, K, eps, random_state):
        self.inner, self.t = Commit(random_state, eps), 0

    def get_arm(self):
        self.t += 1
        return self.inner.act(self.t) + 1

    def update(self, arm, reward):
        self.inner.update(self.t, arm - 1, reward)


class GetArmT:  # get_arm(t) / update(arm, reward)
    def __init__(self, n_arms, rng, epsilon):
        self.inner = Commit(rng, epsilon)

    def get_arm(self, t):
        self.t = t
        return self.inner.act(t)

    def update(self, arm, reward):
        self.inner.update(self.t, arm, reward)


class Step:  # step(last_reward, last_arm) -> arm
    def __init__(self, rng, epsilon):
        self.inner, self.t = Commit(rng, epsilon), 0

    def step(self, last_reward, last_arm):
        if last_reward is not None:
            self.inner.update(self.t, last_arm, last_reward)
        self.t += 1
        return self.inner.act(self.t)


class SMPy:  # SMPyBandits: startGame(), choice(), getReward(arm, reward)
    def __init__(self, nbArms, rng, epsilon):
        self.rng, self.epsilon, self.started = rng, epsilon, False

    def startGame(self):
        self.inner, self.t, self.started = Commit(self.rng, self.epsilon), 0, True

    def choice(self):
        self.t += 1
        return self.inner.act(self.t)

    def getReward(self, arm, reward):
        self.inner.update(self.t, arm, reward)


def _runs(policy, table, seed=3, runs=64):
    from privcheck.audits.policy.adapters import PolicyMechanism

    mech = PolicyMechanism(policy, table.shape[0], Table())
    return mech.sample(table, np.random.default_rng(seed), runs)


TABLE = np.array([[0.5, 0.0], [0.5, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])


@pytest.mark.parametrize(
    "factory",
    [
        adapters.get_arm(GetArm, one_based=True),
        adapters.get_arm_t(GetArmT),
        adapters.step(Step),
        adapters.smpybandits(lambda nbArms, rng, epsilon: SMPy(nbArms, rng, epsilon)),
    ],
    ids=["get_arm 1-based", "get_arm(t)", "step", "smpybandits"],
)
def test_each_shape_plays_the_same_runs_as_the_sequential_protocol(factory):
    reference = as_policy(lambda rng, epsilon: Commit(rng, epsilon), n_arms=2, horizon=6, claim=PureDP(1.0))
    adapted = as_policy(factory, n_arms=2, horizon=6, claim=PureDP(1.0))
    np.testing.assert_array_equal(_runs(adapted, TABLE), _runs(reference, TABLE))


def test_a_known_shape_is_recognised_and_said():
    policy = as_policy(GetArmT, n_arms=2, horizon=6, claim=PureDP(1.0), name="GetArmT")
    assert "privcheck.adapters.get_arm_t" in policy.adapter_note and "from 1" in policy.adapter_note
    report = audit_policy(GetArmT, PureDP(1.0), "table", horizon=6, samples=300, screening=100, seed=2)
    assert any("privcheck.adapters.get_arm_t" in n for n in report.notes)


def test_one_based_code_without_its_adapter_is_told_which_to_use():
    from privcheck import TargetError

    with pytest.raises(TargetError, match="one_based=True"):
        audit_policy(GetArm, PureDP(1.0), "table", horizon=6, samples=300, screening=100, seed=2)


def test_parameters_are_matched_by_name_and_missing_ones_are_refused_listing_the_offer():
    policy = as_policy(GetArm, n_arms=2, horizon=6, claim=PureDP(0.5), name="GetArm", factory_args=None)
    assert "K = n_arms, eps = epsilon, random_state = rng" in policy.adapter_note

    def make(K, T, eps, window):
        return Commit(np.random.default_rng(0), eps)

    with pytest.raises(InvalidArgument) as e:
        as_policy(make, n_arms=2, horizon=6, claim=PureDP(1.0), name="make")
    message = str(e.value)
    assert "requires window" in message and "n_arms, horizon, rng, dim, context_bound, seed, epsilon" in message
    assert "factory_args=" in message and "TypeError" not in message
    with pytest.raises(InvalidArgument, match="windw"):
        as_policy(make, n_arms=2, horizon=6, claim=PureDP(1.0), name="make", factory_args={"windw": 3})
    as_policy(make, n_arms=2, horizon=6, claim=PureDP(1.0), name="make", factory_args={"window": 3})


def test_a_class_with_no_shape_is_told_what_is_expected():
    class Nothing:
        def __init__(self, rng):
            pass

    with pytest.raises(InvalidArgument, match="act\\(t\\), update\\(t, arm, reward\\).*get_arm"):
        as_policy(Nothing, n_arms=2, horizon=4, claim=PureDP(1.0), name="Nothing")


def test_factory_args_and_the_adapter_on_the_command_line(run, tmp_path):
    f = tmp_path / "field.py"
    f.write_text(
        "import numpy as np\n"
        "class Planted:\n"
        "    def __init__(self, K, rng, epsilon, window):\n"
        "        self.rng, self.window, self.total, self.t = rng, window, 0.0, 0\n"
        "    def get_arm(self):\n"
        "        self.t += 1\n"
        "        if self.t <= self.window:\n"
        "            return 1\n"
        "        return 1 + int(self.total + self.rng.laplace(0, 0.05) > self.window / 2)  # 1/20 of the noise\n"
        "    def update(self, arm, reward):\n"
        "        self.total += reward\n"
    )
    argv = ["audit", f"{f}:Planted", "--epsilon", "1", "--definition", "table", "--horizon", "6", "--samples"]
    argv += ["2000", "--seed", "5", "--adapter", "get_arm", "--one-based", "--json"]
    code, out, err = run(*argv, "--set", "window=3")
    assert code == 1, err
    report = json.loads(out)
    assert "--set window=3" in report["command"] and "--one-based" in report["command"]
    code, _, err = run(*argv)
    assert code == 2 and "requires window" in err and "--set" in err and "factory_args=" not in err


def test_a_users_exception_is_one_line_and_debug_shows_their_frames(run, tmp_path):
    f = tmp_path / "oops.py"
    f.write_text(
        "class P:\n"
        "    def __init__(self, rng):\n"
        "        pass\n"
        "    def act(self, t):\n"
        "        return [0, 1][t]  # fails at t = 2\n"
        "    def update(self, t, arm, reward):\n"
        "        pass\n"
    )
    argv = ["audit", f"{f}:P", "--epsilon", "1", "--definition", "table", "--horizon", "4", "--samples", "100"]
    code, out, err = run(*argv)
    assert code == 2 and not out and err.count("\n") == 1 and "IndexError" in err and "--debug" in err
    code, out, err = run(*argv, "--debug")
    assert code == 2 and 'oops.py", line 5, in act' in err and "return [0, 1][t]" in err


class OwnSeed(Commit):
    """A planted bug as researchers write it: a generator of its own with a fixed seed, the one given ignored."""

    def __init__(self, rng, epsilon):
        super().__init__(np.random.default_rng(42), epsilon)


def test_a_policy_that_ignores_its_generator_is_told_before_any_verdict(run, tmp_path):
    policy = as_policy(OwnSeed, n_arms=2, horizon=6, claim=PureDP(1.0), name="OwnSeed")
    assert "drew no randomness" in policy.randomness_warning and "default_rng(42)" in policy.randomness_warning
    fine = as_policy(lambda rng, epsilon: Commit(rng, epsilon), n_arms=2, horizon=6, claim=PureDP(1.0))
    assert fine.randomness_warning is None
    f = tmp_path / "ownseed.py"
    f.write_text(
        "import numpy as np\n"
        "class P:\n"
        "    def __init__(self, rng, epsilon):\n"
        "        self.rng, self.b, self.s, self.c = np.random.default_rng(42), 1 / epsilon, 0.0, 0\n"
        "    def act(self, t):\n"
        "        if t == 3:\n"
        "            self.c = int(self.s + self.rng.laplace(0, self.b) < 1)\n"
        "        return 0 if t <= 2 else self.c\n"
        "    def update(self, t, arm, reward):\n"
        "        self.s += reward\n"
    )
    code, out, err = run(
        "audit", f"{f}:P", "--epsilon", "1", "--definition", "table", "--horizon", "5", "--samples", "500"
    )  # fmt: skip
    assert err.startswith("privcheck: note:") and "drew no randomness" in err
    assert "drew no randomness" in out  # and in the report
