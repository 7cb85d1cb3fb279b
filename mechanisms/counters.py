"""Counters under continual observation with Gaussian noise: a stream x_1 … x_T (each in [lo, hi]) in, its T prefix
sums out, every one released.  Each is a linear Gaussian release y = M x + B z, M the prefix-sum matrix (T × T,
ones on and below the diagonal), z ~ N(0, σ² I) over the mechanism's noise slots and B its noise matrix:

* :class:`BinaryCounter` — the binary (tree) mechanism (Dwork, Naor, Pitassi & Rothblum 2010; Chan, Shi & Song
  2011): noise on every dyadic block, S_t the sum of the ≤ L = ⌊log₂ T⌋ + 1 blocks of t's binary decomposition;
* :class:`HonakerCounter` — the same noisy blocks, each refined bottom-up by its children's estimates with
  inverse-variance weights before the prefixes are summed (Honaker, "Efficient use of differentially private binary
  trees", 2015; the streaming form used in "Practical and Private (Deep) Learning without Sampling or Shuffling",
  Kairouz et al. 2021): post-processing of the same blocks, a smaller variance, the same privacy;
* :class:`SmoothBinaryCounter` — the binary tree on the leaves whose h-bit index has exactly k ones, so that every
  prefix sums k + 1 nodes and every release has the same variance (Andersson & Pagh 2023);
* :class:`ToeplitzCounter` — a banded Toeplitz matrix factorisation M = B C (C lower-triangular Toeplitz, banded to
  its first ``band`` coefficients of the square root of M, (1 − u)^(−1/2) = Σ binom(2k, k)/4^k u^k; B = M C⁻¹):
  y = B(C x + z) ("Constant matters: fine-grained error bound on differentially private continual observation",
  Henzinger, Upadhyay & Upadhyay 2023; banded: "(Amplified) Banded Matrix Factorization", Choquette-Choo et al. 2023).

Every noisy value is released exactly on a grid (``sampler="exact"``, the default): the mechanism's noisy core —
the blocks' sums, or C x — is kept in integer grid steps, round(·/g) of its mean plus a discrete Gaussian of s
steps drawn from random integers (:func:`~privcheck.mechanisms.exact_sampling.discrete_gaussian`; Canonne, Kamath and
Steinke 2020), and the releases are computed from it (a deterministic post-processing, in integers for the binary
counter and in doubles for the others).  Drawn as doubles (``sampler="float"``), the noise's low bits differ
between neighbours and an audit reads them (a float counter is refuted: the bit-window events of the float-safe
noise how-to).

Each is calibrated to a ρ-zCDP claim under event-level neighbours (one element replaced within [lo, hi],
:class:`~privcheck.core.neighbours.EventLevel`) on what it releases before post-processing: the blocks (each element
in at most L of them: ρ = L D²/(2s²) in grid steps, D = ⌊Δ/g⌋ + 1 the most a rounded element moves, Δ = hi − lo)
or C x + z (ρ = D_C²/(2s²), D_C = ‖C e_i‖·Δ/g + √band bounding the rounded column's move, its largest).  The T
prefix sums are post-processing of that, so their own privacy can be less: :meth:`exact_rho` computes it, the largest
Δ² mᵢᵀ Σ⁻¹ mᵢ / 2 over the elements i (mᵢ the i-th column of M, Σ = σ² B Bᵀ the releases' covariance, σ = s·g)
— the ρ an audit of the released prefixes can at most certify, and the μ of Gaussian DP √(2ρ) likewise: exact for
the continuous Gaussian of that σ, which the discrete one at s ≥ 2^26 steps matches to far below any audit's
resolution.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privcheck.core import GaussianDP, InvalidArgument, ZCDP, check_int, check_real
from privcheck.core.neighbours import EventLevel

from .exact_sampling import discrete_gaussian
from .gaussian import GridGaussian, steps_for_shift
from .tree import dyadic_blocks, prefix_blocks, tree_levels

__all__ = [
    "GaussianCounter",
    "BinaryCounter",
    "HonakerCounter",
    "SmoothBinaryCounter",
    "ToeplitzCounter",
    "smooth_leaves",
    "sqrt_prefix_coefficients",
]

#: a batch of draws holds at most this many noise values at once (the rest drawn batch by batch)
BATCH_CELLS = 1 << 22


class GaussianCounter:
    """A linear Gaussian release of a stream's prefix sums (see the module): ``sample(x, rng, size)`` → (size, T).

    Parameters
    ----------
    horizon : T, the stream length.
    rho : the ρ of the ρ-zCDP claim the noise is calibrated to (or ``mu``: μ-GDP, ρ = μ²/2).
    value_range : (lo, hi), the range of each element (default (0, 1)); Δ = hi − lo.
    noise_multiplier : the noise's standard deviation times this (1: as calibrated).
    sampler : ``"exact"`` (the noisy core in grid steps, the discrete Gaussian) or ``"float"`` (numpy's normals).
    """

    name = "gaussian-counter"
    #: the dense matrices (their keys in ``_dense``) its sampler reads: what a pickled copy keeps (``__getstate__``)
    SAMPLED_WITH: tuple = ("C", "B")

    def __init__(
        self,
        horizon: int,
        rho=None,
        *,
        mu=None,
        value_range=(0.0, 1.0),
        noise_multiplier: float = 1.0,
        sampler: str = "exact",
    ):
        self.horizon = check_int("horizon", horizon, lower=1)
        if (rho is None) == (mu is None):
            raise InvalidArgument("give one of rho= or mu=")
        if sampler not in ("exact", "float"):
            raise InvalidArgument(f'sampler={sampler!r} must be "exact" or "float"')
        self.sampler = sampler
        lo, hi = (float(v) for v in value_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidArgument(f"value_range={value_range!r} must be two finite numbers lo < hi")
        self.lo, self.hi, self.sensitivity = lo, hi, hi - lo
        relation = EventLevel(lo, hi)
        if rho is not None:
            self.rho = check_real("rho", rho, lower=0.0, lower_open=True)
            self.claim = ZCDP(self.rho, relation)
        else:
            m = check_real("mu", mu, lower=0.0, lower_open=True)
            self.rho = m * m / 2
            self.claim = GaussianDP(m, relation)
        self.noise_multiplier = check_real("noise_multiplier", noise_multiplier, lower=0.0, lower_open=True)
        self._dense: dict = {}
        norms = self._column_norm()  # the largest column of C, per unit of x
        continuous = self.sensitivity * norms / math.sqrt(2 * self.rho)  # σ of the continuous calibration
        self.grid = GridGaussian._grid(self.sensitivity, continuous)
        # the most one element moves the rounded core, in grid steps: the column's move plus each entry's rounding
        units = Fraction(self.sensitivity) / Fraction(self.grid)
        shift = Fraction(float(norms)) * (units + 1) + Fraction(math.isqrt(self._rounded_entries()) + 1)
        steps = steps_for_shift(shift, Fraction(self.rho))
        self.steps = math.ceil(steps * Fraction(self.noise_multiplier))  # s, in grid steps
        self.sigma = self.steps * self.grid  # σ

    @property
    def example_input(self):
        """The stream an audit starts from when given none: T zeros (its neighbours move one element)."""
        return np.zeros(self.horizon)

    # the dense matrices, made when first asked for (the binary counter samples without them) ----------------
    @property
    def mean_matrix(self) -> np.ndarray:
        """M, the prefix sums (T × T)."""
        return self._made("M", lambda: np.tril(np.ones((self.horizon, self.horizon))))

    @property
    def core(self) -> np.ndarray:
        """C (slots × T): what the noise is added to."""
        return self._made("C", self._core_matrix)

    @property
    def post(self) -> np.ndarray:
        """B (T × slots): the releases from the noisy core (M = B C)."""
        return self._made("B", self._post_matrix)

    def _made(self, key: str, make):
        if key not in self._dense:
            self._dense[key] = make()
        return self._dense[key]

    def __getstate__(self) -> dict:
        """The counter as it travels to an audit's workers: its parameters and the matrices its sampler reads
        (:data:`SAMPLED_WITH`), not those made for its exact privacy (made again where asked for) — at T = 4,096 the
        binary counter whose ρ per element had been computed carried 670 MB of them into every task of a wave, and
        each of an audit's two workers grew past 10 GB within two minutes, until the kernel killed one
        (``benchmarks/RESULTS.md``)."""
        state = dict(self.__dict__)
        state["_dense"] = {k: v for k, v in self._dense.items() if k in self.SAMPLED_WITH}
        return state

    # the counters' own parts ---------------------------------------------------------------------------------
    def _core_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def _column_norm(self) -> float:
        """The largest column norm of C: what one element's unit move moves the core by, at most."""
        return float(np.sqrt((self.core * self.core).sum(axis=0)).max())

    def _slots(self) -> int:
        """The noise's slots (the core's rows)."""
        return self.core.shape[0]

    def _post_matrix(self) -> np.ndarray:
        raise NotImplementedError

    def _rounded_entries(self) -> int:
        """How many of the core's entries one element's move can change by a rounding (0: the core is sums of grid
        values, exact)."""
        return 0

    def _released(self, core: np.ndarray) -> np.ndarray:
        """The releases (n × T) from a noisy core (n × slots): B applied to each row."""
        return core @ self.post.T

    def _release(self, core_units: np.ndarray) -> np.ndarray:
        """The releases (n × T) from the noisy core in grid steps (n × slots, int64)."""
        return self._released(core_units * self.grid)

    def _core_mean(self, x: np.ndarray) -> np.ndarray:
        """The core's mean in grid steps: round(C x / g) (int64)."""
        return np.rint(self.core @ x / self.grid).astype(np.int64)

    # the mechanism -----------------------------------------------------------------------------------------
    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        if x.shape != (self.horizon,):
            raise InvalidArgument(f"x must be a stream of {self.horizon} values, not shape {x.shape}")
        if (x < self.lo).any() or (x > self.hi).any():
            raise InvalidArgument(f"x holds a value outside value_range=({self.lo:g}, {self.hi:g})")
        slots = self._slots()
        out = np.empty((size, self.horizon))
        step = max(1, BATCH_CELLS // max(slots, 1))
        if self.sampler == "float":
            mean = np.cumsum(x)
            for start in range(0, size, step):
                n = min(step, size - start)
                out[start : start + n] = mean + self._released(rng.standard_normal((n, slots)) * self.sigma)
            return out
        x = np.rint(x / self.grid) * self.grid  # (on the grid: the same for every neighbour's other elements)
        mean = self._core_mean(x)
        s2 = Fraction(self.steps * self.steps)
        for start in range(0, size, step):
            n = min(step, size - start)
            z = discrete_gaussian(rng, s2, n * slots, t=self.steps).reshape(n, slots)
            out[start : start + n] = self._release(z + mean)
        return out

    # the exact privacy of what is released ---------------------------------------------------------------
    def covariance(self) -> np.ndarray:
        """Σ = σ² B Bᵀ, the covariance of the T releases."""
        B = self.post
        return self.sigma**2 * (B @ B.T)

    def rho_per_element(self) -> np.ndarray:
        """Δ² mᵢᵀ Σ⁻¹ mᵢ / 2 for each element i: the ρ (and, as √(2ρ), the μ) of the released prefixes when element
        i moves across the whole range — a Gaussian shift of the releases' mean by Δ mᵢ."""
        solved = np.linalg.solve(self.covariance(), self.mean_matrix)
        return self.sensitivity**2 * np.einsum("ti,ti->i", self.mean_matrix, solved) / 2

    def exact_rho(self) -> float:
        """The ρ-zCDP of the released prefixes (the module says how exact): the largest of
        :meth:`rho_per_element` — the worst element's Gaussian shift."""
        return float(self.rho_per_element().max())

    def worst_element(self) -> int:
        """The element (0-based) whose change the releases show most."""
        return int(np.argmax(self.rho_per_element()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(horizon={self.horizon}, rho={self.rho:g}, sigma={self.sigma:.6g})"


def _incidence(horizon: int) -> np.ndarray:
    """The dyadic blocks' incidence (blocks × T): which elements each block sums."""
    blocks = dyadic_blocks(horizon)
    C = np.zeros((len(blocks), horizon))
    for n, (start, stop) in enumerate(blocks.tolist()):
        C[n, start:stop] = 1.0
    return C


def _decomposition(horizon: int) -> np.ndarray:
    """Each prefix's blocks (T × blocks): the ≤ L of its binary decomposition."""
    prefix = prefix_blocks(horizon)
    P = np.zeros((horizon, len(dyadic_blocks(horizon))))
    for t in range(horizon):
        P[t, prefix[t][prefix[t] >= 0]] = 1.0
    return P


class BinaryCounter(GaussianCounter):
    """The binary (tree) mechanism with Gaussian noise on every dyadic block (the module's docstring); released in
    integer grid steps, exactly."""

    name = "binary-counter"
    SAMPLED_WITH = ("prefix",)  # (each prefix's blocks: no dense matrix)

    def _core_matrix(self) -> np.ndarray:
        return _incidence(self.horizon)

    def _post_matrix(self) -> np.ndarray:
        return _decomposition(self.horizon)

    def _column_norm(self) -> float:
        return math.sqrt(tree_levels(self.horizon))  # each element in at most L blocks

    def _slots(self) -> int:
        return len(dyadic_blocks(self.horizon))

    def _core_mean(self, x: np.ndarray) -> np.ndarray:
        """Every dyadic block's sum, level by level, in grid steps (x is on the grid: exact)."""
        units = np.rint(x / self.grid).astype(np.int64)
        T, out = self.horizon, []
        for j in range(tree_levels(T)):
            w = 1 << j
            out.append(units[: (T // w) * w].reshape(T // w, w).sum(axis=1))
        return np.concatenate(out)

    def _released(self, core: np.ndarray) -> np.ndarray:
        # each prefix the sum of its blocks, without a dense product (in integer steps, from _release: exact)
        prefix = self._made("prefix", lambda: prefix_blocks(self.horizon))
        padded = np.concatenate([core, np.zeros((core.shape[0], 1), dtype=core.dtype)], axis=1)
        return padded[:, prefix].sum(axis=2)

    def _release(self, core_units: np.ndarray) -> np.ndarray:
        return self._released(core_units) * self.grid


class HonakerCounter(BinaryCounter):
    """The binary mechanism's noisy blocks refined bottom-up (Honaker): a block's estimate is its own noisy sum and
    its two children's estimates' sum weighted by their inverse variances; each prefix sums its decomposition's
    refined blocks.  A linear map of the same noisy blocks: the same claim, a smaller variance."""

    name = "honaker-counter"
    SAMPLED_WITH = ("B",)

    def _post_matrix(self) -> np.ndarray:
        T = self.horizon
        blocks = dyadic_blocks(T).tolist()
        index = {tuple(b): n for n, b in enumerate(blocks)}
        n_blocks = len(blocks)
        R = np.eye(n_blocks)  # refined estimate of each block as a combination of the noisy ones
        var = np.ones(n_blocks)  # its variance, in units of σ²
        for n, (start, stop) in enumerate(blocks):  # level by level: children before parents
            if stop - start < 2:
                continue
            half = (stop - start) // 2
            a, b = index[(start, start + half)], index[(start + half, stop)]
            children = var[a] + var[b]
            w = (1.0 / children) / (1.0 + 1.0 / children)  # the children's weight; the block's own: 1 − w
            R[n] = (1.0 - w) * np.eye(n_blocks)[n] + w * (R[a] + R[b])
            var[n] = 1.0 / (1.0 + 1.0 / children)
        return _decomposition(T) @ R

    def _released(self, core: np.ndarray) -> np.ndarray:  # (B dense: the refinement mixes every block)
        return GaussianCounter._released(self, core)


def smooth_leaves(horizon: int) -> tuple[int, int, np.ndarray]:
    """(h, k, leaves): the smooth binary mechanism's tree height h and ones k, and the T leaves it uses — the first T
    h-bit numbers with exactly k ones, in increasing order — for the (h, k) with C(h, k) ≥ T that minimises
    (k + 1)(h − k + 1), a prefix's nodes times an element's (the variance of every release at a given ρ), the
    smallest h among equals."""
    best = None
    h = max(1, math.ceil(math.log2(max(horizon, 2))))
    for height in range(h, h + 8):
        for k in range(height + 1):
            if math.comb(height, k) >= horizon:
                cost = (k + 1) * (height - k + 1)
                if best is None or cost < best[0]:
                    best = (cost, height, k)
    _, height, k = best
    leaves = [i for i in range(1 << height) if i.bit_count() == k][:horizon]
    return height, k, np.asarray(leaves, dtype=np.int64)


def sqrt_prefix_coefficients(n: int) -> np.ndarray:
    """The first ``n`` coefficients of (1 − u)^(−1/2) = Σ binom(2k, k)/4^k u^k: the lower-triangular Toeplitz square
    root of the prefix-sum matrix (its square is the all-ones lower triangle)."""
    c = np.ones(n)
    for k in range(1, n):
        c[k] = c[k - 1] * (2 * k - 1) / (2 * k)
    return c


class ToeplitzCounter(GaussianCounter):
    """A banded Toeplitz factorisation M = B C: noise z added to C x, released as B(C x + z) = M x + B z.  ``band``
    (default T: the square root itself) keeps the first ``band`` coefficients of C (a banded C has a cheaper
    sensitivity and a B that corrects for it)."""

    name = "toeplitz-counter"

    def __init__(self, horizon: int, rho=None, *, band: int | None = None, **kw):
        self.band = None if band is None else check_int("band", band, lower=1)
        super().__init__(horizon, rho, **kw)

    def _core_matrix(self) -> np.ndarray:
        T = self.horizon
        c = sqrt_prefix_coefficients(T)
        if self.band is not None:
            c[self.band :] = 0.0
        idx = np.arange(T)
        diff = idx[:, None] - idx[None, :]
        return np.where(diff >= 0, c[np.clip(diff, 0, T - 1)], 0.0)

    def _post_matrix(self) -> np.ndarray:
        from scipy.linalg import solve_triangular

        # B = M C⁻¹, i.e. Bᵀ = C⁻ᵀ Mᵀ: C is lower triangular, so Cᵀ is upper
        return solve_triangular(self.core.T, self.mean_matrix.T, lower=False).T

    def _rounded_entries(self) -> int:
        return min(self.band or self.horizon, self.horizon)  # the rows of a column of C that are not zero


class SmoothBinaryCounter(GaussianCounter):
    """The smooth binary mechanism (Andersson and Pagh, "A Smooth Binary Mechanism for Efficient Private Continual
    Observation", NeurIPS 2023): the binary tree's leaves restricted to the h-bit indices with exactly k ones
    (:func:`smooth_leaves`), so that every prefix sums the same k + 1 nodes — its leaf and, for each one bit, the left
    sibling beside its path — and every release has the same variance; an element lies in at most h − k + 1 of the
    nodes used.  Only the nodes some prefix uses get noise.  Released in integer grid steps, exactly."""

    name = "smooth-binary-counter"
    SAMPLED_WITH = ("nodes", "C")

    def _nodes(self) -> tuple[list, np.ndarray]:
        """(the nodes used, as (level, index) in first use order; each prefix's nodes, T × (k + 1) indices)."""

        def make():
            _, k, leaves = smooth_leaves(self.horizon)
            index, per = {}, []
            for leaf in leaves.tolist():
                mine = [(0, leaf)] + [(lv, (leaf >> lv) - 1) for lv in range(leaf.bit_length()) if leaf >> lv & 1]
                per.append([index.setdefault(node, len(index)) for node in mine])
            return list(index), np.asarray(per, dtype=np.int64)

        return self._made("nodes", make)

    def _core_matrix(self) -> np.ndarray:
        nodes, _ = self._nodes()
        _, _, leaves = smooth_leaves(self.horizon)
        C = np.zeros((len(nodes), self.horizon))
        for n, (lv, i) in enumerate(nodes):
            C[n] = (leaves >> lv) == i  # the used leaves under the node
        return C

    def _post_matrix(self) -> np.ndarray:
        nodes, per = self._nodes()
        B = np.zeros((self.horizon, len(nodes)))
        np.put_along_axis(B, per, 1.0, axis=1)
        return B

    def _release(self, core_units: np.ndarray) -> np.ndarray:
        _, per = self._nodes()
        return core_units[:, per].sum(axis=2) * self.grid  # (each prefix its nodes' sum, in integer steps: exact)
