"""The red-team corpus at scale: claims tried, false refutations, bounds above the truth, crashes, missed
refutations — every count but the first must be 0.

    python3 benchmarks/soundness.py                      # the default size (a few minutes on 2 cores)
    python3 benchmarks/soundness.py --faces 400 --rules 100 --seed 3

* **finite faces** (tests/support/corpus.py): random pairs of finite measures given as exact fractions, doubles whose
  rows sum to 1 within ulps, logarithms, masses far below the double range, and rows off 1 within the accepted
  tolerance; each audited by the exact engine against claims at its truth (pure ε, δ(ε), ε at δ, D_2, ρ, μ) and
  1e-9 below it (pure ε, δ, D_2), every reported lower bound compared with the truth computed in mpmath.
* **decision-rule policies**: random T = 2 rule tables (rows off 1 by k·1e-12), Table and View DP, against the
  brute-force truth over every neighbour pair (ε, δ(ε), μ).
* **odd outputs**: sampled audits of mechanisms whose outputs hold ±inf, −0.0, Python integers beyond 2^63,
  NaN in an exact support, and mixed types — none may crash, none may refute a claim at its truth (an
  input-independent output: ε = 0).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from corpus import KINDS, Tally, check_face, check_rules  # noqa: E402


def _odd_outputs(tally: Tally, seed: int) -> None:
    import privcheck as pc

    def inf_or_minus_zero(x, rng, size):
        return rng.choice(np.array([np.inf, -np.inf, -0.0, 0.0, 1.5]), size)

    def huge_ints(x, rng):
        return 2**70 + int(rng.integers(0, 3))

    def mixed(x, rng):
        return [None, "a", 1, 2.5, (1, 2)][int(rng.integers(0, 5))]

    rel = pc.AllPairs(domain=(0, 1))
    for fn in (inf_or_minus_zero, huge_ints, mixed):
        for s in range(3):
            tally.claims += 1
            where = f"odd outputs {fn.__name__} seed {seed + s}"
            try:
                rep = pc.audit(fn, pc.PureDP(0.3, rel), method="sample", samples=20_000, seed=seed + s)
            except Exception as e:  # noqa: BLE001
                tally.crashes.append(f"{where}: {type(e).__name__}: {e}")
                continue
            if rep.violates_claim:  # 3 × 3 audits at 95 %: a refutation of an ε = 0 mechanism is a finding
                tally.false_refutations.append(f"{where}: refuted, ε ≥ {rep.epsilon_lower}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--faces", type=int, default=80, help="random faces per kind (default 80)")
    ap.add_argument("--rules", type=int, default=40, help="random decision-rule policies per definition (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = []
    total = Tally()
    for kind in KINDS:
        t0, tally = time.perf_counter(), Tally()
        rng = np.random.default_rng([args.seed, KINDS.index(kind)])
        for _ in range(args.faces):
            check_face(rng, kind, tally)
        rows.append((f"faces: {kind}", tally, time.perf_counter() - t0))
    for definition in ("table", "view"):
        t0, tally = time.perf_counter(), Tally()
        rng = np.random.default_rng([args.seed, 100 + len(definition)])
        for _ in range(args.rules):
            check_rules(rng, definition, tally)
        rows.append((f"rules: {definition}", tally, time.perf_counter() - t0))
    t0, tally = time.perf_counter(), Tally()
    _odd_outputs(tally, args.seed)
    rows.append(("odd outputs (sampled)", tally, time.perf_counter() - t0))
    print(
        f"{'corpus':24} {'cases':>6} {'claims':>7} {'false ref.':>10} {'above truth':>11} {'crashes':>8} "
        f"{'missed':>7} {'seconds':>8}"
    )
    for name, t, secs in rows:
        print(
            f"{name:24} {t.faces:6d} {t.claims:7d} {len(t.false_refutations):10d} {len(t.above_truth):11d} "
            f"{len(t.crashes):8d} {len(t.missed):7d} {secs:8.1f}"
        )
        for f in ("claims", "faces"):
            setattr(total, f, getattr(total, f) + getattr(t, f))
        for f in ("false_refutations", "above_truth", "crashes", "missed"):
            getattr(total, f).extend(getattr(t, f))
    print(
        f"{'all':24} {total.faces:6d} {total.claims:7d} {len(total.false_refutations):10d} "
        f"{len(total.above_truth):11d} {len(total.crashes):8d} {len(total.missed):7d}"
    )
    for f in total.failures()[:20]:
        print("  " + f[:400])
    return 1 if total.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
