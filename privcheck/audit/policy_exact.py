"""The exact engine for finite policies: the distribution of the action sequence, by enumeration.

For an input — a reward table x ∈ {0,1}^{T×K} (Table DP: the policy observes x[t, a_t]) or a reward list
r ∈ {0,1}^T (View DP: it observes r_t) — the probability of an action sequence is

    P(a_1..a_T | input) = Σ over feedback outcomes Π_t π_t(a_t | a_1, y_1, …, a_{t−1}, y_{t−1}) · P[y_t | reward_t],

enumerated through the policy's own ``probs``/``update`` and, when the feedback goes through a channel
(randomized response), that channel's ``support``/``logpmf``.  Histories that share actions are merged.  The
decision-rule ``TabularPolicy`` has a vectorised float path (all inputs at once) and, when its rules are
fractions, a rational path: δ at ε = 0 (total variation) is then an exact fraction.

Neighbours (Azize & Basu, "Concentrated Differential Privacy for Bandits", §III-C): tables differing in one row,
lists differing in one entry.  Over all inputs with binary rewards every neighbour pair is visited, in both
orders.  δ(ε) = max over pairs of Σ_a max(0, P(a) − e^ε Q(a)), pure ε and D_α are computed over every pair; the
smallest ε at a given δ is solved on the leading pairs and then checked against every pair
(:func:`~privcheck.audit.pairwise.epsilon_at_delta`); ρ is the grid supremum of D_α/α of
:func:`~privcheck.audit.pairwise.renyi_and_rho`.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from privcheck.core import DEFAULT_ORDERS, ExactMethodUnavailable, InvalidArgument

from .pairwise import epsilon_at_delta, hockey_terms, max_log_ratios, per_pair, renyi_and_rho

__all__ = ["all_inputs", "neighbour_pairs", "sequence_distribution", "distributions", "exact_policy_figures"]

_MAX_BRANCHES = 1 << 20


def all_inputs(definition: str, horizon: int, n_arms: int) -> list:
    """Every binary reward table (T×K) or list (T)."""
    if definition == "table":
        rows = list(itertools.product((0, 1), repeat=n_arms))
        return [np.array(tb) for tb in itertools.product(rows, repeat=horizon)]
    return [np.array(r) for r in itertools.product((0, 1), repeat=horizon)]


def neighbour_pairs(inputs: list) -> list[tuple[int, int]]:
    """Ordered index pairs (i, j), i ≠ j, of inputs differing in one row (tables) or one entry (lists)."""
    key = {x.tobytes(): i for i, x in enumerate(inputs)}
    pairs = []
    for i, x in enumerate(inputs):
        for t in range(x.shape[0]):
            alts = itertools.product((0, 1), repeat=x.shape[1]) if x.ndim == 2 else [(1 - x[t],)]
            for alt in alts:
                y = x.copy()
                y[t] = alt if x.ndim == 2 else alt[0]
                j = key[y.tobytes()]
                if j != i:
                    pairs.append((i, j))
    return pairs


def inputs_and_pairs(definition, horizon, n_arms, pairs):
    """Every binary input with every ordered neighbour pair, or the given pairs in both orders."""
    if pairs is None:
        inputs = all_inputs(definition, horizon, n_arms)
        return inputs, neighbour_pairs(inputs)
    inputs, idx_pairs = [], []
    for a, b in pairs:
        for x in (a, b):
            if not np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all():
                raise InvalidArgument(f"the exact engine enumerates binary rewards; {np.asarray(x).tolist()} has "
                                      "other values: use --method sample")
        inputs += [np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)]
        idx_pairs += [(len(inputs) - 2, len(inputs) - 1), (len(inputs) - 1, len(inputs) - 2)]
    return inputs, idx_pairs


def _take(state, idx):
    return type(state)(*[np.asarray(a)[idx] for a in state])


def sequence_distribution(policy, x, definition: str, channel=None) -> dict:
    """{action sequence: probability} for one input, through the policy's probs/update (floats)."""
    if not callable(getattr(policy, "probs", None)):
        raise ExactMethodUnavailable(f"{getattr(policy, 'name', 'the policy')} has no probs(): its decision kernel "
                                     "cannot be enumerated; use --method sample")
    T = x.shape[0]
    state = policy.init(1)
    prob = np.ones(1)
    acts = np.zeros((1, 0), dtype=np.int64)
    for t in range(1, T + 1):
        P = policy.probs(state, t)
        K = P.shape[1]
        rows, arms, fbs, ws = [], [], [], []
        for a in range(K):
            reward = int(x[t - 1, a]) if definition == "table" else int(x[t - 1])
            if channel is None:
                outcomes = [(reward, 1.0)]
            else:
                sup = np.asarray(channel.support(reward))
                outcomes = [(int(y), float(w)) for y, w in zip(sup, np.exp(channel.logpmf(reward, sup))) if w > 0]
            for y, w in outcomes:
                keep = P[:, a] > 0
                idx = np.flatnonzero(keep)
                rows.append(idx)
                arms.append(np.full(idx.size, a))
                fbs.append(np.full(idx.size, y))
                ws.append(P[idx, a] * w)
        idx = np.concatenate(rows)
        if idx.size > _MAX_BRANCHES:
            raise ExactMethodUnavailable(f"more than {_MAX_BRANCHES} histories at t={t}: too large to enumerate")
        arm = np.concatenate(arms)
        state = policy.update(_take(state, idx), t, arm, np.concatenate(fbs).astype(float), None)
        prob = prob[idx] * np.concatenate(ws)
        acts = np.concatenate([acts[idx], arm[:, None]], axis=1)
    out: dict = {}
    for a, p in zip(map(tuple, acts.tolist()), prob.tolist()):
        out[a] = out.get(a, 0.0) + p
    return out


