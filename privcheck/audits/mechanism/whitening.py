"""The whitened projection: the direction Σ⁻¹Δ of the likelihood-ratio statistic of two Gaussians with one covariance
Σ and means Δ apart, estimated on draws (:func:`whitened`).

For real outputs whose noise is correlated Gaussian — a counter's prefix sums, a released Gram matrix — the privacy
loss of a pair is this linear statistic; the mean-difference projection reads it only along Δ.  Its covariance is
estimated on the pair's own selection draws, or — where the pairs of a screening round are drawn alike, as a stream's
neighbours are — pooled over every pair still in (:func:`pooled_covariance`): a round of twenty pairs holds twenty
times a pair's rows, and an estimate from a pair's own 1,818 rows of 1,024 released values (a counter of T = 1,024,
the first round of an audit's screening) is not even offered (fewer rows than 2d).  Pooled, the screening ranks the
pairs by the direction the selection will certify on, and tells elements 10 % apart in ρ (measured:
``benchmarks/RESULTS.md``).

A search choice, like every statistic: its events are certified on fresh draws, and a covariance that is not the
pairs' common one (noise that depends on the input) only makes the ranking worse, never a bound wrong.  Nothing here
certifies privacy."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import scipy.linalg

from privcheck.core.threads import every_blas_thread

__all__ = [
    "WHITENED_WORK",
    "WHITENED_MOST",
    "covariance_held",
    "SELECTED_WORK",
    "POOLED_WORK",
    "SHARED_WORK",
    "Pooled",
    "mean_of",
    "pooled_covariance",
    "whitened",
]

#: the whitened projection's covariance is estimated on max(2d, work / d²) rows a side (all where fewer), and offered
#: only where that costs at most max(work, WHITENED_MOST) multiply-adds (rows × d²); ``work`` is WHITENED_WORK where
#: a pair's own draws are screened and SELECTED_WORK in the audit's own selection, made once.  The rows' budget alone
#: (2³²) left out a counter of T = 2,048 releases (2d rows: 2³⁴), whose audit then read only the mean-difference
#: projection and certified 0.55 of the pair's μ (0.92 at T = 1,024); at 2d rows its covariance takes about 2 s a
#: call here.  Read on 2d rows, the estimated covariance costs the statistic's direction about a tenth of its
#: separation (binary counter, T = 2,048, element 16, against its exact covariance: 0.77 of the exact μ on 4,096 rows
#: a side, 0.87 on 20,000): the selection's budget reads it on up to 2³⁸ / d² rows (16,384 at d = 4,096; every row
#: up to d = 1,024)
WHITENED_WORK, WHITENED_MOST, SELECTED_WORK = 1 << 32, 1 << 35, 1 << 38
#: a screening round's pooled covariance reads max(2d, POOLED_WORK / d²) rows in all (65,536 at d = 1,024), under
#: the same ceiling
POOLED_WORK = 1 << 36
#: a covariance of at least this many multiply-adds is computed on every BLAS thread (the selection's arithmetic is
#: otherwise on one: :mod:`privcheck.core.threads`)
SHARED_WORK = 1 << 30
#: the ridge added to an estimated covariance, in units of its mean variance (a zero-variance value stays solvable)
RIDGE = 1e-9


def _rows(n: int, d: int, work: int) -> int | None:
    """The rows a covariance of ``d`` values is read on, of ``n`` there are, within ``work`` (see
    :data:`WHITENED_WORK`); None where fewer than 2d or beyond the ceiling."""
    rows = min(n, max(2 * d, work // max(d * d, 1)))
    return None if rows < 2 * d or rows * d * d > max(work, WHITENED_MOST) else rows


def covariance_held(n: int, d: int, work: int = SELECTED_WORK) -> float:
    """The bytes :func:`whitened` holds while it estimates a covariance of ``d`` values on ``n`` rows a side within
    ``work``: each side's rows centred (a copy of the rows it reads), the covariance and the two products summed into
    it.  0 where it would not estimate one.  (A counter of T = 2,048 at 30,000 selection draws a side: both sides'
    whole selection draws again, 0.92 GB — the largest of the selection's temporaries, measured.)"""
    rows = _rows(n, d, work)
    return 0.0 if rows is None else 8.0 * (2 * rows * d + 3 * d * d)


def _ridged(cov: np.ndarray) -> np.ndarray:
    d = cov.shape[0]
    return cov + RIDGE * max(float(np.trace(cov)) / d, np.finfo(float).tiny) * np.eye(d)


class Pooled:
    """A covariance pooled over a screening round's pairs (:func:`pooled_covariance`), factored once: the whitened
    direction of any of them is one solve (:meth:`solve`)."""

    def __init__(self, cov: np.ndarray):
        self.d = cov.shape[0]
        self._factor = scipy.linalg.cho_factor(_ridged(cov), check_finite=False)

    def solve(self, diff: np.ndarray) -> np.ndarray:
        return scipy.linalg.cho_solve(self._factor, diff, check_finite=False)

    def separation(self, a: tuple, b: tuple) -> float:
        """The sides' separation in the pooled covariance's units, √(Δ̂ᵀΣ⁻¹Δ̂ − d·(1/n_a + 1/n_b)) (clipped at 0):
        ``a`` and ``b`` each a side's (mean, rows it is of) (:func:`mean_of`), Δ̂ their difference, whose squared
        length in those units exceeds the true one's by d·(1/n_a + 1/n_b) on average.  Where the noise is Gaussian
        of that covariance, this is the pair's μ (its privacy loss is N(μ²/2, μ²)), estimated on all the pair's
        draws at once."""
        (ma, na), (mb, nb) = a, b
        diff = mb - ma
        squared = float(diff @ self.solve(diff)) - self.d * (1.0 / na + 1.0 / nb)
        return float(np.sqrt(squared)) if squared > 0 else 0.0


def mean_of(*draws: np.ndarray) -> tuple:
    """(the mean row, as doubles, the rows it is of) of ``draws`` — arrays of draws on one input, rows × values (any
    trailing shape)."""
    rows = sum(x.shape[0] for x in draws)
    total = sum(x.reshape(x.shape[0], -1).sum(axis=0, dtype=np.float64) for x in draws)
    return total / rows, rows


def pooled_covariance(groups, work: int = POOLED_WORK) -> Pooled | None:
    """The within-group covariance of ``groups`` — each a side of a pair of a screening round, draws × values (any
    trailing shape, the same for all), each centred on its own mean — pooled over an equal share of every group's
    first rows, max(2d, ``work`` / d²) rows in all, factored (:class:`Pooled`); None where the draws are not real
    vectors (a float dtype, at least two values), there are fewer than two groups, the rows are fewer than 2d, the
    cost is beyond the ceiling (:data:`WHITENED_MOST`), the estimate is not positive definite, or no value varies
    within a group — the ridge of a zero covariance is below the smallest double, its solves not finite, and a pair
    whose sides differ surely (a count released raw, read on a run's first episodes) was ranked with one whose sides
    are the same; without a covariance the screening ranks them by their events."""
    groups = [g.reshape(g.shape[0], -1) for g in groups]
    if len(groups) < 2 or any(g.dtype.kind != "f" for g in groups) or len({g.shape[1] for g in groups}) != 1:
        return None
    d = groups[0].shape[1]
    if d < 2 or min(g.shape[0] for g in groups) < 2:
        return None
    rows = _rows(sum(g.shape[0] for g in groups), d, work)
    if rows is None:
        return None
    each = min(min(g.shape[0] for g in groups), max(2, -(-rows // len(groups))))
    cov = np.zeros((d, d))
    with every_blas_thread() if each * len(groups) * d * d >= SHARED_WORK else nullcontext():
        for g in groups:
            x = np.asarray(g[:each], dtype=np.float64)
            x = x - x.mean(axis=0)
            cov += x.T @ x
        cov /= len(groups) * (each - 1)
        if not np.all(np.isfinite(cov)) or not np.trace(cov) > 0:  # (no value varies: nothing to whiten)
            return None
        try:
            return Pooled(cov)
        except np.linalg.LinAlgError:
            return None


def whitened(ca: np.ndarray, cb: np.ndarray, diff: np.ndarray, work: int = WHITENED_WORK, pooled=None) -> tuple | None:
    """The weights Σ⁻¹Δ, normalised, for the sides' mean difference ``diff``: Σ the ``pooled`` covariance where given
    (:func:`pooled_covariance`, of as many values), else the pooled within-side covariance of the selection draws
    ``ca``, ``cb`` (each side centred on its own mean).  None when the rows are too few (fewer than twice their
    dimension) or the covariance would cost more than ``work`` or :data:`WHITENED_MOST`, the larger (see
    :data:`WHITENED_WORK`)."""
    d = diff.size
    if pooled is not None and pooled.d == d:
        w = pooled.solve(diff)
    else:
        n = _rows(min(ca.shape[0], cb.shape[0]), d, work)
        if n is None:
            return None
        xa, xb = ca[:n] - ca[:n].mean(axis=0), cb[:n] - cb[:n].mean(axis=0)
        with every_blas_thread() if n * d * d >= SHARED_WORK else nullcontext():
            cov = (xa.T @ xa + xb.T @ xb) / (2 * n - 2)
            try:
                w = np.linalg.solve(_ridged(cov), diff)
            except np.linalg.LinAlgError:
                return None
    norm = float(np.linalg.norm(w))
    return tuple((w / norm).tolist()) if norm > 0 and np.isfinite(norm) else None
