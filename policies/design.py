"""G-optimal designs for finite action sets (Kiefer–Wolfowitz), by Frank–Wolfe, with a Carathéodory reduction.

For a design π on actions a_1..a_K ∈ R^d spanning R^d, V(π) = Σ π_a a aᵀ and g(π) = max_a ‖a‖²_{V(π)⁻¹}.
Kiefer–Wolfowitz: min g = d, attained by a design with at most d(d+1)/2 support points, and Σ_a π_a ‖a‖²_{V⁻¹} = d
for every design (Lattimore & Szepesvári, "Bandit Algorithms", Thm 21.1 and Note 21.2).

* Frank–Wolfe (Todd's step): from the uniform design, move towards the action of largest ‖a‖²_{V⁻¹} with
  γ = (g/d − 1)/(g − 1) until g ≤ (1 + η)d; the realised η = g/d − 1 is reported.
* Carathéodory: while the support has more than m = d(d+1)/2 points, the matrices a aᵀ of the support are
  linearly dependent (they live in the m-dimensional space of symmetric matrices): take c ≠ 0 with
  Σ c_a a aᵀ = 0 and Σ c_a ≥ 0, move π → π − t c until a weight reaches 0, and renormalise.  V is scaled by
  1/(1 − tΣc) ≥ 1, so g never increases, and the support ends at ≤ d(d+1)/2 points.

Actions that do not span R^d are handled in their span (the design and g are then those of the rank-r
problem, with g = r at the optimum).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.core import InvalidArgument

__all__ = ["Design", "g_optimal_design", "span_basis"]


@dataclass(frozen=True)
class Design:
    weights: np.ndarray  # (K,) π, zero off the support
    g: float  # max_a ‖a‖²_{V(π)⁻¹}
    dim: int  # the dimension of the span of the actions
    iterations: int

    @property
    def eta(self) -> float:
        """g ≤ (1 + η)·dim."""
        return self.g / self.dim - 1.0

    @property
    def support(self) -> np.ndarray:
        return np.flatnonzero(self.weights > 0)


def span_basis(actions: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """(d, r) orthonormal basis of the span of the rows."""
    u, s, vt = np.linalg.svd(np.asarray(actions, dtype=float), full_matrices=False)
    r = int((s > tol * max(1.0, s[0] if s.size else 0.0)).sum())
    if r == 0:
        raise InvalidArgument("the actions are all zero: no design exists")
    return vt[:r].T


def _g_values(A, w):
    V = A.T @ (w[:, None] * A)
    Vinv = np.linalg.inv(V)
    return np.einsum("ij,jk,ik->i", A, Vinv, A)


def _sym_rows(A):
    """Each action's a aᵀ as a vector of its upper triangle (the symmetric-matrix coordinates)."""
    iu = np.triu_indices(A.shape[1])
    return np.stack([np.outer(a, a)[iu] for a in A])


def _reduce(A, w):
    m = A.shape[1] * (A.shape[1] + 1) // 2
    w = w.copy()
    while True:
        sup = np.flatnonzero(w > 0)
        if sup.size <= m:
            return w
        M = _sym_rows(A[sup]).T  # (m, |S|): a null vector exists
        c = np.linalg.svd(M)[2][-1]
        if c.sum() < 0:
            c = -c
        pos = np.flatnonzero(c > 1e-15)
        ratios = w[sup[pos]] / c[pos]
        j = int(np.argmin(ratios))
        w[sup] = np.maximum(w[sup] - ratios[j] * c, 0.0)
        w[sup[pos[j]]] = 0.0  # exactly: the support shrinks by at least one
        w /= w.sum()


def g_optimal_design(actions, eta: float = 0.01, max_iter: int = 100_000) -> Design:
    """A design with g ≤ (1 + η)·dim and at most dim(dim+1)/2 support points (see the module docstring)."""
    A = np.asarray(actions, dtype=float)
    if A.ndim != 2 or A.shape[0] < 1 or not np.isfinite(A).all():
        raise InvalidArgument("actions must be a finite (K, d) array")
    if not eta > 0:
        raise InvalidArgument(f"eta={eta!r} must be > 0")
    Q = span_basis(A)
    B = A @ Q  # coordinates in the span
    r = B.shape[1]
    w = np.full(B.shape[0], 1.0 / B.shape[0])
    it = 0
    for it in range(1, max_iter + 1):
        gv = _g_values(B, w)
        k = int(np.argmax(gv))
        g = float(gv[k])
        if g <= (1 + eta) * r:
            break
        gamma = (g / r - 1.0) / (g - 1.0)
        w = (1 - gamma) * w
        w[k] += gamma
    w = _reduce(B, w)
    return Design(w, float(_g_values(B, w).max()), r, it)
