"""The field's benchmark mechanisms, written from their papers' definitions, in the form privcheck audits
(``f(x, rng, size)``, every draw from the given Generator; x a vector of query answers of sensitivity 1).

* Report noisy max, Ding, Wang, Wang, Zhang and Kifer, "Detecting Violations of Differential Privacy" (CCS 2018,
  Algorithms 5–8): the index of the largest q_i + noise with Laplace (1) or exponential (2) noise of scale 2/ε —
  both ε-DP — and the same with the noisy *value* released (3, 4) — not ε-DP.
* Noisy histograms (the same paper's evaluation): q + Lap(1/ε) (correct) and q + Lap(ε) (the scale inverted).
* The sparse vector technique, Lyu, Su and Li, "Understanding the Sparse Vector Technique for Differential
  Privacy" (PVLDB 2017, Algorithms 1–6), threshold T, at most c answers ⊤ (DP-Sniper's evaluation: c = 1,
  T = 0.5 for Algorithm 1 and T = 1 for the others), ε₁ = ε/2 for the threshold noise unless said: 1 — ρ ~ Lap(1/ε₁), ν_i ~ Lap(2c/ε₂), stop after c ⊤ (correct); 2 — ρ redrawn after every ⊤
  with scale c/ε₁ (correct); 3 — ν_i ~ Lap(c/ε₂) and the noisy value released for ⊤ (not DP); 4 — ε₁ = ε/4,
  ν_i ~ Lap(1/ε₂) (not ε-DP); 5 — no query noise, no cut-off (not DP); 6 — ν_i ~ Lap(1/ε₂), no cut-off (not
  ε-DP).  Outputs are 1 (⊤), 0 (⊥) and −1 (after the cut-off); SVT3 releases the noisy value for ⊤, −1000 for
  ⊥ and −2000 after the cut-off.

Each is registered in :data:`CASES` with its claimed ε (0.1), DP-Sniper's pair and its reported bound and time
(Bichsel, Steffen, Bogunovic and Vechev, "DP-Sniper: Black-Box Discovery of Differential Privacy Violations
using Classifiers", IEEE S&P 2021; the logistic-regression run of their published reference results).
"""

from __future__ import annotations

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


def _cut_off(above: np.ndarray, c: int) -> np.ndarray:
    """1/0 answers, −1 after the c-th ⊤ (the answers after it are not given)."""
    out = above.astype(np.int64)
    seen = np.cumsum(above, axis=1)
    stopped = np.concatenate([np.zeros((above.shape[0], 1), dtype=bool), seen[:, :-1] >= c], axis=1)
    out[stopped] = -1
    return out


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
]
