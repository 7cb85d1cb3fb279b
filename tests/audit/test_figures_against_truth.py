"""Every figure of the exact engine against an exact oracle, on random finite faces as users give them
(tests/support/corpus.py): no claim at the truth is refuted, no reported lower bound exceeds the truth, nothing crashes,
and a claim 1e-9 below a truth the engine resolves (pure ε, δ(ε), D_2) is refuted.  ``benchmarks/soundness.py``
runs the same corpus at scale."""

import numpy as np
import pytest

from corpus import KINDS, Tally, check_face


def _run(kind, faces, seed):
    tally = Tally()
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    for _ in range(faces):
        check_face(rng, kind, tally)
    assert tally.claims > 0
    assert not tally.failures(), "\n".join(tally.failures()[:5])


@pytest.mark.parametrize(  # (a tiny face, 2 s: the slow tier, with every kind at scale)
    "kind", [pytest.param(k, marks=pytest.mark.slow) if k == "tiny" else k for k in KINDS]
)
def test_random_faces_against_their_exact_figures(kind):
    _run(kind, 1 if kind == "tiny" else 2, 0)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_random_faces_against_their_exact_figures_at_scale(kind):
    _run(kind, 60, 1)
