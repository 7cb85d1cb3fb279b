"""Floating-point noise samplers as papers and libraries write them — each one ε-DP or (ε, δ)-DP over the reals, and
none over doubles.

Lokna, Paradis, Dimitrov and Vechev ("Group and Attack: Auditing Differential Privacy", CCS 2023, §6) audit the
textbook samplers with the random number generator a C library gives: a uniform is a 32-bit word k read as
k/2³².  Written here from their definitions, every uniform from ``rng.integers(0, 2**32)``:

* ``inversion_laplace`` — x + b·S·(−ln(1 − U)), S a random sign, b = Δ/ε (Dwork, McSherry, Nissim and Smith);
* ``box_muller`` — x + σ·√(−2 ln U₁)·cos(2πU₂) (Box and Muller, 1958);
* ``polar`` — x + σ·V₁·√(−2 ln s / s), (V₁, V₂) uniform on the square [−1, 1)² until s = V₁² + V₂² ∈ (0, 1)
  (Marsaglia's polar method, 1964);
* ``ziggurat`` — x + σ·S·Z, Z from Marsaglia and Tsang's ziggurat with 128 layers ("The Ziggurat Method for
  Generating Random Variables", J. Stat. Software 2000): a layer i and a uniform U, Z = U·x_i accepted under
  the layer's rectangle, else in its wedge or, for the base layer, from the tail beyond r.

σ is the classic calibration Δ·√(2 ln(1.25/δ))/ε for ε = 1 and δ = 10⁻⁶ (Dwork and Roth, Theorem A.1); b = 1/ε
for ε = 1.  Over the reals each is what it claims; over doubles the outputs near x and near x + 1 lie on
different sets of doubles, and privcheck's default search finds it:

privcheck audit examples/float_samplers.py:inversion_laplace --epsilon 1 --pair 0 1 --method sample --samples 100000   # refuted
privcheck audit examples/float_samplers.py:box_muller --epsilon 1 --delta 1e-6 --pair 0 1 --method sample --samples 100000   # refuted
privcheck audit examples/float_samplers.py:polar --epsilon 1 --delta 1e-6 --pair 0 1 --method sample --samples 100000   # refuted
privcheck audit examples/float_samplers.py:ziggurat --epsilon 1 --delta 1e-6 --pair 0 1 --method sample --samples 100000   # refuted
privcheck audit examples/float_samplers.py:float32_gaussian --epsilon 1 --delta 1e-6 --pair 0 1 --method sample --samples 100000   # refuted

``float32_gaussian`` is the last step of a machine-learning library's noise: the sum computed in single precision
(x + σ·N(0, 1) rounded to float32, as a float32 tensor's noise is), returned as doubles.
"""

import math

import numpy as np

#: the calibration: ε = 1, δ = 10⁻⁶, Δ = 1
EPSILON, DELTA, SENSITIVITY = 1.0, 1e-6, 1.0
SIGMA = SENSITIVITY * math.sqrt(2 * math.log(1.25 / DELTA)) / EPSILON
SCALE = SENSITIVITY / EPSILON
WORD = 2.0**32


def uniforms(rng, size):
    """U = k/2³², k a uniform 32-bit word: [0, 1) in steps of 2⁻³²."""
    return rng.integers(0, 2**32, size, dtype=np.uint64) / WORD


def signs(rng, size):
    return np.where(uniforms(rng, size) < 0.5, -1.0, 1.0)


def inversion_laplace(x, rng, size):
    """x + Lap(1/ε) by inversion of the exponential CDF and a random sign: ε-DP over the reals."""
    return float(x) + SCALE * signs(rng, size) * -np.log(1.0 - uniforms(rng, size))


def box_muller(x, rng, size):
    """x + N(0, σ²) by Box and Muller's transform (the cosine half): (ε, δ)-DP over the reals."""
    u1 = 1.0 - uniforms(rng, size)  # in (0, 1]: the logarithm stays finite
    u2 = uniforms(rng, size)
    return float(x) + SIGMA * np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def polar(x, rng, size):
    """x + N(0, σ²) by Marsaglia's polar method: (ε, δ)-DP over the reals."""
    out = np.empty(size)
    filled = 0
    while filled < size:
        n = size - filled
        v1 = 2.0 * uniforms(rng, 2 * n) - 1.0
        v2 = 2.0 * uniforms(rng, 2 * n) - 1.0
        s = v1 * v1 + v2 * v2
        keep = (s > 0.0) & (s < 1.0)
        z = (v1[keep] * np.sqrt(-2.0 * np.log(s[keep]) / s[keep]))[:n]
        out[filled : filled + z.size] = z
        filled += z.size
    return float(x) + SIGMA * out


def _ziggurat_tables(layers=128, r=3.442619855899, v=9.91256303526217e-3):
    """Marsaglia and Tsang's x_0 … x_layers for f(x) = exp(−x²/2): x_0 = v/f(r) (the base layer, tail included),
    x_1 = r, x_{i+1} = f⁻¹(v/x_i + f(x_i)), x_layers = 0 — each layer of area v."""
    x = np.empty(layers + 1)
    x[0], x[1] = v / math.exp(-0.5 * r * r), r
    for i in range(1, layers - 1):
        x[i + 1] = math.sqrt(-2.0 * math.log(v / x[i] + math.exp(-0.5 * x[i] * x[i])))
    x[layers] = 0.0
    return x, np.exp(-0.5 * x * x)


_X, _F = _ziggurat_tables()


def _half_normal(rng, size):
    out = np.empty(size)
    todo = np.arange(size)
    r = _X[1]
    while todo.size:
        n = todo.size
        i = rng.integers(0, _X.size - 1, n)
        z = uniforms(rng, n) * _X[i]
        inside = z < _X[i + 1]
        wedge = ~inside & (i > 0)
        y = _F[i] + uniforms(rng, n) * (_F[i + 1] - _F[i])
        accept = inside | (wedge & (y < np.exp(-0.5 * z * z)))
        tail = np.flatnonzero(~inside & (i == 0))
        while tail.size:  # the base layer beyond r: r + t, t = E/r (E exponential), until 2E' > t²
            t = -np.log(1.0 - uniforms(rng, tail.size)) / r
            e = -np.log(1.0 - uniforms(rng, tail.size))
            ok = 2.0 * e > t * t
            z[tail[ok]] = r + t[ok]
            accept[tail[ok]] = True
            tail = tail[~ok]
        out[todo[accept]] = z[accept]
        todo = todo[~accept]
    return out


def ziggurat(x, rng, size):
    """x + N(0, σ²) by the ziggurat method with a random sign: (ε, δ)-DP over the reals."""
    return float(x) + SIGMA * signs(rng, size) * _half_normal(rng, size)


def float32_gaussian(x, rng, size):
    """x + N(0, σ²) computed in single precision, as a float32 tensor's Gaussian noise is: the outputs are float32
    numbers returned as doubles."""
    noise = (SIGMA * rng.standard_normal(size)).astype(np.float32)
    return (np.float32(x) + noise).astype(np.float64)
