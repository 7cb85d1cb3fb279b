"""numpy's and Python's global generators, swapped for a batch of runs of a sequential policy, and for each chunk
of draws of a target (:func:`chunk_globals`: a user's mechanism or batched policy that draws from them gets
independent states per chunk, on every executor).

Each batch of one-object-per-run policies (:mod:`privcheck.core.sequential`) has global generators of its own,
swapped in while its runs act or update and swapped out after, the caller's states put back — so that a policy
drawing from ``np.random.*`` or ``random.*`` gives reproducible runs.  Done with ``np.random.get_state`` and
``set_state`` that costs about 140 µs a call (the 624-word state converted both ways, twice), most of an audit's
time on small batches.  Most policies never touch the global generators, so numpy's part is done on its raw
words: the Mersenne Twister's 624-word key and position are moved through the bit generator's documented ctypes
state address (2.5 KB, about a microsecond), and only when the words show that a run drew from it are the full
states (with the cached Gaussian numpy's legacy ``normal`` keeps beside them) read and written the slow way.

The raw path is used only where it is exact:

* the layout is checked once against ``get_state``/``set_state`` (a round trip through both), and the raw path is
  off on a numpy where it does not agree;
* it swaps only states that hold no cached Gaussian (``has_gauss == 0``), on both sides: a draw then always moves
  the words, so unchanged words mean no draw;
* the caller's state is known from the last time this module put it back (its words and its full state); if the
  global generator's words differ from those, someone drew in between and the slow path runs.

Python's part has the same cost (``random.getstate`` and ``setstate`` build and read a 625-int tuple: about 18 µs a
swap, half of the quick stage of a one-object-per-run policy's audit at T = 1,000, whose searches run batches of a few
runs).  There the raw words are the whole state: CPython's generator object holds its index and 624 words after its
object header, and ``random.Random`` keeps only ``gauss_next`` beside them; so on CPython, once the layout is checked
by a round trip through ``getstate``/``setstate`` (:class:`_PythonWords`), a swap copies those 2,500 bytes and that
attribute both ways — exact every time, no slow path needed.  The tuple form is made only when asked for
(:attr:`BatchGenerators.python_state`).

Swapping a global generator makes a target's draws reproducible only where no other thread draws from it while the
target runs.  On a Dask worker one does: Dask's comm measures each message it sends with ``dask.sizeof``, which samples
the items of a list or dict of over ten with ``random.sample`` from Python's global generator, in the event-loop thread
(seen with a spy on the worker's generator).  No swap can stop that — the module's functions are methods of one
shared object — so on Dask a target drawing from ``random.*`` loses words of its chunk's generator to Dask at times its
own draws do not decide: its draws stay independent, not reproducible (docs/how-to/dask.md).  numpy's global generator
is not drawn by Dask.
"""

from __future__ import annotations

import ctypes
import random
import sys
from contextlib import contextmanager

import numpy as np

__all__ = ["BatchGenerators", "swapped", "RAW", "PYTHON_RAW", "for_chunk", "chunk_globals", "GLOBALS_KEY"]

_KEY_WORDS = 624
_RAW_BYTES = _KEY_WORDS * 4 + 4  # uint32 key[624], then int pos


class _InPlace:
    """A global generator's state read and written in place, as the bytes at its address, where that is exact
    (:attr:`ok`): checked once per generator object by a round trip through its own get/set functions
    (:meth:`_round_trip`: read first, so that nothing is written unless the bytes read are the state set), and off
    wherever the object has no such address (:meth:`_address` None) or the check fails."""

    size = 0  # the state's bytes at the address

    def __init__(self):
        self.owner = None  # the generator object the check was made on
        self.words = None  # its state in place, as a ctypes array
        self.ok = False
        self.enabled = True  # a switch for tests: False forces the slow path

    def usable(self) -> bool:
        if not self.enabled:
            return False
        owner = self._owner()
        if owner is not self.owner:  # first use, or the global generator was replaced: check again
            self.owner, self.ok = owner, False
            try:
                address = self._address(owner)
                if address is not None:
                    self.words = (ctypes.c_char * self.size).from_address(address)
                    self.ok = self._round_trip()
            except Exception:  # another implementation or layout: the slow path always
                self.ok = False
        return self.ok


