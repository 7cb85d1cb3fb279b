"""The field's benchmark mechanisms, written from their papers' definitions, in the form privcheck audits
(``f(x, rng, size)``, every draw from the given Generator; x a vector of query answers of sensitivity 1).

* Report noisy max, Ding, Wang, Wang, Zhang and Kifer, "Detecting Violations of Differential Privacy" (CCS 2018,
  Algorithms 5–8): the index of the largest q_i + noise with Laplace (1) or exponential (2) noise of scale 2/ε —
  both ε-DP — and the same with the noisy *value* released (3, 4) — not ε-DP.
* Noisy histograms (the same paper's evaluation): q + Lap(1/ε) (correct) and q + Lap(ε) (the scale inverted).
* The sparse vector technique, Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential
  Privacy" (PVLDB 2017, Algorithms 1–6), threshold T, at most c answers ⊤ (DP-Sniper's evaluation: c = 1,
  T = 0.5 for Algorithm 1 and T = 1 for the others), ε₁ = ε/2 for the threshold noise unless said: 1 — ρ ~
  Lap(1/ε₁), ν_i ~ Lap(2c/ε₂), stop after c ⊤ (correct); 2 — ρ redrawn after every ⊤
  with scale c/ε₁ (correct); 3 — ν_i ~ Lap(c/ε₂) and the noisy value released for ⊤ (not DP); 4 — ε₁ = ε/4,
  ν_i ~ Lap(1/ε₂) (not ε-DP); 5 — no query noise, no cut-off (not DP); 6 — ν_i ~ Lap(1/ε₂), no cut-off (not
  ε-DP).  Outputs are 1 (⊤), 0 (⊥) and −1 (after the cut-off); SVT3 releases the noisy value for ⊤, −1000 for
  ⊥ and −2000 after the cut-off.

* Truncated geometric, Balcer and Vadhan, "Differential Privacy on Finite Computers" (ITCS 2018, Algorithm 4.8
  GeoSample) with ε = 0.1 and n = 5: integer arithmetic only; by their Theorem 4.7 it is ln(1 + 2^−⌈ln(2/ε)⌉)-DP
  = 0.1178-DP, not 0.1-DP.
* RAPPOR and one-time RAPPOR, Erlingsson, Pihur and Korolova (CCS 2014, steps 1–3 and 1–2): a Bloom filter of
  20 bits with 4 hash functions (here: BLAKE2b of "i:value" mod 20, so the filter bits are ours, not the
  paper's), the permanent randomized response with f (0.75; one-time: 0.95), then for RAPPOR the instantaneous
  one with p = 0.45, q = 0.55.  Claimed: RAPPOR ε₁ = h·ln(q*(1 − p*)/(p*(1 − q*))) = 0.4001 and one-time
  RAPPOR ε∞ = 2h·ln((1 − f/2)/(f/2)) = 0.8007 (the paper's §4, for filters that share no bit).
* Laplace in parallel (DP-Sniper's evaluation): 20 independent q + Lap(1/0.005), claimed 0.1-DP by composition.
* SVT3 and SVT4 in parallel with c = 2 (DP-Sniper's evaluation), claimed 0.2 by composition — neither is.
* Prefix sum, Wang, Ding, Wang, Kifer and Zhang, "Proving Differential Privacy with Shadow Execution" (PLDI 2019):
  the running sums of q_i + Lap(1/ε): ε-DP for neighbours differing in one query, but claimed here, as in
  DP-Sniper's evaluation, for ℓ∞ neighbours (every query may move by 1), where it is 10ε.
* Numerical SVT (the same paper): ρ₁ ~ Lap(3/ε) on the threshold, ρ₂ ~ Lap(6c/ε) on the comparison, a fresh
  ρ₃ ~ Lap(3c/ε) on the released value; c = 2, T = 1; 0 for ⊥, the noisy value for ⊤, −1000 after the cut-off.

Each is registered in :data:`CASES` with its claimed ε (0.1), DP-Sniper's pair and its reported bound and time
(Bichsel, Steffen, Bogunovic and Vechev, "DP-Sniper: Black-Box Discovery of Differential Privacy Violations
using Classifiers", IEEE S&P 2021; the logistic-regression run of their published reference results).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

EPS = 0.1


def _queries(x) -> np.ndarray:
    return np.atleast_1d(np.asarray(x, dtype=float))


def laplace(x, rng, size):
    return _queries(x)[0] + rng.laplace(0.0, 1 / EPS, size)


def noisy_hist1(x, rng, size):
    q = _queries(x)
    return q + rng.laplace(0.0, 1 / EPS, (size, q.size))


def noisy_hist2(x, rng, size):
    q = _queries(x)
    return q + rng.laplace(0.0, EPS, (size, q.size))


def _noisy(q, rng, size, kind):
    if kind == "laplace":
        return q + rng.laplace(0.0, 2 / EPS, (size, q.size))
    return q + rng.exponential(2 / EPS, (size, q.size))


def report_noisy_max1(x, rng, size):
    return np.argmax(_noisy(_queries(x), rng, size, "laplace"), axis=1)


def report_noisy_max2(x, rng, size):
    return np.argmax(_noisy(_queries(x), rng, size, "exponential"), axis=1)


def report_noisy_max3(x, rng, size):
    return np.max(_noisy(_queries(x), rng, size, "laplace"), axis=1)


def report_noisy_max4(x, rng, size):
    return np.max(_noisy(_queries(x), rng, size, "exponential"), axis=1)


def geo_cumulative(c: int, n: int = 5) -> tuple[list[int], int]:
    """GeoSample's integer cumulative function F(0..n) for the count c, and its range d = F(n)."""
    k = math.ceil(math.log(2.0 / EPS))
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
    f = [2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)) for z in range(c)]
    f += [d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)) for z in range(c, n)] + [d]
    return f, d


