"""Learned events: a classifier that tells outputs on x from outputs on x′, thresholded.

The sampled engine's fixed families (thresholds, atoms, likelihood-ratio sets, bit windows, coordinates, one
projection) are complete for scalar outputs with a monotone likelihood ratio and for outputs with few distinct
values, but not for vectors and lists that mix symbols and numbers (sparse-vector variants releasing noisy
values beside ⊥/⊤, noisy max releasing the gap), nor for the bit patterns by which floating-point noise gives its
input away — which doubles can come out near x depends on x, in ways no window of trailing zeros describes
(Mironov, "On Significance of the Least Significant Bits for Differential Privacy", CCS 2012; Lokna, Paradis,
Dimitrov and Vechev, "Group and Attack: Auditing Differential Privacy", CCS 2023, who learn them from the bits).
Following DP-Sniper (Bichsel, Steffen, Bogunovic and Vechev, "DP-Sniper: Black-Box Discovery of Differential
Privacy Violations using Classifiers", IEEE S&P 2021, §IV), a classifier is trained to tell the two sides apart
and its score becomes one more real statistic: the events are {score > t} and {score ≤ t}.  By default boosted
trees run on every real (float) output and logistic regression on vectors and symbols when no fixed event
refutes; the best learned event is certified beside the best fixed one (:mod:`.sampled`).

Soundness does not depend on the classifier.  It is trained on the first part of the *selection* sample
(:func:`n_train`); its threshold events are scored on the held-out rest; the chosen event is certified on fresh
draws exactly like any other (a fitted model is a fixed post-processing, shipped to the workers with the event).

Features of one draw (:class:`Features`):

* numeric outputs: each coordinate's value (squashed by a logarithm beyond ±1e12); for floats, the trailing-zero
  count of the mantissa, the binary exponent, the four lowest mantissa bits and the parity of the integer part (the
  bits Mironov's attack reads), the mantissa read at the outputs' own width (:func:`~.events.float_width`: float16,
  float32, float64, the long double, or a narrower format whose numbers a float64 array holds) — but not for
  outputs on a grid (:func:`~.events.grid_exponent`: the built-in exact samplers'), whose bits are their values'
  and show no float artefact: there the values alone, and the report says so; for outputs with few distinct
  values, one-hot indicators per coordinate and the count of each value;
* symbolic outputs (the string labels :func:`privcheck.core.protocols.draw` makes of lists mixing symbols and
  numbers, ragged or not): per position up to :data:`MAX_POSITIONS`, the number it holds (and its bits) or
  one-hot over the most frequent symbols; the length; the count of each symbol; the sum of the numbers.

Two models (scikit-learn: its L-BFGS logistic regression and its histogram gradient-boosted trees are
well-tested, deterministic for a given ``random_state`` and fast on 10⁵ rows — better than code we would
write): ``logistic`` (standardised features, L2) and ``trees`` (:data:`TREE_ROUNDS` boosting rounds of
:data:`TREE_LEAVES` leaves at learning rate 0.3 — as strong as 40 rounds of 15 leaves on every float target of
``benchmarks/delta_siege.py`` at 10⁶ draws, and half the scoring), fitted on one thread (the fit does not depend on
it, and audits on workers or beside other processes do not oversubscribe the cores).  The budget: at most
:data:`MAX_TRAIN` training draws per side.  A fitted model scores every draw the audit certifies, so its score is
computed here: the logistic score from its weights, the trees' by :class:`Forest`, the fitted trees as flat
arrays walked by one compiled loop — the same doubles as scikit-learn's ``decision_function``, 2.6 times faster
than it on one thread (``benchmarks/learned_scoring.py``: 0.30 s against 0.78 s for 10⁶ draws) — or, when every
split reads one feature, looked up by bisection in the step function they make.  On draws of one feature (a grid
scalar's value) the trees are boosted here, on the feature's cells (:class:`Steps`: the same rounds, leaves and
rate, as strong as scikit-learn's on the band leaks measured in benchmarks/RESULTS.md), and the library is not
imported at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from privcheck.core.jit import njit

from .events import (
    FORMATS,
    Statistic,
    centre_of,
    centred,
    float_width,
    grid_exponent,
    mantissa_field,
    trailing_zero_bits,
    whole_numbers,
)

__all__ = [
    "Features",
    "Forest",
    "Scorer",
    "learned_statistics",
    "off_grid_floats",
    "real_valued",
    "MAX_POSITIONS",
    "MAX_TRAIN",
    "MODELS",
]

#: positions of a symbolic output turned into features; coordinates of a numeric output kept
MAX_POSITIONS = 32
#: rows per side the classifiers are trained on (the budget: the rest of the first half is not used)
MAX_TRAIN = 50_000
#: a numeric output with at most this many distinct values also gets one-hot and count features
FEW_VALUES = 16
#: symbols of a symbolic output kept as one-hot columns (the most frequent ones)
MAX_SYMBOLS = 16
MODELS = ("logistic", "trees")
#: the boosted trees: rounds and leaves per tree
TREE_ROUNDS, TREE_LEAVES = 20, 31
#: the most cells of a one-feature score (:class:`Steps`): the bins scikit-learn's boosted trees cut a feature into
STEP_CELLS = 255
#: a one-feature tree's least draws in a leaf and its learning rate: scikit-learn's ``min_samples_leaf`` and the rate
#: :func:`_model` gives its trees
STEP_LEAF, STEP_RATE = 20, 0.3
#: rows up to which a forest is walked in numpy (:meth:`Forest._walk_levels`) rather than by the compiled loop; and,
#: while that loop has not run in this process, the rows a call may have and the rows all such calls together may
#: have to be walked in numpy instead (its first call loads numba: 0.5–1.1 s measured, where numpy walks 20 trees of
#: 31 leaves over 16,384 rows in 0.07 s and 131,072 in about 0.6 s — so a mechanism audit that ends at its quick
#: stage never loads it, and a process that walks more pays at most about twice the load: :meth:`Forest._walk`)
FEW_ROWS, COLD_ROWS, COLD_BUDGET = 4096, 32_768, 131_072
_cold = [0]  # the rows walked in numpy in this process while the compiled loop was cold, beyond FEW_ROWS a call
_CLIP = 1e12


def _bit_features(v: np.ndarray, mantissa: int = 52) -> list[np.ndarray]:
    """Trailing-zero count, binary exponent, the four lowest mantissa bits, parity of the integer part — the
    mantissa read in the format with ``mantissa`` bits (:func:`~.events.float_width`)."""
    v = np.asarray(v)
    if v.dtype.kind != "f":
        v = v.astype(np.float64)
    safe = np.where(np.isfinite(v), v, 0)
    field = mantissa_field(safe, mantissa)
    cols = [trailing_zero_bits(safe, mantissa).astype(float), np.frexp(safe)[1].astype(float)]
    cols += [((field >> np.uint64(k)) & np.uint64(1)).astype(float) for k in range(4)]
    with np.errstate(invalid="ignore", over="ignore"):
        cols.append(np.where(np.abs(safe) < 2.0**52, np.mod(np.floor(safe), 2), 0).astype(float))
    return cols


def _format(mantissa: int) -> str:
    return FORMATS.get(mantissa, "long double")


def _value(v: np.ndarray) -> np.ndarray:
    """Values as features: as they are within ±10¹²; beyond, squashed by a logarithm (monotone, so a tree's
    thresholds keep their order, and bounded, so a linear model's scale survives), ±∞ beyond every finite value and
    NaN at 0."""
    v = np.asarray(v, dtype=float)
    if v.size and -_CLIP <= v.min() and v.max() <= _CLIP:  # finite and in range (a NaN fails both): as it is
        return v
    with np.errstate(invalid="ignore", divide="ignore"):
        far = np.sign(v) * (_CLIP + np.log1p(np.abs(v) - _CLIP))
    squashed = np.where(np.abs(v) > _CLIP, far, v)
    return np.nan_to_num(squashed, nan=0.0, posinf=_CLIP + 1000.0, neginf=-_CLIP - 1000.0)


def _split_label(label: str) -> list[str]:
    """The top-level items of a label made by ``_symbol``: "('a', 1.5, None)" → ["'a'", "1.5", "None"]."""
    s = label.strip()
    if not (s.startswith("(") and s.endswith(")")):
        return [s]
    items, depth, quote, cur = [], 0, None, []
    for ch in s[1:-1]:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch in "([":
            depth += 1
            cur.append(ch)
        elif ch in ")]":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur or items:
        items.append("".join(cur).strip())
    return [i for i in items if i != ""]


def _number(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


_ABSENT = "\x00"  # a position past the end of a ragged draw


def _token_matrix(outputs: np.ndarray, positions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(items, lengths): each draw's items as a row of strings (:data:`_ABSENT` past its end) and its length.
    A rectangular label array is its own matrix; a ragged one is parsed once per distinct label."""
    n = outputs.shape[0]
    if outputs.ndim > 1:
        m = outputs.reshape(n, -1).astype(str)
        return (m if positions is None else m[:, :positions]), np.full(n, m.shape[1], dtype=float)
    uniq, inv = np.unique(outputs, return_inverse=True)
    parsed = [_split_label(str(u)) for u in uniq]
    width = max(1, max(len(t) for t in parsed)) if positions is None else max(1, positions)
    mat = np.full((len(uniq), width), _ABSENT, dtype=object)
    for i, items in enumerate(parsed):
        mat[i, : min(width, len(items))] = items[:width]
    lengths = np.array([len(t) for t in parsed], dtype=float)
    return mat.astype(str)[inv], lengths[inv]


@dataclass(frozen=True)
class Features:
    """A picklable map from a batch of draws to a float feature matrix (one row per draw)."""

    symbolic: bool
    coords: tuple = ()  # numeric: the flattened coordinates kept
    mantissa: int = 0  # numeric floats: the mantissa width their bit features read (0: no bit features)
    centre: tuple = ()  # numeric: subtracted from the kept coordinates first (:func:`~.events.centre_of`)
    values: tuple = ()  # numeric with few values: the values one-hot encoded
    symbols: tuple = ()  # symbolic: the vocabulary
    positions: int = 0  # symbolic: positions encoded
    grid: int | None = None  # numeric floats on the grid 2^grid·ℤ (:func:`~.events.grid_exponent`): no bit features

    @staticmethod
    def fit(a: np.ndarray, b: np.ndarray) -> "Features":
        """The features for outputs shaped like ``a`` and ``b`` (both sides of the training sample)."""
        if a.dtype.kind == "U":
            items, lengths = _token_matrix(np.concatenate([a[:20000], b[:20000]]))
            values, counts = np.unique(items, return_counts=True)
            symbols = [(-c, str(v)) for v, c in zip(values, counts) if v != _ABSENT and _number(str(v)) is None]
            vocab = tuple(v for _, v in sorted(symbols)[:MAX_SYMBOLS])
            return Features(True, symbols=vocab, positions=int(min(MAX_POSITIONS, lengths.max())))
        raw_a, raw_b = a.reshape(a.shape[0], -1), b.reshape(b.shape[0], -1)
        centre = centre_of(raw_a) or centre_of(raw_b)  # large numbers read as differences from one draw's
        ra, rb = centred(raw_a, centre), centred(raw_b, centre)
        d = ra.shape[1]
        if d > MAX_POSITIONS:  # keep the coordinates whose mean moves most
            coords = tuple(int(i) for i in np.sort(np.argsort(-np.abs(rb.mean(0) - ra.mean(0)))[:MAX_POSITIONS]))
        else:
            coords = tuple(range(d))
        both = np.concatenate([ra[:20000, list(coords)], rb[:20000, list(coords)]])
        vals = np.unique(both)
        few = tuple(vals.tolist()) if vals.size <= FEW_VALUES else ()
        ka, kb = raw_a[:, list(coords)], raw_b[:, list(coords)]
        width = float_width(ka[:20000].ravel(), kb[:20000].ravel())
        grid = None if few or width is None else grid_exponent(ka, kb)
        kept = tuple(centre[i] for i in coords) if centre else ()
        bits = 0 if few or width is None or grid is not None else width
        return Features(False, coords=coords, mantissa=bits, values=few, centre=kept, grid=grid)

    def describe(self) -> str:
        if self.symbolic:
            return "symbols+numbers"
        few = "" if not self.values else "+counts" if len(self.values) <= 2 else "+one-hot"
        bits = "" if not self.mantissa else "+bits" if self.mantissa == 52 else f"+{_format(self.mantissa)} bits"
        grid = "" if self.grid is None else f" on the grid 2^{self.grid}"
        return "values" + bits + few + grid

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self._symbolic(outputs) if self.symbolic else self._numeric(outputs)

    def _numeric(self, outputs):
        raw = outputs.reshape(outputs.shape[0], -1)[:, list(self.coords)]
        r = centred(raw, self.centre)
        blocks = [_value(r)]
        if self.mantissa:
            blocks += [np.stack(_bit_features(raw[:, j], self.mantissa), axis=1) for j in range(r.shape[1])]
        if self.values:
            if len(self.values) > 2:
                hot = r[:, :, None] == np.asarray(self.values)[None, None, :]
                blocks += [hot.reshape(r.shape[0], -1), hot.sum(axis=1)]
            else:  # with two values, the one-hot columns repeat the values themselves: their counts only
                blocks.append(np.stack([(r == v).sum(axis=1) for v in self.values], axis=1))
        return np.concatenate([np.asarray(b, dtype=float) for b in blocks], axis=1)

    def _symbolic(self, outputs):
        items, length = _token_matrix(outputs, self.positions)
        n, p, s = items.shape[0], self.positions, len(self.symbols)
        index = {t: i for i, t in enumerate(self.symbols)}
        num, isnum, present = np.zeros((n, p)), np.zeros((n, p)), np.zeros((n, p))
        hot = np.zeros((n, p, s + 1))  # the last column: a symbol outside the vocabulary
        for j in range(min(p, items.shape[1])):  # each position: its distinct items parsed once
            uniq, inv = np.unique(items[:, j], return_inverse=True)
            parsed = [_number(str(u)) for u in uniq]
            u_num = np.array([0.0 if v is None else v for v in parsed])
            u_isnum = np.array([v is not None for v in parsed], dtype=float)
            u_present = (uniq != _ABSENT).astype(float)
            u_sym = np.array(
                [-1 if (v is not None or u == _ABSENT) else index.get(str(u), s) for u, v in zip(uniq, parsed)]
            )
            num[:, j], isnum[:, j], present[:, j] = u_num[inv], u_isnum[inv], u_present[inv]
            sym = u_sym[inv]
            rows = np.nonzero(sym >= 0)[0]
            hot[rows, j, sym[rows]] = 1.0
        num = _value(num)
        cols = [length, num.sum(axis=1), isnum.sum(axis=1)]
        cols += list(hot.sum(axis=1).T)  # counts of each symbol over the kept positions
        for j in range(p):
            cols += [num[:, j], isnum[:, j], present[:, j]] + list(hot[:, j, :].T)
            cols += [c * isnum[:, j] for c in _bit_features(num[:, j])]
        return np.column_stack(cols)


def _row_keys(outputs: np.ndarray) -> np.ndarray | None:
    """One int64 per draw that identifies its row, for outputs whose values are all integers of small range
    (booleans, integers, or floats that are whole numbers; None otherwise): rows that repeat are then scored
    once (when they do: a probe of the first rows decides)."""
    r = whole_numbers(outputs.reshape(outputs.shape[0], -1))
    if r is None or not r.size:
        return None
    lo, hi = int(r.min()), int(r.max())
    base = hi - lo + 1
    if r.shape[1] * math.log2(max(base, 2)) > 62:
        return None
    keys = np.zeros(r.shape[0], dtype=np.int64)
    for j in range(r.shape[1]):
        keys = keys * base + (r[:, j] - lo)
    return keys


@njit(cache=True)
def _forest_scores(X, feature, threshold, missing_left, left, right, leaf, value, roots, baseline):
    """Each row's baseline plus the leaf value of every tree, added in the trees' order; a node sends a row left
    when its feature is at most the threshold (a NaN where the node says), as scikit-learn's predictor does."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        s = baseline
        for r in range(roots.size):
            k = roots[r]
            while not leaf[k]:
                x = X[i, feature[k]]
                if np.isnan(x):
                    k = left[k] if missing_left[k] else right[k]
                elif x <= threshold[k]:
                    k = left[k]
                else:
                    k = right[k]
            s += value[k]
        out[i] = s
    return out


@dataclass(frozen=True, eq=False)
class Forest:
    """A fitted binary ``HistGradientBoostingClassifier`` as flat arrays: node k of every tree, one after the
    other (``roots`` the first node of each tree), and the baseline.  ``decision_function`` gives the doubles
    scikit-learn's does (the same comparisons, the same sum in the same order: a test checks it), by one compiled
    pass over the rows on one core."""

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    baseline: float

    @staticmethod
    def of(model) -> "Forest | None":
        """The fitted trees of ``model``, or None where they are not plain numerical splits of one score per
        iteration (then the model's own ``decision_function`` is used)."""
        predictors = getattr(model, "_predictors", None)
        baseline = np.asarray(getattr(model, "_baseline_prediction", np.zeros(0)), dtype=float).ravel()
        if not predictors or baseline.size != 1 or any(len(it) != 1 for it in predictors):
            return None
        nodes = [it[0].nodes for it in predictors]
        if any(n.dtype.names is None or "is_categorical" in n.dtype.names and n["is_categorical"].any() for n in nodes):
            return None
        starts = np.cumsum([0] + [n.size for n in nodes[:-1]]).astype(np.int64)
        cat = lambda field, dtype: np.concatenate([n[field].astype(dtype) for n in nodes])  # noqa: E731
        shift = np.repeat(starts, [n.size for n in nodes])
        return Forest(
            cat("feature_idx", np.int64),
            cat("num_threshold", np.float64),
            cat("missing_go_to_left", np.bool_),
            cat("left", np.int64) + shift,
            cat("right", np.int64) + shift,
            cat("is_leaf", np.bool_),
            cat("value", np.float64),
            starts,
            float(baseline[0]),
        )

    @cached_property
    def steps(self) -> tuple[int, np.ndarray, np.ndarray] | None:
        """(j, breaks, table) when every split reads the one feature j: the score is then a step function of it, one
        value per cell (−∞, b₀], (b₀, b₁], …, (b_last, ∞) — each cell's the forest's own at a point of the cell, so
        the same doubles — looked up by bisection.  None when the splits read several features."""
        split = ~self.leaf
        if not split.any() or np.unique(self.feature[split]).size != 1:
            return None
        j = int(self.feature[split][0])
        breaks = np.unique(self.threshold[split])
        points = np.append(breaks, np.inf)  # each cell's right end; +∞ for the last, above every threshold
        X = np.zeros((points.size, j + 1))
        X[:, j] = points
        return j, breaks, self._walk(X)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        steps = self.steps
        if steps is not None:
            j, breaks, table = steps
            col = np.asarray(X[:, j], dtype=np.float64)
            if not np.isnan(col).any():  # a NaN goes where its node says: walked below
                return table[np.searchsorted(breaks, col, side="left")]
        return self._walk(X)

    def _walk(self, X: np.ndarray) -> np.ndarray:
        """The forest's scores of the rows of ``X``: in numpy (:meth:`_walk_levels`) or by the compiled loop
        (:meth:`_walk_compiled`), whichever costs less here (:data:`COLD_ROWS`) — the same doubles either way."""
        n = X.shape[0]
        cold = not _forest_scores.warm and n <= COLD_ROWS and _cold[0] + n <= COLD_BUDGET
        if n <= FEW_ROWS or cold:
            _cold[0] += n if n > FEW_ROWS else 0
            return self._walk_levels(np.asarray(X, dtype=np.float64))
        return self._walk_compiled(X)

    def _walk_compiled(self, X: np.ndarray) -> np.ndarray:
        return _forest_scores(
            np.ascontiguousarray(X, dtype=np.float64),
            self.feature,
            self.threshold,
            self.missing_left,
            self.left,
            self.right,
            self.leaf,
            self.value,
            self.roots,
            self.baseline,
        )

    def _walk_levels(self, X: np.ndarray) -> np.ndarray:
        """:func:`_forest_scores` for every row at once, tree by tree: the same comparisons, the same sum in the same
        order."""
        rows = np.arange(X.shape[0])
        out = np.full(X.shape[0], self.baseline)
        for root in self.roots:
            k = np.full(X.shape[0], root)
            inner = ~self.leaf[k]
            while inner.any():
                kk = k[inner]
                x = X[rows[inner], self.feature[kk]]
                go_left = np.where(np.isnan(x), self.missing_left[kk], x <= self.threshold[kk])
                k[inner] = np.where(go_left, self.left[kk], self.right[kk])
                inner = ~self.leaf[k]
            out += self.value[k]
        return out


@dataclass(frozen=True, eq=False)
class Steps:
    """The boosted trees on one feature (a scalar's value), fitted here: trees that read one feature make a step
    function of it, so the boosting runs on the feature's cells — up to :data:`STEP_CELLS` quantiles of the training
    values, as scikit-learn bins a feature — each cell's score shared by its draws: per round, each cell's sums of the
    logistic loss's gradients and hessians, a tree of up to :data:`TREE_LEAVES` leaves grown best gain first over
    runs of adjacent cells (each leaf at least :data:`STEP_LEAF` draws), its leaves' Newton steps shrunk by the
    learning rate — :data:`TREE_ROUNDS` rounds, as :func:`_model`'s trees.  Scored by bisection like
    :attr:`Forest.steps`.  No library: in a short audit in a fresh process, importing the trees' library was most
    of what its learned events cost (about 0.6 of the 0.8 s by which they slowed the default Laplace audit at 10⁶
    draws a side; benchmarks/RESULTS.md)."""

    breaks: np.ndarray
    table: np.ndarray

    @staticmethod
    def fit(x: np.ndarray, y: np.ndarray) -> "Steps":
        """Fitted on values ``x`` labelled ``y`` (1: drawn on x, 0: on x′)."""
        x = np.asarray(x, dtype=np.float64)
        breaks = np.unique(np.quantile(x, np.linspace(0.0, 1.0, STEP_CELLS + 1)[1:-1], method="lower"))
        cells = np.searchsorted(breaks, x, side="left")  # cell i: (breaks[i − 1], breaks[i]]
        on = np.asarray(y) == 1
        ones = np.bincount(cells[on], minlength=breaks.size + 1).astype(np.float64)
        draws = np.bincount(cells, minlength=breaks.size + 1).astype(np.float64)
        share = min(max(ones.sum() / max(draws.sum(), 1.0), 1e-12), 1 - 1e-12)
        score = np.full(draws.size, math.log(share / (1 - share)))
        for _ in range(TREE_ROUNDS):
            p = 1.0 / (1.0 + np.exp(-score))
            grad, hess = p * draws - ones, p * (1.0 - p) * draws
            for lo, hi in _leaves(grad, hess, draws):
                score[lo:hi] -= STEP_RATE * grad[lo:hi].sum() / max(hess[lo:hi].sum(), 1e-12)
        return Steps(breaks, score)

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return self.table[np.searchsorted(self.breaks, np.asarray(X[:, 0], dtype=np.float64), side="left")]


def _leaves(grad: np.ndarray, hess: np.ndarray, draws: np.ndarray) -> list[tuple[int, int]]:
    """The leaves (runs lo:hi of adjacent cells) of one tree over cells with these sums of gradients, hessians and
    draws: split best gain first (G_L²/H_L + G_R²/H_R − G²/H) while a split gains and leaves fewer than
    :data:`TREE_LEAVES`, each leaf at least :data:`STEP_LEAF` draws."""
    G, H, N = (np.concatenate([[0.0], np.cumsum(v)]) for v in (grad, hess, draws))

    def best(lo, hi):
        cut = np.arange(lo + 1, hi)
        ok = (N[cut] - N[lo] >= STEP_LEAF) & (N[hi] - N[cut] >= STEP_LEAF)
        ok &= (H[cut] - H[lo] > 1e-12) & (H[hi] - H[cut] > 1e-12)
        if not ok.any():
            return 0.0, None
        cut = cut[ok]
        gl, hl, gr, hr = G[cut] - G[lo], H[cut] - H[lo], G[hi] - G[cut], H[hi] - H[cut]
        gain = gl**2 / hl + gr**2 / hr - (G[hi] - G[lo]) ** 2 / max(H[hi] - H[lo], 1e-12)
        k = int(np.argmax(gain))
        return float(gain[k]), int(cut[k])

    leaves = [(0, grad.size, *best(0, grad.size))]
    while len(leaves) < TREE_LEAVES:
        j = max(range(len(leaves)), key=lambda i: leaves[i][2])
        lo, hi, gain, cut = leaves[j]
        if cut is None or gain <= 0:
            break
        leaves[j : j + 1] = [(lo, cut, *best(lo, cut)), (cut, hi, *best(cut, hi))]
    return [(lo, hi) for lo, hi, _, _ in leaves]


@dataclass(frozen=True, eq=False)
class Scorer:
    """features → fitted model → a real score, larger on the side the model was trained to call x.

    The score is a function of the draw alone (never of the batch it is scored in): the logistic score is
    computed here, feature by feature, from the fitted scaler and weights (elementwise arithmetic only); the trees'
    are per row by construction.  Repeated integer rows are scored once."""

    features: Features
    model: object
    kind: str

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        probe = None if self.features.symbolic else _row_keys(outputs[:4096])
        if probe is not None and np.unique(probe).size * 4 < probe.size:  # rows repeat: score each once
            keys = _row_keys(outputs)
            if keys is not None:
                _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
                return self._score(outputs[first])[inverse.reshape(-1)]
        return self._score(outputs)

    def _score(self, outputs: np.ndarray) -> np.ndarray:
        F = self.features(outputs)
        if self.kind != "logistic":
            return np.asarray(self.model.decision_function(F), dtype=float)
        F = np.asfortranarray(F)  # columns contiguous: the loop below reads one column at a time
        scaler, lr = self.model[0], self.model[-1]
        s = np.full(F.shape[0], float(lr.intercept_[0]))
        for j, (m, sc, w) in enumerate(zip(scaler.mean_, scaler.scale_, lr.coef_[0])):  # in column order
            s += (F[:, j] - m) / sc * w
        return s

    @property
    def name(self) -> str:
        return f"{self.kind} on {self.features.describe()}"


def prefetch(outputs: np.ndarray) -> None:
    """Start importing the classifiers' library on a thread of its own where classifiers trained on draws like
    ``outputs`` (a few of them) would need it — every model but trees on one feature (:class:`Steps`): called
    before the selection draws, which mostly run outside the interpreter's lock or on other processes, so that the
    import overlaps them (on a float sampler's bits, 3.3 s against 3.5–3.7 s for the default audit at 10⁶ draws a
    side; started with a policy audit's stage instead, before its screening, it cost a T = 40 audit 0.3–0.6 s).
    Importing it again later waits for this one or finds it done; nothing else depends on it.  Where it is not needed
    it is not imported at all: in a short audit in a fresh process the import (about 0.6 s) was most of what learned
    events cost, and competed for the lock with the audit's own work."""
    import sys
    import threading

    if "sklearn.ensemble" in sys.modules or not len(outputs):
        return
    if outputs.dtype.kind != "U" and Features.fit(outputs, outputs)(outputs[:1]).shape[1] == 1:
        return  # one feature: the trees are Steps, and by default the logistic model is not trained on scalars
    threading.Thread(target=_import_trees, name="privcheck-prefetch", daemon=True).start()


def _import_trees():
    try:
        import sklearn.ensemble  # noqa: F401
    except ImportError:  # said where the trees are built (_model), not on this thread
        pass


def _model(kind: str, seed: int):
    """The unfitted classifier of ``kind`` (:data:`MODELS`), seeded by ``seed``."""
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=300, tol=1e-6))
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=TREE_ROUNDS,
        max_leaf_nodes=TREE_LEAVES,
        learning_rate=0.3,
        early_stopping=False,
        random_state=seed % 2**32,
    )


