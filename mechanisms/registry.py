"""The built-in mechanisms the command line knows by name.

Each entry calibrates its mechanism to the claim under test unless the mechanism's own parameters are given
(``scale``, ``sigma``, ``rr_epsilon``, ``p00``/``p11``, ``noise_epsilon``, …): that is how a user audits a
mis-calibrated instance.  The command line reads it by name; a worker rebuilds a built-in through
:func:`build_builtin` (a description, :mod:`privcheck.core.targets`), and the proofs build their instances here.
"""

from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass
from typing import Callable

from privcheck.core import ApproxDP, GaussianDP, InvalidArgument, PureDP, RenyiDP, ZCDP, check_real
from privcheck.core.tradeoff import pure_epsilon_of_mu

from .calibration import sqrt_div_up
from .counters import BinaryCounter, HonakerCounter, SmoothBinaryCounter, ToeplitzCounter
from .gaussian import Gaussian, GridGaussian
from .laplace import GridLaplace, Laplace
from .p2b import Shuffler, sharing_probability_for
from .randomized_response import BinaryRandomizedResponse, KaryRandomizedResponse, optimal_randomized_response
from .staircase import GridStaircase, StaircaseNoise, StaircasePattern
from .tree import GridTreeCounter, TreeCounter
from .truncation import GridTruncatedMean, TruncatedMean

__all__ = ["Builtin", "BUILTINS", "build_builtin"]


@dataclass(frozen=True)
class Builtin:
    name: str
    summary: str
    parameters: dict  # own parameter -> meaning
    build: Callable  # (claim under test, {parameter: value or None}) -> mechanism: the shape of every registry's
    # builder, build(context, params) — the context a mechanism is calibrated to, or a policy acts in


def _pure_epsilon(claim, name: str, own: str) -> float:
    """The ε a mechanism calibrated from ε-DP should use for this claim (ε > 0 required)."""
    if isinstance(claim, (PureDP, ApproxDP)):
        eps = claim.epsilon
    elif isinstance(claim, ZCDP):
        eps = math.sqrt(2 * claim.rho)  # ε-DP ⇒ ε²/2-zCDP
    elif isinstance(claim, GaussianDP):
        eps = pure_epsilon_of_mu(claim.mu)  # ε-DP ⇒ 2Φ⁻¹(e^ε/(1 + e^ε))-GDP
    else:
        raise InvalidArgument(f"{name} cannot be calibrated to a Rényi claim: give {own}")
    if eps <= 0:
        raise InvalidArgument(f"{name} is calibrated from epsilon=, which must be > 0 here (or give {own})")
    return eps


def _sens(p, default=1.0):
    return default if p.get("sensitivity") is None else p["sensitivity"]


def _sampler(p) -> str:
    s = p.get("sampler") or "exact"
    if s not in ("exact", "float"):
        raise InvalidArgument(
            f"sampler={s!r} must be exact (on a grid, the default) or float (the textbook "
            "floating-point sampler: not protected against bit-level attacks)"
        )
    return s


def _no_grid(p):
    if p.get("grid") is not None:
        raise InvalidArgument('grid= applies to the exact sampler (sampler="exact")')


def _laplace(claim, p):
    if _sampler(p) == "float":
        _no_grid(p)
        cls, kw = Laplace, {}
    else:
        cls, kw = GridLaplace, {"grid": p.get("grid")}
    if p.get("scale") is not None:
        return cls(scale=p["scale"], sensitivity=_sens(p), **kw)
    return cls(epsilon=_pure_epsilon(claim, "laplace", "scale="), sensitivity=_sens(p), **kw)


def _gaussian(claim, p):
    s = _sens(p)
    if _sampler(p) == "exact" and p.get("calibration") is None:
        return _grid_gaussian(claim, p, s)
    _no_grid(p)
    if p.get("sigma") is not None:
        return Gaussian(p["sigma"], s)
    if isinstance(claim, ZCDP):
        return Gaussian.for_zcdp(claim.rho, s)
    if isinstance(claim, GaussianDP):
        return Gaussian.for_gdp(claim.mu, s)
    if isinstance(claim, RenyiDP):  # the smallest σ with αΔ²/(2σ²) ≤ ε exactly
        return Gaussian(sqrt_div_up(Fraction(claim.order) * Fraction(s) ** 2, 2 * Fraction(claim.epsilon)), s)
    if isinstance(claim, ApproxDP) and claim.delta > 0:
        if p.get("calibration") == "classic" or (p.get("calibration") is None and claim.epsilon < 1):
            return Gaussian.classic(claim.epsilon, claim.delta, s)
        return Gaussian.analytic(claim.epsilon, claim.delta, s)
    raise InvalidArgument("the Gaussian mechanism is not ε-DP for any finite ε: give delta=, rho=, mu= or sigma=")


