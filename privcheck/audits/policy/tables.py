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
(:func:`~privcheck.audits.pairwise.epsilon_at_delta`); ρ is the grid supremum of D_α/α of
:func:`~privcheck.audits.pairwise.renyi_and_rho`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np

from privcheck.core import ExactMethodUnavailable, InvalidArgument
from privcheck.core.execution import counted, part_of_plan, plan
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_memory, check_time, time_probe
from privcheck.core.protocols import (
    Enumerable,
    ExactKernel,
    FiniteFace,
    FixedHorizon,
    Named,
    is_decision_rules,
    provides,
)

from .. import escalate
from ..figures import Figures
from ..result import EngineResult
from ..rules import curve_witness, escalation, figure_of, needs, with_figure
from ..verdict import Verdict, decide
from ..pairwise import (
    FloatErrors,
    epsilon_at_delta,
    hockey_terms,
    max_log_ratios,
    per_pair,
    plain_sum,
    renyi_and_rho,
    renyi_per_pair,
    tradeoff_figures,
    tradeoff_per_pair,
)

__all__ = [
    "all_inputs",
    "neighbour_pairs",
    "sequence_distribution",
    "distributions",
    "exact_policy_figures",
    "audit_exact",
]

_MAX_BRANCHES = 1 << 20
#: decision-rule policies up to this horizon have δ computed in rational arithmetic
RATIONAL_HORIZON = 4


def all_inputs(relation, horizon: int, n_arms: int) -> list:
    """Every binary reward table (T×K) or list (T), as ``relation``'s inputs are (:mod:`.relations`)."""
    if relation.per_arm:
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


def inputs_and_pairs(relation, horizon, n_arms, pairs):
    """Every binary input with every ordered neighbour pair, or the given pairs in both orders."""
    if pairs is None:
        inputs = all_inputs(relation, horizon, n_arms)
        return inputs, neighbour_pairs(inputs)
    inputs, idx_pairs = [], []
    for a, b in pairs:
        for x in (a, b):
            if not np.isin(np.asarray(x, dtype=float), (0.0, 1.0)).all():
                raise InvalidArgument(
                    f"the exact engine enumerates binary rewards; {np.asarray(x).tolist()} has "
                    'other values: use method="sample"'
                )
        inputs += [np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)]
        idx_pairs += [(len(inputs) - 2, len(inputs) - 1), (len(inputs) - 1, len(inputs) - 2)]
    return inputs, idx_pairs


def _take(state, idx):
    return type(state)(*[np.asarray(a)[idx] for a in state])


def channel_weights(channel, reward: int, iv=None) -> list:
    """[(report, P[report | reward])] over the reports of positive probability: the channel's exact values (its
    ``pmf``, or e^logpmf) as floats, or as intervals of the context ``iv``."""
    sup = np.asarray(channel.support(reward))
    vals = channel.pmf(reward, sup) if provides(channel, FiniteFace) else None
    out = []
    if vals is None:
        for y, lv in zip(sup, np.asarray(channel.logpmf(reward, sup), dtype=float)):
            if lv > -np.inf:
                out.append((int(y), iv.exp(iv.mpf(float(lv))) if iv is not None else float(np.exp(lv))))
        return out
    for y, v in zip(sup, np.asarray(vals, dtype=object)):
        if v != 0:
            out.append((int(y), escalate.interval(iv, v) if iv is not None else float(v)))
    return out


