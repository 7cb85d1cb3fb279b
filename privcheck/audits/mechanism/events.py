"""Events over a mechanism's outputs, and the candidate families the sampled engine searches.

An event is a frozen, picklable object with ``indicator(outputs) -> bool array`` and ``describe()``.  It
is built from a *statistic* (a function of one draw: the output itself, one coordinate, a projection, the
whole row as a category, or the user's own function) and a predicate on it:

* ``Threshold``: {s > t} or {s ≤ t} for a real statistic;
* ``InSet``: {s ∈ V} for a categorical statistic (atoms, and likelihood-ratio sets: the values whose
  estimated ratio P̂/Q̂ is highest, taken in order);
* ``UserEvent``: the user's function returns the indicator itself;
* ``Ladder``: not one event but K nested thresholds {s > t₁} ⊇ … ⊇ {s > t_K} of a real statistic (or {s ≤ t}
  downwards), counted together: their cells certify a divergence at once (:mod:`privcheck.audits.cells`);
* ``BitWindow``: {lo ≤ s < hi and s has at least k trailing zero bits of mantissa} for a float statistic, or fewer
  than k (the window's draws the other side's grid cannot produce), its mantissa read at the outputs' own width
  (:func:`float_width`: float16, float32, float64, the long double, or the narrower format whose numbers a float64
  array holds) — the events of Mironov's attack on floating-point noise ("On Significance of the Least Significant
  Bits for Differential Privacy", CCS 2012), searched over k ∈ {1, 2, 4, 8, 16, 32} (below the width) and windows
  between 0 and ±2^j.  They are cheap (a few array passes)
  and always searched for float outputs; on a grid mechanism they are post-processings like any other event and
  cannot manufacture a gap.

Candidates are generated from the *selection* sample only; the engine certifies the chosen ones on fresh
samples, so the choice never biases the certified bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Callable

import numpy as np

from .whitening import WHITENED_WORK, Pooled, covariance_held, whitened

__all__ = [
    "Kind",
    "Statistic",
    "Family",
    "FAMILIES",
    "Threshold",
    "InSet",
    "UserEvent",
    "BitWindow",
    "Ladder",
    "counted",
    "EventSeq",
    "trailing_zero_bits",
    "mantissa_field",
    "float_width",
    "bit_counts",
    "FORMATS",
    "statistics_for",
    "statistics_held",
    "candidates_for",
    "coordinate_values",
    "user_statistic",
    "whole_numbers",
    "MAX_CATEGORIES",
    "MIN_REPEATS",
    "categorical",
]

#: a statistic with at most this many distinct values in the selection sample is also treated as categorical ...
MAX_CATEGORIES = 512
#: ... and with at least this many draws per distinct value on average: sets of values seen about once are fitted to
#: the sample — the whole action sequences of 125 runs per side are all distinct, and the set of those seen on x
#: scored 125 against 0 where nothing leaks, outranking a pair that leaks in a quick stage's screening
#: (benchmarks/RESULTS.md, "The search staged, and a quick stage that screens cheaply")
MIN_REPEATS = 4


def categorical(distinct: int, draws: int) -> bool:
    """Whether a statistic taking ``distinct`` values over ``draws`` draws (both sides) is treated as categorical:
    at most :data:`MAX_CATEGORIES` values, each seen :data:`MIN_REPEATS` times on average."""
    return distinct <= MAX_CATEGORIES and distinct * MIN_REPEATS <= draws


_N_QUANTILES = 1001
_N_TAIL = 120


def _rows(outputs: np.ndarray) -> np.ndarray:
    return outputs.reshape(outputs.shape[0], -1)


#: numbers beyond this magnitude are centred before float arithmetic reads them (:func:`centre_of`): an int64 or a
#: double near 10¹⁵ keeps its unit steps only as a difference from a nearby value
LARGE = 2.0**31


def centre_of(rows: np.ndarray) -> tuple:
    """A per-coordinate centre of numeric ``rows`` (draws × coordinates) — each coordinate's first finite value —
    when any value is beyond :data:`LARGE` in magnitude; else () (no centring).  Subtracted before the conversion
    to float (:func:`centred`), it keeps small differences exact where converting first would round them away."""
    if rows.size == 0 or rows.dtype.kind not in "iuf":
        return ()
    if rows.dtype.kind in "iu":  # (every value finite: the extremes decide, and the first row is the centre)
        if max(abs(int(rows.min())), abs(int(rows.max()))) <= LARGE:
            return ()
        return tuple(int(v) for v in rows[0])
    step = max(1, _KEY_BLOCK // max(rows.shape[1], 1))  # (a block of rows at a time: no copy of the rows)
    if not any(_beyond_large(rows[s : s + step]) for s in range(0, rows.shape[0], step)):
        return ()
    ok = np.isfinite(rows)
    return tuple(float(col[good][0]) if good.any() else 0.0 for col, good in zip(rows.T, ok.T))


def _beyond_large(rows: np.ndarray) -> bool:
    """Whether any finite value of ``rows`` is beyond :data:`LARGE` in magnitude."""
    with np.errstate(invalid="ignore"):
        return bool((np.abs(rows) > LARGE).any() and (np.abs(rows[np.isfinite(rows)]) > LARGE).any())


def centred(rows: np.ndarray, centre: tuple) -> np.ndarray:
    """``rows`` minus ``centre`` (:func:`centre_of`; () for none) as floats: integers subtracted exactly in int64
    when every value and centre is within ±2⁶², anything else in float; doubles with no centre are the rows
    themselves, not a copy (read only)."""
    if not centre:
        return np.asarray(rows, dtype=float)
    if rows.dtype.kind in "iu" and rows.size:
        bound = 2**62
        if max(abs(int(rows.min())), abs(int(rows.max())), *(abs(v) for v in centre)) < bound:
            return (rows.astype(np.int64) - np.array(centre, dtype=np.int64)).astype(float)
    return rows.astype(float) - np.asarray(centre, dtype=float)


class Kind(str, Enum):
    """What a :class:`Statistic` reads of a draw."""

    OUTPUT = "output"  # a scalar output itself
    COORD = "coord"  # one coordinate (``index``) of the flattened output
    PROJECTION = "projection"  # ⟨row, weights⟩
    SIGNS = "signs"  # Σ weights·sign(row − cuts): the likelihood-ratio statistic of independent Laplace-like noise
    ROW = "row"  # the whole flattened row, as one category
    USER = "user"  # the user's function ``fn`` (an event or a statistic)
    FEATURE = (
        "feature"  # a named feature the audited family supplies (``feature``, ``arm``: a policy's pulls of an arm)
    )
    LEARNED = "learned"  # a classifier's score (:mod:`privcheck.audits.mechanism.learned`)


@dataclass(frozen=True)
class Statistic:
    """A real or categorical function of one draw, of a :class:`Kind`; a feature says what it is in structured
    fields (``feature``: pulls, first_round, longest or switches; ``arm``), from which witnesses are said in the audited
    family's words — never by parsing ``fn_name``."""

    kind: Kind
    index: int = 0
    weights: tuple = ()
    centre: tuple = ()  # a projection's or sign statistic's centre, subtracted first (:func:`centre_of`; () for none)
    cuts: tuple = ()  # a sign statistic's cut point on every coordinate (:func:`_signs`)
    fn: Callable | None = field(default=None, compare=False)
    fn_name: str = ""
    feature: str = ""
    arm: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "kind", Kind(self.kind))

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        if self.kind == "output":
            return outputs.reshape(outputs.shape[0])
        if self.kind == "coord":
            return _rows(outputs)[:, self.index]
        if self.kind == "projection":
            w = np.asarray(self.weights, dtype=float)
            return _by_rows(_rows(outputs), lambda r: centred(r, self.centre) @ w)
        if self.kind == "signs":
            return _sign_sums(_rows(outputs), self.weights, self.cuts, self.centre)
        if self.kind == "row":
            r = np.ascontiguousarray(_rows(outputs))
            return r.view(np.dtype((np.void, r.dtype.itemsize * r.shape[1]))).ravel()
        from privcheck.core.errors import TargetError, raised

        try:
            out = np.asarray(self.fn(outputs))
        except Exception as exc:
            raise raised(TargetError, f"event {self.fn_name} raised {type(exc).__name__}: {exc}", exc) from None
        if out.shape != (outputs.shape[0],) or out.dtype == object:
            raise TargetError(
                f"event {self.fn_name} must return one number or boolean per draw "
                f"(got shape {out.shape} for {outputs.shape[0]} draws)"
            )
        return out

    def largest_weights(self) -> dict:
        """A projection's or a sign statistic's largest weights, {coordinate: weight}, at most eight (none for any
        other kind)."""
        if self.kind not in (Kind.PROJECTION, Kind.SIGNS):
            return {}
        w = np.asarray(self.weights, dtype=float)
        top = np.argsort(-np.abs(w), kind="stable")[:8]
        return {int(i): float(w[i]) for i in top if w[i] != 0}

    def describe(self) -> str:
        if self.kind == "output":
            return "o"
        if self.kind == "coord":
            return f"o[{self.index}]"
        if self.kind == "projection":
            w = ", ".join(f"{v:.3g}" for v in self.weights[:6]) + (", …" if len(self.weights) > 6 else "")
            if not self.centre:
                return f"<o, ({w})>"
            c = ", ".join(f"{v!r}" for v in self.centre[:6]) + (", …" if len(self.centre) > 6 else "")
            return f"<o − c, ({w})> with c = ({c})"
        if self.kind == "signs":
            top = self.largest_weights()

            def cut(i):  # (large numbers: the cut is from the centre)
                if not self.centre:
                    return f"{self.cuts[i]:.6g}"
                return f"({self.centre[i]!r} {'−' if self.cuts[i] < 0 else '+'} {abs(self.cuts[i]):.6g})"

            shown = ", ".join(f"{w:+.3g}·sign(o[{i}] − {cut(i)})" for i, w in list(top.items())[:4])
            n = int(np.count_nonzero(self.weights))
            return f"Σ w·sign(o − c) over {n} coordinates ({shown}{', …' if n > 4 else ''})"
        if self.kind == "row":
            return "o (whole output)"
        if self.kind == "learned":
            return f"score of {self.fn_name}"
        return f"{self.fn_name}(o)"