def _fit(kind: str, X: np.ndarray, y: np.ndarray, seed: int):
    """The classifier of ``kind`` fitted on one thread; fitted trees as a :class:`Forest` where they can be — or,
    on one feature, the step function they would make, fitted directly (:class:`Steps`)."""
    if kind == "trees" and X.shape[1] == 1:
        return Steps.fit(X[:, 0], y)
    model = _model(kind, seed)
    import warnings

    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings(), np.errstate(all="ignore"), threadpool_limits(1):
        warnings.simplefilter("ignore")  # convergence chatter: a weak model only weakens the search
        model.fit(X, y)
    return model if kind == "logistic" else Forest.of(model) or model


def learned_statistics(a: np.ndarray, b: np.ndarray, seed: int, models=MODELS) -> list[Statistic]:
    """Classifier scores trained on draws ``a`` (on x, label 1) and ``b`` (on x′, label 0).

    Each is a :class:`~privcheck.audits.mechanism.events.Statistic` of kind ``learned``; thresholds on it are candidate
    events like any other.  Features that are all constant give no model.
    """
    a, b = a[:MAX_TRAIN], b[:MAX_TRAIN]
    feats = Features.fit(a, b)
    X = np.concatenate([feats(a), feats(b)])
    y = np.concatenate([np.ones(a.shape[0]), np.zeros(b.shape[0])])
    keep = X.std(axis=0) > 0
    if not keep.any():
        return []
    out = []
    for kind in models:
        model = _fit(kind, X, y, seed)
        scorer = Scorer(feats, model, kind)
        out.append(Statistic("learned", fn=scorer, fn_name=scorer.name))
    return out


