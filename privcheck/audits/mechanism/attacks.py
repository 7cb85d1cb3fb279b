"""Ready-made events for known attacks, usable as ``event=`` (on the command line, the event
``privcheck.audits.mechanism.attacks:NAME``).

* Mironov's bit-level attack ("On Significance of the Least Significant Bits for Differential Privacy", CCS
  2012): a floating-point sample x + noise reveals x through which doubles it can be.  The event "the output
  lies in [−1, 2) and its double has at least k trailing zero bits in the mantissa" has very different
  probabilities for x = 0 and x = 1 under a float Laplace sampler (near 1 the doubles are coarser), while a
  grid mechanism (:mod:`mechanisms.grid`) gives both the same lattice and no such gap.  ``trailing_zeros_k``
  for k = 2, 4, 8 are the events of the issue that introduced the grid built-ins; :func:`trailing_zeros`
  makes any k.  For vector outputs the first coordinate is read.  Each is one of the bit windows the default
  search already tries (:data:`~.events.FAMILIES`): the event is that family's :class:`~.events.BitWindow`, given
  here by name so that a user can ask for it alone.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument

from .events import BitWindow, Statistic

__all__ = ["trailing_zeros", "trailing_zeros_2", "trailing_zeros_4", "trailing_zeros_8"]


def trailing_zeros(k: int, low: float = -1.0, high: float = 2.0):
    """The event {low ≤ o < high and the double o has at least k trailing zero bits of mantissa}."""
    if not isinstance(k, int) or not 0 <= k <= 52:
        raise InvalidArgument(f"k={k!r} must be an integer in [0, 52]")
    coord, scalar = BitWindow(Statistic("coord", 0), k, low, high), BitWindow(Statistic("output"), k, low, high)

    def event(outputs):
        o = np.asarray(outputs, dtype=np.float64)
        return (coord if o.ndim > 1 else scalar).indicator(o.reshape(-1) if o.ndim <= 1 else o)

    event.__name__ = f"trailing_zeros_{k}"
    return event


trailing_zeros_2 = trailing_zeros(2)
trailing_zeros_4 = trailing_zeros(4)
trailing_zeros_8 = trailing_zeros(8)