@dataclass(frozen=True)
class Threshold:
    statistic: Statistic
    threshold: float
    above: bool  # {s > t} if above else {s <= t}

    def indicator(self, outputs):
        s = self.statistic(outputs)
        return s > self.threshold if self.above else s <= self.threshold

    def describe(self) -> str:
        return f"{{{self.statistic.describe()} {'>' if self.above else '<='} {self.threshold:.6g}}}"

    def to_json(self):
        out = {
            "kind": "threshold",
            "statistic": self.statistic.describe(),
            "threshold": float(self.threshold),
            "direction": "above" if self.above else "at-or-below",
        }
        if self.statistic.kind in (Kind.PROJECTION, Kind.SIGNS):
            out["largest_weights"] = self.statistic.largest_weights()
        return out


@dataclass(frozen=True)
class InSet:
    statistic: Statistic
    values: tuple  # sorted values (bytes for whole-row categories)
    complement: bool = False

    def _values(self):
        if self.statistic.kind == "row":
            return np.array(self.values, dtype=np.dtype((np.void, len(self.values[0]))))
        return np.asarray(self.values)

    def indicator(self, outputs):
        s = self.statistic(outputs)
        inside = np.isin(s, self._values())
        return ~inside if self.complement else inside

    def _shown(self, limit=8):
        vals = self.values
        if self.statistic.kind == "row":
            return ["<row>"] * min(len(vals), limit)
        return [v.item() if hasattr(v, "item") else v for v in vals[:limit]]

    def describe(self) -> str:
        shown = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in self._shown())
        more = f", … ({len(self.values)} values)" if len(self.values) > 8 else ""
        op = "not in" if self.complement else "in"
        return f"{{{self.statistic.describe()} {op} {{{shown}{more}}}}}"

    def to_json(self):
        return {
            "kind": "set",
            "statistic": self.statistic.describe(),
            "complement": self.complement,
            "values": self._shown(limit=64),
            "size": len(self.values),
        }


@dataclass(frozen=True)
class Empty:
    """The empty event: no output falls in it, so it certifies ε ≥ 0 and refutes nothing.  Certified where the
    selection draws gave no candidate at all — every output distinct, and too few draws for the classifiers (ragged
    symbol lists on the few hundred draws of a quick stage) — so that the stage ends as one that saw nothing."""

    def indicator(self, outputs):
        return np.zeros(len(outputs), dtype=bool)

    def describe(self) -> str:
        return "{} (no event could be formed on the selection draws)"

    def to_json(self):
        return {"kind": "empty"}


@dataclass(frozen=True)
class UserEvent:
    statistic: Statistic

    def indicator(self, outputs):
        return self.statistic(outputs).astype(bool)

    def describe(self) -> str:
        return f"{{{self.statistic.fn_name}(o) is true}}"

    def to_json(self):
        return {"kind": "user", "function": self.statistic.fn_name}


#: the unsigned view of each binary format numpy stores in its own bits, by mantissa width
_VIEWS = {10: (np.float16, np.uint16), 23: (np.float32, np.uint32), 52: (np.float64, np.uint64)}
#: the formats' names, as the reports say them
FORMATS = {10: "float16", 23: "float32", 52: "float64"}


def mantissa_field(values, mantissa: int = 52) -> np.ndarray:
    """The mantissa (fraction) field of each value as uint64, read in the binary format with ``mantissa`` bits of
    fraction — float16 (10), float32 (23), float64 (52) or this machine's long double (``np.finfo(np.longdouble)
    .nmant``, up to 63) — after converting the values to it (exact when they are its numbers; otherwise rounded,
    which keeps any event on it a fixed function of the output).  Non-finite values read as 0.  The long double's
    field is taken from ``frexp`` (its subnormals normalised)."""
    if mantissa in _VIEWS:
        fmt, view = _VIEWS[mantissa]
        with np.errstate(over="ignore"):
            raw = np.ascontiguousarray(values, dtype=fmt).view(view).astype(np.uint64)
        field = raw & np.uint64((1 << mantissa) - 1)
        ones = np.uint64((1 << (8 * np.dtype(fmt).itemsize - 1 - mantissa)) - 1)  # the exponent field all ones
        return np.where((raw >> np.uint64(mantissa)) & ones == ones, np.uint64(0), field)  # ±∞, NaN: 0
    if mantissa != np.finfo(np.longdouble).nmant or mantissa > 63:
        raise ValueError(f"no binary format with {mantissa} mantissa bits is read here")
    v = np.asarray(values, dtype=np.longdouble)
    v = np.where(np.isfinite(v), v, 0)
    m = np.abs(np.frexp(v)[0])  # in [1/2, 1): times 2^(mantissa + 1) an integer below 2^64, exact
    return (m * np.longdouble(2.0) ** (mantissa + 1)).astype(np.uint64) & np.uint64((1 << mantissa) - 1)


