"""Resources planned before work starts: memory and time, checked against the machine and a ceiling.

Every engine knows the size of its work before it starts — inputs to enumerate, runs and rounds to simulate,
draws to take — and most know the memory that work holds.  Before any of it runs, the engine states its plan
here: what does not fit in this machine's memory, or whose estimated time exceeds the ceiling (``max_hours``,
:data:`DEFAULT_MAX_HOURS` unless raised), is refused as bad input with the way out (fewer samples, a smaller
horizon, the sampled method), instead of running for hours or being killed by the kernel.

Sizes that could themselves be astronomical (2^(K·T) reward tables at T = 10⁹) are given as base-2 logarithms,
so that no plan ever builds the number it refuses.

The time of a plan is a rate measured on a small probe of the same work (:func:`time_probe`) times the units
planned: the rate depends on the target and cannot be known before it runs.
"""

from __future__ import annotations

import math
import os
import time

from .errors import InvalidArgument

__all__ = [
    "DEFAULT_MAX_HOURS",
    "MEMORY_SHARE",
    "ResourceRefused",
    "memory_limit",
    "check_memory",
    "check_time",
    "time_probe",
    "human_bytes",
    "human_seconds",
    "check_max_hours",
    "release_freed_memory",
]

#: the default ceiling of a plan's estimated time, in hours (an audit or experiment may raise it)
DEFAULT_MAX_HOURS = 24.0
#: the share of the machine's physical memory a plan may hold
MEMORY_SHARE = 0.8


class ResourceRefused(InvalidArgument):
    """A plan that cannot fit in memory or exceeds the time ceiling: refused before any work (exit 2)."""


def memory_limit() -> int:
    """:data:`MEMORY_SHARE` of this machine's physical memory, in bytes."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a small machine
        total = 8 << 30
    return int(total * MEMORY_SHARE)


_libc = None


def release_freed_memory() -> bool:
    """Give the memory this process has freed back to the system, where the C library keeps it (glibc's
    ``malloc_trim``); whether it could be asked.  glibc serves blocks under its mmap threshold — which rises to 32 MB
    as large blocks are freed — from its heap, and keeps what they free there: a screening's rounds of a counter's
    draws (chunks of 32 MB) left 1.7 GB of freed heap held by the process when its selection's draws, mapped afresh,
    were assembled beside it (T = 2,048, 30,000 draws a side: 0.15 GB held after the trim, 1.86 GB before;
    ``benchmarks/RESULTS.md``), so that the process held more than the plan's memory model
    (:func:`~privcheck.audits.sampling.held_bytes`) counts.  Called before a wave of draws is assembled."""
    global _libc
    if _libc is None:
        try:
            import ctypes

            _libc = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError, TypeError):  # (not glibc; Windows opens no library by no name)
            _libc = False
    if _libc is False:
        return False
    _libc(0)
    return True


def human_bytes(n: float) -> str:
    if not math.isfinite(n) or n >= 2.0**60:
        return f"2^{math.log2(n):,.0f} bytes" if math.isfinite(n) else "unboundedly many bytes"
    for unit, size in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:,.0f} {unit}" if v >= 100 else f"{v:.3g} {unit}"
    return f"{n:.0f} bytes"


def human_seconds(s: float) -> str:
    if not math.isfinite(s) or s > 1e15:
        return "longer than the age of the universe"
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 3 * 86400:
        return f"{s / 3600:.1f} h"
    if s < 3 * 365 * 86400:
        return f"{s / 86400:,.0f} days"
    return f"{s / (365.25 * 86400):,.3g} years"


def check_max_hours(max_hours) -> float:
    if (
        isinstance(max_hours, bool)
        or not isinstance(max_hours, (int, float))
        or not max_hours > 0
        or math.isnan(max_hours)
    ):
        raise InvalidArgument(f"max_hours={max_hours!r} must be a positive number of hours")
    return float(max_hours)


def check_memory(nbytes: float, what: str, way_out: str, log2: bool = False) -> None:
    """Refuse a plan holding ``nbytes`` (``log2``: 2^nbytes) bytes that exceeds :func:`memory_limit`."""
    limit = memory_limit()
    big = nbytes > math.log2(limit) if log2 else nbytes > limit
    if big:
        size = (
            (human_bytes(2.0**nbytes) if nbytes < 1000 else f"2^{nbytes:,.0f} bytes") if log2 else human_bytes(nbytes)
        )
        raise ResourceRefused(
            f"{what} would hold about {size} in memory, more than the {human_bytes(limit)} this "
            f"machine can give it: {way_out}"
        )


def check_time(seconds: float, what: str, way_out: str, max_hours: float = DEFAULT_MAX_HOURS) -> None:
    """Refuse a plan whose estimated time exceeds ``max_hours``."""
    if seconds > max_hours * 3600:
        raise ResourceRefused(
            f"{what} would take about {human_seconds(seconds)} on this machine, more than the "
            f"ceiling of max_hours={max_hours:g} (hours; a larger max_hours= raises it): {way_out}"
        )


def time_probe(fn, *args, **kw):
    """(result, seconds) of one call: the probe whose rate a plan extrapolates."""
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0
