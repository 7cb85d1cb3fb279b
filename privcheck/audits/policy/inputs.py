"""The inputs a policy audit runs on: the reward table whose neighbours a sampled audit searches, the pairs it
proposes there, and the checks that they fit this machine and the exact engines."""

from __future__ import annotations

import numpy as np

from privcheck.core import CHUNK_SIZE, chunk_generator
from privcheck.core.protocols import AuditTable, provides
from privcheck.core.resources import check_memory
from privcheck.core.rng import PAIR_STREAM

__all__ = ["start_table", "search_pairs", "check_inputs_fit", "binary"]


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


def check_inputs_fit(policy, horizon: int, pairs, opts) -> None:
    """Refuse, before any table is built, a horizon whose searched reward tables (up to 32 pairs of T × K
    doubles) and one chunk of runs' actions (T int64 each) cannot be held."""
    n = 2 * (32 if pairs is None else len(pairs)) + 2
    chunk = min(CHUNK_SIZE, max(opts.samples, opts.selection_samples))
    check_memory(
        8.0 * horizon * (policy.n_arms * n + 2 * chunk),
        f"a sampled policy audit at horizon={horizon:,}",
        "a smaller horizon (the reward tables and every run's actions are held)",
    )


def binary(pairs) -> bool:
    """Whether the given pairs (None: all binary tables) have rewards in {0, 1}, as the exact engines need."""
    return pairs is None or all(np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all() for p in pairs for x in p)
