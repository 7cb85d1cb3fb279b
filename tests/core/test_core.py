import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck.core import (
    AddRemove,
    AllPairs,
    ApproxDP,
    InvalidArgument,
    LocalDP,
    PureDP,
    RenyiDP,
    ReplaceOne,
    ReplaceRecord,
    ZCDP,
    chunk_generator,
    chunk_sizes,
    claim_to_dict,
    epsilon_for_delta,
    hockey_stick,
    max_log_ratio,
    relation_from_name,
    renyi,
    resolve_seed,
    zcdp_rho,
)
from privcheck.testing import neighbouring_pairs


@pytest.mark.parametrize(
    "make",
    [
        lambda: PureDP(-1),
        lambda: PureDP(float("nan")),
        lambda: PureDP(math.inf),
        lambda: ApproxDP(1, 1.0),
        lambda: ApproxDP(1, -0.1),
        lambda: ZCDP(0),
        lambda: RenyiDP(1.0, 1),
        lambda: PureDP("a"),
    ],
)
def test_claims_validate(make):
    with pytest.raises(InvalidArgument):
        make()


def test_claim_messages_name_argument_value_rule():
    with pytest.raises(InvalidArgument, match=r"epsilon=-1.0 must be >= 0"):
        PureDP(-1.0)


def test_local_dp_is_pure_under_all_pairs():
    c = LocalDP(1.0)
    assert isinstance(c, PureDP) and isinstance(c.relation, AllPairs)
    assert claim_to_dict(c)["type"] == "pure"
    assert claim_to_dict(ZCDP(0.5))["rho"] == 0.5


@pytest.mark.parametrize(
    "rel", [ReplaceOne("l1", 1.0), ReplaceOne("l2", 0.5), ReplaceOne("linf", 2.0), ReplaceRecord(3.0), AddRemove(1.0)]
)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_strategy_pairs_are_neighbours(rel, data):
    x, y = data.draw(neighbouring_pairs(rel, size=4))
    assert rel.contains(x, y)


@pytest.mark.parametrize(
    "rel", [ReplaceOne("l1", 1.0), ReplaceOne("l2", 0.5), ReplaceOne("linf", 2.0), ReplaceRecord(), AddRemove(1.0)]
)
@pytest.mark.parametrize("x", [[0.0], [0.5, -0.5, 1.0], list(np.linspace(-1, 1, 20))])
def test_proposed_pairs_stay_inside_the_ball(rel, x):
    pairs = rel.candidate_pairs(np.array(x), chunk_generator(0, 1))
    assert pairs
    for a, b in pairs:
        assert rel.contains(a, b) and not np.array_equal(a, b)


def test_relation_rejects_outside_pairs():
    assert not ReplaceOne("l1", 1).contains([0, 0], [0.8, 0.8])
    assert ReplaceOne("l2", 1.2).contains([0, 0], [0.8, 0.8])
    assert not ReplaceRecord().contains([0, 0, 0], [1, 1, 0])
    assert not AddRemove(1).contains([0.5], [0.5, 2.0])
    with pytest.raises(InvalidArgument):
        relation_from_name("replace-l7", 1)


def _logs(p):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(p, dtype=float))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0.01, 1), min_size=2, max_size=6),
    st.lists(st.floats(0.01, 1), min_size=2, max_size=6),
    st.floats(0, 3),
)
def test_divergences_against_mpmath(p, q, eps):
    n = min(len(p), len(q))
    p, q = np.array(p[:n]) / sum(p[:n]), np.array(q[:n]) / sum(q[:n])
    lp, lq = _logs(p), _logs(q)
    with mp.workdps(50):
        P = [mp.mpf(v) for v in p]
        Q = [mp.mpf(v) for v in q]
        assert hockey_stick(lp, lq, eps) == pytest.approx(
            float(sum(max(0, a - mp.e**eps * b) for a, b in zip(P, Q))), abs=1e-12
        )
        assert max_log_ratio(lp, lq) == pytest.approx(float(max(mp.log(a / b) for a, b in zip(P, Q))), abs=1e-12)
        for a in (1.0, 2.0, 7.5):
            ref = (
                sum(x * mp.log(x / y) for x, y in zip(P, Q))
                if a == 1
                else mp.log(sum(x**a * y ** (1 - a) for x, y in zip(P, Q))) / (a - 1)
            )
            assert renyi(lp, lq, a) == pytest.approx(max(0.0, float(ref)), abs=1e-10)
        # ε at δ: the bisection returns a lower end whose δ exceeds the target
        target = 0.5 * hockey_stick(lp, lq, 0.0)
        e = epsilon_for_delta(lp, lq, target)
        if target > 0:
            assert hockey_stick(lp, lq, e) >= target - 1e-12
            assert hockey_stick(lp, lq, e + 1e-9) <= target + 1e-9


def test_divergence_edge_cases():
    assert max_log_ratio(_logs([0.5, 0.5]), _logs([1.0, 0.0])) == math.inf
    assert epsilon_for_delta(_logs([0.5, 0.5]), _logs([1.0, 0.0]), 0.4) == math.inf
    assert epsilon_for_delta(_logs([0.5, 0.5]), _logs([1.0, 0.0]), 0.5) < math.inf
    # randomized response: ρ = sup_α D_α/α is attained as α → 1 and equals ε·tanh(ε/2) (claims A-Z5/A-Z6)
    e = 1.0
    p = 1 / (1 + math.exp(-e))
    assert zcdp_rho(_logs([p, 1 - p]), _logs([1 - p, p])) == pytest.approx(e * math.tanh(e / 2), rel=1e-9)


def test_seeds_and_chunks():
    assert resolve_seed(5) == 5
    assert isinstance(resolve_seed(None), int)
    with pytest.raises(InvalidArgument):
        resolve_seed(-1)
    a = chunk_generator(3, 1, 2, 0).random(4)
    b = np.random.default_rng(np.random.SeedSequence(3).spawn(2)[1].spawn(3)[2].spawn(1)[0]).random(4)
    assert np.array_equal(a, b), "chunk i is the i-th child spawned under its key"
    assert chunk_sizes(10, 4) == [4, 4, 2] and chunk_sizes(8, 4) == [4, 4] and chunk_sizes(0, 4) == []
