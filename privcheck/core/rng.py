"""Randomness helpers.

Functions that sample take an explicit :class:`numpy.random.Generator`.  Only public entry points accept a
seed; they normalise it with :func:`resolve_seed` (a fresh seed is generated, and reported, when none is
given).  Sampling is cut into fixed-size chunks; chunk ``i`` of stream ``key`` draws from the generator
:func:`chunk_generator` ``(seed, *key, i)``, which is the ``i``-th child spawned under ``key`` from the seed's
:class:`numpy.random.SeedSequence`.  A result therefore never depends on how many workers ran the chunks.
"""

from __future__ import annotations

import secrets

import numpy as np

from .errors import InvalidArgument

__all__ = [
    "CHUNK_SIZE",
    "PAIR_STREAM",
    "PROBE_STREAM",
    "resolve_seed",
    "as_generator",
    "chunk_generator",
    "chunk_sizes",
]

#: draws per chunk; part of the reproducibility contract (changing it changes every sampled result)
CHUNK_SIZE = 1 << 16
#: the stream key of the generator that proposes neighbour pairs (the sampled engine's stages are 0–2, the probe 9)
PAIR_STREAM = 7
#: the stream key of the probes an audit makes before its work (reproducibility, cost, coupled runs): apart from
#: the sampled engine's stages (0, 1, 2) and the pair proposals
PROBE_STREAM = 9


def resolve_seed(seed) -> int:
    """A non-negative integer seed: ``seed`` itself, or a fresh random one when ``seed`` is None."""
    if seed is None:
        return secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise InvalidArgument(f"seed={seed!r} must be a non-negative integer")
    if seed < 0:
        raise InvalidArgument(f"seed={seed!r} must be a non-negative integer")
    return int(seed)


def as_generator(seed_or_rng) -> np.random.Generator:
    """A Generator from a seed, a SeedSequence or a Generator (returned as is)."""
    if isinstance(seed_or_rng, np.random.Generator):
        return seed_or_rng
    if isinstance(seed_or_rng, np.random.SeedSequence):
        return np.random.default_rng(seed_or_rng)
    return np.random.default_rng(resolve_seed(seed_or_rng))


def chunk_generator(seed: int, *key: int) -> np.random.Generator:
    """The generator of the stream identified by ``key`` (its last element being the chunk index).

    ``SeedSequence(seed, spawn_key=key)`` is the child that repeated ``spawn`` calls would reach, so the
    stream is the same whichever process computes it.
    """
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=tuple(int(k) for k in key))))


def chunk_sizes(n: int, chunk: int = CHUNK_SIZE) -> list[int]:
    """Sizes of the chunks that make up ``n`` draws: full chunks, then the remainder."""
    if n < 0:
        raise InvalidArgument(f"samples={n} must be >= 0")
    full, rest = divmod(int(n), chunk)
    return [chunk] * full + ([rest] if rest else [])