def _grid_gaussian(claim, p, s):
    """The grid Gaussian calibrated to the claim from the discrete Gaussian's own profile: ρ (zCDP), αρ (Rényi)
    or δ(ε) (Theorem 7 of Canonne, Kamath and Steinke), or μ (:meth:`GridGaussian.for_gdp`); ``sigma`` gives σ in
    output units (rounded up to whole
    grid steps)."""
    g = p.get("grid")
    if p.get("sigma") is not None:
        sigma = check_real("sigma", p["sigma"], lower=0.0, lower_open=True)
        grid = GridGaussian._grid(s, sigma) if g is None else g
        return GridGaussian(math.ceil(Fraction(sigma) / Fraction(grid)), grid, s)
    if isinstance(claim, ZCDP):
        return GridGaussian.for_zcdp(claim.rho, s, g)
    if isinstance(claim, GaussianDP):
        return GridGaussian.for_gdp(claim.mu, s, g)
    if isinstance(claim, RenyiDP):
        return GridGaussian.for_renyi(claim.order, claim.epsilon, s, g)
    if isinstance(claim, ApproxDP) and claim.delta > 0:
        return GridGaussian.for_approx(claim.epsilon, claim.delta, s, g)
    raise InvalidArgument("the Gaussian mechanism is not ε-DP for any finite ε: give delta=, rho=, mu= or sigma=")


def _rr(claim, p):
    if p.get("p00") is not None or p.get("p11") is not None:
        if p.get("p00") is None or p.get("p11") is None:
            raise InvalidArgument("give both p00= and p11=")
        return BinaryRandomizedResponse(p["p00"], p["p11"])
    eps = (
        p["rr_epsilon"]
        if p.get("rr_epsilon") is not None
        else _pure_epsilon(claim, "randomized-response", "rr_epsilon=")
    )
    return optimal_randomized_response(eps)


def _k(p, default=4) -> int:
    k = default if p.get("k") is None else p["k"]
    if k != int(k) or k < 2:
        raise InvalidArgument(f"k={k!r} must be an integer >= 2")
    return int(k)


def _krr(claim, p):
    eps = p["rr_epsilon"] if p.get("rr_epsilon") is not None else _pure_epsilon(claim, "k-rr", "rr_epsilon=")
    return KaryRandomizedResponse(_k(p), eps)


def _pattern(claim, p):
    eps = (
        p["rr_epsilon"] if p.get("rr_epsilon") is not None else _pure_epsilon(claim, "staircase-pattern", "rr_epsilon=")
    )
    return StaircasePattern(eps, k=_k(p))


def _noise_eps(claim, p, name):
    if p.get("noise_epsilon") is not None:
        return p["noise_epsilon"]
    return _pure_epsilon(claim, name, "noise_epsilon=")


def _staircase(claim, p):
    eps = _noise_eps(claim, p, "staircase")
    if _sampler(p) == "float":
        _no_grid(p)
        return StaircaseNoise(eps, _sens(p), p.get("gamma"))
    return GridStaircase(eps, _sens(p), p.get("gamma"), grid=p.get("grid"))


def _truncated(claim, p):
    eps, bound = _noise_eps(claim, p, "truncated-mean"), 1.0 if p.get("bound") is None else p["bound"]
    if _sampler(p) == "float":
        _no_grid(p)
        return TruncatedMean(eps, bound)
    return GridTruncatedMean(eps, bound, p.get("grid"))


def _tree(claim, p):
    horizon = 8 if p.get("horizon") is None else p["horizon"]
    if horizon != int(horizon) or horizon < 1:
        raise InvalidArgument(f"horizon={horizon!r} must be an integer >= 1")
    eps = _noise_eps(claim, p, "tree-counter")
    if _sampler(p) == "float":
        _no_grid(p)
        return TreeCounter(eps, int(horizon), _sens(p))
    return GridTreeCounter(eps, int(horizon), _sens(p), grid=p.get("grid"))


