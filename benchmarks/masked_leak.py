"""A leak the policy's own sampling hides: the privacy loss of a DP EXP3's action sequences, computed.

A researcher's private EXP3 at two arms, written one object per run with its own generator: each observed reward
gets Laplace(1/ε) noise before the importance weighting (x̂ = (r + L)/p — the reward's noise is ε-DP, the rest
post-processing), and a bug of a kind found in code: the noise added after it (x̂ = r/p + L), so that one reward
moves x̂ by 1/p, up to 2/γ times the noise's scale.  The default command did not refute the bug at T = 100
(benchmarks/RESULTS.md, "Events on the longest stretch of each arm; a batched UCB and a DP EXP3"): ε ≥ 0.27 against
a claim of 1.  Is that a miss?

The output audited is the action sequence, and its likelihood is computable: at two arms EXP3's state is one number,
d = log w₀ − log w₁, a Markov chain given the actions.  A filter on a grid of d gives P(actions | reward table) for
each sequence: the action's probability at each grid point, then the update's Laplace law integrated exactly over
each grid bin; the grid's spacing is the only approximation (``--check`` compares the filter, at T = 3, with nested
Gauss–Legendre quadrature over the two noises and with the frequencies of 200,000 runs, and, at T = 100, with the
spacing halved).  Sampling sequences from the policy itself on each side of a pair of neighbouring tables and taking
their privacy loss ℓ = log P(seq | x) − log P(seq | x′) gives the pair's hockey-stick divergence
δ(ε) = E_x[(1 − e^(ε − ℓ))₊] — the most any event of the actions can show beyond a ratio of e^ε, and so what a
refutation of ε-DP on that pair has to see — and the largest loss the draws showed (where a sequence did not play
the changed reward, its two likelihoods are equal: ℓ = 0 exactly, not computed).  Estimates over the draws, for the
pairs tried, not a supremum over every pair.

Run: python3 benchmarks/masked_leak.py [--check] [--runs N] [--horizon T]
"""

import argparse
import itertools
import math
import time

import numpy as np
from numpy.polynomial.legendre import leggauss
from scipy.stats import chi2, laplace

K = 2


def gamma_of(horizon: int) -> float:
    """EXP3's exploration rate at its horizon (Auer et al.'s tuning, as the researcher wrote it)."""
    return min(1.0, math.sqrt(K * math.log(K) / ((math.e - 1) * horizon)))


class DPExp3:
    """The researcher's policy: one object per run, its generator its own."""

    def __init__(self, horizon, rng, epsilon, noise_after_weighting=False):
        self.gamma, self.rng, self.eps, self.after = gamma_of(horizon), rng, epsilon, noise_after_weighting
        self.log_w = np.zeros(K)

    def act(self, t):
        w = np.exp(self.log_w - self.log_w.max())
        self.p = (1 - self.gamma) * w / w.sum() + self.gamma / K
        return int(self.rng.choice(K, p=self.p))

    def update(self, t, arm, reward):
        if self.after:  # the bug: the noise's scale fixed while the weighted reward's sensitivity is 1/p
            x_hat = reward / self.p[arm] + self.rng.laplace(0.0, 1.0 / self.eps)
        else:
            x_hat = (reward + self.rng.laplace(0.0, 1.0 / self.eps)) / self.p[arm]
        self.log_w[arm] += self.gamma * x_hat / K


def sequences(table, epsilon, after, runs, seed) -> np.ndarray:
    """The action sequences of ``runs`` runs on ``table`` (T × K), each run a policy object of its own."""
    out = np.empty((runs, len(table)), dtype=np.int8)
    for i, rng in enumerate(np.random.default_rng(seed).spawn(runs)):
        policy = DPExp3(len(table), rng, epsilon, after)
        for t, row in enumerate(table):
            a = policy.act(t)
            out[i, t] = a
            policy.update(t, a, row[a])
    return out