def _put(words, raw: bytes) -> None:
    """Raw words written in place through a ctypes array's ``raw`` (a copy made holding the GIL, so that no other
    thread draws from a half-written generator — ``ctypes.memmove`` releases it; and about three times as fast)."""
    if len(raw) != len(words):  # (raw copies only as many bytes as it is given)
        raise ValueError(f"raw words of {len(raw)} bytes for a state of {len(words)}")
    words.raw = raw


class _RawWords(_InPlace):
    """numpy's global RandomState as raw MT19937 words (its 624-word key, then its position)."""

    size = _RAW_BYTES

    def _owner(self):
        get = getattr(np.random, "get_bit_generator", None)
        return get() if get is not None else None

    def _address(self, bg) -> int | None:
        return bg.ctypes.state_address if type(bg).__name__ == "MT19937" else None

    def read(self) -> bytes:
        return self.words.raw

    def write(self, raw: bytes) -> None:
        _put(self.words, raw)

    def _round_trip(self) -> bool:
        saved = np.random.get_state()
        try:
            probe = np.random.RandomState(20261127).get_state()
            np.random.set_state(probe)
            raw = self.read()
            key = np.frombuffer(raw[: 4 * _KEY_WORDS], dtype=np.uint32)
            pos = int.from_bytes(raw[4 * _KEY_WORDS :], sys.byteorder, signed=True)
            if not (np.array_equal(key, probe[1]) and pos == probe[2]):
                return False
            np.random.seed(1)
            self.write(raw)
            back = np.random.get_state()
            return bool(np.array_equal(back[1], probe[1]) and back[2] == probe[2] and back[3] == 0)
        finally:
            np.random.set_state(saved)


RAW = _RawWords()


#: Python's generator object: after the object header, ``int index`` then ``uint32_t state[624]``
_PY_HEADER = 16
_PY_BYTES = 4 + _KEY_WORDS * 4


class _PythonWords(_InPlace):
    """Python's global ``random`` generator as its raw index and words (CPython's object layout), ``gauss_next``
    beside them."""

    size = _PY_BYTES

    def _owner(self):
        return getattr(random, "_inst", None)

    def _address(self, inst) -> int | None:
        fits = sys.implementation.name == "cpython" and type(inst).__sizeof__(inst) >= _PY_HEADER + _PY_BYTES
        return id(inst) + _PY_HEADER if fits else None

    def read(self) -> tuple[bytes, object]:
        return self.words.raw, self.owner.gauss_next

    def write(self, state: tuple[bytes, object]) -> None:
        _put(self.words, state[0])
        self.owner.gauss_next = state[1]

    def _round_trip(self) -> bool:
        saved = random.getstate()
        try:
            probe = random.Random(20261127)
            probe.random()  # an index inside the words, not at their end
            probe = probe.getstate()
            random.setstate(probe)
            raw = self.read()
            if _python_tuple(raw) != probe:
                return False
            random.seed(1)
            self.write(raw)
            return random.getstate() == probe
        finally:
            random.setstate(saved)


def _python_tuple(raw: tuple[bytes, object]) -> tuple:
    """The ``random.getstate()`` form of raw words: (version, the 624 words then the index, gauss_next)."""
    words, gauss = raw
    index = int.from_bytes(words[:4], sys.byteorder, signed=True)
    return random.Random.VERSION, (*np.frombuffer(words[4:], dtype=np.uint32).tolist(), index), gauss


def _python_raw(state: tuple) -> tuple[bytes, object]:
    """The raw words of a ``random.getstate()`` tuple (:func:`_python_tuple` inverted)."""
    _, words, gauss = state
    index = int(words[_KEY_WORDS]).to_bytes(4, sys.byteorder, signed=True)
    return index + np.array(words[:_KEY_WORDS], dtype=np.uint32).tobytes(), gauss


PYTHON_RAW = _PythonWords()