def trailing_zero_bits(values, mantissa: int = 52) -> np.ndarray:
    """The number of trailing zero bits (0 … ``mantissa``) of each value's mantissa field, in the binary format
    with ``mantissa`` bits of fraction (:func:`mantissa_field`; default float64's 52)."""
    bits = mantissa_field(values, mantissa)
    below = (bits & (~bits + np.uint64(1))) - np.uint64(1)  # the bits below the lowest set bit (wraps where 0)
    return np.where(bits == 0, mantissa, np.bitwise_count(below)).astype(np.int64)


def float_width(*samples: np.ndarray) -> int | None:
    """The mantissa width the bit-level search reads real outputs at: their own format's (float16 10, float32
    23, float64 52, the long double's up to 63 — a wider one is read as float64), and for float64 samples whose
    finite values are all numbers of a narrower format and not all whole numbers — float32 results cast to double,
    as a float32 library's output usually arrives — that narrower width.  None for outputs that are not floats."""
    dtype = samples[0].dtype
    if dtype.kind != "f":
        return None
    if dtype != np.float64:
        nmant = int(np.finfo(dtype).nmant)
        return nmant if nmant in _VIEWS or nmant == np.finfo(np.longdouble).nmant and nmant <= 63 else 52
    finite = [s[np.isfinite(s)] for s in samples]
    if not sum(f.size for f in finite) or all(np.array_equal(f, np.round(f)) for f in finite):
        return 52  # whole numbers: their low bits are their integers', read as they are
    for narrow in (10, 23):
        fmt = _VIEWS[narrow][0]
        with np.errstate(over="ignore"):
            if all(np.array_equal(f.astype(fmt).astype(np.float64), f) for f in finite):
                return narrow
    return 52


#: zero bits a grid leaves at the bottom of every draw's float64 significand (:func:`grid_exponent`): the four
#: lowest, the bits the learned features read
SPARE_BITS = 4


def grid_exponent(*samples: np.ndarray) -> int | None:
    """k where every draw of ``samples`` lies on the grid 2^k·ℤ as the built-in exact samplers' outputs do — absolute
    precision, not a float's relative one — else None.  Three conditions, on float16/32/64 outputs with finite values:

    * every draw is n·2^k (k the least exponent of any draw's lowest set bit; zeros lie on every grid);
    * |n| < 2^(m+1−:data:`SPARE_BITS`) for every draw, m the outputs' own mantissa width: the lowest
      :data:`SPARE_BITS` bits of every significand are zero, fixed by the grid;
    * 2^k is no finer than a float's own spacing at the draws' median magnitude, read at :func:`float_width`: a float
      sampler's draws near zero carry their full precision (its least lowest bit is far below that spacing); a grid's
      do not.

    On such outputs a draw's bits are the integer n's, a function of its value like any other: what a float artefact
    would show (which doubles near x can come out) is fixed by the grid, the same on both sides."""
    if not samples or any(s.dtype != samples[0].dtype for s in samples) or samples[0].dtype.type not in _OWN_WIDTH:
        return None
    m = _OWN_WIDTH[samples[0].dtype.type]
    v = np.concatenate([np.asarray(s).ravel() for s in samples])
    if not np.isfinite(v).all():
        return None
    v = v[v != 0]
    if v.size == 0 or np.abs(v).min() < np.finfo(v.dtype).tiny:  # subnormals: no grid read here
        return None
    e = np.frexp(v)[1].astype(np.int64)  # |v| in [2^(e−1), 2^e)
    lowest = e - (m + 1) + trailing_zero_bits(v, m)  # the exponent of each draw's lowest set bit
    k = int(lowest.min())
    if int(e.max()) - k > m + 1 - SPARE_BITS:
        return None
    w = float_width(*samples) or m
    return k if k >= int(np.median(e)) - (w + 1) else None


_OWN_WIDTH = {np.float16: 10, np.float32: 23, np.float64: 52}


def _format_name(mantissa: int) -> str:
    return FORMATS.get(mantissa, f"long double ({mantissa}-bit mantissa)")


#: the trailing-zero counts and the window cuts the bit-level search tries (counts below the width read at)
BIT_COUNTS = (1, 2, 4, 8, 16, 32)
_BIT_CUTS = np.array(sorted({0.0} | {s * 2.0**j for s in (-1, 1) for j in range(-16, 17)}))


def bit_counts(mantissa: int) -> tuple[int, ...]:
    """The trailing-zero counts searched at a width: those of :data:`BIT_COUNTS` below it."""
    return tuple(k for k in BIT_COUNTS if k < mantissa)


@dataclass(frozen=True)
class BitWindow:
    """{low ≤ s < high and s has at least ``bits`` trailing zero bits of mantissa} — or, with ``fewer``, fewer
    than ``bits``: the window's draws off the coarser grid of the other side, which that side cannot produce (where
    x + noise is rounded to multiples of 2^-51 in a window and x′ + noise to multiples of 2^-52, the odd multiples
    are x′'s alone, and "at least one trailing zero" only halves x′'s mass)."""

    statistic: Statistic
    bits: int  # at least this many trailing zero bits (fewer than this many with ``fewer``)
    low: float
    high: float
    mantissa: int = 52  # read in the binary format with this many mantissa bits (float64 unless said)
    fewer: bool = False

    def indicator(self, outputs):
        s = np.asarray(self.statistic(outputs))
        if s.dtype.kind != "f":
            s = s.astype(np.float64)
        zeros = trailing_zero_bits(s, self.mantissa)
        return (s >= self.low) & (s < self.high) & ((zeros < self.bits) if self.fewer else (zeros >= self.bits))

    def describe(self) -> str:
        read = "" if self.mantissa == 52 else f" as {_format_name(self.mantissa)}"
        return (
            f"{{{self.statistic.describe()} in [{self.low:.6g}, {self.high:.6g}) with {'<' if self.fewer else '>='} "
            f"{self.bits} trailing zero mantissa bits{read}}}"
        )

    def to_json(self):
        out = {
            "kind": "bits",
            "statistic": self.statistic.describe(),
            "trailing_zero_bits": self.bits,
            "low": float(self.low),
            "high": float(self.high),
        }
        if self.fewer:
            out["fewer"] = True  # fewer than trailing_zero_bits
        if self.mantissa != 52:
            out["mantissa_bits"] = self.mantissa
        return out


