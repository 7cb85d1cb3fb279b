"""A sampling of given pairs is checked once, before any run, as a whole plan: beyond ``max_hours`` it is refused
with the way out named, whichever definition; the stages that follow are each within it."""

import numpy as np
import pytest

from commit_policy import ShortCommit  # tests/support

from privcheck import PureDP, ResourceRefused, audit_policy


class Counted(ShortCommit):
    runs = 0

    def __init__(self, rng, epsilon):
        type(self).runs += 1
        super().__init__(rng, epsilon)


def _pair():
    x = np.zeros((4, 2))
    y = x.copy()
    y[0, 0] = 1.0
    return x, y


@pytest.mark.parametrize("definition, against", [("table", ""), ("interactive", " against 5 adversaries")])
def test_given_pairs_beyond_the_ceiling_are_refused_before_the_sampling(definition, against):
    """The time of every adversary's sampling together, against the ceiling the user gave."""
    Counted.runs = 0
    with pytest.raises(ResourceRefused) as refused:
        audit_policy(
            Counted, PureDP(1.0), definition, horizon=4, pairs=[_pair()], samples=10**8, max_hours=0.001, seed=1
        )
    said = str(refused.value)
    assert f"of Counted{against} would take about" in said and "ceiling of max_hours=0.001 " in said
    assert said.endswith("fewer runs per side (samples=), or a smaller horizon=")
    # (the probes that measure a run's cost and its reproducibility ran; no sampling did: the cost is timed on batches
    # from 8 runs, each at least twice the last and the last at most 1,024 — so each before it under half the next,
    # 1,024 + 1,023 + 511 + … < 3,072 in all — and 9 other runs of the probes, where the sampling would be 10⁸.  The
    # bound was 2,000, and failed on a loaded machine, whose slow batches grow by smaller steps; unloaded, 1,553)
    assert Counted.runs < 3_100


def test_a_plan_within_the_ceiling_runs_and_its_stages_are_not_refused_one_by_one():
    r = audit_policy(ShortCommit, PureDP(1.0), "table", horizon=4, pairs=[_pair()], samples=2_000, seed=1)
    assert r.verdict is not None and r.samples_per_side > 0