class BatchGenerators:
    """The global generators' states of one batch: numpy's (full, and its raw words when it holds no cached
    Gaussian) and Python's."""

    def __init__(self, numpy_state: tuple, python_state):
        self.numpy_state = numpy_state
        self._python = python_state  # Python's, as random.getstate() gives it; None while only its raw form is known
        self._python_raw = None  # Python's raw words and gauss_next (:class:`_PythonWords`), once made
        self.numpy_raw = None  # filled the first time the state is seen in the global generator

    @property
    def python_state(self):
        """Python's state as ``random.getstate()`` gives it (made from the raw words when only they are held)."""
        if self._python is None:
            self._python = _python_tuple(self._python_raw)
        return self._python

    @python_state.setter
    def python_state(self, state) -> None:
        self._python, self._python_raw = state, None

    def python_raw(self) -> tuple[bytes, object]:
        if self._python_raw is None:
            self._python_raw = _python_raw(self._python)
        return self._python_raw

    def keep_python_raw(self, raw: tuple[bytes, object]) -> None:
        if self._python_raw is None or raw != self._python_raw:  # (unchanged: the tuple, if made, still holds)
            self._python, self._python_raw = None, raw

    def _keep_numpy(self, state, raw: bytes | None) -> None:
        self.numpy_state = state
        self.numpy_raw = raw if _gauss_free(state) else None


def _gauss_free(state) -> bool:
    """Whether a legacy state (the tuple ``np.random.get_state`` gives for MT19937) holds no cached Gaussian."""
    return isinstance(state, tuple) and state[3] == 0


#: the caller's numpy state as this module last put it back: (its raw words, its full state)
_caller: tuple[bytes, tuple] | None = None


@contextmanager
def swapped(batch: BatchGenerators):
    """The batch's global generators swapped in for the block, the caller's put back after (see the module
    docstring for when numpy's part moves raw words)."""
    global _caller
    python_raw = PYTHON_RAW.usable()
    if python_raw:
        python_saved = PYTHON_RAW.read()
        PYTHON_RAW.write(batch.python_raw())
    else:
        python_saved = random.getstate()
        random.setstate(batch.python_state)
    raw_ok = RAW.usable()
    fast = (
        raw_ok
        and batch.numpy_raw is not None
        and _caller is not None
        and _gauss_free(_caller[1])
        and RAW.read() == _caller[0]
    )
    if fast:
        caller_state = _caller[1]
        RAW.write(batch.numpy_raw)
    else:
        caller_state = np.random.get_state()
        np.random.set_state(batch.numpy_state)
    try:
        yield
    finally:
        if python_raw:
            batch.keep_python_raw(PYTHON_RAW.read())
            PYTHON_RAW.write(python_saved)
        else:
            batch.python_state = random.getstate()
            random.setstate(python_saved)
        if fast and RAW.read() == batch.numpy_raw:  # no run drew from numpy's global generator
            RAW.write(_caller[0])
        else:
            batch._keep_numpy(np.random.get_state(), RAW.read() if raw_ok else None)
            np.random.set_state(caller_state)
            _caller = (RAW.read(), caller_state) if raw_ok else None


#: the spawn key, under a chunk's own stream, of the seeds of the global generators a chunk's draws see
GLOBALS_KEY = 0x676C6F62  # "glob"


def for_chunk(rng: np.random.Generator) -> BatchGenerators | None:
    """Global generators of their own for the draws made with the chunk generator ``rng`` — numpy's and Python's,
    seeded from a child of ``rng``'s seed sequence (:data:`GLOBALS_KEY` under its key), so that a target drawing from
    ``np.random.*`` or ``random.*`` gets independent states in every chunk, the same in every process and on every
    executor — without drawing from ``rng`` itself.  None when ``rng`` was not made from a seed sequence."""
    seq = getattr(rng.bit_generator, "seed_seq", None)
    if not isinstance(seq, np.random.SeedSequence):
        return None
    child = np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, GLOBALS_KEY), pool_size=seq.pool_size)
    words = child.generate_state(2, np.uint64)
    numpy_state = np.random.RandomState(np.random.MT19937(child)).get_state()
    return BatchGenerators(numpy_state, random.Random(int(words[0]) << 64 | int(words[1])).getstate())


@contextmanager
def chunk_globals(rng: np.random.Generator):
    """The global generators of the chunk drawn with ``rng`` (:func:`for_chunk`) swapped in for the block."""
    batch = for_chunk(rng)
    if batch is None:
        yield
        return
    with swapped(batch):
        yield
