"""Planted bugs must be caught; the correct twin of each must not be flagged.

Each audit is seeded and run at 95 % confidence (false-failure probability of a correct twin ≤ 5 % per
seed; the seeds are fixed, so the outcome is deterministic).
"""

import math

import numpy as np
import pytest

from privcheck import mechanisms as M
from privcheck import ApproxDP, PureDP, ReplaceOne, ZCDP, AllPairs, audit

N = 100_000


class HalfNoiseLaplace:
    """Claims ε-DP at scale Δ/ε but samples with half of it."""

    def __init__(self, eps):
        self.claim = PureDP(eps, ReplaceOne("l1", 1.0))
        self.eps = eps

    def sample(self, x, rng, size):
        return np.asarray(x, float) + rng.laplace(0, 0.5 / self.eps, size)


def test_laplace_with_half_its_scale_is_caught():
    bug = HalfNoiseLaplace(1.0)
    for method in ("sample",):
        r = audit(bug, pairs=[(0.0, 1.0)], method=method, samples=N, seed=1)
        assert r.violates_claim and r.epsilon_lower > 1.5, str(r)
    r = audit(M.Laplace(scale=0.5), PureDP(1.0, ReplaceOne("l1", 1.0)), method="exact")
    assert r.violates_claim and r.epsilon_lower == pytest.approx(2.0, rel=1e-6)
    # the correct mechanism is the grid form: the float one is refuted by its bits
    # (tests/audit/mechanism/test_bit_events.py)
    assert not audit(M.GridLaplace(epsilon=1.0), method="sample", samples=N, seed=1).violates_claim


def seed_two_ratio_claim(p00, p11):
    """The LDP level from the seed's incomplete two-ratio condition (claims G-LDP3)."""
    return max(0.0, math.log(max(p00 / (1 - p11), p11 / (1 - p00))))


def test_rr_with_swapped_probabilities_and_the_seed_claim_is_caught():
    eps = 1.0
    p = 1 / (1 + math.exp(eps))  # keep and flip swapped: p00 = p11 = 1/(1+e^ε)
    swapped = M.BinaryRandomizedResponse(p, p)
    claimed = PureDP(seed_two_ratio_claim(p, p), AllPairs((0, 1)))  # the seed's condition says 0
    assert claimed.epsilon == 0.0
    for method in ("exact", "sample"):
        r = audit(swapped, claimed, method=method, samples=N, seed=2)
        assert r.violates_claim, str(r)
    assert audit(swapped, PureDP(1.0 + 1e-9, AllPairs((0, 1))), method="exact").violates_claim is False


class WrongBranchRR:
    """Randomized response that uses e^(2ε) on the x = 1 branch."""

    def __init__(self, eps):
        self.p00 = math.exp(eps) / (1 + math.exp(eps))
        self.p11 = math.exp(2 * eps) / (1 + math.exp(2 * eps))
        self.claim = PureDP(eps, AllPairs((0, 1)))

    def sample(self, x, rng, size):
        keep = self.p11 if x == 1 else self.p00
        y = rng.random(size) < keep
        return np.where(y, x, 1 - x)


def test_rr_with_wrong_probabilities_is_caught():
    r = audit(WrongBranchRR(1.0), pairs=[(0, 1)], samples=N, seed=3)
    assert r.violates_claim and r.epsilon_lower > 1.1, str(r)
    assert not audit(M.optimal_randomized_response(1.0), method="sample", samples=N, seed=3).violates_claim


def test_gaussian_calibrated_for_four_rho_is_caught():
    rho = 0.5
    bug = M.Gaussian(1.0 / math.sqrt(2 * 4 * rho), 1.0, claim=ZCDP(rho, ReplaceOne("l2", 1.0)))
    r = audit(bug, method="sample", samples=N, seed=4)
    assert r.violates_claim and r.rho_lower > rho, str(r)
    r = audit(bug, method="exact")
    assert r.violates_claim and r.rho_lower == pytest.approx(4 * rho, rel=1e-3)
    ok = M.Gaussian.for_zcdp(rho)  # correct over the reals (the float sampler's bits are another matter)
    assert not audit(ok, method="exact").violates_claim
    assert not audit(M.GridGaussian.for_zcdp(rho), method="sample", samples=N, seed=4).violates_claim


def test_a_quiet_zcdp_bug_is_refuted_through_the_cells_of_a_ladder():
    """ρ a quarter above its claim (a counter's tree level missed, in one Gaussian): one event's two probabilities read
    about 0.6 of a Gaussian's ρ and cannot refute it; the cells of a ladder of thresholds read 0.9 of it."""
    rho = 0.5
    right = M.GridGaussian.for_zcdp(rho)
    bug = M.GridGaussian(round(right.sigma_steps / math.sqrt(1.25)), right.grid, claim=right.claim)
    r = audit(bug, method="sample", samples=N, seed=5)
    assert r.violates_claim and r.rho_lower > rho and r.witness["event"]["kind"] == "cells", str(r)
    assert len(r.witness["cells"]["x"]) == len(r.witness["event"]["thresholds"])
    ok = audit(right, method="sample", samples=N, seed=5)
    assert not ok.violates_claim and ok.rho_lower > 0.85 * rho, str(ok)
    reach = ok.extra["reach"]  # (said in the claim's own figure too: an estimate, never certified)
    assert reach["figure"]["name"] == "ρ" and 0 <= reach["figure"]["value"] < rho


def test_gaussian_approx_claim_too_strong_is_caught():
    g = M.Gaussian(1.0)
    true_delta = M.gaussian_delta(1.0, 1.0)
    r = audit(g, ApproxDP(1.0, true_delta / 10, ReplaceOne("l2", 1.0)), method="exact")
    assert r.violates_claim and r.delta_lower == pytest.approx(true_delta, rel=1e-3)
    r = audit(g, ApproxDP(1.0, true_delta * 1.001, ReplaceOne("l2", 1.0)), method="exact")
    assert not r.violates_claim


def test_truncated_mean_without_truncation_is_caught():
    class NoTruncation(M.TruncatedMean):
        def _center(self, x):
            r = self._records(x)
            return float(r.mean()), self.scale(r.size)

    bug = NoTruncation(1.0, bound=1.0)
    pair = ([0.5, 0.0, 1.0, 0.0], [0.5, 0.0, 5.0, 0.0])
    assert audit(bug, method="exact", pairs=[pair]).violates_claim
    # the fix is not refuted on that pair (on its default pairs: the slow tier's contract tests)
    assert not audit(M.TruncatedMean(1.0, bound=1.0), method="exact", pairs=[pair]).violates_claim
