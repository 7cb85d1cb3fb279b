"""numba, started only when a compiled kernel is first called.

Importing numba costs about 0.25 s and the first call of any cached kernel another 0.35 s (numba starting its
runtime, whichever function it is), which a short command that never calls a kernel — a regret experiment on
the compiled extension's path, ``privcheck verify``, ``--help`` — should not pay.  Kernels are therefore
declared with this module's :func:`njit` and loops with its :data:`prange`:

* before numba is loaded, :func:`njit` returns a :class:`Deferred` stand-in that remembers the function and the
  options;
* the first call of any stand-in loads numba, makes the real dispatcher of *every* stand-in, and replaces
  every stand-in and the :data:`prange` placeholder in the globals of the loaded ``privcheck``, ``mechanisms``
  and ``policies`` modules by the real objects — so kernels calling kernels compile against dispatchers, as
  if they had been decorated with ``numba.njit`` directly; a stand-in held elsewhere forwards its calls;
* after that, :func:`njit` returns real dispatchers at once.

Kernels are compiled with numba's on-disk cache (``cache=True``) as before: nothing changes but the moment
numba is loaded.
"""

from __future__ import annotations

import functools
import importlib
import sys
import threading

__all__ = ["njit", "prange", "Deferred", "numba_loaded"]

_PACKAGES = ("privcheck", "mechanisms", "policies")
_lock = threading.RLock()
_pending: list["Deferred"] = []
_numba = None


class _PrangePlaceholder:
    """Stands for ``numba.prange`` until numba is loaded (a plain ``range`` if called from Python)."""

    def __call__(self, *args):
        return range(*args)

    def __repr__(self):
        return "prange (numba not loaded yet)"


prange = _PrangePlaceholder()


class Deferred:
    """A kernel whose numba dispatcher is made when a kernel is first called."""

    def __init__(self, func, options: dict):
        self.py_func = func
        self.options = options
        self.dispatcher = None
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        if self.dispatcher is None:
            _start()
        return self.dispatcher(*args, **kwargs)

    def __reduce__(self):  # pickled by name, like the function it stands for
        return _by_name, (self.py_func.__module__, self.py_func.__qualname__)

    def __repr__(self):
        return f"<deferred kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def _by_name(module: str, qualname: str):
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def numba_loaded() -> bool:
    return _numba is not None


def njit(func=None, **options):
    """``numba.njit(**options)``, deferred until a kernel is first called (see the module docstring)."""
    if func is None:
        return lambda f: njit(f, **options)
    with _lock:
        if _numba is not None:
            return _numba.njit(**options)(func)
        stand_in = Deferred(func, options)
        _pending.append(stand_in)
        return stand_in


def _start():
    global _numba, prange
    with _lock:
        if _numba is not None:
            return
        import numba

        for d in _pending:
            d.dispatcher = numba.njit(**d.options)(d.py_func)
        placeholder = prange  # this module's own global is among those replaced below
        real = {id(d): d.dispatcher for d in _pending}
        real[id(placeholder)] = numba.prange
        for name, module in list(sys.modules.items()):
            if module is None or name.split(".")[0] not in _PACKAGES:
                continue
            space = vars(module)
            for key, value in list(space.items()):
                if id(value) in real and (isinstance(value, Deferred) or value is placeholder):
                    space[key] = real[id(value)]
        _pending.clear()
        prange = numba.prange  # (already so) for modules imported from now on
        _numba = numba
