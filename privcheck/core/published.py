"""What a run object publishes, read by name — one way for the bandit policies' releases view
(:func:`privcheck.audits.policy.adapters.released`) and the episodic agents'
(:func:`privcheck.core.episodic.run_episodes`).

A name is an attribute of the run (or of a batched policy's state); one that is a method is called, now (a
``releases()`` method, say); a dict's values are taken in its order.  The values become floats, one row per run.
"""

from __future__ import annotations

import numpy as np

from .errors import TargetError, raised

__all__ = ["published", "as_rows"]


def published(obj, attr: str, name: str, missing):
    """What ``obj`` publishes under ``attr`` now: the attribute's value, or a method's, called; a dict's values as a
    list in its order (None where every one is None); None where it publishes nothing yet.  ``missing()``, the error
    raised where ``obj`` has no such attribute (made only then: this is read for every run after every round);
    ``name``, the target's, said in a method's error."""
    try:
        value = getattr(obj, attr)
    except AttributeError:
        raise missing() from None
    if callable(value):  # a method that publishes: called now, after the update
        try:
            value = value()
        except Exception as exc:
            raise raised(TargetError, f"{name}: its {attr}() raised {type(exc).__name__}: {exc}", exc) from None
    if isinstance(value, dict):
        value = None if all(v is None for v in value.values()) else list(value.values())
    return value


def as_rows(value, n_rows: int) -> np.ndarray:
    """A published value (an array, or a list of them: :func:`published`) as floats, ``n_rows`` rows (one a run);
    TypeError or ValueError where it is not numbers of that many rows."""
    parts = value if isinstance(value, list) else [value]
    return np.concatenate([np.asarray(v, dtype=float).reshape(n_rows, -1) for v in parts], axis=1)
