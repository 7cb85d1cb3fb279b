"""What a policy audit keeps of each run: its whole action sequence up to :data:`FULL_SEQUENCE_ROUNDS` rounds,
and beyond that a fixed-width summary reduced as the run goes, so that an audit's memory does not grow with the
horizon.

The summary (:class:`ActionSummary`) holds, per run: the action at a set of chosen rounds (the first round of
each window, the powers of two, and the round after the policy's first release when it says one); the pulls of
each arm in each of :data:`WINDOWS` equal windows of the horizon and in all; the first and the last round each
arm is played (T + 1 and 0 when never); the longest stretch of rounds each arm is played in a row
(:func:`longest_stretch`: a leak that holds an arm for a while, wherever in the run, shows there sharper than in
its pulls); and the number of switches.  Every feature is a function of the action
sequence, so every event on the summary is an event on the sequence and a bound certified on it is a bound for
the policy (post-processing); the summary only limits which events the search can find.
"""

from __future__ import annotations

import bisect

import numpy as np

from privcheck.core.jit import njit

__all__ = ["FULL_SEQUENCE_ROUNDS", "WINDOWS", "ActionSummary", "longest_stretch"]

#: horizons up to this are audited on whole action sequences; longer ones on their summaries
FULL_SEQUENCE_ROUNDS = 2048
#: equal windows of the horizon whose pulls per arm the summary counts
WINDOWS = 32


@njit(cache=True, inline="always")
def _extend(longest, column, r, a, run, prev):
    """Run r's round with action ``a`` into its stretches: ``run[r]`` the length of the stretch its last action
    ``prev[r]`` (−1 before the first) ends, ``longest[r, column + a]`` arm a's longest so far — updated in place."""
    length = run[r] + 1 if a == prev[r] else 1
    run[r], prev[r] = length, a
    if length > longest[r, column + a]:
        longest[r, column + a] = length


@njit(cache=True)
def _record(out, actions, t, at, run, prev):
    """Round t's actions into the summary rows: a pull in its window, the first and last round, a switch from the
    action before (``prev``; −1 for none), the stretches (:func:`_extend`); ``at`` the columns' places (pulls in
    round t's window, windows, first, last, switches, longest)."""
    pulls_at, windows, first_at, last_at, switches_at, longest_at = at
    for r in range(actions.size):
        a = actions[r]
        out[r, pulls_at + a * windows] += 1
        if out[r, first_at + a] > t:
            out[r, first_at + a] = t
        out[r, last_at + a] = t
        if a != prev[r] and prev[r] >= 0:
            out[r, switches_at] += 1
        _extend(out, longest_at, r, a, run, prev)


@njit(cache=True)
def _stretch(out, longest_at, actions, run, prev):
    """A block of rounds, ``actions`` (n, L), into each run's stretches (:func:`_extend`)."""
    n, L = actions.shape
    for r in range(n):
        for j in range(L):
            _extend(out, longest_at, r, actions[r, j], run, prev)


#: whole action sequences of at most this many run-rounds have their stretches found by numpy (at most about 0.05 s),
#: more by a compiled loop (10⁸ in under a tenth of a second, after the 0.4 s its first call in a process costs)
NUMPY_CELLS = 1 << 22


@njit(cache=True)
def _longest_of(actions, arm):
    n, T = actions.shape
    out = np.zeros(n, dtype=np.int64)
    for r in range(n):
        best = length = 0
        for j in range(T):
            length = length + 1 if actions[r, j] == arm else 0
            if length > best:
                best = length
        out[r] = best
    return out


def longest_stretch(actions: np.ndarray, arm: int) -> np.ndarray:
    """Each run's longest stretch of rounds ``arm`` is played in a row (0 when never), from whole action sequences
    ``actions`` (n, T)."""
    n, T = actions.shape
    if n * T > NUMPY_CELLS:
        return _longest_of(np.ascontiguousarray(actions), int(arm))
    length, best = np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    for hit in np.ascontiguousarray((actions == arm).T):  # round by round: each run's current stretch, and its best
        length += 1
        length *= hit
        np.maximum(best, length, out=best)
    return best.astype(np.int64)


