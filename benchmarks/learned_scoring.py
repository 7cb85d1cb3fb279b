"""What a learned event costs: fitting the boosted trees, and scoring draws with them — scikit-learn's
``decision_function`` (all threads, and one) against privcheck's compiled :class:`~privcheck.audits.mechanism.
learned.Forest` on the same fitted model, which gives the same doubles.

    python3 benchmarks/learned_scoring.py [--rows 1000000] [--train 50000]

The rows are Box–Muller Gaussian draws (``examples/float_samplers.py``) and their value-and-bit features, as an
audit of a real-valued output scores them; best of three after a warm-up call
(``benchmarks/timing.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import float_samplers as F  # noqa: E402
from privcheck.audits.mechanism.learned import Features, Forest, _fit, _model  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import best_of  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10**6)
    ap.add_argument("--train", type=int, default=50_000)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    a, b = F.box_muller(0, rng, args.rows), F.box_muller(1, rng, args.rows)
    feats = Features.fit(a[: args.train], b[: args.train])
    X = np.concatenate([feats(a[: args.train]), feats(b[: args.train])])
    y = np.concatenate([np.ones(args.train), np.zeros(args.train)])
    fit_s = best_of(3, lambda: _fit("trees", X, y, 0))
    model = _model("trees", 0).fit(X, y)  # the audits' trees, kept as scikit-learn's model to compare with
    forest = Forest.of(model)
    rows = feats(a)
    features_s = best_of(3, lambda: feats(a))
    same = np.array_equal(model.decision_function(rows), forest.decision_function(rows))
    sk_all = best_of(3, lambda: model.decision_function(rows))
    with threadpool_limits(1):
        sk_one = best_of(3, lambda: model.decision_function(rows))
    ours = best_of(3, lambda: forest.decision_function(rows))
    print(f"fit, {args.train:,} draws per side, one thread: {fit_s:.2f} s")
    print(f"features of {args.rows:,} draws: {features_s:.2f} s ({rows.shape[1]} columns)")
    print(f"| scoring {args.rows:,} rows | seconds |")
    print("|---|---|")
    print(f"| scikit-learn decision_function, all threads | {sk_all:.2f} |")
    print(f"| scikit-learn decision_function, one thread | {sk_one:.2f} |")
    print(f"| privcheck Forest (compiled, one core) | {ours:.2f} |")
    print(f"the same doubles: {same}; one core against one thread: {sk_one / ours:.1f}×")


if __name__ == "__main__":
    main()
