"""The same JSON before and after a change: each command below, run with ``--seed 7 --json`` in this tree and in
an install of an earlier commit, compared as parsed JSON without ``seconds`` and ``versions``.

    python3 benchmarks/same_json.py --base 94c35f4            # every command
    python3 benchmarks/same_json.py --base 94c35f4 --only joint

The earlier commit is installed (not editable) into a folder of its own under /tmp and run from there with
``PYTHONPATH``, so that its ``privcheck.mechanisms`` and ``privcheck.policies`` are its own; both run from this
checkout's root (the examples' paths).  Prints one row per command: identical, or the keys that differ.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the README's and the docs' commands, one or more per neighbouring relation and engine (each a few seconds)
COMMANDS = [
    "audit laplace --epsilon 1",
    "audit laplace --scale 0.5 --epsilon 1",
    "audit gaussian --rho 0.5",
    "audit examples/mymech.py:noisy_sum --epsilon 0.5 --pair [1,2,3] [0,2,3] --samples 100000",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition table --horizon 5",
    "audit tabular --rules examples/rules.json --definition view --epsilon 0.9 --delta 0.2 --method exact",
    "audit tabular --rules examples/rules.json --definition table --epsilon 0.9 --delta 0.2 --method exact",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition table --horizon 50 --arms 2 --samples 20000",
    "audit sw-klucb-cf --rr-epsilon 1 --epsilon 1 --definition local --sequence-length 5",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --order 2 --definition interactive --horizon 3 --method exact",
    "audit kl-ucb-cf --rr-epsilon 1 --epsilon 1 --definition interactive --horizon 4 --method sample --samples 20000",
    "audit adac-ucb --rho 0.5 --samples 20000",
    "audit ldp-robust-se --epsilon 1 --nu 0.9",
    "audit dp-robust-se --epsilon 1 --nu 0.9 --samples 2000",
    "audit examples/sequential.py:make_shared_noise --epsilon 1 --definition table --arms 2 --horizon 40 "
    "--samples 5000",
    "audit examples/sequential.py:make --epsilon 1 --definition view --arms 2 --horizon 20 --samples 3000",
    "audit examples/linear.py:make --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 --samples 2000",
    "audit examples/linear.py:make_raw_gram --epsilon 1 --definition joint --arms 2 --dim 2 --horizon 12 "
    "--samples 2000",
    "audit examples/linear.py:make_local --epsilon 1 --definition local --arms 2 --dim 2 --horizon 12 --samples 5000",
    "audit examples/linear.py:make --epsilon 1 --definition table --arms 2 --dim 2 --horizon 12 --samples 2000",
]

_RUN = "import sys; from privcheck.cli import main; sys.exit(main(sys.argv[1:]))"


def installed(ref: str) -> Path:
    """An install of commit ``ref`` (made once): a worktree, then ``pip install --target``."""
    home = Path("/tmp/privcheck_same_json") / ref
    site = home / "site"
    if (site / "privcheck").is_dir():
        return site
    tree = home / "tree"
    if not tree.is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", str(tree), ref], check=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(tree)], check=True
    )
    return site


def run(command: str, site: Path | None) -> tuple[int, dict | None, float]:
    argv = shlex.split(command)
    if "--seed" not in argv:
        argv += ["--seed", "7"]
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RUN, *argv, "--json", "--quiet"], capture_output=True, text=True, cwd=ROOT, env=env
    )
    took = time.perf_counter() - t0
    try:
        return done.returncode, json.loads(done.stdout), took
    except ValueError:
        return done.returncode, {"stderr": done.stderr.strip()[-300:]}, took


def differing(a: dict, b: dict) -> list:
    keys = (set(a) | set(b)) - {"seconds", "versions"}
    return sorted(k for k in keys if a.get(k) != b.get(k))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", required=True, help="the earlier commit")
    p.add_argument("--only", help="the commands holding this text")
    args = p.parse_args()
    site = installed(args.base)
    same = 0
    todo = [c for c in COMMANDS if args.only is None or args.only in c]
    print("| command (with --seed 7 --json) | exit (base/now) | JSON | seconds (base/now) |\n|---|---|---|---|")
    for c in todo:
        rb, jb, tb = run(c, site)
        rn, jn, tn = run(c, None)
        diff = differing(jb or {}, jn or {})
        same += not diff and rb == rn
        print(
            f"| `{c}` | {rb}/{rn} | {'identical' if not diff else 'differs: ' + ', '.join(diff)} | {tb:.1f}/{tn:.1f} |"
        )
        sys.stdout.flush()
    print(f"\n{same} of {len(todo)} identical (exit code and JSON less seconds and versions)")
    return 0 if same == len(todo) else 1


if __name__ == "__main__":
    sys.exit(main())