class Likelihood:
    """P(actions | table) by a filter on a grid of d = log w₀ − log w₁ (spacing ``h`` on [−D, D]; the outermost bins
    take the tails)."""

    def __init__(self, horizon, epsilon, after, h=0.01, span=8.0):
        self.gamma = gamma_of(horizon)
        d = np.arange(-span, span + h / 2, h)
        w0 = 1.0 / (1.0 + np.exp(-d))
        p0 = (1 - self.gamma) * w0 + self.gamma / K
        self.p = np.stack([p0, 1 - p0], axis=1)
        self.zero = int(np.argmin(np.abs(d)))
        c, b = self.gamma / K, 1.0 / epsilon
        edges = np.concatenate([[-np.inf], (d[:-1] + d[1:]) / 2, [np.inf]])
        self.moves = {}  # (arm, reward) → the update's law from each grid point to each bin
        for arm in range(K):
            sign, p = (1 if arm == 0 else -1), self.p[:, arm]
            for r in (0.0, 1.0):
                scale = np.full_like(d, c * b) if after else c * b / p
                cdf = laplace.cdf(edges[None, :], loc=(d + sign * c * r / p)[:, None], scale=scale[:, None])
                self.moves[arm, r] = np.diff(cdf, axis=1)

    def log_p(self, table, seqs: np.ndarray) -> np.ndarray:
        """log P(seq | table) of each row of ``seqs``."""
        n, horizon = seqs.shape
        f = np.zeros((len(self.p), n))
        f[self.zero] = 1.0
        log_z = np.zeros(n)
        for t in range(horizon):
            g = f * self.p[:, seqs[:, t]]
            if t == horizon - 1:
                return log_z + np.log(g.sum(0))
            f = np.empty_like(g)
            for arm in range(K):
                cols = np.nonzero(seqs[:, t] == arm)[0]
                f[:, cols] = self.moves[arm, float(table[t][arm])].T @ g[:, cols]
            z = f.sum(0)
            log_z += np.log(z)
            f /= z


def quadrature(table, epsilon, after, nodes=60) -> dict:
    """P(seq | table) at T = 3 by nested Gauss–Legendre quadrature over the two updates' Laplace noises (on
    u = e^(−|x|ε) each side of 0, where the density is flat)."""
    x, w = leggauss(nodes)
    u, wu = (x + 1) / 2, w / 2
    mag = -np.log(u) / epsilon
    noise, weight = np.concatenate([mag, -mag]), np.concatenate([wu, wu]) / 2
    g, out = gamma_of(3), {}

    def probs(d):
        p0 = (1 - g) / (1 + np.exp(-d)) + g / K
        return p0, 1 - p0

    def walk(t, d, pr, seq):
        p = probs(d)
        if t == 2:
            for a in range(K):
                out[seq + (a,)] = out.get(seq + (a,), 0.0) + pr * p[a]
            return
        for a in range(K):
            r = table[t][a]
            x_hat = r / p[a] + noise if after else (r + noise) / p[a]
            for dn, wn in zip(d + (1 if a == 0 else -1) * g * x_hat / K, weight):
                walk(t + 1, dn, pr * p[a] * wn, seq + (a,))

    walk(0, 0.0, 1.0, ())
    return out