def _gaussian_counter(cls):
    """A Gaussian counter's builder: calibrated to the claim's ρ (zCDP) or μ (Gaussian DP), its noise scaled by
    ``noise_multiplier`` (a mis-calibrated instance: below 1, too little noise)."""

    def build(claim, p):
        horizon = _count(p, "horizon", 16)
        kw = {}
        if isinstance(claim, ZCDP):
            kw["rho"] = claim.rho
        elif isinstance(claim, GaussianDP):
            kw["mu"] = claim.mu
        else:
            raise InvalidArgument(f"{cls.name} is calibrated to a zCDP (rho) or Gaussian DP (mu) claim")
        multiplier = 1.0 if p.get("noise_multiplier") is None else p["noise_multiplier"]
        return cls(horizon, noise_multiplier=multiplier, sampler=_sampler(p), **kw)

    return build


_COUNTER_PARAMETERS = {
    "horizon": "stream length T (default 16)",
    "noise_multiplier": "the noise's standard deviation times this (default 1: as calibrated)",
    "sampler": "exact (default: the noisy core in grid steps, the discrete Gaussian) | float (numpy's normals: "
    "refuted through their bits)",
}


def _count(p, key, default) -> int:
    v = default if p.get(key) is None else p[key]
    if v != int(v) or v < 1:
        raise InvalidArgument(f"{key}={v!r} must be an integer >= 1")
    return int(v)


def _p2b(claim, p):
    """Pre-sampling probability from the claim when not given: ε = −ln(1 − p) ⇔ p = 1 − e^(−ε)."""
    if p.get("sharing_probability") is not None:
        prob = p["sharing_probability"]
    else:
        # the largest double p with −ln(1 − p) ≤ ε (below 1 whatever ε: the claim holds as represented)
        prob = sharing_probability_for(_pure_epsilon(claim, "p2b-shuffler", "sharing_probability="))
    return Shuffler(
        prob,
        _count(p, "threshold", 10),
        _count(p, "codes", 4),
        _count(p, "actions", 2),
        p.get("threshold_on") or "tuple",
    )


