"""A policy audited at the horizon of the papers' experiments (T = 10⁶): the whole command, in a child process,
ends within ten minutes and its memory stays under 4 GB (runs kept as summaries, stretches of fixed actions run as
blocks, the input search on a prefix of the horizon).  The timeout is a guard against a hang, not a benchmark:
the measured figures are in benchmarks/RESULTS.md."""

import json
import resource
import subprocess
import sys

import pytest


@pytest.mark.slow  # about two minutes on two cores
def test_adac_ucb_at_a_million_rounds(tmp_path):
    cmd = [sys.executable, "-m", "privcheck.cli", "audit", "adac-ucb", "--rho", "0.5", "--horizon", "1e6"]
    out = subprocess.run(
        # (--workers 1: the slow tier runs a test per CPU; the default executor's own processes would load the machine
        # under the tier's timing-sized tests — the ceiling test sized its runs to the floor beside it)
        [*cmd, "--samples", "20", "--seed", "1", "--json", "--quiet", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert report["instance"] == {"schedule": "published", "horizon": 1_000_000, "options": {"rho": 0.5}}
    assert report["samples_per_side"] == 20
    assert any("input search on the first" in n for n in report["notes"])
    assert any("summaries of the action sequences" in n for n in report["notes"])
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child's, in KiB on Linux
    assert peak_kib < 4 * 1024**2, peak_kib