@dataclass(frozen=True)
class Ladder:
    """K nested threshold events of one real statistic, its *rungs*: {s > t_j} for ascending ``thresholds`` when
    ``above``, else {s ≤ t_j} for descending ones — each rung inside the one before.  They are counted as K events;
    the K + 1 cells between them certify D_α, KL and ρ together (:mod:`privcheck.audits.cells`)."""

    statistic: Statistic
    thresholds: tuple
    above: bool = True

    @cached_property
    def rungs(self) -> tuple:
        """Its K threshold events, built once (the same objects wherever they are counted and certified)."""
        return tuple(Threshold(self.statistic, float(t), self.above) for t in self.thresholds)

    def describe(self) -> str:
        ts = ", ".join(f"{t:.6g}" for t in self.thresholds[:6]) + (", …" if len(self.thresholds) > 6 else "")
        return f"the {len(self.thresholds) + 1} cells of {self.statistic.describe()} cut at {ts}"

    def to_json(self):
        out = {
            "kind": "cells",
            "statistic": self.statistic.describe(),
            "thresholds": [float(t) for t in self.thresholds],
            "direction": "above" if self.above else "at-or-below",
        }
        if self.statistic.kind in (Kind.PROJECTION, Kind.SIGNS):
            out["largest_weights"] = self.statistic.largest_weights()
        return out


def counted(event) -> tuple:
    """The events counting ``event`` takes: a ladder's rungs (:class:`Ladder`), else the event itself."""
    return event.rungs if isinstance(event, Ladder) else (event,)


class EventSeq:
    """A sequence of candidate events built on demand: the search scores hundreds of thousands of candidates
    from their counts and builds an event object only for those it keeps."""

    def __init__(self):
        self._parts: list = []  # (length, index -> event)

    def extend(self, events) -> None:
        if len(events):
            self._parts.append((len(events), events.__getitem__))

    def lazy(self, n: int, make) -> None:
        if n:
            self._parts.append((n, make))

    def __len__(self) -> int:
        return sum(n for n, _ in self._parts)

    def __getitem__(self, i: int):
        i = int(i)
        if i < 0:
            i += len(self)
        for n, make in self._parts:
            if i < n:
                return make(i)
            i -= n
        raise IndexError(i)

    def __iter__(self):
        return (self[i] for i in range(len(self)))


def _bit_candidates(stat: Statistic, xa: np.ndarray, xb: np.ndarray, mantissa: int = 52):
    """BitWindow events for every k of :func:`bit_counts` and every window between two cuts (0, ±2^j for
    |j| ≤ 16, ±∞) that holds outputs, at least k trailing zeros and fewer than k, with their selection counts: (n,
    index -> event, counts a, counts b).  The fewer-than windows are each a window's count less its at-least count:
    no further pass over the draws.
    ``xa``, ``xb``: the statistic's values on each side in their own format, sorted (a window is a run of them),
    read at ``mantissa`` bits (:func:`float_width`)."""
    counts = list(bit_counts(mantissa))
    lo_all = min(xa.min(), xb.min())
    hi_all = max(xa.max(), xb.max())
    inner = _BIT_CUTS[(_BIT_CUTS > lo_all) & (_BIT_CUTS <= hi_all)]
    cuts = np.concatenate([[-np.inf], inner, [np.inf]])
    m = cuts.size - 1  # cells [cuts[i], cuts[i+1])
    width = mantissa + 1

    def below_cuts(x):
        """(cut, k) → #{values below the cut with >= k trailing zero bits}, for every cut and searched k: from one
        histogram of (cell, trailing zeros), the cells being runs of the sorted values."""
        p = np.searchsorted(x, cuts, side="left")
        cell = np.repeat(np.arange(m), np.diff(p))
        tz = trailing_zero_bits(x[p[0] : p[-1]], mantissa)
        hist = np.bincount(cell * width + tz, minlength=m * width).reshape(m, width)
        at_least = hist[:, ::-1].cumsum(axis=1)[:, ::-1]  # [cell, t] = #{trailing zeros >= t}
        per_cell = at_least[:, [0, *counts]]  # (t = 0: every value in the cell)
        return np.concatenate([np.zeros((1, len(counts) + 1), dtype=np.int64), per_cell.cumsum(axis=0)])

    ca, cb = below_cuts(xa), below_cuts(xb)
    i, j = np.triu_indices(m + 1, 1)  # windows [cuts[i], cuts[j])
    all_a, all_b = ca[j, 0] - ca[i, 0], cb[j, 0] - cb[i, 0]
    ks, fewer, lows, highs, ka, kb = [], [], [], [], [], []
    for c, k in enumerate(counts, start=1):
        wa, wb = ca[j, c] - ca[i, c], cb[j, c] - cb[i, c]
        for below, (na, nb) in ((False, (wa, wb)), (True, (all_a - wa, all_b - wb))):
            keep = (na + nb) > 0
            ks.append(np.full(keep.sum(), k))
            fewer.append(np.full(keep.sum(), below))
            lows.append(cuts[i[keep]])
            highs.append(cuts[j[keep]])
            ka.append(na[keep])
            kb.append(nb[keep])
    ks, fewer, lows, highs = (np.concatenate(v) for v in (ks, fewer, lows, highs))
    make = lambda n: BitWindow(stat, int(ks[n]), float(lows[n]), float(highs[n]), mantissa, bool(fewer[n]))  # noqa: E731
    return ks.size, make, np.concatenate(ka), np.concatenate(kb)


def user_statistic(event) -> Statistic | None:
    """The user's event (returns booleans) or statistic (returns numbers) as a :class:`Statistic`, or None."""
    if event is None:
        return None
    return Statistic("user", fn=event, fn_name=getattr(event, "__name__", "event"))


def statistics_for(
    a: np.ndarray, b: np.ndarray, whitened_work: int = WHITENED_WORK, pooled: Pooled | None = None
) -> list[Statistic]:
    """Statistics worth searching for outputs shaped like the selection samples ``a`` (x side), ``b`` (x′); the
    whitened projection's covariance read within ``whitened_work`` multiply-adds, or the one ``pooled`` over a
    screening round's pairs (:func:`~.whitening.whitened`)."""
    if a.ndim == 1:
        return [Statistic("output")]
    d = int(np.prod(a.shape[1:]))
    if d == 1:
        return [Statistic("coord", 0)]
    stats = []
    ra, rb = _rows(a), _rows(b)
    if a.dtype.kind in "biuf":
        centre = centre_of(ra) or centre_of(rb)  # (large numbers: read as their differences from one draw's)
        if centre:
            ca, cb = centred(ra, centre), centred(rb, centre)
            diff = cb.mean(axis=0) - ca.mean(axis=0)
        else:  # (the means of the rows as doubles, without a copy of them: the same sums, in the same order)
            ca, cb = centred(ra[:SHUFFLED_DRAWS], centre), centred(rb[:SHUFFLED_DRAWS], centre)
            diff = rb.mean(axis=0, dtype=np.float64) - ra.mean(axis=0, dtype=np.float64)
        changed = np.argsort(-np.abs(diff))
        top = changed[: COORDINATES - STANDARDISED]  # (the most changed; the standardised beside them)
        stats += [Statistic("coord", int(i)) for i in top]
        stats += [Statistic("coord", int(i)) for i in _standardised(ca, cb, top)]
        signs = _signs(ra, rb, centre)
        if signs is not None:
            stats.append(signs)
        norm = float(np.linalg.norm(diff))
        if norm > 0 and _beyond_shuffles(ca, cb):
            stats.append(Statistic("projection", weights=tuple((diff / norm).tolist()), centre=centre))
            weights = whitened(ca, cb, diff, whitened_work, pooled) if a.dtype.kind == "f" else None
            if weights is not None:
                stats.append(Statistic("projection", weights=weights, centre=centre))
    else:
        stats += [Statistic("coord", i) for i in range(min(d, 16))]
    # the first 20,000 rows of each side pooled, and their first 2,048 before (a prefix with too many distinct rows
    # already decides, cheaply: the whole can only have more)
    ha, hb = ra[:20000], rb[:20000]
    head = (ha[:2048], hb[: max(0, 2048 - ha.shape[0])])
    if all(categorical(_distinct_rows(*part), sum(p.shape[0] for p in part)) for part in (head, (ha, hb))):
        stats.append(Statistic("row"))
    return stats


