"""Per-arm corruption functions g_a of corrupt bandits (Gajane, Urvoy & Kaufmann, "Corrupt Bandits for
Preserving Local Privacy", ALT 2018).

The learner sees feedback with mean λ_a = g_a(μ_a), g_a continuous and strictly monotone on [0, 1] (or
constant, when the feedback carries no information).  Randomized response gives the affine
g(x) = 1 − p00 + (p00 + p11 − 1)x.  The corrupt-bandit index of an arm is g⁻¹ of the upper end (increasing
g) or of the lower end (decreasing g) of a confidence interval on λ, **clipped to g([0, 1])** (without the
clipping g⁻¹ leaves [0, 1]; claims G-IDX2).  A constant g gives index 1 for every arm (ties).
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument

__all__ = ["Corruption"]


class Corruption:
    """g_a for each arm: affine (intercept + slope·x) or a user's monotone function."""

    def __init__(self, intercept=None, slope=None, functions=None):
        if functions is not None:
            self.functions = list(functions)
            self.n_arms = len(self.functions)
            g0 = np.array([float(f(0.0)) for f in self.functions])
            g1 = np.array([float(f(1.0)) for f in self.functions])
            mid = np.array([float(f(0.5)) for f in self.functions])
            if not np.all(((g0 < mid) & (mid < g1)) | ((g0 > mid) & (mid > g1)) | ((g0 == g1) & (mid == g0))):
                raise InvalidArgument("each corruption function must be strictly monotone (or constant) on [0, 1]")
            if np.any(np.minimum(g0, g1) < 0) or np.any(np.maximum(g0, g1) > 1):
                raise InvalidArgument("corruption functions must map [0, 1] into [0, 1]")
            self.intercept = self.slope = None
        else:
            self.functions = None
            self.intercept = np.asarray(intercept, dtype=float).ravel()
            self.slope = np.asarray(slope, dtype=float).ravel()
            if self.intercept.shape != self.slope.shape:
                raise InvalidArgument("intercept and slope must have one entry per arm")
            g0, g1 = self.intercept, self.intercept + self.slope
            if np.any(np.minimum(g0, g1) < -1e-12) or np.any(np.maximum(g0, g1) > 1 + 1e-12):
                raise InvalidArgument("an affine corruption must map [0, 1] into [0, 1]")
            self.n_arms = self.slope.size
        self.g0, self.g1 = g0, g1
        self.direction = np.sign(g1 - g0).astype(np.int64)  # +1 increasing, −1 decreasing, 0 constant
        self.is_identity = self.functions is None and bool(np.all(self.intercept == 0) and np.all(self.slope == 1))

    @classmethod
    def identity(cls, n_arms: int) -> "Corruption":
        return cls(np.zeros(n_arms), np.ones(n_arms))

    @classmethod
    def randomized_response(cls, p00, p11) -> "Corruption":
        """g(x) = 1 − p00 + (p00 + p11 − 1)x per arm (scalars broadcast)."""
        p00, p11 = np.broadcast_arrays(np.asarray(p00, dtype=float), np.asarray(p11, dtype=float))
        return cls(1 - p00, p00 + p11 - 1)

    @property
    def is_affine(self) -> bool:
        return self.functions is None

    def __call__(self, x):
        """g applied per arm along the last axis."""
        x = np.asarray(x, dtype=float)
        if self.functions is None:
            return self.intercept + self.slope * x
        return np.stack([np.asarray(f(x[..., a]), dtype=float) for a, f in enumerate(self.functions)], axis=-1)

    def inverse_clipped(self, y):
        """g⁻¹(clip(y, g([0, 1]))) per arm along the last axis; +inf stays +inf (arms not yet played)."""
        y = np.asarray(y, dtype=float)
        lo, hi = np.minimum(self.g0, self.g1), np.maximum(self.g0, self.g1)
        inf = np.isinf(y) & (y > 0)
        yc = np.clip(y, lo, hi)
        const = self.direction == 0
        if self.functions is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.where(const, 1.0, (yc - self.intercept) / np.where(const, 1.0, self.slope))
        else:  # bisection on the monotone g: 60 halvings of [0, 1]
            a, b = np.zeros(yc.shape), np.ones(yc.shape)
            inc = self.direction >= 0
            for _ in range(60):
                m = 0.5 * (a + b)
                gm = self(m)
                go_right = np.where(inc, gm < yc, gm > yc)
                a, b = np.where(go_right, m, a), np.where(go_right, b, m)
            q = np.where(const, 1.0, 0.5 * (a + b))
        return np.where(inf, np.inf, np.clip(q, 0.0, 1.0))
