"""Where a policy audit's neighbouring relation is read: every function of the policy audit's modules (and the
report's presentation) whose code reads the definition or its relation — a name ``definition`` or ``relation``,
an attribute ``.definition`` or ``.relation`` — with the lines that do ("rooms" and "stays"), and the string
comparisons with a definition's name (``== "joint"``, ``in ("table", "view")``).

    python3 benchmarks/relation_spread.py                 # this tree
    python3 benchmarks/relation_spread.py --tree /tmp/x   # another checkout (a worktree of an earlier commit)

A static count over the source (docstrings and comments not read), not a trace of one audit: it counts every
function that could meet the relation, not those one audit's path meets.  The mechanism engine's ``relation``
(a claim's neighbours) is not counted: only policy-audit modules and the presentation are read.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ["privcheck/audits/policy", "privcheck/audits/present/text.py", "privcheck/audits/report.py"]
NAMES = {"definition", "relation"}
DEFINITIONS = {"table", "view", "interactive", "joint", "local"}


def _reads(node) -> bool:
    if isinstance(node, ast.Name) and node.id in NAMES:
        return True
    return isinstance(node, ast.Attribute) and node.attr in NAMES


def _compares_a_name(node) -> bool:
    """A comparison with a definition's name: ``x == "joint"``, ``x in ("table", "view")``."""
    if not isinstance(node, ast.Compare):
        return False
    for side in [node.left, *node.comparators]:
        values = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
        if any(isinstance(v, ast.Constant) and v.value in DEFINITIONS for v in values):
            return True
    return False


def spread(tree: Path) -> tuple[dict, int]:
    rooms, compares = {}, 0
    paths = []
    for f in FILES:
        p = tree / f
        paths += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    for path in paths:
        module = ast.parse(path.read_text())
        for fn in ast.walk(module):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            lines = set()
            for node in ast.walk(fn):
                if node is not fn and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    continue
                if _reads(node):
                    lines.add(node.lineno)
                compares += _compares_a_name(node)
            args = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
            if lines or args & NAMES:
                rooms[f"{path.relative_to(tree)}:{fn.name}"] = len(lines)
    return rooms, compares


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", type=Path, default=ROOT)
    args = p.parse_args()
    rooms, compares = spread(args.tree)
    for room, stays in sorted(rooms.items(), key=lambda kv: -kv[1]):
        print(f"{stays:4d}  {room}")
    print(
        f"\n{sum(rooms.values())} lines in {len(rooms)} functions read the definition or its relation; "
        f"{compares} comparisons with a definition's name"
    )


if __name__ == "__main__":
    main()
