"""The mechanism protocol, and the adapter that makes a user's function a mechanism.

A mechanism has a ``claim`` (what it asserts, rounded to the safe side) kept apart from its sampler
``sample(x, rng, size)``, which returns an array whose axis 0 indexes ``size`` independent draws.  Optional
exact faces:

* finite outputs: ``support(x)`` (array of possible outputs, axis 0 indexing outcomes) and
  ``logpmf(x, outcomes)``;
* real scalar outputs with a density: ``logpdf(x, o)`` and, for exact interval masses, ``logcdf(x, o)`` and
  ``logsf(x, o)``.

A user's function ``f(x, rng, size)`` is a mechanism too (:class:`CallableMechanism`); a function without
``size`` is called once per draw, which is slow, and the report says so.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from .claims import Claim
from .errors import InvalidArgument, PrivcheckError, TargetError

__all__ = [
    "Mechanism",
    "CallableMechanism",
    "as_mechanism",
    "has_finite_face",
    "has_density_face",
    "draw",
]


@runtime_checkable
class Mechanism(Protocol):
    """What the auditor needs: a claim and a batched sampler."""

    claim: Claim

    def sample(self, x: Any, rng: np.random.Generator, size: int) -> np.ndarray:
        ...


def has_finite_face(m) -> bool:
    return callable(getattr(m, "support", None)) and callable(getattr(m, "logpmf", None))


def has_density_face(m) -> bool:
    return callable(getattr(m, "logpdf", None))


class CallableMechanism:
    """A user function ``f(x, rng, size)`` (or ``f(x, rng)``) seen as a mechanism.

    ``claim`` is optional here: the auditor is always told the claim under test.
    """

    def __init__(self, fn: Callable, name: str | None = None, claim: Claim | None = None):
        if not callable(fn):
            raise InvalidArgument(f"target {fn!r} is not callable")
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", repr(fn))
        self.claim = claim
        self.vectorised = _takes_size(fn)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.vectorised:
            return self.fn(x, rng, size)
        return np.stack([np.asarray(self.fn(x, rng)) for _ in range(size)]) if size else np.empty((0,))

    def __repr__(self):
        return f"CallableMechanism({self.name})"


def _takes_size(fn) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params) or "size" in sig.parameters:
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


def as_mechanism(obj, name: str | None = None) -> Any:
    """``obj`` if it already has ``sample``, else a :class:`CallableMechanism` around it."""
    if callable(getattr(obj, "sample", None)):
        return obj
    if callable(obj):
        return CallableMechanism(obj, name=name)
    raise InvalidArgument(f"target {obj!r} is neither a mechanism (with .sample) nor a callable")


def draw(mechanism, x, rng: np.random.Generator, size: int, *, name: str = "target",
         expect: tuple | None = None) -> np.ndarray:
    """Call ``mechanism.sample`` and check what comes back.

    Returns a numeric (or string) array with ``size`` rows.  ``expect`` = (trailing shape, dtype kind) of
    earlier draws; a different shape or kind is a :class:`TargetError`, as are NaN values, object arrays
    (mixed types per draw) and exceptions raised by the target.
    """
    try:
        out = mechanism.sample(x, rng, size)
    except PrivcheckError:
        raise
    except Exception as exc:  # the user's code failed: one clear line, no traceback
        raise TargetError(f"{name} raised {type(exc).__name__}: {exc} (input {_show(x)})") from None
    if not isinstance(out, np.ndarray):  # lists: numpy would silently turn [1.0, "a"] into strings
        try:
            obj = np.asarray(out, dtype=object)
        except Exception:
            raise TargetError(f"{name} returned values of mixed types or ragged shapes (input {_show(x)})") from None
        kinds = {"s" if isinstance(v, (str, np.str_)) else "n" for v in obj.ravel().tolist()}
        if len(kinds) > 1 or any(isinstance(v, (list, tuple, np.ndarray)) for v in obj.ravel().tolist()):
            raise TargetError(f"{name} returned values of mixed types or ragged shapes (input {_show(x)})")
    try:
        arr = np.asarray(out)
    except Exception:
        raise TargetError(f"{name} returned values of mixed types or ragged shapes (input {_show(x)})") from None
    if arr.dtype == object:
        raise TargetError(f"{name} returned values of mixed types or ragged shapes (input {_show(x)})")
    if arr.ndim == 0 or arr.shape[0] != size:
        raise TargetError(f"{name} returned shape {arr.shape} for size={size}: axis 0 must index the {size} draws")
    if arr.dtype.kind not in "biufU":
        raise TargetError(f"{name} returned dtype {arr.dtype}: outputs must be numbers, booleans or strings")
    if arr.dtype.kind == "c":
        raise TargetError(f"{name} returned complex numbers")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise TargetError(f"{name} returned NaN (input {_show(x)})")
    if expect is not None:
        shape, kind = expect
        if arr.shape[1:] != shape:
            raise TargetError(f"{name} returned draws of shape {arr.shape[1:]} after earlier draws of shape {shape}")
        if _kind_family(arr.dtype.kind) != _kind_family(kind):
            raise TargetError(f"{name} returned dtype kind '{arr.dtype.kind}' after earlier draws of kind '{kind}'")
    return arr


def _kind_family(kind: str) -> str:
    return "U" if kind == "U" else "n"


def _show(x) -> str:
    try:
        s = str(np.asarray(x).tolist())
    except Exception:
        s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."

