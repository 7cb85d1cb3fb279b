"""Floating-point leaks are found by the default search, at every float width, and whole-profile (μ-GDP) claims
of Gaussian noise refute leaks of small mass that no single (ε, δ) point can show.

The default search reads real outputs at their own width (float16, float32, float64, the long double; a float64
array of float32 numbers at float32's) and trains boosted trees on their values and bits beside the fixed
families; the largest certified bound wins.  Each statistical test is seeded; a correct mechanism is refuted
with probability at most 5 % per audit by construction, and these seeds do not."""

import struct
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck import mechanisms as M
from privcheck import ApproxDP, GaussianDP, PureDP, ReplaceOne, audit
from privcheck.audits.mechanism.events import BitWindow, Statistic, float_width, mantissa_field, trailing_zero_bits

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
import float_samplers as F  # noqa: E402

_L1 = ReplaceOne("l1", 1.0)
_LONG = int(np.finfo(np.longdouble).nmant)
_UINT = {np.float16: ("<e", "<H", 10), np.float32: ("<f", "<I", 23), np.float64: ("<d", "<Q", 52)}


@pytest.mark.parametrize("fmt", [np.float16, np.float32, np.float64])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_mantissa_field_is_the_formats_own_bits(fmt, data):
    """The field read from numpy's view equals the low bits of the IEEE word packed by ``struct``; infinities read
    as 0 and the trailing-zero count is the lowest set bit's position (the width when the field is 0)."""
    pack, word, bits = _UINT[fmt]
    width = {np.float16: 16, np.float32: 32, np.float64: 64}[fmt]
    v = data.draw(st.floats(width=width, allow_nan=False))
    raw = struct.unpack(word, struct.pack(pack, v))[0]
    field = 0 if abs(v) == float("inf") else raw & ((1 << bits) - 1)
    got = mantissa_field(np.array([v], dtype=fmt), bits)
    assert int(got[0]) == field
    tz = bits if field == 0 else (field & -field).bit_length() - 1
    assert int(trailing_zero_bits(np.array([v], dtype=fmt), bits)[0]) == tz


@pytest.mark.skipif(_LONG <= 52 or _LONG > 63, reason="this machine's long double is no wider than a double")
@settings(max_examples=200, deadline=None)
@given(m=st.integers(0, (1 << 64) - 1), e=st.integers(-300, 300), sign=st.sampled_from([1, -1]))
def test_the_long_double_field_is_its_exact_fraction(m, e, sign):
    """For v = ±m·2^e held exactly in the long double, the field is the fraction of |v| normalised to [1, 2),
    read off the exact rational (its bits below the leading one)."""
    v = np.longdouble(sign) * np.ldexp(np.longdouble(m), e)
    exact = Fraction(int(m)) * Fraction(2) ** e
    if exact == 0:
        assert int(mantissa_field(np.array([v]), _LONG)[0]) == 0
        return
    k = exact.numerator.bit_length() - exact.denominator.bit_length()
    while exact / Fraction(2) ** k >= 2:
        k += 1
    while exact / Fraction(2) ** k < 1:
        k -= 1
    scaled = exact / Fraction(2) ** k * (1 << _LONG)  # in [2^nmant, 2^(nmant+1)): an integer, v being exact
    assert scaled.denominator == 1
    assert int(mantissa_field(np.array([v]), _LONG)[0]) == scaled.numerator - (1 << _LONG)


def test_outputs_are_read_at_their_own_width():
    rng = np.random.default_rng(0)
    z = rng.standard_normal(1000)
    assert float_width(z.astype(np.float16)) == 10
    assert float_width(z.astype(np.float32)) == 23
    assert float_width(z) == 52
    assert float_width(z.astype(np.float32).astype(np.float64)) == 23  # float32 results arriving as doubles
    assert float_width(z.astype(np.float16).astype(np.float64)) == 10
    assert float_width(np.round(z * 100)) == 52  # whole numbers: their integers' bits, read as they are
    assert float_width(np.arange(10)) is None
    assert float_width(z.astype(np.longdouble)) == (_LONG if _LONG != 52 else 52)
    both = [z.astype(np.float32).astype(np.float64), z]  # one side off the narrow grid: float64
    assert float_width(*both) == 52


def test_a_window_is_read_at_its_width():
    s = Statistic("output")
    v = np.array([1.5, 1.25, 1.0 + 2.0**-20], dtype=np.float32)
    ev = BitWindow(s, 20, 0.0, 4.0, 23)
    assert ev.indicator(v).tolist() == [True, True, False]  # 1.5: 22 zeros, 1.25: 21, 1 + 2^-20: 3
    assert BitWindow(s, 20, 0.0, 4.0).indicator(v.astype(np.float64)).all()  # as doubles all have ≥ 29
    assert "as float32" in ev.describe() and ev.to_json()["mantissa_bits"] == 23


def _f32(x, rng, size):
    """x + N(0, σ²) in single precision, returned as float32."""
    return np.float32(x) + (F.SIGMA * rng.standard_normal(size)).astype(np.float32)


