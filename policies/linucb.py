"""Disjoint LinUCB (Li, Chu, Langford & Schapire 2010; Chu, Li, Reyzin & Schapire 2011), vectorised over users.

Per action a: A_a = I_d + Σ x xᵀ and b_a = Σ r x over the rounds a was played; θ̂_a = A_a⁻¹ b_a and the index
p_a = θ̂_aᵀ x + α √(xᵀ A_a⁻¹ x).  Each run (a user, in P2B) keeps its own A_a⁻¹ (updated by Sherman–Morrison)
and b_a; a *warm start* begins every run from a model (A_a, b_a) fitted elsewhere (:func:`fit_model`) instead of
(I, 0).  The round's context x is one vector per run, shared by the actions (``contexts`` of shape (runs, d)).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument, check_int, check_real

from .base import check_arms, check_runs, choose

__all__ = ["LinUCB", "LinUCBState", "LinearModel", "fit_model"]


class LinearModel(NamedTuple):
    A: np.ndarray  # (K, d, d)
    b: np.ndarray  # (K, d)


class LinUCBState(NamedTuple):
    A_inv: np.ndarray  # (runs, K, d, d)
    b: np.ndarray  # (runs, K, d)


def fit_model(n_actions: int, dim: int, contexts, actions, rewards) -> LinearModel:
    """(A_a, b_a) = (I + Σ x xᵀ, Σ r x) over the given (context, action, reward) tuples."""
    X = np.asarray(contexts, dtype=float).reshape(-1, dim)
    a = np.asarray(actions, dtype=np.int64).ravel()
    r = np.asarray(rewards, dtype=float).ravel()
    if not (X.shape[0] == a.size == r.size) or (a.size and (a.min() < 0 or a.max() >= n_actions)):
        raise InvalidArgument("fit_model needs as many contexts, actions in [0, K) and rewards")
    A = np.broadcast_to(np.eye(dim), (n_actions, dim, dim)).copy()
    b = np.zeros((n_actions, dim))
    np.add.at(A, a, X[:, :, None] * X[:, None, :])
    np.add.at(b, a, r[:, None] * X)
    return LinearModel(A, b)


class LinUCB:
    """Disjoint LinUCB with K actions on contexts in R^d (α = 1 as in the P2B experiments)."""

    n_uniforms = 1
    contextual = True

    def __init__(self, n_actions: int, dim: int, alpha: float = 1.0):
        self.n_arms = check_arms(n_actions)
        self.dim = check_int("dim", dim)
        self.alpha = check_real("alpha", alpha, lower=0.0)
        self.name = "linucb"

    def init(self, runs: int, model: LinearModel | None = None) -> LinUCBState:
        runs, K, d = check_runs(runs), self.n_arms, self.dim
        if model is None:
            return LinUCBState(np.broadcast_to(np.eye(d), (runs, K, d, d)).copy(), np.zeros((runs, K, d)))
        return LinUCBState(
            np.broadcast_to(np.linalg.inv(model.A), (runs, K, d, d)).copy(),
            np.broadcast_to(model.b, (runs, K, d)).copy(),
        )

    def index(self, state: LinUCBState, contexts) -> np.ndarray:
        """p_a per run and action: ``contexts`` (runs, d), one vector per run, or (runs, K, d), one per action."""
        x = np.asarray(contexts, dtype=float)
        x = np.broadcast_to(x[:, None, :], (*state.b.shape[:2], x.shape[-1])) if x.ndim == 2 else x
        Ax = np.einsum("rkde,rke->rkd", state.A_inv, x)  # A⁻¹x per action
        theta_x = np.einsum("rkd,rkd->rk", Ax, state.b)  # θ̂ᵀx = bᵀA⁻¹x (A⁻¹ symmetric)
        width = np.sqrt(np.maximum(np.einsum("rkd,rkd->rk", Ax, x), 0.0))
        return theta_x + self.alpha * width

    def act(self, state: LinUCBState, t: int, u, contexts) -> np.ndarray:
        return choose(self.index(state, contexts), np.asarray(u, dtype=float)[:, 0])

    def update(self, state: LinUCBState, t: int, arms, feedback, u=None, contexts=None) -> LinUCBState:
        x = np.asarray(contexts, dtype=float)
        rows = np.arange(x.shape[0])
        A_inv, b = state.A_inv.copy(), state.b.copy()
        Ai = A_inv[rows, arms]  # (runs, d, d)
        Ax = np.einsum("rde,re->rd", Ai, x)
        A_inv[rows, arms] = Ai - Ax[:, :, None] * Ax[:, None, :] / (1.0 + np.einsum("rd,rd->r", x, Ax))[:, None, None]
        b[rows, arms] += np.asarray(feedback, dtype=float)[:, None] * x
        return LinUCBState(A_inv, b)
