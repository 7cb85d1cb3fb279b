import numpy as np
import pytest

from privcheck.cli import main

pytest_plugins = ["pytester"]  # the pytest plugin is tested with pytest's own pytester


def _state():
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return name, keys.tobytes(), pos, has_gauss, cached


@pytest.fixture(autouse=True)
def _no_global_numpy_random():
    """Fail any test that touches numpy's global random state: randomness must be an explicit Generator."""
    before = _state()
    yield
    assert _state() == before, "the test changed numpy's global random state"


@pytest.fixture
def run(capsys):
    """Run ``privcheck ARGV...`` in this process: (exit code, stdout, stderr)."""

    def _run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run
