"""A built wheel installs privcheck under its own names only, and its command runs from anywhere."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_built_wheel_installs_and_audits(tmp_path):
    """Builds the wheel (pip, with the build back end from the index), installs it into a folder of its own and runs
    the README's first command there, from a folder that is not this checkout."""
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    subprocess.run(pip + ["wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)], check=True)
    (wheel,) = (tmp_path / "dist").glob("privcheck-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {
        "privcheck",
        "pytest_privcheck.py",
        wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info",
    }
    site = tmp_path / "site"
    subprocess.run(pip + ["install", "--no-deps", "--target", str(site), str(wheel)], check=True)
    (tmp_path / "elsewhere").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "privcheck.cli", "audit", "laplace", "--epsilon", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path / "elsewhere",
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert "is not refuted" in done.stdout
    probe = "import privcheck.policies as p, privcheck.mechanisms as m; print(p.__file__); print(m.__file__)"
    where = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path / "elsewhere",
        env={"PYTHONPATH": str(site)},
    )
    assert all(line.startswith(str(site)) for line in where.stdout.split())
