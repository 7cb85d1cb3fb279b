"""Shared pieces of the additive-noise mechanisms: scalar centring, input checks and the Laplace log-CDF.

(The policies' noise, once drawn from uniforms by inverse CDF here, is now exact grid noise keyed by their
uniforms: :mod:`mechanisms.keyed_noise`.)
"""

from __future__ import annotations

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument

__all__ = ["scalar_center", "as_float_input", "laplace_logcdf"]


def as_float_input(x) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise InvalidArgument(f"input {a.tolist()!r} must be numeric")
    a = a.astype(float)
    if not np.isfinite(a).all():
        raise InvalidArgument(f"input {a.tolist()!r} must be finite")
    return a


def scalar_center(x) -> float:
    """The input as a float, or :class:`ExactMethodUnavailable` for vectors (exact densities are 1-D)."""
    a = as_float_input(x)
    if a.ndim != 0:
        raise ExactMethodUnavailable('exact densities are implemented for scalar outputs; use method="sample"')
    return float(a)


def laplace_logcdf(z: np.ndarray) -> np.ndarray:
    """ln P[L ≤ z] for standard Laplace L: ln(e^z/2) for z ≤ 0, ln(1 − e^(−z)/2) for z > 0."""
    z = np.asarray(z, dtype=float)
    return np.where(z <= 0, z - np.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))