def truncated_geometric(x, rng, size):
    """GeoSample(ε, n = 5) of Balcer and Vadhan for the count c = x: u uniform on {1, …, d}, the output the
    smallest z with F(z) ≥ u."""
    f, d = geo_cumulative(int(_queries(x)[0]))
    return np.searchsorted(np.asarray(f, dtype=np.int64), rng.integers(1, d + 1, size), side="left")


def bloom_bits(value, hashes: int = 4, size: int = 20) -> list[int]:
    """The filter positions of ``value``: BLAKE2b of "i:value" modulo ``size`` for i < ``hashes``."""
    return sorted(
        {
            int.from_bytes(hashlib.blake2b(f"{i}:{value}".encode(), digest_size=8).digest(), "little") % size
            for i in range(hashes)
        }
    )


def _permanent(x, rng, size, f):
    filt = np.zeros((size, 20))
    filt[:, bloom_bits(int(_queries(x)[0]))] = 1.0
    u = rng.random((size, 20))
    return np.where(u < f / 2, 1.0, np.where(u < f, 0.0, filt))


def one_time_rappor(x, rng, size):
    return _permanent(x, rng, size, 0.95)


def rappor(x, rng, size, p: float = 0.45, q: float = 0.55):
    b = _permanent(x, rng, size, 0.75)
    return (rng.random(b.shape) < np.where(b == 1.0, q, p)).astype(float)


def laplace_parallel(x, rng, size):
    return _queries(x)[0] + rng.laplace(0.0, 1 / 0.005, (size, 20))


def prefix_sum(x, rng, size):
    q = _queries(x)
    return np.cumsum(q + rng.laplace(0.0, 1 / EPS, (size, q.size)), axis=1)


def numerical_svt(x, rng, size, c: int = 2, t: float = 1.0):
    q = _queries(x)
    rho1 = rng.laplace(0.0, 3 / EPS, (size, 1))
    above = q + rng.laplace(0.0, 6 * c / EPS, (size, q.size)) >= t + rho1
    z = q + rng.laplace(0.0, 3 * c / EPS, (size, q.size))
    seen = np.cumsum(above, axis=1)
    stopped = np.concatenate([np.zeros((size, 1), dtype=bool), seen[:, :-1] >= c], axis=1)
    return np.where(stopped, -1000.0, np.where(above, z, 0.0))


def _cut_off(above: np.ndarray, c: int) -> np.ndarray:
    """1/0 answers, −1 after the c-th ⊤ (the answers after it are not given)."""
    out = above.astype(np.int64)
    seen = np.cumsum(above, axis=1)
    stopped = np.concatenate([np.zeros((above.shape[0], 1), dtype=bool), seen[:, :-1] >= c], axis=1)
    out[stopped] = -1
    return out


def svt34_parallel(x, rng, size):
    return np.concatenate([svt(3, c=2)(x, rng, size), svt(4, c=2)(x, rng, size)], axis=1)


