"""The simulator's compiled path: whole time blocks of an index policy on a Bernoulli environment in one call.

:func:`block_runner` returns, for the pairs it covers, a function that runs a time block of
:func:`policies.simulator.simulate_chunk` — decisions, feedback, count updates, regret — in the C extension
``policies._fastloop`` (built at install time by ``setup.py``), else None and the simulator steps through the
policy's own ``act``/``update`` with numba kernels.  Both paths consume the same draws and perform the same
floating-point operations, so they give bit-identical runs (tests/policies/test_fastloop.py); the compiled one exists
because numba's start (≈ 0.6 s per process: import and runtime) dominates a short experiment.  Setting the
environment variable ``PRIVCHECK_NO_EXTENSION`` (to anything non-empty) switches it off.

Covered, in chunks of fewer than 8192 run-arms: :class:`~policies.index.IndexPolicy` itself (UCB1, kl-UCB,
kl-UCB-CF, UCB-CF: no window, affine or identity corruption) on :class:`~policies.environments.Bernoulli`
(stationary or piecewise, feedback through the identity or an affine corruption).  Everything else — windows,
Thompson sampling, the private policies,
non-affine corruptions — takes the general path.
"""

from __future__ import annotations

import os

import numpy as np

from .environments import Bernoulli
from .index import PARALLEL_FROM, IndexPolicy

try:
    from . import _fastloop as _ext
except ImportError:  # built without a C compiler: the numba path is used everywhere
    _ext = None
if os.environ.get("PRIVCHECK_NO_EXTENSION"):  # for comparisons and diagnosis: numba everywhere
    _ext = None

__all__ = ["block_runner", "compiled"]


def compiled() -> bool:
    """Whether the C extension was built."""
    return _ext is not None


def block_runner(env, policy, runs: int):
    """A function ``run(state, t0, noise, uni, mu, gap, regret, pulls, cps, rec, j) -> j`` that runs the time
    blocks of one run chunk, in order and in place (state counts, regret, pulls, checkpoint records; ``j`` the
    next checkpoint), or None when the pair is not covered, the extension is not built, or the chunk is wide
    enough (runs × arms ≥ ``PARALLEL_FROM``) for the numba kernels' threads and (arm, N, S) table to win: the
    compiled loop is one thread and solves every run's indices."""
    if _ext is None or type(policy) is not IndexPolicy or type(env) is not Bernoulli:
        return None
    if runs * policy.n_arms >= PARALLEL_FROM:
        return None
    pc, ec = policy.corruption, env.corruption  # whole-history counts (no window), affine g on both sides
    if policy.window is not None or not pc.is_affine or not ec.is_affine or policy.n_uniforms != 1:
        return None
    f64 = lambda x: np.ascontiguousarray(x, dtype=np.float64)  # noqa: E731
    direction, affine, intercept, slope = policy.corruption_args()
    direction, intercept, slope = np.ascontiguousarray(direction, dtype=np.int64), f64(intercept), f64(slope)
    corrupt = not ec.is_identity
    g0, g1 = f64(ec.g0), f64(ec.g1)
    rule, log_coef, exploration = policy.rule, policy.log_coef, policy.exploration
    # each arm's last kl solve (bound, level, count), kept from block to block of this chunk
    shape = (runs, policy.n_arms)
    memo = (np.zeros(shape), np.zeros(shape), np.full(shape, -1, np.int64))

    def run(state, t0, noise, uni, mu, gap, regret, pulls, cps, rec, j):
        return _ext.index_bernoulli_block(
            rule,
            log_coef,
            exploration,
            direction,
            affine,
            intercept,
            slope,
            corrupt,
            g0,
            g1,
            state.N,
            state.S,
            f64(noise),
            f64(uni),
            uni.shape[2],
            f64(mu),
            f64(gap),
            regret,
            pulls,
            int(t0),
            cps,
            rec,
            int(j),
            *memo,
        )

    return run
