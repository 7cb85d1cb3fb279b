import numpy as np
import pytest


def _state():
    name, keys, pos, has_gauss, cached = np.random.get_state()
    return name, keys.tobytes(), pos, has_gauss, cached


@pytest.fixture(autouse=True)
def _no_global_numpy_random():
    """Fail any test that touches numpy's global random state: randomness must be an explicit Generator."""
    before = _state()
    yield
    assert _state() == before, "the test changed numpy's global random state"
