"""Shared pieces of the additive-noise mechanisms: scalar centring, the Laplace log-CDF, and noise drawn from
uniforms by inverse CDF.

Policies take their randomness as uniforms from the caller (so that a run is reproducible one at a time or
batched); :func:`gaussian_from_uniform` and :func:`laplace_from_uniform` turn a uniform u ∈ [0, 1) — as
``Generator.random`` gives, multiples of 2⁻⁵³ — into noise.  u is moved to the middle of its 2⁻⁵³ cell, so
the transform never meets 0 or 1 and is symmetric: the noise is that of the exact distribution conditioned
on |z| ≤ 8.3 standard deviations (Gaussian) or on |z| ≤ 36.8 scales (Laplace), a tail mass of about
2⁻⁵⁴ on each side.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument

__all__ = ["scalar_center", "as_float_input", "laplace_logcdf", "gaussian_from_uniform", "laplace_from_uniform"]


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
        raise ExactMethodUnavailable("exact densities are implemented for scalar outputs; use --method sample")
    return float(a)


def laplace_logcdf(z: np.ndarray) -> np.ndarray:
    """ln P[L ≤ z] for standard Laplace L: ln(e^z/2) for z ≤ 0, ln(1 − e^(−z)/2) for z > 0."""
    z = np.asarray(z, dtype=float)
    return np.where(z <= 0, z - np.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))


_HALF_CELL = 2.0 ** -54


def _centred(u) -> np.ndarray:
    """v = u − 1/2 moved to the middle of its cell: exact, symmetric, and |v| ≤ 1/2 − 2⁻⁵⁴."""
    return (np.asarray(u, dtype=float) - 0.5) + _HALF_CELL


def gaussian_from_uniform(u, sigma) -> np.ndarray:
    """σ·Φ⁻¹(u), computed from the nearer tail so that both tails are resolved alike."""
    from scipy.special import ndtri  # scipy loads on use: a policy without Gaussian noise never pays for it

    v = _centred(u)
    return np.asarray(sigma, dtype=float) * np.sign(v) * -ndtri(0.5 - np.abs(v))


def laplace_from_uniform(u, scale) -> np.ndarray:
    """Lap(0, b) by inverse CDF: −b·sign(v)·ln(1 − 2|v|)."""
    v = _centred(u)
    return -np.asarray(scale, dtype=float) * np.sign(v) * np.log1p(-2.0 * np.abs(v))
