"""privcheck beside Delta-Siege on Delta-Siege's own targets: floating-point noise as papers and DP libraries
write it.

Each row is the whole command a user types — ``privcheck audit TARGET --epsilon 1 [--delta 1e-6] --pair 0 1
--method sample --samples 1000000 --json``, nothing else, so the default search — timed end to end (a fresh
process: start-up and imports included), beside Delta-Siege's ε̂ at δ₀ and its time on the same machine.  The
targets: the float samplers of its paper written from their definitions (``examples/float_samplers.py``) and
the library mechanisms (``benchmarks/float_libraries.py``; a row whose library is not installed is skipped).

    python3 benchmarks/delta_siege.py [--only NAME …] [--share] [--full-budget] [--peer results.jsonl]

``--share`` runs each row a second time with ``--classifier off`` and prints the learned events' share of the
default command's time.  ``--full-budget`` runs each a second time with ``--full-budget``: the default command is staged
(a mechanism audit stops at the first stage that refutes, its bound that stage's: issue 74), and the full plan's bound
is the magnitude to set beside Delta-Siege's ε̂.  The goal of each row: a certified ε at least Delta-Siege's ε̂ (the
bound ratio ≥ 1), in at most a third of its time (the time ratio ≤ 0.33); the rows Delta-Siege finds private stay not
refuted.

Delta-Siege (Lokna, Paradis, Dimitrov and Vechev, "Group and Attack: Auditing Differential Privacy", CCS 2023) was
run from its public repository in a scratch environment of its own, never installed beside privcheck: its
``run()`` of ``scripts/run_benchmarks.py`` for one trial (idx 0) with its defaults — n = 10⁶ draws for each of its
four stages (4·10⁶ per input), the bit-pattern features and its logistic model, input pair (0, 1), Δ = 1, ε₀ = 1,
δ₀ = 10⁻⁶ for the Gaussians and 0 for the Laplaces — its "deltasiege" witness only; ε̂ is its empirical curve at
δ₀ (the estimate its tables report), the time the whole call.  Those figures are :data:`PEER` (measured on the
date given); ``--peer FILE`` reads others, one JSON object per line with ``mechanism``, ``eps_hat_at_delta0`` and
``seconds``.  Delta-Siege's ε̂ is an estimate; privcheck's ε is a certified lower bound (95 %).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from timing import timed_report

ROOT = Path(__file__).resolve().parents[1]

#: label → (target, claimed δ or None for pure ε-DP, Delta-Siege's name for it, the library it needs)
ROWS = {
    "float Laplace by inversion": ("examples/float_samplers.py:inversion_laplace", None, "laplace_inversion", None),
    "Box–Muller Gaussian": ("examples/float_samplers.py:box_muller", 1e-6, "gauss_boxmuller", None),
    "polar Gaussian": ("examples/float_samplers.py:polar", 1e-6, "gauss_polar", None),
    "ziggurat Gaussian": ("examples/float_samplers.py:ziggurat", 1e-6, "gauss_ziggurat", None),
    "diffprivlib Laplace": ("benchmarks/float_libraries.py:diffprivlib_laplace", None, "laplace_ibm", "diffprivlib"),
    "diffprivlib Gaussian (classic)": (
        "benchmarks/float_libraries.py:diffprivlib_gaussian",
        1e-6,
        "gauss_ibm",
        "diffprivlib",
    ),
    "diffprivlib Gaussian (analytic)": (
        "benchmarks/float_libraries.py:diffprivlib_gaussian_analytic",
        1e-6,
        "gauss_ibm_analytic",
        "diffprivlib",
    ),
    "PyDP Gaussian": ("benchmarks/float_libraries.py:pydp_gaussian", 1e-6, "gauss_pydp", "pydp"),
    "PyDP Laplace": ("benchmarks/float_libraries.py:pydp_laplace", None, "laplace_pydp", "pydp"),
    "Opacus Gaussian (float32)": ("benchmarks/float_libraries.py:opacus_gaussian", 1e-6, "gauss_opacus", "opacus"),
    "OpenDP Laplace": ("benchmarks/float_libraries.py:opendp_laplace", None, None, "opendp"),
    "OpenDP Gaussian": ("benchmarks/float_libraries.py:opendp_gaussian", 1e-6, None, "opendp"),
}

#: Delta-Siege on this project's 2-core machine (2026-11-27, one trial each, nothing else running): mechanism →
#: (ε̂ at δ₀, seconds).  PyDP cannot be seeded: its ε̂ moved between runs (3.08 here; 4.93 in a run beside other work)
PEER: dict[str, tuple[float, float]] = {
    "laplace_inversion": (10.04, 65.0),
    "gauss_boxmuller": (6.69, 72.0),
    "gauss_polar": (6.68, 68.0),
    "gauss_ziggurat": (6.29, 66.0),
    "gauss_opacus": (6.85, 65.0),
    "laplace_ibm": (9.51, 111.0),
    "gauss_ibm": (6.52, 109.0),
    "gauss_ibm_analytic": (7.33, 140.0),
    "gauss_pydp": (3.08, 92.0),
    "laplace_pydp": (1.00, 100.0),
}


def peer_figures(path: str | None) -> dict:
    if path is None:
        return dict(PEER)
    out = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out[r["mechanism"]] = (r["eps_hat_at_delta0"], r["seconds"])
    return out


def run_privcheck(target: str, delta, samples: int, extra=()) -> tuple[dict, float]:
    cmd = [sys.executable, "-m", "privcheck.cli", "audit", target, "--epsilon", "1"]  # privcheck, this interpreter
    if delta is not None:
        cmd += ["--delta", f"{delta:g}"]
    cmd += ["--pair", "0", "1", "--method", "sample", "--samples", str(samples), "--json", "--seed", "0", *extra]
    return timed_report(cmd, ROOT)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="rows whose label contains one of these")
    ap.add_argument("--samples", type=int, default=10**6)
    ap.add_argument("--share", action="store_true", help="also time --classifier off: the learned events' share")
    ap.add_argument("--peer", help="Delta-Siege's figures, one JSON object per line (default: the recorded ones)")
    ap.add_argument(
        "--full-budget",
        action="store_true",
        help="also run each with --full-budget: the default command stops at the first stage that refutes (its bound"
        " that stage's); the full plan gives the full magnitude, the figure to set beside Delta-Siege's ε̂",
    )
    args = ap.parse_args(argv)
    peer = peer_figures(args.peer)
    print(f"privcheck: --pair 0 1 --method sample --samples {args.samples:,} --seed 0, the whole command timed")
    head = "| target | Delta-Siege ε̂ | its s | privcheck ε ≥ | s | bound ratio | time ratio | verdict | event |"
    if args.share:
        head += " s with --classifier off | learned share |"
    if args.full_budget:
        head += " ε ≥ with --full-budget | its s | its bound ratio | its time ratio |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, (target, delta, ds_name, library) in ROWS.items():
        if args.only and not any(o.lower() in label.lower() for o in args.only):
            continue
        if library is not None and importlib.util.find_spec(library) is None:
            print(f"| {label} | (skipped: `pip install {library}`) |")
            continue
        report, seconds = run_privcheck(target, delta, args.samples)
        eps = report["epsilon_lower"]
        eps = float("inf") if eps is None else eps
        ds = peer.get(ds_name) if ds_name else None
        ds_eps, ds_s = ds if ds else (None, None)
        ratio_b = f"{eps / ds_eps:.2f}" if ds_eps and ds_eps > 0 else "—"
        ratio_t = f"{seconds / ds_s:.2f}" if ds_s else "—"
        verdict = "refuted" if report["violates_claim"] else "not refuted"
        event = report["witness"]["event_text"][:60]
        row = (
            f"| {label} | {'—' if ds_eps is None else f'{ds_eps:.2f}'} | {'—' if ds_s is None else f'{ds_s:.0f}'} "
            f"| {eps:.2f} | {seconds:.1f} | {ratio_b} | {ratio_t} | {verdict} | `{event}` |"
        )
        if args.share:
            _, off = run_privcheck(target, delta, args.samples, ("--classifier", "off"))
            row += f" {off:.1f} | {max(0.0, (seconds - off) / seconds):.0%} |"
        if args.full_budget:
            full, s_full = run_privcheck(target, delta, args.samples, ("--full-budget",))
            e_full = float("inf") if full["epsilon_lower"] is None else full["epsilon_lower"]
            row += (
                f" {e_full:.2f} | {s_full:.1f} | {f'{e_full / ds_eps:.2f}' if ds_eps else '—'} "
                f"| {f'{s_full / ds_s:.2f}' if ds_s else '—'} |"
            )
        print(row, flush=True)


if __name__ == "__main__":
    main()
