"""The stepped projection: the likelihood-ratio statistic of one user's persistent shift in a release made after every
round, its noise correlated along the rounds alike in every released value (:func:`stepped`).

A continual release — a counter's prefix sums, a policy's counts or Gram matrix published after each round — carries
a user's contribution from their round on: in every released value the user moves, the sides' mean difference is a
step, zero before the user's round and constant after it.  Its noise is correlated along the rounds (a tree
counter's blocks are shared by the prefix sums that hold them), and alike in every value released (one counter per
value, each of the same construction).  Where the noise is Gaussian the likelihood ratio of the two sides is then
Σ_w c_w·⟨Σ⁻¹u, y_w⟩: y_w the rounds of released value w, Σ their covariance along the rounds, u the step at the
user's round and c_w the step's height in value w.  A black box estimates all three from the selection draws: Σ
pooled over every value's rounds (each value's series scaled to unit variance, every run a sample — 64 runs of 48
values are some 3,000 series, where 64 rows could never estimate the covariance of 48,000 numbers), the round as the
step that explains the sides' difference best, and each value's height by least squares, shrunk towards zero where
its estimate is within its noise (:data:`SHRINK_CUTS`: a user moves a few of a wide release's values).  No single
value tells the sides apart where the noise of each release is ten times the user's shift; the tree's blocks,
recovered by Σ⁻¹, and the values, summed with their heights, do (measured: ``benchmarks/RESULTS.md``, issue 73).

A search choice, like every statistic: its events are certified on fresh draws.  It is fitted on half the selection
draws and offered only where it separates the sides on the other half (:data:`HELD_OUT_Z` standard errors), so
that a direction fitted to noise does not displace an event that certifies more.  Nothing here certifies privacy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .events import Statistic

__all__ = [
    "stepped",
    "Stepped",
    "stepped_fit",
    "STEPPED_MOST",
    "STEPPED_ROUNDS",
    "STEPPED_VALUES",
    "SHRINK_CUTS",
    "HELD_OUT_Z",
]

#: the most multiply-adds the pooled covariance along the rounds may cost (its series are subsampled beyond: R² each)
#: and the most rounds it is fitted for (the step scan solves R right-hand sides: R³)
STEPPED_MOST, STEPPED_ROUNDS = 1 << 34, 4096
#: the most values a side it is fitted on (256 MB as doubles; a run of an agent on FrozenLake publishes 288,000 over
#: 50 episodes: the first 116 runs of the half)
STEPPED_VALUES = 1 << 25
#: each value's step height is shrunk towards 0 by each of these cuts in turn (soft, on its z-score: h·(1 − c²/z²)⁺),
#: and the cut whose projection separates the held-out half best is kept — a user moves a few of a wide release's
#: values (a tabular agent's transitions: 10 of 5,760 an episode on FrozenLake), and the heights of the thousands they
#: do not move, each estimated with its noise, would otherwise outweigh them (a tree of 32 rounds × 600 values, 6
#: moved, fitted on 100 draws a side: 0.44–0.51 on fresh draws unshrunk, 1.10–1.46 shrunk;
#: ``tests/audit/mechanism/test_continual.py``); a release whose every value moves keeps the cut 0
SHRINK_CUTS = (0.0, 1.0, 2.0, 3.0)
#: the held-out separation (in standard errors of the sides' mean difference) the fitted statistic must show
HELD_OUT_Z = 2.0


class Stepped(NamedTuple):
    """A fitted stepped projection: the ``statistic`` and its ``separation`` on the held-out half — the sides' mean
    difference along it over their pooled standard deviation, what a Gaussian pair of that μ would be told apart by
    (a pair's worth in a screening round: :func:`~.screening._worth`)."""

    statistic: Statistic
    separation: float


def stepped(a: np.ndarray, b: np.ndarray, rounds: int, blocks: int = 1) -> Statistic | None:
    """The stepped projection (see the module docstring) of draws ``a`` (on x) and ``b`` (on x′), 2-D (draws ×
    values), whose first ``rounds``·W values are W values released after each of ``rounds`` rounds (row-major: a
    round's values together) and the rest ``blocks − 1`` further blocks of that size (their weights zero: an
    episodic agent's releases are followed by their changes).  Fitted on at most :data:`STEPPED_VALUES` values a
    side (the first draws of the first half).  None where the draws are too few (fewer than four a side), the rounds
    too many (:data:`STEPPED_ROUNDS`), no value varies, or the fitted statistic does not separate the sides on the
    held-out half (:data:`HELD_OUT_Z`)."""
    fit = stepped_fit(a, b, rounds, blocks)
    return None if fit is None else fit.statistic


def stepped_fit(
    a: np.ndarray, b: np.ndarray, rounds: int, blocks: int = 1, held_out_z: float = HELD_OUT_Z
) -> Stepped | None:
    """:func:`stepped`, with its separation on the held-out half (:class:`Stepped`), offered where that is at least
    ``held_out_z`` standard errors of the sides' mean difference (0: wherever fitted — a screening ranks pairs by
    the estimate, however small)."""
    na, nb = a.shape[0], b.shape[0]
    d = int(np.prod(a.shape[1:]))
    if rounds < 2 or rounds > STEPPED_ROUNDS or min(na, nb) < 4 or d % (rounds * blocks):
        return None
    width = d // (rounds * blocks)
    ha, hb = na // 2, nb // 2
    most = max(2, STEPPED_VALUES // (rounds * width))
    fits = _fitted(_series(a[: min(ha, most)], rounds, width), _series(b[: min(hb, most)], rounds, width))
    if fits is None:
        return None
    best = None
    for fit in fits:  # (the heights shrunk by each cut: the one that separates the held-out half best, SHRINK_CUTS)
        full = np.zeros(d)
        full[: fit.size] = fit.ravel() / np.linalg.norm(fit)  # (rounds × width, row-major as released)
        st = Statistic("projection", weights=tuple(full.tolist()))
        sa, sb = st(a[ha:]), st(b[hb:])  # (read a block of rows at a time)
        se = np.sqrt(sa.var() / sa.size + sb.var() / sb.size)
        gap = abs(float(sb.mean() - sa.mean()))
        if not se > 0:
            continue
        separation = gap / float(np.sqrt((sa.var() + sb.var()) / 2))
        if best is None or separation > best[0].separation:
            best = (Stepped(st, separation), gap >= held_out_z * se)
    return best[0] if best is not None and best[1] else None


def _series(x: np.ndarray, rounds: int, width: int) -> np.ndarray:
    """The first block of draws ``x`` as (draws, rounds, width) doubles."""
    rows = x.reshape(x.shape[0], -1)[:, : rounds * width]
    return np.asarray(rows, dtype=np.float64).reshape(x.shape[0], rounds, width)


def _fitted(ya: np.ndarray, yb: np.ndarray) -> list | None:
    """The weights (rounds × width) of the stepped projection fitted on ``ya``, ``yb`` (draws × rounds × width a
    side), one for each of :data:`SHRINK_CUTS` (those not all zero), or None where no value varies or the covariance
    is singular."""
    ma, mb = ya.mean(axis=0), yb.mean(axis=0)
    ca, cb = ya - ma, yb - mb  # (each side centred on its own mean: the covariance is within the sides)
    R = ya.shape[1]
    scale = np.sqrt(
        (np.square(ca).sum(axis=(0, 1)) + np.square(cb).sum(axis=(0, 1))) / (R * (ca.shape[0] + cb.shape[0]))
    )
    keep = scale > 0
    if not keep.any():
        return None
    s = scale[keep]
    # every kept value's rounds in every run, scaled to unit variance: the samples of the covariance along rounds
    series = (np.concatenate([ca[:, :, keep], cb[:, :, keep]]) / s).transpose(0, 2, 1).reshape(-1, R)
    most = max(2 * R, STEPPED_MOST // (R * R))
    if series.shape[0] > most:  # (a fixed subsample: the search is reproducible)
        series = series[np.linspace(0, series.shape[0] - 1, most).astype(np.int64)]
    if series.shape[0] < 2 * R:
        return None
    cov = series.T @ series / (series.shape[0] - 1)
    cov += 1e-6 * max(float(np.trace(cov)) / R, np.finfo(float).tiny) * np.eye(R)
    diff = (mb - ma)[:, keep] / s  # the sides' mean difference, in each value's units of noise
    steps = np.tril(np.ones((R, R)))  # column k: the step at round k (1 from round k on)
    try:
        whitened = np.linalg.solve(cov, steps)  # Σ⁻¹u for every step
    except np.linalg.LinAlgError:
        return None
    fits = whitened.T @ diff  # (step, value): uᵀΣ⁻¹Δ_w
    norms = np.einsum("tk,tk->k", steps, whitened)  # uᵀΣ⁻¹u
    explained = np.square(fits).sum(axis=1) / norms  # each step's share of the sides' difference (χ² explained)
    k = int(np.argmax(explained))
    heights = fits[k] / norms[k]  # each value's step height, by generalised least squares
    z2 = np.square(fits[k]) / (norms[k] * (1.0 / ya.shape[0] + 1.0 / yb.shape[0]))  # its squared z-score
    outs = []
    for cut in SHRINK_CUTS:
        shrunk = heights * np.maximum(0.0, 1.0 - cut * cut / np.maximum(z2, np.finfo(float).tiny))
        out = np.zeros((R, ya.shape[2]))
        out[:, keep] = np.outer(whitened[:, k], shrunk / s)
        if np.all(np.isfinite(out)) and np.any(out):
            outs.append(out)
    return outs or None