class ActionSummary:
    """The layout of a run's summary (:meth:`names` says each column in rounds and arms) and the accumulator
    that builds it round by round: ``acc = start(n)``, ``record(acc, t, actions)`` for t = 1 … T, ``finish(acc)``
    → an (n, d) int64 array."""

    def __init__(self, n_arms: int, horizon: int, first_release: float | None = None):
        K, T = int(n_arms), int(horizon)
        self.n_arms, self.horizon = K, T
        # window w holds rounds edges[w] + 1 … edges[w + 1]
        self.edges = [int(e) for e in np.unique(np.linspace(0, T, WINDOWS + 1).round())]  # nothing of T's size
        self.windows = len(self.edges) - 1
        chosen = {e + 1 for e in self.edges[:-1]} | {1 << j for j in range(T.bit_length()) if 1 << j <= T}
        if first_release is not None and first_release < T:
            chosen.add(int(first_release) + 1)
        self.rounds = np.array(sorted(chosen), dtype=np.int64)
        self._slot = {int(r): j for j, r in enumerate(self.rounds)}  # round -> its column among the chosen rounds
        R, W = len(self.rounds), self.windows
        # columns: R chosen actions, K·W window pulls, K totals, K first, K last, K longest stretches, switches
        self.pulls_at = R
        self.totals_at = R + K * W
        self.first_at = self.totals_at + K
        self.last_at = self.first_at + K
        self.longest_at = self.last_at + K
        self.switches_at = self.longest_at + K
        self.width = self.switches_at + 1

    def names(self) -> list[str]:
        """Each column in rounds and arms."""
        out = [f"the action at round {r:,}" for r in self.rounds]
        for k in range(self.n_arms):
            for w in range(self.windows):
                a, b = self.edges[w] + 1, self.edges[w + 1]
                out.append(f"the pulls of arm {k} in rounds {a:,}–{b:,}")
        out += [f"the pulls of arm {k} in {self.horizon:,} rounds" for k in range(self.n_arms)]
        out += [f"the first round arm {k} is played (T + 1 if never)" for k in range(self.n_arms)]
        out += [f"the last round arm {k} is played (0 if never)" for k in range(self.n_arms)]
        out += [f"the longest stretch of rounds arm {k} is played in a row" for k in range(self.n_arms)]
        return out + [f"the switches between arms in {self.horizon:,} rounds"]

    def start(self, n: int) -> dict:
        out = np.zeros((n, self.width), dtype=np.int64)
        out[:, self.first_at : self.last_at] = self.horizon + 1
        # (each run's last action, −1 before the first, and the length of the stretch it ends: kept by _stretch)
        return {"out": out, "prev": np.full(n, -1, dtype=np.int64), "run": np.zeros(n, dtype=np.int64)}

    def record(self, acc: dict, t: int, actions: np.ndarray) -> None:
        out = acc["out"]
        slot = self._slot.get(t)
        if slot is not None:
            out[:, slot] = actions
        window = bisect.bisect_left(self.edges, t) - 1  # round t is in window w when edges[w] < t <= edges[w + 1]
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        at = (self.pulls_at + window, self.windows, self.first_at, self.last_at, self.switches_at, self.longest_at)
        _record(out, actions, t, at, acc["run"], acc["prev"])

    def record_block(self, acc: dict, t: int, actions: np.ndarray) -> None:
        """:meth:`record` for rounds t … t + L − 1 at once, ``actions`` (n, L): the same accumulator after."""
        out, L = acc["out"], actions.shape[1]
        end = t + L - 1
        for r in self.rounds[(self.rounds >= t) & (self.rounds <= end)]:
            out[:, self._slot[int(r)]] = actions[:, r - t]
        for w in range(self.windows):
            a, b = max(self.edges[w] + 1, t), min(self.edges[w + 1], end)  # the block's rounds in window w
            if a <= b:
                part = actions[:, a - t : b - t + 1]
                for k in range(self.n_arms):
                    out[:, self.pulls_at + k * self.windows + w] += (part == k).sum(axis=1)
        for k in range(self.n_arms):
            hit = actions == k
            played = hit.any(axis=1)
            first = t + hit.argmax(axis=1)
            last = end - hit[:, ::-1].argmax(axis=1)
            out[:, self.first_at + k] = np.where(
                played, np.minimum(out[:, self.first_at + k], first), out[:, self.first_at + k]
            )
            out[:, self.last_at + k] = np.where(played, last, out[:, self.last_at + k])
        prev = acc["prev"]
        out[:, self.switches_at] += (actions[:, 0] != prev) & (prev >= 0)
        out[:, self.switches_at] += (actions[:, 1:] != actions[:, :-1]).sum(axis=1)
        _stretch(out, self.longest_at, np.ascontiguousarray(actions, dtype=np.int64), acc["run"], prev)

    def finish(self, acc: dict) -> np.ndarray:
        out = acc["out"]
        W = self.windows
        for k in range(self.n_arms):
            out[:, self.totals_at + k] = out[:, self.pulls_at + k * W : self.pulls_at + (k + 1) * W].sum(axis=1)
        return out

    def pulls(self, summaries: np.ndarray, arm: int) -> np.ndarray:
        """Each run's pulls of ``arm`` in the whole horizon."""
        return summaries[:, self.totals_at + arm]
