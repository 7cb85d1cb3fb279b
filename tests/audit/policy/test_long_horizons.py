"""Long horizons: beyond FULL_SEQUENCE_ROUNDS a policy audit keeps a fixed-width summary of each run, reduced as
the run goes, instead of its action sequence — its features equal those of the sequence, an audit on summaries
still refutes a planted bug and not the correct policy, and interactive audits against the built-in adversaries
keep no history.  The threshold is lowered here so that summaries are exercised at small, cheap horizons."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from privcheck import PureDP, audit_policy
from privcheck.audits.policy.relations import Interactive, Table
from privcheck.audits.policy import adapters, summaries
from privcheck.audits.policy.adapters import InteractiveMechanism, PolicyMechanism
from privcheck.audits.policy.adversaries import adversaries
from privcheck.audits.policy.summaries import ActionSummary, longest_stretch

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
import sequential as ex  # noqa: E402  (examples/sequential.py)


def _longest(row, k) -> int:
    """The longest stretch of ``k`` in ``row``, by splitting the row where it is not ``k`` (an oracle)."""
    return max(len(part) for part in "".join("x" if a == k else "." for a in row).split("."))


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.integers(1, 200), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_a_summary_equals_the_features_of_the_sequence(K, T, n, seed):
    acts = np.random.default_rng(seed).integers(0, K, (n, T))
    s = ActionSummary(K, T, first_release=T // 3)
    acc = s.start(n)
    for t in range(1, T + 1):
        s.record(acc, t, acts[:, t - 1])
    out = s.finish(acc)
    assert out.shape == (n, s.width) and len(s.names()) == s.width
    np.testing.assert_array_equal(out[:, : len(s.rounds)], acts[:, s.rounds - 1])
    for k in range(K):
        hit = acts == k
        np.testing.assert_array_equal(s.pulls(out, k), hit.sum(axis=1))
        for w in range(s.windows):
            a, b = s.edges[w], s.edges[w + 1]
            np.testing.assert_array_equal(out[:, s.pulls_at + k * s.windows + w], hit[:, a:b].sum(axis=1))
        first = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, T + 1)
        last = np.where(hit.any(axis=1), T - hit[:, ::-1].argmax(axis=1), 0)
        np.testing.assert_array_equal(out[:, s.first_at + k], first)
        np.testing.assert_array_equal(out[:, s.last_at + k], last)
        longest = [_longest(row, k) for row in acts]
        np.testing.assert_array_equal(out[:, s.longest_at + k], longest)
        np.testing.assert_array_equal(longest_stretch(acts, k), longest)
        np.testing.assert_array_equal(summaries._longest_of(acts, k), longest)  # (beyond NUMPY_CELLS run-rounds)
    np.testing.assert_array_equal(out[:, s.switches_at], (acts[:, 1:] != acts[:, :-1]).sum(axis=1))
    assert T // 3 + 1 in s.rounds or T // 3 >= T


@pytest.fixture
def summarised(monkeypatch):
    """Summaries from 16 rounds on."""
    monkeypatch.setattr(adapters, "FULL_SEQUENCE_ROUNDS", 16)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_an_audit_on_summaries_refutes_a_planted_bug_and_not_the_policy(summarised):
    kw = dict(horizon=24, samples=2000, screening=300, seed=3)
    bad = audit_policy(ex.make_shared_noise, PureDP(1.0), "table", **kw)
    assert bad.violates_claim and bad.epsilon_lower > 2.5 and bad.extra["stage"] == "quick"  # (125 runs per side)
    assert any("summaries of the action sequences" in n for n in bad.notes)
    assert "({o[" in bad.witness["event_text"] and bad.witness["event_text"].startswith("the ")  # said in words
    ok = audit_policy(ex.make, PureDP(1.0), "table", **kw)
    assert not ok.violates_claim and ok.epsilon_lower <= 1.0


def test_summaries_hold_a_fixed_width_whatever_the_horizon(summarised):
    from privcheck.policies import KLUCB

    for T in (100, 10_000):
        m = PolicyMechanism(KLUCB(2), T, Table())
        assert m.summary is not None and m.draw_bytes() <= 8 * 200
    streaming = InteractiveMechanism(KLUCB(2), 10_000, Interactive(), adversaries(2)["least-recommended"])
    user = InteractiveMechanism(KLUCB(2), 10_000, Interactive(), lambda recs, t, k: recs[:, -1])
    assert streaming.draw_bytes() <= 8 * 200 and user.draw_bytes() >= 8 * 10_000  # a user's adversary: history


def test_the_built_in_adversaries_see_the_same_with_or_without_the_history():
    rng = np.random.default_rng(0)
    recs = rng.integers(0, 3, (50, 17))
    counts = np.stack([(recs == a).sum(axis=1) for a in range(3)], axis=1)
    for name, adv in adversaries(3).items():
        np.testing.assert_array_equal(adv(recs, 17, 3), adv.step(recs[:, -1], counts, 17, 3), err_msg=name)


@pytest.mark.slow  # slow tier: summaries are audited in the default tier by the table audit below
def test_an_interactive_audit_on_summaries(summarised):
    r = audit_policy(ex.make_shared_noise, PureDP(1.0), "interactive", horizon=24, samples=1000, screening=200, seed=4)
    assert r.violates_claim and any("summaries of the action sequences" in n for n in r.notes)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_search_on_the_first_rounds_extends_its_pairs_to_the_horizon(monkeypatch):
    from privcheck.audits.policy import inputs

    monkeypatch.setattr(adapters, "FULL_SEQUENCE_ROUNDS", 16)
    monkeypatch.setattr(inputs, "FULL_SEQUENCE_ROUNDS", 16)
    monkeypatch.setattr(inputs, "SEARCH_SHARE", 1e-12)  # no budget: the search takes the least prefix
    report = audit_policy(
        ex.make_shared_noise, PureDP(1.0), "table", arms=2, horizon=60, samples=500, screening=100, seed=2
    )
    assert any("input search on the first 16 of the 60 rounds" in n for n in report.notes)
    x, y = (np.asarray(t) for t in report.witness["pair"])
    assert x.shape == y.shape == (60, 2)
    assert np.flatnonzero((x != y).any(axis=1)).size == 1  # still neighbours
    np.testing.assert_array_equal(x[16:], np.repeat(x[15:16], 44, axis=0))  # the last searched row, repeated
