"""The decision-path input search: it moves rewards between the policy's own extremes and takes the pairs a quarter
and half of the way into a threshold decision."""

import numpy as np
import pytest

from privcheck.policies.heavy_tailed import DPRobustSE
from privcheck.audits.policy.relations import Table
from privcheck.audits.policy.adapters import PolicyMechanism
from privcheck.audits.policy.inputs import DECISION_SHARE, decision_pairs, reward_levels


@pytest.mark.parametrize(
    "start, levels",
    [
        (None, (0.0, 1.0)),
        (np.zeros((4, 2)), (0.0, 1.0)),  # one value: nothing to move between
        (np.array([[2.5, -2.5], [2.5, -2.5]]), (-2.5, 2.5)),
        (np.array([[0.0, np.nan]]), (0.0, 1.0)),
    ],
)
def test_reward_levels(start, levels):
    assert reward_levels(start) == levels


class Threshold:
    """One run of a policy that plays arm 0 for 20 rounds, then arm 1 for good if arm 0's rewards, clipped to
    [-1, 1], plus Laplace noise of scale 2 sum past 1 (else arm 0)."""

    def __init__(self, rng):
        self.noise, self.sum, self.arm = rng.laplace(0.0, 2.0), 0.0, 0

    def act(self, t):
        return self.arm

    def update(self, t, arm, reward):
        self.sum += min(max(reward, -1.0), 1.0) if arm == 0 else 0.0
        if t == 20:
            self.arm = int(self.sum + self.noise > 1)


def make(rng):
    return Threshold(rng)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_paths_move_between_the_given_levels_and_stop_a_quarter_of_the_way():
    from privcheck.core.sequential import as_policy

    mech = PolicyMechanism(as_policy(make, n_arms=2, horizon=24), 24, Table())
    pairs, spent, n_tails = decision_pairs(mech, (24, 2), seed=3, runs=256, levels=(-1.0, 1.0))
    assert pairs and spent > 0
    for x, y in pairs:
        assert set(np.unique(x)) <= {-1.0, 1.0} and set(np.unique(y)) <= {-1.0, 1.0}
        (row,) = np.flatnonzero((x != y).any(axis=1))  # neighbours: one row, moved by the full sensitivity 2
        assert np.abs(x[row] - y[row]).max() == 2.0

    # on arm 0's paths the switch (sum + noise > 1) is taken on under a quarter of the runs at the pair's first table
    # and over a quarter, not yet half, at its second (going up; the mirror going down): each step moves the sum by
    # one noise scale, so the pair a quarter of the way is not the one halfway
    def switched(x):
        return (
            1.0 - 0.5 * np.exp(-(x[:20, 0].sum() - 1) / 2)
            if x[:20, 0].sum() > 1
            else 0.5 * np.exp((x[:20, 0].sum() - 1) / 2)
        )

    shares = [(switched(x), switched(y)) for x, y in pairs]
    assert any(a < DECISION_SHARE < b < 0.5 or a > 1 - DECISION_SHARE > b > 0.5 for a, b in shares), shares
    # and halfway, going up and going down: the pair whose raw sums straddle the threshold 1, where a rule reading
    # the raw sum without its noise (a rare "safety" switch on sum > 1) flips — on no other pair of the paths
    decisions = pairs[: len(pairs) - n_tails]
    raw = [(x[:20, 0].sum() > 1, y[:20, 0].sum() > 1) for x, y in decisions]
    assert (False, True) in raw and (True, False) in raw, raw
    assert len({(x.tobytes(), y.tobytes()) for x, y in pairs}) == len(pairs)  # each pair once


def test_a_policy_audit_table_sets_the_levels():
    policy = DPRobustSE(2, 1.0, 0.9, 1.0, width_scale=1e-3)
    b = float(policy.audit_table(8).max())
    assert reward_levels(policy.audit_table(8)) == (-b, b) and 0 < b != 1


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_paths_tails_are_taken_where_the_decision_goes_the_rarer_way_on_a_few_percent():
    """The pairs after the first ones are the tails': a table on which the switch goes the rarer way on under a
    tenth of the runs, beside its neighbour — where a noise too light-tailed for its claim shows its leak."""
    from privcheck.core.sequential import as_policy

    mech = PolicyMechanism(as_policy(make, n_arms=2, horizon=24), 24, Table())
    pairs, spent, n_tails = decision_pairs(mech, (24, 2), seed=3, runs=256, levels=(-1.0, 1.0))
    assert n_tails >= 1

    def switched(x):  # the chance that sum + Laplace(2) > 1
        s = x[:20, 0].sum() - 1
        return 1.0 - 0.5 * np.exp(-s / 2) if s > 0 else 0.5 * np.exp(s / 2)

    rarer = [min(switched(x), 1 - switched(x), switched(y), 1 - switched(y)) for x, y in pairs[-n_tails:]]
    assert min(rarer) < 0.1, rarer


def test_a_tail_pair_keeps_a_place_among_the_screened():
    from privcheck.audits.policy.inputs import _kept

    moved = [9, 8, 7, 6, 5, 4, 3, 2, 1, 1]  # the tails (8, 9) play differently on fewest runs
    assert _kept(moved, range(8, 10)) == [0, 1, 2, 3, 4, 5, 6, 8]
    assert _kept(moved, range(3, 4)) == list(range(8))  # already among them
    assert _kept([0] * 10, range(8, 10)) == []  # none played differently: nothing to keep
    assert _kept([3, 2, 0, 0, 0], range(3, 5)) == [0, 1, 3, 4]  # tails on which no coupled run differed: kept


def test_the_tails_are_cut_only_on_enough_runs_to_see_them():
    """A tail cut at 1/32 of the way needs 32 coupled runs per table to be a tail; on fewer (a quick stage's search:
    4) it would be the first run that differs, so the paths are cut at the decision only — fewer tables, no tails."""
    from privcheck.audits.policy.inputs import TAIL_SHARES, search_tables, tail_shares
    from privcheck.core.sequential import as_policy

    assert tail_shares(32) == TAIL_SHARES and tail_shares(64) == TAIL_SHARES and tail_shares(31) == ()
    assert search_tables((1000, 2), 4) == 124 < search_tables((1000, 2)) == 204
    mech = PolicyMechanism(as_policy(make, n_arms=2, horizon=24), 24, Table())
    pairs, spent, n_tails = decision_pairs(mech, (24, 2), seed=3, runs=4, levels=(-1.0, 1.0))
    assert pairs and n_tails == 0


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_the_paths_run_as_tasks_of_the_audits_processes_find_the_same_pairs():
    """Each path is a task on the audit's executor: on two processes the search finds the pairs, run-rounds and
    tails it finds in this process, in the same order, and the coupled runs rank the candidates the same."""
    from privcheck.core.execution import Processes, Serial
    from privcheck.core.sequential import as_policy

    mech = PolicyMechanism(as_policy(make, n_arms=2, horizon=24), 24, Table())
    here = decision_pairs(mech, (24, 2), seed=3, runs=64, levels=(-1.0, 1.0), executor=Serial())
    pool = Processes(2)
    try:
        away = decision_pairs(mech, (24, 2), seed=3, runs=64, levels=(-1.0, 1.0), executor=pool)
        moved = mech.coupled_differences(here[0], 3, 16, pool)
    finally:
        pool.close()
    assert here[1:] == away[1:] and len(here[0]) == len(away[0]) > 2
    assert all(np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(here[0], away[0]))
    assert moved == mech.coupled_differences(here[0], 3, 16) and any(moved)
