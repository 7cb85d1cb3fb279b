"""Exact-engine time of each built-in, this tree against an earlier one, in the same run.

Each case is the whole ``privcheck audit …`` process (start-up included); the CPU time (user + system of the
child) and the wall time are measured, alternating the two trees ``--repeats`` times, and the medians printed
with the ratio.  The earlier tree is a checkout (e.g. ``git worktree add /tmp/before 035ed2e``) put first on
PYTHONPATH, so its modules replace the installed ones.

    python3 benchmarks/exact_engine.py --before /tmp/before --repeats 5
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

RULES = '{"rules": [[[0.9, 0.1]], [[0.7, 0.3], [0.9, 0.1], [0.7, 0.3], [0.9, 0.1]]]}'

CASES = [
    ["laplace", "--epsilon", "1"],
    ["laplace", "--epsilon", "0.01"],
    ["gaussian", "--rho", "0.5"],
    ["gaussian", "--epsilon", "1", "--delta", "1e-5"],
    ["staircase", "--epsilon", "1"],
    ["truncated-mean", "--epsilon", "1"],
    ["randomized-response", "--epsilon", "1"],
    ["k-rr", "--epsilon", "1"],
    ["staircase-pattern", "--epsilon", "1"],
    ["tabular", "--rules", "{rules}", "--definition", "table", "--epsilon", "1.0986122886681098"],
    ["kl-ucb-cf", "--rr-epsilon", "1", "--epsilon", "1", "--definition", "table", "--horizon", "4", "--arms", "2"],
    [
        "kl-ucb-cf",
        "--rr-epsilon",
        "1",
        "--epsilon",
        "1",
        "--delta",
        "0.01",
        "--definition",
        "interactive",
        "--horizon",
        "4",
        "--arms",
        "2",
    ],
]


def _run(tree, argv, cwd):
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from privcheck.cli import main; sys.exit(main())",
            "audit",
            *argv,
            "--seed",
            "1",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    verdict = {0: "not refuted", 1: "REFUTED"}.get(out.returncode, f"exit {out.returncode}")
    return cpu, wall, verdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", help="a checkout of the earlier tree (omit to time this tree only)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        rules = pathlib.Path(d) / "rules.json"
        rules.write_text(RULES)
        trees = [("now", None)] + ([("before", args.before)] if args.before else [])
        print(f"{'privcheck audit …':<88} {'tree':<7} {'CPU s':>7} {'wall s':>7}  verdict")
        for case in CASES:
            argv = [a.replace("{rules}", str(rules)) for a in case]
            got = {name: [] for name, _ in trees}
            for _ in range(args.repeats):
                for name, tree in trees:
                    got[name].append(_run(tree, argv, d))  # cwd outside both trees: -c puts it first
            for name, _ in trees:
                cpu = statistics.median(r[0] for r in got[name])
                wall = statistics.median(r[1] for r in got[name])
                print(
                    f"{' '.join(case).replace('{rules}', 'rules.json'):<88} {name:<7} {cpu:>7.2f} {wall:>7.2f}  "
                    f"{got[name][0][2]}",
                    flush=True,
                )
            if args.before:
                r = statistics.median(x[0] for x in got["now"]) / statistics.median(x[0] for x in got["before"])
                print(f"{'':<88} {'ratio':<7} {r:>7.2f}")


if __name__ == "__main__":
    main()
