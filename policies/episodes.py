"""Episodes whose pulls are fixed when they start: the machinery of the episodic and phased policies.

An episode is a schedule — how many times each arm (or action) is to be pulled — fixed from public or
already-released information when the episode starts.  Within it the policy plays the arm with the most pulls
left (the lowest index on ties), which makes equal schedules round-robin; the feedback is summed per arm for
this episode only.  When the schedule is exhausted the policy releases its statistics of the episode and
decides the next schedule.  This covers

* AdaC-UCB's arm-dependent doubling episodes with forgetting (one arm, pulled until its count doubles; the
  statistic uses that episode's rewards only) — :mod:`policies.adac_ucb`;
* phased elimination with a per-phase sample: GOPE and its private forms (pulls T_ℓ(a) from an optimal
  design) — :mod:`policies.gope`; DP and LDP Robust SE (R_τ pulls of every active arm) —
  :mod:`policies.heavy_tailed`.

Every reward enters exactly one episode's statistics, and the episodes are disjoint blocks of rounds whose
boundaries depend only on earlier releases: Lemma 1 of Azize & Basu, "Concentrated Differential Privacy for
Bandits" (parallel composition over disjoint episodes), is what makes the policy as private as one release.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core.jit import njit

__all__ = ["Episodes", "init_episodes", "next_arms", "record", "restart", "planned_arms", "record_block", "FOREVER"]

FOREVER = np.int64(1) << 62  # a schedule that never ends (the last arm standing)


class Episodes(NamedTuple):
    todo: np.ndarray  # (runs, K) pulls left in the current episode
    n: np.ndarray  # (runs, K) pulls in the current episode
    s: np.ndarray  # (runs, K) feedback sums in the current episode
    N: np.ndarray  # (runs, K) pulls since the start
    number: np.ndarray  # (runs,) the current episode, 1 for the first


def init_episodes(runs: int, n_arms: int, todo) -> Episodes:
    """Every run starts with the schedule ``todo`` (K,)."""
    todo = np.broadcast_to(np.asarray(todo, dtype=np.int64), (runs, n_arms)).copy()
    return Episodes(
        todo,
        np.zeros((runs, n_arms), dtype=np.int64),
        np.zeros((runs, n_arms)),
        np.zeros((runs, n_arms), dtype=np.int64),
        np.ones(runs, dtype=np.int64),
    )


@njit(cache=True)
def _scheduled(todo, r):
    best = 0
    for a in range(1, todo.shape[1]):
        if todo[r, a] > todo[r, best]:
            best = a
    return best


@njit(cache=True)
def _next(todo, out):
    for r in range(todo.shape[0]):
        out[r] = _scheduled(todo, r)


def next_arms(ep: Episodes) -> np.ndarray:
    """The arm each run pulls now: the one with the most pulls left."""
    out = np.empty(ep.todo.shape[0], dtype=np.int64)
    _next(ep.todo, out)
    return out


@njit(cache=True)
def _record(todo, n, s, N, fb, ended):
    for r in range(fb.size):
        a = _scheduled(todo, r)
        todo[r, a] -= 1
        n[r, a] += 1
        s[r, a] += fb[r]
        N[r, a] += 1
        done = True
        for b in range(todo.shape[1]):
            if todo[r, b] > 0:
                done = False
                break
        ended[r] = done


def record(ep: Episodes, feedback) -> tuple[Episodes, np.ndarray]:
    """A new state with each run's feedback credited to the arm it scheduled (:func:`next_arms`), and the mask
    of runs whose episode just ended.

    A policy audited interactively may observe the reward of another arm (the adversary's query); it is counted
    where the policy believes it played."""
    new = Episodes(ep.todo.copy(), ep.n.copy(), ep.s.copy(), ep.N.copy(), ep.number)
    ended = np.empty(new.todo.shape[0], dtype=np.bool_)
    _record(new.todo, new.n, new.s, new.N, np.asarray(feedback, dtype=float), ended)
    return new, ended


@njit(cache=True)
def _steady_rounds(todo, most):
    """The rounds every run can play before the last pull of its episode (the one that ends it): at most ``most``."""
    least = most
    for r in range(todo.shape[0]):
        left = 0
        for a in range(todo.shape[1]):
            left += min(todo[r, a], most + 1)
        least = min(least, min(left, most + 1) - 1)
    return max(least, 0)


@njit(cache=True)
def _plan(todo, out):
    left = todo.copy()
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            a = _scheduled(left, r)
            left[r, a] -= 1
            out[r, j] = a


def planned_arms(ep: Episodes, most: int) -> np.ndarray:
    """(runs, L): the arms each run's schedule plays in the next L rounds, L the most (≤ ``most``) at which no
    run's episode ends — its last pull, which releases and decides, is never in the block."""
    L = int(_steady_rounds(ep.todo, int(most)))
    out = np.empty((ep.todo.shape[0], L), dtype=np.int64)
    if L:
        _plan(ep.todo, out)
    return out


@njit(cache=True)
def _record_block(todo, n, s, N, fb):
    for r in range(fb.shape[0]):
        for j in range(fb.shape[1]):
            a = _scheduled(todo, r)
            todo[r, a] -= 1
            n[r, a] += 1
            s[r, a] += fb[r, j]
            N[r, a] += 1


def record_block(ep: Episodes, feedback) -> Episodes:
    """The state after the rounds of a :func:`planned_arms` block: each run's feedback (runs, L) credited, round by
    round, as :func:`record` credits it (the same sums, bit for bit); no episode ends in it."""
    new = Episodes(ep.todo.copy(), ep.n.copy(), ep.s.copy(), ep.N.copy(), ep.number)
    _record_block(new.todo, new.n, new.s, new.N, np.ascontiguousarray(feedback, dtype=float))
    return new


def restart(ep: Episodes, runs: np.ndarray, todo: np.ndarray) -> Episodes:
    """Start the next episode of ``runs`` with schedules ``todo`` (len(runs), K): this episode's sums are
    forgotten."""
    new_todo, n, s, number = ep.todo.copy(), ep.n.copy(), ep.s.copy(), ep.number.copy()
    new_todo[runs] = todo
    n[runs] = 0
    s[runs] = 0.0
    number[runs] += 1
    return Episodes(new_todo, n, s, ep.N, number)
