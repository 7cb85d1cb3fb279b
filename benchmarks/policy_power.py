"""Policy audits that bite (issues 20 and 36): each built-in private policy audited on its default instance —
its published schedule at the smallest horizon where its releases decide actions (``--schedule shortened``: the
shortened instances) — as published (noise multiplier m = 1) and with half its calibrated noise (m = 0.5), at the
policy auditor's default sample size; the whole `privcheck audit` command, timed.

    python3 benchmarks/policy_power.py [--schedule published|shortened] [--stop-early] [--samples N] [--seed 1]
        [--only adac-gope,...]

Prints, per policy and m: the horizon audited, the verdict, the certified bounds (ε, and ρ for zCDP claims), the
draws per side certified on (the stopping look's with --stop-early), the seconds of the command, and the exact or
closed-form privacy of the release beside it where there is one.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

CASES = [  # (name, claim flags, the release's privacy in closed form at m: how it scales)
    ("adac-ucb", ["--rho", "0.5"], "ρ/m² per release: 0.5 at m = 1, 2.0 at m = 0.5"),
    ("adac-gope", ["--rho", "0.5"], "ρ/m² per release: 0.5 at m = 1, 2.0 at m = 0.5"),
    ("adar-gope-var", ["--rho", "0.5"], "ρ/m² per release: 0.5 at m = 1, 2.0 at m = 0.5"),
    ("adac-oful", ["--rho", "0.5"], "ρ/m² per release: 0.5 at m = 1, 2.0 at m = 0.5"),
    (
        "dp-robust-ucb",
        ["--epsilon", "1", "--nu", "0.9"],
        "the tree's release, exactly (release_epsilon): 0.586/m — 0.586, 1.171, 2.343, 5.856",
    ),
    ("dp-robust-se", ["--epsilon", "1", "--nu", "0.9"], "ε/m per phase mean: 1 at m = 1, 2 at m = 0.5"),
    ("ldp-robust-se", ["--epsilon", "1", "--nu", "0.9"], "ε/m per report: 1 at m = 1, 2 at m = 0.5"),
    (
        "kl-ucb-cf",
        ["--rr-epsilon", "1", "--epsilon", "1", "--definition", "table", "--horizon", "4"],
        "per report ln((1 − mq)/(mq)), q = 1/(1 + e): 1 at m = 1, 1.862 at m = 0.5",
    ),
]
MULTIPLIERS = {"dp-robust-ucb": (1.0, 0.5, 0.25, 0.1)}  # where m = 0.5 is not enough to see


def run(name, flags, m, a):
    cmd = [sys.executable, "-m", "privcheck.cli", "audit", name, *flags, "--seed", str(a.seed)]
    cmd += ["--noise-multiplier", str(m), "--json"]
    cmd += [] if a.samples is None else ["--samples", str(a.samples)]
    cmd += ["--stop-early"] if a.stop_early else []
    cmd += ["--schedule", a.schedule] if name != "kl-ucb-cf" else []
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tempfile.gettempdir())
    secs = time.perf_counter() - t0
    if out.returncode not in (0, 1):
        return {"error": out.stderr.strip()[-300:], "seconds": secs}
    rep = json.loads(out.stdout)
    return {
        "verdict": rep.get("verdict"),
        "epsilon": rep.get("epsilon_lower"),
        "rho": rep.get("rho_lower"),
        "seconds": secs,
        "exit": out.returncode,
        "horizon": (rep.get("instance") or {}).get("horizon", "4"),
        "draws": rep.get("samples_per_side"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, help="runs per side (default: the command's own)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--schedule", choices=("published", "shortened"), default="published")
    ap.add_argument("--stop-early", action="store_true")
    ap.add_argument("--only")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    size = "the command's default" if a.samples is None else f"{a.samples:,}"
    print(f"{a.schedule} schedules, samples per side {size}, seed {a.seed}, stop early: {a.stop_early}")
    print("| policy | m | horizon | verdict | ε ≥ | ρ ≥ | draws per side | seconds | closed form of the release |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, flags, exact in CASES:
        if only and name not in only:
            continue
        for m in MULTIPLIERS.get(name, (1.0, 0.5)):
            r = run(name, flags, m, a)
            if "error" in r:
                print(f"| {name} | {m:g} | | error: {r['error']} | | | | {r['seconds']:.1f} | {exact} |", flush=True)
                continue
            rho = "" if r["rho"] is None else f"{r['rho']:.3f}"
            eps = "" if r["epsilon"] is None else f"{r['epsilon']:.3f}"
            draws = "exact" if r["draws"] is None else f"{r['draws']:,}"
            print(
                f"| {name} | {m:g} | {r['horizon']} | {r['verdict']} | {eps} | {rho} | {draws} | {r['seconds']:.1f} "
                f"| {exact} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
