"""Typed errors.

Every error privcheck raises on bad input is an :class:`InvalidArgument`; the command line turns any
:class:`PrivcheckError` into one line on stderr and exit code 2.  Messages name the argument, the value and
the rule, e.g. ``epsilon=-1.0 must be >= 0``.
"""

from __future__ import annotations

import math
from numbers import Real

__all__ = [
    "PrivcheckError",
    "InvalidArgument",
    "ExactMethodUnavailable",
    "TargetError",
    "raised",
    "check_real",
    "check_int",
    "check_writable",
]


class PrivcheckError(Exception):
    """Base class of every error privcheck raises deliberately."""


class InvalidArgument(PrivcheckError, ValueError):
    """A user-supplied value breaks a stated rule."""


class ExactMethodUnavailable(PrivcheckError, NotImplementedError):
    """The exact engine was asked for a target that has no exact face (no support/logpmf or logpdf)."""


class TargetError(PrivcheckError):
    """A user's mechanism or policy misbehaved: it raised, returned the wrong shape, NaN, or mixed types."""


def raised(kind: type, message: str, exc: BaseException) -> PrivcheckError:
    """A ``kind`` error saying ``message`` about the user's own exception ``exc``, which it keeps
    (``user_exception``, with its traceback into the user's code) for whoever wants to show it (the command line
    does, when asked), while the message stays one line."""
    error = kind(message)
    error.user_exception = exc
    return error


def check_int(name: str, value, lower: int = 1) -> int:
    """Return ``value`` as an int, or raise :class:`InvalidArgument`: ``{name}={value!r} must be an integer >=
    {lower}`` (booleans and floats are refused, numpy integers accepted)."""
    import numpy as np

    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lower:
        raise InvalidArgument(f"{name}={value!r} must be an integer >= {lower}")
    return int(value)


def check_real(name: str, value, *, lower=None, upper=None, lower_open=False, upper_open=False) -> float:
    """Return ``value`` as a finite float, or raise :class:`InvalidArgument` naming the broken rule.

    ``lower``/``upper`` are inclusive unless ``lower_open``/``upper_open``.
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{name}={value!r} must be a real number") from None
    value = float(value)
    if not math.isfinite(value):
        raise InvalidArgument(f"{name}={value!r} must be finite")
    if lower is not None:
        if lower_open and not value > lower:
            raise InvalidArgument(f"{name}={value!r} must be > {lower}")
        if not lower_open and not value >= lower:
            raise InvalidArgument(f"{name}={value!r} must be >= {lower}")
    if upper is not None:
        if upper_open and not value < upper:
            raise InvalidArgument(f"{name}={value!r} must be < {upper}")
        if not upper_open and not value <= upper:
            raise InvalidArgument(f"{name}={value!r} must be <= {upper}")
    return value


def check_writable(name: str, path) -> None:
    """Refuse, before any work, a file path that cannot be written: its folder is missing, or creating the file
    there fails (a read-only or virtual file system such as /proc, a folder without permission).  The probe
    appends nothing to an existing file and removes a file it created."""
    import contextlib
    import os

    p = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise InvalidArgument(f"{name}={p!r}: the folder {folder} does not exist")
    existed = os.path.exists(p)
    try:
        open(p, "ab").close()
    except OSError as e:
        raise InvalidArgument(f"{name}={p!r} cannot be written: {e.strerror or e}") from None
    if not existed:
        with contextlib.suppress(OSError):  # the probe's own file: leaving it behind is harmless
            os.remove(p)