def _tabular_float(policy, inputs, definition):
    """(n_inputs, 2^T) probabilities for a TabularPolicy, vectorised over inputs and action sequences."""
    T = policy.horizon
    X = np.stack(inputs)
    seqs = np.array(list(itertools.product((0, 1), repeat=T)), dtype=np.int64)  # (S, T)
    P = np.ones((X.shape[0], seqs.shape[0]))
    idx = np.zeros_like(P, dtype=np.int64)
    for t in range(T):
        a = seqs[:, t][None, :]
        p1 = policy.p1[t][idx]
        P *= np.where(a == 1, p1, 1 - p1)
        r = X[:, t, :][:, seqs[:, t]] if definition == "table" else X[:, t][:, None] * np.ones_like(a)
        idx = 4 * idx + 2 * a + r
    return P, [tuple(s) for s in seqs.tolist()]


def _tabular_exact(policy, inputs, definition):
    T = policy.horizon
    seqs = list(itertools.product((0, 1), repeat=T))
    out = []
    for x in inputs:
        row = []
        for s in seqs:
            pr, idx = Fraction(1), 0
            for t in range(T):
                pr *= policy.rules[t][idx][s[t]]
                r = int(x[t, s[t]]) if definition == "table" else int(x[t])
                idx = 4 * idx + 2 * s[t] + r
            row.append(pr)
        out.append(row)
    return out, [tuple(s) for s in seqs]


def distributions(policy, inputs, definition, channel=None, exact=False):
    """Probabilities of every action sequence for every input: (matrix, sequence labels)."""
    from policies.tabular import TabularPolicy

    if isinstance(policy, TabularPolicy) and channel is None:
        if exact:
            return _tabular_exact(policy, inputs, definition)
        return _tabular_float(policy, inputs, definition)
    dists = [sequence_distribution(policy, x, definition, channel) for x in inputs]
    labels = sorted(set().union(*dists))
    return np.array([[d.get(s, 0.0) for s in labels] for d in dists]), labels


def _delta_rational(P, Q, eps):
    """A rational lower bound of Σ max(0, P − e^ε Q): exact at ε = 0, else with an upper rational bound of e^ε."""
    if eps == 0:
        return sum((max(Fraction(0), p - q) for p, q in zip(P, Q)), Fraction(0))
    import mpmath

    with mpmath.workdps(60):
        sign, man, exp, _ = mpmath.mpf(mpmath.iv.exp(mpmath.iv.mpf(eps)).b)._mpf_  # exact binary value
    up = Fraction(-man if sign else man) * (Fraction(2) ** exp)
    return sum((max(Fraction(0), p - up * q) for p, q in zip(P, Q)), Fraction(0))


