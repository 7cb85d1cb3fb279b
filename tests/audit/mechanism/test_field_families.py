"""The field's benchmark mechanisms (StatDP, CCS 2018; DP-Sniper, S&P 2021) as implemented for
``benchmarks/field_benchmark.py``: each published incorrect variant is refuted by the default search on its
benchmark pair at a modest sample size, and the correct ones with integer outputs are not.

The sample size of each row is the smallest of 2·10⁴, 2·10⁵ and 10⁶ at which the violation is certified (the
variants leak little at the benchmark's ε = 0.1: a few tenths of ε); the rows that need 10⁶ draws of a
Python-written mechanism, or that take longer than a second, and the second member of a family, are in the slow
tier."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

from field_mechanisms import CASES  # noqa: E402
from privcheck import PureDP, ReplaceOne, audit  # noqa: E402

BY_NAME = {c.name: c for c in CASES}

# the published incorrect variants, one family each, with the draws per side that refute them
REFUTED_AT = {
    "NoisyHist2": 20_000,  # noisy histogram, noise scaled by ε instead of 1/ε
    "ReportNoisyMax4": 200_000,  # noisy max with exponential noise, releasing the value
    "SparseVectorTechnique5": 20_000,  # sparse vector without noise on the queries
    "TruncatedGeometricMechanism": 1_000_000,  # geometric noise truncated without renormalising
    "PrefixSum": 20_000,  # prefix sums with one noise per sum, no composition
}
SLOW_REFUTED_AT = {  # the other members of the families above
    "ReportNoisyMax3": 200_000,  # noisy max releasing the noisy maximum itself
    "SparseVectorTechnique3": 200_000,  # sparse vector releasing noisy values beside ⊤/⊥
    "SparseVectorTechnique4": 1_000_000,  # sparse vector, ε split 1/4–3/4 with noise of scale 1/ε2
    "SparseVectorTechnique6": 200_000,  # sparse vector without a cut-off
    "SVT34Parallel": 200_000,  # two of the above side by side
}
# correct mechanisms whose outputs are integers (the float ones are refuted by their bits, as they should be)
CORRECT = [
    "ReportNoisyMax1",
    "ReportNoisyMax2",
    "SparseVectorTechnique1",
    "SparseVectorTechnique2",
    "Rappor",
    "OneTimeRappor",
]


def _audit(name, n):
    case = BY_NAME[name]
    return audit(
        case.fn,
        PureDP(case.claim, ReplaceOne("linf", 1.0)),
        method="sample",
        samples=n,
        seed=1,
        pairs=[case.pair],
        name=name,
    )


def test_every_incorrect_benchmark_row_is_listed():
    assert {c.name for c in CASES if not c.correct} == set(REFUTED_AT) | set(SLOW_REFUTED_AT)


@pytest.mark.parametrize("name", [*REFUTED_AT, *(pytest.param(n, marks=pytest.mark.slow) for n in SLOW_REFUTED_AT)])
def test_a_published_incorrect_variant_is_refuted(name):
    r = _audit(name, {**REFUTED_AT, **SLOW_REFUTED_AT}[name])
    assert r.violates_claim and r.epsilon_lower > BY_NAME[name].claim, str(r)


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_mechanism_with_integer_outputs_is_not_refuted(name):
    r = _audit(name, 20_000)
    assert not r.violates_claim, str(r)