BUILTINS: dict[str, Builtin] = {
    b.name: b
    for b in [
        Builtin(
            "laplace",
            "x + Lap(Δ/ε) on a grid: round(x/g)·g + g·(exact discrete Laplace); ε-DP, replace-l1 "
            "(calibrated to Δ + g: inputs off the grid move by up to g/2 each)",
            {
                "scale": "noise scale b (claim ε = (Δ + g)/b)",
                "sensitivity": "Δ (default 1)",
                "grid": "g, a power of two (default: the largest <= Δ·2^-20)",
                "sampler": "exact (default: integers only) | float (textbook rng.laplace, no grid: not protected "
                "against bit-level attacks)",
            },
            _laplace,
        ),
        Builtin(
            "gaussian",
            "x + N(0, σ²) on a grid: round(x/g)·g + g·(exact discrete Gaussian per coordinate), "
            "calibrated from the discrete Gaussian's own ρ, Rényi or δ(ε) profile for a shift of ⌊Δ/g⌋ + 1 steps",
            {
                "sigma": "noise standard deviation",
                "sensitivity": "l2 sensitivity Δ (default 1)",
                "grid": "g, a power of two (default: the largest <= min(Δ·2^-20, σ·2^-26))",
                "calibration": "classic | analytic, for (ε,δ) claims (the float sampler's; implies sampler float)",
                "sampler": "exact (default; for vectors σ from ρ, ε/α or Bun–Steinke's ρ for (ε,δ)) | float "
                "(textbook rng.normal: not protected against bit-level attacks)",
            },
            _gaussian,
        ),
        Builtin(
            "randomized-response",
            "binary randomized response; optimal ε-LDP p00 = p11 = e^ε/(1+e^ε)",
            {"rr_epsilon": "ε of the optimal form", "p00": "P[0|0]", "p11": "P[1|1]"},
            _rr,
        ),
        Builtin(
            "k-rr", "k-ary randomized response; ε-LDP", {"k": "alphabet size (default 4)", "rr_epsilon": "its ε"}, _krr
        ),
        Builtin(
            "staircase-pattern",
            "finite staircase-pattern channel (identity pattern); ε-LDP",
            {"k": "alphabet size (default 4)", "rr_epsilon": "its ε"},
            _pattern,
        ),
        Builtin(
            "staircase",
            "x + Geng–Viswanath staircase noise, discretised on a grid (stairs of ⌈Δ/g⌉ + 1 steps, "
            "drawn exactly); ε-DP, replace-l1, scalar inputs",
            {
                "noise_epsilon": "its ε",
                "sensitivity": "Δ (default 1)",
                "gamma": "γ in [0,1] (default optimal)",
                "grid": "g, a power of two (default: the largest <= Δ·2^-20)",
                "sampler": "exact (default) | float (textbook, not protected against bit-level attacks)",
            },
            _staircase,
        ),
        Builtin(
            "truncated-mean",
            "mean(x·1{|x|≤B}) + Lap(2B/(Rε)) on a grid (the mean rounded to g, exact discrete "
            "Laplace noise, calibrated to one more grid step); ε-DP, replace-one-record",
            {
                "noise_epsilon": "its ε",
                "bound": "truncation bound B (default 1)",
                "grid": "g, a power of two (default: the largest <= 2^-20 of the mean's sensitivity)",
                "sampler": "exact (default) | float (textbook, not protected against bit-level attacks)",
            },
            _truncated,
        ),
        Builtin(
            "tree-counter",
            "continual prefix sums, Lap(LΔ/ε) on every dyadic block, on a grid (elements rounded "
            "to g, exact discrete Laplace noise calibrated to Δ + g); ε-DP, replace-l1",
            {
                "noise_epsilon": "its ε",
                "horizon": "stream length T (default 8)",
                "sensitivity": "Δ (default 1)",
                "grid": "g, a power of two (default: the largest <= Δ·2^-20)",
                "sampler": "exact (default) | float (textbook, not protected against bit-level attacks)",
            },
            _tree,
        ),
        Builtin(
            "binary-counter",
            "continual prefix sums of a stream in [0, 1], the binary (tree) mechanism with exact Gaussian noise on "
            "every dyadic block; ρ-zCDP or μ-GDP, event-level",
            _COUNTER_PARAMETERS,
            _gaussian_counter(BinaryCounter),
        ),
        Builtin(
            "honaker-counter",
            "the binary mechanism's noisy blocks refined bottom-up (Honaker): the same privacy, less variance",
            _COUNTER_PARAMETERS,
            _gaussian_counter(HonakerCounter),
        ),
        Builtin(
            "smooth-binary-counter",
            "the binary mechanism on the leaves whose h-bit index has k ones: every prefix the same k + 1 noisy "
            "nodes, the same variance at every step (Andersson and Pagh)",
            _COUNTER_PARAMETERS,
            _gaussian_counter(SmoothBinaryCounter),
        ),
        Builtin(
            "toeplitz-counter",
            "continual prefix sums by a banded Toeplitz factorisation (the prefix matrix's square root) with "
            "exact Gaussian noise; ρ-zCDP or μ-GDP, event-level",
            _COUNTER_PARAMETERS,
            _gaussian_counter(ToeplitzCounter),
        ),
        Builtin(
            "p2b-shuffler",
            "P2B: each user reports w.p. p, the shuffler releases tuples seen >= l times; "
            "(−ln(1 − p), δ*)-DP, replace-one-user",
            {
                "sharing_probability": "p (default from the claim's ε: 1 − e^(−ε))",
                "threshold": "l (default 10)",
                "threshold_on": "tuple (default) | code (the public code's way) | none",
                "codes": "k, codes in the audited populations (default 4)",
                "actions": "actions (default 2)",
            },
            _p2b,
        ),
    ]
}


def build_builtin(name: str, claim, params: dict):
    """The built-in ``name`` calibrated to ``claim`` unless ``params`` (its own parameters) say otherwise — the
    factory a built-in's description names, so that a worker process rebuilds exactly this mechanism."""
    if name not in BUILTINS:
        raise InvalidArgument(f"unknown built-in mechanism {name!r}")
    return BUILTINS[name].build(claim, dict(params))