def exact_policy_figures(policy, claim, definition: str, channel=None, pairs=None,
                         horizon: int | None = None) -> dict:
    """δ at the claimed ε, ε at the claimed δ, pure ε and D_α, exact over all neighbour pairs (ε at δ within a
    relative 1e-9, from below); ρ on the grid of :func:`privcheck.audit.pairwise.renyi_and_rho`."""
    from privcheck.core import ApproxDP, PureDP, RenyiDP

    if definition not in ("table", "view"):
        raise InvalidArgument(f"--definition {definition!r}: the exact engine handles table and view")
    T = horizon or getattr(policy, "horizon", None)
    if T is None:
        raise InvalidArgument("give --horizon for the exact engine")
    K = policy.n_arms
    inputs, idx_pairs = inputs_and_pairs(definition, T, K, pairs)
    rational = bool(getattr(policy, "exact", False)) and T <= 4 and channel is None
    eps_claim = claim.epsilon if isinstance(claim, (PureDP, ApproxDP)) else 0.0
    delta_claim = claim.delta if isinstance(claim, (PureDP, ApproxDP)) else 0.0
    D, labels = distributions(policy, inputs, definition, channel, exact=rational)
    Df = np.array([[float(v) for v in row] for row in D]) if rational else np.asarray(D, dtype=float)
    with np.errstate(divide="ignore"):
        L = np.log(Df)
    I = np.array([p[0] for p in idx_pairs])
    J = np.array([p[1] for p in idx_pairs])
    dl = per_pair(Df, I, J, lambda a, b: hockey_terms(a, b, eps_claim))
    ratios = max_log_ratios(L, I, J)
    if rational:  # δ in fractions, on the pairs whose float δ is within rounding of the largest
        near = np.flatnonzero(dl >= dl.max() * (1 - 1e-9) - 1e-15)
        best_delta, k = max((_delta_rational(D[I[n]], D[J[n]], eps_claim), int(n)) for n in near)
    else:
        k = int(np.argmax(dl))
        best_delta = float(dl[k])
    bi, bj = int(I[k]), int(J[k])
    e = int(np.argmax(ratios))
    eps_best = float(ratios[e])
    if delta_claim > 0:
        eps_best, e = epsilon_at_delta(Df, L, I, J, delta_claim, (dl, ratios))
        e = k if e is None else e
    eps_pair = (int(I[e]), int(J[e]))
    orders = sorted(set(DEFAULT_ORDERS) | ({claim.order} if isinstance(claim, RenyiDP) else set()))
    ren, rho = renyi_and_rho(L, I, J, orders, ratios=ratios)
    P, Q = Df[bi], Df[bj]
    S = [labels[n] for n in range(len(labels)) if P[n] > math.exp(eps_claim) * Q[n] * (1 + 1e-12)]
    if not S:  # δ = 0 at the claimed ε: show the sequences of largest log-ratio of the ε-witness pair
        bi, bj = int(I[int(np.argmax(ratios))]), int(J[int(np.argmax(ratios))])
        P, Q = Df[bi], Df[bj]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(P > 0, np.log(P) - np.log(Q), -np.inf)
        top = np.nanmax(r)
        S = [labels[n] for n in range(len(labels)) if r[n] >= top - 1e-9 * max(1.0, abs(top))]
    return {
        "delta": best_delta, "delta_exact": str(best_delta) if rational else None,
        "epsilon": eps_best, "renyi": {o: v for o, v in ren.items() if o != 1.0}, "kl": ren[1.0], "rho": rho,
        "rational": rational,
        "pair": [inputs[bi].tolist(), inputs[bj].tolist()], "epsilon_pair": [inputs[eps_pair[0]].tolist(),
                                                                             inputs[eps_pair[1]].tolist()],
        "event": [list(s) for s in S[:64]], "event_size": len(S),
        "probabilities": {"x": float(sum(P[labels.index(s)] for s in S)), "x_prime": float(sum(Q[labels.index(s)] for s in S))},
        "pairs_considered": len(idx_pairs),
    }
