"""The fixed costs of a mechanism audit (issue 74, item 2), each measured in a fresh process.

Part 1, whole processes (the best of ``--repeats`` runs, wall time, process start-up included):

* ``python3 -c pass`` — the interpreter's start (with this machine's site packages);
* ``import numpy``, ``import privcheck``, ``privcheck --version``, ``privcheck list`` (the command line's parser);
* the default Laplace audit at 10⁶ draws a side (``privcheck audit laplace --epsilon 1 --pair 0 1 --method sample
  --samples 1000000 --seed 0``), and the same at 10⁴ (where the fixed costs are all there is).

Part 2, the phases of one audit in a fresh process, timed by wrapping privcheck's own functions from outside
(nothing of privcheck is changed): the imports, the reproducibility probe, the draw's cost, the executor's start,
the plan, each stage's sampling (search, selection and certification), the report.

    python3 benchmarks/fixed_costs.py [--repeats 5] [--samples 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

LAPLACE = ["audit", "laplace", "--epsilon", "1", "--pair", "0", "1", "--method", "sample", "--seed", "0"]

#: the in-process phase timer: run as ``python3 -c PHASES <samples>``; prints one JSON object of phase → seconds
PHASES = r"""
import sys, time, json
t0 = time.perf_counter()
import privcheck
t_import = time.perf_counter() - t0
import privcheck.audits.mechanism.api as api
import privcheck.audits.report as report
from privcheck.audits import sampling

spent = {}
def timed(owner, name, key=None):
    fn = getattr(owner, name)
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            spent[key or name] = spent.get(key or name, 0.0) + time.perf_counter() - t
    setattr(owner, name, wrapper)

timed(api, "probe", "reproducibility probe")
timed(api, "draw_cost", "a draw's cost")
timed(api, "plan_sampling", "the plan")
timed(api, "sampled_audit", "stages' sampling")
timed(api, "make_report", "the report")
import privcheck.audits.options as options
timed(options, "make_executor", "executor start")
import privcheck.audits.stats as stats
timed(stats, "cp_lower", "Clopper–Pearson bounds (scipy.special's import the first time)")
timed(stats, "cp_upper", "Clopper–Pearson bounds (scipy.special's import the first time)")
t1 = time.perf_counter()
from privcheck.cli import main, make_parser
t_cli = time.perf_counter() - t1
import io, contextlib
t2 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[2:])
t_audit = time.perf_counter() - t2
out = {"import privcheck": t_import, "import privcheck.cli": t_cli, "the command, in all": t_audit, **spent}
print(json.dumps(out))
"""


#: the processes' environment: bytecode written and read, as an installed package has it (a shell with
#: PYTHONDONTWRITEBYTECODE=1 recompiles every module edited since its bytecode was last written, at every start:
#: measured here, 0.08 s of 0.35 s for ``import privcheck``)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def best(cmd: list, repeats: int) -> float:
    """The fastest of ``repeats`` runs of ``cmd``, after one untimed run (which writes any stale bytecode)."""
    subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
        times.append(time.perf_counter() - t0)
        if done.returncode not in (0, 1):
            sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr}")
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--samples", type=int, default=10**6)
    args = ap.parse_args()
    py = sys.executable
    rows = [
        ("python3 -c pass", [py, "-c", "pass"]),
        ("import numpy", [py, "-c", "import numpy"]),
        ("import privcheck", [py, "-c", "import privcheck"]),
        ("privcheck --version", [py, "-m", "privcheck.cli", "--version"]),
        ("privcheck list", [py, "-m", "privcheck.cli", "list"]),
        (
            f"audit laplace, {args.samples:,} a side",
            [py, "-m", "privcheck.cli", *LAPLACE, "--samples", str(args.samples)],
        ),
        (
            f"audit laplace, {args.samples:,} a side, --stages 0 (unstaged, as before issue 74)",
            [py, "-m", "privcheck.cli", *LAPLACE, "--samples", str(args.samples), "--stages", "0"],
        ),
        ("audit laplace, 10,000 a side", [py, "-m", "privcheck.cli", *LAPLACE, "--samples", "10000"]),
    ]
    print(f"Whole processes, best of {args.repeats} (wall seconds):")
    print("| process | seconds |\n|---|---|")
    for name, cmd in rows:
        print(f"| `{name}` | {best(cmd, args.repeats):.3f} |", flush=True)
    print(f"\nPhases of one audit at {args.samples:,} a side in a fresh process (best of {args.repeats} per phase):")
    runs = []
    for _ in range(args.repeats):
        cmd = [py, "-c", PHASES, "x", *LAPLACE, "--samples", str(args.samples)]
        done = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
        if done.returncode != 0:
            sys.exit(done.stderr)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print("| phase | seconds |\n|---|---|")
    for key in runs[0]:
        print(f"| {key} | {min(r.get(key, 0.0) for r in runs):.3f} |")


if __name__ == "__main__":
    main()
