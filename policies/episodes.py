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

__all__ = ["Episodes", "init_episodes", "next_arms", "record", "restart", "FOREVER"]

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


def restart(ep: Episodes, runs: np.ndarray, todo: np.ndarray) -> Episodes:
    """Start the next episode of ``runs`` with schedules ``todo`` (len(runs), K): this episode's sums are
    forgotten."""
    new_todo, n, s, number = ep.todo.copy(), ep.n.copy(), ep.s.copy(), ep.number.copy()
    new_todo[runs] = todo
    n[runs] = 0
    s[runs] = 0.0
    number[runs] += 1
    return Episodes(new_todo, n, s, ep.N, number)
