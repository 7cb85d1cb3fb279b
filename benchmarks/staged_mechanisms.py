"""Mechanism audits staged by default when long: the time to refute a slow broken mechanism, and the price on slow
correct ones — the default command against the same with ``--full-budget``, in the same run.

A mechanism audit is staged when its sampling is estimated at over 20 s (``privcheck.audits.stages.MECHANISM``):
a quick stage at 1/256 of the draws, a middle one at 1/16 before a sampling of over a minute, each at 1% of the
failure probability, then the full sampling at the rest.  Rows (``--pair 0 1 --seed 0``, the whole command timed):

* ``benchmarks/targets.py:count_per_draw_half_scale`` — a count over 1,000 records released one draw per call, its
  exact discrete Laplace noise at half the scale (true ε ≈ 2, claimed 1) — and its correct version
  ``count_per_draw``, at 10⁶ draws per side (a quick stage) and at 3·10⁶ (a sampling of over a minute: a middle
  stage too);
* with ``--libraries``, OpenDP's Laplace and Gaussian (correct; their samplers are slow) as in
  ``benchmarks/delta_siege.py``, and diffprivlib's Laplace (a float leak) at 4·10⁶ draws per side — run from an
  interpreter that has those libraries.

Usage: python3 benchmarks/staged_mechanisms.py [--libraries] [--only LABEL …]
"""

import argparse
import sys
from pathlib import Path

from timing import timed_report

ROOT = Path(__file__).resolve().parents[1]
ROWS = [
    ("per-draw count, scale halved (broken)", "benchmarks/targets.py:count_per_draw_half_scale", None, 10**6, False),
    ("per-draw count (correct)", "benchmarks/targets.py:count_per_draw", None, 10**6, False),
    ("per-draw count at 3e6 (correct)", "benchmarks/targets.py:count_per_draw", None, 3 * 10**6, False),
    (
        "diffprivlib Laplace at 4e6 (float leak)",
        "benchmarks/float_libraries.py:diffprivlib_laplace",
        None,
        4 * 10**6,
        True,
    ),
    ("OpenDP Laplace (correct)", "benchmarks/float_libraries.py:opendp_laplace", None, 10**6, True),
    ("OpenDP Gaussian (correct)", "benchmarks/float_libraries.py:opendp_gaussian", 1e-6, 10**6, True),
]


def run(target: str, delta, samples: int, extra=()) -> tuple[dict, float]:
    cmd = [sys.executable, "-m", "privcheck.cli", "audit", target, "--epsilon", "1"]
    cmd += [] if delta is None else ["--delta", f"{delta:g}"]
    cmd += ["--pair", "0", "1", "--method", "sample", "--samples", str(samples), "--json", "--seed", "0", *extra]
    return timed_report(cmd, ROOT)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--libraries", action="store_true", help="also the rows that need diffprivlib and OpenDP")
    ap.add_argument("--only", nargs="*", help="rows whose label contains one of these")
    args = ap.parse_args(argv)
    print(
        "| target | default: verdict, ε ≥, stage, draws per side | s | --full-budget: verdict, ε ≥ | s | time ratio |"
    )
    print("|---|---|---|---|---|---|")
    for label, target, delta, samples, library in ROWS:
        if (library and not args.libraries) or (args.only and not any(o in label for o in args.only)):
            continue
        staged, t_staged = run(target, delta, samples)
        whole, t_whole = run(target, delta, samples, ("--full-budget",))
        said = lambda r: f"{r['verdict']}, {r['epsilon_lower']:.4g}"  # noqa: E731
        stage = staged.get("stage") or "not staged"
        print(
            f"| {label} | {said(staged)}, {stage}, {staged['samples_per_side']:,} | {t_staged:.1f} | "
            f"{said(whole)} | {t_whole:.1f} | {t_staged / t_whole:.3f} |"
        )


if __name__ == "__main__":
    main()