def check(epsilon=1.0):
    x = [[0.0, 0.0]] * 3
    x2 = [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    seqs = np.array(list(itertools.product(range(K), repeat=3)), dtype=np.int8)
    for (which, table), after in itertools.product((("all-zero", x), ("round 1's arm 0 at 1", x2)), (False, True)):
        name = f"{'bug' if after else 'correct'}, {which}"
        exact = np.array([quadrature(table, epsilon, after)[tuple(s)] for s in seqs])
        filt = np.exp(Likelihood(3, epsilon, after).log_p(table, seqs))
        counts = np.bincount(
            sequences(table, epsilon, after, 200_000, 0).astype(int) @ (K ** np.arange(3)[::-1]), minlength=K**3
        )
        fit = chi2.sf(((counts - 200_000 * exact) ** 2 / (200_000 * exact)).sum(), K**3 - 1)
        print(
            f"T = 3, {name}: filter against quadrature, largest difference {np.abs(filt - exact).max():.1e} "
            f"(probabilities {exact.min():.4f} … {exact.max():.4f}); 200,000 runs' frequencies against quadrature: "
            f"χ² p = {fit:.2f}"
        )
    horizon, t = 100, 79
    base = [[0.0, 1.0] for _ in range(horizon)]
    moved = [row[:] for row in base]
    moved[t][0] = 1.0
    s = sequences(moved, epsilon, True, 3000, 5)
    s = s[s[:, t] == 0][:150]
    loss = {
        h: Likelihood(horizon, epsilon, True, h).log_p(base, s) - Likelihood(horizon, epsilon, True, h).log_p(moved, s)
        for h in (0.02, 0.01, 0.005)
    }
    print(
        f"T = 100, bug, arm 0's reward at round {t + 1} moved, {len(s)} sequences: the privacy loss at spacing 0.01 "
        f"against 0.005, largest difference {np.abs(loss[0.01] - loss[0.005]).max():.1e} (0.02: "
        f"{np.abs(loss[0.02] - loss[0.005]).max():.1e})"
    )


def pairs(horizon):
    """(name, x, x′): the all-zero table with round 1's arm-0 reward moved; and a table where arm 1 always pays and
    arm 0 never (arm 0 grows unlikely, so its weighted reward's sensitivity 1/p grows) with arm 0's reward at a
    round moved to 1."""
    zero = [[0.0, 0.0] for _ in range(horizon)]
    moved = [row[:] for row in zero]
    moved[0][0] = 1.0
    yield "all-zero table, round 1's arm-0 reward 0 → 1", zero, moved
    favoured = [[0.0, 1.0] for _ in range(horizon)]
    for t in sorted({horizon // 5, horizon // 2, (4 * horizon) // 5, horizon - 1 - horizon // 20}):
        moved = [row[:] for row in favoured]
        moved[t][0] = 1.0
        yield f"arm 1 always pays, arm 0's reward at round {t + 1} 0 → 1", favoured, moved


def hockey(loss: np.ndarray, epsilon: float) -> float:
    """δ(ε) estimated from privacy losses drawn on the first side: the mean of (1 − e^(ε − ℓ))₊."""
    return float(np.mean(np.clip(1 - np.exp(epsilon - loss), 0, None)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="the filter against quadrature, frequencies, a finer grid")
    ap.add_argument("--runs", type=int, default=4000, help="sequences per side and pair")
    ap.add_argument("--horizon", type=int, default=100)
    ap.add_argument("--epsilon", type=float, default=1.0)
    args = ap.parse_args()
    if args.check:
        check(args.epsilon)
        return
    print(
        f"DP EXP3, K = 2, T = {args.horizon}, claim ε = {args.epsilon}; {args.runs:,} sequences a side and pair; "
        "δ(ε) estimated both ways (x‖x′ / x′‖x)"
    )
    print("| pair | variant | δ(0) (total variation) | δ(0.5) | δ(1) | runs with ℓ > 1 | largest ℓ seen | s |")
    print("|---|---|---|---|---|---|---|---|")
    for name, x, x2 in pairs(args.horizon):
        t = next(i for i in range(args.horizon) if x[i] != x2[i])
        for after in (False, True):
            start = time.perf_counter()
            like = Likelihood(args.horizon, args.epsilon, after)

            def loss(s):
                out = np.zeros(len(s))
                on = s[:, t] == 0  # where the moved reward was played: elsewhere ℓ = 0 exactly
                if on.any():
                    out[on] = like.log_p(x, s[on]) - like.log_p(x2, s[on])
                return out

            seed = 1 + 2 * t
            lx = loss(sequences(x, args.epsilon, after, args.runs, seed))
            ly = -loss(sequences(x2, args.epsilon, after, args.runs, seed + 1))  # ℓ of x′ against x
            deltas = [f"{hockey(lx, e):.2g} / {hockey(ly, e):.2g}" for e in (0.0, 0.5, args.epsilon)]
            over = f"{int((lx > args.epsilon).sum())} / {int((ly > args.epsilon).sum())}"
            print(
                f"| {name} | {'bug' if after else 'correct'} | {' | '.join(deltas)} | {over} | "
                f"{lx.max():.3f} / {ly.max():.3f} | {time.perf_counter() - start:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
