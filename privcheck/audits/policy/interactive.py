"""Exact Interactive DP for finite policies: every deterministic adversary at once, by a tree recursion.

In the interactive protocol (Azize & Basu, "Concentrated Differential Privacy for Bandits", §III-D) the policy
recommends a_t, an adversary B that has seen a_1..a_t picks the query q_t, and the policy observes the reward
x[t, q_t] (through the feedback channel, if any).  B's view is the recommendation sequence, so for a
deterministic B

    P_x^B(a) = P_x(a | q_1 = B(a_1), q_2 = B(a_1 a_2), …, q_{T−1} = B(a_1..a_{T−1})),

where P_x(a | q) is the probability of the recommendations a when the queries are fixed to q (marginal over the
feedback).  The last query q_T never matters: what the policy observes at step T influences nothing in the view.
By Prop. 2(b) of that paper (deterministic adversaries suffice) the Interactive-DP figures are suprema over such B.
There are K^(K + K² + … + K^(T−1)) of them — 2^(2^T − 2) for K = 2 — but no enumeration is needed: every figure
here is a sum over the leaves a of a term that depends on a and on the queries along a's own path,

* δ(ε):  Σ_a max(0, P_x^B(a) − e^ε P_x'^B(a)),
* D_α, α > 1:  (1/(α−1)) ln Σ_a P_x^B(a)^α P_x'^B(a)^(1−α) (increasing in the sum), and KL: Σ_a P ln(P/P'),

and B chooses each query knowing only the prefix of its node, so the best B is found by backward induction on
the recommendation/query tree:

    V = Σ_{a_1} max_{q_1} Σ_{a_2} max_{q_2} … max_{q_{T−1}} Σ_{a_T} term(a, q),

at a cost of K^(2T−1) terms per pair of tables — the same as the pure-ε maximum over paths.  The recursion is
exact (no adversary is left out, none is counted that cannot exist) and is checked in the tests against brute
force over all 2^(2^T − 2) adversaries at T = 3 and 4.  Floating point: the caller rounds every figure down by
a relative 1e-9, far above the accumulated rounding of products of 2T probabilities.  ε at a claimed δ is the
lower end of a bisection bracket of the (decreasing) worst-case δ(ε); ρ is the supremum of D_α/α over the
grid of :func:`privcheck.core.zcdp_rho` — a lower bound of the supremum over all α, as everywhere in privcheck —
taken over every pair at the reported orders and KL, and over the 64 pairs that lead there on the fine grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument
from privcheck.core.execution import counted, plan
from privcheck.core.protocols import Enumerable, provides

from .. import escalate
from ..pairwise import FloatErrors, hockey_terms, max_log_ratios, per_pair, tradeoff_figures
from ..result import EngineResult
from ..rules import needs
from ..verdict import Verdict, decide
from .tables import channel_weights, escalate_pairs, float_figures, row_values

__all__ = [
    "audit_interactive_exact",
    "interactive_feasible",
    "interactive_work",
    "check_interactive_work",
    "MAX_INTERACTIVE_WORK",
    "path_probabilities",
    "worst_adversary_sum",
    "exact_interactive_figures",
]

#: the largest number of (table, recommendations, queries, feedback) combinations enumerated
MAX_INTERACTIVE_WORK = 1 << 26


def interactive_work(n_arms: int, horizon: int, channel, n_inputs: int | None = None) -> float:
    """log2 of (tables) × K^T recommendations × K^(T−1) queries × 2^(T−1) feedback patterns (with a channel): a
    logarithm, so that T = 10⁹ never builds the number."""
    n = n_arms * horizon if n_inputs is None else math.log2(max(n_inputs, 1))
    return n + (2 * horizon - 1) * math.log2(n_arms) + ((horizon - 1) if channel is not None else 0)


def check_interactive_work(n_arms: int, horizon: int, channel, n_inputs: int | None = None) -> None:
    """Refuse, before any input is built, an enumeration beyond :data:`MAX_INTERACTIVE_WORK`."""
    work = interactive_work(n_arms, horizon, channel, n_inputs)
    if work > math.log2(MAX_INTERACTIVE_WORK):
        raise ExactMethodUnavailable(
            f"exact Interactive DP would enumerate 2^{work:,.1f} (table, recommendations, "
            f"queries, feedback) combinations (at most 2^26): horizon={horizon}, "
            f'n_arms={n_arms} is beyond that; the sampled method (method="sample") audits '
            "it"
        )


def path_probabilities(policy, x, horizon: int, channel=None, iv=None) -> np.ndarray:
    """P_x(a | q) for every recommendation sequence a ∈ [K]^T and query sequence q ∈ [K]^(T−1), marginal over
    the feedback; returned with axes interleaved in the order the adversary moves: (a_1, q_1, …, a_{T−1},
    q_{T−1}, a_T), each of length K.  Floats, or (``iv``) mpmath intervals of the exact probabilities."""
    K, T = policy.n_arms, horizon
    recs = np.array(list(itertools.product(range(K), repeat=T)), dtype=np.int64)
    qs = np.array(list(itertools.product(range(K), repeat=T - 1)), dtype=np.int64).reshape(-1, T - 1)
    ys = (
        np.array(list(itertools.product((0, 1), repeat=T - 1)), dtype=np.int64).reshape(-1, T - 1)
        if channel is not None
        else np.zeros((1, T - 1), dtype=np.int64)
    )
    nA, nQ, nY = recs.shape[0], qs.shape[0], ys.shape[0]
    A = np.repeat(recs, nQ * nY, axis=0)
    Q = np.tile(np.repeat(qs, nY, axis=0), (nA, 1))
    Y = np.tile(ys, (nA * nQ, 1))
    rows = np.arange(A.shape[0])
    state = policy.init(A.shape[0])
    if iv is None:
        weight = np.ones(A.shape[0])
        W = None if channel is None else channel.Q
    else:
        weight = np.array([iv.mpf(1)] * A.shape[0], dtype=object)
        W = None
        if channel is not None:
            W = np.empty((2, 2), dtype=object)
            W[:] = iv.mpf(0)
            for r in (0, 1):
                for y, w in channel_weights(channel, r, iv):
                    W[r, y] = w
    for t in range(1, T + 1):
        weight = weight * row_values(policy, state, t, iv)[rows, A[:, t - 1]]
        if t == T:
            break
        reward = np.asarray(x[t - 1], dtype=np.int64)[Q[:, t - 1]]
        if channel is None:
            fb = reward
        else:
            fb = Y[:, t - 1]
            weight = weight * W[reward, fb]
        state = policy.update(state, t, Q[:, t - 1], fb.astype(float), None)
    P = weight.reshape(nA, nQ, nY).sum(axis=2).reshape((K,) * T + (K,) * (T - 1))
    order = [ax for d in range(T - 1) for ax in (d, T + d)] + [T - 1]
    return P.transpose(order)


def _last(v: np.ndarray, op) -> np.ndarray:
    """Reduce the last axis (length K, small) by an elementwise op: much faster than numpy's reduction over a
    short trailing axis."""
    out = op(v[..., 0], v[..., 1]) if v.shape[-1] > 1 else v[..., 0].copy()
    for k in range(2, v.shape[-1]):
        op(out, v[..., k], out=out)
    return out


def worst_adversary_sum(terms: np.ndarray, horizon: int, keep: bool = False):
    """max over deterministic adversaries of Σ_a term(a, q_B(a)), for a leading batch axis of pairs.

    ``terms`` has shape (m, K, …, K) with the 2T − 1 interleaved axes of :func:`path_probabilities`.  With
    ``keep`` the partial values after each query level are also returned (for recovering the adversary)."""
    v = _last(terms, np.add)
    levels = []
    for _ in range(horizon - 1):
        levels.append(v)  # (..., a_d, q_d): the value of querying q_d at node a_1..a_d
        v = _last(_last(v, np.maximum), np.add)
    return (v, levels[::-1]) if keep else v


def _node(recs, qs) -> tuple:
    """The index (a_1, q_1, …, a_d, q_d) of a node of the recommendation/query tree."""
    return tuple(v for pair in zip(recs, qs) for v in pair)


def _adversary(levels, horizon: int, K: int) -> dict:
    """The maximising adversary of one pair: {"a_1,…,a_d": q_d} for d < T."""
    strategy = {}
    frontier = [((), ())]  # (recommendations, queries chosen so far)
    for d in range(horizon - 1):
        level = levels[d]
        nxt = []
        for recs, qs in frontier:
            for a in range(K):
                idx = _node(recs, qs) + (a,)
                q = int(np.argmax(level[idx]))
                strategy[",".join(map(str, recs + (a,)))] = q
                nxt.append((recs + (a,), qs + (q,)))
        frontier = nxt
    return strategy


def _leaf_probabilities(P, strategy, horizon, K):
    """P^B(a) for every recommendation sequence a, under a deterministic strategy."""
    out = {}
    for recs in itertools.product(range(K), repeat=horizon):
        qs = tuple(strategy[",".join(map(str, recs[: d + 1]))] for d in range(horizon - 1))
        out[recs] = float(P[_node(recs, qs) + (recs[-1],)])
    return out


def exact_interactive_figures(
    policy, claim, horizon: int, channel=None, inputs=None, idx_pairs=None, progress=None
) -> EngineResult:
    """The certified figures the claim needs (pure ε or ε at its δ, δ at its ε, D_α, KL, ρ), each the supremum
    over every deterministic adversary and every given ordered pair of tables (indices into ``inputs``); with
    the pair and adversary attaining δ (or ε when δ = 0) as the witness.  ``progress`` is told of each input
    whose path probabilities are done."""
    if not provides(policy, Enumerable):
        raise ExactMethodUnavailable('the policy has no probs(): use method="sample"')
    K, T = policy.n_arms, horizon
    if T < 2:
        raise InvalidArgument(f"horizon={T}: Interactive DP needs T >= 2 (with one round there is no query)")
    if channel is not None and np.shape(getattr(channel, "Q", None)) != (2, 2):
        raise InvalidArgument("the exact interactive engine takes a binary feedback channel (a 2×2 matrix Q)")
    check_interactive_work(K, T, channel, len(inputs))
    from privcheck.core.enclosure import FN_ULPS, U

    nd = needs(claim)
    plan(progress, len(inputs), " inputs")
    D = np.stack([counted(path_probabilities(policy, x, T, channel), progress) for x in inputs])
    with np.errstate(divide="ignore"):
        LD = np.log(D)
    I = np.array([p[0] for p in idx_pairs])
    J = np.array([p[1] for p in idx_pairs])

    def reduce(terms):
        return worst_adversary_sum(terms, T)

    # each path probability: a product of at most 2T − 1 doubles (channel entries within FN_ULPS of their exact
    # values), summed over 2^(T−1) feedback patterns; the recursion adds up at most K^T leaves
    gamma = ((2 * T) * (FN_ULPS + 2) + 2 ** (T - 1) + 4) * U
    err = FloatErrors.of(D, gamma, K**T)
    ratios = max_log_ratios(LD, I, J)  # any single path is some adversary's: pure ε needs no recursion
    deltas = per_pair(D, I, J, lambda a, b: hockey_terms(a, b, nd.epsilon), reduce)
    k = int(np.argmax(deltas))
    figs = float_figures(
        nd, D, LD, I, J, deltas, ratios, err, reduce, "float64 with a uniform error bound (over every adversary)"
    )
    if decide(claim, figs) is Verdict.UNDECIDED:

        def exact_pair(prec, n):
            with escalate.precision(prec) as iv:
                return (
                    path_probabilities(policy, inputs[int(I[n])], T, channel, iv),
                    path_probabilities(policy, inputs[int(J[n])], T, channel, iv),
                )

        figs, _ = escalate_pairs(
            claim,
            figs,
            (deltas, ratios, err),
            LD,
            (I, J),
            exact_pair,
            reduce=lambda kind, P, Q, param, prec: _exact_recursion(kind, P, Q, param, prec, T),
            terms_reduce=reduce,
        )
    figs = _one_adversarys_tradeoff(figs, nd, D, (I, J), (deltas, ratios), k, (T, K), gamma, inputs)
    k, witness = _witness(D, LD, I, J, deltas, ratios, k, nd.epsilon, T, K)
    adversaries = K ** sum(K**d for d in range(1, T))
    notes = (
        f"interactive DP: exact over all {adversaries:,} deterministic adversaries (by backward induction on "
        f"the recommendation/query tree) and {int(I.size):,} ordered table pairs",
        "μ (Gaussian DP) is certified for one adversary, the one attaining δ at the claimed ε on the leading "
        "pair (total variation on the pure-ε witness pair when that δ is 0): a lower bound of the supremum "
        "over adversaries",
    )
    return EngineResult(figs, {"pair": [inputs[I[k]].tolist(), inputs[J[k]].tolist()], **witness}, notes, int(I.size))


def _one_adversarys_tradeoff(figs, nd, D, pairs, per_pair, k: int, shape, gamma, inputs):
    """``figs`` with μ (and an f-DP claim's gap) of one adversary: the one attaining δ at the claimed ε on the
    leading pair ``k`` (or, when δ there is 0, total variation on the pure-ε witness pair) — any fixed adversary's
    view gives a lower bound of the supremum.  ``pairs`` = (I, J), ``per_pair`` = (δ at the claimed ε, largest
    log-ratio) of each, ``shape`` = (T, K)."""
    (I, J), (deltas, ratios), (T, K) = pairs, per_pair, shape
    from privcheck.core.enclosure import U

    tv_eps = nd.epsilon if deltas[k] > 0 else 0.0
    kt = k if deltas[k] > 0 else int(np.argmax(ratios))  # no δ at the claimed ε: the pure-ε witness pair
    _, levels = worst_adversary_sum(hockey_terms(D[I[kt]][None], D[J[kt]][None].copy(), tv_eps), T, keep=True)
    strat = _adversary([lv[0] for lv in levels], T, K)
    Pt, Qt = (_leaf_probabilities(D[n], strat, T, K) for n in (I[kt], J[kt]))
    return tradeoff_figures(
        figs,
        list(Pt.values()),
        [Qt[a] for a in Pt],
        gamma + (K**T + 2) * U,
        [inputs[I[kt]].tolist(), inputs[J[kt]].tolist()],
        nd.tradeoff,
    )


def _witness(D, LD, I, J, deltas, ratios, k, epsilon, T, K):
    """(the witness pair's index, the witness): the pair and adversary attaining δ at the claimed ε and the
    recommendation sequences where it is paid; when that δ is 0, the pair and path of the largest ratio."""
    if deltas[k] > 0:  # the pair and adversary attaining δ, and the recommendation sequences where it is paid
        _, levels = worst_adversary_sum(hockey_terms(D[I[k]][None], D[J[k]][None].copy(), epsilon), T, keep=True)
        strategy = _adversary([lv[0] for lv in levels], T, K)
        Pk, Qk = (_leaf_probabilities(D[n], strategy, T, K) for n in (I[k], J[k]))
        event = [list(a) for a in Pk if Pk[a] > math.exp(min(epsilon, 700)) * Qk[a]]
        witness = {
            "adversary": strategy,
            "event": {"kind": "recommendation sequences", "values": event, "size": len(event)},
            "event_text": f"the recommendations are one of {len(event)} sequences, against the adversary "
            "given (queries by recommendation prefix)",
            "probabilities": {"x": sum(Pk[tuple(a)] for a in event), "x_prime": sum(Qk[tuple(a)] for a in event)},
        }
    else:  # no δ at the claimed ε: the pair and path of the largest ratio (the pure-ε witness)
        k = int(np.argmax(ratios))
        with np.errstate(invalid="ignore"):
            ratio = np.where(LD[I[k]] > -np.inf, LD[I[k]] - LD[J[k]], -np.inf)
        node = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        path = {"recommendations": [int(v) for v in node[0::2]], "queries": [int(v) for v in node[1::2]]}
        witness = {
            "event": {"kind": "path", **path},
            "event_text": f"recommendations {path['recommendations']} with queries {path['queries']} (the "
            "path of the largest probability ratio)",
        }
    return k, witness


def _exact_recursion(kind, P, Q, param, prec, T):
    """One figure of one pair of tables from interval path probabilities: the leaf terms as intervals, their
    exact (Fraction) ends through the recursion over adversaries."""
    from fractions import Fraction

    from privcheck.core.enclosure import Enclosure, iv_ends

    with escalate.precision(prec) as iv:
        flatP, flatQ = list(P.reshape(-1)), list(Q.reshape(-1))

        def zero(v):
            return iv_ends(v) == (0, 0)

        if kind == "epsilon":
            lo = hi = Fraction(0)
            for p, q in zip(flatP, flatQ):
                if zero(p):
                    continue
                if zero(q):
                    return Enclosure(math.inf, math.inf)
                a, b = iv_ends(iv.log(p) - iv.log(q))
                lo, hi = max(lo, a), max(hi, b)
            return Enclosure.exact(lo, hi)
        terms = np.empty(len(flatP), dtype=object)
        for n, (p, q) in enumerate(zip(flatP, flatQ)):
            if zero(p):
                terms[n] = iv.mpf(0)
            elif kind == "delta":
                terms[n] = p if zero(q) else p - iv.exp(iv.mpf(float(param))) * q
            elif zero(q):
                return Enclosure(math.inf, math.inf)
            elif param == 1.0:
                terms[n] = p * (iv.log(p) - iv.log(q))
            else:
                terms[n] = iv.exp(iv.mpf(float(param)) * iv.log(p) + iv.mpf(1 - float(param)) * iv.log(q))
        lo, hi = escalate.fraction_ends(terms)
        if kind == "delta":
            lo = np.array([max(Fraction(0), v) for v in lo], dtype=object)
            hi = np.array([max(Fraction(0), v) for v in hi], dtype=object)
        shape = (1,) + P.shape
        vlo = worst_adversary_sum(lo.reshape(shape), T)[0]
        vhi = worst_adversary_sum(hi.reshape(shape), T)[0]
        if kind == "delta" or param == 1.0:
            return Enclosure.exact(max(Fraction(0), Fraction(vlo)), max(Fraction(0), Fraction(vhi)))
        s = (
            iv.mpf([iv.mpf(vlo.numerator) / vlo.denominator, iv.mpf(vhi.numerator) / vhi.denominator])
            if vlo > 0
            else None
        )
        if s is None:
            return Enclosure(0.0, math.inf)
        a, b = iv_ends(iv.log(s) / iv.mpf(float(param) - 1))
        return Enclosure.exact(max(Fraction(0), a), max(Fraction(0), b))


def interactive_feasible(a) -> bool:
    """Whether the exact interactive engine fits the audit ``a`` (:class:`~.resolved.PolicyAudit`): its work,
    in base-2 logarithm, within :data:`MAX_INTERACTIVE_WORK`."""
    n_inputs = None if a.pairs is None else 2 * len(a.pairs)
    return interactive_work(a.policy.n_arms, a.horizon, a.channel, n_inputs) <= math.log2(MAX_INTERACTIVE_WORK)


def audit_interactive_exact(a):
    """The report of the audit ``a`` by backward induction over every deterministic adversary, on every binary
    reward table (or the given pairs)."""
    from ..report import make_report
    from .sampled import said
    from .tables import inputs_and_pairs

    check_interactive_work(a.policy.n_arms, a.horizon, a.channel, None if a.pairs is None else 2 * len(a.pairs))
    inputs, idx_pairs = inputs_and_pairs(a.relation, a.horizon, a.policy.n_arms, a.pairs)
    result = exact_interactive_figures(a.policy, a.claim, a.horizon, a.channel, inputs, idx_pairs, a.opts.progress)
    return make_report(result, method="exact", call=said(a.call, "exact"), **a.report())