def _f16(x, rng, size):
    return np.float16(x) + (4.0 * rng.standard_normal(size)).astype(np.float16)


def _long(x, rng, size):
    return np.longdouble(x) + np.longdouble(F.SIGMA) * rng.standard_normal(size).astype(np.longdouble)


def _python_floats(x, rng, size):
    return [float(x) + F.SIGMA * v for v in rng.standard_normal(size).tolist()]


@pytest.mark.parametrize(
    "target, words",
    [
        (_f32, ("float32 bits", "bits as float32")),
        (F.float32_gaussian, ("float32 bits", "bits as float32")),
        (_f16, ("float16 bits", "bits as float16")),
        pytest.param(
            _long,
            ("long double bits", "bits as long double"),
            marks=pytest.mark.skipif(_LONG == 52, reason="no long double"),
        ),  # fmt: skip
        (_python_floats, ("values+bits", "mantissa bits}")),
    ],
)
def test_a_float_leak_is_refuted_at_every_width(target, words):
    """Refuted by an event that reads the outputs' bits at their own width: a learned one's, or a bit window's."""
    r = audit(target, ApproxDP(1.0, 1e-6, _L1), pairs=[(0.0, 1.0)], method="sample", samples=50_000, seed=2)
    assert r.violates_claim and r.epsilon_lower > 2.0, str(r)  # (staged: the bound is the refuting stage's)
    assert any(w in r.witness["event_text"] for w in words), r.witness["event_text"]


def test_the_windows_alone_now_see_float32():
    """The trailing-zero windows read float32 outputs at 23 bits (as doubles they always carry ≥ 29 zeros)."""
    r = audit(_f32, ApproxDP(1.0, 1e-6, _L1), pairs=[(0.0, 1.0)], method="sample", samples=50_000, seed=2,
              classifier="off")  # fmt: skip
    assert r.violates_claim and "as float32" in r.witness["event_text"]


@pytest.mark.parametrize("name", ["inversion_laplace", "box_muller", "polar", "ziggurat"])
def test_the_papers_float_samplers_are_refuted_by_the_default_search(name):
    claim = PureDP(1.0, _L1) if name == "inversion_laplace" else ApproxDP(1.0, 1e-6, _L1)
    r = audit(getattr(F, name), claim, pairs=[(0.0, 1.0)], method="sample", samples=50_000, seed=1)
    assert r.violates_claim and r.epsilon_lower > 2.0, str(r)  # (staged: the bound is the refuting stage's)


def test_integer_and_grid_mechanisms_are_not_refuted_with_the_trees_on():
    grid = M.GridLaplace(epsilon=1.0)
    r = audit(grid, method="sample", pairs=[(0.0, 1.0)], samples=100_000, seed=5)
    assert not r.violates_claim and r.candidates_certified == 2  # the trees ran, and their event was certified
    geo = M.GridLaplace(epsilon=1.0, grid=1.0)  # integer outputs (as doubles): whole numbers
    r = audit(geo, method="sample", pairs=[(0.0, 1.0)], samples=100_000, seed=5)
    assert not r.violates_claim


def leaky_gaussian(x, rng, size):
    """A grid Gaussian calibrated for (0.1, 0.1)-DP that releases its input unnoised once in a thousand calls (a
    debugging branch left in): its (0.1, 0.1) point moves by about 10⁻³, its Gaussian profile does not survive."""
    out = _GRID.sample(x, rng, size)
    return np.where(rng.random(size) < 1e-3, float(x), out)


_GRID = M.GridGaussian.for_approx(0.1, 0.1)


@pytest.mark.slow  # (the default tier's two minutes: run with -m slow)
def test_a_gaussian_profile_claim_refutes_a_leak_of_small_mass():
    """A μ-GDP claim with μ = Δ/σ is every (ε, δ(ε)) point of the mechanism's profile at once: the leak's event
    {o = x} has mass 10⁻³ on x and almost none on x′ — far below δ = 0.1, but far out in the Gaussian trade-off
    curve.  The point claim (0.1, 0.1) is not refuted by the same draws; the profile claim is."""
    mu = float(_GRID.shift * _GRID.grid / _GRID.sigma)  # the grid Gaussian's own profile: shift D·g over σ
    kw = dict(pairs=[(0.0, 1.0)], method="sample", samples=200_000, seed=3)
    point = audit(leaky_gaussian, ApproxDP(0.1, 0.1, ReplaceOne("l2", 1.0)), **kw)
    assert not point.violates_claim and point.delta_lower < 0.1
    profile = audit(leaky_gaussian, GaussianDP(mu, ReplaceOne("l2", 1.0)), **kw)
    assert profile.violates_claim and profile.mu_lower > 2 * mu, str(profile)
    assert not audit(_GRID, GaussianDP(mu, ReplaceOne("l2", 1.0)), **kw).violates_claim  # the grid Gaussian holds
