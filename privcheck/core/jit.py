"""numba, started only when a compiled kernel is first needed.

Importing numba costs about 0.25 s and the first call of any cached kernel another 0.35 s (numba starting its
runtime, whichever function it is), which a short command that never calls a kernel — a regret experiment on
the compiled extension's path, ``privcheck verify``, a help text — should not pay.  Kernels are therefore
declared with this module's :func:`njit` and their parallel loops with its :data:`prange`:

* :func:`njit` returns a :class:`Deferred` kernel that remembers the function and numba's options; nothing is
  compiled or imported;
* the first call of a kernel from Python loads numba and makes its dispatcher (``numba.njit(**options)``, with
  numba's on-disk cache as before); later calls go straight to it;
* numba compiles a copy of the function whose globals are a snapshot of its module with the kernels it names
  bound to their dispatchers and the :data:`prange` placeholder (a plain ``range`` from Python) to
  ``numba.prange``: a kernel calling a kernel compiles, and is inlined where asked (``inline="always"``),
  exactly as if both had been decorated with ``numba.njit`` — numba reads globals once, at compile time;
* a kernel reached another way (an attribute of a module, say) is typed as its dispatcher: numba is taught so
  through ``typeof_impl``, its own extension point.

Nothing is patched: the modules' names keep the objects they were given at import.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import tempfile
import threading
import types
import zlib

__all__ = ["njit", "prange", "Deferred", "numba_loaded"]

_lock = threading.RLock()
_numba = None


class _PrangePlaceholder:
    """Stands for ``numba.prange`` in kernel source (a plain ``range`` if called from Python)."""

    def __call__(self, *args):
        return range(*args)

    def __repr__(self):
        return "prange (numba.prange inside a compiled kernel)"


prange = _PrangePlaceholder()


class Deferred:
    """A kernel whose numba dispatcher is made when it is first needed."""

    def __init__(self, func, options: dict):
        self.py_func = func
        self.options = options
        self._dispatcher = None
        self._warm = False  # called once in this process: compiled, or loaded from numba's cache
        functools.update_wrapper(self, func)

    def dispatcher(self):
        """The numba dispatcher of this kernel (numba is loaded on the first request)."""
        if self._dispatcher is None:
            numba = _load()
            with _lock:
                if self._dispatcher is None:
                    copy = _compilable(self.py_func, numba)
                    self._dispatcher = numba.njit(**self.options)(copy)
                    _bind(copy.__globals__, self.py_func.__code__.co_names, numba)  # after: calls may cycle
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        if self._warm:
            return self._dispatcher(*args, **kwargs)
        dispatcher = self.dispatcher()
        if not kwargs:
            self._compiled_for(dispatcher, args)
        self._warm = True
        return dispatcher(*args, **kwargs)

    def _compiled_for(self, dispatcher, args) -> None:
        """Compile the kernel for ``args``' types (or load numba's cache), one process at a time
        (:func:`_compiling`) — the compilation only: the call that follows runs outside the lock, so that processes
        whose first call is minutes of work do not wait for one another.  Where the types cannot be read or do not
        compile, nothing is done here: the call compiles, or raises, as it would have."""
        try:
            types = tuple(dispatcher.typeof_pyval(a) for a in args)
        except Exception:
            return
        with _compiling(self):
            try:
                dispatcher.compile(types)
            except Exception:
                pass

    @property
    def warm(self) -> bool:
        """Whether the kernel has been called in this process (its next call costs no compilation or load)."""
        return self._warm

    def __reduce__(self):  # pickled by name, like the function it stands for
        return _by_name, (self.py_func.__module__, self.py_func.__qualname__)

    def __repr__(self):
        return f"<deferred kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


@contextlib.contextmanager
def _compiling(kernel: Deferred):
    """Hold, across processes, a lock of ``kernel``'s own while it is first compiled in this process (or loaded from
    numba's on-disk cache): two processes that start together — a test run's workers, an audit's — would each compile
    every kernel, where the second can load what the first wrote (a fresh checkout's default test tier compiled 38
    kernels in both its workers).  Where ``fcntl`` is not available (Windows) or the lock cannot be made, nothing is
    held."""
    try:
        import fcntl
    except ImportError:  # (not on Windows: each process compiles on its own, as numba does)
        yield
        return
    func = kernel.py_func
    key = f"{func.__code__.co_filename}:{func.__qualname__}:{func.__code__.co_firstlineno}"
    path = os.path.join(tempfile.gettempdir(), f"privcheck-kernel-{zlib.crc32(key.encode()):08x}.lock")
    try:
        handle = open(path, "a")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
        except OSError:
            pass
        try:
            yield
        finally:
            try:
                fcntl.flock(handle, fcntl.LOCK_UN)
            except OSError:
                pass


def _by_name(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def numba_loaded() -> bool:
    return _numba is not None


def njit(func=None, **options):
    """``numba.njit(**options)``, deferred until the kernel is first needed (see the module docstring)."""
    if func is None:
        return lambda f: njit(f, **options)
    return Deferred(func, options)


def _compilable(func, numba):
    """A copy of ``func`` for numba to compile: its globals are a snapshot of the function's module in which
    each name the code uses that holds a kernel is bound to that kernel's dispatcher and each that holds the
    :data:`prange` placeholder to ``numba.prange`` — what numba would have found had they been decorated with
    ``numba.njit`` directly (numba reads globals once, at compile time, as constants)."""
    space = dict(func.__globals__)
    copy = types.FunctionType(func.__code__, space, func.__name__, func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    for attribute in ("__qualname__", "__module__", "__doc__"):
        setattr(copy, attribute, getattr(func, attribute))
    return copy


def _bind(space: dict, names, numba) -> None:
    for name in names:
        value = space.get(name)
        if value is prange:
            space[name] = numba.prange
        elif isinstance(value, Deferred):
            space[name] = value.dispatcher()


def _load():
    """Import numba once and teach it to type a :class:`Deferred` as its dispatcher."""
    global _numba
    with _lock:
        if _numba is None:
            import numba
            from numba.extending import typeof_impl

            @typeof_impl.register(Deferred)
            def _typeof_deferred(value, context):
                return typeof_impl(value.dispatcher(), context)

            _numba = numba
        return _numba