def svt(variant: int, c: int = 1, t: float = 1.0):
    """Lyu, Su and Li's Algorithm ``variant`` (1–6) with cut-off c and threshold t, as a mechanism f(x, rng, size)."""
    e1 = EPS / 4 if variant == 4 else EPS / 2
    e2 = EPS - e1

    def mechanism(x, rng, size):
        q = _queries(x)
        if variant == 2:
            rho = rng.laplace(0.0, c / e1, size)
            nu = rng.laplace(0.0, 2 * c / e2, (size, q.size))
            above = np.empty((size, q.size), dtype=bool)
            for i in range(q.size):  # the threshold noise is redrawn after every ⊤
                above[:, i] = q[i] + nu[:, i] >= t + rho
                rho = np.where(above[:, i], rng.laplace(0.0, c / e1, size), rho)
            return _cut_off(above, c)
        rho = rng.laplace(0.0, 1 / e1, (size, 1))
        nu_scale = {1: 2 * c / e2, 3: c / e2, 4: 1 / e2, 6: 1 / e2}.get(variant)
        m = q + (rng.laplace(0.0, nu_scale, (size, q.size)) if nu_scale else 0.0)
        above = m >= t + rho
        if variant in (5, 6):  # no cut-off
            return above.astype(np.int64)
        answers = _cut_off(above, c)
        if variant == 3:  # the noisy value released for ⊤
            return np.where(answers == 1, m, np.where(answers == 0, -1000.0, -2000.0))
        return answers

    mechanism.__name__ = f"svt{variant}"
    return mechanism


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable
    pair: tuple  # DP-Sniper's reported best pair
    correct: bool
    sniper_eps: float  # DP-Sniper's certified lower bound (logistic regression)
    sniper_seconds: float  # its search plus final estimate
    claim: float = EPS  # the ε claimed

    def audited(self, samples: int, seed: int, **options) -> tuple:
        """(privcheck's report, its seconds): the default sampled audit of this mechanism's claim for queries of
        sensitivity 1 (ℓ∞ neighbours), at ``samples`` draws a side and ``seed``, with ``options`` beside (``pairs=``,
        ``input=``, ``classifier=``, ``full_budget=``…) — the whole call timed."""
        import time

        from privcheck import PureDP, ReplaceOne, audit

        t0 = time.perf_counter()
        claim = PureDP(self.claim, ReplaceOne("linf", 1.0))
        r = audit(self.fn, claim, method="sample", samples=samples, seed=seed, name=self.name, **options)
        return r, time.perf_counter() - t0


_A = [1.0] * 5
_B = [0.0] + [2.0] * 4
_H = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
_ONES = [1.0] * 10
_UPDOWN = [2.0] * 5 + [0.0] * 5

CASES = [
    Case("LaplaceMechanism", laplace, ([1.0], [2.0]), True, 0.0968, 21.4),
    Case("NoisyHist1", noisy_hist1, ([0, 1, 1, 1, 1], [1, 1, 1, 1, 1]), True, 0.0978, 37.7),
    Case("NoisyHist2", noisy_hist2, ([0, 1, 1, 1, 1], [1, 1, 1, 1, 1]), False, 4.602, 40.6),
    Case("ReportNoisyMax1", report_noisy_max1, (_A, _B), True, 0.0923, 61.8),
    Case("ReportNoisyMax2", report_noisy_max2, (_A, _B), True, 0.0975, 58.4),
    Case("ReportNoisyMax3", report_noisy_max3, ([0.0] * 5, [1.0] * 5), False, 0.2478, 62.4),
    Case("ReportNoisyMax4", report_noisy_max4, ([1.0] * 5, [2.0] * 5), False, 0.3463, 62.9),
    Case("SparseVectorTechnique1", svt(1, t=0.5), (_H, _H[::-1]), True, 0.0858, 126.0),
    Case("SparseVectorTechnique2", svt(2), (_H, _H[::-1]), True, 0.0859, 159.9),
    Case("SparseVectorTechnique3", svt(3), (_ONES, _UPDOWN), False, 0.1716, 160.3),
    Case("SparseVectorTechnique4", svt(4), (_ONES, _UPDOWN), False, 0.1687, 130.5),
    Case("SparseVectorTechnique5", svt(5), (_UPDOWN, _ONES), False, 1.7612, 58.9),
    Case("SparseVectorTechnique6", svt(6), ([1.0] * 5 + [0.0] * 5, [0.0] * 5 + [1.0] * 5), False, 0.272, 95.5),
    Case("TruncatedGeometricMechanism", truncated_geometric, ([2], [1]), False, 0.1156, 19.5),
    Case("Rappor", rappor, ([1], [0]), True, 0.293, 144.9, 0.4001),
    Case("OneTimeRappor", one_time_rappor, ([1], [0]), True, 0.5978, 89.1, 0.8007),
    Case("LaplaceParallel", laplace_parallel, ([1.0], [0.0]), True, 0.035, 104.4),
    Case("SVT34Parallel", svt34_parallel, (_ONES, _UPDOWN), False, 0.261, 363.9, 0.2),
    Case("PrefixSum", prefix_sum, ([1.0] * 10, [0.0] * 10), False, 0.504, 97.0),
    Case("NumericalSVT", numerical_svt, ([2.0] * 10, [1.0] * 10), True, 0.0343, 151.7),
]
