"""The CI tutorial's workflow (examples/privacy-ci.yml), its install and test steps run as written: in a fresh
virtual environment, on a project laid out as the workflow expects (privcheck's source in privcheck/, the
project's privacy tests in tests/)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_steps() -> list[str]:
    """The workflow's ``run:`` steps, as written."""
    lines = (ROOT / "examples/privacy-ci.yml").read_text().splitlines()
    return [line.split("- run:", 1)[1].strip() for line in lines if line.strip().startswith("- run:")]


def test_the_tutorial_shows_the_workflows_steps():
    page = (ROOT / "docs/tutorials/ci.md").read_text()
    steps = _run_steps()
    assert steps and all(f"- run: {s}" in page for s in steps)
    assert not any("pip install privcheck" in s for s in steps)  # privcheck is installed from its source


@pytest.mark.slow
def test_the_workflows_steps_run_as_written(tmp_path):
    """The two steps in a virtual environment that sees this machine's packages (numpy, scipy, … are not
    downloaded) but installs privcheck from ./privcheck itself (a copy of this checkout's tracked files)."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        if name.startswith(("privcheck/", "mechanisms/", "policies/", "proofs/", "csrc/")) or "/" not in name:
            (project / "privcheck" / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, project / "privcheck" / name)
    shutil.copy2(ROOT / "examples/test_privacy.py", project / "tests/test_privacy.py")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(venv)}
    env.pop("PYTHONPATH", None)
    for step in _run_steps():
        done = subprocess.run(step, shell=True, cwd=project, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (step, done.stdout[-2000:], done.stderr[-2000:])
    where = subprocess.run(
        [str(venv / "bin/python"), "-c", "import privcheck; print(privcheck.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(venv))  # the copy installed from ./privcheck, not this checkout
    assert (project / "audits.json").exists()
