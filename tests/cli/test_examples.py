"""Every command of the README that names a file of examples/, and every command in those files' docstrings,
runs as written (from the repository root) and ends with the verdict it is there to show."""

import ast
import re
import shlex
from pathlib import Path

import pytest

from privcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _commands(text: str) -> list[str]:
    text = text.replace("\\\n", " ")
    return [
        re.sub(r"\s+#.*$", "", line.strip())
        for line in text.splitlines()
        if line.strip().startswith("privcheck ") and "examples/" in line
    ]


def _documented() -> list[str]:
    cmds = _commands((ROOT / "README.md").read_text())
    for f in sorted(EXAMPLES.glob("*.py")):
        doc = ast.get_docstring(ast.parse(f.read_text())) or ""
        cmds += _commands(doc)
    return sorted(set(cmds))


def _expected(cmd: str) -> int:
    """1 for the examples that are there to be refuted, 0 for the rest."""
    refuted = (
        "broken.py",
        "float_samplers.py",
        "mysvt.py",
        "audit examples/mypolicy.py",
        "sequential.py:make_shared_noise",
        "elimination.py:make_",
    )
    return 1 if any(r in cmd for r in refuted) else 0


COMMANDS = _documented()
#: the commands that take seconds (pure-Python samplers, pair search, sampled interactive audits): slow tier
_SLOW = ("mysvt.py", "--adversary", "--input", "elimination.py")


def test_the_examples_are_documented():
    named = {m for c in COMMANDS for m in re.findall(r"examples/(\w+\.\w+)", c)}
    assert named >= {
        "mymech.py",
        "broken.py",
        "mypolicy.py",
        "rules.json",
        "adversary.py",
        "event.py",
        "mysvt.py",
        "sequential.py",
        "float_samplers.py",
    }


@pytest.mark.parametrize(
    "cmd", [pytest.param(c, marks=pytest.mark.slow) if any(k in c for k in _SLOW) else c for c in COMMANDS]
)
def test_documented_command_runs(cmd, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    argv = shlex.split(cmd)[1:]
    code = main(argv)
    out, err = capsys.readouterr()
    assert err == "" and code == _expected(cmd), (cmd, out, err)