def n_train(n_selection: int, least: int = 1000) -> int:
    """Draws per side the classifiers train on: a quarter of the selection sample, at least ``least`` (the sampled
    engine's ``MIN_TRAIN``; it trains nothing on fewer than twice that) and at most :data:`MAX_TRAIN`; the rest
    is held out to score their events.  A quarter trains trees as strong as a half on the float samplers of
    ``examples/float_samplers.py`` at 3·10⁴ and 10⁵ draws, in less time."""
    return min(MAX_TRAIN, max(least, n_selection // 4), n_selection // 2)


def real_valued(a: np.ndarray, b: np.ndarray) -> bool:
    """Float outputs (of any width) taking more than :data:`FEW_VALUES` values in the first draws: the learned
    events on their bits and values run by default beside the fixed ones (the fixed families are complete for
    few values)."""
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        return False
    seen = np.empty(0, dtype=float)  # (read a block of rows at a time: 2,048 rows of a wide release are a gigabyte)
    for side in (a[:2048], b[:2048]):
        rows = side.reshape(side.shape[0], -1)
        step = max(1, (1 << 20) // max(rows.shape[1], 1))
        for s in range(0, rows.shape[0], step):
            seen = np.unique(np.concatenate([seen, rows[s : s + step].ravel()]))
            if seen.size > FEW_VALUES:
                return True
    return False


def off_grid_floats(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether the learned events read these outputs' bits: real-valued (:func:`real_valued`) and off every grid
    (:attr:`Features.mantissa` > 0 on the first draws) — floats whose leak, where there is one, is in which doubles
    come out on each side, and shows only to trees trained on some ten thousand draws."""
    if not real_valued(a, b):
        return False
    return Features.fit(a[:20000], b[:20000]).mantissa > 0


def worth_learning(a: np.ndarray) -> bool:
    """Outputs the fixed families do not cover: more than one coordinate, or symbols."""
    return a.dtype.kind == "U" or int(math.prod(a.shape[1:])) > 1
