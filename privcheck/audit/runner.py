"""Chunked sampling: the one place where draws are made, in-process or across worker processes.

A stream is identified by a key (stage, pair, side); chunk ``i`` of that stream draws
:data:`~privcheck.core.CHUNK_SIZE` outputs (the last chunk the remainder) from
``chunk_generator(seed, *key, i)``.  Workers only change *where* a chunk runs, never what it draws, so a
result is identical for any number of workers.  Only counts travel back from certification chunks.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Sequence

import numpy as np

from privcheck.core import chunk_generator, chunk_sizes, draw

__all__ = ["ChunkRunner", "Stream"]


class Stream:
    """Draws of one mechanism on one input, under one key."""

    def __init__(self, mechanism, x, key: tuple, name: str):
        self.mechanism, self.x, self.key, self.name = mechanism, x, tuple(key), name


def _draw_chunk(args):
    stream, seed, index, size, expect = args
    rng = chunk_generator(seed, *stream.key, index)
    return draw(stream.mechanism, stream.x, rng, size, name=stream.name, expect=expect)


def _count_chunk(args):
    stream, seed, index, size, expect, events = args
    out = _draw_chunk((stream, seed, index, size, expect))
    return np.array([int(np.count_nonzero(ev.indicator(out))) for ev in events], dtype=np.int64)


class ChunkRunner:
    """Runs chunk tasks in order, on ``workers`` processes (1 = in this process)."""

    def __init__(self, workers: int = 1, progress: Callable[[int], None] | None = None):
        self.workers = int(workers)
        self.progress = progress
        self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def _map(self, fn, tasks: Sequence, sizes: Sequence[int]):
        if self.workers <= 1 or len(tasks) <= 1:
            out = []
            for t, s in zip(tasks, sizes):
                out.append(fn(t))
                if self.progress:
                    self.progress(s)
            return out
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"))
        results = []
        for r, s in zip(self._pool.map(fn, tasks), sizes):
            results.append(r)
            if self.progress:
                self.progress(s)
        return results

    def _plan(self, stream: Stream, seed: int, n: int):
        sizes = chunk_sizes(n)
        first = _draw_chunk((stream, seed, 0, sizes[0], None)) if sizes else None
        expect = (first.shape[1:], first.dtype.kind) if first is not None else None
        if first is not None and self.progress:
            self.progress(sizes[0])
        return sizes, first, expect

    def sample(self, stream: Stream, seed: int, n: int) -> np.ndarray:
        """All ``n`` draws of the stream, concatenated along axis 0."""
        sizes, first, expect = self._plan(stream, seed, n)
        if first is None:
            raise ValueError("n must be >= 1")
        tasks = [(stream, seed, i, s, expect) for i, s in enumerate(sizes) if i > 0]
        rest = self._map(_draw_chunk, tasks, sizes[1:])
        return np.concatenate([first, *rest]) if rest else first

    def count(self, stream: Stream, seed: int, n: int, events: Sequence) -> np.ndarray:
        """How many of ``n`` fresh draws fall in each event."""
        sizes, first, expect = self._plan(stream, seed, n)
        total = np.array([int(np.count_nonzero(ev.indicator(first))) for ev in events], dtype=np.int64)
        tasks = [(stream, seed, i, s, expect, tuple(events)) for i, s in enumerate(sizes) if i > 0]
        for c in self._map(_count_chunk, tasks, sizes[1:]):
            total += c
        return total
