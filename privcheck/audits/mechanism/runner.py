"""Chunked sampling: the one place where draws are made, whatever executor runs them.

A stream is identified by a key (stage, pair, side); chunk ``i`` of that stream draws
:data:`~privcheck.core.CHUNK_SIZE` outputs — fewer where they are wide (:func:`~privcheck.audits.sampling.
chunk_draws`), a :class:`~privcheck.core.protocols.Chunked` target's own ``chunk_draws`` (a policy's runs: 4,096) —
(the last chunk the remainder) from
``chunk_generator(seed, *key, i)``.  A task is a run of consecutive chunks of one stream — a pure function of
(target, input, key, seed, first chunk index, chunk sizes) — and the executor (:mod:`privcheck.core.execution`)
only changes *where* it runs, never what it draws: a result is identical in this process, on ``workers``
processes and on a Dask cluster.  Certification tasks return counts only; selection tasks return their draws,
which the selection sample size bounds.

The target travels as it was given: a :class:`~privcheck.core.targets.Described` target is rebuilt on each
worker from its description; anything else is pickled.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Sequence

import numpy as np

from privcheck.core import CHUNK_SIZE, as_mechanism, chunk_generator, chunk_sizes, draw
from privcheck.core.protocols import Chunked, check_like, provides
from privcheck.core.execution import Executor, Serial
from privcheck.core.resources import release_freed_memory
from privcheck.core.targets import resolve

__all__ = ["ChunkRunner", "Drawing", "Stream", "SCREEN", "SELECT", "CERTIFY", "LOOK"]

#: the stages a stream's key begins with: a screening round, the selection, the certification, a look
SCREEN, SELECT, CERTIFY, LOOK = 0, 1, 2, 3

#: a task covers at most this many chunks (2^24 draws: about half a second of Laplace sampling, so that a
#: scheduler's ~1 ms per task stays small on 64 workers), and the work is cut into about 4 tasks per worker
MAX_CHUNKS_PER_TASK = 256
TASKS_PER_WORKER = 4


class Drawing(NamedTuple):
    """Where an audit's draws come from: the ``runner`` (:class:`ChunkRunner`), the ``target`` that travels to its
    workers, its ``name``, and the audit's ``seed``."""

    runner: object
    target: object
    name: str
    seed: int


class Stream:
    """Draws of one target on one input, under one key."""

    def __init__(self, target, x, key: tuple, name: str):
        self.target, self.x, self.key, self.name = target, x, tuple(key), name


def _iter_chunks(stream, seed, first, sizes, expect):
    """The task's chunks one at a time: a counting task holds one chunk of draws, never all of them."""
    mech = as_mechanism(resolve(stream.target), name=stream.name)
    for j, s in enumerate(sizes):
        yield draw(mech, stream.x, chunk_generator(seed, *stream.key, first + j), s, name=stream.name, expect=expect)


def _draw_chunks(stream, seed, first, sizes, expect):
    return list(_iter_chunks(stream, seed, first, sizes, expect))


def _count_chunks(stream, seed, first, sizes, expect, events):
    total = np.zeros(len(events), dtype=np.int64)
    for out in _iter_chunks(stream, seed, first, sizes, expect):
        total += np.array([np.count_nonzero(ev.indicator(out)) for ev in events], dtype=np.int64)
    return total


def _chunk(streams: Sequence[Stream], chunk: int) -> int:
    """The draws per chunk of the streams (of one target): its own (:class:`Chunked`), else ``chunk``."""
    target = streams[0].target if streams else None
    return int(target.chunk_draws) if provides(target, Chunked) else chunk


def _joined(chunks: list) -> np.ndarray:
    """``np.concatenate(chunks)``, the list emptied as its chunks are copied: the draws are held about once, not
    twice (a wide release's selection draws are gigabytes a side)."""
    n = sum(c.shape[0] for c in chunks)
    out = np.empty((n, *chunks[0].shape[1:]), dtype=np.result_type(*chunks))
    at = 0
    chunks.reverse()
    while chunks:
        c = chunks.pop()
        out[at : at + c.shape[0]] = c
        at += c.shape[0]
    return out


class ChunkRunner:
    """Cuts a stream's chunks into tasks and runs them on ``executor`` (default: this process); ``chunk``: the
    draws per chunk of a target that does not choose its own (:func:`~..sampling.chunk_draws` of its draws' size:
    a wide release's chunks hold at most :data:`~..sampling.CHUNK_BYTES`)."""

    def __init__(
        self,
        executor: Executor | None = None,
        progress: Callable[[int], None] | None = None,
        chunk: int = CHUNK_SIZE,
    ):
        self.executor = executor or Serial()
        self.progress = progress
        self.chunk = int(chunk)

    def _tasks(self, sizes: Sequence[int], offset: int):
        """(first chunk index, chunk sizes) of each task over chunks ``offset..``."""
        n = len(sizes) - offset
        per = max(1, min(MAX_CHUNKS_PER_TASK, math.ceil(n / (TASKS_PER_WORKER * self.executor.workers))))
        return [(offset + i, list(sizes[offset + i : offset + i + per])) for i in range(0, n, per)]

    def sample(self, streams: Sequence[Stream], seed: int, n: int) -> list[np.ndarray]:
        """All ``n`` draws of each stream, concatenated along axis 0, in one wave of tasks — every chunk on the
        executor, none held back here (a policy's first chunk is thousands of runs) — each chunk then checked to
        have the shape and dtype family of its stream's first."""
        sizes = chunk_sizes(n, _chunk(streams, self.chunk))
        if not sizes:
            raise ValueError("n must be >= 1")
        release_freed_memory()  # (what earlier waves freed, given back before this one is held: resources.py)
        tasks = [(j, (st, seed, i, s, None)) for j, st in enumerate(streams) for i, s in self._tasks(sizes, 0)]
        parts = self.executor.map(_draw_chunks, [t for _, t in tasks], [sum(t[3]) for _, t in tasks], self.progress)
        out = [[] for _ in streams]
        for (j, _), p in zip(tasks, parts):
            out[j] += p
        del parts
        for st, chunks in zip(streams, out):
            first = chunks[0]
            for c in chunks[1:]:
                check_like(c, (first.shape[1:], first.dtype.kind), st.name)
        return [_joined(o) for o in out]

    def count(
        self,
        streams: Sequence[Stream],
        seed: int,
        sizes: Sequence[int],
        events: Sequence,
        expects: Sequence[tuple],
        planned: int | None = None,
    ) -> list[np.ndarray]:
        """How many of ``sizes[j]`` fresh draws of stream j fall in each event, in one wave of tasks; ``expects`` =
        (trailing shape, dtype kind) of each stream's outputs, known from the selection draws.  Progress is told
        of the draws made — or, with ``planned``, of that many in all, in proportion (random sizes, planned as
        their mean)."""
        tasks = [
            (j, (st, seed, i, s, ex, tuple(events)))
            for j, (st, ex, n) in enumerate(zip(streams, expects, sizes))
            for i, s in self._tasks(chunk_sizes(n, _chunk(streams, self.chunk)), 0)
        ]
        weights = [sum(t[3]) for _, t in tasks]
        if planned is not None and weights:
            ends = np.cumsum(weights) * planned // max(1, sum(weights))  # the planned total, cut where the draws are
            weights = np.diff(ends, prepend=0).tolist()
        counts = self.executor.map(_count_chunks, [t for _, t in tasks], weights, self.progress)
        total = [np.zeros(len(events), dtype=np.int64) for _ in streams]
        for (j, _), c in zip(tasks, counts):
            total[j] += c
        return total
