"""The noise mechanisms of the DP libraries people call, as privcheck targets ``f(x, rng, size)``.

Each wraps the library's own mechanism, calibrated as Lokna, Paradis, Dimitrov and Vechev audit it ("Group and
Attack: Auditing Differential Privacy", CCS 2023, Tables 4 and 6): ε = 1, Δ = 1, δ = 10⁻⁶ for the Gaussians.  None
of these libraries is a dependency of privcheck: a row whose library is not installed is skipped, and
``python3 benchmarks/delta_siege.py`` says how to install them
(``pip install diffprivlib opendp python-dp opacus``; diffprivlib 0.6 needs scikit-learn < 1.7).

* diffprivlib (IBM) ``Laplace``, ``Gaussian`` (classic σ), ``GaussianAnalytic`` (Balle and Wang's σ): one
  ``randomise`` call per draw, the library's generator a ``numpy.random.RandomState`` seeded from ``rng`` (as
  Delta-Siege seeds it), so the draws reproduce.
* PyDP (Google's C++ library) ``LaplaceMechanism`` and ``GaussianMechanism``: ``add_noise`` per draw; the
  library's generator cannot be seeded, so these audits do not reproduce draw for draw (the report says so).
* OpenDP ``make_laplace`` and ``make_gaussian`` on a vector of the input repeated (OpenDP samples exactly, on a
  grid): its generator cannot be seeded either.
* Opacus ``_generate_noise`` — the noise its optimizer adds to a float32 gradient — on a float32 tensor holding x,
  ``secure_mode`` off (the default), its ``torch.Generator`` seeded from ``rng``: float32 outputs.
"""

from __future__ import annotations

import math

import numpy as np

EPSILON, DELTA, SENSITIVITY = 1.0, 1e-6, 1.0
#: the classic calibration Δ·√(2 ln(1.25/δ))/ε, which Delta-Siege gives the Gaussians without their own
SIGMA = SENSITIVITY * math.sqrt(2 * math.log(1.25 / DELTA)) / EPSILON


def _seed(rng) -> int:
    return int(rng.integers(0, 2**32))


def _loop(mech, method: str, x, size) -> np.ndarray:
    call = getattr(mech, method)
    v = float(x)
    return np.fromiter((call(v) for _ in range(size)), dtype=np.float64, count=size)


def diffprivlib_laplace(x, rng, size):
    from diffprivlib.mechanisms import Laplace

    mech = Laplace(epsilon=EPSILON, sensitivity=SENSITIVITY, random_state=np.random.RandomState(_seed(rng)))
    return _loop(mech, "randomise", x, size)


def diffprivlib_gaussian(x, rng, size):
    from diffprivlib.mechanisms import Gaussian

    state = np.random.RandomState(_seed(rng))
    mech = Gaussian(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY, random_state=state)
    return _loop(mech, "randomise", x, size)


def diffprivlib_gaussian_analytic(x, rng, size):
    from diffprivlib.mechanisms import GaussianAnalytic

    state = np.random.RandomState(_seed(rng))
    mech = GaussianAnalytic(epsilon=EPSILON, delta=DELTA, sensitivity=SENSITIVITY, random_state=state)
    return _loop(mech, "randomise", x, size)


def pydp_laplace(x, rng, size):
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    return _loop(LaplaceMechanism(EPSILON, SENSITIVITY), "add_noise", x, size)


def pydp_gaussian(x, rng, size):
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    return _loop(GaussianMechanism(EPSILON, DELTA, SENSITIVITY), "add_noise", x, size)


def _opendp(kind: str, size: int):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = (
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=size),
        (dp.l1_distance(T=float) if kind == "laplace" else dp.l2_distance(T=float)),
    )
    if kind == "laplace":
        return dp.m.make_laplace(*space, SENSITIVITY / EPSILON)
    return dp.m.make_gaussian(*space, SIGMA)


def opendp_laplace(x, rng, size):
    return np.asarray(_opendp("laplace", size)([float(x)] * size), dtype=np.float64)


def opendp_gaussian(x, rng, size):
    return np.asarray(_opendp("gaussian", size)([float(x)] * size), dtype=np.float64)


def opacus_gaussian(x, rng, size):
    import torch
    from opacus.optimizers.optimizer import _generate_noise

    generator = torch.Generator().manual_seed(_seed(rng))
    reference = torch.full((size,), float(x), dtype=torch.float32)
    return (reference + _generate_noise(SIGMA, reference, generator=generator)).numpy()


#: name → (function, the library it needs, the claim's δ: None for pure ε-DP)
LIBRARY_TARGETS = {
    "diffprivlib Laplace": (diffprivlib_laplace, "diffprivlib", None),
    "diffprivlib Gaussian (classic)": (diffprivlib_gaussian, "diffprivlib", DELTA),
    "diffprivlib Gaussian (analytic)": (diffprivlib_gaussian_analytic, "diffprivlib", DELTA),
    "PyDP Laplace": (pydp_laplace, "pydp", None),
    "PyDP Gaussian": (pydp_gaussian, "pydp", DELTA),
    "OpenDP Laplace": (opendp_laplace, "opendp", None),
    "OpenDP Gaussian": (opendp_gaussian, "opendp", DELTA),
    "Opacus Gaussian (float32)": (opacus_gaussian, "opacus", DELTA),
}
