import mpmath
import numpy as np
import pytest

from privcheck.cli import main
from privcheck.core import execution

pytest_plugins = ["pytester"]  # the pytest plugin is tested with pytest's own pytester

# The tier already runs on every CPU (pytest-xdist): an audit in it starts no processes of its own where none are
# asked for (the default executor's threshold; tests/core/test_execution.py tests the executor at its own).
execution.AUTO_AFTER = float("inf")


def _state():
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return name, keys.tobytes(), pos, has_gauss, cached


@pytest.fixture(autouse=True)
def _no_global_numpy_random():
    """Fail any test that touches numpy's global random state: randomness must be an explicit Generator."""
    before = _state()
    yield
    assert _state() == before, "the test changed numpy's global random state"


@pytest.fixture(autouse=True)
def _mpmath_precision_kept():
    """Fail any test that leaves mpmath's working precision changed (a global: set and not restored, it held for
    every later test in the worker — the kl-index tests' references failed at 30 digits after the mechanism tests'
    module set it at import). Set it with ``mpmath.workdps``."""
    before = mpmath.mp.prec
    yield
    assert mpmath.mp.prec == before, "the test changed mpmath's working precision"


@pytest.fixture
def run(capsys):
    """Run ``privcheck ARGV...`` in this process: (exit code, stdout, stderr)."""

    def _run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run