def statistics_held(n: int, d: int, whitened_work: int = WHITENED_WORK) -> float:
    """The bytes the selection's reading of draws of ``n`` rows a side of ``d`` values holds beside the draws
    themselves, at most: the whitened projection's covariance (:func:`~.whitening.covariance_held`), the sign
    statistic's copies of its chosen coordinates (each side's and their deviations, on the rows :func:`_signs`
    reads) and a group of coordinates' columns a side (of :data:`COORDINATES` at most: :data:`COLUMN_VALUES`,
    :func:`coordinate_values`) — one after the other, so the largest of them.  The plan's memory model counts it
    (:func:`~..sampling.held_bytes`)."""
    if d < 2:
        return 0.0
    signs = 4.0 * 8 * min(n, max(256, min(SIGN_ROWS, SIGN_VALUES // d))) * d
    columns = 2.0 * 8 * min(n * min(d, COORDINATES), max(COLUMN_VALUES, n))
    return max(covariance_held(n, d, whitened_work), signs, columns)


#: the coordinates read as statistics of their own, at most: those whose means differ most, and the
#: :data:`STANDARDISED` beside them
COORDINATES = 24


#: the rows a sign statistic's cuts and weights are read from, at most — and at most SIGN_VALUES values a side in all
#: (wide outputs: a released Gram matrix a step, 15,552 numbers a draw, read on 2,157 rows, 270 MB a side as floats)
SIGN_ROWS = 20_000
SIGN_VALUES = 1 << 25
#: a coordinate enters a sign statistic where its mean difference is this many standard errors or more
SIGN_T = 3.0


def _signs(ra: np.ndarray, rb: np.ndarray, centre: tuple = ()) -> Statistic | None:
    """The sign statistic Σ_i w_i·sign(o_i − c_i) over the coordinates whose means differ by :data:`SIGN_T` standard
    errors or more (None where fewer than two do), read on at most :data:`SIGN_ROWS` rows and :data:`SIGN_VALUES`
    values a side: c_i halfway between the two sides' medians, w_i the mean
    difference over the coordinate's mean absolute deviation.  For independent Laplace noise on each coordinate —
    a vector of noisy counts, a user's message — the privacy loss is Σ_i (|o_i − x_i| − |o_i − x'_i|)/b_i, which is
    ±(x'_i − x_i)/b_i outside the interval between the two centres: this sum of signs, not a linear projection,
    whose heavy-tailed noise spreads a quiet shift over many coordinates.  Large numbers are read as their differences
    from ``centre`` (:func:`centre_of`; the cuts are then from it too), where as doubles their means would round
    away a shift of a unit.  A search choice: events on it are certified on fresh draws."""
    rows = max(256, min(SIGN_ROWS, SIGN_VALUES // max(ra.shape[1], 1)))
    a, b = ra[:rows], rb[:rows]
    if a.shape[0] < 8 or b.shape[0] < 8 or a.shape[1] < 2:
        return None
    step = max(1, _KEY_BLOCK // a.shape[0])  # (a block of columns at a time: its temporaries are a block's)
    diff, t = np.empty(a.shape[1]), np.empty(a.shape[1])
    for j in range(0, a.shape[1], step):
        part = centre[j : j + step]
        pa, pb = centred(a[:, j : j + step], part), centred(b[:, j : j + step], part)
        if not (np.isfinite(pa).all() and np.isfinite(pb).all()):
            return None
        d = diff[j : j + step] = pb.mean(axis=0) - pa.mean(axis=0)
        err = np.sqrt(pa.var(axis=0) / pa.shape[0] + pb.var(axis=0) / pb.shape[0])
        with np.errstate(divide="ignore", invalid="ignore"):
            t[j : j + step] = np.where(err > 0, np.abs(d) / err, 0.0)
    chosen = np.flatnonzero(t >= SIGN_T)
    if chosen.size < 2:
        return None
    at = tuple(centre[i] for i in chosen) if centre else ()
    ca, cb = centred(a[:, chosen], at), centred(b[:, chosen], at)  # (the medians of the chosen coordinates only)
    ma, mb = np.median(ca, axis=0), np.median(cb, axis=0)
    mad = (np.abs(ca - ma).mean(axis=0) + np.abs(cb - mb).mean(axis=0)) / 2
    w, cuts = np.zeros(a.shape[1]), np.zeros(a.shape[1])
    w[chosen] = np.where(mad > 0, diff[chosen] / np.where(mad > 0, mad, 1.0), 0.0)
    cuts[chosen] = (ma + mb) / 2  # (elsewhere the weight is 0: the cut is never read)
    if np.count_nonzero(w) < 2:
        return None
    w = w / np.abs(w).max()
    return Statistic("signs", weights=tuple(w.tolist()), cuts=tuple(cuts.tolist()), centre=centre)


#: values a block of :func:`_sign_sums` reads at a time (its temporaries stay in the cache)
_SIGN_BLOCK = 1 << 16


def _sign_sums(rows: np.ndarray, weights: tuple, cuts: tuple, centre: tuple) -> np.ndarray:
    """Σ_i w_i·sign(o_i − c_i) of each row (a sign statistic's value, :func:`_signs`), over the coordinates of nonzero
    weight in increasing order, term by term: a function of the row alone.  (A matrix product's sums round by where
    a row falls in its block: on 10⁶ of Rappor's draws, 3 of the 64 sign patterns of its 6 weighted coordinates came
    out as two doubles each, which the selection read as values of their own; and it read every coordinate —
    cache-sized blocks of the few that count took half the time, measured on 10⁶ rows of 20.)  A coordinate of zero
    weight is never read: a NaN there changes nothing."""
    w = np.asarray(weights, dtype=float)
    at = np.flatnonzero(w)
    w, c = w[at], np.asarray(cuts, dtype=float)[at]
    centre = tuple(centre[i] for i in at) if centre else ()
    if not at.size:
        return np.zeros(rows.shape[0])
    out = np.empty(rows.shape[0])
    step = max(64, _SIGN_BLOCK // at.size)
    for s in range(0, rows.shape[0], step):
        t = np.sign(centred(rows[s : s + step, at], centre) - c)
        acc = out[s : s + step]
        np.multiply(t[:, 0], w[0], out=acc)
        for j in range(1, at.size):
            acc += t[:, j] * w[j]
    return out


def _by_rows(rows: np.ndarray, f) -> np.ndarray:
    """``f(rows)`` — one number a row — a block of :data:`_KEY_BLOCK` values' rows at a time where ``rows`` hold
    more: the temporaries ``f`` makes (a float copy, the signs) are a block's, not the rows' own size again."""
    step = max(1, _KEY_BLOCK // max(rows.shape[1], 1))
    if rows.shape[0] <= step:
        return f(rows)
    return np.concatenate([f(rows[s : s + step]) for s in range(0, rows.shape[0], step)])


def column_var(x: np.ndarray) -> np.ndarray:
    """``x.var(axis=0)`` — the same values, bit for bit — a block of :data:`_KEY_BLOCK` values' columns at a time:
    its temporaries are a block's, not a copy of ``x`` (a wide release's selection draws, a gigabyte a side).  No
    block is one column alone (numpy sums a lone column in another order)."""
    step = max(2, _KEY_BLOCK // max(x.shape[0], 1))
    if x.shape[1] <= step:
        return x.var(axis=0)
    starts = list(range(0, x.shape[1], step))
    if x.shape[1] - starts[-1] == 1:
        starts.pop()  # (the last column joins the block before it)
    ends = starts[1:] + [x.shape[1]]
    return np.concatenate([x[:, j:k].var(axis=0) for j, k in zip(starts, ends)])


#: the coordinates offered beyond the 16 whose means differ most: those whose difference is largest against its noise
STANDARDISED = 8


def _standardised(ca: np.ndarray, cb: np.ndarray, taken: np.ndarray) -> list:
    """Up to :data:`STANDARDISED` coordinates not in ``taken`` whose mean difference is largest against its standard
    error (on the rows ``ca``, ``cb``; a difference where neither side varies first): a raw count among noisy ones
    moves its mean by one where the noise moves theirs by more, and decides everything.  A search choice: events
    on them are certified on fresh draws."""
    if ca.shape[1] <= len(taken) or ca.shape[0] < 2 or cb.shape[0] < 2:
        return []
    diff = np.abs(cb.mean(axis=0) - ca.mean(axis=0))
    err = np.sqrt(column_var(ca) / ca.shape[0] + column_var(cb) / cb.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(err > 0, diff / err, np.where(diff > 0, np.inf, 0.0))
    t[taken] = 0.0
    best = np.argsort(-t, kind="stable")[:STANDARDISED]
    return [int(i) for i in best if t[i] > 0]


#: the label shuffles against which the mean-difference projection is tested (:func:`_beyond_shuffles`): a
#: permutation test at level 1 / (SHUFFLES + 1) = 5 %
SHUFFLES = 19
#: the draws per side the shuffles read at most (the first ones of each side)
SHUFFLED_DRAWS = 20_000


def _beyond_shuffles(ca: np.ndarray, cb: np.ndarray) -> bool:
    """Whether the sides' mean difference is longer than it is on every one of :data:`SHUFFLES` shufflings of the
    same draws' side labels — a permutation test at level 5 % that the sides' means differ at all (exact where
    nothing differs: the draws are then exchangeable).  Where the means do not differ, the projection on their
    difference is fitted to the noise of the draws that then score it (its weights follow the noise by about
    √(d/n)) and can outrank an event that certifies more; it is offered only when its direction is more than
    noise.  ``ca``, ``cb``: each side's rows as floats; the first :data:`SHUFFLED_DRAWS` of each are read.  The
    shuffles are fixed (the search is reproducible); no certified bound depends on them."""
    ca, cb = ca[:SHUFFLED_DRAWS], cb[:SHUFFLED_DRAWS]
    na, nb = ca.shape[0], cb.shape[0]
    if na < 2 or nb < 2:
        return True
    rng = np.random.default_rng(0x5EED)
    weights = np.full((SHUFFLES + 1, na + nb), -1.0 / na)
    weights[0, na:] = 1.0 / nb  # the sides as drawn, then the shuffles
    for k in range(1, SHUFFLES + 1):
        weights[k, rng.permutation(na + nb)[:nb]] = 1.0 / nb
    lengths = np.linalg.norm(weights[:, :na] @ ca + weights[:, na:] @ cb, axis=1)
    return bool(lengths[0] > lengths[1:].max())


#: the weights of the random projection that tells rows apart in :func:`_distinct_rows` (fixed: the search is
#: reproducible)
_ROW_WEIGHTS = np.random.default_rng(0x5EED).random(1 << 12) + 0.5


def _distinct_rows(*parts: np.ndarray) -> int:
    """How many distinct rows the ``parts`` (2-D, draws × coordinates) hold together (a search choice: whether each
    distinct row can be a category), read a block of rows at a time — never a copy of them all (a policy's releases,
    4,000 rows of 31,104 values: pooled and converted, 2 GB more).  Rows of integers (action sequences, their
    summaries) are told apart by one random projection, a sort of n numbers instead of n rows of d — 40,000 sequences
    of 708 rounds: 0.08 s instead of 1 s; two distinct rows of small integers project to the same double with a
    chance of the order of 1e-13.  Other rows by a 64-bit hash of their bytes (−0.0 read as 0.0, a NaN as itself;
    each word mixed, then weighted by its position), two distinct rows sharing one with a chance of the order of
    n²/2⁶⁴."""
    parts = [p for p in parts if p.shape[0]]
    if not parts:
        return 0
    if any(p.dtype.kind not in "biuf" for p in parts):
        return len(np.unique(np.concatenate(parts), axis=0))
    return len(np.unique(np.concatenate([_row_keys(p) for p in parts])))


#: values a block of :func:`_row_keys` reads at a time
_KEY_BLOCK = 1 << 22


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One number a row, equal for equal rows (:func:`_distinct_rows`)."""
    n, d = rows.shape
    step = max(1, _KEY_BLOCK // max(d, 1))
    if rows.dtype.kind in "iu":
        weights = np.tile(_ROW_WEIGHTS, -(-d // _ROW_WEIGHTS.size))[:d]
        return _by_rows(rows, lambda r: r.astype(float) @ weights)
    keys = np.empty(n, dtype=np.uint64)
    for s in range(0, n, step):
        block = rows[s : s + step]
        block = np.ascontiguousarray(block + 0.0 if block.dtype.kind == "f" else block)
        raw = block.view(np.uint8).reshape(block.shape[0], -1)
        width = raw.shape[1]
        if width % 8:
            raw = np.pad(raw, ((0, 0), (0, 8 - width % 8)))
        words = _mixed(raw.view(np.uint64))
        keys[s : s + step] = (words * np.resize(_ROW_MULTIPLIERS, words.shape[1])).sum(axis=1, dtype=np.uint64)
    return keys


def _mixed(w: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser of each 64-bit word (modulo 2⁶⁴): every bit of a word reaches the low bits — a double's
    information is in its high ones, which a product alone would carry out of the word."""
    w = w ^ (w >> np.uint64(30))
    w = w * np.uint64(0xBF58476D1CE4E5B9)
    w = w ^ (w >> np.uint64(27))
    w = w * np.uint64(0x94D049BB133111EB)
    return w ^ (w >> np.uint64(31))


#: odd 64-bit multipliers of the hash that groups whole rows in :func:`_unique_rows` (fixed: reproducible)
_ROW_MULTIPLIERS = np.random.default_rng(0x5EED).integers(0, 2**63, size=1 << 12, dtype=np.uint64) * np.uint64(2) + 1
#: rows hashed (and checked) at a time in :func:`_unique_rows`
_ROW_BLOCK = 8192


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, return_inverse=True)`` for whole rows (a void dtype: each an action sequence's bytes), the
    same values in the same order and the same inverse — found by grouping a 64-bit hash of each row's words and
    checking that every row equals its group's first (a sort of n numbers, not of n rows: 200,000 sequences of 400
    rounds in 0.2 s instead of 4 s); where two different rows share a hash, by ``np.unique`` itself."""
    n, width = rows.size, rows.dtype.itemsize
    words = -(-width // 8)
    mult = np.resize(_ROW_MULTIPLIERS, words)
    as_bytes = rows.view(np.uint8).reshape(n, width)

    def as_words(b: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.pad(b, ((0, 0), (0, 8 * words - width))) if width % 8 else b).view(np.uint64)

    hashes = np.empty(n, dtype=np.uint64)
    for s in range(0, n, _ROW_BLOCK):  # (multiplication and sums wrap modulo 2⁶⁴)
        hashes[s : s + _ROW_BLOCK] = (as_words(as_bytes[s : s + _ROW_BLOCK]) * mult).sum(axis=1, dtype=np.uint64)
    _, first, group = np.unique(hashes, return_index=True, return_inverse=True)
    group = group.ravel()
    heads = as_words(as_bytes[first])
    for s in range(0, n, _ROW_BLOCK):
        if not np.array_equal(as_words(as_bytes[s : s + _ROW_BLOCK]), heads[group[s : s + _ROW_BLOCK]]):
            values, inverse = np.unique(rows, return_inverse=True)
            return values, inverse.ravel()
    order = np.argsort(rows[first], kind="stable")  # (the groups in the rows' own order, as np.unique sorts them)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rows[first][order], rank[group]


#: values of each side :func:`coordinate_values` copies at once (64 MB of doubles): as many coordinates' columns
COLUMN_VALUES = 1 << 23
#: values a block of :func:`_columns` copies at a time (its reads and writes stay in the cache)
_COLUMN_BLOCK = 1 << 15


def _columns(rows: np.ndarray, indices: list) -> np.ndarray:
    """``rows[:, indices].T``, contiguous — one column per row — copied a block of rows at a time: on 10⁶ rows of 20
    doubles, 80 ms for every column in groups of 8 against 146 ms for a strided copy of each (measured; a strided
    copy reads a cache line for every value)."""
    out = np.empty((len(indices), rows.shape[0]), dtype=rows.dtype)
    step = max(64, _COLUMN_BLOCK // len(indices))
    for s in range(0, rows.shape[0], step):
        out[:, s : s + step] = rows[s : s + step, indices].T
    return out


def coordinate_values(stats: list, a: np.ndarray, b: np.ndarray):
    """(position in ``stats``, (values on ``a``, values on ``b``)) of each coordinate statistic of ``stats`` — the
    columns of :data:`COLUMN_VALUES` values a side at a time, each group's made contiguous at once
    (:func:`_columns`) — for :func:`candidates_for` to read; nothing where fewer than two coordinates are asked for."""
    at = [i for i, st in enumerate(stats) if st.kind == Kind.COORD]
    if len(at) < 2:
        return
    ra, rb = _rows(a), _rows(b)
    per = max(1, COLUMN_VALUES // max(ra.shape[0], rb.shape[0], 1))
    for g in range(0, len(at), per):
        group = at[g : g + per]
        indices = [stats[i].index for i in group]
        ca, cb = _columns(ra, indices), _columns(rb, indices)
        for k, i in enumerate(group):
            yield i, (ca[k], cb[k])


def _grid_indices(n: int) -> np.ndarray:
    """Positions in a sorted pooled sample of size n: a uniform quantile grid plus log-spaced tails."""
    lin = np.linspace(0, n - 1, min(_N_QUANTILES, n)).round()
    tail = np.unique(np.logspace(0, np.log10(max(n / 20, 1.0)), _N_TAIL).round()) - 1
    return np.unique(np.concatenate([lin, tail, n - 1 - tail]).clip(0, n - 1)).astype(np.int64)


#: integer-valued statistics whose values span at most this many integers are counted by value rather than sorted
_COUNTED_RANGE = 1 << 16


def whole_numbers(s: np.ndarray) -> np.ndarray | None:
    """The values as int64 when they are all integers (booleans, integers, whole-number doubles), else None."""
    if s.dtype.kind in "biu":
        if s.dtype.kind == "u" and s.size and s.max() > np.iinfo(np.int64).max:
            return None  # (it would wrap)
        return s.astype(np.int64, copy=False)
    if s.dtype.kind != "f":
        return None
    with np.errstate(invalid="ignore"):  # NaN and ±inf convert to garbage, which then differs from them
        ints = s.astype(np.int64)
    return ints if (ints == s).all() else None


def _value_counts(sa: np.ndarray, sb: np.ndarray):
    """(the distinct values in increasing order, their counts in ``sa``, in ``sb``, and each draw's value as its
    offset from the least one on either side, ``sa``'s then ``sb``'s, with the offsets of the values — the
    positions the counts were read at) for a statistic whose values are all integers of small range (booleans,
    integers, or floats that are whole numbers), by counting (no sort); None otherwise."""
    if sb.dtype != sa.dtype or not sa.size or not sb.size:
        return None
    ia = whole_numbers(sa)
    ib = None if ia is None else whole_numbers(sb)
    if ib is None:
        return None
    lo = min(int(ia.min()), int(ib.min()))
    span = max(int(ia.max()), int(ib.max())) - lo + 1
    if span > _COUNTED_RANGE:
        return None
    if lo:
        ia, ib = ia - lo, ib - lo
    na = np.bincount(ia, minlength=span)
    nb = np.bincount(ib, minlength=span)
    present = np.flatnonzero(na + nb)
    return (present + lo).astype(sa.dtype), na[present], nb[present], ia, ib, present


class _Sample:
    """One statistic's values on the two selection samples, with what several families read of them, computed
    once when first asked for."""

    def __init__(self, stat: Statistic, a: np.ndarray, b: np.ndarray, values: tuple | None = None):
        # (contiguous: a coordinate of a row-major output is a strided view, read by every family — measured, one
        # strided pass over 10⁶ draws of 20 doubles costs 5.6 ms, a contiguous one under 1 ms)
        sa, sb = (stat(a), stat(b)) if values is None else values
        self.stat, self.sa, self.sb = stat, np.ascontiguousarray(sa), np.ascontiguousarray(sb)
        self.numeric = self.sa.dtype.kind in "biuf"

    @cached_property
    def _counts(self):
        """:func:`_value_counts` of the two sides; never for a whole row."""
        return _value_counts(self.sa, self.sb) if self.stat.kind != Kind.ROW else None

    @property
    def counted(self):
        """(values, counts on a, counts on b) when every value is an integer of small range (:func:`_value_counts`),
        else None."""
        return None if self._counts is None else self._counts[:3]

    @cached_property
    def sorted_reals(self):
        """Both sides' values as sorted doubles, and their pooled sort (the thresholds' grid)."""
        xa, xb = np.sort(self.sa.astype(float)), np.sort(self.sb.astype(float))
        return xa, xb, np.sort(np.concatenate([xa, xb]), kind="stable")  # (merges the two sorted runs)

    @cached_property
    def few(self) -> bool:
        """Whether the statistic is categorical on the selection sample (:func:`categorical`)."""
        draws = self.sa.size + self.sb.size
        if self.numeric and self.stat.kind != Kind.ROW:
            if self.counted is not None:
                return categorical(self.counted[0].size, draws)
            pooled = self.sorted_reals[2]
            with np.errstate(invalid="ignore"):  # inf − inf between equal infinite outputs: not a new value
                return categorical(np.count_nonzero(np.nan_to_num(np.diff(pooled), nan=0.0)) + 1, draws)
        # non-numeric (or whole rows): a prefix decides cheaply when there are clearly too many values
        prefix = np.concatenate([self.sa[:4096], self.sb[:4096]])
        return categorical(len(np.unique(prefix)), prefix.size)


@dataclass(frozen=True)
class Family:
    """A family of candidate events over one statistic: ``applies(sample)`` says when it is searched, and
    ``candidates(sample)`` gives (how many, index -> event, counts on a, counts on b[, the draws per side each count is
    of, when not all]) — the events built on demand from their selection counts.  An ``exclusive`` family, when it
    applies, is the only one searched."""

    name: str
    applies: Callable
    candidates: Callable
    exclusive: bool = False


def _user_event(s: _Sample):
    return 1, lambda n: UserEvent(s.stat), np.array([s.sa.sum()]), np.array([s.sb.sum()])


def _thresholds(s: _Sample):
    """{s > t} (candidate 2i) and {s <= t} (2i + 1) at the thresholds of a quantile grid with log-spaced tails."""
    sa, sb = s.sa, s.sb
    if s.counted is not None:  # the same thresholds and counts as below, from the counts by value
        values, na, nb = s.counted
        ends = np.cumsum(na + nb)  # the pooled sorted sample holds values[i] at positions < ends[i]
        grid = _grid_indices(int(ends[-1]))
        at = np.unique(np.searchsorted(ends, grid, side="right"))
        ts = values[at].astype(float)
        ca = sa.size - np.cumsum(na)[at]  # #{s > t}
        cb = sb.size - np.cumsum(nb)[at]
    else:
        xa, xb, pooled = s.sorted_reals
        ts = np.unique(pooled[_grid_indices(pooled.size)])
        ca = xa.size - np.searchsorted(xa, ts, side="right")  # #{s > t}
        cb = xb.size - np.searchsorted(xb, ts, side="right")
    make = lambda n: Threshold(s.stat, float(ts[n // 2]), n % 2 == 0)  # noqa: E731
    return 2 * ts.size, make, np.stack([ca, sa.size - ca], axis=1).ravel(), np.stack([cb, sb.size - cb], axis=1).ravel()


def _bit_windows(s: _Sample):
    # the windows need the sorted sample in its own format (the doubles of the thresholds' sort where they are it)
    if s.counted is not None or s.sa.dtype.itemsize > 8:
        xa, xb = np.sort(s.sa), np.sort(s.sb)
    else:
        xa, xb, _ = s.sorted_reals
    return _bit_candidates(s.stat, xa, xb, float_width(s.sa, s.sb))


def _sets(s: _Sample):
    """Atoms {s = v}, counted on every draw; then likelihood-ratio sets both ways — the values taken in the order of
    their smoothed ratio as estimated on the first half of each side's draws, each set counted on the other half
    only, and said so (the fifth item: the draws per side each count is of).  A set ordered on the draws it is
    counted on looks better there than it is: the values where x happened to lead are put first, and a set of rare
    values (action sequences seen a few times each) can outscore an event that certifies far more on fresh draws;
    counted on draws its order did not see, its counts are honest, if fewer."""
    if s._counts is not None:  # each draw's value by its offset (as counted), its counts read at the values' offsets
        values, na, nb, ia, ib, at = s._counts
        span = int(at[-1]) + 1
    else:
        pooled = np.concatenate([s.sa, s.sb])
        values, inv = _unique_rows(pooled) if pooled.dtype.kind == "V" else np.unique(pooled, return_inverse=True)
        inv = inv.ravel()
        ia, ib = inv[: s.sa.size], inv[s.sa.size :]
        na, nb = np.bincount(ia, minlength=len(values)), np.bincount(ib, minlength=len(values))
        span, at = len(values), slice(None)
    if not categorical(len(values), s.sa.size + s.sb.size):
        return 0, None, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    m, h = len(values), min(s.sa.size, s.sb.size) // 2

    def halves(i):  # each value's counts among the first h draws and the rest
        return np.bincount(i[:h], minlength=span)[at], np.bincount(i[h:], minlength=span)[at]

    (order_a, held_a), (order_b, held_b) = halves(ia), halves(ib)
    vals = [v.tobytes() for v in values] if s.stat.kind == Kind.ROW else values.tolist()
    ka, kb = [na], [nb]
    ratio = (order_a + 0.5) / (h + 1.0) / ((order_b + 0.5) / (h + 1.0))
    orders = (np.argsort(-ratio, kind="stable"), np.argsort(ratio, kind="stable"))
    for order in orders:  # (from two values on: a set of one is an atom, counted on every draw)
        ka.append(np.cumsum(held_a[order])[1:-1])
        kb.append(np.cumsum(held_b[order])[1:-1])
    n = m + 2 * (m - 2) if m > 2 else m

    def make(i: int):  # the atoms, then the sets of the first j ≥ 2 values of each order (built when kept)
        if i < m:
            return InSet(s.stat, (vals[i],))
        d, j = divmod(i - m, m - 2)
        return InSet(s.stat, tuple(sorted(vals[v] for v in orders[d][: j + 2])))

    drawn = np.full(n, s.sa.size - h, dtype=np.int64)
    drawn[:m] = s.sa.size  # the atoms' counts are of every draw
    return n, make, np.concatenate(ka), np.concatenate(kb), drawn


#: the candidate families, in the order their candidates are listed (the selection's ties go to the first).
#: Mironov's trailing-zeros attack (:mod:`.attacks`) is among the bit windows: each of its events is one window.
FAMILIES: tuple[Family, ...] = (
    Family("user event", lambda s: s.stat.kind == Kind.USER and s.sa.dtype == bool, _user_event, exclusive=True),
    Family("thresholds", lambda s: s.numeric and s.stat.kind != Kind.ROW, _thresholds),
    Family(
        "bit windows",
        lambda s: s.stat.kind in (Kind.OUTPUT, Kind.COORD) and s.sa.dtype.kind == "f" and s.sa.size and not s.few,
        _bit_windows,
    ),
    Family("sets", lambda s: s.few, _sets),
)


def candidates_for(stat: Statistic, a: np.ndarray, b: np.ndarray, values: tuple | None = None):
    """Candidate events for one statistic, with their counts in the selection samples: every family of
    :data:`FAMILIES` that applies, in order; ``values``: the statistic's values on ``a`` and ``b`` where the caller
    has read them (:func:`coordinate_values`).

    Returns (events, counts_a, counts_b, drawn): an :class:`EventSeq`, the counts of each event among the draws of
    ``a`` and of ``b``, and the draws per side each count is of — every draw of ``a``, but for the events a family
    fitted on part of the draws and counted on the rest (:func:`_sets`).
    """
    sample = _Sample(stat, a, b, values)
    events, ka, kb, drawn = EventSeq(), [], [], []
    for family in FAMILIES:
        if not family.applies(sample):
            continue
        n, make, ca, cb, *of = family.candidates(sample)
        events.lazy(n, make)
        ka.append(ca)
        kb.append(cb)
        drawn.append(of[0] if of else np.full(len(ca), sample.sa.size, dtype=np.int64))
        if family.exclusive:
            break
    cat = lambda parts: np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)  # noqa: E731
    return events, cat(ka), cat(kb), cat(drawn)
