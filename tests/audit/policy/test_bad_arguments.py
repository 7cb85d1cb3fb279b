"""Every argument the command line refuses, the Python API refuses too — as an ``InvalidArgument`` naming the
argument, never another exception and never a verdict (a property over the arguments of ``audit_policy`` and
``audit``)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commit_policy import ShortCommit  # tests/support

from privcheck import InvalidArgument, PureDP, audit, audit_policy


Commit = ShortCommit  # tests/support/commit_policy.py


def make(rng, epsilon):
    return Commit(rng, epsilon)


def noisy(x, rng, size):
    return np.asarray(x, dtype=float) + rng.laplace(0.0, 1.0, size)


GOOD_POLICY = dict(policy=make, claim=PureDP(1.0), definition="table", horizon=4, samples=200, screening=100, seed=1)
NAN_TABLE = [[0.0, math.nan]] * 4
BAD_POLICY = [
    ("horizon", 0),
    ("horizon", -3),
    ("horizon", 2.5),
    ("horizon", "4"),
    ("horizon", True),
    ("horizon", 1),  # vacuous: the only action is chosen before any reward
    ("claim", None),
    ("claim", "1-DP"),
    ("claim", 1.0),
    ("policy", None),
    ("policy", 3),
    ("pairs", []),
    ("pairs", [([0.0, 1.0],)]),
    ("pairs", "ab"),
    ("pairs", [(NAN_TABLE, [[0.0, 0.0]] * 4)]),
    ("arms", 1),
    ("arms", 1.5),
    ("arms", True),
    ("arms", "2"),
    ("input", NAN_TABLE),
    ("input", [[0.0, math.inf]] * 4),
    ("definition", "tabel"),
    ("method", "magic"),
    ("seed", -1),
    ("seed", 1.5),
    ("samples", 0),
    ("samples", 2.5),
    ("confidence", 1.0),
    ("confidence", math.nan),
    ("max_hours", 0),
    ("screening", -1),
    ("sequence_length", 0),
]
GOOD_MECHANISM = dict(target=noisy, claim=PureDP(1.0), pairs=[(0.0, 1.0)], samples=1000, seed=1)
BAD_MECHANISM = [
    ("claim", "1-DP"),
    ("claim", 1.0),
    ("pairs", []),
    ("method", "magic"),
    ("seed", "x"),
    ("samples", -5),
    ("confidence", 0.0),
    ("classifier", "maybe"),
    ("candidates", 0),
    ("stop_early", "yes"),
    ("scheduler_timeout", 0),
]


def _named(message: str, name: str) -> bool:
    return f"{name}=" in message or name in message.split(":")[0]


@settings(max_examples=len(BAD_POLICY), deadline=None, derandomize=True)
@given(st.sampled_from(BAD_POLICY))
def test_audit_policy_refuses_each_bad_argument_naming_it(bad):
    name, value = bad
    kw = {**GOOD_POLICY, name: value}
    with pytest.raises(InvalidArgument) as e:
        audit_policy(kw.pop("policy"), kw.pop("claim"), kw.pop("definition"), **kw)
    assert _named(str(e.value), name), str(e.value)


@settings(max_examples=len(BAD_MECHANISM), deadline=None, derandomize=True)
@given(st.sampled_from(BAD_MECHANISM))
def test_audit_refuses_each_bad_argument_naming_it(bad):
    name, value = bad
    kw = {**GOOD_MECHANISM, name: value}
    with pytest.raises(InvalidArgument) as e:
        audit(kw.pop("target"), kw.pop("claim"), **kw)
    assert _named(str(e.value), name), str(e.value)


def test_a_horizon_of_one_is_vacuous_on_the_command_line_too(run):
    code, out, err = run(
        "audit", "examples/sequential.py:make", "--epsilon", "1", "--definition", "table", "--horizon", "1"
    )
    assert code == 2 and "vacuous" in err and "--horizon" in err and not out


def test_the_good_arguments_audit():
    kw = dict(GOOD_POLICY)
    report = audit_policy(kw.pop("policy"), kw.pop("claim"), kw.pop("definition"), **kw)
    assert report.verdict is not None
