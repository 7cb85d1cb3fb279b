"""Learned events: a classifier that tells outputs on x from outputs on x′, thresholded.

The sampled engine's fixed families (thresholds, atoms, likelihood-ratio sets, bit windows, coordinates, one
projection) are complete for scalar outputs with a monotone likelihood ratio and for outputs with few distinct
values, but not for vectors and lists that mix symbols and numbers (sparse-vector variants releasing noisy
values beside ⊥/⊤, noisy max releasing the gap).  Following DP-Sniper (Bichsel, Steffen, Bogunovic and Vechev,
"DP-Sniper: Black-Box Discovery of Differential Privacy Violations using Classifiers", IEEE S&P 2021, §IV), a
classifier is trained to tell the two sides apart and its score becomes one more real statistic: the events
are {score > t} and {score ≤ t}, chosen with every other candidate.

Soundness does not depend on the classifier.  It is trained on the first half of the *selection* sample; its
threshold events are scored on the held-out second half; the chosen event is certified on fresh draws exactly
like any other (a fitted model is a fixed post-processing, shipped to the workers with the event).

Features of one draw (:class:`Features`):

* numeric outputs: each coordinate's value (clipped to ±1e12); for doubles, the trailing-zero count of the
  mantissa, the binary exponent, the four lowest mantissa bits and the parity of the integer part (the bits
  Mironov's attack reads, "On Significance of the Least Significant Bits for Differential Privacy", CCS 2012);
  for outputs with few distinct values, one-hot indicators per coordinate and the count of each value;
* symbolic outputs (the string labels :func:`privcheck.core.protocols.draw` makes of lists mixing symbols and
  numbers, ragged or not): per position up to :data:`MAX_POSITIONS`, the number it holds (and its bits) or
  one-hot over the most frequent symbols; the length; the count of each symbol; the sum of the numbers.

Two models (scikit-learn: its L-BFGS logistic regression and its histogram gradient-boosted trees are
well-tested, deterministic for a given ``random_state`` and fast on 10⁵ rows — better than code we would
write): ``logistic`` (standardised features, L2) and ``trees`` (40 boosting rounds, 15 leaves).  The budget:
at most :data:`MAX_TRAIN` training draws per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .events import Statistic, trailing_zero_bits, whole_numbers

__all__ = ["Features", "Scorer", "learned_statistics", "MAX_POSITIONS", "MAX_TRAIN", "MODELS"]

#: positions of a symbolic output turned into features; coordinates of a numeric output kept
MAX_POSITIONS = 32
#: rows per side the classifiers are trained on (the budget: the rest of the first half is not used)
MAX_TRAIN = 50_000
#: a numeric output with at most this many distinct values also gets one-hot and count features
FEW_VALUES = 16
#: symbols of a symbolic output kept as one-hot columns (the most frequent ones)
MAX_SYMBOLS = 16
MODELS = ("logistic", "trees")
_CLIP = 1e12


def _bit_features(v: np.ndarray) -> list[np.ndarray]:
    """Trailing-zero count, binary exponent, the four lowest mantissa bits, parity of the integer part."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    finite = np.isfinite(v)
    safe = np.where(finite, v, 0.0)
    bits = safe.view(np.uint64)
    cols = [trailing_zero_bits(safe).astype(float), np.frexp(safe)[1].astype(float)]
    cols += [((bits >> np.uint64(k)) & np.uint64(1)).astype(float) for k in range(4)]
    with np.errstate(invalid="ignore", over="ignore"):
        cols.append(np.where(np.abs(safe) < 2.0**52, np.mod(np.floor(safe), 2.0), 0.0))
    return cols


def _value(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if v.size and -_CLIP <= v.min() and v.max() <= _CLIP:  # finite and in range (a NaN fails both): as it is
        return v
    return np.clip(np.nan_to_num(v, posinf=_CLIP, neginf=-_CLIP), -_CLIP, _CLIP)


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
    floats: bool = False  # numeric: whether bit features are added
    values: tuple = ()  # numeric with few values: the values one-hot encoded
    symbols: tuple = ()  # symbolic: the vocabulary
    positions: int = 0  # symbolic: positions encoded

    @staticmethod
    def fit(a: np.ndarray, b: np.ndarray) -> "Features":
        """The features for outputs shaped like ``a`` and ``b`` (both sides of the training sample)."""
        if a.dtype.kind == "U":
            items, lengths = _token_matrix(np.concatenate([a[:20000], b[:20000]]))
            values, counts = np.unique(items, return_counts=True)
            symbols = [(-c, str(v)) for v, c in zip(values, counts) if v != _ABSENT and _number(str(v)) is None]
            vocab = tuple(v for _, v in sorted(symbols)[:MAX_SYMBOLS])
            return Features(True, symbols=vocab, positions=int(min(MAX_POSITIONS, lengths.max())))
        ra, rb = a.reshape(a.shape[0], -1).astype(float), b.reshape(b.shape[0], -1).astype(float)
        d = ra.shape[1]
        if d > MAX_POSITIONS:  # keep the coordinates whose mean moves most
            coords = tuple(int(i) for i in np.sort(np.argsort(-np.abs(rb.mean(0) - ra.mean(0)))[:MAX_POSITIONS]))
        else:
            coords = tuple(range(d))
        both = np.concatenate([ra[:20000, list(coords)], rb[:20000, list(coords)]])
        vals = np.unique(both)
        few = tuple(vals.tolist()) if vals.size <= FEW_VALUES else ()
        return Features(False, coords=coords, floats=a.dtype.kind == "f" and not few, values=few)

    def describe(self) -> str:
        if self.symbolic:
            return "symbols+numbers"
        few = "" if not self.values else "+counts" if len(self.values) <= 2 else "+one-hot"
        return "values" + ("+bits" if self.floats else "") + few

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        return self._symbolic(outputs) if self.symbolic else self._numeric(outputs)

    def _numeric(self, outputs):
        r = outputs.reshape(outputs.shape[0], -1)[:, list(self.coords)].astype(float)
        blocks = [_value(r)]
        if self.floats:
            blocks += [np.stack(_bit_features(r[:, j]), axis=1) for j in range(r.shape[1])]
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


def _fit(kind: str, X: np.ndarray, y: np.ndarray, seed: int):
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=300, tol=1e-6))
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(
            max_iter=40, max_leaf_nodes=15, learning_rate=0.2, early_stopping=False, random_state=seed % 2**32
        )
    import warnings

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # convergence chatter: a weak model only weakens the search
        model.fit(X, y)
    return model


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


def n_train(n_selection: int) -> int:
    """Draws per side the classifiers train on: half the selection sample, at most :data:`MAX_TRAIN`."""
    return min(MAX_TRAIN, n_selection // 2)


def worth_learning(a: np.ndarray) -> bool:
    """Outputs the fixed families do not cover: more than one coordinate, or symbols."""
    return a.dtype.kind == "U" or int(math.prod(a.shape[1:])) > 1