def row_values(policy, state, t, iv):
    """The decision kernel at round t: float probabilities, or (``iv``) intervals of its exact values — a policy
    whose probabilities are exact numbers other than their doubles gives them by ``exact_probs``."""
    P = policy.probs(state, t)
    if iv is None:
        return P
    ex = policy.exact_probs(state, t) if provides(policy, ExactKernel) else P
    out = np.empty(np.shape(P), dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = escalate.interval(iv, ex[idx] if not isinstance(ex[idx], np.floating) else float(ex[idx]))
    return out


def sequence_distribution(policy, x, relation, channel=None, iv=None):
    """({action sequence: probability}, histories) for one input, through the policy's probs/update: floats, or
    (``iv``) mpmath intervals of the exact probabilities."""
    if not provides(policy, Enumerable):
        raise ExactMethodUnavailable(
            f"{policy.name if provides(policy, Named) else 'the policy'} has no probs(): its decision kernel "
            'cannot be enumerated; use method="sample"'
        )
    T = x.shape[0]
    state = policy.init(1)
    prob = np.ones(1) if iv is None else np.array([iv.mpf(1)], dtype=object)
    acts = np.zeros((1, 0), dtype=np.int64)
    histories = 1
    for t in range(1, T + 1):
        P = policy.probs(state, t)
        PV = row_values(policy, state, t, iv)
        K = P.shape[1]
        rows, arms, fbs, ws = [], [], [], []
        for a in range(K):
            reward = int(relation.reward(x, t, a))
            outcomes = (
                [(reward, 1.0 if iv is None else iv.mpf(1))]
                if channel is None
                else channel_weights(channel, reward, iv)
            )
            for y, w in outcomes:
                idx = np.flatnonzero(P[:, a] > 0)
                rows.append(idx)
                arms.append(np.full(idx.size, a))
                fbs.append(np.full(idx.size, y))
                ws.append(PV[idx, a] * w)
        idx = np.concatenate(rows)
        if idx.size > _MAX_BRANCHES:
            raise ExactMethodUnavailable(f"more than {_MAX_BRANCHES} histories at t={t}: too large to enumerate")
        histories = max(histories, idx.size)
        arm = np.concatenate(arms)
        state = policy.update(_take(state, idx), t, arm, np.concatenate(fbs).astype(float), None)
        prob = prob[idx] * np.concatenate(ws)
        acts = np.concatenate([acts[idx], arm[:, None]], axis=1)
    out: dict = {}
    for a, p in zip(map(tuple, acts.tolist()), prob.tolist()):
        out[a] = out.get(a, 0) + p
    return out, histories


def _tabular_float(policy, inputs, relation):
    """(n_inputs, 2^T) probabilities of a decision-rule policy, vectorised over inputs and action sequences:
    products of T doubles (both probabilities of a row as given)."""
    T = policy.horizon
    X = np.stack(inputs)
    seqs = np.array(list(itertools.product((0, 1), repeat=T)), dtype=np.int64)  # (S, T)
    P = np.ones((X.shape[0], seqs.shape[0]))
    idx = np.zeros_like(P, dtype=np.int64)
    for t in range(T):
        a = seqs[:, t][None, :]
        P *= np.where(a == 1, policy.p1[t][idx], policy.p0[t][idx])
        r = X[:, t, :][:, seqs[:, t]] if relation.per_arm else X[:, t][:, None] * np.ones_like(a)
        idx = 4 * idx + 2 * a + r
    return P, [tuple(s) for s in seqs.tolist()]


def _tabular_rational(policy, inputs, relation):
    """Exact (Fraction) probabilities of every action sequence under a decision-rule policy, rows as given."""
    T = policy.horizon
    seqs = list(itertools.product((0, 1), repeat=T))
    out = []
    for x in inputs:
        row = []
        for sq in seqs:
            pr, idx = Fraction(1), 0
            for t in range(T):
                pr *= Fraction(policy.rules[t][idx][sq[t]])
                r = int(relation.reward(x, t + 1, sq[t]))
                idx = 4 * idx + 2 * sq[t] + r
            row.append(pr)
        out.append(row)
    return out


def _rational_delta(policy, inputs, relation, I, J, near, eps):
    """(enclosure of max over the pairs ``near`` of δ(ε), the exact Fraction when ε = 0, else None), in rational
    arithmetic; e^ε is bracketed by mpmath intervals."""
    from privcheck.core.enclosure import Enclosure, iv_ends

    used = sorted({int(I[n]) for n in near} | {int(J[n]) for n in near})
    rows = dict(zip(used, _tabular_rational(policy, [inputs[i] for i in used], relation)))
    if eps == 0:
        e_lo = e_hi = Fraction(1)
    else:
        with escalate.precision(128) as iv:
            e_lo, e_hi = iv_ends(iv.exp(iv.mpf(float(eps))))
    lo = hi = Fraction(0)
    for n in near:
        P, Q = rows[int(I[n])], rows[int(J[n])]
        lo = max(lo, sum((max(Fraction(0), p - e_hi * q) for p, q in zip(P, Q)), Fraction(0)))
        hi = max(hi, sum((max(Fraction(0), p - e_lo * q) for p, q in zip(P, Q)), Fraction(0)))
    return Enclosure.exact(lo, hi), (lo if eps == 0 else None)


def distributions(policy, inputs, relation, channel=None, iv=None, progress=None):
    """(matrix of the probabilities of every action sequence for every input, sequence labels, γ): float64 with
    γ a bound of every entry's relative error against the exact value, or (``iv``) intervals with γ = 0.
    ``progress`` is told of the inputs done."""
    from privcheck.core.enclosure import FN_ULPS, U

    plan(progress, len(inputs), " inputs")
    T = len(inputs[0])
    if is_decision_rules(policy) and channel is None and iv is None:
        D, labels = _tabular_float(policy, inputs, relation)
        if progress:
            progress(len(inputs))
        exact_rules = all(isinstance(p, float) for rule in policy.rules for row in rule for p in row)
        # products of T doubles; rules given as fractions are first rounded to doubles (half an ulp each)
        return D, labels, (T + 1) * U * (1 if exact_rules else 2)
    dists = [counted(sequence_distribution(policy, x, relation, channel, iv), progress) for x in inputs]
    labels = sorted(set().union(*(d for d, _ in dists)))
    if iv is not None:
        return [[d.get(s, 0) for s in labels] for d, _ in dists], labels, 0.0
    histories = max(h for _, h in dists)
    gamma = (T * (2 * FN_ULPS + 6) + histories + 4) * U
    return np.array([[d.get(s, 0.0) for s in labels] for d, _ in dists]), labels, gamma


def plan_enumeration(
    policy, relation, horizon: int, channel=None, pairs=None, progress=None, max_hours: float = DEFAULT_MAX_HOURS
) -> None:
    """State the enumeration's plan before any input is built: refuse one whose memory (the probability matrix,
    its logarithms and the neighbour pairs, from counts taken in base-2 logarithms) exceeds this machine's, or
    whose time — one input's distribution timed, times the inputs — exceeds ``max_hours``; announce the inputs
    with the estimate to ``progress``."""
    K, T = policy.n_arms, horizon
    log2_n = (K * T if relation.per_arm else T) if pairs is None else math.log2(2 * len(pairs))
    rules = is_decision_rules(policy) and channel is None
    log2_s = T * math.log2(max(K, 2)) if rules else min(T * math.log2(max(K, 2)), math.log2(_MAX_BRANCHES))
    alternatives = (2 ** min(K, 60) - 1) if relation.per_arm else 1
    per_input = 24 * 2.0**log2_s + 200 + 8 * T * K + (88 * T * alternatives if pairs is None else 0)
    way_out = (
        f"a smaller horizon (every binary {'table' if relation.per_arm else 'reward list'} of T rounds "
        f"is enumerated: 2^{'K·T' if relation.per_arm else 'T'} inputs), given pairs, or the sampled "
        'method (method="sample")'
    )
    count = f"{log2_n:,.0f}" if float(log2_n).is_integer() else f"{log2_n:.4g}"
    what = f"exact {relation.name} DP at horizon={T:,} with {K} arms (2^{count} inputs)"
    check_memory(log2_n + math.log2(per_input), what, way_out, log2=True)
    n = round(2**log2_n)
    if rules:
        seconds = n * 2.0**log2_s * T * 2e-8
    else:
        x0 = np.zeros(relation.input_shape(T, K), dtype=np.int64)
        # the first call carries the start-up (compilation, caches): the second is the rate
        seconds = min(time_probe(sequence_distribution, policy, x0, relation, channel)[1] for _ in range(2)) * n
    check_time(seconds, what, way_out, max_hours)
    plan(progress, n, " inputs", seconds=seconds)


def exact_policy_figures(
    policy,
    claim,
    relation,
    channel=None,
    pairs=None,
    horizon: int | None = None,
    progress=None,
    max_hours: float = DEFAULT_MAX_HOURS,
) -> EngineResult:
    """Certified figures over all neighbour pairs: float64 with uniform error bounds
    (:class:`~privcheck.audits.pairwise.FloatErrors`), and, where that leaves the verdict undecided, the deciding
    figure of the pairs near the claim recomputed in mpmath interval arithmetic from the exact probabilities."""
    if not relation.enumerates:
        raise InvalidArgument(f"definition={relation.name!r}: the exact engine handles table and view")
    T = horizon or (policy.horizon if provides(policy, FixedHorizon) else None)
    if T is None:
        raise InvalidArgument("give horizon= for the exact engine")
    nd = needs(claim)
    plan_enumeration(policy, relation, T, channel, pairs, progress, max_hours)
    inputs, idx_pairs = inputs_and_pairs(relation, T, policy.n_arms, pairs)
    Df, labels, gamma = distributions(policy, inputs, relation, channel, progress=part_of_plan(progress))
    Df = np.asarray(Df, dtype=float)
    with np.errstate(divide="ignore"):
        L = np.log(Df)
    I = np.array([p[0] for p in idx_pairs])
    J = np.array([p[1] for p in idx_pairs])
    err = FloatErrors.of(Df, gamma, len(labels))
    dl = per_pair(Df, I, J, lambda a, b: hockey_terms(a, b, nd.epsilon))
    ratios = max_log_ratios(L, I, J)
    k = int(np.argmax(dl))
    figs = float_figures(nd, Df, L, I, J, dl, ratios, err, plain_sum, "float64 with a uniform error bound")
    delta_exact = None
    if nd.dp and is_decision_rules(policy) and channel is None and T <= RATIONAL_HORIZON:
        # decision rules: δ at the claimed ε in rational arithmetic, on every pair that can attain the maximum
        near = np.flatnonzero(dl >= dl.max() - 2 * err.delta)
        enc, delta_exact = _rational_delta(policy, inputs, relation, I, J, near, nd.epsilon)
        figs = replace(
            figs,
            delta=enc,
            certification="rational arithmetic for δ (e^ε by mpmath intervals); "
            "float64 with a uniform error bound for the other figures",
        )
    if decide(claim, figs) is Verdict.UNDECIDED:
        figs, _ = escalate_pairs(
            claim,
            figs,
            (dl, ratios, err),
            L,
            (I, J),
            lambda prec, n: _exact_rows(policy, [inputs[int(I[n])], inputs[int(J[n])]], relation, channel, prec),
        )
    figs, witness = _witness(claim, figs, (Df, L, gamma), (I, J), (dl, ratios, err), k, labels, inputs)
    return EngineResult(
        figs,
        witness,
        (f"{relation.name} DP: exact enumeration of {len(idx_pairs):,} ordered neighbour pairs",),
        len(idx_pairs),
        {"delta_lower_exact": None if delta_exact is None else str(delta_exact)},
    )


def _witness(claim, figs, dists, pairs, per_pair, k: int, labels, inputs):
    """(the figures with the trade-off figures of the witness pair, the witness): the pair leading δ at the claimed
    ε and the action sequences where it is paid (the largest log-ratio sequences of the ε-witness pair when that δ
    is 0; the curve's chosen likelihood-ratio prefix for a claim about the whole curve), and the pair of ε at the
    claimed δ.  ``dists`` = (probabilities, their logarithms, their relative error bound γ) of every input,
    ``pairs`` = (I, J), ``per_pair`` as :func:`escalate_pairs`'."""
    (Df, L, gamma), (I, J), (dl, ratios, err), nd = dists, pairs, per_pair, needs(claim)
    bi, bj = int(I[k]), int(J[k])
    e = int(np.argmax(ratios))
    if nd.delta > 0:
        _, e2 = epsilon_at_delta(Df, L, I, J, nd.delta + err.delta, (dl, ratios))
        e = k if e2 is None else e2
    # μ and an f-DP claim's gap over every pair; for a claim they decide, the witness is the leading pair's best
    # likelihood-ratio prefix
    mu, gap = tradeoff_per_pair(Df, I, J, gamma, nd.tradeoff)
    gdp = curve_witness(claim)
    if gdp:
        t = int(np.argmax(mu if gap is None else gap))
        bi, bj = int(I[t]), int(J[t])
    P, Q = Df[bi], Df[bj]
    S = (
        []
        if gdp
        else [labels[n] for n in range(len(labels)) if P[n] > math.exp(min(nd.epsilon, 700)) * Q[n] * (1 + 1e-12)]
    )
    if not S and not gdp:  # δ = 0 at the claimed ε: show the sequences of largest log-ratio of the ε-witness pair
        bi, bj = int(I[int(np.argmax(ratios))]), int(J[int(np.argmax(ratios))])
        P, Q = Df[bi], Df[bj]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(P > 0, np.log(P) - np.log(Q), -np.inf)
        top = np.nanmax(r)
        S = [labels[n] for n in range(len(labels)) if r[n] >= top - 1e-9 * max(1.0, abs(top))]
    figs = tradeoff_figures(
        figs,
        P,
        Q,
        gamma,
        [inputs[bi].tolist(), inputs[bj].tolist()],
        nd.tradeoff,
        float(mu.max(initial=0.0)),
        None if gap is None else float(gap.max()),
    )
    if gdp:  # the event of the curve's chosen point
        S = [labels[n] for n in figs.curve.members]
    pair = [inputs[bi].tolist(), inputs[bj].tolist()]
    witness = {
        "pair": pair,
        "event": {"kind": "action sequences", "values": [list(q) for q in S[:64]], "size": len(S)},
        "event_text": f"the action sequence is one of {len(S)} sequences",
        "probabilities": {
            "x": float(sum(P[labels.index(q)] for q in S)),
            "x_prime": float(sum(Q[labels.index(q)] for q in S)),
        },
        "epsilon_pair": [inputs[int(I[e])].tolist(), inputs[int(J[e])].tolist()],
    }
    return figs, witness


def _exact_rows(policy, two_inputs, relation, channel, prec):
    """The two inputs' sequence probabilities as intervals at ``prec`` bits, over a common list of labels."""
    with escalate.precision(prec) as iv:
        rows, labels, _ = distributions(policy, two_inputs, relation, channel, iv=iv)
    return rows[0], rows[1]


def float_figures(nd, D, LD, I, J, dl, ratios, err, reduce, certification):
    """Figures (enclosures) from the float per-pair values and the uniform error bounds."""
    from privcheck.core.enclosure import Enclosure

    def enc(v, e):
        v = float(v)
        return Enclosure(max(0.0, v - e), v + e if math.isfinite(v) else math.inf)

    delta = enc(dl.max(), err.delta) if nd.dp else None
    pure = float(ratios.max())
    eps = enc(pure, err.log_ratio)
    if nd.delta > 0:
        lo, _ = epsilon_at_delta(D, LD, I, J, nd.delta + err.delta, (dl, ratios), reduce)
        eps = Enclosure.lower(lo)
    ren, (rho, at) = renyi_and_rho(LD, I, J, nd.orders, reduce, ratios=ratios)
    renyi = {o: enc(v, err.renyi(o)) for o, v in ren.items() if o != 1.0}
    rho_lo = max(0.0, rho - err.renyi(at) / at) if math.isfinite(rho) else rho
    return Figures(eps, delta, renyi, Enclosure.lower(rho_lo), enc(ren[1.0], err.renyi(1.0)), certification)


#: at most this many pairs are recomputed in interval arithmetic when a verdict is undecided
MAX_ESCALATED_PAIRS = 256


def escalate_pairs(claim, figs, per_pair, LD, pairs, exact_pair, reduce=None, terms_reduce=plain_sum):
    """Recompute the deciding figure of every pair whose float enclosure contains the claim, at rising
    precision, until the verdict is decided.  ``exact_pair(prec, n)`` gives pair n's two rows as intervals (for
    the interactive engine: its leaves, with ``reduce(kind, P, Q, param, prec)`` the exact recursion over
    adversaries and ``terms_reduce`` the float one, as in :func:`renyi_per_pair`).  Beyond
    :data:`MAX_ESCALATED_PAIRS` pairs near the claim nothing is recomputed and the certification says so: the
    verdict stays undecided, never "holds".  ``per_pair``: the float figures of every pair (δ at the claimed ε, the
    largest log-ratio) and their uniform error bounds; ``pairs`` = (I, J), the pairs' rows of ``LD``."""
    from privcheck.core.enclosure import Enclosure

    (dl, ratios, err), (I, J) = per_pair, pairs
    which = escalation(claim)
    if which is None:
        return figs, None
    kind, value, param = which
    if kind == "delta":
        per, e = dl, err.delta
    elif kind == "epsilon":
        per, e = ratios, err.log_ratio
    else:
        per, e = renyi_per_pair(LD, I, J, param, terms_reduce), err.renyi(param)
    near = np.flatnonzero(per + e >= value)
    if near.size > MAX_ESCALATED_PAIRS:
        return replace(
            figs,
            certification=f"{figs.certification}; {near.size} pairs lie within the float error of "
            f"the claim, more than the {MAX_ESCALATED_PAIRS} recomputed exactly, so "
            "none was",
        ), None
    old = figure_of(figs, kind, claim)
    far = float(np.max(np.where(per + e >= value, -np.inf, per + e), initial=0.0))  # the other pairs' upper end
    got = {}

    def recompute(n, prec):
        got[n] = _exact_figure(kind, *exact_pair(prec, int(n)), param, prec, reduce)

    def settled(prec):
        nonlocal figs
        found = Enclosure.sup(list(got.values()) + [Enclosure(min(old.lo, far), far), Enclosure.point(old.lo)])
        figs = replace(
            with_figure(figs, kind, claim, found),
            certification=f"float64 with a uniform error bound; mpmath interval arithmetic at {prec} bits "
            f"on the {near.size} pairs near the claim",
        )
        return decide(claim, figs) is not Verdict.UNDECIDED

    bits = escalate.rising_precision(near.tolist(), recompute, settled)
    return figs, bits


def _exact_figure(kind, P, Q, param, prec, reduce=None):
    """One figure of one pair of interval rows: a plain sum (``reduce`` None) or the interactive recursion."""
    if reduce is None:
        return escalate.refine(kind, list(P), list(Q), False, param, prec)
    return reduce(kind, P, Q, param, prec)


def audit_exact(a):
    """The report of the audit ``a`` (:class:`~.resolved.PolicyAudit`) by exact enumeration of its relation's
    binary inputs."""
    from ..report import make_report
    from .sampled import said

    o = a.opts
    result = exact_policy_figures(
        a.policy, a.claim, a.relation, a.channel, a.pairs, a.horizon, progress=o.progress, max_hours=o.max_hours
    )
    return make_report(result, method="exact", call=said(a.call, "exact"), **a.report())
