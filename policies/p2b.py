"""P2B end to end: early users learn locally and share through the pipeline, late users start cold or warm.

The experiment of Malekzadeh et al., "Privacy-Preserving Bandits" (§Evaluation, synthetic benchmark), with
three arms for the late users, who each run their own disjoint LinUCB (:mod:`policies.linucb`) for T rounds:

* **cold**: from (I, 0), no data from anyone;
* **warm, non-private**: from a model fitted on the raw (context, action, reward) tuples that the early users
  shared — the same pre-sampled users as P2B, no encoding, no threshold;
* **warm, private (P2B)**: from a model fitted on what the shuffler released (:class:`mechanisms.p2b.Shuffler`):
  each released (code, action, reward) tuple enters the model with its code decoded to the k-means centroid,
  so the warm model lives in the context space the late agents act in.

How the warm model is built and used, and where this departs from the public code (which we read for its
choices): the server fits disjoint-LinUCB statistics (A_a, b_a) = (I + Σ x xᵀ, Σ r x) on the tuples it
receives, as the public code does; every late user then starts from its own copy of that model and learns on
alone.  The public code instead (i) trains the private model and runs the private late agents on the code's
*index* as a one-dimensional context (a code number is not a linear feature) — we decode to the centroid; and
(ii) hands one warm agent object to all late users in turn, so it keeps learning from every late user's data —
a central, non-private learner; we copy the model per user.  Which interaction a reporting user shares follows
the public code: a uniformly chosen one with reward 1 if the user has any, else a uniformly chosen one
(``share="positive"``); ``share="uniform"`` picks uniformly among all.  Privacy does not depend on this
choice: the shuffler's guarantee is over whatever tuple a user holds.

Synthetic population (ours; the public generator used a random neural network we do not reproduce): contexts
are histograms — d independent U(0, 1) numbers normalised to sum 1 — drawn afresh for every interaction; the
reward of action a is Bernoulli(s·softmax(W x / τ)_a) with W a K × d matrix of N(0, 1) entries drawn from the
population seed, τ = ``temperature`` and s = ``ctr`` (defaults chosen so that average rewards are of the order
of the published ones: about 1 % for a cold agent).

Randomness: every stream comes from the seed (:func:`privcheck.core.chunk_generator`) — the population, the
public sample of the encoder, the early users (contexts, rewards, sharing) and the late users, whose contexts and
reward uniforms are the same for the three arms (common random numbers: the arms' differences are paired).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from privcheck.mechanisms.exact_sampling import bernoulli_double
from privcheck.mechanisms.p2b import Encoder, Shuffler
from privcheck.core import InvalidArgument, check_real, chunk_generator

from .linucb import LinUCB, fit_model

__all__ = ["Population", "run_p2b", "released_model", "P2BResult", "ARMS"]

ARMS = ("cold", "warm", "p2b")
_POP, _PUBLIC, _EARLY, _LATE, _SHARE = range(5)
_CHUNK = 5000


@dataclass(frozen=True)
class Population:
    """Contexts uniform on the simplex-like histograms of R^d; rewards Bernoulli(s·softmax(Wx/τ))."""

    W: np.ndarray  # (K, d)
    ctr: float
    temperature: float

    @classmethod
    def synthetic(
        cls, dim: int = 10, n_actions: int = 10, seed: int = 0, ctr: float = 0.1, temperature: float = 0.1
    ) -> "Population":
        rng = chunk_generator(seed, _POP)
        return cls(
            rng.standard_normal((n_actions, dim)),
            check_real("ctr", ctr, lower=0.0, upper=1.0),
            check_real("temperature", temperature, lower=0.0, lower_open=True),
        )

    @property
    def dim(self) -> int:
        return self.W.shape[1]

    @property
    def n_actions(self) -> int:
        return self.W.shape[0]

    def contexts(self, rng: np.random.Generator, shape) -> np.ndarray:
        h = rng.random((*shape, self.dim))
        return h / h.sum(axis=-1, keepdims=True)

    def means(self, x) -> np.ndarray:
        z = np.asarray(x) @ self.W.T / self.temperature
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return self.ctr * z / z.sum(axis=-1, keepdims=True)


@dataclass
class P2BResult:
    early_users: int
    late_users: int
    rewards: dict  # arm -> (late_users,) average reward per late user
    epsilon: float
    delta: float
    worst_crowds: tuple
    shared: int  # tuples the early users sent
    released: int  # tuples the shuffler released
    seconds: float

    def summary(self, confidence_z: float = 1.96) -> dict:
        """Means with normal-approximation 95 % intervals over late users, and the paired differences."""
        out = {}
        for arm, r in self.rewards.items():
            se = float(r.std(ddof=1) / math.sqrt(r.size)) if r.size > 1 else float("nan")
            out[arm] = {
                "mean": float(r.mean()),
                "ci95": [float(r.mean()) - confidence_z * se, float(r.mean()) + confidence_z * se],
            }
        for a, b in (("p2b", "cold"), ("warm", "p2b"), ("warm", "cold")):
            d = self.rewards[a] - self.rewards[b]
            se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else float("nan")
            out[f"{a}-{b}"] = {
                "mean": float(d.mean()),
                "ci95": [float(d.mean()) - confidence_z * se, float(d.mean()) + confidence_z * se],
            }
        return {
            "early_users": self.early_users,
            "late_users": self.late_users,
            "average_reward": out,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "worst_crowds": list(self.worst_crowds),
            "shared_tuples": self.shared,
            "released_tuples": self.released,
            "seconds": self.seconds,
        }


def _run_users(pop: Population, agent: LinUCB, n: int, T: int, seed: int, stream: int, model=None, keep: bool = False):
    """n users, each with its own agent, T rounds; chunks of users use spawned streams.  Returns the per-user
    average reward and, with ``keep``, every (context, action, reward)."""
    avg = np.empty(n)
    if keep:
        XS, AS, RS = np.empty((n, T, pop.dim)), np.empty((n, T), dtype=np.int64), np.empty((n, T))
    for c, start in enumerate(range(0, n, _CHUNK)):
        m = min(_CHUNK, n - start)
        rng = chunk_generator(seed, stream, c)
        X = pop.contexts(rng, (m, T))
        u_reward, u_tie = rng.random((m, T)), rng.random((m, T, 1))
        state = agent.init(m, model)
        total = np.zeros(m)
        rows = np.arange(m)
        for t in range(T):
            arms = agent.act(state, t + 1, u_tie[:, t], X[:, t])
            r = (u_reward[:, t] < pop.means(X[:, t])[rows, arms]).astype(float)
            state = agent.update(state, t + 1, arms, r, None, X[:, t])
            total += r
            if keep:
                AS[start : start + m, t], RS[start : start + m, t] = arms, r
        if keep:
            XS[start : start + m] = X
        avg[start : start + m] = total / T
    return avg, ((XS, AS, RS) if keep else None)


def _share(actions, rewards, p: float, share: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(users who report, the interaction each reports): pre-sampling with probability p, then the choice."""
    n, T = rewards.shape
    reports = bernoulli_double(rng, p, n)  # exactly p, not ⌈p·2^53⌉/2^53
    u = rng.random(n)
    if share == "uniform":
        pick = np.minimum((u * T).astype(np.int64), T - 1)
    else:  # a uniformly chosen rewarded interaction if any, else a uniformly chosen one
        pos = rewards > 0
        npos = pos.sum(axis=1)
        k = np.where(
            npos > 0,
            np.minimum((u * npos).astype(np.int64), np.maximum(npos - 1, 0)),
            np.minimum((u * T).astype(np.int64), T - 1),
        )
        order = np.argsort(~pos, axis=1, kind="stable")  # rewarded interactions first, in time order
        pick = np.where(npos > 0, order[np.arange(n), k], k)
    users = np.flatnonzero(reports)
    return users, pick[users]


