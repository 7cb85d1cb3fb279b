"""The inputs a policy audit runs on: the reward table whose neighbours a sampled audit searches, the pairs it
proposes there, and the checks that they fit this machine and the exact engines."""

from __future__ import annotations

import math

import numpy as np

from privcheck.core import CHUNK_SIZE, chunk_generator
from privcheck.core.protocols import AuditTable, provides
from privcheck.core.resources import check_memory
from privcheck.core.rng import PAIR_STREAM, PROBE_STREAM

__all__ = [
    "start_table",
    "search_pairs",
    "check_inputs_fit",
    "binary",
    "decision_pairs",
    "search_tables",
    "PATH_RUNS",
]


def start_table(policy, given, horizon: int):
    """The reward table whose neighbours are searched: ``given`` (the user's), else the policy's
    ``audit_table(horizon)`` (:class:`~privcheck.core.protocols.AuditTable`: one that reaches its statistics' full
    sensitivity, e.g. rewards at ± its clipping bound), else None (zeros)."""
    if given is not None:
        return given
    return policy.audit_table(horizon) if provides(policy, AuditTable) else None


def search_pairs(relation, pairs, start, shape, seed):
    """The given pairs, or neighbours of ``start`` (all zeros by default) proposed by the relation."""
    if pairs is None:
        start = np.zeros(shape) if start is None else np.asarray(start, dtype=float)
        pairs = relation.candidate_pairs(start, chunk_generator(seed, PAIR_STREAM))
    return [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]


def check_inputs_fit(policy, horizon: int, pairs, opts, draw_bytes: float) -> None:
    """Refuse, before any table is built, a horizon whose searched reward tables (up to 32 pairs of T × K
    doubles) and two chunks of runs (``draw_bytes`` each: a run's actions or their summary) cannot be held."""
    n = 2 * (32 if pairs is None else len(pairs)) + 2
    chunk = min(CHUNK_SIZE, max(opts.samples, opts.selection_samples))
    check_memory(
        8.0 * horizon * policy.n_arms * n + 2 * chunk * draw_bytes,
        f"a sampled policy audit at horizon={horizon:,}",
        "a smaller horizon (the reward tables are held)",
    )


def binary(pairs) -> bool:
    """Whether the given pairs (None: all binary tables) have rewards in {0, 1}, as the exact engines need."""
    return pairs is None or all(np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all() for p in pairs for x in p)


#: coupled runs per table of the decision-path search
PATH_RUNS = 64


def _path_table(shape, arm: int, j: int, base: float) -> np.ndarray:
    """The j-th table of a path: ``arm``'s reward flipped from ``base`` to 1 − base in rows 0 … j − 1, every other
    reward at ``base`` (a reward list: its first j entries flipped)."""
    x = np.full(shape, base)
    if len(shape) == 2:
        x[:j, arm] = 1.0 - base
    else:
        x[:j] = 1.0 - base
    return x


def _prefix(x: np.ndarray, m: int) -> np.ndarray:
    """``x`` with its first m rows complemented (1 − reward)."""
    y = x.copy()
    y[:m] = 1.0 - y[:m]
    return y


def _bernoulli(shape, seed: int) -> np.ndarray:
    """A table of fair coin flips (from the probe stream): rewards of a random instance with no gap."""
    return (chunk_generator(seed, PROBE_STREAM, 99).random(shape) < 0.5).astype(float)


def _step(T: int, like_start) -> int:
    """The step lo of a path of tables 0 … T − 1 at which ``like_start(m)`` — true at table 0, false at table T − 1
    (the caller has seen both) — turns false between tables lo and lo + 1, by bisection."""
    lo, hi = 0, T - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if like_start(mid) else (lo, mid)
    return lo


def search_tables(shape) -> int:
    """The most tables :func:`decision_pairs` runs (each on ``PATH_RUNS`` runs): a bisection of each path."""
    steps = 2 + math.ceil(math.log2(max(shape[0], 2)))
    paths = 3 + 2 * (shape[1] if len(shape) == 2 else 1)
    return paths * steps


def decision_pairs(mech, shape, seed: int, runs: int = PATH_RUNS, progress=None) -> tuple[list, int]:
    """Neighbouring inputs where the policy's decisions are made, found without reading its code: (the pairs,
    the run-rounds spent).  Every path below goes row by row, so consecutive tables on it are neighbours; every
    table is run on the same ``runs`` coupled runs (the same randomness on every table); a step found by bisection
    gives the pair of the two tables on either side of it, which differ in one row.  The last row is never
    changed (its reward comes after the last action).

    * The first change: from all-0, all-1 and a table of fair coin flips to their complements, the first step at
      which the actions differ from the start's — a row whose reward the actions read (a side channel, an early
      decision).
    * The decision: from all-``base`` to one arm's rewards all flipped (every arm, from 0 to 1 and from 1 to 0; one
      path for a reward list), the step at which the mean pulls of that arm cross halfway between the path's ends
      — where a threshold decision (an elimination, a commitment) flips.

    ``progress(n)``, if given, is told of every n runs made."""
    T = shape[0]
    if T < 2:
        return [], 0
    arms = range(shape[1]) if len(shape) == 2 else range(1)
    spent = 0

    def run(table):
        nonlocal spent
        spent += runs * T
        if progress:
            progress(runs)
        return mech.sample(table, chunk_generator(seed, PROBE_STREAM, 100), runs)

    def pulls(arm, base, j):  # a reward list's path has arm 0
        return float(mech.pulls(run(_path_table(shape, arm, j, base)), arm).sum()) / runs

    out = []
    # 1. the first change: along the path from a table to its complement, row by row, the first table on which
    # the coupled runs play differently from the first — a row whose reward the actions read (only the first
    # table's actions are held)
    for base in (np.zeros(shape), np.ones(shape), _bernoulli(shape, seed)):
        first = run(base)
        if np.array_equal(first, run(_prefix(base, T - 1))):
            continue  # flipping every row but the last never moved the actions (on these runs)
        lo = _step(T, lambda m: np.array_equal(first, run(_prefix(base, m))))
        out.append((_prefix(base, lo), _prefix(base, lo + 1)))
    # 2. the decision: along the path that flips one arm's rewards, the step where its pulls cross halfway
    for arm in arms:
        for base in (0.0, 1.0):
            f_lo, f_hi = pulls(arm, base, 0), pulls(arm, base, T - 1)  # T − 1: every row flipped but the last
            if f_lo == f_hi:
                continue  # the path never moved the actions (on these runs)
            half = (f_lo + f_hi) / 2
            lo = _step(T, lambda m: (pulls(arm, base, m) > half) == (f_lo > half))
            out.append((_path_table(shape, arm, lo, base), _path_table(shape, arm, lo + 1, base)))
    return out, spent
