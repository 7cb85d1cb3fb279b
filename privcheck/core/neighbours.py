"""Neighbour relations: which pairs of inputs a privacy claim is about.

Each relation can test a pair (:meth:`contains`), describe itself (:meth:`describe`) and propose candidate
pairs around an input (:meth:`candidate_pairs`) for the auditor's pair search.  Proposals never leave the
relation's ball: every proposed pair satisfies :meth:`contains`.

Inputs are numbers or arrays (anything :func:`numpy.asarray` accepts).  The bandit relations (reward tables
and reward lists) live with the policy auditor.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .errors import InvalidArgument, check_real

__all__ = [
    "NeighbourRelation",
    "Unspecified",
    "AllPairs",
    "ReplaceOne",
    "AddRemove",
    "ReplaceRecord",
    "ReplaceUser",
    "TableNeighbours",
    "ViewNeighbours",
    "EpisodeNeighbours",
    "EventLevel",
    "UserLevel",
    "stream_positions",
    "relation_from_name",
]

_TOL = 1e-9  # relative slack when testing that a pair is inside a norm ball (floating-point inputs)


def _arr(x) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == object:
        raise InvalidArgument(f"input {x!r} must be a number or a rectangular numeric array")
    return a


class NeighbourRelation:
    """Base class.  Subclasses are frozen dataclasses whose docstring states the relation as a formula."""

    name = "relation"

    def describe(self) -> str:
        return self.name

    def contains(self, x, x_prime) -> bool:
        raise NotImplementedError("relation subclasses define contains()")

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """Pairs (x, x') with x' a neighbour of x inside the relation, at most ``limit`` of them."""
        raise InvalidArgument(f"the relation '{self.describe()}' cannot propose neighbours: give pairs=")


@dataclass(frozen=True)
class Unspecified(NeighbourRelation):
    """The pairs the user names are asserted to be neighbours; nothing else is assumed."""

    name = "the given pairs"

    def contains(self, x, x_prime) -> bool:
        return True


@dataclass(frozen=True)
class AllPairs(NeighbourRelation):
    """Local DP: every pair of single-user inputs (x, x') with x ≠ x' in ``domain`` is a neighbour pair."""

    domain: tuple = ()
    name = "all pairs (local DP)"

    def describe(self) -> str:
        if self.domain:
            return f"all pairs of {list(self.domain)} (local DP)"
        return "all pairs (local DP)"

    def contains(self, x, x_prime) -> bool:
        if not self.domain:
            return True
        dom = [np.asarray(d) for d in self.domain]
        return any(np.array_equal(_arr(x), d) for d in dom) and any(np.array_equal(_arr(x_prime), d) for d in dom)

    def candidate_pairs(self, x=None, rng=None, limit: int | None = None) -> list:
        """Every unordered pair of the domain (the engines audit both orders): local DP quantifies over all of
        them, so none is left out — ``limit`` is accepted for the common signature and ignored."""
        if not self.domain:
            return super().candidate_pairs(x, rng, 32)
        dom = list(self.domain)
        return [(np.asarray(a), np.asarray(b)) for i, a in enumerate(dom) for b in dom[i + 1 :]]


def _norm(v: np.ndarray, norm: str) -> float:
    v = np.abs(np.ravel(v).astype(float))
    if v.size == 0:
        return 0.0
    if norm == "l1":
        return float(v.sum())
    if norm == "l2":
        return float(math.sqrt(float(np.dot(v, v))))
    return float(v.max())


@dataclass(frozen=True)
class ReplaceOne(NeighbourRelation):
    """Vectors of one shape at bounded distance: x ~ x' iff ‖x − x'‖_norm ≤ sensitivity (norm l1, l2 or linf).

    This is the usual setting of a query with ``norm``-sensitivity Δ: the mechanism is applied to the query's
    answers, and neighbouring datasets move the answer by at most Δ.
    """

    norm: str = "l1"
    sensitivity: float = 1.0

    def __post_init__(self):
        if self.norm not in ("l1", "l2", "linf"):
            raise InvalidArgument(f"norm={self.norm!r} must be one of 'l1', 'l2', 'linf'")
        object.__setattr__(self, "sensitivity", check_real("sensitivity", self.sensitivity, lower=0.0, lower_open=True))

    def describe(self) -> str:
        return f"replace-{self.norm} (sensitivity {self.sensitivity:g})"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape:
            return False
        return _norm(a.astype(float) - b.astype(float), self.norm) <= self.sensitivity * (1 + _TOL)

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """One-entry changes up and down, spread changes (every entry moved together), the sign patterns of the
        literature (StatDP's, Ding et al., "Detecting Violations of Differential Privacy", CCS 2018, §5: one
        above and the rest below, one below and the rest above, half above and half below, both ways) and
        random sign patterns."""
        a = _arr(x).astype(float)
        s, d = self.sensitivity, max(a.size, 1)
        flat = a.ravel()
        deltas = []
        idx = list(range(a.size)) if a.size <= 8 else sorted({0, a.size - 1, *rng.choice(a.size, 6, replace=False)})
        for i in idx:  # one entry, up and down
            for sign in (1.0, -1.0):
                e = np.zeros(a.size)
                e[i] = sign * s
                deltas.append(e)
        if a.size > 1:  # spread: the whole budget over every entry, same sign
            per = {"l1": s / d, "l2": s / math.sqrt(d), "linf": s}[self.norm]
            deltas += [np.full(a.size, per), np.full(a.size, -per)]
            one = -np.ones(a.size)
            one[0] = 1.0
            half = np.where(np.arange(a.size) < (a.size + 1) // 2, 1.0, -1.0)
            deltas += [per * one, -per * one, per * half, -per * half]
            for _ in range(4):  # random sign patterns
                signs = rng.choice([-1.0, 1.0], size=a.size)
                deltas.append(per * signs)
        pairs, seen = [], set()
        for e in deltas:
            key = tuple(np.round(e, 12))
            if key in seen:
                continue
            seen.add(key)
            pairs.append((a if a.ndim else a.reshape(()), (flat + e).reshape(a.shape)))
        return pairs[:limit]


@dataclass(frozen=True)
class ReplaceRecord(NeighbourRelation):
    """Datasets of equal length differing in exactly one record: x ~ x' iff #{i : x_i ≠ x'_i} ≤ 1.

    With ``bound`` B the records are taken from [−B, B]; without it, a record may take any real value (the
    mechanism must bound its influence itself, e.g. by truncation).
    """

    bound: float | None = None

    def __post_init__(self):
        if self.bound is not None:
            object.__setattr__(self, "bound", check_real("bound", self.bound, lower=0.0, lower_open=True))

    def describe(self) -> str:
        return "replace-one-record" + (f" (records in [-{self.bound:g}, {self.bound:g}])" if self.bound else "")

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 1:
            return False
        if self.bound is not None and (
            np.abs(a).max(initial=0) > self.bound * (1 + _TOL) or np.abs(b).max(initial=0) > self.bound * (1 + _TOL)
        ):
            return False
        return int(np.count_nonzero(a != b)) <= 1

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """Replace the first, the last, the largest and the smallest record by extreme values."""
        a = _arr(x).astype(float)
        if a.ndim != 1 or a.size == 0:
            raise InvalidArgument("replace-one-record needs a non-empty list of records as input")
        scale = self.bound if self.bound is not None else max(1.0, float(np.abs(a).max()))
        values = [scale, -scale, 0.0] if self.bound is not None else [scale, -scale, 0.0, 10 * scale, -10 * scale]
        pairs = []
        for i in sorted({0, a.size - 1, int(np.argmax(a)), int(np.argmin(a))}):
            for v in values:
                if v != a[i]:
                    b = a.copy()
                    b[i] = v
                    pairs.append((a, b))
        return pairs[:limit]


@dataclass(frozen=True)
class AddRemove(NeighbourRelation):
    """Datasets differing by one added or removed record: x ~ x' iff one is the other with one record
    inserted, the record in [−bound, bound]."""

    bound: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "bound", check_real("bound", self.bound, lower=0.0, lower_open=True))

    def describe(self) -> str:
        return f"add-remove (records in [-{self.bound:g}, {self.bound:g}])"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x).ravel().astype(float), _arr(x_prime).ravel().astype(float)
        if abs(a.size - b.size) != 1:
            return False
        short, long_ = (a, b) if a.size < b.size else (b, a)
        if np.abs(long_).max(initial=0) > self.bound * (1 + _TOL):
            return False
        for i in range(long_.size):
            if np.array_equal(np.delete(long_, i), short):
                return True
        return False

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        a = _arr(x).ravel().astype(float)
        if np.abs(a).max(initial=0) > self.bound * (1 + _TOL):
            raise InvalidArgument(f"input {a.tolist()} has a record outside [-{self.bound:g}, {self.bound:g}]")
        pairs = [(a, np.append(a, v)) for v in (self.bound, -self.bound, 0.0)]
        for i in sorted({0, a.size - 1, int(np.argmax(a)), int(np.argmin(a))} if a.size else ()):
            pairs.append((a, np.delete(a, i)))
        return pairs[:limit]


@dataclass(frozen=True)
class ReplaceUser(NeighbourRelation):
    """Populations of categorical records, an (n, m) integer array with one row per user (e.g. the (code, action,
    reward) tuple a user would report); x ~ x' iff they differ in at most one row.  With ``sizes`` (one per
    column) the records are taken from {0..sizes[j] − 1} in column j.
    """

    sizes: tuple | None = None
    name = "replace-one-user"

    def describe(self) -> str:
        return self.name + (f" (records in {' × '.join(f'[0, {s})' for s in self.sizes)})" if self.sizes else "")

    def _inside(self, a) -> bool:
        return self.sizes is None or (
            a.shape[1] == len(self.sizes) and bool((a >= 0).all()) and bool((a < np.asarray(self.sizes)).all())
        )

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 2 or not (self._inside(a) and self._inside(b)):
            return False
        return int(np.count_nonzero(np.any(a != b, axis=1))) <= 1

    def _fresh(self, a) -> np.ndarray:
        """A record nobody in the population holds (inside ``sizes`` when given)."""
        if self.sizes is None:
            return a.max(axis=0) + 1
        held = {tuple(r) for r in a.tolist()}
        for i, rec in enumerate(itertools.product(*(range(s) for s in self.sizes))):
            if rec not in held:
                return np.array(rec, dtype=a.dtype)
            if i > 100_000:
                break
        return a[0]

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """Users whose record is rare (unique first), and members of the largest crowds, moved into the most
        common record and into a record nobody holds."""
        a = _arr(x)
        if a.ndim != 2 or a.shape[0] < 1 or a.dtype.kind not in "iu" or not self._inside(a):
            raise InvalidArgument(
                "replace-one-user needs a population: an (n, m) integer array, one row per user"
                + (f", records in {self.describe()}" if self.sizes else "")
            )
        rows, inv, counts = np.unique(a, axis=0, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        order = np.argsort(counts[inv], kind="stable")  # users by the size of their crowd, rarest first
        users = list(order[:8]) + list(order[::-1][:2])
        common, fresh = rows[np.argmax(counts)], self._fresh(a)
        pairs = []
        for i in dict.fromkeys(int(u) for u in users):
            for target in (common, fresh):
                if not np.array_equal(a[i], target):
                    b = a.copy()
                    b[i] = target
                    pairs.append((a, b))
        return pairs[:limit]


def stream_positions(length: int) -> list[int]:
    """The positions (0-based) of a stream of ``length`` elements where a change matters most to the counters that
    continual release uses: the first and the last, the ends and starts of dyadic blocks (powers of two, from 1: the
    2^j-th element closes a block of every size up to 2^j, the (2^j + 1)-th opens one), the middle, and the two whose
    binary digits alternate (⌊2T/3⌋ and ⌊T/3⌋: 1010…₂ and 101…₂ — the element Honaker's weighted tree sums read most,
    measured at every T = 2⁴ … 2¹²) — in that order, without repeats."""
    T = int(length)
    out = [0, T - 1]
    j = 1
    while j <= T:
        out += [j - 1, j]  # the 2^j-th element and the one after (0-based j − 1 and j)
        j *= 2
    out += [T // 2, 2 * T // 3, T // 3]
    return [p for p in dict.fromkeys(out) if 0 <= p < T]


def _stream(x) -> np.ndarray:
    a = _arr(x).astype(float)
    if a.ndim not in (1, 2) or a.shape[0] < 1:
        raise InvalidArgument(f"a stream is T values (or T vectors: a T × d array), not an array of shape {a.shape}")
    return a


@dataclass(frozen=True)
class EventLevel(NeighbourRelation):
    """Event-level neighbours of streams (continual observation): x, x' ∈ [lo, hi]^T (or T vectors in [lo, hi]^d)
    differ in at most one element (Dwork, Naor, Pitassi & Rothblum, "Differential privacy under continual
    observation", 2010)."""

    lo: float = 0.0
    hi: float = 1.0
    name = "event-level"

    def __post_init__(self):
        if not (math.isfinite(self.lo) and math.isfinite(self.hi) and self.lo < self.hi):
            raise InvalidArgument(f"a stream's range ({self.lo!r}, {self.hi!r}) must be two finite numbers lo < hi")

    def describe(self) -> str:
        return f"event-level stream neighbours (one element in [{self.lo:g}, {self.hi:g}] replaced)"

    def _inside(self, a) -> bool:
        return bool(((a >= self.lo) & (a <= self.hi)).all())

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim not in (1, 2) or not (self._inside(a) and self._inside(b)):
            return False
        return int(np.count_nonzero(np.any((a != b).reshape(a.shape[0], -1), axis=1))) <= 1

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """At each position of :func:`stream_positions`, the element moved to the far end of the range (lo ↔ hi,
        from wherever it is; both ends for an element inside)."""
        a = _stream(x)
        if not self._inside(a):
            raise InvalidArgument(f"the stream holds a value outside [{self.lo:g}, {self.hi:g}]")
        pairs = []
        for i in stream_positions(a.shape[0]):
            for v in (self.hi, self.lo):
                b = a.copy()
                b[i] = v
                if not np.array_equal(a, b):
                    pairs.append((a, b))
                    break  # (the far end only: from lo, hi; from hi, lo)
        return pairs[:limit]


@dataclass(frozen=True)
class UserLevel(NeighbourRelation):
    """User-level neighbours of streams: one user takes part at most ``participations`` times, at positions at least
    ``separation`` apart, and x, x' ∈ [lo, hi]^T differ in that user's elements only (the participation pattern of
    "Multi-epoch matrix factorization mechanisms for private machine learning", Choquette-Choo et al. 2023)."""

    participations: int = 1
    separation: int = 1
    lo: float = 0.0
    hi: float = 1.0
    name = "user-level"

    def __post_init__(self):
        if self.participations < 1 or self.separation < 1:
            raise InvalidArgument("a user's participations k and separation b must be at least 1 (user:k,b)")
        EventLevel(self.lo, self.hi)  # (the range checked)

    def describe(self) -> str:
        return (
            f"user-level stream neighbours (one user's ≤ {self.participations} elements, at least "
            f"{self.separation} apart, in [{self.lo:g}, {self.hi:g}], replaced)"
        )

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim not in (1, 2):
            return False
        if not (EventLevel(self.lo, self.hi)._inside(a) and EventLevel(self.lo, self.hi)._inside(b)):
            return False
        at = np.flatnonzero(np.any((a != b).reshape(a.shape[0], -1), axis=1))
        return at.size <= self.participations and bool((np.diff(at) >= self.separation).all())

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """From each position of :func:`stream_positions`, the user's k elements every ``separation`` (as many as
        fit), each moved to the far end of the range; and the same from the last position backwards."""
        a = _stream(x)
        T, k, b_ = a.shape[0], self.participations, self.separation
        if not EventLevel(self.lo, self.hi)._inside(a):
            raise InvalidArgument(f"the stream holds a value outside [{self.lo:g}, {self.hi:g}]")
        pairs, seen = [], set()
        starts = [(p, 1) for p in stream_positions(T)] + [(T - 1, -1)]
        for start, way in starts:
            at = [start + way * j * b_ for j in range(k) if 0 <= start + way * j * b_ < T]
            y = a.copy()
            for i in at:
                y[i] = self.lo if np.all(a[i] == self.hi) else self.hi
            key = y.tobytes()
            if key not in seen and not np.array_equal(a, y):
                seen.add(key)
                pairs.append((a, y))
        return pairs[:limit]


def relation_from_name(name: str, sensitivity: float | None, stream_range=(0.0, 1.0)) -> NeighbourRelation:
    """The relation of a name such as ``replace-l1`` (``neighbours=``); a stream's: ``event`` (one element replaced)
    or ``user:k,b`` (one user's k elements at least b apart), within ``stream_range``."""
    if name == "event":
        return EventLevel(*stream_range)
    if name.startswith("user:") or name == "user":
        try:
            k, b = (int(v) for v in name.split(":", 1)[1].split(","))
        except (IndexError, ValueError):
            raise InvalidArgument(
                f"neighbours={name!r}: user-level neighbours are user:k,b (k participations at least b apart)"
            ) from None
        return UserLevel(k, b, *stream_range)
    s = 1.0 if sensitivity is None else sensitivity
    table = {
        "replace-l1": lambda: ReplaceOne("l1", s),
        "replace-l2": lambda: ReplaceOne("l2", s),
        "replace-linf": lambda: ReplaceOne("linf", s),
        "add-remove": lambda: AddRemove(s),
        "replace-record": lambda: ReplaceRecord(sensitivity),
    }
    if name not in table:
        raise InvalidArgument(f"neighbours={name!r} must be one of {', '.join(table)}, event or user:k,b")
    return table[name]()


@dataclass(frozen=True)
class TableNeighbours(NeighbourRelation):
    """Reward tables x ∈ R^{T×K} (row t: user t's K potential rewards); x ~ x' iff they differ in at most one
    row (any of that row's entries).  Table DP (Azize & Basu, "Concentrated Differential Privacy for Bandits",
    §III-C)."""

    name = "table neighbours (one row replaced)"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 2:
            return False
        return int(np.any(a != b, axis=1).sum()) <= 1

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """Rows replaced early, in the middle and late: by their complement within the table's range [lo, hi]
        (its smallest and largest reward; [0, 1] joined in for a constant table, all zeros by default), by all-lo
        and all-hi, and with the row's entries swapped; and a few random rows of lo and hi.  The last row is never
        changed: its reward is observed after the last action, so no action can depend on it."""
        a = _arr(x).astype(float)
        if a.ndim != 2:
            raise InvalidArgument(f"a reward table must be T×K, got shape {a.shape}")
        T = a.shape[0]
        lo, hi = float(a.min()), float(a.max())
        if lo == hi:  # a constant table (all zeros by default): extremes of [0, 1] and of the table together
            lo, hi = min(lo, 0.0), max(hi, 1.0)
        pairs = []
        for t in sorted({0, 1, T // 2, T - 2} & set(range(max(T - 1, 1)))):  # not the last row: see the docstring
            for row in (
                lo + hi - a[t],
                np.full(a.shape[1], lo),
                np.full(a.shape[1], hi),
                a[t][::-1],
                rng.choice([lo, hi], a.shape[1]),
            ):
                b = a.copy()
                b[t] = row
                if not np.array_equal(a, b):
                    pairs.append((a, b))
        uniq, seen = [], set()
        for p in pairs:
            k = p[1].tobytes()
            if k not in seen:
                seen.add(k)
                uniq.append(p)
        return uniq[:limit]


@dataclass(frozen=True)
class JointNeighbours(NeighbourRelation):
    """Contextual inputs x ∈ R^{T×K×(2+d)} (round t: user t's K rewards in channel 0, a mark on the audited user's
    round in channel 1, the K arms' contexts in channels 2 …); x ~ x' iff exactly one round is marked, the same on
    both, and they differ in that round only (its rewards and contexts).  Joint DP (Shariff and Sheffet,
    "Differentially Private Contextual Linear Bandits", §2): the output audited leaves out the marked user's own
    action."""

    name = "joint neighbours (one user's context and rewards replaced, their own action left out)"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 3 or a.shape[2] < 3 or not np.array_equal(a[:, :, 1], b[:, :, 1]):
            return False
        marks = a[:, :, 1]
        marked = np.nonzero(np.all(marks == 1.0, axis=1))[0]
        if marked.size != 1 or not np.all((marks == 0.0) | (marks == 1.0)) or int((marks == 1.0).sum()) != a.shape[1]:
            return False
        differ = (a != b) & ~(np.isnan(a) & np.isnan(b))  # (an arm not offered: NaN on both sides is the same)
        rows = np.nonzero(np.any(differ, axis=(1, 2)))[0]
        return bool(np.all(rows == marked[0]))


@dataclass(frozen=True)
class ViewNeighbours(NeighbourRelation):
    """Reward lists r ∈ R^T (the rewards the policy observed); r ~ r' iff they differ in at most one entry.
    View DP (Azize & Basu, §III-C)."""

    name = "view neighbours (one observed reward replaced)"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 1:
            return False
        return int(np.count_nonzero(a != b)) <= 1

    def candidate_pairs(self, x, rng: np.random.Generator, limit: int = 32) -> list:
        """One observed reward flipped to the other extreme, early, in the middle and late (never the last: it is
        observed after the last action)."""
        a = _arr(x).astype(float)
        if a.ndim != 1:
            raise InvalidArgument(f"a reward list must be one-dimensional, got shape {a.shape}")
        lo, hi = float(a.min()), float(a.max())
        if lo == hi:  # a constant table (all zeros by default): extremes of [0, 1] and of the table together
            lo, hi = min(lo, 0.0), max(hi, 1.0)
        pairs = []
        for t in sorted({0, 1, a.size // 2, a.size - 2} & set(range(max(a.size - 1, 1)))):
            b = a.copy()
            b[t] = lo + hi - a[t]
            pairs.append((a, b))
        return pairs[:limit]


@dataclass(frozen=True)
class EpisodeNeighbours(NeighbourRelation):
    """Episodic inputs: one row per episode — one user each — holding a mark on the audited user's row, then that
    user's response tape (their initial state, and for every step, state and action the reward and next state they
    would give; :class:`privcheck.core.episodic.Tapes`); x ~ x' iff exactly one row is marked, the same on both, and
    they differ in that row only.  Joint DP per episode (Vietri, Balle, Krishnamurthy and Wu, "Private Reinforcement
    Learning with PAC and Regret Guarantees", §2): the output audited leaves out the marked user's own actions."""

    name = "episode neighbours (one user's response tape replaced, their own actions left out)"

    def contains(self, x, x_prime) -> bool:
        a, b = _arr(x), _arr(x_prime)
        if a.shape != b.shape or a.ndim != 2 or a.shape[1] < 4 or not np.array_equal(a[:, 0], b[:, 0]):
            return False
        marks = a[:, 0]
        marked = np.nonzero(marks == 1.0)[0]
        if marked.size != 1 or not np.all((marks == 0.0) | (marks == 1.0)):
            return False
        rows = np.nonzero(np.any(a != b, axis=1))[0]
        return bool(np.all(rows == marked[0]))