def released_model(released, encoder: Encoder, n_actions: int, dim: int):
    """The disjoint-LinUCB model fitted on what the shuffler released (its histogram of (code, action, reward)
    tuples, :class:`mechanisms.p2b.Shuffler`), each code decoded to its centroid."""
    tup = np.repeat(np.arange(np.size(released)), released)
    code, rest = np.divmod(tup, 2 * n_actions)
    return fit_model(n_actions, dim, encoder.decode(code), rest // 2, rest % 2)


def run_p2b(
    early_users: int,
    sharing_probability: float = 0.5,
    threshold: int = 10,
    codes: int = 128,
    early_fraction: float = 0.7,
    interactions: int = 10,
    alpha: float = 1.0,
    share: str = "positive",
    threshold_on: str = "tuple",
    population: Population | None = None,
    public_sample: int = 20_000,
    seed: int = 0,
) -> P2BResult:
    """One point of the experiment: ``early_users`` early users, round(early_users·(1 − f)/f) late users."""
    t0 = time.perf_counter()
    if isinstance(early_users, bool) or not isinstance(early_users, (int, np.integer)) or early_users < 1:
        raise InvalidArgument(f"early users={early_users!r} must be an integer >= 1")
    f = check_real("early fraction", early_fraction, lower=0.0, upper=1.0, lower_open=True, upper_open=True)
    if isinstance(interactions, bool) or not isinstance(interactions, (int, np.integer)) or interactions < 1:
        raise InvalidArgument(f"interactions per user={interactions!r} must be an integer >= 1")
    if share not in ("positive", "uniform"):
        raise InvalidArgument(f"share={share!r} must be 'positive' or 'uniform'")
    pop = population or Population.synthetic(seed=seed)
    K, d, T = pop.n_actions, pop.dim, int(interactions)
    shuffler = Shuffler(sharing_probability, threshold, codes, K, threshold_on)  # validates p, l, k
    if codes > early_users:
        raise InvalidArgument(f"more codes (k = {codes}) than early users ({early_users})")
    encoder = Encoder(pop.contexts(chunk_generator(seed, _PUBLIC), (max(public_sample, codes),)), codes, seed)
    agent = LinUCB(K, d, alpha)
    late = max(1, round(early_users * (1 - f) / f))

    _, (X, A, R) = _run_users(pop, agent, early_users, T, seed, _EARLY, keep=True)
    users, pick = _share(A, R, shuffler.p, share, chunk_generator(seed, _SHARE))
    x, a, r = X[users, pick], A[users, pick], R[users, pick].astype(np.int64)
    warm = fit_model(K, d, x, a, r)

    ids = shuffler.tuple_ids(np.stack([encoder.encode(x), a, r], axis=1))
    released = shuffler.release(np.bincount(ids, minlength=shuffler.size))
    private = released_model(released, encoder, K, d)

    rewards = {
        arm: _run_users(pop, agent, late, T, seed, _LATE, model)[0]
        for arm, model in (("cold", None), ("warm", warm), ("p2b", private))
    }
    return P2BResult(
        int(early_users),
        late,
        rewards,
        shuffler.claim.epsilon,
        shuffler.claim.delta,
        shuffler.crowd.crowds,
        int(users.size),
        int(released.sum()),
        time.perf_counter() - t0,
    )
