"""Stream neighbours (issue 72): event-level (one element replaced) and user-level (one user's k elements at least
b apart), and the positions their search proposes."""

import numpy as np
import pytest

from privcheck import EventLevel, InvalidArgument, UserLevel
from privcheck.core.neighbours import relation_from_name, stream_positions


def test_the_positions_a_counter_is_sensitive_at():
    p = stream_positions(16)
    assert p[:2] == [0, 15] and {1, 3, 7}.issubset(p) and {2, 4, 8}.issubset(p) and len(p) == len(set(p))
    assert all(0 <= i < 16 for i in p) and stream_positions(1) == [0]


def test_the_positions_hold_every_built_in_counters_worst_element():
    """The element whose release is least private — the first for the binary, smooth binary and Toeplitz counters,
    1010…₂ for Honaker's (its weights read it most) — is among the positions searched."""
    from privcheck.mechanisms import counters

    every = (counters.BinaryCounter, counters.HonakerCounter, counters.SmoothBinaryCounter, counters.ToeplitzCounter)
    for cls in every:
        for T in (16, 64, 256):  # (measured to 4,096: each a minute or more of exact ρ at the largest)
            per = np.asarray(cls(T, rho=0.5).rho_per_element())
            assert per[stream_positions(T)].max() >= per.max() * (1 - 1e-9), (cls.__name__, T)


def test_event_level_neighbours():
    rel = EventLevel(0.0, 1.0)
    x = np.zeros(8)
    pairs = rel.candidate_pairs(x, None)
    assert pairs and all(rel.contains(a, b) for a, b in pairs)
    assert {int(np.flatnonzero(b)[0]) for _, b in pairs} >= {0, 7, 1, 3}
    y = x.copy()
    y[[1, 2]] = 1
    assert not rel.contains(x, y) and not rel.contains(x, x + 2)
    v = np.zeros((6, 3))  # a stream of vectors: one element (row) replaced
    w = v.copy()
    w[2] = 1
    assert rel.contains(v, w) and all(rel.contains(a, b) for a, b in rel.candidate_pairs(v, None))
    with pytest.raises(InvalidArgument, match="lo < hi"):
        EventLevel(1.0, 0.0)


def test_user_level_neighbours():
    rel = UserLevel(3, 2)
    x = np.zeros(10)
    pairs = rel.candidate_pairs(x, None)
    assert all(rel.contains(a, b) for a, b in pairs)
    assert [0, 2, 4] in [np.flatnonzero(b).tolist() for _, b in pairs]
    y = x.copy()
    y[[0, 1]] = 1  # one apart: not one user's
    assert not rel.contains(x, y)
    assert relation_from_name("user:3,2", None) == rel and relation_from_name("event", None) == EventLevel()
    with pytest.raises(InvalidArgument, match="user:k,b"):
        relation_from_name("user:3", None)
