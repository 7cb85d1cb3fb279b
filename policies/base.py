"""The policy protocol and the machinery every policy shares: count statistics, sliding windows, ties.

A policy's state is data (a NamedTuple of arrays whose axis 0 indexes independent runs) and its transitions
are pure and batched:

* ``init(runs) -> state``
* ``act(state, t, u) -> arms`` for round t = 1, 2, …, with ``u`` uniforms of shape (runs, n_uniforms) drawn
  by the caller: the same runs done one at a time with the same uniforms give the same arms;
* ``update(state, t, arms, feedback, u) -> state``, a new state (the old one is never modified), with ``u``
  of shape (runs, n_update_uniforms) for policies whose statistics are noisy (``n_update_uniforms`` absent
  means 0: the update is deterministic);
* ``probs(state, t) -> (runs, K)`` for policies that can be enumerated: the decision kernel
  π_t(· | history), ties as equal probabilities.  ``act`` draws from it: among the tied arms it takes the
  ⌊u·m⌋-th of the m maximisers.

Sliding windows keep, per run, a ring buffer of the last w (arm, feedback) pairs with the window counts
N_a(t, w) and sums, updated in O(1) per round: the window of the AAAI 2023 paper's Algorithm 1, which
starts at max{1, t − w + 1} (the paper's "min" is a typo, claims G-IDX3).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core import check_int, check_real
from privcheck.core.jit import njit
from privcheck.core.protocols import Policy, update_uniforms  # defined once, with the auditor's protocols

__all__ = [
    "check_noise_multiplier",
    "extreme_table",
    "Policy",
    "Counts",
    "Window",
    "init_counts",
    "init_window",
    "update_counts",
    "update_window",
    "choose",
    "pick",
    "tie_probs",
    "check_arms",
    "check_runs",
    "update_uniforms",
]


class Counts(NamedTuple):
    """Pull counts N (runs, K) and feedback sums S (runs, K) over the whole history."""

    N: np.ndarray
    S: np.ndarray


class Window(NamedTuple):
    """Counts and sums over the last w rounds, with the ring buffer that produced them."""

    N: np.ndarray
    S: np.ndarray
    ring_arm: np.ndarray  # (runs, w), −1 where empty
    ring_fb: np.ndarray  # (runs, w)


def check_runs(runs) -> int:
    return check_int("runs", runs)


def check_arms(n_arms) -> int:
    return check_int("n_arms", n_arms, 2)


def extreme_table(horizon: int, n_arms: int, bound: float) -> np.ndarray:
    """A reward table whose neighbours reach a clipped statistic's full sensitivity: every reward −bound but
    the last row's +bound, so the table's range is [−bound, bound] and the auditor's neighbours replace a row by
    its complement within it (−bound ↔ +bound) — a private policy's ``audit_table``."""
    table = np.full((int(horizon), int(n_arms)), -float(bound))
    table[-1] = float(bound)
    return table


def check_noise_multiplier(m) -> float:
    """m > 0: a private policy's calibrated noise (its standard deviation or Laplace scale) times m, the claim
    unchanged — 1 is the policy as published; m < 1 is a mis-calibrated copy, to see what an audit catches."""
    return check_real("noise_multiplier", m, lower=0.0, lower_open=True)


def init_counts(runs: int, k: int) -> Counts:
    return Counts(np.zeros((runs, k), dtype=np.int64), np.zeros((runs, k)))


def init_window(runs: int, k: int, w: int) -> Window:
    return Window(
        np.zeros((runs, k), dtype=np.int64),
        np.zeros((runs, k)),
        np.full((runs, w), -1, dtype=np.int64),
        np.zeros((runs, w)),
    )


@njit(cache=True)
def _add(N, S, arms, fb):
    for r in range(arms.size):
        N[r, arms[r]] += 1
        S[r, arms[r]] += fb[r]


def update_counts(state: Counts, arms, feedback) -> Counts:
    N, S = state.N.copy(), state.S.copy()
    _add(N, S, np.asarray(arms, dtype=np.int64), np.asarray(feedback, dtype=float))
    return Counts(N, S)


@njit(cache=True)
def _slide(N, S, ring_arm, ring_fb, slot, arms, fb):
    for r in range(arms.size):
        old = ring_arm[r, slot]
        if old >= 0:
            N[r, old] -= 1
            S[r, old] -= ring_fb[r, slot]
        ring_arm[r, slot] = arms[r]
        ring_fb[r, slot] = fb[r]
        N[r, arms[r]] += 1
        S[r, arms[r]] += fb[r]
        if N[r, arms[r]] == 1:  # exact sum for a fresh window count: no drift from repeated subtraction
            S[r, arms[r]] = fb[r]


def update_window(state: Window, t: int, arms, feedback) -> Window:
    """Round t's (arm, feedback) enters the window; round t − w's leaves it."""
    w = state.ring_arm.shape[1]
    new = Window(state.N.copy(), state.S.copy(), state.ring_arm.copy(), state.ring_fb.copy())
    _slide(
        new.N,
        new.S,
        new.ring_arm,
        new.ring_fb,
        (t - 1) % w,
        np.asarray(arms, dtype=np.int64),
        np.asarray(feedback, dtype=float),
    )
    return new


@njit(cache=True)
def pick(values, u):
    """The ⌊u·m⌋-th of the m maximisers of ``values``."""
    m = values[0]
    for a in range(1, values.size):
        if values[a] > m:
            m = values[a]
    cnt = 0
    for a in range(values.size):
        if values[a] == m:
            cnt += 1
    j = min(int(u * cnt), cnt - 1)
    for a in range(values.size):
        if values[a] == m:
            if j == 0:
                return a
            j -= 1
    return values.size - 1


@njit(cache=True)
def _choose(values, u, out):
    for r in range(values.shape[0]):
        out[r] = pick(values[r], u[r])


def choose(values: np.ndarray, u: np.ndarray) -> np.ndarray:
    """argmax per run, ties broken by taking the ⌊u·m⌋-th of the m maximisers."""
    out = np.empty(values.shape[0], dtype=np.int64)
    _choose(values, np.asarray(u, dtype=float).reshape(-1), out)
    return out


def tie_probs(values: np.ndarray) -> np.ndarray:
    """The distribution ``choose`` samples from: uniform over the maximisers of each row."""
    top = values == values.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)
